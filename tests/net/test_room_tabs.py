"""Two tabs of one browser around a rematch (docs/online.md, "Rematch"): the tab that takes
the table reads the room from storage a moment before the tab it took it from has stepped
aside, and that tab, still connected meanwhile, may make its seat's claim of the rematch (a
guest's device) or take the seats' claims and begin the match with them (the host's device),
and save it. The tab that plays takes that newer save (``outdated_by``) and plays on with it.
Before, the guest's new tab refused the match the host began with the claim its other tab had
made ("...your seat cannot be played from here"), and the host's new tab waited for ever for
claims its guests had made already."""

from __future__ import annotations

import json
from typing import Any

from roomkit import ROOM, Net
from test_room_rematch import _finished, _same_everywhere

from app.room import LOST_CLAIM, GuestRoom, HostRoom


def _saved(room: HostRoom | GuestRoom) -> dict[str, Any]:
    return json.loads(json.dumps(room.to_json()))


def _guest_tab(net: Net, peer: str, saved: dict[str, Any]) -> GuestRoom:
    """The guest's device has the room open in another tab, from ``saved``; not connected."""
    tab = GuestRoom.restore(saved, lambda text: net.queue.append(("host", peer, text)), key=ROOM)
    net.guests[peer] = tab
    return tab


def _count_claims(host: HostRoom) -> list[str]:
    """The peers whose claims ``host`` handles, from now on."""
    claims: list[str] = []
    on_claim = host.on_claim

    def counted(peer: Any, message: Any, now: float) -> None:
        claims.append(peer.id)
        on_claim(peer, message, now)

    host.on_claim = counted  # type: ignore[method-assign]
    return claims


def test_a_guest_s_new_tab_plays_the_rematch_with_the_claim_its_first_tab_made() -> None:
    net, _ = _finished(seed=5)
    host, first_tab = net.host, net.guests["p1"]
    claims = _count_claims(host)
    read = _saved(first_tab)  # a second tab takes the table and reads the room...
    host.rematch(net.now)
    net.pump()  # ...and the first, still connected, is told of the rematch and claims green
    assert host.table is not None and claims.count("p1") == 1
    written = _saved(first_tab)  # its last save: then it steps aside, its link closes
    net.cut("p1")

    # the room as the second tab read it cannot play the seat: the match began with a chain
    # it never saw
    stale = _guest_tab(net, "p1", read)
    net.connect("p1")
    assert stale.problem is not None and stale.problem.endswith(LOST_CLAIM), stale.problem
    # (even after its hello, a save of a later match than its own is newer)
    assert stale.outdated_by(written)
    net.cut("p1")

    # the second tab takes the first tab's save, written after it read the room: its claim
    tab = _guest_tab(net, "p1", read)
    assert tab.outdated_by(written)
    tab = _guest_tab(net, "p1", written)
    net.connect("p1")
    assert tab.problem is None and tab.seat == "green" and tab.table is not None
    assert claims.count("p1") == 1  # one claim of green: the first tab's, the match began with
    # once it has said hello, a save of its own match or an older one is not taken
    assert not tab.outdated_by(written) and not tab.outdated_by(read)
    assert not tab.outdated_by({"first": "x"}) and not tab.outdated_by(None)
    net.play_to_end(seed=6)
    _same_everywhere(net)


def test_a_host_s_new_tab_takes_the_rematch_its_first_tab_began() -> None:
    net, _ = _finished(seed=7)
    first_tab = net.host
    first_tab.rematch(net.now)
    read = _saved(first_tab)  # a second tab reads the room: every seat still to renew...
    net.pump()  # ...and the first, still connected, takes the seats' claims and begins
    assert first_tab.table is not None and first_tab.first == read["first"]
    written = _saved(first_tab)
    peers = sorted(net.links)
    for peer in peers:  # it steps aside: its links close, and each guest calls again
        net.cut(peer)

    # the room as the second tab read it waits for the claims: the guests, holding the
    # match's start, are told of the rematch again and do not claim again
    stale = HostRoom.restore(read, net.to_guest, net.now, key=ROOM)
    net.host = stale
    claims = _count_claims(stale)
    for peer in peers:
        net.connect(peer)
    assert stale.table is None and not stale.ready() and claims == []
    assert not stale.outdated_by(written)  # (a guest has reached it: too late to tell)
    for peer in peers:
        net.cut(peer)

    # before any guest reaches it, the second tab takes the first tab's later save
    tab = HostRoom.restore(read, net.to_guest, net.now, key=ROOM)
    assert tab.outdated_by(written)
    tab = HostRoom.restore(written, net.to_guest, net.now, key=ROOM)
    net.host = tab
    tab.resume(net.now)
    for peer in peers:
        net.connect(peer)
    assert tab.table is not None and not tab.outdated_by(written)
    net.play_to_end(seed=8)
    _same_everywhere(net)


def test_a_guest_s_device_keeps_where_its_player_was_in_the_match() -> None:
    # A guest's page that goes Home from the match, then reloads, opens at Home (its Resume is
    # the match), as the host's does: the guest's saved room keeps where the player was, and
    # the table the host's sync brings is there too. Before, only the host's room kept it, and
    # a guest's reload at Home went to the table once the sync came.
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    guest = net.guests["p1"]
    assert guest.table is not None and guest.page_screen() == "table"
    guest.table.session.screen = "home"  # the page went Home (Controller.route)
    saved = _saved(guest)
    assert saved["screen"] == "home"
    net.cut("p1")
    again = _guest_tab(net, "p1", saved)
    assert again.table is None and again.page_screen() == "home"
    net.connect("p1")
    assert again.table is not None and again.table.session.screen == "home"
    # a later sync of the same match (a new connection) keeps it too
    net.cut("p1")
    net.connect("p1")
    assert again.table.session.screen == "home" and _saved(again)["screen"] == "home"
    # anything else kept there is read as the table (a damaged or an older save)
    for value in ("rules", 3, None):
        assert _guest_tab(net, "p2", {**saved, "screen": value}).page_screen() == "table"
