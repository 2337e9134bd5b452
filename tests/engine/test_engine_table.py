"""House rules 10 and 11: timeouts, elimination, quitting (and "Next").

The 30-second clock itself lives in the controller (py/app, tested in tests/e2e);
these tests pin what a ``timeout`` or ``quit`` action does to a position.
"""

from __future__ import annotations

import pytest
from enginekit import COLOURS, js, kinds, load, of, play, toks

from ludo import (
    IllegalAction,
    active_seats,
    apply,
    legal_actions,
    move,
    next_player,
    quit_seat,
    resolve,
    roll,
    rules_for,
    timeout,
)
from ludo import rng as ludo_rng

Y = "yard"

# --- Rule 10: timeouts ------------------------------------------------------------------------


def test_rule10_timeout_before_the_roll_rolls_and_plays_a_legal_move():
    state, events = apply(load(tokens={"red": [10, Y, Y, Y]}), timeout(4))
    assert kinds(events) == ["timeout", "rolled", "moved", "turn"]
    # a timeout is shown over the board (`notice`): the player may not have seen it coming
    assert events[0] == {"type": "timeout", "seat": "red", "count": 1, "notice": True}
    assert toks(state, "red") == [14, Y, Y, Y]
    assert js(state)["timeouts"]["red"] == 1 and state.turn == "green"


def test_rule10_timeout_before_the_roll_uses_the_position_rng_like_a_roll():
    state = load(tokens={"red": [10, 20, 30, 40]}, rng="0000000000000abc")
    resolved = resolve(state, timeout())
    _, value = ludo_rng.roll_die(0xABC)
    assert resolved == timeout(value)
    assert apply(state, timeout()) == apply(state, resolved)
    assert apply(state, timeout())[0].rng == apply(state, roll())[0].rng


def test_rule10_timeout_after_the_roll_plays_that_die():
    state, _ = play(load(tokens={"red": [10, 20, Y, Y]}), roll(3))
    after, events = apply(state, timeout())
    assert kinds(events) == ["timeout", "moved", "turn"]  # no new roll
    assert toks(after, "red") == [10, 23, Y, Y]


def test_rule10_timeout_after_the_roll_takes_no_die_value():
    state, _ = play(load(tokens={"red": [10, 20, Y, Y]}), roll(3))
    with pytest.raises(IllegalAction, match="give no value"):
        apply(state, timeout(5))


def test_rule10_timeout_with_no_legal_move_skips_the_roll():
    state, events = apply(load(), timeout(3))
    assert kinds(events) == ["timeout", "rolled", "no_move", "turn"]
    assert state.turn == "green" and js(state)["timeouts"]["red"] == 1


def test_rule10_timeout_rolling_a_six_with_no_move_keeps_the_extra_roll():
    start = load(tokens={"red": ["home", "home", "red-lane-2", "red-lane-1"]}, unlocked=["red"])
    state, events = apply(start, timeout(6))
    assert kinds(events) == ["timeout", "rolled", "extra_roll"]
    assert state.turn == "red" and state.phase == "roll"


def test_rule10_timeout_move_earns_extra_rolls_like_any_move():
    state, events = apply(load(tokens={"red": [10, Y, Y, Y]}), timeout(6))
    assert of(events, "extra_roll") and state.turn == "red" and state.sixes == 1


def test_rule10_timeout_third_six_is_discarded():
    state = load(tokens={"red": [10, Y, Y, Y]})
    state, _ = play(state, roll(6), move(0), roll(6), move(0))
    state, events = apply(state, timeout(6))
    assert kinds(events) == ["timeout", "rolled", "three_sixes", "turn"]


