"""One name rule on both sides of a room (net.protocol.clean_name): whatever the host sends
passes every guest's check, and a name is only ever cut between whole characters (graphemes)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from roomkit import Net, started_match

from net import protocol
from net.protocol import NAME_LENGTH, clean_name, graphemes
from net.protocol import _printable as clean_name_printable
from net.room import HostRoom

FAMILY = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"  # 7 code points, 1 grapheme


def test_a_host_named_with_six_family_emoji_can_be_joined_and_the_match_started() -> None:
    net = Net(names={"red": FAMILY * 6})  # 42 code points: more than a message may carry
    assert net.host.names["red"] == FAMILY * 5  # 35 code points, whole emoji only
    net.seat_all()
    for guest in net.guests.values():
        assert guest.lobby is not None and guest.seat is not None, guest.notices
        assert guest.lobby["seats"][0]["name"] == FAMILY * 5
    net.host.start(net.now)
    net.pump()
    assert net.host.table is not None
    net.play_one(random.Random(1))
    for guest in net.guests.values():
        assert guest.problem is None and guest.table is not None
        assert guest.table.names["red"] == FAMILY * 5


def test_a_guests_claim_name_is_cut_between_whole_graphemes() -> None:
    net = Net()
    green = net.add_guest("p1")
    green.claim("green", FAMILY * 6)
    net.pump()
    assert green.seat == "green" and green.name == FAMILY * 5
    assert not green.name.endswith("\u200d")
    assert net.host.holders["green"].name == FAMILY * 5
    assert clean_name("e\u0301" * 25) == "e\u0301" * 20  # 40 code points, every accent kept
    assert clean_name("Z\u0335\u0336" * 14) == "Z\u0335\u0336" * 13  # 39 of 42


def test_a_restored_host_room_keeps_the_name_rule_for_names_and_holders() -> None:
    net = started_match()
    saved = net.host.to_json()
    saved["names"]["red"] = FAMILY * 8 + "\u202e"
    saved["holders"]["green"]["name"] = "\u0007" + FAMILY * 7
    room = HostRoom.restore(saved, lambda peer, text: None, net.now)
    assert room.table is not None and room.table.names["red"] == FAMILY * 5
    assert room.holders["green"].name == FAMILY * 5
    for bad in ([], {"x": 1}, 3, None):
        broken = net.host.to_json()
        broken["holders"]["green"]["name"] = bad
        try:
            HostRoom.restore(broken, lambda peer, text: None, net.now)
        except ValueError as exc:  # DiceError is a ValueError
            assert "damaged" in str(exc)
        else:
            raise AssertionError(f"a holder's name {bad!r} was accepted")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    ["a", "\u0301", "\u200d", "\U0001F468", "\U0001F3FD", "\ufe0f", "\U0001F1EB", " ", "\u202e",
     "\u0007", "\n", "\u05d0"]), max_size=80))
def test_a_cleaned_name_fits_a_message_is_whole_and_cleans_to_itself(text: str) -> None:
    name = clean_name(text)
    assert len(name) <= protocol.MAX_NAME and len(graphemes(name)) <= NAME_LENGTH
    assert clean_name(name) == name
    whole = graphemes(" ".join(clean_name_printable(text).split()))
    kept = graphemes(name)
    assert kept == whole[:len(kept)]  # whole graphemes, from the start
    # a lobby carrying it is one every guest reads
    net = Net(names={"red": text})
    guest = net.add_guest("p1")
    assert guest.lobby is not None, guest.notices
