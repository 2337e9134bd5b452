"""The browser app's pure modules (view, panel, setup, savegame) in CPython."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import escape
from pathlib import Path

import pytest

from app import panel, savegame, setup, view
from app.savegame import SaveError, Session, decode, encode
from app.table import Table
from ludo import (
    COLOURS,
    Action,
    Record,
    board,
    choices,
    distinct_moves,
    legal_actions,
    new_game,
    parse_position,
    play,
    record_from_json,
    record_to_json,
    scene,
)
from ludo.rules.royal import ROYAL

ROOT = Path(__file__).resolve().parents[2]


def _position(**changes) -> object:
    data = json.loads(json.dumps({
        "format": "courtyard-ludo/position", "version": 2, "rules": "courtyard",
        "seats": list(COLOURS), "turn": "red", "phase": "roll", "die": None, "sixes": 0,
        "tokens": {c: ["yard"] * 4 for c in COLOURS}, "unlocked": [],
        "timeouts": {c: 0 for c in COLOURS}, "out": {}, "winner": None,
        "rng": "00000000000000aa"}))
    data.update(changes)
    return parse_position(json.dumps(data))


def test_every_square_is_drawn_once_and_inside_the_board() -> None:
    svg = view.board_svg(scene(new_game("courtyard", COLOURS, 1)).board)
    assert svg.count("data-square=") == 52
    assert svg.count('class="star"') == 4
    assert svg.count('class="lock"') == 4  # four grey lanes with a closed lock
    for colour in COLOURS:
        assert svg.count(f"lane-{colour}") == 5
        assert f"start-{colour}" in svg and f"home-{colour}" in svg


def test_unlocked_lane_takes_its_colour_and_loses_its_lock() -> None:
    svg = view.board_svg(scene(_position(unlocked=["red"])).board)
    assert svg.count('class="lock"') == 3
    assert 'class="sq lane lane-red"' in svg and 'lane-red locked' not in svg
    assert 'lane-green locked' in svg
    assert 'class="lock"' not in view.board_svg(board("classic"))
    assert 'class="lock"' not in view.board_svg(scene(new_game("classic", COLOURS, 1)).board)


def test_tokens_sharing_a_square_stay_separate_and_clickable() -> None:
    square = 8  # a star: opponents share only safe squares
    state = _position(unlocked=["red", "green"],
                      tokens={"red": [square, square, "yard", "home"],
                              "green": [square, square, "green-lane-1", 3],
                              "yellow": ["yard"] * 4, "blue": ["yard"] * 4})
    layout = view.piece_layout(scene(state))
    shared = [layout[p] for p in ("red-0", "red-1", "green-0", "green-1")]
    points = {(round(x, 1), round(y, 1)) for x, y, _ in shared}
    assert len(points) == 4  # four distinct spots on one square
    cell = next(c for c in scene(state).board.cells if c.id == str(square))
    cx, cy = cell.x * view.CELL, cell.y * view.CELL
    for x, y, r in shared:
        assert abs(x - cx) + r <= view.CELL and abs(y - cy) + r <= view.CELL
    for x, y, r in layout.values():
        assert r <= x <= view.SIZE - r and r <= y <= view.SIZE - r


def test_colour_is_never_the_only_cue_and_movable_tokens_are_buttons() -> None:
    state = _position()
    from ludo import apply

    state, _ = apply(state, Action("roll", value=6))
    options = [c for c in choices(state) if c.action == Action("move", token=0)]
    svg = view.pieces_svg(scene(state), options)
    for colour, letter in view.LETTER.items():
        assert svg.count(f">{letter}</text>") == 4, colour
    assert svg.count('role="button" tabindex="0"') == 1
    assert 'aria-label="Red token 1, in the yard; moves to square 1 (Red&#x27;s start)' in svg


def test_board_contrast_meets_wcag_aa_for_token_letters() -> None:
    def luminance(hex_colour: str) -> float:
        rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    for colour in COLOURS:
        a, b = sorted((luminance(view.FILL[colour]), luminance(view.INK[colour])), reverse=True)
        assert (a + 0.05) / (b + 0.05) >= 4.5, colour


def test_events_are_told_in_words() -> None:
    table = Table.new("courtyard", ("red", "yellow"), 3, now=0.0, names={"red": "Ada"})
    lines = []
    for _ in range(60):
        seat = table.seat_to_act
        action = Action("roll") if table.rolling else legal_actions(table.state)[0]
        lines += table.narrate(table.submit(seat, action, 0.0))
    assert any(line.startswith("Ada (red) rolled a") for line in lines)
    assert any("Yellow" in line for line in lines)
    from ludo import describe

    assert describe("courtyard", {"type": "captured", "seat": "red", "square": 5,
                                  "victims": [["green", 1], ["blue", 0]]}, {}) == \
        "Red captured Green and Blue: back to the yard."
    assert describe("courtyard", {"type": "moved", "seat": "red", "token": 1, "from": 3,
                                  "to": 8}, {}) == "Red moved token 2 five squares, onto a star."


def test_panel_names_are_isolated_and_escaped() -> None:
    table = Table.new("courtyard", ("red", "yellow"), 3, now=0.0,
                      names={"red": "\u202e<b>Eve</b>", "yellow": "Bo"})
    html = panel.seats_html(table, table.scene())
    assert "<bdi>" in html and "<b>Eve" not in html and "&lt;b&gt;Eve" in html


def _session() -> tuple[Session, object]:
    state = new_game("classic", ("red", "green"), 11)
    record = Record("classic", state.seats, 11)
    for _ in range(5):
        action = Action("roll") if state.phase == "roll" else legal_actions(state)[0]
        record, state, _ = play(record, state, action)
    return Session(record=record, names={"red": "Ada"}, players={"green": "hard"},
                   timer=False, deadline=123.0, screen="home"), state


def test_save_round_trip_and_clear_errors() -> None:
    session, state = _session()
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


@pytest.mark.parametrize("rules", ["classic", "courtyard", "gilgiti", "royal"])
def test_a_save_is_exactly_the_json_of_its_fields(rules: str) -> None:
    # encode() puts the text together from pieces (each action's JSON made once, see its
    # docstring): it must be the very text json.dumps writes for the whole save, for every
    # rule set's actions, awkward names, options and an online record's dice
    import random

    chooser = random.Random(rules)
    seats = ("red", "green", "yellow", "blue")
    state = new_game(rules, seats, 5)
    record = Record(rules, seats, 5)
    for _ in range(150):
        if state.phase == "over":
            break
        action = Action("roll") if state.phase == "roll" else chooser.choice(legal_actions(state))
        record, state, _ = play(record, state, action)
    assert len(record.actions) > 50
    names = {"red": 'Zoë "the fox" \\ \u202e', "green": "\U0001f98a\u200d", "yellow": "</script>"}
    grown = [record._replace(actions=record.actions[:k]) for k in range(0, 60, 3)]
    for variant in (*grown, record, record._replace(options=(("clock", 30), ("teams", True))),
                    record._replace(dice={"chains": {"red": ["ab" * 8]}, "n": 3}),
                    record._replace(actions=()), record,
                    record._replace(actions=record.actions[::-1]), *grown[::-1]):
        session = Session(record=variant, names=names, players={"blue": "hard"}, timer=True,
                          deadline=1.5e12, screen="table")
        expected = json.dumps({
            "format": savegame.SAVE_FORMAT, "version": savegame.SAVE_VERSION,
            "record": record_to_json(variant), "names": names, "players": {"blue": "hard"},
            "timer": True, "deadline": 1.5e12, "screen": "table"}, separators=(",", ":"))
        assert encode(session) == expected
        assert encode(session) == expected  # (again, from the kept pieces)


@pytest.mark.parametrize("field,value,words", [
    # (JSON has no NaN or Infinity, and 1e400 is no float: the reader refuses them all)
    ("deadline", 1e400, "not valid JSON"), ("deadline", float("nan"), "not valid JSON"),
    ("deadline", 10 ** 400, "turn clock"), ("deadline", -5, "turn clock"),
    ("deadline", True, "turn clock"), ("deadline", "soon", "turn clock"),
    ("timer", "no", "clock setting"), ("timer", 0, "clock setting"),
    ("screen", "rules", "screen"), ("names", {"red": "x" * 41}, "names"),
    ("names", {"blue": "Bo"}, "names"), ("players", {"red": 3}, "player types"),
    ("extra", 1, "does not know"),
])
def test_every_field_of_the_save_is_checked(field, value, words) -> None:
    session, _ = _session()
    data = json.loads(encode(session))
    data[field] = value
    with pytest.raises(SaveError, match=words):
        decode(json.dumps(data))


def test_a_running_game_saved_here_has_no_online_seat() -> None:
    # nobody on this device could play an online seat: such a game would never move again
    session, _ = _session()
    data = json.loads(encode(session))
    data["players"] = {"green": "remote"}
    with pytest.raises(SaveError, match="player types"):
        decode(json.dumps(data))
    # an online match that has ended is kept, to be shown on Home
    record = Record("classic", ("red", "green"), 11, (Action("quit", seat="green"),))
    ended = Session(record=record, names={}, players={"green": "remote"}, timer=True)
    restored, states, _ = decode(encode(ended))
    assert restored.players == {"green": "remote"} and states[-1].phase == "over"


def test_settings_are_read_as_hostile_input() -> None:
    good = setup.defaults()
    assert setup.read_settings(None) == good
    assert setup.read_settings("[" * 10_000 + "]" * 10_000) == good
    assert setup.read_settings('"' + '\\"' * 50_000) == good
    assert setup.read_settings("x" * 100_000) == good
    weird = setup.read_settings(json.dumps({
        "rules": "chess", "seats": ["red", "red", "purple"], "names": {"red": 5, "blue": "Bo"},
        "players": {"red": "expert", "green": "hard"}, "timer": "no", "pace": "warp",
        "options": {"teams": "yes", "x": True}}))
    assert weird["rules"] == good["rules"] and weird["seats"] == good["seats"]
    assert weird["names"] == {"blue": "Bo"} and weird["players"] == {"green": "hard"}
    assert weird["timer"] is good["timer"] and weird["pace"] == "normal"
    assert weird["options"] == {}
    # containers where a word belongs: nothing stored may stop the page from booting
    for key in ("rules", "pace", "timer", "seats", "names", "players", "options"):
        for value in ([], {}, [[]], {"a": []}):
            assert setup.read_settings(json.dumps({key: value}))["pace"] in setup.PACES
    assert setup.read_settings(json.dumps({"players": {"red": []}}))["players"] == {}


def test_names_are_cut_at_whole_characters_without_direction_controls() -> None:
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"  # one grapheme, five code points
    # at most 20 whole characters and 40 code points (what a save and the protocol take)
    assert setup.clean_name(family * 25) == family * 8
    assert setup.clean_name("a" * 30) == "a" * 20
    four = "\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466"  # seven code points
    assert setup.clean_name(four * 6) == four * 5 and len(four * 5) == 35
    assert setup.clean_name("\u202eEve\u2066") == "Eve"
    assert setup.clean_name("  Ann  ") == "Ann"


def test_index_html_generated_parts_are_up_to_date() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "render_skeleton.py"),
                             "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_guest_meets_the_name_field_before_the_seats() -> None:
    # keyboard and screen-reader order: a seat is taken under the name typed, so the name
    # field comes first in the room screen (it once came after every "Take this seat")
    html = (ROOT / "index.html").read_text()
    assert html.index('id="room-name"') < html.index('id="room-seats"')


def test_only_app_browser_imports_the_browser() -> None:
    import ast

    for path in (ROOT / "py" / "app").glob("*.py"):  # app/browser/ is a subfolder
        tree = ast.parse(path.read_text())
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
                 for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, ast.ImportFrom) and n.level == 0}
        assert not names & {"js", "pyodide", "pyscript"}, path.name


def test_the_setup_form_ticks_gilgitis_teams_until_the_player_chooses() -> None:
    # Gilgiti is a team game; an option the player never chose shows its rule set's default
    assert setup.option_default("teams") is True
    assert setup.option_default("no-such-option") is False
    assert setup.read_settings(None)["options"] == {}  # nothing chosen: the default shows
    chosen = setup.read_settings(json.dumps({"options": {"teams": False}}))
    assert chosen["options"] == {"teams": False}  # a player's choice is remembered


def test_an_online_room_always_runs_the_clock() -> None:
    # a lost connection must not stop a match: only the clock's timeouts move a silent seat on
    assert setup.clock_required({"yellow": setup.ONLINE})
    assert setup.clock_required({"green": "easy", "blue": setup.ONLINE})
    assert not setup.clock_required({})
    assert not setup.clock_required({"yellow": "hard", "blue": "easy"})


def test_the_downloaded_record_is_the_notation_replay_and_verify_read(tmp_path: Path) -> None:
    from ludo.cli import replay_command
    from net.record import verify_record_json

    state = new_game("courtyard", ("red", "yellow"), 7)
    record = Record("courtyard", state.seats, 7)
    for _ in range(40):
        action = Action("roll") if state.phase == "roll" else distinct_moves(state)[0]
        record, state, _ = play(record, state, action)
    name, text = savegame.record_file(record, day="2026-12-01")
    assert name == "ludo-courtyard-2026-12-01-40-actions.json"
    assert record_from_json(json.loads(text)) == record
    with pytest.raises(Exception, match="no dice part"):
        verify_record_json(json.loads(text))
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert replay_command(str(path))["actions"] == 40


def test_a_room_link_passes_on_only_the_connection_settings() -> None:
    from app.roomview import link_query

    assert link_query("") == ""
    assert link_query("?auto_delay=0&pace_ms=0&turn_seconds=5") == ""
    assert link_query("?auto_delay=0&pace_ms=0&ice=relay") == "?ice=relay"
    # a host developing with ?sw=off must not make its guests' pages drop their offline copy
    assert link_query("?sw=off&ice=relay&x=1") == "?ice=relay"
    assert link_query("?sw=off") == ""


def _prompts_and_die_labels(rules: str, seed: int) -> tuple[list[str], set[str]]:
    """What a person reads through a game of ``rules``: the prompts after each throw (or
    roll), and the die's labels and blank face while it waits for a press."""
    table = Table.new(rules, ("red", "yellow"), seed, now=0.0, names={"red": "Ada"})
    prompts, dies = [], set()
    for _ in range(400):
        if table.over:
            break
        seat = table.seat_to_act
        assert seat is not None
        options = table.choices_for(seat)
        prompts.append(panel.prompt(table, table.scene(), options))
        if table.rolling:
            dies.add(panel.die_label(table, seat, "ready", None))
            dies.add(panel.die_face(None, blank=table.wording.verb.capitalize()))
            table.submit(seat, Action("roll"), 0.0)
        else:
            table.submit(seat, legal_actions(table.state)[0], 0.0)
    log = panel.log_html(table, table.history)  # its words and its dice's labels
    said = re.findall(r'aria-label="([^"]*)"', log) + [re.sub(r"<[^>]*>", " ", log)]
    return [p for p in prompts if p] + said, dies


