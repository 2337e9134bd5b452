"""What Royal shows and says: the board's crown and feather spaces, stacks and doubles, the die,
choices as clicks and buttons, a sentence for every event, the rules page."""

from __future__ import annotations

import random

from test_royal_rules import CARRYING, load, throw

from ludo import Action, legal_actions
from ludo.engine import board, choices, describe, rules_for, scene
from ludo.rules.base import Board, Scene

R = rules_for("royal")


def test_the_board_marks_crown_and_feather_spaces_and_the_home_crowns():
    cells = {c.id: c for c in board("royal").cells}
    for square in ("0", "13", "26", "39"):
        assert cells[square].marks == ("crown",) and "crown space" in cells[square].label
    for square in ("8", "21", "34", "47"):
        cell = cells[square]
        assert cell.marks == ("feather",) and cell.kind == "track"  # not a safe square here
        assert cell.label == f"space {int(square) + 1}, a feather space"  # spoken from 1
    for colour in ("red", "green", "yellow", "blue"):
        assert cells[f"{colour}-home"].marks == ("crown",)
        assert cells[f"{colour}-home"].label == f"{colour}'s home crown"
    assert not any("star" in c.marks or c.kind == "safe" for c in cells.values())
    assert len(cells) == 52 + 20 + 4 + 16


def test_an_empty_seat_s_balk_is_drawn_muted():
    state = R.new_game(("red", "yellow"), 1)
    muted = {r.colour for r in scene(state).board.regions if r.kind == "yard" and r.muted}
    assert muted == {"green", "blue"}


def test_the_scene_shows_the_crown_and_feather_faces():
    state = R.new_game(("red", "yellow"), 1)
    rolled, _ = throw(state, "crown")
    view = scene(rolled)
    assert isinstance(view, Scene) and isinstance(view.board, Board)
    (die,) = view.dice
    assert (die.value, die.label, die.state) == ("crown", "crown", "rolled")
    feather, _ = throw(load(men={"red": [2, "balk", "balk", "balk"]}), "feather")
    assert scene(feather).dice[0].label == "feather"
    number, _ = throw(load(men={"red": [2, "balk", "balk", "balk"]}), 3)
    assert scene(number).dice[0].value == 3
    assert scene(state).dice == ()  # nothing to play before the throw


def test_the_scene_tells_turn_next_seats_and_rules():
    state = load(**CARRYING)
    view = scene(state)
    assert view.turn == "red" and view.phase == "roll" and view.next == "green"
    facts = {s.colour: s.facts for s in view.seats}
    assert facts["red"][0] == "0/4 home" and "carrying a double" in facts["red"]
    assert "needs a crown" in facts["yellow"]
    assert any("feather" in line for line in view.summary)


def test_choices_are_the_legal_actions_with_pieces_and_targets():
    rnd = random.Random(2)
    for game in range(6):
        state = R.new_game(("red", "green", "yellow", "blue"), game)
        while state.phase != "over":
            found = choices(state)
            assert [c.action for c in found] == legal_actions(state)
            for c in found:
                assert c.label
                if c.kind in ("enter", "move", "carry", "off"):
                    assert c.pieces and c.pieces[0] == f"{state.turn}-{c.action.token}"
                    assert c.target is not None
                else:
                    assert c.pieces == () and c.target is None  # throw and the buttons
            state = R.advance(state, rnd.choice(legal_actions(state)))
        assert choices(state) == []


def test_a_move_choice_targets_the_cell_it_ends_on():
    state, _ = throw(load(men={"red": [49, "balk", "balk", "balk"]}), 4)
    (choice,) = choices(state)
    assert choice.target == "red-lane-3"
    assert choice.label == "moves to space 3 of its own home column"
    home, _ = throw(load(men={"red": ["red-lane-2", "balk", "balk", "balk"]}), "crown")
    targets = {c.action.token: c.target for c in choices(home)}
    assert targets[0] == "red-home" and targets[1] == "0"


