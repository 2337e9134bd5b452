"""``advance`` is ``apply`` without events: the same next position, the same refusals."""

from __future__ import annotations

import random

import pytest

from ludo import Action, IllegalAction, advance, apply, legal_actions, new_game, resolve

TABLE_ACTIONS = (Action("timeout"), Action("quit", seat="green"), Action("roll", value=6),
                 Action("move", token=2), Action("move", token=9), Action("roll", value=7))


@pytest.mark.parametrize("rules", ["courtyard", "classic"])
def test_advance_gives_the_position_apply_gives(rules: str) -> None:
    chooser = random.Random(5)
    for game in range(12):
        state = new_game(rules, ("red", "green", "yellow", "blue")[: 2 + game % 3], game)
        steps = 0
        while state.phase != "over" and steps < 3000:
            if chooser.random() < 0.02:
                action = chooser.choice(TABLE_ACTIONS)
            elif state.phase == "roll":
                action = Action("roll")
            else:
                action = chooser.choice(legal_actions(state))
            action = resolve(state, action)
            try:
                expected, _ = apply(state, action)
            except IllegalAction as exc:
                with pytest.raises(IllegalAction) as raised:
                    advance(state, action)
                assert str(raised.value) == str(exc)
                continue
            assert advance(state, action) == expected
            state = expected
            steps += 1
        assert state.phase == "over"