def test_royal_players_throw_the_die_where_they_read_it() -> None:
    # the seed's language: "Red throws first", "Throws do nothing until you throw a crown"
    prompts, dies = _prompts_and_die_labels("royal", 5)
    assert any(p.startswith("You threw ") for p in prompts)
    assert any(p.startswith("threw ") for p in prompts)  # a die in the move log
    assert not [p for p in prompts if "roll" in p.lower()]
    assert "Throw the die for Ada (red)" in dies and any(">Throw</text>" in d for d in dies)
    assert not [d for d in dies if "roll" in d.lower()]
    assert ROYAL.wording.verb == "throw"
    # ... and move men, not tokens, in what the panel says
    assert any("highlighted man" in p for p in prompts)
    assert not [p for p in prompts if "token" in p]
    # the other rule sets still roll
    prompts, dies = _prompts_and_die_labels("courtyard", 5)
    assert any(p.startswith("You rolled ") for p in prompts)
    assert "Roll the die for Ada (red)" in dies and any(">Roll</text>" in d for d in dies)


def test_the_prompts_keyboard_parts_are_marked_so_a_touch_device_can_leave_them_out() -> None:
    prompts = [p for rules in ("courtyard", "gilgiti") for p in
               _prompts_and_die_labels(rules, 5)[0] if p and not p.startswith("<")]
    found = set()
    for text in prompts:
        html = panel.prompt_html(text)
        for hint in panel.KEY_HINTS:
            found.update([hint] if hint in text else [])
        # what a touch-only device shows: no keys named, and a whole sentence
        touch = re.sub(r'<span class="kbd-hint">.*?</span>', "", html)
        assert not re.search(r"Enter|Space|arrow keys", touch), touch
        assert re.sub(r"<[^>]+>", "", html) == escape(text)
    assert "Tap the die." in {re.sub(r'<span class="kbd-hint">.*?</span>', "",
                                     panel.prompt_html(p)) for p in prompts}
    assert found == set(panel.KEY_HINTS)  # each marked part is one the prompts say


def test_gilgitis_prompt_says_tap_your_dice_box_as_its_seed_does() -> None:
    """Gilgiti's seed: "Tap your dice box"; the others keep "Tap the die"."""
    for rules, said in (("gilgiti", "Tap your dice box"), ("courtyard", "Tap the die"),
                        ("royal", "Tap the die")):
        table = Table.new(rules, ("red", "green"), 5, now=0.0)
        scene = table.scene()
        text = panel.prompt(table, scene, table.choices_for(scene.turn))
        assert text == f"{said}, or focus it and press Enter or Space.", (rules, text)
