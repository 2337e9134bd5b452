"""Computer players in Royal: legal in every phase, crowns and feathers through chance_outcomes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ludo import Action, apply, legal_actions, parse_position
from ludo.bots import LEVEL_NAMES, choose_action, players
from ludo.engine import rules_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from test_royal_rules import CARRYING, pos  # noqa: E402

R = rules_for("royal")


def load(**kwargs):
    return parse_position(json.dumps(pos(**kwargs)))


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_every_level_answers_the_two_crowns_choice(level):
    state, _ = apply(load(crowns=1, **CARRYING), Action("roll", value="crown"))
    assert state.phase == "choose"
    action = choose_action(state, level, 3)
    assert action in legal_actions(state) and action.type in ("send_back", "reverse")


def test_easy_takes_a_man_home_when_it_can():
    state = load(phase="move", die="crown",
                 men={"red": ["red-lane-5", "home", 30, "home"],
                      "green": [3, "balk", "balk", "balk"]})
    for seed in range(5):
        assert choose_action(state, "easy", seed) == Action("move", token=0)


def test_hard_searches_crowns_and_feathers_through_chance_outcomes(monkeypatch):
    seen = set()
    real = players.chance_outcomes

    def recording(state):
        outcomes = real(state)
        seen.update(a.value for a, _ in outcomes)
        return outcomes

    monkeypatch.setattr(players, "chance_outcomes", recording)
    # a crown with a choice: the search looks through the extra throw and the reply
    state = load(phase="move", die="crown", men={"red": [5, 20, "balk", "balk"],
                                                 "green": [9, "balk", "balk", "balk"]})
    action = choose_action(state, "hard", 0)
    assert action in legal_actions(state)
    assert seen == {1, 2, 3, 4, "feather", "crown"}


def test_medium_sends_a_rider_back_rather_than_carry_it():
    state, _ = apply(load(crowns=1, **CARRYING), Action("roll", value="crown"))
    assert choose_action(state, "medium", 0) == Action("send_back", token=0)
