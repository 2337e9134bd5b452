"""The rule-neutral table in CPython: authority, dice, the clock as data, automatic actions,
saving, whole games by computer agents, and a remote agent that cannot cheat."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.savegame import Session, decode, encode
from app.table import TABLE, Table
from ludo import (
    RULESETS,
    Action,
    IllegalAction,
    Record,
    auto_action,
    legal_actions,
    parse_position,
    record_from_json,
    record_to_json,
    replay,
    resolve,
)

T0 = 1_700_000_000_000.0  # an epoch time in ms
SECONDS = 30.0


def _table(rules: str = "courtyard", seats=("red", "yellow"), seed: int = 4, **kw) -> Table:
    return Table.new(rules, seats, seed, T0, **kw)


def _snapshot(table: Table) -> tuple:
    return table.state, table.record, table.session.deadline


# -- authority -------------------------------------------------------------------------------


def test_only_the_seat_to_act_rolls_and_moves() -> None:
    table = _table()
    seat = table.seat_to_act
    other = next(s for s in table.record.seats if s != seat)
    before = _snapshot(table)
    with pytest.raises(IllegalAction, match="turn"):
        table.submit(other, Action("roll"), T0)
    with pytest.raises(IllegalAction, match="turn"):
        table.submit(TABLE, Action("roll"), T0)
    assert _snapshot(table) == before
    table.submit(seat, Action("roll"), T0)
    assert len(table.record.actions) == 1


def test_a_seat_quits_only_itself_and_timeouts_come_only_from_the_clock() -> None:
    table = _table(seats=("red", "green", "yellow"))
    before = _snapshot(table)
    with pytest.raises(IllegalAction, match="cannot quit for"):
        table.submit("red", Action("quit", seat="green"), T0)
    with pytest.raises(IllegalAction, match="clock"):
        table.submit(table.seat_to_act, Action("timeout"), T0)
    assert _snapshot(table) == before
    table.submit("green", Action("quit", seat="green"), T0)
    assert "green" not in table.active_seats()
    table.submit(TABLE, Action("timeout"), T0)
    assert table.record.actions[-1].type == "timeout"


def test_who_may_quit_here_the_people_then_nobody_or_any_seat_of_a_computers_game() -> None:
    # a person against two computers may quit only their own seat; once they have quit they
    # watch: "You cannot rejoin as an active player", so they cannot remove a computer either
    table = _table(seats=("red", "green", "yellow"), seed=7,
                   players={"green": "easy", "yellow": "medium"})
    assert table.quitters() == ["red"]
    table.submit("red", Action("quit", seat="red"), T0)
    assert table.active_seats() == ("green", "yellow")
    assert table.quitters() == []
    # a game of computers only can still be stopped seat by seat
    bots = _table(seats=("red", "green"), players={"red": "easy", "green": "hard"})
    assert bots.quitters() == ["red", "green"]
    # two people at one device: each may quit, and the one left still may
    pair = _table(seats=("red", "green", "yellow"), players={"yellow": "easy"})
    assert pair.quitters() == ["red", "green"]
    pair.submit("green", Action("quit", seat="green"), T0)
    assert pair.quitters() == ["red"]


def test_a_lone_person_against_computers_sees_the_board_from_their_own_colour() -> None:
    # "Online, your colour is at bottom left": one person against computers too (the screen
    # turns the board to `sole_person`); "Pass-n-play keeps a fixed board": two or more people
    lone = _table(seats=("red", "green", "yellow"), players={"red": "easy", "yellow": "hard"})
    assert lone.sole_person() == "green"
    pair = _table(seats=("red", "green", "yellow"), players={"yellow": "easy"})
    assert pair.sole_person() is None
    assert _table(players={"red": "easy", "yellow": "easy"}).sole_person() is None


def test_local_dice_decide_the_roll_not_the_player() -> None:
    table = _table()
    before = _snapshot(table)
    with pytest.raises(IllegalAction, match="dice decide"):
        table.submit(table.seat_to_act, Action("roll", value=6), T0)
    assert _snapshot(table) == before
    table.submit(table.seat_to_act, Action("roll"), T0)
    assert table.record.actions[-1].value in range(1, 7)  # the record keeps the value


def test_stale_actions_are_refused() -> None:
    table = _table()
    seen = table.version
    table.submit(table.seat_to_act, Action("roll"), T0, seen=seen)
    before = _snapshot(table)
    with pytest.raises(IllegalAction, match="stale"):
        table.submit(table.seat_to_act, legal_actions(table.state)[0]
                     if not table.rolling else Action("roll"), T0, seen=seen)
    assert _snapshot(table) == before


# -- the clock as data -----------------------------------------------------------------------


def test_the_clock_runs_out_exactly_at_its_deadline() -> None:
    table = _table(timer=True)
    deadline = T0 + SECONDS * 1000
    assert table.session.deadline == deadline
    due = table.due(T0)
    assert due is not None and due.kind == "timeout" and due.at == deadline
    assert table.seconds_left(deadline - 1) > 0 and table.seconds_left(deadline) == 0
    assert table.seconds_left(deadline + 5000) == 0
    table.run_due(due, deadline)
    assert table.record.actions[-1].type == "timeout"


def test_a_new_turn_or_extra_roll_gets_a_fresh_clock_and_a_roll_does_not() -> None:
    table = _table(timer=True)
    t1 = T0 + 5000
    table.submit(table.seat_to_act, Action("roll"), t1)
    if table.rolling:  # a roll with no move, or a six without a move: a fresh clock
        assert table.session.deadline == t1 + SECONDS * 1000
    else:  # the roll and its move share the clock
        assert table.session.deadline == T0 + SECONDS * 1000
        t2 = t1 + 3000
        table.submit(table.seat_to_act, legal_actions(table.state)[0], t2)
        assert table.session.deadline == t2 + SECONDS * 1000


def test_another_seat_quitting_keeps_the_clock() -> None:
    table = _table(seats=("red", "green", "yellow"), timer=True)
    other = next(s for s in table.active_seats() if s != table.seat_to_act)
    table.submit(other, Action("quit", seat=other), T0 + 9000)
    assert table.session.deadline == T0 + SECONDS * 1000


class _GivenDice:
    """Dice that take the value a test gives (to reach one throw), else the position's."""

    def resolve(self, state, action: Action, actor: str) -> Action:
        return action if action.value is not None else resolve(state, action)


