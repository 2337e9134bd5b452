"""Online rooms in memory: whole games among peers, spectators, reconnection, withholding,
the clock, a host that reloads, chains that run out; and every peer ends on the same position,
with a record anyone can verify offline."""

from __future__ import annotations

import json
import random

import pytest
from roomkit import ROOM, STEP_MS, Net, snapshot_guest, snapshot_host, started_match

from app.room import (
    GUEST_SYNC_GAP_MS,
    HOST,
    NOTICE_GAP_MS,
    REVEAL_TIMEOUT_MS,
    GuestRoom,
    HostRoom,
)
from app.table import COMPUTER_LEVELS, TABLE
from ludo import RULESETS, Action, IllegalAction, chance_outcomes, legal_actions
from ludo.cli import main as cli_main
from net import protocol
from net.dice import SecretChain, draw
from net.record import SEED_RANGE, verify_record_json


def _same_everywhere(net: Net) -> None:
    host = net.host
    assert host.table is not None and host.ledger is not None
    for peer, guest in net.guests.items():
        if peer not in net.links or guest.table is None:
            continue
        assert guest.problem is None, guest.problem
        assert guest.table.position_text() == host.table.position_text()
        assert guest.table.record == host.table.record
        assert guest.ledger is not None
        assert guest.ledger.to_json() == host.ledger.to_json()


def test_a_whole_game_among_four_peers(tmp_path) -> None:
    net = Net()
    net.seat_all()
    assert net.host.ready() and net.refused == []
    net.host.start(net.now)
    net.pump()
    steps = net.play_to_end(seed=3)
    assert net.host.table is not None and net.host.table.over, steps
    assert net.refused == []
    _same_everywhere(net)
    # every roll had all four contributions, and the record verifies offline
    ledger = net.host.ledger
    assert ledger is not None and ledger.participants == (HOST, "green", "yellow", "blue")
    assert all(not r.missing for r in ledger.rolls)
    record = net.host.record_json()
    assert record["version"] == 3
    verified = verify_record_json(json.loads(json.dumps(record)))
    assert verified.used == len(ledger.rolls) - 1
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert cli_main(["verify", str(path)]) == 0
    # each guest saw its acts applied and acknowledged them
    last = len(record["actions"]) - 1
    assert [peer.acked for peer in net.host.peers.values()] == [last] * 3


def _computer_aware_play(net: Net, rnd: random.Random) -> None:
    t = net.host.table
    assert t is not None
    seat = t.seat_to_act
    if seat is not None and t.kind(seat) in COMPUTER_LEVELS:
        thinking = t.computer_thinking()
        try:
            while True:
                next(thinking)
        except StopIteration as done:
            net.host.act(seat, done.value, net.now)
        net.pump()
        net.now += STEP_MS
    else:
        net.play_one(rnd)


