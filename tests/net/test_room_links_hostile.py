"""Room links and page addresses with repeated, conflicting or very long parts (hostile 5).

The rule: a room link names its room and its host once. Two `host` parts, or a second `room`,
make the link damaged (the page says so: "This room link is damaged...") and name no host,
whatever the values; until 2026-12-06 the last `host` was taken silently, so a link with a
second, edited `host` trusted that key. Parts the link does not know are ignored (a later
version may add some). For the page's `ice` setting, one `relay` among several values wins.
"""

from __future__ import annotations

import pytest

from net import hostkey, signalling
from net.signalling import is_room_id

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
HOST = "A" * 22
OTHER = "B" * 22


@pytest.mark.parametrize("fragment", [
    f"#room={ROOM}&host={HOST}&host={OTHER}",  # before: trusted OTHER
    f"#room={ROOM}&host={OTHER}&host={HOST}",
    f"#room={ROOM}&host={HOST}&host={HOST}",  # even the same twice: say once
    f"#room={ROOM}&host={HOST}&host=",
    f"#room={ROOM}&host=short&host={HOST}",  # before: the valid last one was taken
    f"#room={ROOM}&room={'C' * 22}&host={HOST}",  # two rooms: which one?
    f"#room={ROOM}&host={HOST}&room={ROOM}",
])
def test_a_link_with_a_repeated_host_or_room_names_no_host_and_is_damaged(fragment: str) -> None:
    assert hostkey.parse_fragment(fragment) == (ROOM, None)
    assert hostkey.damaged_fragment(fragment, is_room_id)


def test_a_part_the_link_does_not_know_is_ignored() -> None:
    fragment = f"#room={ROOM}&host={HOST}&later=1"
    assert hostkey.parse_fragment(fragment) == (ROOM, HOST)
    assert not hostkey.damaged_fragment(fragment, is_room_id)


def test_a_very_long_link_is_read_as_its_parts_say() -> None:
    long_tail = f"#room={ROOM}&host={HOST}" + "&x=y" * 500_000
    assert hostkey.parse_fragment(long_tail) == (ROOM, HOST)
    many_hosts = f"#room={ROOM}&" + "&".join([f"host={HOST}"] * 100_000)
    assert hostkey.parse_fragment(many_hosts) == (ROOM, None)
    assert hostkey.damaged_fragment(many_hosts, is_room_id)
    long_room = "#room=" + "A" * 2_000_000
    assert hostkey.damaged_fragment(long_room, is_room_id)


def test_a_very_long_address_still_finds_its_ice_setting() -> None:
    # 2 MB in 500 000 fields: parse_qs took 1.2 s of CPython over it, the regex about 0.05 s
    query = "?" + "a=b&" * 500_000 + "ice=relay"
    assert signalling.ice_transport_policy(query) == "relay"


@pytest.mark.parametrize(("query", "policy"), [
    ("?ice=relay&ice=all", "relay"),  # before: all (the last value won)
    ("?ice=all&ice=relay", "relay"),
    ("?ice=rel%61y", "relay"),  # percent-encoded as parse_qs read it
    ("?ice=relay+", "all"),
    ("?ice=%ff&ice=%00", "all"),
    ("?xice=relay&nice=relay", "all"),
])
def test_several_ice_values_the_stricter_wins(query: str, policy: str) -> None:
    assert signalling.ice_transport_policy(query) == policy
