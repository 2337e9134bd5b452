"""Play feel in the pure view and panel: corners, taps, hops, the last move, the yard glow,
die faces and value chips for any rule set, the move log, standings, the die's handover."""

from __future__ import annotations

import json
import math
import re
from html import unescape as html_unescape

import pytest

from app import panel, view
from app.browser.gate import DieGate
from app.table import Table
from ludo import COLOURS, Action, apply, choices, new_game, parse_position, scene
from ludo.rules.base import DieView, Piece, Scene, Stack

LETTERS = "\U0001F451\u265B\u2654"  # a crown emoji and chess crowns: never drawn as text


def _position(**changes) -> object:
    data = {"format": "courtyard-ludo/position", "version": 2, "rules": "courtyard",
            "seats": list(COLOURS), "turn": "red", "phase": "roll", "die": None, "sixes": 0,
            "tokens": {c: ["yard"] * 4 for c in COLOURS}, "unlocked": [],
            "timeouts": {c: 0 for c in COLOURS}, "out": {}, "winner": None,
            "rng": "00000000000000aa"}
    data.update(changes)
    return parse_position(json.dumps(data))


def test_each_seat_sits_at_the_corner_of_its_yard_and_turns_with_the_board() -> None:
    board = scene(new_game("courtyard", COLOURS, 1)).board
    assert view.seat_corners(board) == {"red": "bl", "green": "tl", "yellow": "tr",
                                        "blue": "br"}
    turned = view.seat_corners(board, bottom_left="yellow")
    assert turned["yellow"] == "bl" and len(set(turned.values())) == 4


def test_rule01_online_each_colour_is_drawn_at_bottom_left() -> None:
    # the view turns the board (by Board.turns) so the viewer's colour sits where red sits on
    # the fixed board: its start square where red's is, its yard at the bottom left
    board = scene(new_game("courtyard", COLOURS, 1)).board
    cells = {c.id: c for c in board.cells}
    fixed = view.View(board)
    red_start = fixed.xy(cells["0"].x, cells["0"].y)
    for colour, start in zip(COLOURS, ("0", "13", "26", "39"), strict=True):
        turned = view.View(board, colour)
        assert turned.xy(cells[start].x, cells[start].y) == red_start, colour
        assert view.seat_corners(board, colour)[colour] == "bl"
    assert view.View(board, "red").xy(1.0, 2.0) == fixed.xy(1.0, 2.0)  # pass-and-play's board


@pytest.mark.parametrize("width", [300, 340, 352, 375, 420, 600, 900])
def test_a_movable_piece_gets_a_hit_square_of_at_least_44_css_pixels(width) -> None:
    half = view.hit_half(width)
    assert 2 * half * width / view.SIZE >= 44
    assert half >= view.CELL / 2  # never smaller than a square


def test_a_tap_on_a_disc_means_that_piece_and_between_pieces_means_both() -> None:
    state = _position(phase="move", die=5, unlocked=["red"],
                      tokens={"red": [14, 15, "yard", "yard"], "green": ["yard"] * 4,
                              "yellow": ["yard"] * 4, "blue": ["yard"] * 4})
    layout = view.piece_layout(scene(state))
    hit = view.hit_half(352)  # a phone: a square is 23 CSS px, the hit square 48
    (ax, ay, _), (bx, by, _) = layout["red-0"], layout["red-1"]
    assert view.pieces_at(layout, ["red-0", "red-1"], ax, ay, hit) == ["red-0"]
    assert view.pieces_at(layout, ["red-0", "red-1"], bx + 1, by, hit) == ["red-1"]
    between = view.pieces_at(layout, ["red-0", "red-1"], (ax + bx) / 2, (ay + by) / 2 + 15, hit)
    assert set(between) == {"red-0", "red-1"}
    assert view.pieces_at(layout, ["red-0", "red-1"], ax + 3 * hit, ay, hit) == []
    # a piece that is not a candidate is never meant
    assert view.pieces_at(layout, ["red-1"], ax, ay, hit) == ["red-1"]


def test_tokens_sharing_a_square_with_one_move_are_one_outcome() -> None:
    state = _position(phase="move", die=3, unlocked=["red"],
                      tokens={"red": [14, 14, 20, "yard"], "green": ["yard"] * 4,
                              "yellow": ["yard"] * 4, "blue": ["yard"] * 4})
    options = choices(state)
    places = {p.id: s.place for s in scene(state).stacks for p in s.pieces}
    on_14 = [c for c in options if set(c.pieces) <= {"red-0", "red-1"}]
    assert len(on_14) == 2 and view.same_outcome(on_14, places)
    assert not view.same_outcome(options, places)


def test_a_hop_visits_every_square_of_the_path_and_ends_in_place() -> None:
    state = _position(unlocked=["red"], tokens={"red": [10, "yard", "yard", "yard"],
                                                "green": ["yard"] * 4, "yellow": ["yard"] * 4,
                                                "blue": ["yard"] * 4})
    state, _ = apply(state, Action("roll", value=5))
    before = view.piece_layout(scene(state))
    after_state, events = apply(state, Action("move", token=0))
    moved = next(e for e in events if "path" in e)
    assert moved["pieces"] == ["red-0"] and moved["path"] == [str(s) for s in range(10, 16)]
    after = scene(after_state)
    end = view.piece_layout(after)["red-0"][:2]
    hop = view.hop(after, "red-0", moved["path"], before["red-0"][:2], end)
    assert hop.steps == 5 and 0 < hop.ms <= view.HOP_MAX_MS
    assert len(hop.frames) == 2 * hop.steps + 1
    offsets = [f["offset"] for f in hop.frames]
    assert offsets == sorted(offsets) and offsets[0] == 0 and offsets[-1] == 1
    assert hop.frames[-1]["transform"] == "translate(0.0px, 0.0px) scale(1)"
    cells = {c.id: c for c in after.board.cells}
    for step, frame in zip(moved["path"][1:-1], hop.frames[2:-1:2], strict=True):
        x, y = cells[step].x * view.CELL - end[0], cells[step].y * view.CELL - end[1]
        assert frame["transform"] == f"translate({x:.1f}px, {y:.1f}px) scale(1)"
    assert all("scale(1.22)" in f["transform"] for f in hop.frames[1::2])  # it rises between


