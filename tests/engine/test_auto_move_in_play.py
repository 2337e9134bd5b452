"""Seed 000, rule 2, in random play of every rule set: "When exactly one token can legally use
the roll, it moves automatically. If several tokens can move, you choose."

The rule-set tests pin ``auto_action`` on hand-made positions; nothing checked it in play
(seed review 10). Here, at every decision of seeded random games, the legal decisions are
played out and their resulting positions compared, tokens of one colour as a multiset
(entering token 0 or token 3 from the yard is the same move, as docs/rules/courtyard.md
reads "exactly one token"): ``auto_action`` must be set exactly when they all lead to one
position, and lead there.

One case is allowed apart, in Gilgiti only: two plays that lead to the same position only
because each of them leaves the other value without a move, so the whole turn rolls back
either way. The player still picks which value to spend first, as "If you get stuck with a
value that has no legal move" is read (docs/rules/gilgiti.md, All or nothing): the turn is not
stuck until a value has no move.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ludo import (
    Action,
    apply,
    auto_action,
    is_chance,
    legal_actions,
    new_game,
    position_to_json,
    resolve,
)

SEATINGS = (("red", "yellow"), ("red", "green", "yellow"), ("red", "green", "yellow", "blue"))


def outcome(state: Any, action: Action) -> str:
    """The position an action leads to, with each colour's men or tokens as a multiset."""
    after, _ = apply(state, action)
    data = position_to_json(after)
    data.pop("rng")  # a Royal timeout or roll is not played here; the dice state is the same
    key = "men" if "men" in data else "tokens"
    places = data[key]
    if "doubles" in data:  # by place, not by man number: two men of a colour never share one
        data["doubles"] = sorted((d["carrier"][0], repr(places[d["carrier"][0]][d["carrier"][1]]),
                                  d["rider"][0]) for d in data["doubles"])
    for field in (key, "turn_start"):
        if isinstance(data.get(field), dict):
            data[field] = {c: sorted(map(repr, v)) for c, v in data[field].items()}
    return repr(data)


def rolls_back(state: Any, action: Action) -> bool:
    return any(e["type"] == "rolled_back" for e in apply(state, action)[1])


@pytest.mark.parametrize("rules", ["courtyard", "classic", "royal", "gilgiti"])
def test_a_move_plays_itself_exactly_when_every_legal_choice_comes_to_the_same(rules: str) -> None:
    automatic = chosen = 0
    for seed in range(6):
        rnd = random.Random(seed)
        seats = SEATINGS[seed % 3]
        options = {"teams": True} if rules == "gilgiti" and seed == 5 else None
        state = new_game(rules, seats, seed, options)
        for _ in range(20_000):
            if state.phase == "over":
                break
            if is_chance(state):
                assert auto_action(state) is None  # the roll is always the player's
                action = Action("roll")
            else:
                legal = legal_actions(state)
                ends = {outcome(state, a) for a in legal}
                auto = auto_action(state)
                if auto is not None:
                    assert ends == {outcome(state, auto)}, (rules, seed, legal, auto)
                    automatic += 1
                else:
                    assert len(ends) > 1 or (
                        rules == "gilgiti" and all(rolls_back(state, a) for a in legal)), (
                        rules, seed, legal)
                    chosen += 1
                action = rnd.choice(legal)
            state, _ = apply(state, resolve(state, action))
        assert state.phase == "over"
    assert automatic > 100 and chosen > 100, (automatic, chosen)