def test_another_seat_quitting_that_leaves_the_seat_to_act_an_extra_throw_gives_a_fresh_clock(
) -> None:
    # Royal: red carries green (man 0, whose crown blue's double on 13 stops) and yellow (man
    # 1), the rest home. Red's second crown offers a choice; green quits while red decides, so
    # red has no other man to move: yellow's rider must go to balk and red throws again. That
    # throw is an extra roll, and "A new turn or an extra roll gets a fresh 30 seconds" (seed
    # 000, rule 10): it had only what was left of the crown's 30 seconds.
    state = parse_position(
        '{"format":"courtyard-ludo/position","version":1,"rules":"royal",'
        '"seats":["red","green","yellow","blue"],"turn":"red","phase":"roll","die":null,'
        '"crowns":1,"men":{"red":[5,20,"home","home"],"green":[5,"balk","balk","balk"],'
        '"yellow":[20,13,"balk","balk"],"blue":[13,"balk","balk","balk"]},'
        '"doubles":[{"carrier":["red",0],"rider":["green",0]},'
        '{"carrier":["red",1],"rider":["yellow",0]},{"carrier":["blue",0],"rider":["yellow",1]}],'
        '"timeouts":{"red":0,"green":0,"yellow":0,"blue":0},"out":{},"winner":null,'
        '"rng":"0123456789abcdef"}')
    session = Session(Record("royal", state.seats, 0), timer=True, deadline=T0 + SECONDS * 1000)
    table = Table(session, [state], dice=_GivenDice(), now=T0)
    table.submit("red", Action("roll", value="crown"), T0 + 4000)
    assert table.state.phase == "choose"
    assert table.session.deadline == T0 + SECONDS * 1000  # the throw and its choice share it
    events = table.submit("green", Action("quit", seat="green"), T0 + 9000)
    assert [e["type"] for e in events] == ["quit", "captured", "extra_roll"]
    assert table.rolling and table.seat_to_act == "red"
    assert table.session.deadline == T0 + 9000 + SECONDS * 1000


def test_no_clock_when_the_timer_is_off_or_a_computer_plays() -> None:
    table = _table(timer=False)
    assert table.due(T0) is None and table.seconds_left(T0) is None
    table = _table(players={"red": "easy", "yellow": "hard"})
    due = table.due(T0, pace=700)
    assert due.kind == "computer" and due.at == T0 + 700
    assert table.seconds_left(T0) is None


