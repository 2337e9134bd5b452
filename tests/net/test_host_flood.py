"""A hostile host that floods its guest with the largest messages it may send: each costs the
guest's page a second or more to parse in the browser (4 MiB of small JSON objects: 1.55 s
measured in Chromium), so without a limit a host could keep the guest's page frozen, unable
even to leave. The guest reads at most protocol.MAX_HOST_BYTES of the host's messages at once,
refilled over room.READ_REFILL_MS; a match's syncs (a few hundred kB) never come near it."""

from __future__ import annotations

import json
from functools import cache

from app import room as room_module
from net import protocol
from tests.net.roomkit import started_match


def _maximal_sync(seq: int) -> list[str]:
    """A sync of about MAX_HOST_BYTES, as parts, that every guest refuses (its record is no
    record), made mostly of small objects: the costliest JSON to parse per byte. ``seq`` has
    seven digits."""
    return protocol.frames(_maximal_text().replace('"seq":1000000,', f'"seq":{seq},', 1))


@cache
def _maximal_text() -> str:
    body = {"v": 1, "seq": 1_000_000, "type": "sync", "record": {}, "names": {}, "players": {},
            "timer": True, "turnSeconds": 30, "you": None, "connected": [], "first": 0,
            "left": None}
    room_for = protocol.MAX_HOST_BYTES - len(json.dumps(body)) - 40
    body["record"] = {"rolls": [{"a": 1}] * (room_for // 8)}
    text = json.dumps(body, separators=(",", ":"))
    assert protocol.MAX_HOST_BYTES - 100 < len(text) <= protocol.MAX_HOST_BYTES
    return text


def test_a_host_flooding_maximal_messages_is_read_at_the_budgets_pace(monkeypatch) -> None:
    net = started_match(steps=4)
    green = net.guests["p1"]
    decoded: list[int] = []
    decode = protocol.decode

    def counting(text, schema, max_bytes):  # type: ignore[no-untyped-def]
        decoded.append(len(text))
        return decode(text, schema, max_bytes)

    monkeypatch.setattr(protocol, "decode", counting)
    now = net.now
    # A sync is read only when asked for, one a second at most (tests/net/
    # test_room_sync_unread.py): here the guest keeps asking, as a host that keeps putting
    # it out of step would make it, and the host answers each with a maximal one.
    for k, seq in enumerate(range(10**6, 10**6 + 10)):  # ten, a second apart: 40 MiB
        green.sync_wanted = True  # as ask_sync does (its resync is not sent here)
        for part in _maximal_sync(seq):
            green.receive(part, now + k * room_module.GUEST_SYNC_GAP_MS)
    big = [n for n in decoded if n > protocol.FRAME_BYTES]
    assert len(big) == 1, len(big)  # the first is read; the others are left unread
    assert any("more than this device can read" in n for n in green.notices), green.notices
    # the budget comes back with time: another one is read later
    later = now + room_module.READ_REFILL_MS + 10 * room_module.GUEST_SYNC_GAP_MS
    green.sync_wanted = True
    for part in _maximal_sync(10**6 + 20):
        green.receive(part, later)
    assert len([n for n in decoded if n > protocol.FRAME_BYTES]) == 2
    # asked for and read, such a record is no record: the host is no longer followed
    # (unasked, it is never read and the match goes on: test_room_sync_unread.py)
    assert green.problem is not None


def test_a_matchs_ordinary_traffic_is_never_left_unread() -> None:
    """A whole match played (the match's syncs and every action) spends far less than the
    budget: nothing is left unread. (It played 200 actions, not a match: only the start's
    syncs, a few kB, were read.)"""
    net = started_match()
    net.play_to_end(seed=1)
    assert net.host.table.over  # (some 500-1,200 actions: the dice's secrets are random)
    for guest in net.guests.values():
        assert not any("more than this device can read" in n for n in guest.notices)
        assert guest.table is not None and guest.table.version == net.host.table.version


def test_a_guest_reconnecting_again_and_again_reads_every_sync_of_a_long_match() -> None:
    """Each connection of a guest brings the whole record (a sync at its hello): a flaky
    network's reconnections, back to back at the end of a match, stay within the guest's read
    budget: eight at one instant are read (a match of 1,128 actions has a sync of about 230 kB,
    so some 17 would not be; a real reconnection takes seconds, in which the budget refills at
    about 210 kB a second)."""
    net = started_match()
    net.play_to_end(seed=1)
    green = net.guests["p1"]
    for _ in range(8):
        net.cut("p1")
        net.connect("p1")
        assert green.table is not None and green.table.version == net.host.table.version
    assert not any("more than this device can read" in n for n in green.notices)