# the documented policy (CourtyardRules.timeout_choice): home, then capture, then entering,
# then the token furthest along; ties go to the lowest token number
@pytest.mark.parametrize("name,colour,tokens,others,die,chosen", [
    ("home beats capture", "red", ["red-lane-3", 15, Y, Y], {"green": [18, Y, Y, Y]}, 3, 0),
    ("home beats capture (order)", "red", [15, "red-lane-3", Y, Y], {"green": [18, Y, Y, Y]},
     3, 1),
    ("capture beats entering and progress", "red", [40, Y, 17, Y], {"green": [18, Y, Y, Y]},
     1, 2),
    ("entering beats progress", "red", [40, Y, 20, Y], {}, 6, 1),
    ("furthest along", "red", [10, 30, 20, Y], {}, 4, 1),
    ("furthest along from its own start", "green", [10, 20, Y, Y], {}, 4, 0),
    ("lane counts as further than the track", "red", ["red-lane-1", 45, Y, Y], {}, 2, 0),
    # red's entrance is 50; a token on 51 has passed it and has a whole lap to go
    ("past its entrance is a lap behind the lane", "red",
     [51, "red-lane-1", "home", "home"], {}, 3, 1),
    ("past its entrance is behind the track too", "red", [45, 51, Y, "home"], {}, 2, 0),
    ("its entrance is the last track square", "red", [49, 50, "home", "home"], {}, 2, 1),
    ("ties go to the lowest token", "red", [Y, 20, 20, Y], {}, 3, 1),
    ("home ties go to the lowest token", "red", [20, "red-lane-2", "red-lane-2", Y], {}, 4, 1),
    ("safe square is no capture", "red", [40, 5, Y, Y], {"green": [8, Y, Y, Y]}, 3, 0),
])
def test_rule10_timeout_move_policy(name, colour, tokens, others, die, chosen):
    data_tokens = {colour: tokens, **others}
    state, _ = play(load(turn=colour, tokens=data_tokens, unlocked=[colour]), roll(die))
    assert state.phase == "move", name
    rules = rules_for(state)
    assert rules.timeout_choice(state, die) == chosen, name
    after, events = apply(state, timeout())
    moved = of(events, "moved") + of(events, "entered")
    assert [e["token"] for e in moved] == [chosen], name


def test_rule10_timeouts_accumulate_per_seat_throughout_the_match():
    state = load(seats=["red", "yellow"])
    for _ in range(3):  # red, yellow, red, yellow, ... each time out with a useless 2
        state, _ = apply(state, timeout(2))
    assert js(state)["timeouts"] == {"red": 2, "yellow": 1}
    state, _ = play(state, roll(2), timeout(3))  # yellow rolls itself; red times out again
    assert js(state)["timeouts"] == {"red": 3, "yellow": 1}


def test_rule10_timeouts_survive_the_notation():
    state = load(timeouts={"red": 4, "green": 2})
    assert js(state)["timeouts"] == {"red": 4, "green": 2, "yellow": 0, "blue": 0}


def test_rule10_fifth_timeout_removes_the_tokens_before_any_roll():
    start = load(tokens={"red": [10, 20, Y, Y]}, timeouts={"red": 4})
    state, events = apply(start, timeout())
    assert kinds(events) == ["timeout", "eliminated", "turn"]
    assert events[0] == {"type": "timeout", "seat": "red", "count": 5, "notice": True}
    assert events[1] == {"type": "eliminated", "seat": "red", "notice": True}
    data = js(state)
    assert data["tokens"]["red"] == [] and data["out"] == {"red": "eliminated"}
    assert data["timeouts"]["red"] == 5
    assert state.rng == start.rng  # no die was drawn
    assert resolve(start, timeout()) == timeout()  # nothing to roll for the record either
    assert state.turn == "green"


def test_rule10_fifth_timeout_removes_the_tokens_before_the_move():
    start, _ = play(load(tokens={"red": [10, 20, Y, Y]}, timeouts={"red": 4}), roll(3))
    state, events = apply(start, timeout())
    assert kinds(events) == ["timeout", "eliminated", "turn"]
    assert toks(state, "red") == [] and state.die is None and state.phase == "roll"


def test_rule10_the_others_continue_without_the_eliminated_seat():
    state, _ = apply(load(turn="red", timeouts={"red": 4}), timeout())
    assert active_seats(state) == ("green", "yellow", "blue")
    order = []
    for _ in range(4):
        order.append(state.turn)
        state, _ = apply(state, roll(2))
    assert order == ["green", "yellow", "blue", "green"]
    with pytest.raises(IllegalAction, match="already left"):
        apply(state, quit_seat("red"))


