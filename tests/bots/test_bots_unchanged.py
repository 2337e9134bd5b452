"""Courtyard's, Classic's and Royal's computer players play move for move as before.

docs/bots.md promises that changes made to the generic players for another rule set
(Gilgiti's ``candidates`` and ``reply_rolls``) leave these rule sets' play unchanged. Each
game below is played to its end by Hard, Medium, Easy and Hard, and every action it took
is hashed; the digests were recorded from the players before those changes. A deliberate
change of these rule sets' play must re-record them (and say so in docs/bots.md). Royal's was
re-recorded on 2026-12-02 for a change of its rules, not of its players: a rider is never
forced off (the owner may ``stay``), so the throws whose only move was a rider moving off are
now decisions. Courtyard's was re-recorded on 2026-12-03 for a change of Hard's evaluation: a
locked token is never valued above the same token with its home lane open (the flattening of
locked progress towards half a lap used to lift tokens near the start above their open value,
so Hard passed up captures that open the lane; tests/bots/test_bots_blunders.py). Classic's
play is unchanged: the home weights raised for Courtyard the same day (Medium 10 -> 25, Hard
8 -> 16) stay as they were for Classic, whose measured rows meet their targets narrowly.
"""

from __future__ import annotations

import hashlib

import pytest

from ludo import Action, apply, new_game
from ludo.bots import choose_action

SEATS = ("red", "green", "yellow", "blue")
LEVELS = ("hard", "medium", "easy", "hard")

RECORDED = {
    ("courtyard", 0): ("397c72250f7719c8", 552),
    ("classic", 0): ("a021b34373351d76", 464),
    ("royal", 0): ("9344ddb9f0d9d7a8", 651),
}


def game_digest(rules: str, seed: int) -> tuple[str, int]:
    state = new_game(rules, SEATS, seed)
    digest = hashlib.sha256()
    actions = 0
    while state.phase != "over":
        if state.phase == "roll":
            action = Action("roll")
        else:
            i = SEATS.index(state.turn)
            action = choose_action(state, LEVELS[i], seed * 8 + i)
        digest.update(repr(action).encode())
        state, _ = apply(state, action)
        actions += 1
    return digest.hexdigest()[:16], actions


@pytest.mark.parametrize(("rules", "seed"), sorted(RECORDED))
def test_the_play_is_unchanged_move_for_move(rules, seed):
    assert game_digest(rules, seed) == RECORDED[(rules, seed)]
