"""Property tests: random play, with timeouts and quits sprinkled in, checked after every action.

The checks are written directly against the JSON notation and a naive reference
of the movement rules (enginekit.ref_*), so they fail independently of
ludo.invariants, which is also consulted.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from enginekit import COLOURS, SAFE, examples, js, of, ref_after_move, ref_movable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludo import (
    Action,
    Record,
    active_seats,
    format_position,
    format_record,
    legal_actions,
    next_player,
    parse_position,
    parse_record,
    play,
    replay,
)
from ludo.invariants import violations

MAX_ACTIONS = 20_000  # random games end far sooner (a few hundred to ~1,300 actions)
PROPERTY_SETTINGS = settings(deadline=None, max_examples=examples(30),
                             suppress_health_check=[HealthCheck.too_slow])

seat_lists = st.sampled_from([
    ("red", "yellow"), ("green", "blue"), ("red", "green"),
    ("red", "green", "yellow"), ("green", "yellow", "blue"),
    ("red", "green", "yellow", "blue"),
])


@st.composite
def game_plans(draw: Any) -> dict[str, Any]:
    return {
        "rules": draw(st.sampled_from(["courtyard", "classic"])),
        "seats": draw(seat_lists),
        "seed": draw(st.integers(0, 2**64 - 1)),
        "chooser": draw(st.integers(0, 2**32)),
        "p_timeout": draw(st.sampled_from([0.0, 0.01, 0.04])),
        "p_quit": draw(st.sampled_from([0.0, 0.0, 0.002])),
        "p_given": draw(st.sampled_from([0.0, 0.3])),
    }


def choose_action(state: Any, rnd: random.Random, plan: dict[str, Any]) -> Action:
    """A random action: mostly legal play, sometimes a timeout or a quit."""
    if plan["p_quit"] and rnd.random() < plan["p_quit"]:
        return Action("quit", seat=rnd.choice(active_seats(state)))
    if plan["p_timeout"] and rnd.random() < plan["p_timeout"]:
        if state.phase == "roll" and rnd.random() < plan["p_given"]:
            return Action("timeout", value=rnd.randint(1, 6))
        return Action("timeout")
    if state.phase == "roll":
        if rnd.random() < plan["p_given"]:
            return Action("roll", value=rnd.randint(1, 6))
        return Action("roll")
    return rnd.choice(legal_actions(state))


def check_step(before: Any, action: Action, after: Any, events: list[dict[str, Any]]) -> None:
    """Every invariant of one applied (resolved) action, asserted directly."""
    b, a = js(before), js(after)
    rules = a["rules"]
    # 4 tokens per active seat, none for a seat that has left
    for colour in a["seats"]:
        want = 0 if colour in a["out"] else 4
        assert len(a["tokens"][colour]) == want, (colour, a["tokens"])
    assert set(a["tokens"]) == set(a["seats"])
    assert set(active_seats(after)) == set(a["seats"]) - set(a["out"])
    assert set(b["out"]) <= set(a["out"])  # nobody rejoins
    # no token in another colour's lane; lanes only after the unlock
    for colour, squares in a["tokens"].items():
        for sq in squares:
            if isinstance(sq, str) and "-lane-" in sq:
                assert sq.startswith(colour + "-lane-"), (colour, sq)
            if sq == "home" or (isinstance(sq, str) and "-lane-" in sq):
                assert colour in a["unlocked"], (colour, sq, a["unlocked"])
    # the unlock: permanent; Classic always open; Courtyard only by the seat's capture
    if rules == "classic":
        assert a["unlocked"] == a["seats"]
    else:
        assert set(b["unlocked"]) <= set(a["unlocked"])
        new = set(a["unlocked"]) - set(b["unlocked"])
        capturers = {e["seat"] for e in of(events, "captured")}
        assert new <= capturers
        assert new == {e["seat"] for e in of(events, "unlocked")}
        assert all(e["seat"] in a["unlocked"] for e in of(events, "captured"))
    # no capture on a safe square (from the events, and from the tokens themselves)
    for e in of(events, "captured"):
        assert e["square"] not in SAFE and isinstance(e["square"], int)
    # at most one extra roll per roll, and exactly one when the same seat rolls again
    extra = of(events, "extra_roll")
    assert len(extra) <= 1
    assert len(of(events, "rolled")) <= 1
    if action.type != "quit" and after.phase == "roll":
        assert (after.turn == before.turn) == (len(extra) == 1), events
    if action.type != "quit" and after.phase != "over" and after.turn != before.turn:
        assert after.turn == next_player(before)
    # the move phase always has a legal move; it matches the reference rules
    if after.phase == "move":
        movable = {m.token for m in legal_actions(after)}
        assert movable and movable == ref_movable(a, a["die"])
        assert (a["die"] == 6) == (a["sixes"] > 0)
    if action.type == "roll" and after.phase != "move" and after.turn == before.turn:
        assert of(events, "rolled")[0]["value"] == 6  # only a six keeps the die
    if of(events, "rolled"):  # a roll, or a timeout that rolled
        value = of(events, "rolled")[0]["value"]
        assert 1 <= value <= 6
        if action.value is not None:
            assert value == action.value
        third_six = value == 6 and b["sixes"] == 2
        assert bool(of(events, "three_sixes")) == third_six
        if not third_six:
            assert after.phase == "over" or a["sixes"] == (b["sixes"] + 1 if value == 6 else 0)
        if action.type == "roll" and not third_six:
            assert (after.phase == "move") == bool(ref_movable(b, value))
    # a move does exactly what the reference says (full roll, captures, lanes, home)
    if action.type == "move":
        expected, captured, home = ref_after_move(b, action.token)
        assert a["tokens"] == expected
        assert bool(of(events, "captured")) == captured
        assert bool(of(events, "reached_home")) == home
        if after.phase != "over":
            assert (after.turn == before.turn) == (b["die"] == 6 or captured or home)
    # three sixes discard the roll: no token moved
    if of(events, "three_sixes"):
        assert a["tokens"] == b["tokens"] and after.turn != before.turn
    # the game is over exactly when it has a winner, who earned it
    assert (after.phase == "over") == (after.winner is not None)
    if after.phase == "over":
        won = of(events, "won")
        assert [e["seat"] for e in won] == [after.winner]
        alive = active_seats(after)
        assert all(sq == "home" for sq in a["tokens"][after.winner]) or alive == (after.winner,)
    else:
        assert after.turn in active_seats(after)
    # the notation round trip, and the engine's own invariant checker
    assert parse_position(format_position(after)) == after
    assert violations(before, after, events) == []


def play_random_game(plan: dict[str, Any],
                     seen: Counter[str] | None = None) -> tuple[Record, list[Any]]:
    rnd = random.Random(plan["chooser"])
    record = Record(plan["rules"], plan["seats"], plan["seed"])
    state = record.start()
    states = [state]
    for _ in range(MAX_ACTIONS):
        if state.phase == "over":
            break
        action = choose_action(state, rnd, plan)
        text_before = format_position(state)
        record, after, events = play(record, state, action)
        assert format_position(state) == text_before  # immutable
        check_step(state, record.actions[-1], after, events)
        if seen is not None:
            seen.update(e["type"] for e in events)
            seen.update(f"extra_roll:{e['reason']}" for e in of(events, "extra_roll"))
        state = after
        states.append(state)
    assert state.phase == "over", f"game did not end within {MAX_ACTIONS} actions"
    return record, states


@PROPERTY_SETTINGS
@given(plan=game_plans())
def test_random_play_keeps_every_invariant_and_replays_exactly(plan):
    record, states = play_random_game(plan)
    # resolved records hold every die, so they read on their own
    assert all(a.value is not None for a in record.actions if a.type == "roll")
    # record round trip, then replay: every intermediate state is reproduced exactly
    assert parse_record(format_record(record)) == record
    assert replay(parse_record(format_record(record))) == states


@settings(deadline=None, max_examples=examples(25))
@given(plan=game_plans(), cut=st.floats(0, 1))
def test_a_game_resumed_from_its_notation_continues_identically(plan, cut):
    """A position saved mid-game and loaded again rolls exactly the same dice."""
    plan = dict(plan, p_timeout=0.0, p_quit=0.0, p_given=0.0)
    record, states = play_random_game(plan)
    i = int(cut * (len(states) - 1))
    resumed = parse_position(format_position(states[i]))
    from ludo import apply
    for action, expected in zip(record.actions[i:], states[i + 1:], strict=True):
        unresolved = action._replace(value=None) if action.type == "roll" else action
        resumed, _ = apply(resumed, unresolved)
        assert resumed == expected


def test_many_seeded_games_end_for_every_table_size():
    # deterministic companion of the hypothesis test: all rule sets and seat counts
    seen: Counter[str] = Counter()
    for rules in ("courtyard", "classic"):
        for seats in (("red", "yellow"), ("red", "green", "yellow"), COLOURS):
            for seed in range(3):
                plan = {"rules": rules, "seats": seats, "seed": seed, "chooser": seed,
                        "p_timeout": 0.02, "p_quit": 0.001, "p_given": 0.2}
                play_random_game(plan, seen)
    # the games went through every kind of event the checks are about
    for kind in ("rolled", "entered", "moved", "captured", "unlocked", "reached_home",
                 "extra_roll", "three_sixes", "no_move", "turn", "timeout", "eliminated",
                 "quit", "won", "extra_roll:six", "extra_roll:capture", "extra_roll:home",
                 "extra_roll:six+capture", "extra_roll:six+home"):
        assert seen[kind] > 0, (kind, seen)
