"""app.storekeys: the stored keys of copies of the app in folders of one origin, and the once
only copy of what was stored before keys had a scope (docs/offline.md, "Served from a folder")."""

from __future__ import annotations

import pytest

from app.storekeys import COPIED_NAME, name_of, page_scope, stored_key, unscoped_copies

NAMES = ["courtyard-ludo/save", "courtyard-ludo/settings", "courtyard-ludo/owner",
         "courtyard-ludo/online", "courtyard-ludo/rooms", "courtyard-ludo/room/host/Xk3u8Qe1",
         "courtyard-ludo/hostkey/guest/Xk3u8Qe1", "courtyard-ludo/handover"]


@pytest.mark.parametrize(("path", "scope"), [
    ("/", "/"), ("/index.html", "/"), ("/preview/", "/preview/"),
    ("/preview/index.html", "/preview/"), ("/games/ludo/", "/games/ludo/"),
    ("/preview", "/"), ("", "/"), ("index.html", "/")])
def test_the_scope_is_the_folder_of_the_page(path: str, scope: str) -> None:
    assert page_scope(path) == scope


def test_at_the_root_every_name_is_stored_as_it_always_was() -> None:
    for name in NAMES:
        assert stored_key("/", name) == name
        assert name_of("/", name) == name
    assert name_of("/", "someone-else/save") is None
    assert name_of("/", "courtyard-ludo@/preview/#save") is None  # a folder's copy's


def test_in_a_folder_names_are_stored_under_the_folder_and_read_back() -> None:
    assert stored_key("/preview/", "courtyard-ludo/save") == "courtyard-ludo@/preview/#save"
    assert stored_key("/preview/", "courtyard-ludo/room/host/Xk3u8Qe1") == \
        "courtyard-ludo@/preview/#room/host/Xk3u8Qe1"
    for scope in ("/preview/", "/courtyard-ludo/", "/a/b/c/"):
        for name in NAMES:
            key = stored_key(scope, name)
            assert key != name
            assert name_of(scope, key) == name
            assert name_of("/", key) is None


def test_no_key_of_one_copy_is_a_key_of_another() -> None:
    # a copy in /preview/room/ beside one in /preview/: neither's key reads as the other's, so
    # the room listing (keys by prefix) of one never finds (and drops) the other's
    scopes = ["/", "/preview/", "/preview/room/", "/preview/room/host/", "/courtyard-ludo/"]
    for scope in scopes:
        for name in NAMES:
            key = stored_key(scope, name)
            for other in scopes:
                if other != scope:
                    assert name_of(other, key) is None, (scope, name, other)
    rooms = stored_key("/preview/", "courtyard-ludo/room/")
    assert not stored_key("/preview/room/", "courtyard-ludo/save").startswith(rooms)
    assert not stored_key("/preview/room/", "courtyard-ludo/room/host/X").startswith(rooms)


def test_a_prefix_s_key_is_the_prefix_of_its_names_keys() -> None:
    for scope in ("/", "/preview/"):
        prefix = stored_key(scope, "courtyard-ludo/room/")
        assert stored_key(scope, "courtyard-ludo/room/guest/abc").startswith(prefix)
        assert not stored_key(scope, "courtyard-ludo/rooms").startswith(prefix)


def test_only_names_of_the_app_are_stored() -> None:
    with pytest.raises(ValueError):
        stored_key("/preview/", "save")
    assert name_of("/preview/", "courtyard-ludo@/preview#save") is None
    assert stored_key("/a#b/", "courtyard-ludo/save") == "courtyard-ludo@/a%23b/#save"


OLD = {"courtyard-ludo/save": "the game", "courtyard-ludo/settings": "{}",
       "courtyard-ludo/owner": "a tab", "courtyard-ludo/room/host/R1": "a room",
       "other-site/thing": "theirs"}


def test_a_copy_in_a_folder_copies_the_unscoped_names_once_recording_it_first() -> None:
    writes = unscoped_copies("/preview/", OLD)
    assert writes[0] == ("courtyard-ludo@/preview/#unscoped-copied", "1")
    assert stored_key("/preview/", COPIED_NAME) == writes[0][0]
    assert sorted(writes[1:]) == [("courtyard-ludo@/preview/#room/host/R1", "a room"),
                                  ("courtyard-ludo@/preview/#save", "the game"),
                                  ("courtyard-ludo@/preview/#settings", "{}")]
    after = OLD | dict(writes)
    assert unscoped_copies("/preview/", after) == []
    # the player finished that game (its save removed): the old one never comes back
    del after["courtyard-ludo@/preview/#save"]
    assert unscoped_copies("/preview/", after) == []