def test_the_last_move_and_the_seat_to_act_are_marked_on_the_board() -> None:
    state = _position(turn="yellow")
    svg = view.overlay_svg(scene(state), ["10", "11", "12", "13"])
    assert svg.count('class="turn-glow turn-glow-yellow"') == 1
    assert svg.count('class="last-from"') == 1 and svg.count('class="last-to"') == 1
    assert svg.count('class="last-step"') == 2
    over = scene(state)._replace(turn=None, phase="over")
    assert "turn-glow" not in view.overlay_svg(over)


def test_tokens_are_ringed_and_movable_ones_have_a_hit_square() -> None:
    state, _ = apply(_position(), Action("roll", value=6))
    svg = view.pieces_svg(scene(state), choices(state), hit=30)
    assert svg.count('class="rim"') == 16 and svg.count('class="disc"') == 16
    assert svg.count('class="hit"') == 4 and 'width="60.0"' in svg
    assert f'fill="{view.RIM}" stroke="{view.OUTLINE}"' in svg
    # one Tab stop for the four movable tokens (arrow keys go among them)
    assert svg.count('role="button" tabindex="0"') == 1
    assert svg.count('role="button" tabindex="-1"') == 3


def test_lanes_of_seats_nobody_plays_are_grey_without_locks() -> None:
    board = scene(new_game("courtyard", ("red", "yellow"), 1)).board
    svg = view.board_svg(board)
    assert svg.count('class="lock"') == 2  # red's and yellow's locked lanes only
    for colour in ("green", "blue"):
        assert svg.count(f'class="sq lane lane-{colour} locked"') == 5
        assert f'class="yard yard-{colour} muted"' in svg
    classic = view.board_svg(scene(new_game("classic", ("red", "yellow"), 1)).board)
    assert 'class="lock"' not in classic and "lane-red locked" not in classic
    assert classic.count("lane-green locked") == 5


def test_a_new_courtyard_board_shows_its_lanes_locked() -> None:
    from ludo import board

    assert view.board_svg(board("courtyard")).count('class="lock"') == 4
    assert 'class="lock"' not in view.board_svg(board("classic"))


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_number_faces_have_their_pips(value) -> None:
    assert panel.die_face(value).count('class="pip"') == value


@pytest.mark.parametrize("face", ["crown", "feather"])
def test_named_faces_are_drawn_not_written(face) -> None:
    svg = panel.die_face(face)
    assert "<path" in svg and "<text" not in svg and not any(ch in svg for ch in LETTERS)
    assert f'class="die-{face}"' in svg


def test_any_other_face_is_its_text_and_a_blank_die_says_roll() -> None:
    assert ">Roll</text>" in panel.die_face(None)
    # the word is big enough for a phone's die: more than a third of the face's height
    assert 'font-size="36"' in panel.die_face(None)
    assert 'font-size="25"' in panel.die_face(None, blank="Throw")
    # a computer's turn before its roll: a face that says it is coming, not a blank one
    assert panel.die_shown("off", None) == panel.WAITING_FACE
    assert ">…</text>" in panel.die_face(panel.die_shown("wait", None))
    assert panel.die_shown("off", 4) == 4 and panel.die_shown("ready", 4) is None
    assert ">10</text>" in panel.die_face(10)
    assert "&lt;b&gt;" in panel.die_face("<b>")


def _scene_with_dice(*dice: DieView) -> Scene:
    base = scene(_position())
    return base._replace(dice=dice)


def test_value_chips_show_each_value_as_a_die_with_its_state() -> None:
    scene_ = _scene_with_dice(DieView(6, "6", "used"), DieView(6, "6", "playable"),
                              DieView(3, "3", "stranded"), DieView("crown", "crown", "playable"))
    html = panel.dice_html(scene_, selected="3")
    assert html.count('class="mini-die"') == 4
    assert html.count(" disabled") == 2  # used and stranded cannot be picked
    assert 'class="chip chip-stranded"' in html and 'aria-label="3, not now"' in html
    assert 'aria-pressed="true"' not in html  # a stranded value is never the picked one
    assert panel.dice_html(scene_, selected="crown").count('aria-pressed="true"') == 1
    # chips carry their value as choices name it; of two 6s the one left to play is pressed
    six = panel.dice_html(scene_, selected="6")
    assert six.count('aria-pressed="true"') == 1 and 'data-value="6" data-index="1" ' \
        'aria-pressed="true"' in six
    # not this person's turn to play: nothing can be pressed
    assert panel.dice_html(scene_, "6", enabled=False).count(" disabled") == 4
    told = _scene_with_dice(DieView(5, "5, to play", "playable"), DieView(2, "2, played", "used"))
    assert 'aria-label="5, to play"' in panel.dice_html(told, None)
    assert panel.dice_html(_scene_with_dice(DieView(4, "4")), None) == ""


