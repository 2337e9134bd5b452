"""Moves a watching player would call blunders, which the computer players must not make.

Found by playing many games between the levels and checking every decision against the
alternatives one move ahead (the helper report of 2026-12-03 has the predicates and counts).
"""

from __future__ import annotations

import pytest

from ludo import Action, apply, new_game
from ludo.bots import choose_action
from ludo.rules.courtyard_bot import evaluate

SEATS = ("red", "green", "yellow", "blue")


def courtyard(tokens, turn: str, die: int, unlocked: set[str]):
    """A Courtyard position in the move phase."""
    return new_game("courtyard", SEATS, 1)._replace(
        tokens=tuple(tuple(t) for t in tokens), turn=turn, phase="move", die=die, sixes=0,
        unlocked=frozenset(unlocked))


@pytest.mark.parametrize("steps", [0, 1, 3, 5, 8, 13, 20, 25])
def test_a_locked_home_lane_is_never_worth_more_than_an_open_one(steps):
    # green's four tokens out near its start (13), locked or not; the rest identical
    tokens = [(45, -1, -1, -1), (13 + steps, 13, 14, 15), (-1,) * 4, (-1,) * 4]
    locked = courtyard(tokens, "red", 1, {"red"})
    unlocked = courtyard(tokens, "red", 1, {"red", "green"})
    assert evaluate(locked, "green") < evaluate(unlocked, "green")


def test_hard_takes_a_capture_that_unlocks_its_home_lane():
    # Green throws a 1: its token on its start square (13) can capture red's token on 14,
    # which opens green's home lane and earns another roll; Hard used to enter a token
    # instead, because its evaluation valued the locked tokens near the start above open ones.
    state = courtyard([(13, 14, 2, -1), (26, -1, 13, 13), (44, 34, 31, 26), (-1,) * 4],
                      "green", 1, {"red", "yellow"})
    capture = Action("move", token=2)
    _, events = apply(state, capture)
    assert any(e["type"] == "unlocked" for e in events)
    assert all(choose_action(state, "hard", seed) == capture for seed in range(4))


def test_medium_brings_a_token_home_with_the_exact_roll_rather_than_entering():
    # Green throws a 1: its token on the last lane square goes home only on a 1 (and earns
    # another roll), while a yard token enters on a 1 or a 6; Medium used to enter.
    state = courtyard([(-1, 5, 39, 0), (56, -1, -1, 28), (-1, 30, -1, -1), (8, 57, 45, 39)],
                      "green", 1, set(SEATS))
    home = Action("move", token=0)
    _, events = apply(state, home)
    assert any(e["type"] == "reached_home" for e in events)
    assert all(choose_action(state, "medium", seed) == home for seed in range(4))


def test_hard_brings_a_token_home_with_the_exact_roll_rather_than_entering():
    # Green throws a 1: its token on the last lane square goes home only on a 1 (and earns
    # another roll), while its yard token enters on a 1 or a 6; Hard used to enter, valuing a
    # token on the last lane square nearly as much as one home.
    state = courtyard([(57, 57, 57, 52), (21, 56, -1, 13), (27, 26, -1, 21), (29, 23, 44, 39)],
                      "green", 1, set(SEATS))
    home = Action("move", token=1)
    _, events = apply(state, home)
    assert any(e["type"] == "reached_home" for e in events)
    assert all(choose_action(state, "hard", seed) == home for seed in range(4))