def test_a_deadline_that_is_not_a_finite_number_is_due_now() -> None:
    table = _table(timer=True)
    table.session.deadline = float("inf")
    assert table.due(T0 + 1).at == T0 + 1


def test_the_only_move_is_due_after_the_auto_delay() -> None:
    rng = random.Random(2)
    table = _table()
    for _ in range(400):
        assert not table.over
        if not table.rolling and auto_action(table.state) is not None:
            due = table.due(table.changed_at, auto_delay=450)
            assert due.kind == "auto" and due.at == table.changed_at + 450
            assert due.action == auto_action(table.state)
            table.run_due(due, due.at)
            return
        seat = table.seat_to_act
        action = Action("roll") if table.rolling else rng.choice(legal_actions(table.state))
        table.submit(seat, action, table.changed_at + 10)
    pytest.fail("no automatic move came up")


def test_a_remote_seats_only_move_plays_itself_at_the_deadline_without_a_timeout() -> None:
    # the peer's own page plays it (after its auto delay); if the peer dropped after rolling,
    # the host plays it when the clock runs out, and counts no timeout (rule 2: it "moves
    # automatically"; there was nothing to decide)
    rng = random.Random(2)
    table = _table(players={"yellow": "remote"})
    for _ in range(2000):
        assert not table.over
        seat = table.seat_to_act
        if seat == "yellow" and not table.rolling and auto_action(table.state) is not None:
            due = table.due(table.changed_at, auto_delay=450)
            assert due.kind == "auto" and due.at == table.session.deadline
            assert due.action == auto_action(table.state)
            timeouts = table.state.timeouts
            table.run_due(due, due.at)
            assert table.record.actions[-1] == due.action
            assert table.state.timeouts == timeouts
            return
        action = Action("roll") if table.rolling else rng.choice(legal_actions(table.state))
        table.submit(seat, action, table.changed_at + 10)
    pytest.fail("no automatic move of the remote seat came up")


# -- saving and whole games ---------------------------------------------------------------------


def test_save_and_restore_give_the_same_table() -> None:
    table = _table(names={"red": "Ada"}, players={"yellow": "medium"}, timer=True)
    for _ in range(12):
        due = table.due(T0)
        if due.kind == "computer":
            gen = table.computer_thinking()
            action = _drain(gen)
            table.submit(table.seat_to_act, action, T0)
        elif due.kind == "auto":
            table.run_due(due, T0)
        else:
            action = Action("roll") if table.rolling else legal_actions(table.state)[0]
            table.submit(table.seat_to_act, action, T0)
    session, states, events = decode(encode(table.session))
    restored = Table(session, states, now=T0)
    assert restored.state == table.state and restored.record == table.record
    assert restored.session == table.session
    assert restored.due(T0, 1, 2) == table.due(T0, 1, 2)
    assert len(events) == len(table.record.actions)


def _drain(gen) -> Action:
    while True:
        try:
            next(gen)
        except StopIteration as done:
            return done.value


@pytest.mark.parametrize("rules", list(RULESETS))
def test_a_whole_game_between_computer_agents(rules: str) -> None:
    seats = RULESETS[rules].seating(4)
    levels = ("easy", "medium", "hard", "easy")
    table = Table.new(rules, seats, 21, T0, players=dict(zip(seats, levels, strict=True)))
    now = T0
    for _ in range(20_000):
        due = table.due(now)
        if due is None:
            break
        assert due.kind == "computer"
        action = _drain(table.computer_thinking())
        now += 1
        table.submit(due.seat, action, now)
    assert table.over and table.winners()
    assert replay(record_from_json(record_to_json(table.record)))[-1] == table.state


# -- a remote agent that sends what it likes ---------------------------------------------------


forged = st.one_of(
    st.builds(Action, st.just("move"), st.integers(-2, 6)),
    st.builds(lambda v: Action("roll", value=v), st.integers(0, 7)),
    st.just(Action("roll")),
    st.just(Action("timeout")),
    st.builds(lambda s: Action("quit", seat=s), st.sampled_from(["red", "yellow", "blue", "x"])),
    st.builds(Action, st.sampled_from(["fly", "", "move"]), st.none(), st.none(), st.none(),
              st.just((0, 1))),
)