def test_a_value_chips_name_holds_the_word_it_shows() -> None:
    """The word under a chip is hidden from a screen reader (its name says it), so the name
    must hold it: a chosen chip whose rule set labels it "5, to play" showed "chosen" and was
    still named "5, to play" (axe: label-content-name-mismatch; voice control could not say
    what it saw)."""
    told = _scene_with_dice(DieView(5, "5, to play", "playable"), DieView(2, "2, played", "used"),
                            DieView(6, "6, no legal move now", "stranded"))
    html = panel.dice_html(told, selected="5")
    assert '>chosen<' in html and 'aria-label="5, to play, chosen"' in html
    assert 'aria-label="2, played"' in html  # the word shown is already in the label
    assert 'aria-label="6, no legal move now, not now"' in html
    for chip in re.findall(r"<button.*?</button>", html):
        shown = re.search(r'class="chip-state"[^>]*>([^<]*)<', chip).group(1)
        assert shown in re.search(r'aria-label="([^"]*)"', chip).group(1), chip


def test_stacks_are_drawn_as_stacks_with_their_count_and_a_rider_on_its_carrier() -> None:
    base = scene(_position())
    red = [Piece(f"red-{t}", "red", t, f"Red {t}") for t in range(3)]
    blue = Piece("blue-0", "blue", 0, "Blue 0")
    stacked = base._replace(stacks=(Stack("20", tuple(red), "block"),
                                    Stack("30", (red[0]._replace(id="red-9"), blue), "double")))
    layout = view.piece_layout(stacked)
    ys = [layout[p.id][1] for p in red]
    assert ys == sorted(ys, reverse=True)  # each piece of a block a little higher
    svg = view.pieces_svg(stacked)
    assert svg.count('class="count"') == 1 and ">3</text></g>" in svg
    carrier, rider = layout["red-9"], layout["blue-0"]
    assert rider[2] < carrier[2] and rider[1] < carrier[1]
    # both colours show: the rider's disc keeps clear of the carrier's letter (about 0.4 r
    # around its centre), and both stay inside their square
    gap = ((rider[0] - carrier[0]) ** 2 + (rider[1] - carrier[1]) ** 2) ** 0.5
    assert gap - rider[2] > 0.4 * carrier[2]
    square = next(c for c in stacked.board.cells if c.id == "30")
    cx, cy = view.View(stacked.board).xy(square.x, square.y)
    for x, y, r in (carrier, rider):
        assert abs(x - cx) + r <= view.CELL / 2 and abs(y - cy) + r <= view.CELL / 2
    assert 'class="token token-red carrier"' in svg and 'class="token token-blue rider"' in svg


def test_a_tap_on_a_double_means_the_man_under_the_finger_in_any_order() -> None:
    """A rider's disc overlaps its carrier's: a tap where both discs are means the one whose
    centre is nearer (in proportion), not the first in the list; each keeps a hit square
    of at least 44 CSS px on a 360 px phone."""
    base = scene(_position())
    carrier = Piece("red-0", "red", 0, "Red 0")
    rider = Piece("blue-0", "blue", 0, "Blue 0")
    layout = view.piece_layout(base._replace(stacks=(Stack("30", (carrier, rider),
                                                             "double"),)))
    (cx, cy, cr), (rx, ry, rr) = layout["red-0"], layout["blue-0"]
    assert math.hypot(rx - cx, ry - cy) < cr + rr  # the discs overlap
    hit = view.hit_half(352)
    assert 2 * hit * 352 / view.SIZE >= 44
    # a point in both discs, nearer the rider's centre: the rider, in either order
    t = 0.35  # of the way from the rider's centre to the carrier's
    px, py = rx + (cx - rx) * t, ry + (cy - ry) * t
    assert math.hypot(px - cx, py - cy) <= cr and math.hypot(px - rx, py - ry) <= rr
    for order in (["red-0", "blue-0"], ["blue-0", "red-0"]):
        assert view.pieces_at(layout, order, px, py, hit) == ["blue-0"]
        assert view.pieces_at(layout, order, rx, ry, hit) == ["blue-0"]
        assert view.pieces_at(layout, order, cx, cy, hit) == ["red-0"]
        # beside the double, off both discs: both, for a picker
        assert set(view.pieces_at(layout, order, cx - cr - 4, cy + cr, hit)) == \
            {"red-0", "blue-0"}


def _played_table() -> tuple[Table, list]:
    table = Table.new("courtyard", ("red", "yellow"), 3, now=0.0, names={"red": "Ada"})
    history = []
    for _ in range(40):
        seat = table.seat_to_act
        action = Action("roll") if table.rolling else \
            next(c.action for c in table.choices_for(seat))
        history.append((seat, table.submit(seat, action, 0.0)))
    return table, history


def test_the_move_log_is_grouped_by_turn_newest_first_with_the_rolls_as_dice() -> None:
    table, history = _played_table()
    groups = panel.log_groups(history)
    assert all(a[0] != b[0] for a, b in zip(groups, groups[1:], strict=False))
    html = panel.log_html(table, history, "New game.")
    items = html.split('<li class="log-turn')[1:]
    assert items[-1].endswith("New game.</li>")
    newest = next(seat for seat, events in reversed(history) if events)
    assert f'swatch {newest}' in items[0]
    rolls = sum(1 for _, events in history for e in events if e["type"] == "rolled")
    assert html.count('class="mini-die"') == rolls
    assert "'s turn." not in html and "'s turn." not in html  # no filler lines
    assert "<bdi>Ada (red)</bdi>" in html


