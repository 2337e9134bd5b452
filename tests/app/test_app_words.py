"""What the panel and the pieces' labels say to a person who plays by mouse, finger, keyboard or
screen reader (the keyboard and screen-reader review's item 7): words that fit every way of
playing, a roll said once, places counted as people count, a token named once."""

from __future__ import annotations

import json
import re

import pytest

from app import panel, view
from app.table import Table
from ludo import Action, legal_actions, parse_position
from ludo.rules import cross, royal_scene
from ludo.rules.base import Scene

KEYBOARD_PART = re.compile(r'<span class="kbd-hint">.*?</span>')


def _prompts(rules: str, seed: int, after_roll: bool = False) -> list[str]:
    """Every prompt a person reads through a game of ``rules`` (two people)."""
    table = Table.new(rules, ("red", "yellow"), seed, now=0.0, names={"red": "Ada"})
    said = []
    for _ in range(400):
        if table.over:
            break
        seat = table.seat_to_act
        assert seat is not None
        said.append(panel.prompt(table, table.scene(), table.choices_for(seat),
                                 after_roll=after_roll))
        table.submit(seat, Action("roll") if table.rolling else legal_actions(table.state)[0],
                     0.0)
    return [p for p in said if p]


@pytest.mark.parametrize("rules", ["courtyard", "classic", "royal", "gilgiti"])
def test_the_prompts_words_fit_a_mouse_a_finger_and_a_keyboard(rules: str) -> None:
    prompts = _prompts(rules, 3)
    piece = "man" if rules == "royal" else "token"
    choosing = [p for p in prompts if f"highlighted {piece}" in p]
    assert choosing, prompts
    for text in prompts:
        # not a finger's words alone ("tap its token") nor a sighted player's ("glowing")
        assert "glowing" not in text and "tap its" not in text, text
    for text in choosing:
        if "arrow keys move among them" in text:
            continue  # a value, then a token: chips and tokens both take clicks and taps
        assert "click or tap it" in text and "arrow keys and Enter" in text, text
        # a touch-only device leaves the keyboard's part out and still reads a sentence
        touch = KEYBOARD_PART.sub("", panel.prompt_html(text))
        assert "Enter" not in touch and touch.endswith(("click or tap it.", "tap it.")), touch


def test_a_roll_just_announced_is_not_said_again_as_you_rolled() -> None:
    for rules in ("courtyard", "royal", "gilgiti"):
        plain = _prompts(rules, 3)
        after = _prompts(rules, 3, after_roll=True)
        assert any(re.match(r"You (rolled|threw) ", p) for p in plain), rules
        assert not [p for p in after if p.startswith("You ")], rules
        # what is left is a whole sentence from its first word
        assert all(p[:1].isupper() for p in after), [p for p in after if not p[:1].isupper()]
    # the only move: nothing about a tap, which a keyboard cannot do in its short pause
    auto = [p for p in _prompts("courtyard", 3, after_roll=True) if "by itself" in p]
    assert auto and set(auto) == {"The only move plays by itself."}


def test_a_start_square_is_called_the_start_and_later_squares_count_past_it() -> None:
    # square 0 is red's start, 13 green's (the notation's numbers; spoken from 1)
    assert cross.describe_position("red", 0) == "on square 1 (Red's start)"
    assert cross.describe_position("red", 1) == "on square 2 (1 past Red's start)"
    assert cross.describe_position("green", 13) == "on square 14 (Green's start)"
    assert cross.describe_position("green", 0) == "on square 1 (39 past Green's start)"
    assert royal_scene.describe_place("red", 13) == "on space 14, a crown (13 past Red's start)"
    assert royal_scene.describe_place("red", 0) == "on space 1, a crown (Red's start)"


def _gilgiti_move(tokens: dict[str, list[object]], rolled: list[int]) -> object:
    everyone = ("red", "green")
    tokens = {c: tokens.get(c, ["yard"] * 4) for c in everyone}
    return parse_position(json.dumps({
        "format": "courtyard-ludo/position", "version": 1, "rules": "gilgiti",
        "seats": list(everyone), "teams": False, "turn": "red", "phase": "move",
        "rolled": rolled, "unplayed": sorted(rolled), "tokens": tokens, "turn_start": tokens,
        "resting": [], "timeouts": {c: 0 for c in everyone}, "quit": None, "winners": [],
        "rng": "00000000000000aa"}))


