"""The outside players of bench/outside_gilgiti.py and bench/outside_royal.py (used by
bench/outside.py to measure ours against them) play only legal moves, and their games end."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bench import outside_gilgiti, outside_royal
from ludo import Action, apply, legal_actions, new_game, rules_for

CAP = 20_000


def play(rules: str, players: dict, lineup: tuple[str, ...], seed: int,
         teams: bool = False) -> Any:
    seats = rules_for(rules).seating(len(lineup))
    state = new_game(rules, seats, seed, {"teams": True} if teams else None)
    rng = random.Random(seed)
    for _ in range(CAP):
        if state.phase == "over":
            return state
        if state.phase == "roll":
            action = Action("roll")
        else:
            action = players[lineup[seats.index(state.turn)]](state, rng)
            assert action in legal_actions(state), (action, state)
        state, _ = apply(state, action)
    raise AssertionError(f"{rules} game {seed} did not end in {CAP} actions")


@pytest.mark.parametrize("teams", [False, True])
def test_gilgiti_outside_players_play_legal_moves_to_the_end(teams: bool) -> None:
    lineup = ("aggressive", "defensive", "fast", "expert")
    for seed in (1, 2):
        state = play("gilgiti", outside_gilgiti.PLAYERS, lineup, seed, teams)
        assert state.winners
        if teams:
            assert len(state.winners) == 2


def test_royal_outside_players_play_legal_moves_to_the_end() -> None:
    lineup = ("aggressive", "defensive", "fast", "expert")
    for seed in (1, 2, 3):
        state = play("royal", outside_royal.PLAYERS, lineup, seed)
        assert state.winner is not None