def test_standings_put_the_winners_first_then_those_who_played_on() -> None:
    table = Table.new("courtyard", ("red", "green", "yellow"), 3, now=0.0)
    table.submit("green", Action("quit", seat="green"), 0.0)
    table.submit("red", Action("quit", seat="red"), 0.0)
    html = panel.standings_html(table)
    order = [html.index(f"swatch {c}") for c in ("yellow", "red", "green")]
    assert order[0] < order[1] and order[0] < order[2]
    assert "winner" in html.split("</li>")[0]


def test_standings_rank_those_who_played_on_by_tokens_home() -> None:
    # the numbered list kept seat order below the winner: "Red 1/4 home" above "Green 2/4
    # home" read as Red coming second
    table = Table.new("courtyard", COLOURS, 3, now=0.0)
    table.state = parse_position(json.dumps({
        "format": "courtyard-ludo/position", "version": 2, "rules": "courtyard",
        "seats": list(COLOURS), "turn": "yellow", "phase": "over", "die": None, "sixes": 0,
        "tokens": {"red": ["home", 20, 30, "yard"], "green": ["home", "home", 5, "yard"],
                   "yellow": ["home"] * 4, "blue": ["home", "home", "home", "yard"]},
        "unlocked": list(COLOURS), "timeouts": {c: 0 for c in COLOURS}, "out": {},
        "winner": "yellow", "rng": "00000000000000aa"}))
    html = panel.standings_html(table)
    order = sorted(COLOURS, key=lambda c: html.index(f"swatch {c}"))
    assert order == ["yellow", "blue", "green", "red"]
    assert "3/4 home" in html.split("</li>")[1]


def test_a_seats_box_isolates_the_name_and_names_the_computer() -> None:
    table = Table.new("courtyard", ("red", "blue"), 3, now=0.0,
                      names={"red": "\u202e<i>Eve</i>"}, players={"blue": "hard"})
    red = panel.pod_html(table, table.scene(), "red")
    assert "<bdi>&lt;i&gt;Eve&lt;/i&gt;</bdi>" in red.replace("\u202e", "")
    assert "hard" in panel.pod_html(table, table.scene(), "blue")


def test_a_seats_box_gives_the_home_count_first_and_each_fact_whole() -> None:
    """Cut with an ellipsis, the box showed "easy · 1/4 ho…": the count comes first, and
    each fact is its own piece, which wraps whole."""
    table = Table.new("courtyard", ("red", "blue"), 3, now=0.0, players={"blue": "easy"})
    blue = panel.pod_html(table, table.scene(), "blue")
    facts = re.findall(r'<span class="pod-fact">([^<]*)</span>', blue)
    assert facts == ["0/4 home", "easy"]


def test_the_turn_line_keeps_one_shape_for_people_and_computers() -> None:
    table = Table.new("courtyard", ("red", "blue"), 3, now=0.0, players={"blue": "medium"})
    line = panel.turn_html(table, table.scene())
    assert line.count('class="who"') == 1


def test_the_die_stays_closed_while_presses_keep_coming_and_opens_after_a_pause() -> None:
    gate = DieGate(handover=500, quiet=250)
    assert gate.press(0)
    gate.turn_passed(1000)
    assert gate.closed(1000) and not gate.press(1000)
    # Enter every 35 ms for three seconds: never a roll
    assert not any(gate.press(1000 + 35 * k) for k in range(1, 90))
    last = 1000 + 35 * 89
    assert gate.closed(last + 249) and not gate.closed(last + 250)
    assert gate.press(last + 260)
    # clicks every 100 ms after a turn passes: the same
    gate.turn_passed(10_000)
    assert not any(gate.press(10_000 + 100 * k) for k in range(0, 30))
    # a single deliberate press after the handover rolls at once
    gate.turn_passed(20_000)
    assert gate.press(20_500)


def test_no_handover_when_automatic_moves_have_no_pause() -> None:
    gate = DieGate(handover=0, quiet=250)
    gate.turn_passed(5)
    assert gate.press(5) and gate.press(6)


def test_hop_frames_are_plain_numbers() -> None:
    base = scene(_position())
    hop = view.hop(base, "red-0", ["red-yard-0", "0"], (80.0, 520.0), (260.0, 540.0))
    assert hop.steps == 1 and len(hop.frames) == 3
    for frame in hop.frames:
        numbers = [float(n) for n in frame["transform"].replace("translate(", "")
                   .replace("px", "").replace(") scale(", ",").rstrip(")").split(",")]
        assert all(math.isfinite(n) for n in numbers)


def test_the_move_log_tells_a_finished_turn_once() -> None:
    table, history = _played_table()
    cache: dict = {}
    plain = panel.log_html(table, history, "New game.")
    assert panel.log_html(table, history, "New game.", cache=cache) == plain
    oldest = min(cache)
    cache[oldest] = "<li>kept</li>"
    assert panel.log_html(table, history, "New game.", cache=cache).endswith(
        "<li>kept</li><li class=\"log-turn log-start\">New game.</li>")
    # a turn that grows is told again
    cache = {}
    panel.log_html(table, history, cache=cache)
    seat, _ = history[-1]
    longer = history + [(seat, [{"type": "rolled", "seat": seat, "value": 4}])]
    assert panel.log_html(table, longer, cache=cache) == panel.log_html(table, longer)


