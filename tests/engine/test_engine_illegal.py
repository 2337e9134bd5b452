"""Illegal actions raise IllegalAction with a clear one-line message and change nothing.

Input will arrive from a network peer, so bad types are covered as well as bad moves.
"""

from __future__ import annotations

import pytest
from enginekit import assert_illegal, examples, load, play
from hypothesis import given, settings
from hypothesis import strategies as st

from ludo import Action, IllegalAction, LudoError, NotationError, apply, move, quit_seat, roll
from ludo import timeout as timeout_action

Y = "yard"


@pytest.fixture
def roll_phase():
    return load(tokens={"red": [10, Y, Y, Y], "green": [20, Y, Y, Y]})


@pytest.fixture
def move_phase():
    state, _ = play(load(tokens={"red": [10, "red-lane-4", "home", Y]}, unlocked=["red"]),
                    roll(3))
    return state


@pytest.fixture
def over():
    state, _ = play(load(seats=["red", "yellow"]), quit_seat("yellow"))
    assert state.phase == "over"
    return state


def test_move_during_the_roll_phase(roll_phase):
    assert_illegal(roll_phase, move(0), "must roll before moving")


def test_roll_during_the_move_phase(move_phase):
    assert_illegal(move_phase, roll(), "must move a token before rolling again")
    assert_illegal(move_phase, roll(4), "must move a token")


@pytest.mark.parametrize("token,match", [
    (1, "cannot move 3"),  # lane 4 + 3 overshoots home
    (2, "cannot move 3"),  # already home
    (3, "cannot move 3"),  # in the yard, a 3 does not enter
])
def test_moving_a_token_that_cannot_use_the_die(move_phase, token, match):
    assert_illegal(move_phase, move(token), match)


@pytest.mark.parametrize("token", ["x", -1, 4, 99, None, True, False, 1.0, [0], {"t": 0}, "0"])
def test_bad_token_values(move_phase, token):
    assert_illegal(move_phase, Action("move", token=token), "has no token")


@pytest.mark.parametrize("value", [7, 0, -1, "6", 6.0, True, [6], 2**70])
def test_bad_die_values(roll_phase, value):
    assert_illegal(roll_phase, Action("roll", value=value), "a die shows 1..6")
    assert_illegal(roll_phase, Action("timeout", value=value), "a die shows 1..6")


@pytest.mark.parametrize("value", [7, "x", 0, 2.5])
def test_bad_die_values_on_the_fifth_timeout(value):
    state = load(timeouts={"red": 4})
    assert_illegal(state, Action("timeout", value=value), "a die shows 1..6")


def test_timeout_with_a_value_after_the_roll(move_phase):
    assert_illegal(move_phase, timeout_action(2), "give no value")


@pytest.mark.parametrize("seat,match", [
    ("purple", "not a seat"), ("", "not a seat"), (None, "not a seat"), (3, "not a seat"),
    (["red"], "not a seat"), ({"seat": "red"}, "not a seat"), ("RED", "not a seat"),
])
def test_quit_of_an_unknown_seat(roll_phase, seat, match):
    assert_illegal(roll_phase, Action("quit", seat=seat), match)


def test_quit_of_a_colour_not_seated():
    state = load(seats=["red", "yellow"])
    assert_illegal(state, quit_seat("green"), '"green" is not a seat in this game')


def test_quit_of_a_seat_that_already_left():
    state = load(out={"blue": "quit", "green": "eliminated"})
    assert_illegal(state, quit_seat("blue"), "blue has already left")
    assert_illegal(state, quit_seat("green"), "green has already left")


@pytest.mark.parametrize("action", [roll(), roll(3), move(0), timeout_action(), timeout_action(2),
                                    quit_seat("red"), quit_seat("yellow"), Action("pass")])
def test_anything_after_game_over(over, action):
    assert_illegal(over, action, "the game is over")


@pytest.mark.parametrize("kind", ["pass", "", None, 3, "ROLL"])
def test_unknown_action_types(roll_phase, kind):
    assert_illegal(roll_phase, Action(kind), "unknown action type")


@pytest.mark.parametrize("thing", [{"type": "roll"}, ("roll",), "roll", None])
def test_things_that_are_not_actions(roll_phase, thing):
    assert_illegal(roll_phase, thing, "not an action")


def test_errors_are_value_errors_with_one_line_messages(move_phase):
    with pytest.raises(ValueError) as info:
        apply(move_phase, move(3))
    assert isinstance(info.value, IllegalAction) and isinstance(info.value, LudoError)
    assert str(info.value) == "red token 3 cannot move 3"


def test_network_json_actions_are_checked_before_they_reach_the_engine():
    bad = [
        ({"type": "move", "token": "x"}, "action.token"),
        ({"type": "move"}, "action.token"),
        ({"type": "roll", "value": 7}, "action.value"),
        ({"type": "roll", "value": "6"}, "action.value"),
        ({"type": "timeout", "value": 0}, "action.value"),
        ({"type": "quit"}, "action.seat"),
        ({"type": "quit", "seat": 3}, "action.seat"),
        ({"type": "roll", "token": 1}, "action.token"),
        ({"type": "move", "token": 1, "value": 3}, "action.value"),
        ({"type": "roll", "seat": "red"}, "action.seat"),
        ({"type": "fly"}, "action.type"),
        ({"type": "roll", "extra": 1}, "action"),
        (["roll"], "action"),
        ("roll", "action"),
    ]
    for data, field in bad:
        with pytest.raises(NotationError) as info:
            Action.from_json(data)
        assert info.value.field == field, data


def test_action_json_round_trip():
    for action in (roll(), roll(6), move(3), timeout_action(), timeout_action(1),
                   quit_seat("blue")):
        assert Action.from_json(action.to_json()) == action


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.floats(allow_nan=False)
    | st.text(max_size=8) | st.sampled_from(["red", "green", "roll", "move", "quit"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=3),
    max_leaves=6,
)


@settings(deadline=None, max_examples=examples(150))
@given(kind=st.sampled_from(["roll", "move", "timeout", "quit"]) | json_values,
       token=json_values, value=json_values, seat=json_values,
       phase=st.sampled_from(["roll", "move", "over"]))
def test_any_action_from_a_peer_is_applied_or_refused_cleanly(kind, token, value, seat, phase):
    states = {
        "roll": load(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}),
        "move": play(load(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}), roll(4))[0],
        "over": load(seats=["red", "yellow"], phase="over", winner="red",
                     out={"yellow": "quit"}),
    }
    state = states[phase]
    action = Action(kind, token, value, seat)
    try:
        after, events = apply(state, action)
    except IllegalAction as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert isinstance(events, list) and events
    # the JSON form of whatever was accepted is itself valid and gives the same result
    try:
        parsed = Action.from_json(action.to_json())
    except NotationError:
        # accepted directly but not valid notation: only unused fields may differ
        assert action.type in ("roll", "move", "timeout", "quit")
        return
    assert apply(state, parsed) == (after, events)
