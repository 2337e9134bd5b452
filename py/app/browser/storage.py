"""localStorage that never breaks the game.

Storage can be full, or blocked outright (some private modes throw on the
mere access to ``window.localStorage``).  Every call here catches that: reads
fall back to what this tab wrote, writes report failure by returning False,
so the controller can warn the player and play on.
"""

from __future__ import annotations

from pyscript import window
from pyscript.ffi import is_none

_memory: dict[str, str] = {}  # what this tab wrote, for when the browser's storage fails


def get(key: str) -> str | None:
    """The stored text, or None."""
    try:
        value = window.localStorage.getItem(key)
    except Exception:  # blocked storage
        return _memory.get(key)
    return None if is_none(value) else str(value)


def put(key: str, value: str) -> bool:
    """Store ``value``; False if the browser refused (it is kept in memory meanwhile)."""
    _memory[key] = value
    try:
        window.localStorage.setItem(key, value)
    except Exception:  # full or blocked
        return False
    return True


def remove(key: str) -> None:
    """Forget ``key`` (quietly, if storage is blocked)."""
    _memory.pop(key, None)
    try:
        window.localStorage.removeItem(key)
    except Exception:  # blocked storage
        pass


def keys(prefix: str) -> list[str]:
    """The stored keys that start with ``prefix`` (this tab's own too, if storage fails)."""
    found = {key for key in _memory if key.startswith(prefix)}
    try:
        store = window.localStorage
        for index in range(int(store.length)):
            key = store.key(index)
            if not is_none(key) and str(key).startswith(prefix):
                found.add(str(key))
    except Exception:  # blocked storage
        pass
    return sorted(found)