def _gilgiti_table(teams: bool = False, **fields) -> Table:
    """A table at a Gilgiti position written in its notation (seats all people here)."""
    from app.savegame import Session
    from ludo import Record

    data = {"format": "courtyard-ludo/position", "version": 1, "rules": "gilgiti",
            "seats": list(COLOURS), "teams": teams, "turn": "red", "phase": "roll",
            "rolled": [], "unplayed": [], "tokens": {c: ["yard"] * 4 for c in COLOURS},
            "turn_start": None, "resting": [], "timeouts": {c: 0 for c in COLOURS},
            "quit": None, "winners": [], "rng": "0123456789abcdef"}
    data.update(fields)
    state = parse_position(json.dumps(data))
    record = Record("gilgiti", COLOURS, 1, (), (("teams", True),) if teams else ())
    return Table(Session(record, timer=False), [state])


def test_a_turn_of_several_values_prompts_with_what_is_left_and_what_is_stuck() -> None:
    tokens = {c: ["yard"] * 4 for c in COLOURS}
    tokens["red"] = [3, "yard", "yard", "yard"]
    table = _gilgiti_table(phase="move", rolled=[6, 5], unplayed=[5, 6], tokens=tokens,
                           turn_start=tokens)
    sc = table.scene()
    options = table.choices_for("red")
    text = panel.prompt(table, sc, options)
    assert text.startswith("To play: 6 and 5.")
    assert "Choose a value, then a highlighted token" in text
    chips = panel.dice_html(sc, "5")
    assert chips.count("<button") == 2 and 'data-value="5"' in chips
    assert chips.count('aria-pressed="true"') == 1
    # the choices a chip keeps: the ones naming its value
    assert {c.value for c in options} == {"5", "6"}
    # a chip picked: the prompt and the chip say so
    picked = panel.prompt(table, sc, options, selected="5")
    assert picked.startswith("Playing the 5: choose a highlighted token") and "6 and 5" in picked
    assert ">chosen<" in chips and chips.count(">to play<") == 1


def test_with_one_value_left_the_prompt_asks_only_for_a_token() -> None:
    start = {c: ["yard"] * 4 for c in COLOURS}
    start["red"] = [3, 20, "yard", "yard"]
    now = dict(start, red=[9, 20, "yard", "yard"])  # the 6 played, the 4 left
    table = _gilgiti_table(phase="move", rolled=[6, 4], unplayed=[4], tokens=now,
                           turn_start=start)
    options = table.choices_for("red")
    assert len({p for c in options for p in c.pieces}) == 2  # a choice of tokens
    text = panel.prompt(table, table.scene(), options)
    assert text.startswith("To play: 4. Choose a highlighted token") and "value" not in text


def test_teams_show_their_colours_and_the_winner_dialog_names_the_team() -> None:
    home = {c: ["home"] * 4 for c in COLOURS}
    home["green"] = [5, "yard", "yard", "yard"]
    home["blue"] = [30, "yard", "yard", "yard"]
    table = _gilgiti_table(teams=True, phase="over", tokens=home, winners=["red", "yellow"])
    sc = table.scene()
    seats = panel.seats_html(table, sc)
    assert seats.count('data-team="Red + Yellow"') == 2
    assert seats.count('class="swatch mini red"') == 2  # beside red and beside yellow
    # the narrow pod names the partner instead of the team
    assert "with Yellow" in panel.pod_html(table, sc, "red")
    assert "with Green" in panel.pod_html(table, sc, "blue")
    title, text = panel.winner_text(table)
    assert title == "Team Red + Yellow wins!" and text.startswith("Red and Yellow got all")
    assert panel.standings_html(table).count('data-team="Red + Yellow"') == 2
    alone = _gilgiti_table(phase="over", tokens=dict(home, yellow=[20, "yard", "yard", "yard"]),
                           winners=["red"])
    assert panel.winner_text(alone)[0] == "Red wins!"
    assert panel.team_html(alone.scene(), None) == ""


def _gilgiti(tokens: dict[str, list[object]], rolled: list[int]) -> object:
    """A Gilgiti position (red and green) in its move phase, nothing played yet."""
    tokens = {c: tokens.get(c, ["yard"] * 4) for c in ("red", "green")}
    return parse_position(json.dumps({
        "format": "courtyard-ludo/position", "version": 1, "rules": "gilgiti",
        "seats": ["red", "green"], "teams": False, "turn": "red", "phase": "move",
        "rolled": rolled, "unplayed": sorted(rolled), "tokens": tokens, "turn_start": tokens,
        "resting": [], "timeouts": {"red": 0, "green": 0}, "quit": None, "winners": [],
        "rng": "00000000000000aa"}))


def _hops(before: object, action: Action) -> dict[str, view.Hop]:
    """What the screen does after ``action``: every piece with a path hops along it."""
    start = view.piece_layout(scene(before))
    after, events = apply(before, action)
    end = view.piece_layout(scene(after))
    paths = {p: e["path"] for e in events if "path" in e for p in e["pieces"]}
    return {p: view.hop(scene(after), p, path, start[p][:2], end[p][:2])
            for p, path in paths.items()}


def test_a_stack_strike_and_forcing_the_gate_hop_like_any_move() -> None:
    # a stack of two strikes the matching block four squares on: both tokens hop each square
    state = _gilgiti({"red": [10, 10, "yard", "yard"], "green": [14, 14, 0, 0]}, [6, 6, 4])
    hops = _hops(state, Action("move", tokens=(0, 1), value=4))
    assert set(hops) == {"red-0", "red-1"}
    assert all(h.steps == 4 and len(h.frames) == 2 * h.steps + 1 for h in hops.values())
    assert all("scale(1.22)" in f["transform"] for h in hops.values() for f in h.frames[1::2])
    # forcing the gate: both yard tokens hop onto the entry star, each from its own spot
    hops = _hops(state, Action("force", tokens=(2, 3)))
    assert set(hops) == {"red-2", "red-3"} and all(h.steps == 1 for h in hops.values())
    assert hops["red-2"].frames[0] != hops["red-3"].frames[0]