@settings(max_examples=150, deadline=None)
@given(script=st.lists(st.tuples(forged, st.integers(-1, 3)), min_size=1, max_size=25),
       seed=st.integers(0, 50))
def test_a_remote_agent_cannot_act_out_of_turn_or_cheat(script, seed) -> None:
    table = _table(seed=seed, players={"yellow": "remote"})
    for action, lag in script:
        before = _snapshot(table)
        seen = table.version - lag if lag >= 0 else None
        legal = not table.over and table.seat_to_act == "yellow" and (
            action in legal_actions(table.state) and action.value is None
            and action.type in ("roll", "move")) and seen in (None, table.version)
        own_quit = action == Action("quit", seat="yellow") and seen in (None, table.version) \
            and not table.over and "yellow" in table.active_seats()
        try:
            table.submit("yellow", action, T0, seen=seen)
        except IllegalAction:
            assert _snapshot(table) == before
            assert not legal and not own_quit
        else:
            assert legal or own_quit, action
        # red (a local person) plays its own turns in between
        while not table.over and table.seat_to_act == "red":
            table.submit("red", Action("roll") if table.rolling
                         else legal_actions(table.state)[0], T0)


def test_the_scene_and_choices_follow_the_position_and_are_made_once_per_position() -> None:
    from ludo import choices, scene

    table = _table("gilgiti", seats=("red", "green"))
    seat = table.seat_to_act
    first = table.scene()
    assert table.scene() is first and first == scene(table.state)
    assert table.choices_for(seat) == choices(table.state)
    table.choices_for(seat).clear()  # a caller's list is its own
    assert table.choices_for(seat) == choices(table.state)
    table.submit(seat, Action("roll"), T0)
    assert table.scene() is not first and table.scene() == scene(table.state)
    assert table.choices_for(table.seat_to_act) == choices(table.state)


def test_the_home_note_says_the_clock_runs_only_when_one_does() -> None:
    from app import panel

    people = Table.new("courtyard", ("red", "yellow"), 5, now=0.0)
    assert "Its clock keeps running." in panel.resume_text(people)[0]
    untimed = Table.new("courtyard", ("red", "yellow"), 5, now=0.0, timer=False)
    assert "clock" not in panel.resume_text(untimed)[0]
    computers = Table.new("courtyard", ("red", "yellow"), 5, now=0.0,
                          players={"red": "easy", "yellow": "hard"})
    assert "clock" not in panel.resume_text(computers)[0]  # computers never time out


def test_home_offers_to_watch_not_resume_once_nobody_here_plays() -> None:
    # rule 11: "You cannot rejoin as an active player": once every person here has quit (or
    # been eliminated) and computers play on, Home's button does not offer to resume the game
    from app import panel

    table = Table.new("courtyard", ("red", "green", "yellow"), 5, now=0.0,
                      players={"green": "easy", "yellow": "easy"}, names={"red": "Ada"})
    assert panel.resume_text(table)[1] == "Resume game"
    table.submit("red", Action("quit", seat="red"), T0)
    assert not table.over
    note, button = panel.resume_text(table)
    assert button == "Watch the game"
    assert note == ("A Courtyard game is in progress (2 players; Yellow to play). Nobody here "
                    "plays in it any more: the others play on. Starting a new game replaces it.")
    # a person here who quit while people elsewhere play on (an online host): their clocks run
    online = Table.new("courtyard", ("red", "green", "yellow"), 5, now=0.0,
                       players={"green": "remote", "yellow": "remote"})
    online.submit("red", Action("quit", seat="red"), T0)
    note, button = panel.resume_text(online)
    assert button == "Watch the game" and note.endswith(
        "Nobody here plays in it any more: the others play on. Its clock keeps running. "
        "Starting a new game replaces it.")
    # a game of computers only was never played here: it is resumed, as before
    computers = Table.new("courtyard", ("red", "yellow"), 5, now=0.0,
                          players={"red": "easy", "yellow": "hard"})
    assert panel.resume_text(computers)[1] == "Resume game"


