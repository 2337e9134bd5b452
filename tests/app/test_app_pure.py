"""The browser app's pure modules (view, narrate, savegame) in CPython."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app import narrate, view
from app.savegame import SaveError, Session, decode, encode
from ludo import COLOURS, Action, Record, legal_actions, new_game, play
from ludo.geometry import HOME, LANE_FIRST, TRACK_CELLS, YARD

ROOT = Path(__file__).resolve().parents[2]


def test_every_square_is_drawn_once_and_inside_the_board() -> None:
    svg = view.board_svg(COLOURS, frozenset(), locks=True)
    assert svg.count("data-square=") == 52
    assert svg.count('class="star"') == 4
    assert svg.count('class="lock"') == 4  # four grey lanes with a closed lock
    for colour in COLOURS:
        assert svg.count(f"lane-{colour}") == 5
        assert f"start-{colour}" in svg and f"home-{colour}" in svg


def test_unlocked_lane_takes_its_colour_and_loses_its_lock() -> None:
    svg = view.board_svg(COLOURS, frozenset({"red"}), locks=True)
    assert svg.count('class="lock"') == 3
    assert 'class="sq lane lane-red"' in svg and 'lane-red locked' not in svg
    assert 'lane-green locked' in svg
    assert 'class="lock"' not in view.board_svg(COLOURS, frozenset(), locks=False)


def test_tokens_sharing_a_square_stay_separate_and_clickable() -> None:
    square = 14
    tokens = {"red": (square, square, YARD, HOME), "green": (square, square, LANE_FIRST, 3)}
    layout = view.token_layout(tokens)
    shared = [layout[(c, t)] for c, t in (("red", 0), ("red", 1), ("green", 0), ("green", 1))]
    points = {(round(x, 1), round(y, 1)) for x, y, _ in shared}
    assert len(points) == 4  # four distinct spots on one square
    cx, cy = (TRACK_CELLS[square][0] + 0.5) * view.CELL, (TRACK_CELLS[square][1] + 0.5) * view.CELL
    for x, y, r in shared:
        assert abs(x - cx) + r <= view.CELL and abs(y - cy) + r <= view.CELL
    for x, y, r in layout.values():
        assert r <= x <= view.SIZE - r and r <= y <= view.SIZE - r


def test_colour_is_never_the_only_cue_and_movable_tokens_are_buttons() -> None:
    tokens = {c: (YARD, YARD, YARD, YARD) for c in COLOURS}
    svg = view.tokens_svg(tokens, movable={("red", 0)}, targets={("red", 0): 0})
    for colour, letter in view.LETTER.items():
        assert svg.count(f">{letter}</text>") == 4, colour
    assert svg.count('role="button" tabindex="0"') == 1
    assert 'aria-label="Red token 1, in the yard; moves to on square 0' in svg


def test_board_contrast_meets_wcag_aa_for_token_letters() -> None:
    def luminance(hex_colour: str) -> float:
        rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    for colour in COLOURS:
        a, b = sorted((luminance(view.FILL[colour]), luminance(view.INK[colour])), reverse=True)
        assert (a + 0.05) / (b + 0.05) >= 4.5, colour


def test_events_are_told_in_words() -> None:
    state = new_game("courtyard", ("red", "yellow"), 3)
    record = Record("courtyard", state.seats, 3)
    lines = []
    for _ in range(60):
        action = Action("roll") if state.phase == "roll" else legal_actions(state)[0]
        record, state, events = play(record, state, action)
        lines += narrate.describe_all(events, {"red": "Ada"})
    assert any(line.startswith("Ada (red) rolled a") for line in lines)
    assert any("Yellow" in line for line in lines)
    assert narrate.describe({"type": "captured", "seat": "red", "square": 5,
                             "victims": [["green", 1], ["blue", 0]]}) == \
        "Red captured Green token 2, Blue token 1: back to the yard."


def test_save_round_trip_and_clear_errors() -> None:
    state = new_game("classic", ("red", "green"), 11)
    record = Record("classic", state.seats, 11)
    for _ in range(5):
        action = Action("roll") if state.phase == "roll" else legal_actions(state)[0]
        record, state, _ = play(record, state, action)
    session = Session(record=record, names={"red": "Ada"}, players={"green": "hard"},
                      timer=False, deadline=123.0, screen="home")
    restored, states, _ = decode(encode(session))
    assert restored == session and states[-1] == state
    with pytest.raises(SaveError, match="not valid JSON"):
        decode("{oops")
    with pytest.raises(SaveError, match="incompatible version"):
        decode(json.dumps({"format": "courtyard-ludo/save", "version": 1}))
    broken = json.loads(encode(session))
    broken["record"]["actions"].append({"type": "move", "token": 3})
    broken["record"]["actions"].append({"type": "move", "token": 3})
    with pytest.raises(SaveError, match="do not make a valid game"):
        decode(json.dumps(broken))
    broken = json.loads(encode(session))
    broken["players"]["green"] = "grandmaster"
    with pytest.raises(SaveError, match="player types"):
        decode(json.dumps(broken))


def test_index_html_board_skeleton_is_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "render_skeleton.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_only_controller_pwa_and_storage_import_the_browser() -> None:
    import ast

    for path in (ROOT / "py" / "app").glob("*.py"):
        if path.stem in ("controller", "pwa", "storage"):
            continue
        tree = ast.parse(path.read_text())
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                 for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, ast.ImportFrom) and n.level == 0}
        assert not names & {"js", "pyodide", "pyscript"}, path.name