def test_a_face_that_is_not_a_number_is_prompted_with_its_article() -> None:
    table = Table.new("royal", ("red", "yellow"), 4, 0.0, timer=False)
    for _ in range(400):
        seat = table.seat_to_act
        options = table.choices_for(seat)
        sc = table.scene()
        if sc.phase == "move" and sc.dice and sc.dice[-1].value == "crown" and len(options) > 1:
            assert "You threw a crown." in panel.prompt(table, sc, options)
            return
        table.submit(seat, Action("roll") if table.rolling else options[0].action, 0.0)
    raise AssertionError("no crown with a choice came up")



def test_the_turn_is_announced_from_the_names_without_the_swatch_letter() -> None:
    """The heading's text starts with the swatch's hidden letter ("RAda (red)'s turn"): the
    screen reader's sentence is built from the names instead."""
    person = Table.new("courtyard", ("red", "blue"), 4, now=0.0, names={"red": "Ada"},
                       players={"blue": "easy"})
    assert person.scene().turn == "red"
    assert panel.turn_text(person, person.scene()) == "Ada (red)'s turn"
    computer = Table.new("courtyard", ("red", "blue"), 3, now=0.0, players={"blue": "easy"})
    assert computer.scene().turn == "blue"
    assert panel.turn_text(computer, computer.scene()) == "Blue's turn (computer, easy)"


def _red_token_1s_picker(red: list, rolled: tuple[int, int]) -> tuple[Table, list, dict, dict]:
    """A Gilgiti turn where both ``rolled`` values fit red's token 1 (a picker): the table, the
    picker's choices, and the scene's pieces and cells by id."""
    tokens = {c: ["yard"] * 4 for c in COLOURS}
    tokens["red"] = red
    table = _gilgiti_table(phase="move", rolled=list(rolled), unplayed=list(rolled)[::-1],
                           tokens=tokens, turn_start=tokens)
    sc = table.scene()
    picks = [c for c in table.choices_for("red") if c.pieces == ("red-0",)]
    assert {c.value for c in picks} == {str(v) for v in rolled}
    return table, picks, {p.id: p for s in sc.stacks for p in s.pieces}, \
        {c.id: c for c in sc.board.cells}


def test_a_pickers_buttons_show_a_few_words_and_keep_the_sentence_as_their_name() -> None:
    """Several values fitting one token: each button shows the value's die face and where the
    token lands; the whole sentence is its accessible name (shown, it filled a phone)."""
    table, picks, pieces, cells = _red_token_1s_picker([3, "yard", "yard", "yard"], (6, 5))
    html = panel.choice_buttons_html(picks, pieces, cells)
    buttons = re.findall(r'<button[^>]*aria-label="([^"]*)"[^>]*>(.*?)</button>', html)
    assert len(buttons) == 2
    for (name, inner), choice in zip(buttons, picks, strict=True):
        shown = re.sub(r"<svg.*?</svg>", "", inner)
        shown = re.sub(r"<[^>]+>", "", shown).strip()
        assert shown == f"→ {cells[choice.target].label}"  # "→ square 8, a star"
        assert len(shown) <= 30
        assert panel.mini_die(int(choice.value)) in inner  # the value as pips, as on chips
        assert html_unescape(name).startswith(f"{pieces['red-0'].label}, with the "
                                              f"{choice.value}: ")
        # the words shown are in the name (WCAG's label in name: "square 8, a star", which a
        # voice user says, was "moves 5 to square 8 (7 past Red's start)" without the star)
        assert shown.removeprefix("→ ") in html_unescape(name), (shown, name)
        assert choice.label in html_unescape(name)  # the move's whole sentence
    assert any(", a star" in html_unescape(name) for name, _ in buttons)
    # moves of different pieces: each button also names its piece, in short
    two = [c for c in table.choices_for("red") if c.value == "6"][:2]
    html = panel.choice_buttons_html(two, pieces, cells)
    assert "Red token 1</span>" in html and "Red token 2</span>" in html


def test_the_question_before_replacing_a_game_says_which_game_ends() -> None:
    table = Table.new("courtyard", ("red", "blue"), 4, now=0.0, names={"red": "Ada"})
    text = panel.replace_text(table)
    assert "in progress (2 players; Ada (red) to play)" in text
    assert "cannot be resumed" in text


def test_the_quit_text_says_only_what_applies_at_this_device() -> None:
    """The seed's sentences, those that apply here: two people sharing the device are not
    told about online and computer players, one against a computer is not told about a
    shared device; Gilgiti's leave (no such sentences) is said whole."""
    shared = Table.new("courtyard", ("red", "yellow", "green"), 4, now=0.0)
    text = panel.quit_text(shared)
    assert text == ("All your tokens will be removed, and you cannot rejoin this match. The "
                    "remaining players continue. On a shared device, the other players keep "
                    "playing.")
    alone = Table.new("courtyard", ("red", "yellow", "green"), 4, now=0.0,
                      players={"yellow": "easy", "green": "easy"})
    assert panel.quit_text(alone).endswith(
        "The remaining players continue. Online and computer players return to Home.")
    gilgiti = Table.new("gilgiti", ("red", "green"), 4, now=0.0)
    assert panel.quit_text(gilgiti) == gilgiti.leave.text