def test_a_new_game_over_an_online_match_says_the_match_goes_on_and_the_seat_is_kept() -> None:
    """Seed 000, rule 11: "Home saves your seat without quitting, and timers keep running."
    Start game over an online match this device plays in asked "A new game replaces it, and
    it cannot be resumed.": untrue. The match goes on without this page (a guest's seat kept
    and timed out, the host's match paused for everybody) and the room's link brings it
    back. The dialog and the Home note now say so; a game on this device alone keeps its
    words."""
    from app import panel

    guest = Table.new("courtyard", ("red", "green"), 5, now=0.0,
                      players={"red": "remote"}, names={"red": "Hana", "green": "Gus"})
    text = panel.replace_text(guest, "guest")
    assert "cannot be resumed" not in text
    assert text.endswith("A new game here takes this device out of the online match, but not "
                         "your seat: it is kept and its clock keeps running, as when you go "
                         "Home, and the room's link brings you back to it. To leave the match, "
                         "use Quit game.")
    gilgiti = Table.new("gilgiti", ("red", "green"), 5, now=0.0, players={"red": "remote"})
    assert panel.replace_text(gilgiti, "guest").endswith("use Leave game.")
    host = Table.new("courtyard", ("red", "green"), 5, now=0.0, players={"green": "remote"})
    assert panel.replace_text(host, "host").endswith(
        "This device runs the online match: while a new game is played here, the match waits, "
        "paused for everybody, until you open the room's link here again.")
    assert panel.resume_text(guest, "guest")[0].endswith(
        "Its clock keeps running. Starting a new game here keeps your seat and its clock "
        "running; the link brings you back.")
    assert panel.resume_text(host, "host")[0].endswith(
        "Starting a new game here pauses it for everybody until you open its link again.")
    # a spectator, or a guest whose seat has left: the match goes on without this page, and
    # the link lets it watch again (it read "cannot be resumed" too)
    watcher = Table.new("courtyard", ("red", "green"), 5, now=0.0,
                        players={"red": "remote", "green": "remote"})
    text = panel.replace_text(watcher, "watcher")
    assert "cannot be resumed" not in text and text.endswith(
        "This device only watches the online match: it goes on without you, and the room's "
        "link lets you watch it again.")
    note, button = panel.resume_text(watcher, "watcher")
    assert note.endswith(
        "Starting a new game here leaves it to the others; the link lets you watch again.")
    assert button == "Watch the game"  # a spectator has nothing to resume
    # on this device alone: replaced for good, as before
    local = Table.new("courtyard", ("red", "green"), 5, now=0.0)
    assert panel.replace_text(local).endswith("A new game replaces it, and it cannot be resumed.")
    assert panel.resume_text(local)[0].endswith("Starting a new game replaces it.")


def test_the_rules_screen_says_a_game_is_in_progress_and_whether_its_clock_runs() -> None:
    # reading the rules does not stop the clock: the rules screen says so, with a way back
    from app import panel

    assert panel.rules_resume_text(None) is None
    people = Table.new("courtyard", ("red", "yellow"), 5, now=0.0, names={"red": "Ada"})
    note = panel.rules_resume_text(people)
    assert note is not None and note.startswith("A Courtyard game is in progress (2 players;")
    assert note.endswith("Its clock keeps running.")
    untimed = Table.new("courtyard", ("red", "yellow"), 5, now=0.0, timer=False)
    assert "clock" not in (panel.rules_resume_text(untimed) or "clock")
    people.submit("red", Action("quit", seat="red"), T0)
    assert people.over and panel.rules_resume_text(people) is None  # nothing to go back to


def test_a_leave_that_ends_the_match_is_said_on_home() -> None:
    # Gilgiti: "Leave this game?" ends the match for everyone, with no winner; Home says who
    # left (the same words whichever device: `left_by` is rule-neutral)
    from app import panel

    gilgiti = _table("gilgiti", names={"red": "Ada"})
    seat = gilgiti.seat_to_act
    gilgiti.submit(seat, Action("quit", seat=seat), T0)
    assert gilgiti.over and gilgiti.left_by() == seat
    note, _ = panel.resume_text(gilgiti)
    assert note == f"The last Gilgiti game ended when {gilgiti.name(seat)} left: nobody won."
    # Courtyard: a quit removes one seat; with two, the other wins
    courtyard = _table()
    courtyard.submit("red", Action("quit", seat="red"), T0)
    assert courtyard.over and courtyard.left_by() is None
    assert panel.resume_text(courtyard)[0].endswith("Yellow won.")