def test_a_copy_keeps_what_it_has_and_other_copies_copy_for_themselves() -> None:
    mine = OLD | {"courtyard-ludo@/preview/#save": "my game"}
    writes = dict(unscoped_copies("/preview/", mine))
    assert "courtyard-ludo@/preview/#save" not in writes
    done = mine | writes
    others = dict(unscoped_copies("/courtyard-ludo/", done))
    assert others["courtyard-ludo@/courtyard-ludo/#save"] == "the game"
    assert not any(key.startswith("courtyard-ludo@/preview/") for key in others)


def test_nothing_is_copied_at_the_root_or_when_nothing_was_stored() -> None:
    assert unscoped_copies("/", OLD) == []
    assert unscoped_copies("/preview/", {}) == [("courtyard-ludo@/preview/#unscoped-copied", "1")]


def test_the_room_a_page_opens_by_itself_is_not_copied() -> None:
    # the room the page opened last (its session) was copied: a copy in a folder opened at its
    # start the room a copy at the root (or another folder's, having copied it too) was
    # holding, as its host with the same key or as the same guest, splitting the match. Only
    # a reload copies it; the rooms and keys always are (the link opens them when asked). Nor
    # is the "no room" mark of another copy's worker copied
    old = OLD | {"courtyard-ludo/online": '{"room": "R1", "role": "host"}',
                 "courtyard-ludo/hostkey/host/R1": "a key",
                 "courtyard-ludo/no-room-told": "2026.12.06"}
    written = dict(unscoped_copies("/preview/", old))
    assert "courtyard-ludo@/preview/#online" not in written
    assert "courtyard-ludo@/preview/#no-room-told" not in written
    assert written["courtyard-ludo@/preview/#room/host/R1"] == "a room"
    assert written["courtyard-ludo@/preview/#hostkey/host/R1"] == "a key"
    # the tab that held the room, reloaded into the new version (its banner's Reload), opens
    # it again as before
    written = dict(unscoped_copies("/preview/", old, reloaded=True))
    assert written["courtyard-ludo@/preview/#online"] == old["courtyard-ludo/online"]
    assert "courtyard-ludo@/preview/#no-room-told" not in written


class FullStorage:
    """localStorage's setItem with a quota: raises past ``room`` characters, as browsers do."""

    def __init__(self, stored: dict[str, str], room: int, refuse: str = "") -> None:
        self.stored, self.room, self.refuse = dict(stored), room, refuse

    def set_item(self, key: str, value: str) -> None:
        used = sum(len(k) + len(v) for k, v in self.stored.items() if k != key)
        if key == self.refuse or used + len(key) + len(value) > self.room:
            raise RuntimeError("QuotaExceededError")
        self.stored[key] = value


def test_a_full_storage_still_gets_the_small_names_copied() -> None:
    # the first refused write stopped the copy, its record already written: a big room sorted
    # before the save ("room/" < "save") filled the storage, and the saved game and the
    # settings were never copied, for good
    from app.storekeys import copy_unscoped

    old = OLD | {"courtyard-ludo/room/host/R1": "r" * 5000}
    size = sum(len(k) + len(v) for k, v in old.items())
    store = FullStorage(old, size + 400)
    refused = copy_unscoped("/preview/", old, store.set_item)
    assert refused == ["courtyard-ludo@/preview/#room/host/R1"]
    assert store.stored["courtyard-ludo@/preview/#save"] == "the game"
    assert store.stored["courtyard-ludo@/preview/#settings"] == "{}"
    assert stored_key("/preview/", COPIED_NAME) in store.stored
    assert copy_unscoped("/preview/", store.stored, store.set_item) == []  # once only


def test_a_refused_record_copies_nothing() -> None:
    from app.storekeys import copy_unscoped

    record = stored_key("/preview/", COPIED_NAME)
    store = FullStorage(OLD, 10**6, refuse=record)
    assert record in copy_unscoped("/preview/", OLD, store.set_item)
    assert store.stored == OLD