@pytest.mark.parametrize("rules", ["courtyard", "royal"])
@pytest.mark.parametrize("players", [{}, {"green": "easy"}])
def test_the_quit_text_with_two_left_says_the_other_wins(rules: str,
                                                         players: dict[str, str]) -> None:
    """Rule 11: "The last player remaining wins." With two seats left nobody plays on, so the
    dialog says that the other one wins instead of that the others continue."""
    table = Table.new(rules, ("red", "green"), 4, now=0.0, players=players)
    text = panel.quit_text(table)
    last = "Only one player would be left: the last player remaining wins, and the match ends."
    # against a computer the page still goes Home after the quit (the match is over)
    assert text.endswith(last + (" Online and computer players return to Home."
                                 if players else ""))
    assert "continue" not in text and "keep playing" not in text
    assert text.startswith("All your ")


def test_a_shut_stars_lock_is_drawn_above_the_block_on_it() -> None:
    # the lock is the cell's mark, under the pieces; a block standing there would hide it, so
    # the piece layer shows it too, beside the block (Gilgiti: a gate shut by an enemy block)
    import random

    from ludo import legal_actions, resolve

    rnd = random.Random(3)
    seen = 0
    for seed in range(40):
        state = new_game("gilgiti", ("red", "green", "yellow", "blue"), seed)
        for _ in range(600):
            if state.phase == "over":
                break
            shown = scene(state)
            locked = {c.id for c in shown.board.cells if "lock" in c.marks}
            on_lock = [s for s in shown.stacks if s.place in locked]
            svg = view.pieces_svg(shown)
            assert svg.count('class="lock-badge"') == len(on_lock)
            for badge in re.findall(r'<g class="lock-badge"[^>]*>.{0,40}', svg):
                # as large as the count's badge, on the same round backing: a bare lock at
                # 0.6 scale was about 6 px wide on a phone's board, dark on the block's rim
                assert "scale" not in badge.split(">")[0] and '<circle r="10"/>' in badge
            seen += len(on_lock)
            state, _ = apply(state, resolve(state, rnd.choice(legal_actions(state))))
        if seen >= 3:
            break
    assert seen >= 3


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_a_winner_by_the_others_quitting_is_not_said_to_have_got_all_home(rules: str) -> None:
    """Red quits a two-seat game: green wins as the last player remaining, with no man home.
    Royal's winner dialog said "Green got all four men home" (its scene counted the winner
    as finished, whatever was home)."""
    table = Table.new(rules, ("red", "green"), 4, 0.0, timer=False)
    table.submit("red", Action("quit", seat="red"), 0.0)
    assert table.over
    title, text = panel.winner_text(table)
    if rules == "gilgiti":  # leaving ends the match for everyone: nobody wins
        assert title == "The game has ended"
        return
    assert title == "Green wins!"
    assert text.startswith("Green is the last player remaining.")
    assert "home" not in text
    if rules == "royal":  # and the winner's facts say nothing he would need to play on
        green = next(s for s in table.scene().seats if s.colour == "green")
        assert "needs a crown" not in green.facts, green.facts


def test_two_crowns_in_succession_are_said_in_the_hint_beside_their_buttons() -> None:
    """The carrier's second crown in succession offers "Send ... back to balk" and "Climb on
    top of ..." buttons: the hint said only "You threw a crown.", never why a crown now
    offers them (the seed's rule: two crowns in succession). It says "two crowns", not "a
    second crown": after a second crown played as a move, a third one gives the choice again."""
    table = Table.new("royal", ("red", "green"), 4, 0.0, timer=False)
    for _ in range(3000):
        seat = table.seat_to_act
        options = table.choices_for(seat)
        sc = table.scene()
        if any(c.kind == "send_back" for c in options):
            text = panel.prompt(table, sc, options)
            assert text.startswith("You threw two crowns in succession.")
            if any(c.pieces for c in options):
                assert "Choose one of the buttons below, or a highlighted man" in text
            return
        if table.over:
            table = Table.new("royal", ("red", "green"), table.record.seed + 1, 0.0, timer=False)
            continue
        table.submit(seat, Action("roll") if table.rolling else options[0].action, 0.0)
    raise AssertionError("no two crowns in succession came up")


@pytest.mark.parametrize("rules", ["courtyard", "royal"])
def test_a_number_rolled_is_prompted_with_its_article(rules: str) -> None:
    """"You threw 1." read like a telegram beside "You threw a crown." and the
    announcements' "Ada threw a 1": the hint says "You threw a 1." (Courtyard: "You rolled
    a 6.")."""
    table = Table.new(rules, ("red", "yellow"), 4, 0.0, timer=False)
    for _ in range(600):
        seat = table.seat_to_act
        options = table.choices_for(seat)
        sc = table.scene()
        value = sc.dice[-1].value if sc.dice else None
        if sc.phase == "move" and str(value).isdigit() and len(options) > 1:
            text = panel.prompt(table, sc, options)
            assert text.startswith(f"You {table.wording.past} a {value}. "), text
            return
        table.submit(seat, Action("roll") if table.rolling else options[0].action, 0.0)
    raise AssertionError("no number with a choice came up")


