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
version that still reads them.
"""

from __future__ import annotations

from collections.abc import Mapping

NAME_PREFIX = "courtyard-ludo/"  # every name the page stores under
ROOT_SCOPE = "/"
# Marks that a copy in a folder has copied the unscoped names once (a name of its own scope).
COPIED_NAME = NAME_PREFIX + "unscoped-copied"
# Not copied: the tab of the other copies' last claim of the table (persist.OWNER_KEY), which
# says nothing about this copy's tabs.
NOT_COPIED = frozenset({NAME_PREFIX + "owner"})


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


def unscoped_copies(scope: str, stored: Mapping[str, str]) -> list[tuple[str, str]]:
    """The writes that move a copy at ``scope`` onto keys of its own, given everything stored
    (key to value): none at the root (its keys are the unscoped ones) or once done; else first
    the record that it is done (COPIED_NAME), then each unscoped name this copy does not have
    yet, with its value. The caller writes them in this order and stops if the first fails: a
    copy written without its record would be made again after the player removed it."""
    if scope == ROOT_SCOPE or stored_key(scope, COPIED_NAME) in stored:
        return []
    writes = [(stored_key(scope, COPIED_NAME), "1")]
    for key in sorted(stored):
        if key.startswith(NAME_PREFIX) and key not in NOT_COPIED \
                and stored_key(scope, key) not in stored:
            writes.append((stored_key(scope, key), stored[key]))
    return writes