def test_a_gilgiti_tokens_label_names_it_once_with_its_colour_capitalised() -> None:
    from ludo import choices, scene

    # red token 1 on red's start may move 2 onto green's lone token 1: a capture
    state = _gilgiti_move({"red": [0, "yard", "yard", "yard"],
                           "green": [2, "yard", "yard", "yard"]}, [2])
    options = choices(state)
    sc: Scene = scene(state)
    svg = view.pieces_svg(sc, options)
    label = re.search(r'id="tok-red-0"[^>]*aria-label="([^"]*)"', svg)
    assert label is not None
    text = label.group(1).replace("&#x27;", "'")
    assert text == ("Red token 1, on square 1 (Red's start), safe; moves 2 to square 3 "
                    "(2 past Red's start), capturing Green token 1"), text
    assert not re.search(r"\b(red|green|yellow|blue)\b", text)  # colours as names are capitals


def test_a_token_on_one_of_the_eight_safe_squares_says_so_in_its_name() -> None:
    """Seed 000, rule 6 ("Eight safe squares ... Opponents can share them without being
    captured") and seed 003's stars ("safe ground"): the board shows a star or a start's
    colour, but a token's name, all a screen reader says of it, gave only the square's number
    ("Green token 1, on square 9 (47 past Green's start)"): a player who cannot see the board
    had to know the safe squares by number to tell which tokens can be captured. (A Gilgiti
    move's label that ends on a star said nothing of it either.)"""
    from ludo import choices, scene

    everyone = ("red", "green", "yellow", "blue")
    tokens = {c: ["yard"] * 4 for c in everyone}
    tokens["red"] = [0, 8, 13, 9]
    tokens["green"] = [21, "yard", "yard", "yard"]
    state = parse_position(json.dumps({
        "format": "courtyard-ludo/position", "version": 2, "rules": "courtyard",
        "seats": list(everyone), "turn": "green", "phase": "roll", "die": None, "sixes": 0,
        "tokens": tokens, "unlocked": [], "timeouts": {c: 0 for c in everyone}, "out": {},
        "winner": None, "rng": "00000000000000aa"}))
    labels = {p.id: p.label for s in scene(state).stacks for p in s.pieces}
    assert labels["red-0"] == "Red token 1, on square 1 (Red's start), safe"
    assert labels["red-1"] == "Red token 2, on square 9 (8 past Red's start), a star (safe)"
    assert labels["red-2"] == \
        "Red token 3, on square 14 (13 past Red's start), Green's start (safe)"
    assert labels["red-3"] == "Red token 4, on square 10 (9 past Red's start)"  # ordinary
    assert labels["green-0"] == "Green token 1, on square 22 (8 past Green's start), a star (safe)"
    assert labels["green-1"] == "Green token 2, in the yard"
    # Gilgiti calls a start an entry star
    gilgiti = _gilgiti_move({"red": [13, 47, 5, "yard"], "green": ["yard"] * 4}, [2])
    labels = {p.id: p.label for s in scene(gilgiti).stacks for p in s.pieces}
    assert labels["red-0"].endswith("), Green's entry star (safe)")
    assert labels["red-1"].endswith("), a star (safe)")
    assert "safe" not in labels["red-2"]
    # and a move that ends on a star says so, as Courtyard's do ("…, a star")
    moves = {c.label for c in choices(gilgiti)}
    assert "moves 2 to square 50 (49 past Red's start)" in moves  # from the star: ordinary
    assert "moves 2 to square 16 (15 past Red's start)" in moves
    star = _gilgiti_move({"red": [6, "yard", "yard", "yard"]}, [2])
    assert {c.label for c in choices(star)} == {
        "moves 2 to square 9 (8 past Red's start), a star (safe)"}


def _form(seats: tuple[str, ...], timer: bool = True, locked: bool = False) -> dict[str, object]:
    count = len(seats) if 2 <= len(seats) <= 4 else None  # the form's radios: 2, 3 and 4
    return {"seats": list(seats), "players": count, "timer": timer or locked,
            "timer_locked": locked}


