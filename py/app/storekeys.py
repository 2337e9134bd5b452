"""Which copy of the app a stored key belongs to: one storage per folder of an origin.

``localStorage`` and ``BroadcastChannel`` belong to the origin, not to a page, so copies of the
app in different folders of one origin (a release at ``/courtyard-ludo/``, a preview at
``/preview/``: docs/offline.md, "Served from a folder") would share the saved game, the
settings, the rooms and the one tab that plays. The page's code names its keys as it always did
(``courtyard-ludo/save``, ``courtyard-ludo/room/host/<id>``: the *names*), and
:mod:`app.browser.storage` stores each under the copy's own *stored key*:

- at the origin's root (scope ``/``) the stored key is the name itself, as it always was;
- in a folder it is ``courtyard-ludo@<scope>#<rest of the name>``, e.g.
  ``courtyard-ludo@/preview/#save`` or ``courtyard-ludo@/preview/#room/host/<id>``. A ``#``
  never appears in a URL's path (it starts the fragment), so the scope ends exactly there: a
  copy in ``/preview/room/`` can never read as ``/preview/``'s room named ``room/...``, and the
  keys of one scope are found by prefix, as the room listing finds its rooms.

The first time a copy in a folder runs this code it copies the names stored the old way
(unscoped, shared by every copy) into its own keys, so a game in progress survives the
upgrade, and records that it did (:data:`COPIED_NAME`): a save it later removes (a finished
game) must never come back from the old copy. The unscoped entries stay, for a copy of an older
version that still reads them. Not copied: what is about the page that wrote it rather than the
player's (NOT_COPIED), and the room a page opens by itself unless the page is a reload
(SESSION_NAME says why).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

NAME_PREFIX = "courtyard-ludo/"  # every name the page stores under
ROOT_SCOPE = "/"
# Marks that a copy in a folder has copied the unscoped names once (a name of its own scope).
COPIED_NAME = NAME_PREFIX + "unscoped-copied"
# Not copied, being about the page that wrote them, not about what the player keeps:
# - the tab of the other copies' last claim of the table (persist.OWNER_KEY), which says nothing
#   about this copy's tabs;
# - the room the page opened last (SESSION_NAME), unless the page is a reload (below);
# - the version a copy last told "no room to keep the game offline" (pwa.NO_ROOM_KEY): each copy
#   has its own worker and caches, and so its own failure to tell.
NOT_COPIED = frozenset({NAME_PREFIX + "owner", NAME_PREFIX + "no-room-told"})
# The room the page opened last (online.SESSION_KEY), which a page opens by itself when it
# starts. A room is one live thing that one page holds (Online.suspend says why two holding it
# split its match): copied, a copy in a folder opened at its start the room another copy held
# (a copy at the origin's root, whose names are the unscoped ones, or another folder's copy that
# took them too) as its host with the same key, or as the same guest with the same secret. It is
# copied only by a page that is a reload: the tab that held the room before the upgrade (the new
# version's banner reloads it), which then opens it again as before. The rooms and their keys are
# always copied: a room's link opens it in this copy when the player asks.
SESSION_NAME = NAME_PREFIX + "online"


def page_scope(path: str) -> str:
    """The scope of a page at URL path ``path`` (its base URL's): the path of its folder,
    ending in ``/`` (``/preview/index.html`` and ``/preview/`` are both ``/preview/``)."""
    folder = path[:path.rfind("/") + 1]
    return folder if folder.startswith("/") else ROOT_SCOPE


def stored_key(scope: str, name: str) -> str:
    """Where the copy at ``scope`` stores ``name`` (a name under NAME_PREFIX)."""
    if not name.startswith(NAME_PREFIX):
        raise ValueError(f"not a name of the app's storage: {name!r}")
    if scope == ROOT_SCOPE:
        return name
    return _scope_prefix(scope) + name[len(NAME_PREFIX):]


def name_of(scope: str, key: str) -> str | None:
    """The name the copy at ``scope`` stored under ``key``; None if ``key`` is not one of its
    own (another copy's, another site's, or null: a storage event of ``clear()``)."""
    if scope == ROOT_SCOPE:
        return key if key.startswith(NAME_PREFIX) else None
    prefix = _scope_prefix(scope)
    return NAME_PREFIX + key[len(prefix):] if key.startswith(prefix) else None


def _scope_prefix(scope: str) -> str:
    # (a path has no "#"; should a scope given here have one, it is escaped as a URL's would be)
    return f"courtyard-ludo@{scope.replace('#', '%23')}#"


def unscoped_copies(scope: str, stored: Mapping[str, str],
                    reloaded: bool = False) -> list[tuple[str, str]]:
    """The writes that move a copy at ``scope`` onto keys of its own, given everything stored
    (key to value): none at the root (its keys are the unscoped ones) or once done; else first
    the record that it is done (COPIED_NAME), then each unscoped name this copy does not have
    yet, with its value, the shortest first (see :func:`copy_unscoped`). ``reloaded``: the
    page is a reload of its tab, which copies the room it had open too (SESSION_NAME)."""
    if scope == ROOT_SCOPE or stored_key(scope, COPIED_NAME) in stored:
        return []
    writes = [(stored_key(scope, COPIED_NAME), "1")]
    for key in sorted(stored, key=lambda k: (len(stored[k]), k)):
        if key.startswith(NAME_PREFIX) and key not in NOT_COPIED \
                and (reloaded or key != SESSION_NAME) \
                and stored_key(scope, key) not in stored:
            writes.append((stored_key(scope, key), stored[key]))
    return writes


def copy_unscoped(scope: str, stored: Mapping[str, str],
                  set_item: Callable[[str, str], object], reloaded: bool = False) -> list[str]:
    """Make :func:`unscoped_copies`'s writes with ``set_item`` (localStorage's setItem, which
    raises when storage is full or blocked); the keys it refused. Nothing is copied if the
    record is refused: a copy written without it would be made again after the player removed
    it. After the record, a refused write skips that name alone: the origin's storage is
    shared by every copy and each copy doubles what was stored, so the rooms (up to 8 of
    190 kB) could fill it, and stopping at the first refusal then lost every name sorted after
    it, the saved game and the settings among them, for good (the record was written). The
    shortest come first, so the small ones get in before a big room fills the storage."""
    writes = unscoped_copies(scope, stored, reloaded)
    refused: list[str] = []
    for index, (key, value) in enumerate(writes):
        try:
            set_item(key, value)
        except Exception:  # noqa: BLE001 - full or blocked: that name stays behind
            if index == 0:
                return [key for key, _ in writes]
            refused.append(key)
    return refused