def test_three_values_to_play_are_listed_as_a_sentence_lists_them() -> None:
    """"To play: 6 and 6 and 3." beside the announcement's "Red plays 6, 6 and 3": the
    hint lists them the same way."""
    tokens = {c: ["yard"] * 4 for c in COLOURS}
    tokens["red"] = [3, "yard", "yard", "yard"]
    table = _gilgiti_table(phase="move", rolled=[6, 6, 3], unplayed=[3, 6, 6], tokens=tokens,
                           turn_start=tokens)
    text = panel.prompt(table, table.scene(), table.choices_for("red"))
    assert text.startswith("To play: 6, 6 and 3."), text


def test_moves_and_details_says_which_seats_the_computer_plays() -> None:
    """Moves & details listed "Green: 0/4 home" for a computer's seat: its seat list is the
    one place that sums up the table, and the panel's own list says "(easy)"."""
    table = Table.new("royal", ("red", "green"), 4, 0.0, timer=False, names={"red": "Ada"},
                      players={"green": "easy"})
    html = panel.details_seats_html(table, table.scene())
    assert "<li><bdi>Ada (red)</bdi>: 0/4 home" in html
    assert "<li><bdi>Green</bdi> (computer, easy): 0/4 home" in html


def test_a_gate_that_can_be_forced_is_named_in_the_prompt_beside_the_chips() -> None:
    """Seed 003: "roll two 6s in one turn and spend them together to force the gate". That
    play is a button under the value chips, below the fold of a 360x740 phone, and the prompt
    said only "Choose a value, then a highlighted token": a player had to scroll to find the
    gate could be forced at all. The prompt names the button, value picked or not."""
    tokens = {c: ["yard"] * 4 for c in COLOURS}
    tokens["red"] = [18, "yard", "yard", "yard"]
    tokens["green"] = [0, 0, "yard", "yard"]  # a green pair shuts red's entry star
    table = _gilgiti_table(phase="move", rolled=[6, 6, 2], unplayed=[2, 6, 6], tokens=tokens,
                           turn_start=tokens)
    options = table.choices_for("red")
    assert any(c.kind == "force" for c in options) and any(c.pieces for c in options)
    said = " Or the button below: Force the gate."
    for selected in (None, "6"):
        text = panel.prompt(table, table.scene(), options, selected=selected)
        assert text.endswith(said), text
    # the 2 played first: two 6s left, no value to pick, the gate still offered
    table.submit("red", next(c.action for c in options if c.value == "2"), 0.0)
    options = table.choices_for("red")
    assert any(c.kind == "force" for c in options)
    text = panel.prompt(table, table.scene(), options)
    assert text.startswith("To play: 6 and 6. Choose a highlighted token") and \
        text.endswith(said), text
    # a turn with no button says nothing of one
    plain = _gilgiti_table(phase="move", rolled=[6, 2], unplayed=[2, 6], tokens=tokens,
                           turn_start=tokens)
    assert "button" not in panel.prompt(plain, plain.scene(), plain.choices_for("red"))


def test_a_pickers_name_keeps_a_blocks_size_apart_from_the_value_played() -> None:
    """A token's name ends with its block ("…, in a block of 2", "…, in a block of 3 with
    Yellow") and a picker's button named the value right after it: "Red token 1, on square 7
    (6 past Red's start), in a block of 2 with 2: moves 2 …", as if the block held two more,
    and "in a block of 3 with Yellow with 6". The value is said apart: ", with the 2"."""
    _, picks, pieces, cells = _red_token_1s_picker([6, 6, "yard", "yard"], (6, 2))
    assert pieces["red-0"].label.endswith(", in a block of 2")
    names = [html_unescape(n) for n in re.findall(
        r'aria-label="([^"]*)"', panel.choice_buttons_html(picks, pieces, cells))]
    assert len(names) == 2
    for name, choice in zip(names, picks, strict=True):
        assert f"in a block of 2 with {choice.value}" not in name, name
        assert name.startswith(f"{pieces['red-0'].label}, with the {choice.value}: "), name


def test_a_value_with_no_move_yet_is_not_called_stuck_while_the_turn_goes_on() -> None:
    """Seed 003: "If you get stuck with a value that has no legal move, the entire turn is
    rolled back". A chip with no legal move *now* is only ever shown while another value can
    still be played (with none, the turn has already gone back), and playing that one may free
    it: a 1 waits for the 6 that brings a token out. Under the chip "stuck", in red, told a
    player the turn was lost when it was not; it says "not now", as its name and the prompt
    ("no move for 1 now") do."""
    data = {"format": "courtyard-ludo/position", "version": 1, "rules": "gilgiti",
            "seats": list(COLOURS), "teams": False, "turn": "red", "phase": "move",
            "rolled": [6, 1], "unplayed": [1, 6],
            "tokens": {c: ["yard"] * 4 for c in COLOURS},
            "turn_start": {c: ["yard"] * 4 for c in COLOURS}, "resting": [],
            "timeouts": {c: 0 for c in COLOURS}, "quit": None, "winners": [],
            "rng": "00000000000000aa"}
    state = parse_position(json.dumps(data))
    shown = scene(state)
    assert [d.state for d in shown.dice] == ["playable", "stranded"]
    html = panel.dice_html(shown, None)
    assert "stuck" not in html
    assert 'aria-label="1, not now: no legal move with it at the moment"' in html
    words = re.findall(r'class="chip-state"[^>]*>([^<]*)<', html)
    assert words == ["to play", "not now"]
    # and the 1 is playable once the 6 has brought a token out: the turn was never stuck
    after, _ = apply(state, Action("move", token=0, value=6))
    assert after.phase == "move" and [d.state for d in scene(after).dice] == ["used",
                                                                             "playable"]
