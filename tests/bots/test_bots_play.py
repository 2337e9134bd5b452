"""Computer players: legal, deterministic, and the same when run in slices."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludo import RULESETS, Action, apply, default_seats, legal_actions, new_game
from ludo.bots import LEVEL_NAMES, choose_action, choose_action_json, players, step, think
from ludo.errors import IllegalAction, NotationError
from ludo.notation import format_position, parse_position

ROOT = Path(__file__).resolve().parents[2]


def reach(rules: str, players_count: int, game_seed: int, plies: int, chooser_seed: int,
          move_phase: bool):
    """A position reached by ``plies`` actions of random legal play."""
    chooser = random.Random(chooser_seed)
    state = new_game(rules, default_seats(players_count), game_seed)
    for _ in range(plies):
        if state.phase == "over":
            break
        options = legal_actions(state)
        state, _ = apply(state, options[chooser.randrange(len(options))])
    while move_phase and state.phase == "roll":
        state, _ = apply(state, Action("roll"))
    return state


positions = st.builds(
    reach,
    rules=st.sampled_from(sorted(RULESETS)),
    players_count=st.sampled_from((2, 3, 4)),
    game_seed=st.integers(0, 2**32),
    plies=st.integers(0, 600),
    chooser_seed=st.integers(0, 2**32),
    move_phase=st.booleans(),
)


def check_legal(state, level: str, seed: int) -> None:
    if state.phase == "over":
        with pytest.raises(IllegalAction):
            choose_action(state, level, seed)
        return
    action = choose_action(state, level, seed)
    assert action in legal_actions(state)
    apply(state, action)  # and the engine agrees


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=positions, level=st.sampled_from(("easy", "medium")), seed=st.integers(0, 2**64))
def test_easy_and_medium_only_return_legal_actions(state, level, seed) -> None:
    check_legal(state, level, seed)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=positions, seed=st.integers(0, 2**64))
def test_hard_only_returns_legal_actions(state, seed) -> None:
    check_legal(state, "hard", seed)


@pytest.mark.parametrize("rules", sorted(RULESETS))
@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_whole_games_between_bots_stay_legal(rules: str, level: str) -> None:
    state = new_game(rules, default_seats(4), 11)
    seats = {c: lvl for c, lvl in zip(default_seats(4), (level, "easy", "medium", level),
                                      strict=True)}
    for _ in range(400):
        if state.phase == "over":
            break
        action = choose_action(state, seats[state.turn], 3)
        assert action in legal_actions(state)
        state, _ = apply(state, action)


def test_roll_phase_rolls_and_a_single_move_is_returned_at_once() -> None:
    state = new_game("classic", default_seats(4), 5)
    assert state.phase == "roll"
    for level in LEVEL_NAMES:
        assert choose_action(state, level, 1) == Action("roll")
    # classic, everyone in the yard, a six: all four tokens are one distinct move
    rolled, _ = apply(state, Action("roll", value=6))
    for level in LEVEL_NAMES:
        gen = think(rolled, level, 1)
        with pytest.raises(StopIteration) as done:
            next(gen)
        assert done.value.value in legal_actions(rolled)


def test_unknown_level_is_refused() -> None:
    state = new_game("classic", default_seats(2), 5)
    with pytest.raises(ValueError, match="unknown bot level"):
        choose_action(state, "grandmaster", 0)


def busy_position(rules: str):
    """A move decision with several distinct choices, tokens spread over the board."""
    for seed in range(200):
        state = reach(rules, 4, seed, 300, seed, True)
        if state.phase == "move" and len({p for p in state.tokens[
                ("red", "green", "yellow", "blue").index(state.turn)]}) >= 3:
            from ludo import distinct_moves

            if len(distinct_moves(state)) >= 3:
                return state
    raise AssertionError("no busy position found")


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_same_seed_same_action_and_json_helper_agrees(rules: str) -> None:
    state = busy_position(rules)
    for level in LEVEL_NAMES:
        first = choose_action(state, level, 42)
        assert all(choose_action(state, level, 42) == first for _ in range(3))
        # the notation helper takes text or the parsed object
        text = format_position(state)
        assert choose_action_json(text, level, 42) == first.to_json()
        assert choose_action_json(json.loads(text), level, 42) == first.to_json()
        assert choose_action(parse_position(text), level, 42) == first


def test_the_json_helper_reads_text_as_the_notation_does() -> None:
    """Position text given to choose_action_json is untrusted: it is read by the notation's
    one reader, which refuses a key given twice and nesting too deep to be a position with a
    NotationError, as parse_position does (json.loads took the last "rng" and let a
    RecursionError out)."""
    text = format_position(busy_position("courtyard"))
    twice = text.replace('{', '{"rng": 1, ', 1)
    with pytest.raises(NotationError, match="twice"):
        parse_position(twice)
    with pytest.raises(NotationError, match="twice"):
        choose_action_json(twice, "easy")
    with pytest.raises(NotationError):
        choose_action_json("[" * 100_000 + "]" * 100_000, "easy")
    with pytest.raises(NotationError, match="not valid JSON"):
        choose_action_json("{", "easy")


def test_easy_varies_with_the_seed() -> None:
    state = busy_position("classic")
    picks = {choose_action(state, "easy", s) for s in range(40)}
    assert len(picks) >= 2


def test_choice_does_not_depend_on_the_process_hash_salt() -> None:
    state = busy_position("courtyard")
    script = ("import sys; from ludo.bots import choose_action_json; text = sys.stdin.read(); "
              "print([choose_action_json(text, lvl, s) for lvl in ('easy', 'medium', 'hard') "
              "for s in range(5)])")
    outputs = set()
    for salt in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=salt, PYTHONPATH=str(ROOT / "py"))
        done = subprocess.run([sys.executable, "-c", script], input=format_position(state),
                              capture_output=True, text=True, env=env, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_incremental_form_yields_none_and_returns_the_same_action(rules, monkeypatch) -> None:
    state = busy_position(rules)
    expected = choose_action(state, "hard", 7)
    monkeypatch.setattr(players, "SLICE_SECONDS", 0.0)  # yield at every opportunity
    gen = think(state, "hard", 7)
    yielded = 0
    while True:
        try:
            value = next(gen)
        except StopIteration as done:
            action = done.value
            break
        assert value is None
        yielded += 1
    assert yielded >= 2
    assert action == expected
    # the step() helper reaches the same action with tiny budgets
    gen = think(state, "hard", 7)
    result = None
    calls = 0
    while result is None:
        result = step(gen, 0.0)
        calls += 1
    assert result == expected and calls >= 2


def test_the_benchmark_positions_are_current_notation() -> None:
    # bench/bots.py stores positions as text; a notation version change must update them
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_bots", ROOT / "bench" / "bots.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    states = [parse_position(text) for text in bench.POSITIONS]
    assert len(states) == 6 and all(s.phase == "move" for s in states)