def test_the_home_form_says_what_it_changed_by_itself_and_not_what_the_person_did() -> None:
    from app.setup import changes_told

    three = ("red", "green", "yellow")
    # a seat unticked: the number of players follows, and is said; the seat is not
    assert changes_told(_form(three), _form(three[:2]), "seats") == "Number of players: 2."
    assert changes_told(_form(three[:2]), _form(three[:1]), "seats") == \
        "Number of players: none chosen."
    # a number of players chosen: the colours follow
    assert changes_told(_form(three[:2]), _form(three), "players") == \
        "Colours playing: Red, Green and Yellow."
    # a rule set whose default is no timer (Gilgiti) unticks it
    assert changes_told(_form(three), _form(three, timer=False), "rules") == "Turn timer off."
    # an online seat ticks and locks the timer; another kind lets it go again
    assert changes_told(_form(three, timer=False), _form(three, locked=True), "kind-green") == \
        "Turn timer on: online rooms always run it."
    assert changes_told(_form(three, locked=True), _form(three), "kind-green") == \
        "Turn timer can be switched off again."
    # a rule set's option appears with a fourth seat, or goes with it (Gilgiti's Teams)
    teams = [("Teams: Red + Yellow vs Green + Blue", True)]
    four = three + ("blue",)
    assert changes_told(_form(three), dict(_form(four), options=teams), "seats") == \
        "Number of players: 4. Teams option offered, on."
    assert changes_told(dict(_form(four), options=teams), _form(three), "seats") == \
        "Number of players: 3. Teams option no longer offered."
    # the person's own change, or no change, says nothing
    assert changes_told(_form(three), _form(three, timer=False), "timer") == ""
    assert changes_told(_form(three), _form(three), "name-red") == ""


def test_each_rule_set_has_its_own_heading_on_the_rules_screen() -> None:
    from app.setup import rules_pages_html
    from ludo import RULESETS

    html = rules_pages_html()
    # h3s side by side under the screen's own h2 ("House rules", in index.html), each naming
    # its section; no rule set's heading is the screen's
    assert "<h2" not in html
    assert re.findall(r'<h3 id="rules-([a-z]+)">([^<]*)</h3>', html) == [
        (r.name, r.help.heading or r.title) for r in RULESETS.values()]
    # the seeds' own names and labels: Gilgiti's page is "Gilgiti Ludo", "How to play";
    # Courtyard's house rules are "A quick refresher"
    assert '<h3 id="rules-gilgiti">Gilgiti Ludo</h3><p class="kicker">How to play</p>' in html
    assert '<h3 id="rules-courtyard">Courtyard</h3><p class="kicker">A quick refresher</p>' \
        in html
    assert html.count("aria-labelledby=") == len(RULESETS)


@pytest.mark.parametrize("rules", ["courtyard", "classic", "royal", "gilgiti"])
def test_the_rules_summary_speaks_of_the_clock_only_when_it_runs(rules: str) -> None:
    """"Moves & details": with the clock off, no clock line and "Turn timer off"; with it on,
    one line that starts "With the turn clock" (Royal's used to stay when the clock was off, and
    Gilgiti's was missing: seed review 3)."""
    seats = ("red", "green", "yellow", "blue")
    for timer in (True, False):
        table = Table.new(rules, seats, 3, now=0.0, timer=timer)
        items = re.findall(r"<li>(.*?)</li>", panel.rules_html(table, table.scene()))
        clock = [line for line in items if "seconds" in line or "timeout" in line]
        if timer:
            assert len(clock) == 1 and clock[0].startswith("With the turn clock"), items
            assert "Turn timer off for this game." not in items
        else:
            assert clock == [] and items[-1] == "Turn timer off for this game.", items


@pytest.mark.parametrize(("rules", "share"), [("courtyard", "each roll and its move together"),
                                              ("classic", "each roll and its move together"),
                                              ("royal", "each throw and its move together")])
def test_the_clock_line_says_a_roll_and_its_move_share_the_time(rules: str, share: str) -> None:
    """Seed 000, rule 10: "Each roll and its move share 30 seconds." The summary said "30
    seconds per roll", which reads as 30 s to roll and 30 more to move (seed review 8)."""
    table = Table.new(rules, ("red", "green"), 3, now=0.0)
    items = re.findall(r"<li>(.*?)</li>", panel.rules_html(table, table.scene()))
    clock = [line for line in items if line.startswith("With the turn clock")]
    assert clock == [f"With the turn clock: 30 seconds for {share}; the fifth timeout removes "
                     "a seat."]


