"""The Classic preset: enter only on a 6, home lanes open from the start, the rest as Courtyard."""

from __future__ import annotations

import pytest
from enginekit import (
    COLOURS,
    SAFE,
    START,
    js,
    kinds,
    load,
    of,
    play,
    tokens_moving,
    toks,
    unreachable,
)

from ludo import NotationError, apply, move, new_game, quit_seat, roll, timeout

Y = "yard"


def classic(**kwargs):
    return load(rules="classic", **kwargs)


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5])
def test_classic_enters_only_on_a_six(value):
    state, events = play(classic(), roll(value))
    assert kinds(events) == ["rolled", "no_move", "turn"]


@pytest.mark.parametrize("colour", COLOURS)
def test_classic_a_six_enters_on_the_starting_square(colour):
    state, events = play(classic(turn=colour), roll(6), move(1))
    assert toks(state, colour) == [Y, START[colour], Y, Y]
    assert of(events, "extra_roll")[0]["reason"] == "six" and state.turn == colour


def test_classic_one_moves_a_track_token_but_does_not_enter():
    state, _ = play(classic(tokens={"red": [10, Y, Y, Y]}), roll(1))
    assert tokens_moving(state) == {0}


def test_classic_home_lanes_are_open_from_the_start():
    state = new_game("classic", COLOURS, seed=1)
    assert js(state)["unlocked"] == list(COLOURS)
    state, events = play(classic(tokens={"red": [48, Y, Y, Y]}), roll(5), move(0))
    assert toks(state, "red")[0] == "red-lane-3"


def test_classic_capture_does_not_report_an_unlock():
    state, events = play(classic(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}),
                         roll(4), move(0))
    assert "captured" in kinds(events) and "unlocked" not in kinds(events)
    assert of(events, "extra_roll")[0]["reason"] == "capture"


def test_classic_notation_requires_every_lane_open():
    with pytest.raises(NotationError, match="^unlocked: "):
        classic(unlocked=["red"])


@pytest.mark.parametrize(("colour", "past"), [("red", 51), ("green", 12), ("yellow", 25),
                                               ("blue", 38)])
def test_classic_notation_refuses_a_token_past_its_open_entrance(colour, past):
    # every lane is open from the start, so a token turns in at its entrance and never stands
    # on the square after it; read, it would have gone round another lap
    with pytest.raises(NotationError, match=rf"^tokens\.{colour}\[1\]: .*never stands on "
                                            rf"square {past}"):
        classic(turn=colour, tokens={colour: [Y, past, Y, Y]})
    assert toks(load(turn=colour, tokens={colour: [Y, past, Y, Y]}), colour)[1] == past


def test_classic_extra_rolls_six_capture_home_and_only_one_when_combined():
    state, events = play(classic(tokens={"red": [10, Y, Y, Y], "green": [16, Y, Y, Y]}),
                         roll(6), move(0))
    assert [e["reason"] for e in of(events, "extra_roll")] == ["six+capture"]
    state, events = play(classic(tokens={"red": ["red-lane-2", 20, Y, Y]}), roll(4), move(0))
    assert [e["reason"] for e in of(events, "extra_roll")] == ["home"]
    state, events = play(state, roll(3), move(1))
    assert state.turn == "green"


def test_classic_six_with_no_legal_move_earns_another_roll():
    state, events = play(classic(tokens={"red": ["home", "home", "home", "red-lane-3"]}),
                         roll(6))
    assert kinds(events) == ["rolled", "extra_roll"] and state.turn == "red"


def test_classic_three_sixes():
    state = classic(tokens={"red": [10, Y, Y, Y]})
    state, _ = play(state, roll(6), move(0), roll(6), move(1))
    state, events = apply(state, roll(6))
    assert kinds(events) == ["rolled", "three_sixes", "turn"]
    assert toks(state, "red") == [16, 0, Y, Y] and state.turn == "green"


@pytest.mark.parametrize("square", sorted(SAFE))
def test_classic_safe_squares(square):
    state, events = play(classic(tokens={"red": [(square - 2) % 52, Y, Y, Y],
                                         "blue": [square, Y, Y, Y]}), roll(2), move(0))
    assert "captured" not in kinds(events) and toks(state, "blue")[0] == square


def test_classic_capture_whatever_colours_and_never_block():
    # yellow and blue on one ordinary square cannot happen in play: built past the reader
    state, events = play(unreachable(rules="classic",
                                     tokens={"red": [10, Y, Y, Y], "green": [12, 12, Y, Y],
                                             "yellow": [15, Y, Y, Y], "blue": [15, Y, Y, Y]}),
                         roll(5), move(0))
    assert toks(state, "yellow")[0] == Y and toks(state, "blue")[0] == Y
    assert toks(state, "green")[:2] == [12, 12]


def test_classic_exact_finish_and_win():
    state, _ = play(classic(tokens={"red": ["red-lane-4", 20, "home", "home"]}), roll(3))
    assert tokens_moving(state) == {1}
    state, events = play(classic(tokens={"red": ["red-lane-4", "home", "home", "home"]}),
                         roll(2), move(0))
    assert state.winner == "red" and kinds(events)[-1] == "won"


def test_classic_timeouts_and_quit_work_as_in_courtyard():
    state, events = apply(classic(tokens={"red": [10, Y, Y, Y]}, timeouts={"red": 4}),
                          timeout())
    assert kinds(events) == ["timeout", "eliminated", "turn"]
    state, events = apply(state, quit_seat("blue"))
    assert js(state)["out"] == {"red": "eliminated", "blue": "quit"}


def test_classic_rules_page_says_everything_else_is_as_in_courtyard():
    # Classic's rules page is one paragraph: its two differences, then what it shares with
    # Courtyard, leaving the game included (it named neither the turn order nor quitting)
    from ludo import rules_for

    lead = rules_for("classic").help.lead
    assert "only on a 6" in lead and "open from the start" in lead
    for shared in ("turn order", "extra rolls", "a 6 with no move", "three sixes", "captures",
                   "safe squares", "exact finish", "turn clock", "quitting", "Home"):
        assert shared in lead, shared
