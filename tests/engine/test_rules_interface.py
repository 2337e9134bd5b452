"""Every registered rule set keeps the interface's promises (rules/base.py).

Random games of each rule set, checked at every position: the scene places every piece
once on a cell of its own board; the choices are exactly the legal decisions, each naming
pieces and targets that exist; chance outcomes are resolved rolls whose probabilities sum
to 1; actions survive the rule set's own JSON reader; every event has a sentence; a game
that is over has winners (unless leaving ended it for everyone).
"""

from __future__ import annotations

import math
import random

import pytest

from ludo import RULESETS, Action, apply, rules_for
from ludo.rules.base import Board, Choice, Scene

GAMES = 3
MAX_ACTIONS = 6000


def _check_scene(rules, state, scene: Scene) -> None:
    assert isinstance(scene.board, Board)
    cells = {c.id for c in scene.board.cells}
    assert len(cells) == len(scene.board.cells), "cell ids are unique"
    seen = set()
    for stack in scene.stacks:
        assert stack.place in cells, stack.place
        assert stack.pieces and stack.kind in ("group", "block", "double")
        for piece in stack.pieces:
            assert piece.id not in seen, f"{piece.id} drawn twice"
            seen.add(piece.id)
            assert piece.colour in state.seats and piece.label
    assert {s.colour for s in scene.seats} == set(state.seats)
    assert scene.phase == state.phase
    if state.phase == "over":
        assert scene.turn is None
    else:
        assert scene.turn == state.turn
    assert scene.winners == rules.winners(state)
    assert all(isinstance(line, str) and line for line in scene.summary)


def _check_choices(rules, state, scene: Scene, choices: list[Choice]) -> None:
    legal = rules.legal_actions(state)
    assert sorted(map(repr, (c.action for c in choices))) == sorted(map(repr, legal))
    pieces = {p.id for s in scene.stacks for p in s.pieces}
    cells = {c.id for c in scene.board.cells}
    for choice in choices:
        assert choice.label and choice.kind
        assert set(choice.pieces) <= pieces, choice
        assert choice.target is None or choice.target in cells, choice
        assert rules.parse_action(choice.action.to_json()) == choice.action


def _check_chance(rules, state) -> None:
    outcomes = rules.chance_outcomes(state)
    if state.phase != "roll":
        assert outcomes == []
        return
    assert math.isclose(sum(p for _, p in outcomes), 1.0)
    for action, probability in outcomes:
        assert probability > 0 and action.value is not None
        rules.advance(state, action)  # every outcome can be played


def _places(scene: Scene) -> dict[str, str]:
    return {p.id: s.place for s in scene.stacks for p in s.pieces}


def _check_paths(before: Scene, after: Scene, events: list[dict]) -> None:
    """A moving event's path starts where its pieces stood and ends where they stand now,
    one square at a time (base.Event); yard spots and the home centre are its only jumps."""
    was, now = _places(before), _places(after)
    cells = {c.id: c for c in after.board.cells}
    last = {p: e for e in events if "path" in e for p in e["pieces"]}
    for event in events:
        if "path" not in event:
            continue
        path, pieces = event["path"], event["pieces"]
        assert len(path) >= 2 and pieces and all(p in cells for p in path), event
        for piece in pieces:
            assert was[piece] == path[0], event
            if last[piece] is event and piece in now:
                assert now[piece] == path[-1], event
        squares = [cells[p] for p in path if cells[p].shape == "square"]
        for a, b in zip(squares, squares[1:], strict=False):
            assert max(abs(a.x - b.x), abs(a.y - b.y)) <= 1.01, (a.id, b.id, event)


@pytest.mark.parametrize("name", list(RULESETS))
def test_rule_sets_keep_the_interface(name: str) -> None:
    rules = RULESETS[name]
    chooser = random.Random(7)
    for game in range(GAMES):
        players = rules.max_players - game % (rules.max_players - rules.min_players + 1)
        state = rules.new_game(rules.seating(players), 1000 + game)
        for _ in range(MAX_ACTIONS):
            scene = rules.scene(state)
            _check_scene(rules, state, scene)
            _check_choices(rules, state, scene, rules.choices(state))
            _check_chance(rules, state)
            if state.phase == "over":
                break
            legal = rules.legal_actions(state)
            action = rules.resolve(state, chooser.choice(legal))
            if chooser.random() < 0.002:
                action = rules.resolve(state, Action("timeout"))
            before = scene
            state, events = apply(state, action)
            for event in events:
                text = rules.describe(event, {"red": "Ada"})
                assert text is None or (isinstance(text, str) and text)
            _check_paths(before, rules.scene(state), events)
        else:
            pytest.fail(f"{name} game {game} did not end")
        assert rules.winners(state) or rules.leave.ends_match


@pytest.mark.parametrize("name", list(RULESETS))
def test_rule_sets_describe_themselves(name: str) -> None:
    rules = rules_for(name)
    assert rules.title and rules.summary and rules.help.lead
    assert rules.leave.title and rules.leave.text and rules.leave.button
    assert rules.wording.verb and rules.wording.past and rules.wording.noun
    assert rules.min_players <= rules.max_players
    for n in range(rules.min_players, rules.max_players + 1):
        assert len(rules.seating(n)) == n
    empty = rules.board(None)
    assert empty.cells and empty.size > 0


@pytest.mark.parametrize("name", list(RULESETS))
def test_a_seat_s_timeouts_are_shown_once_it_has_one(name: str) -> None:
    # with the clock off (or before any timeout) a count that cannot change says nothing
    rules = rules_for(name)
    state = rules.new_game(rules.seating(2), 7)
    assert not any("timeout" in fact for seat in rules.scene(state).seats for fact in seat.facts)
    seat = state.turn
    after, _ = apply(state, Action("timeout"))
    facts = next(s.facts for s in rules.scene(after).seats if s.colour == seat)
    assert any(fact.startswith("timeouts 1") for fact in facts), facts


@pytest.mark.parametrize("name", list(RULESETS))
def test_a_timeout_s_roll_is_told_as_the_game_s_not_the_absent_seat_s(name: str) -> None:
    # The log and the notice said "Red rolled a 4" for the die the clock rolled while Red was
    # away, as if Red had rolled it.
    rules = rules_for(name)
    state = rules.new_game(rules.seating(2), 7)
    seat = state.turn
    who = seat.capitalize()
    _, events = apply(state, Action("timeout", value=rules.chance_outcomes(state)[0][0].value))
    rolled = [e for e in events if e["type"] == "rolled"]
    assert rolled and rolled[0].get("clock") is True, events
    told = rules.describe(rolled[0], {})
    assert told is not None and told.startswith("The game ") and told.endswith(f" for {who}."), \
        told
    # the seat's own roll is still its own
    _, events = apply(state, Action("roll"))
    own = next(e for e in events if e["type"] == "rolled")
    assert "clock" not in own and rules.describe(own, {}).startswith(f"{who} "), own