@pytest.mark.parametrize("rules", ["courtyard", "classic", "royal", "gilgiti"])
def test_the_rules_summary_names_the_clock_this_table_runs(rules: str) -> None:
    """A clock set by the address (`?turn_seconds=`, online the host's, which a guest's table
    takes from the host's sync) is the one the summary names, not the usual 30 seconds."""
    seats = ("red", "green")
    for seconds, said in ((12.0, "12 seconds"), (1.0, "1 second"), (30.0, "30 seconds")):
        table = Table.new(rules, seats, 3, now=0.0, turn_seconds=seconds)
        items = re.findall(r"<li>(.*?)</li>", panel.rules_html(table, table.scene()))
        clock = [line for line in items if line.startswith("With the turn clock")]
        assert len(clock) == 1 and clock[0].startswith(f"With the turn clock: {said} "), clock
        if seconds == 30.0:
            assert "set to" not in clock[0]
        else:
            assert clock[0].endswith(f"This table&#x27;s clock is set to {said}, not the usual "
                                     "30 seconds.")


def test_the_rules_summaries_name_every_option_the_rules_give() -> None:
    """Royal's two crowns offer three things, and a rider is never forced off; a Gilgiti team's
    finished partner rests, then plays for the partner (seed review 3)."""
    royal = " ".join(Table.new("royal", ("red", "green"), 3, now=0.0).scene().summary)
    assert "or play the crown as a move" in royal and "never forced" in royal
    teams = Table.new("gilgiti", ("red", "green", "yellow", "blue"), 3, now=0.0,
                      options={"teams": True}).scene().summary
    assert "A finished partner rests one turn, then rolls and plays for their partner." in teams


def test_the_online_timer_note_promises_only_what_the_clock_does() -> None:
    """The setup form's note under the locked timer: the clock keeps a match going past a
    guest's lost connection, but the host's page runs that clock, so the host's lost connection
    pauses the match (docs/online.md, "A host that does not come back"). The note said that "a
    lost connection cannot stop the match", whoever's."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "index.html").read_text(encoding="utf-8")
    note = re.search(r'<p class="muted" id="timer-note" hidden>(.*?)</p>', page)
    assert note is not None
    assert note.group(1) == ("Online rooms always run the clock, so a guest’s lost connection "
                             "cannot stop the match.")


def _first_notices(rules: str, seeds: range) -> dict[str, panel.Notice]:
    """The first notice of each kind a game of ``rules`` (two people, the first legal move
    each time) shows over the board: ``quiet`` news, and a ``warning``."""
    found: dict[str, panel.Notice] = {}
    for seed in seeds:
        table = Table.new(rules, ("red", "yellow"), seed, now=0.0)
        for _ in range(600):
            if table.over or len(found) == 2:
                break
            seat = table.seat_to_act
            assert seat is not None
            events = table.submit(seat, Action("roll") if table.rolling
                                  else legal_actions(table.state)[0], 0.0)
            shown = panel.notice(table, events)
            if shown is not None:
                found.setdefault("quiet" if shown.quiet else "warning", shown)
    return found


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_a_roll_with_no_move_is_shown_over_the_board_as_news_in_every_rule_set(
        rules: str) -> None:
    """A roll with nothing to play passes the die at once, so its face is never seen: every
    rule set shows it over the board for a moment, quietly. Gilgiti, whose roll with nothing to
    play is a turn undone with no play made, showed nothing (seed review 5)."""
    quiet = _first_notices(rules, range(1, 4))["quiet"]
    assert quiet.ms < panel.NOTICE_MS, quiet
    assert re.search(r"no move|cannot|lost", quiet.text), quiet
    if rules == "gilgiti":
        assert quiet.text.endswith("the turn passes."), quiet


def test_a_gilgiti_turn_undone_after_a_play_is_a_warning() -> None:
    """What was played and then undone is a warning (red, the screen's 4 s), as before."""
    warnings = [n for seed in range(1, 30)
                if (n := _first_notices("gilgiti", range(seed, seed + 1)).get("warning"))]
    assert warnings, "no Gilgiti turn was undone after a play in 29 games"
    assert all(not n.quiet and n.ms == panel.NOTICE_MS for n in warnings)
    assert any("undone" in n.text or "back" in n.text for n in warnings), warnings


def test_the_tables_seat_list_is_named_with_the_seeds_words() -> None:
    """Seed 003 (Gilgiti) names the seats around the board "Seats at the board"; the table's
    seat list was named "Players" to a screen reader (the setup form's fieldset keeps that
    word: there it is the number of players and who plays)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "index.html").read_text(encoding="utf-8")
    assert '<ul id="seats" class="seats" aria-label="Seats at the board"></ul>' in page