@pytest.mark.parametrize("rules", list(RULESETS))
def test_every_rule_set_plays_to_the_end_online_with_a_computer_run_by_the_host(rules) -> None:
    seats = RULESETS[rules].seating(3)
    net = Net(rules, seats, {seats[1]: "online", seats[2]: "easy"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    rnd = random.Random(7)
    steps = 0
    assert net.host.table is not None
    while not net.host.table.over and steps < 5000:
        _computer_aware_play(net, rnd)
        steps += 1
    assert net.host.table.over
    assert net.refused == []
    _same_everywhere(net)
    verify_record_json(net.host.record_json())


def test_a_team_game_of_gilgiti_online_to_the_end() -> None:
    """Rule-set options travel with the room: four peers play Gilgiti in teams, and the winners
    every peer sees are a whole team."""
    net = Net("gilgiti", options={"teams": True})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    net.play_to_end(seed=5)
    host = net.host.table
    assert host is not None and host.over and net.refused == []
    _same_everywhere(net)
    assert dict(host.record.options) == {"teams": True}
    winners = set(host.winners())
    assert winners in ({"red", "yellow"}, {"green", "blue"}), winners
    verify_record_json(json.loads(json.dumps(net.host.record_json())))


def test_chance_values_are_the_outcomes_the_ledger_index_names() -> None:
    """Independently of net.record: value = chance_outcomes(state)[draw(...)] for each roll."""
    net = Net("royal", ("red", "yellow"), {"yellow": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    for _ in range(60):
        net.play_one(random.Random(2))
    host = net.host
    assert host.table is not None and host.ledger is not None
    from ludo.notation import replay

    states = replay(host.table.record)
    roll = 0
    assert host.table.record.seed == draw(host.match, 0, SEED_RANGE, [
        (p, r) for p, r in host.ledger.rolls[0].contributions])
    faces = set()
    for state, action in zip(states, host.table.record.actions, strict=False):
        if action.type == "roll":
            roll += 1
            settled = host.ledger.rolls[roll]
            outcomes = chance_outcomes(state)
            index = draw(host.match, roll, len(outcomes), list(settled.contributions))
            assert action.value == outcomes[index][0].value
            faces.add(action.value)
    assert roll > 20 and faces & {"crown", "feather"}


def test_seats_are_claimed_once_and_only_online_seats() -> None:
    net = Net(kinds={"green": "online", "yellow": "easy"}, seats=("red", "green", "yellow"))
    a = net.add_guest("p1")
    b = net.add_guest("p2")
    a.claim("green", "Ann")
    net.pump()
    before = snapshot_host(net.host)
    b.claim("green", "Bob")  # taken
    b.claim("yellow", "Bob")  # a computer's seat
    b.claim("red", "Bob")  # the host's own
    net.pump()
    assert [json.loads(t)["type"] for _, t in net.refused] == ["claim"] * 3
    assert snapshot_host(net.host)[4] == before[4]
    assert net.host.holders["green"].name == "Ann"
    with pytest.raises(Exception, match="started"):
        net.host.start(net.now)
        net.host.start(net.now)


def test_a_spectator_watches_verifies_and_cannot_act() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    for _ in range(30):
        net.play_one(random.Random(4))
    watcher = net.add_guest("w1", "Wally")
    watcher.watch()
    net.pump()
    assert watcher.seat is None and watcher.table is not None
    assert watcher.table.position_text() == net.host.table.position_text()  # type: ignore
    before = snapshot_host(net.host)
    watcher.send("act", version=watcher.table.version, action={"type": "roll"})
    net.pump()
    assert net.refused and json.loads(net.refused[-1][1])["type"] == "act"
    assert snapshot_host(net.host)[:4] == before[:4]
    assert "w1" not in {p for p, _ in []}
    net.play_to_end(seed=4)
    _same_everywhere(net)
    assert watcher.revealed == set()  # not a participant: never asked for a reveal


def test_a_guest_back_after_a_lost_connection_or_a_reload_is_in_its_seat() -> None:
    net = Net(seats=("red", "green", "yellow"), kinds={"green": "online", "yellow": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    rnd = random.Random(5)
    for _ in range(40):
        net.play_one(rnd)
    green = net.guest_of("green")
    assert green is not None
    kept = green.to_json()  # what its device keeps (local storage)
    net.cut("p1")
    assert "green" not in net.host.connected_seats()
    for _ in range(10):  # the others play on
        t = net.host.table
        assert t is not None
        if t.seat_to_act == "green":
            break
        net.play_one(rnd)
    # a reload: a new page restores the room from storage and connects again
    reloaded = GuestRoom.restore(kept, lambda text: net.queue.append(("host", "p9", text)))
    net.guests["p9"] = reloaded
    net.connect("p9")
    assert reloaded.seat == "green" and reloaded.table is not None
    assert reloaded.table.position_text() == net.host.table.position_text()  # type: ignore
    assert "green" in net.host.connected_seats()
    net.play_to_end(seed=6)
    _same_everywhere(net)


def test_the_same_secret_on_a_second_connection_replaces_the_first() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    first = net.guests["p1"]
    twin = GuestRoom.restore(first.to_json(), lambda t: net.queue.append(("host", "p2", t)))
    net.guests["p2"] = twin
    net.connect("p2")
    assert twin.seat == "green" and first.closed is not None
    assert net.host.peers["p1"].seat is None


def test_a_withheld_reveal_is_settled_without_it_after_the_timeout_and_said_so() -> None:
    net = Net(seats=("red", "green", "yellow"), kinds={"green": "online", "yellow": "online"})
    net.seat_all()
    yellow = net.guest_of("yellow")
    assert yellow is not None
    send = yellow.send_text
    held: list[str] = []
    yellow.send_text = lambda text: held.append(text) if '"reveal"' in text else send(text)
    net.host.start(net.now)
    net.pump()
    assert net.host.table is None and net.host.collector is not None  # roll 0 waits
    assert net.host.collector.waiting_for == {"yellow"}
    net.now += REVEAL_TIMEOUT_MS - 1
    net.host.tick(net.now)
    assert net.host.collector is not None
    net.now += 1
    net.host.tick(net.now)
    net.pump()
    assert net.host.table is not None
    assert net.host.ledger is not None and net.host.ledger.rolls[0].missing == ("yellow",)
    # the withheld reveal arrives late: refused, and its sender is told (a second on: at most
    # one notice a second goes over the board)
    net.now += NOTICE_GAP_MS
    shown: list[str] = []
    yellow.on_change = lambda what: shown.append(yellow.to_show or "") if what == "notice" \
        else None
    send(held[0])
    net.pump()
    assert 0 in yellow.dropped and 0 in yellow.revealed
    # ... and the page says so over the board (GuestRoom.to_show, when the notice is made;
    # the host's `refused` that comes with it, in the same second, is only kept in `notices`)
    assert "roll 0" in shown[0] and shown[1:] == [""]
    assert "was settled before your reveal arrived" in yellow.notices[-1]
    # everyone agrees on the roll without yellow, and play goes on
    yellow.send_text = send
    for _ in range(20):
        net.play_one(random.Random(8))
    _same_everywhere(net)


def test_a_disconnected_seat_is_not_waited_for_and_its_timeouts_eliminate_it() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"}, timer=True)
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    t = net.host.table
    assert t is not None
    net.cut("p1")
    rnd = random.Random(9)
    timeouts = 0
    while not t.over and timeouts < 10:
        if t.seat_to_act == "green":
            due = t.due(net.now)
            assert due is not None and due.kind == "timeout"
            net.now = due.at
            net.host.act(TABLE, Action("timeout"), net.now)
            assert net.host.collector is None  # nobody to wait for
            timeouts += 1
        else:
            net.host.act("red", Action("roll") if t.rolling else
                         rnd.choice(legal_actions(t.state)), net.now)
    assert "green" not in t.active_seats()
    assert t.over and t.winners() == ("red",) and timeouts == 5
    verify_record_json(net.host.record_json())


def test_a_host_that_reloads_carries_on_from_its_save() -> None:
    net = Net(seats=("red", "green", "blue"), kinds={"green": "online", "blue": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    for _ in range(50):
        net.play_one(random.Random(10))
    saved = json.loads(json.dumps(net.host.to_json()))
    for peer in list(net.links):
        net.cut(peer)
    assert all(not g.connected for g in net.guests.values())
    host = HostRoom.restore(saved, net.to_guest, net.now)
    net.host = host
    host.resume(net.now)
    for peer in ("p1", "p2"):
        net.connect(peer)
    assert host.table is not None
    for g in net.guests.values():
        assert g.table is not None and g.table.position_text() == host.table.position_text()
    net.play_to_end(seed=11)
    _same_everywhere(net)
    verify_record_json(host.record_json())


def test_a_guest_on_turn_gets_a_fresh_clock_when_the_host_reloads_but_the_host_does_not(
        ) -> None:
    """The host's reload (or another of its tabs taking the room) cuts every guest off through
    no doing of theirs: a guest on turn gets its whole turn again to call back. The host's own
    seat keeps the clock it had, so that reloading gains nobody time."""
    net = started_match(seats=("red", "green"), kinds={"green": "online"}, timer=True)
    t = net.host.table
    assert t is not None
    for seat in ("green", "red"):
        rnd = random.Random(4)
        while t.seat_to_act != seat:
            net.play_one(rnd)
        before = t.session.deadline
        assert before is not None
        saved = json.loads(json.dumps(net.host.to_json()))
        later = net.now + 25_000  # the reload and the guest's call back took 25 of its 30 s
        host = HostRoom.restore(saved, lambda peer, text: None, later)
        assert host.table is not None and host.table.seat_to_act == seat
        deadline = host.table.session.deadline
        if seat == "green":
            assert deadline == later + host.turn_seconds * 1000
        else:
            assert deadline == before
        due = host.table.due(later)
        assert due is not None and due.seat == seat and due.at == deadline


def test_a_host_that_reloads_while_the_seed_is_drawn_draws_it_again() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    green = net.guests["p1"]
    send = green.send_text
    green.send_text = lambda text: None if '"reveal"' in text else send(text)
    net.host.start(net.now)
    net.pump()
    assert net.host.table is None
    saved = json.loads(json.dumps(net.host.to_json()))
    net.cut("p1")
    green.send_text = send
    host = HostRoom.restore(saved, net.to_guest, net.now)
    net.host = host
    host.resume(net.now)
    assert host.collector is None  # not without green
    net.connect("p1")
    assert host.table is not None
    assert host.ledger is not None and host.ledger.rolls[0].missing == ()
    _same_everywhere(net)


def test_chains_are_renewed_before_they_run_out() -> None:
    HostRoom.chain_length = GuestRoom.chain_length = 130
    try:
        net = Net(seats=("red", "green"), kinds={"green": "online"})
        net.seat_all()
        net.host.start(net.now)
        net.pump()
        net.play_to_end(seed=12)
    finally:
        HostRoom.chain_length = GuestRoom.chain_length = 4096
    ledger = net.host.ledger
    assert ledger is not None and len(ledger.rolls) > 140
    commits = [e["commit"] for e in ledger.events if "commit" in e]
    assert {c["participant"] for c in commits if c["start"] > 0} == {HOST, "green"}
    assert net.refused == []
    _same_everywhere(net)
    verify_record_json(net.host.record_json())


def test_a_guest_refuses_to_reveal_a_die_the_position_does_not_need_yet() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    green = net.guests["p1"]
    t = net.host.table
    assert t is not None
    while not t.over and t.rolling:  # get to a decision node
        net.play_one(random.Random(1))
    if not t.rolling and green.table is not None:
        before = snapshot_guest(green)
        sent = len(net.queue)
        roll = green.ledger.next_roll  # type: ignore[union-attr]
        net.host.broadcast("open", roll=roll, n=6)  # a peek at the next die
        msg = net.queue.pop()
        assert not green.receive(msg[2], net.now)
        assert len(net.queue) == sent and snapshot_guest(green)[:3] == before[:3]
        # and a roll further ahead, which would give away the earlier links: no reveal; the
        # guest takes it for a lost message and asks for the record instead
        net.host.broadcast("open", roll=roll + 5, n=6)
        assert not green.receive(net.queue.pop()[2], net.now)
        asked = [json.loads(text)["type"] for _, _, text in list(net.queue)[sent:]]
        assert asked == ["resync"]


def test_a_forged_host_is_caught_not_followed() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    green = net.guests["p1"]
    host = net.host
    t = host.table
    assert t is not None and green.table is not None
    # a roll with a value the ledger does not give, for the host's own seat
    while t.seat_to_act != "red" or not t.rolling:
        net.play_one(random.Random(2))
    host.act("red", Action("roll"), net.now)
    while not any('"type":"action"' in m[2] for m in net.queue):
        to, peer, text = net.queue.popleft()  # green's reveal goes to the host
        assert to == "host" or green.receive(text, net.now) or '"open"' in text
        if to == "host":
            host.receive(peer, text, net.now)
    real = [m for m in net.queue if '"type":"action"' in m[2]][0]
    data = json.loads(real[2])
    outcomes = [a.value for a, _ in chance_outcomes(t.state)] if t.rolling else [1, 2, 3, 4, 5, 6]
    forged_value = next(v for v in outcomes if v != data["action"]["value"])
    data["action"]["value"] = forged_value
    net.queue = type(net.queue)(m if m is not real else (m[0], m[1], json.dumps(data))
                                for m in net.queue)
    before_version = green.table.version
    net.pump()
    assert green.problem is not None and "refuse" in green.problem or "gives" in str(
        green.problem)
    assert green.table.version == before_version
    # a sync whose record was tampered with does not verify either
    record = host.record_json()
    roll_at = next(i for i, a in enumerate(record["actions"]) if a["type"] == "roll")
    value = record["actions"][roll_at]["value"]
    record["actions"][roll_at]["value"] = value % 6 + 1 if isinstance(value, int) else value
    text = protocol.encode("sync", 10_000, record=record, names={}, players={}, timer=False,
                           turnSeconds=30, left=None, you="green", connected=[])
    before = snapshot_guest(green)
    green.sync_wanted = True  # as after its own resync: an unasked sync is refused unread
    net.now += GUEST_SYNC_GAP_MS  # and so is one sooner than a second after the last
    assert not green.receive(text, net.now)
    assert snapshot_guest(green)[:3] == before[:3]
    assert "does not verify" in str(green.problem)


def test_a_chain_the_host_commits_for_a_guest_is_refused_by_that_guest() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    green = net.guests["p1"]
    fake = SecretChain.new().commitment("green").to_json()
    text = protocol.encode("begin", 500, match="m" * 22, participants=[HOST, "green"],
                           commits=[SecretChain.new().commitment(HOST).to_json(), fake])
    assert not green.receive(text, net.now)
    assert green.ledger is None


def test_the_host_saved_room_refuses_damage() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    saved = net.host.to_json()
    saved["record"]["dice"]["events"][-1]["value"] ^= 1
    with pytest.raises(ValueError):
        HostRoom.restore(saved, net.to_guest, net.now)
    with pytest.raises(ValueError):
        HostRoom.restore({"room": ROOM}, net.to_guest, net.now)
    with pytest.raises(ValueError):
        GuestRoom.restore({"secret": "zz"}, lambda t: None)


def test_a_gilgiti_timeout_takes_its_die_from_the_ledger() -> None:
    # a timeout before the roll throws one die, a chance value like a roll's: online it comes
    # from the dice ledger (a roll opened and settled by every participant), never from the
    # position's RNG, which every page holds and so could foresee
    net = Net(rules="gilgiti", seats=("red", "green"), kinds={"green": "online"}, timer=True)
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    t = net.host.table
    assert t is not None
    timeouts, foreseen_right = 0, 0
    while timeouts < 12 and not t.over:
        rolling = t.rolling
        throws = len(net.host.throws)
        foreseen = t.rules.resolve(t.state, Action("timeout")).value if rolling else None
        due = t.due(net.now)
        assert due is not None and due.kind == "timeout"
        net.now = due.at
        net.host.act(TABLE, Action("timeout"), net.now)
        net.pump()  # a roll's reveals come in from the guest; the host settles and applies it
        action = t.record.actions[-1]
        assert action.type == "timeout"
        if rolling:
            (throw,) = net.host.throws[throws:]  # exactly one die, from the ledger
            assert action.value == throw.value
            foreseen_right += throw.value == foreseen
            timeouts += 1
        else:
            assert action.value is None and len(net.host.throws) == throws
    assert timeouts == 12 and foreseen_right < 12
    assert net.refused == []
    _same_everywhere(net)
    verify_record_json(net.host.record_json())


def test_an_out_of_step_action_is_noted_but_not_shown_over_the_board() -> None:
    # a message lost or crossed is routine: the guest asks for the record, and its page does
    # not put "out of step" over the board; what the host refused or did wrong is shown
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    green = net.guest_of("green")
    assert green is not None and green.table is not None
    green.to_show = None
    net.now += GUEST_SYNC_GAP_MS  # the host's answer comes a second after the last sync
    stale = json.dumps({"v": 1, "seq": 10_000, "type": "action", "version": 99, "actor": "red",
                        "action": {"type": "roll", "value": 3}, "left": None})
    green.receive(stale, net.now)
    assert "asking the host for the record" in green.notices[-1] and green.to_show is None
    # a refusal of green's own move is shown (a roll that names its die: refused at once)
    green.act(Action("roll", value=6))
    net.pump()
    assert green.to_show == ("The host refused: \u2068the dice decide a roll's value, not the "
                             "player\u2069")


def test_the_host_cannot_act_for_an_online_seat_nor_a_guest_choose_its_die() -> None:
    net = Net(rules="gilgiti", seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    t = net.host.table
    assert t is not None
    # a leave in a guest's name would end the match for everybody: refused
    with pytest.raises(IllegalAction, match="its own device"):
        net.host.act("green", Action("quit", seat="green"), net.now)
    if t.seat_to_act == "red":
        net.play_one(random.Random(1))
        while t.seat_to_act == "red":
            net.play_one(random.Random(1))
    # a guest's roll that names its die is refused before any roll is opened (settling it
    # first would show the guest the die, and let it choose whether to roll it)
    green = net.guest_of("green")
    assert green is not None and t.seat_to_act == "green" and t.rolling
    rolls = len(net.host.ledger.rolls)
    green.act(Action("roll", value=6))
    net.pump()
    assert len(net.host.ledger.rolls) == rolls and net.host.collector is None
    assert green.to_show == ("The host refused: \u2068the dice decide a roll's value, not the "
                             "player\u2069")


def test_a_seat_s_own_quit_always_fits_in_the_queue_while_a_roll_is_revealed() -> None:
    net = Net(seats=("red", "green"), kinds={"green": "online"})
    net.seat_all()
    net.host.start(net.now)
    net.pump()
    t, host = net.host.table, net.host
    assert t is not None
    while t.seat_to_act != "green" or not t.rolling:
        net.play_one(random.Random(4))
    green = net.guest_of("green")
    assert green is not None
    green.send_text = lambda text: None  # green's reveal never arrives: the roll stays open
    host.submit("green", Action("roll"), net.now, t.version)
    assert host.collector is not None
    for _ in range(2):  # its two places in the queue
        host.submit("green", Action("roll"), net.now, t.version)
    with pytest.raises(IllegalAction, match="busy"):
        host.submit("green", Action("roll"), net.now, t.version)
    assert host.submit("green", Action("quit", seat="green"), net.now, None) is False  # queued
    with pytest.raises(IllegalAction, match="busy"):  # one quit, not a way round the limit
        host.submit("green", Action("quit", seat="green"), net.now, None)
    net.now += REVEAL_TIMEOUT_MS
    host.tick(net.now)  # settled without green's reveal; the queue is played: green has quit
    assert "green" not in t.active_seats() and t.over


def test_a_lost_settled_message_is_out_of_step_not_a_die_that_fails_to_verify() -> None:
    # A relay restarting can lose one message: the next roll's settling then arrives while the
    # guest waits for the lost one. That is no sign of a cheating host; the guest asks for the
    # record, catches up, and the match goes on with nothing held against the host.
    net = started_match(steps=6, seed=3, seats=("red", "green"), kinds={"green": "online"})
    green = net.guests["p1"]
    lost: list[str] = []
    deliver = net.to_guest

    def lossy(peer: str, text: str) -> None:
        if peer == "p1" and not lost and not text.startswith("~") \
                and json.loads(text)["type"] == "settled":
            lost.append(text)
            return
        deliver(peer, text)

    net.host.send_text = lossy
    rnd = random.Random(4)
    t = net.host.table
    assert t is not None
    for _ in range(60):
        if t.over:
            break
        net.play_one(rnd)
    assert lost, "no settled message went to the guest"
    net.host.send_text = deliver
    for _ in range(40):
        if t.over:
            break
        net.play_one(rnd)
        net.now += GUEST_SYNC_GAP_MS
    assert green.problem is None, green.problem
    assert green.table is not None and green.table.version == t.version, green.notices
