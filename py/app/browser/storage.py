"""localStorage that never breaks the game, and that is this copy of the app's own.

Storage can be full, or blocked outright (some private modes throw on the
mere access to ``window.localStorage``).  Every call here catches that: reads
fall back to what this tab wrote, writes report failure by returning False,
so the controller can warn the player and play on.

The page names what it stores as it always did (``courtyard-ludo/save``); each name is stored
under a key of the page's scope, its folder (:mod:`app.storekeys`): at the origin's root the
name itself, in a folder a key that copies of the app in other folders never read. The first
use here moves a copy in a folder onto its keys (storekeys.unscoped_copies).
"""

from __future__ import annotations

from typing import Any

from pyscript import document, window
from pyscript.ffi import is_none

from .. import storekeys

_memory: dict[str, str] = {}  # what this tab wrote (by stored key), for when storage fails
_scope: str | None = None  # this page's, once known (scope())


def scope() -> str:
    """The page's scope: the path of its folder (``/`` at the origin's root)."""
    global _scope
    if _scope is None:
        _scope = storekeys.page_scope(str(window.URL.new(document.baseURI).pathname))
        _copy_unscoped(_scope)
    return _scope


def _copy_unscoped(page_scope: str) -> None:
    """Once per copy in a folder: what copies stored before keys had a scope, copied onto its
    own keys (a game in progress is not lost by the upgrade)."""
    if page_scope == storekeys.ROOT_SCOPE:
        return
    try:
        store = window.localStorage
        if not is_none(store.getItem(storekeys.stored_key(page_scope, storekeys.COPIED_NAME))):
            return  # (done before: not every value of the origin read again at each start)
        stored: dict[str, str] = {}
        for index in range(int(store.length)):
            key = store.key(index)
            if not is_none(key):
                value = store.getItem(key)
                if not is_none(value):
                    stored[str(key)] = str(value)
        # (the record of it first: if refused, nothing is copied; then each name on its own)
        storekeys.copy_unscoped(page_scope, stored,
                                lambda key, value: store.setItem(key, value), _reloaded())
    except Exception:  # noqa: BLE001 - blocked: this copy starts without them
        pass


def _reloaded() -> bool:
    """Whether this page is a reload of its tab (Navigation Timing's type), not a new visit."""
    try:
        entries = window.performance.getEntriesByType("navigation")
        return int(entries.length) > 0 and str(entries[0].type) == "reload"
    except Exception:  # noqa: BLE001 - unknown: a new visit, the safe side
        return False


def key_of(name: str) -> str:
    """The key ``name`` is stored under, or the name of this copy's channel ``name``."""
    return storekeys.stored_key(scope(), name)


def name_of(event: Any) -> str | None:
    """The name a storage event's key stands for in this copy; None if it is not this copy's
    (another copy's, or ``clear()``)."""
    key = event.key
    return None if is_none(key) else storekeys.name_of(scope(), str(key))


def get(name: str) -> str | None:
    """The stored text, or None."""
    key = key_of(name)
    try:
        value = window.localStorage.getItem(key)
    except Exception:  # blocked storage
        return _memory.get(key)
    return None if is_none(value) else str(value)


def put(name: str, value: str) -> bool:
    """Store ``value``; False if the browser refused (it is kept in memory meanwhile)."""
    key = key_of(name)
    _memory[key] = value
    try:
        window.localStorage.setItem(key, value)
    except Exception:  # full or blocked
        return False
    return True


def remove(name: str) -> None:
    """Forget ``name`` (quietly, if storage is blocked)."""
    key = key_of(name)
    _memory.pop(key, None)
    try:
        window.localStorage.removeItem(key)
    except Exception:  # blocked storage
        pass


def keys(prefix: str) -> list[str]:
    """The stored names that start with ``prefix`` (this tab's own too, if storage fails)."""
    start = key_of(prefix)  # (a name's key starts with its prefix's key)
    found = {key for key in _memory if key.startswith(start)}
    try:
        store = window.localStorage
        for index in range(int(store.length)):
            key = store.key(index)
            if not is_none(key) and str(key).startswith(start):
                found.add(str(key))
    except Exception:  # blocked storage
        pass
    return sorted(prefix + key[len(start):] for key in found)
