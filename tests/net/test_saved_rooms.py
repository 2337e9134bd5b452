"""How many saved rooms a device keeps (app.room.saved_rooms_to_keep).

A host's saved room holds its match record and dice chains, 120-190 kB after a whole match, and
stayed saved for good unless the player pressed Leave: one more per match until the origin's
storage (about 5 MB) was full and no game could be saved any more."""

from __future__ import annotations

import json
from typing import Any

import pytest
from roomkit import Net

from app.room import KEEP_SAVED_ROOMS, saved_rooms_to_keep


def test_the_room_saved_now_comes_first_and_the_oldest_beyond_the_limit_are_forgotten() -> None:
    order = [f"host/r{i}" for i in range(KEEP_SAVED_ROOMS)]
    kept, dropped = saved_rooms_to_keep(order, "guest/new", order + ["guest/new"])
    assert kept == ["guest/new"] + order[:-1]
    assert dropped == [order[-1]]


def test_saving_a_listed_room_again_moves_it_to_the_front_and_forgets_nothing() -> None:
    order = ["host/a", "guest/b", "host/c"]
    assert saved_rooms_to_keep(order, "host/c", order) == (["host/c", "host/a", "guest/b"], [])


def test_rooms_saved_before_the_list_existed_count_as_the_oldest() -> None:
    present = [f"host/old{i}" for i in range(10)] + ["host/listed", "host/now"]
    kept, dropped = saved_rooms_to_keep(["host/listed"], "host/now", present)
    assert kept[:2] == ["host/now", "host/listed"]
    assert len(kept) == KEEP_SAVED_ROOMS and len(dropped) == 12 - KEEP_SAVED_ROOMS
    assert set(kept) | set(dropped) == set(present)


def test_listed_rooms_no_longer_stored_drop_out_of_the_list() -> None:
    # (left by the Leave button, or removed as damaged)
    assert saved_rooms_to_keep(["host/gone", "host/a"], "host/b", ["host/a", "host/b"]) == \
        (["host/b", "host/a"], [])


@pytest.mark.parametrize("order", [None, "host/a", 5, {"host/a": 1}, [1, None, ["host/a"]],
                                   ["host/a", "host/a", "host/a"]])
def test_a_damaged_list_is_read_as_far_as_it_names_stored_rooms(order: Any) -> None:
    kept, dropped = saved_rooms_to_keep(order, "host/b", ["host/a", "host/b"])
    assert kept == ["host/b", "host/a"] and dropped == []


def test_what_the_limit_keeps_is_far_below_the_browsers_storage() -> None:
    """The rooms kept, each as large as a host's after a whole 4-seat match, fit well inside
    the 5 MB an origin gets (a saved game and settings need room too)."""
    net = Net()
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    net.play_to_end(seed=5)
    size = len(json.dumps(net.host.to_json()))
    assert 50_000 < size < 400_000, size
    assert KEEP_SAVED_ROOMS * size < 2_500_000