def test_every_event_of_random_games_has_a_sentence():
    rnd = random.Random(7)
    seen = set()
    for game in range(40):
        state = R.new_game(("red", "green", "yellow", "blue"), game)
        while state.phase != "over":
            action = rnd.choice(legal_actions(state))
            if rnd.random() < 0.01:
                action = Action("timeout")
            state, events = R.apply(state, action)
            for event in events:
                text = describe(state, event, {"red": "Ann"})
                assert text and text.endswith((".", "!")) and "\n" not in text
                seen.add(event["type"])
    assert seen >= {"rolled", "entered", "moved", "doubled", "captured", "reversed",
                    "left_in_column", "reached_home", "extra_roll", "no_move", "turn", "won",
                    "timeout"}
    assert describe("royal", {"type": "rolled", "seat": "red", "value": "crown"},
                    {"red": "Ann"}) == "Ann (red) threw a crown."


def test_the_rules_page_and_leaving_are_royal_s_own():
    assert R.help.rules and all(title and text for title, text in R.help.rules)
    words = " ".join(text for _, text in R.help.rules)
    for phrase in ("crown", "feather", "double", "balk", "home crown", "two crowns"):
        assert phrase in words.lower()
    assert "men" in R.leave.text and not R.leave.ends_match
    assert R.timer_default and R.min_players == 2 and R.max_players == 4
    assert R.seating(2) == ("red", "yellow") and R.seating(3)[0] == "red"


def test_a_rider_moving_off_may_go_onto_his_home_crown_and_the_rules_say_so():
    # the engine lets a rider move off onto his home crown, where his finished men stand (the
    # home crown is not a space of two men): the rules page and the summary must not say
    # "onto an empty space only", which a player would read as "not home while men are there"
    state = load(men={"red": [45, "home", "home", 20], "green": [45, "balk", "balk", "balk"]},
                 doubles=[(("green", 0), ("red", 0))])
    after, _ = throw(state, "crown")
    (off,) = [c for c in choices(after) if c.kind == "off"]
    assert off.action == Action("move", token=0)
    assert off.label == "moves off alone to the home crown"
    doubles = dict(R.help.rules)["Doubles."]
    assert "only onto an empty space or your home crown" in doubles
    assert "onto an empty space or his home crown" in " ".join(R.scene(after).summary)


def test_the_home_column_rule_says_nobody_lands_on_you_not_that_nobody_else_lands_there():
    # a green man left waiting in red's column plays down it once green's other men are home:
    # he lands in red's column (on an empty space), but never on a red man there. So "nobody
    # else lands there" was untrue; "nobody can land on you there" is the rule
    state = load(turn="green", men={"green": ["red-lane-3", "home", "home", "home"],
                                    "red": ["red-lane-1", 5, "balk", "balk"]})
    down, _ = throw(state, 1)
    assert legal_actions(down) == [Action("move", token=0)]
    onto_red, events = throw(state, 2)
    assert [e["type"] for e in events][-2:] == ["no_move", "turn"]
    column = dict(R.help.rules)["Home colours."]
    assert "nobody else lands there" not in column
    assert "out of danger: nobody can land on you there" in column


def test_a_seat_s_men_left_in_other_columns_are_counted():
    # two men left waiting (they play down once the others are home, not waiting for each other)
    one = load(men={"green": ["red-lane-2", 20, "home", "home"], "red": [5, 6, "balk", "balk"]})
    two = load(men={"green": ["red-lane-2", "yellow-lane-1", "home", "home"],
                    "red": [5, 6, "balk", "balk"]})
    facts = {s.colour: s.facts for s in scene(one).seats}
    assert "a man in another home column" in facts["green"]
    facts = {s.colour: s.facts for s in scene(two).seats}
    assert "2 men in other home columns" in facts["green"]



def test_a_man_in_another_colours_home_column_names_that_colour_as_a_name() -> None:
    """A rider carried into another home column (seed 001: "he has to remain there") was named
    "Red man 1, on space 4 of green's home column": every other colour in a man's name, the
    log and the seat list is capitalised ("Green's home column" in the log's own sentence)."""
    from ludo.rules import royal_scene

    places = royal_scene._places()
    assert royal_scene.describe_place("red", places.LANE_BASE + 8) == \
        "on space 4 of Green's home column"
    assert royal_scene.describe_place("red", places.LANE_BASE + 1) == \
        "on space 2 of its own home column"