def test_rule10_eliminating_the_second_last_seat_ends_the_game():
    start = load(seats=["red", "yellow"], turn="yellow", timeouts={"yellow": 4})
    state, events = apply(start, timeout(6))
    assert kinds(events) == ["timeout", "eliminated", "won"]
    assert state.phase == "over" and state.winner == "red"


def test_rule10_a_disconnected_seat_is_eliminated_only_by_timeouts():
    # nothing happens to a silent seat except its turns timing out, five in total
    state = load(seats=["red", "yellow"], tokens={"yellow": [30, Y, Y, Y]})
    for expected in range(1, 6):
        state, _ = apply(state, roll(2))  # red plays
        state, events = apply(state, timeout(2))  # yellow's clock runs out
        assert events[0]["count"] == expected
    assert state.phase == "over" and state.winner == "red"


def test_rule10_next_player_after_the_current_turn_and_any_extra_rolls():
    state, _ = play(load(tokens={"red": [10, Y, Y, Y]}), roll(6))
    assert next_player(state) == "green"
    state, _ = apply(state, move(0))
    assert state.turn == "red" and next_player(state) == "green"
    state, _ = play(state, roll(2), move(0))
    assert state.turn == "green"


# --- Rule 11: quitting ---------------------------------------------------------------------------


def test_rule11_quit_removes_the_tokens_permanently():
    start = load(tokens={"green": [14, 20, "yard", "yard"]})
    state, events = apply(start, quit_seat("green"))
    assert events == [{"type": "quit", "seat": "green"}]
    data = js(state)
    assert data["tokens"]["green"] == [] and data["out"] == {"green": "quit"}
    assert state.turn == "red" and state.phase == "roll"  # red's turn is untouched


def test_rule11_quitting_on_your_turn_passes_the_die():
    state, _ = play(load(tokens={"red": [10, Y, Y, Y]}), roll(3))
    state, events = apply(state, quit_seat("red"))
    assert kinds(events) == ["quit", "turn"]
    assert state.turn == "green" and state.phase == "roll" and state.die is None


def test_rule11_quit_is_allowed_in_the_middle_of_anothers_move():
    state, _ = play(load(tokens={"red": [10, Y, Y, Y]}), roll(3))
    after, _ = apply(state, quit_seat("blue"))
    assert after.turn == "red" and after.phase == "move" and after.die == 3
    assert legal_actions(after) == legal_actions(state)


def test_rule11_the_others_continue_in_order_skipping_the_seat():
    state, _ = apply(load(turn="red"), quit_seat("green"))
    order = []
    for _ in range(4):
        order.append(state.turn)
        state, _ = apply(state, roll(2))
    assert order == ["red", "yellow", "blue", "red"]
    assert next_player(load(turn="red", out={"green": "quit"})) == "yellow"


def test_rule11_you_cannot_rejoin():
    state, _ = apply(load(), quit_seat("green"))
    with pytest.raises(IllegalAction, match="already left"):
        apply(state, quit_seat("green"))
    # no position may give a quit seat tokens or the turn
    from ludo import NotationError
    with pytest.raises(NotationError, match=r"^tokens\.green"):
        load(out={"green": "quit"}, tokens={"green": ["yard"] * 4})
    with pytest.raises(NotationError, match="^turn: "):
        load(out={"green": "quit"}, turn="green")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rule11_the_last_player_remaining_wins(players):
    seats = list(COLOURS[:players])
    state = load(seats=seats, turn=seats[0])
    for leaving in seats[1:]:
        assert state.phase == "roll"
        state, events = apply(state, quit_seat(leaving))
    assert events[-1] == {"type": "won", "seat": seats[0]}
    assert state.phase == "over" and state.winner == seats[0]
    with pytest.raises(IllegalAction, match="over"):
        apply(state, quit_seat(seats[0]))


def test_rule11_the_player_to_act_quitting_last_leaves_the_other_the_winner():
    state, events = apply(load(seats=["red", "yellow"], turn="red"), quit_seat("red"))
    assert kinds(events) == ["quit", "won"] and state.winner == "yellow"


def test_quit_and_timeouts_are_table_actions_not_listed_as_legal():
    state = load()
    assert legal_actions(state) == [roll()]
