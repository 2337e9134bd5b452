"""A host's saved room is read as hostile input (the browser's storage): what it holds must be
one room's match, or it is refused as damaged when it is read, not opened to break later."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from roomkit import T0, Net, started_match

from app.room import HostRoom
from net.dice import DiceError


def _restored(data: dict[str, Any]) -> HostRoom:
    return HostRoom.restore(json.loads(json.dumps(data)), lambda peer, text: None, T0)


def _refused(data: dict[str, Any], words: str) -> None:
    with pytest.raises(DiceError, match=words):
        _restored(data)


def test_a_saved_match_whose_dice_are_not_the_rooms_participants_is_refused() -> None:
    # it was opened: every guest refused its syncs (the participants are not the room's), and
    # the host's page raised out of the next guest move that opened a roll ("not participants")
    room = started_match(steps=6, seed=3).host.to_json()
    one_guest = started_match(steps=6, seed=3, kinds={"green": "online"}).host.to_json()
    _refused(dict(room, record=one_guest["record"], match=one_guest["match"]),
             "dice: not the room's participants")
    _refused(dict(one_guest, kinds={"green": "online", "yellow": "online"}),
             "dice: not the room's participants")


def test_a_saved_match_of_other_rules_than_the_rooms_is_refused() -> None:
    room = started_match(steps=6, seed=3).host.to_json()
    classic = started_match(steps=6, seed=3, rules="classic").host.to_json()
    _refused(dict(classic, rules="courtyard"), "record: not the room's game")
    _refused(dict(room, rules="classic"), "record: not the room's game")


def test_saved_dice_with_the_seed_drawn_but_no_record_are_refused() -> None:
    # the table begins as roll 0 settles, and the record is saved from then on: dice with
    # settled rolls and no record made resume open roll 1 as if it drew the seed, for ever
    net = started_match(steps=2, seed=3)
    room = net.host.to_json()
    dice = dict(room, record=None, dice=room["record"]["dice"])
    _refused(dice, "dice: settled rolls, no record")
    # the seed being drawn (roll 0 open, nothing settled): restored, and drawn again
    drawing = Net()
    drawing.seat_all()
    drawing.host.start(drawing.now)
    saved = drawing.host.to_json()
    assert saved["record"] is None and saved["dice"]["events"]
    assert _restored(saved).ledger is not None
    _refused(dict(saved, kinds={"green": "online", "yellow": "online"},
                  holders={s: h for s, h in saved["holders"].items() if s != "blue"}),
             "dice: not the room's participants")


def test_a_holders_chain_for_another_seat_or_not_from_roll_0_is_refused() -> None:
    room = started_match(steps=6, seed=3).host.to_json()
    for change in ({"participant": "yellow"}, {"start": 5}):
        data = json.loads(json.dumps(room))
        data["holders"]["green"]["commit"].update(change)
        _refused(data, "holder of green: a chain for this seat from roll 0")


def test_saved_rooms_of_every_rule_set_restore_and_play_on() -> None:
    for rules, options in (("courtyard", {}), ("classic", {}), ("royal", {}),
                           ("gilgiti", {"teams": True}), ("gilgiti", {"teams": False})):
        net = started_match(steps=10, seed=4, rules=rules, options=options)
        room = _restored(net.host.to_json())
        assert room.table is not None and room.table.version == net.host.table.version
        seed_drawn = started_match(steps=0, seed=4, rules=rules, options=options)
        assert _restored(seed_drawn.host.to_json()).table is not None
    net = started_match(steps=40, seed=5)
    net.play_one(random.Random(2))
    assert _restored(net.host.to_json()).ledger is not None
