"""Courtyard house rules 2-9, sentence by sentence (docs/rules/courtyard.md maps them).

Every position is built through the notation (enginekit.load); dice are given
explicitly with roll(value).  Red's squares: start 0, star 8, entrance 50.
Green: start 13, star 21, entrance 11.  Ordinary squares used: 10, 14, 16, ...
"""

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

from ludo import (
    NotationError,
    apply,
    auto_action,
    describe,
    distinct_moves,
    legal_actions,
    move,
    next_player,
    roll,
    scene,
)

Y = "yard"

# --- Rule 2: entering, moving, no split, compulsory move, auto-move ------------------------


@pytest.mark.parametrize("colour", COLOURS)
@pytest.mark.parametrize("value", [1, 6])
def test_rule02_one_or_six_places_a_token_on_its_starting_square(colour, value):
    state, _ = play(load(turn=colour), roll(value))
    assert state.phase == "move" and state.die == value
    assert tokens_moving(state) == {0, 1, 2, 3}
    state, events = apply(state, move(2))
    assert toks(state, colour) == [Y, Y, START[colour], Y]
    assert of(events, "entered") == [{"type": "entered", "seat": colour, "token": 2,
                                      "to": START[colour], "pieces": [f"{colour}-2"],
                                      "path": [f"{colour}-yard-2", str(START[colour])]}]


@pytest.mark.parametrize("value", [2, 3, 4, 5])
def test_rule02_other_values_do_not_enter(value):
    state, events = play(load(), roll(value))
    assert kinds(events) == ["rolled", "no_move", "turn"]
    assert state.turn == "green" and toks(state, "red") == [Y] * 4


@pytest.mark.parametrize("value", [1, 6])
def test_rule02_one_or_six_may_instead_move_a_token_on_the_track(value):
    state, _ = play(load(tokens={"red": [10, Y, Y, Y]}), roll(value))
    assert tokens_moving(state) == {0, 1, 2, 3}
    assert distinct_moves(state) == [move(0), move(1)]  # move the track token, or enter
    moved, events = apply(state, move(0))
    assert toks(moved, "red") == [10 + value, Y, Y, Y]
    assert of(events, "moved") == [{"type": "moved", "seat": "red", "token": 0,
                                    "from": 10, "to": 10 + value, "pieces": ["red-0"],
                                    "path": [str(10 + k) for k in range(value + 1)]}]


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_rule02_a_token_moves_by_the_full_roll(value):
    state, _ = play(load(tokens={"red": [10, 30, "yard", "yard"]}), roll(value))
    for token, square in ((0, 10), (1, 30)):
        after, _ = apply(state, move(token))
        assert toks(after, "red")[token] == square + value


def test_rule02_you_cannot_split_a_roll():
    # a 5 moves one token 5 squares; it cannot be shared out as 2 + 3
    state, _ = play(load(tokens={"red": [10, 20, Y, Y]}), roll(5))
    assert legal_actions(state) == [move(0), move(1)]
    after, events = apply(state, move(0))
    assert toks(after, "red") == [15, 20, Y, Y]
    assert after.turn == "green" and after.phase == "roll"  # the roll is used up
    assert len(of(events, "moved")) == 1


def test_rule02_a_legal_move_is_compulsory():
    state, events = play(load(tokens={"red": [10, Y, Y, Y]}), roll(4))
    assert state.phase == "move" and "no_move" not in kinds(events)
    assert {a.type for a in legal_actions(state)} == {"move"}  # no "pass" action exists
    with pytest.raises(Exception, match="must move a token"):
        apply(state, roll(3))


def test_rule02_exactly_one_legal_token_moves_automatically():
    state, _ = play(load(tokens={"red": [10, Y, Y, Y]}), roll(4))
    assert legal_actions(state) == [move(0)]
    assert auto_action(state) == move(0)


def test_rule02_several_tokens_that_can_move_mean_a_choice():
    state, _ = play(load(tokens={"red": [10, 20, Y, Y]}), roll(3))
    assert distinct_moves(state) == [move(0), move(1)]
    assert auto_action(state) is None
    a, _ = apply(state, move(0))
    b, _ = apply(state, move(1))
    assert toks(a, "red") != toks(b, "red")


def test_rule02_yard_tokens_entering_are_one_distinct_move():
    state, _ = play(load(tokens={"red": [Y, Y, "red-lane-5", "red-lane-4"]},
                         unlocked=["red"]), roll(6))
    assert tokens_moving(state) == {0, 1}
    assert distinct_moves(state) == [move(0)]
    assert auto_action(state) == move(0)


def test_rule02_tokens_on_one_square_moving_the_same_distance_are_one_distinct_move():
    state, _ = play(load(tokens={"red": [12, 12, 12, Y]}), roll(3))
    assert tokens_moving(state) == {0, 1, 2}
    assert distinct_moves(state) == [move(0)] and auto_action(state) == move(0)
    outcomes = {tuple(sorted(map(str, toks(apply(state, move(t))[0], "red")))) for t in (0, 1, 2)}
    assert len(outcomes) == 1  # whichever token goes, the position is the same


def test_rule02_a_stack_and_an_entry_are_two_distinct_moves():
    state, _ = play(load(tokens={"red": [12, 12, Y, Y]}), roll(1))
    assert distinct_moves(state) == [move(0), move(2)]
    assert auto_action(state) is None


def test_rule02_no_auto_move_outside_the_move_phase():
    assert distinct_moves(load()) == [] and auto_action(load()) is None


# --- Rule 3: extra rolls ---------------------------------------------------------------------


def _extra(events):
    return [e["reason"] for e in of(events, "extra_roll")]


def test_rule03_a_six_earns_an_extra_roll():
    state, events = play(load(tokens={"red": [10, Y, Y, Y]}), roll(6), move(0))
    assert _extra(events) == ["six"]
    assert state.turn == "red" and state.phase == "roll" and state.sixes == 1


def test_rule03_entering_with_a_six_earns_an_extra_roll_and_with_a_one_does_not():
    six, events = play(load(), roll(6), move(0))
    assert _extra(events) == ["six"] and six.turn == "red"
    one, events = play(load(), roll(1), move(0))
    assert _extra(events) == [] and one.turn == "green"


def test_rule03_a_capture_earns_an_extra_roll():
    state, events = play(load(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}),
                         roll(4), move(0))
    assert _extra(events) == ["capture"]
    assert state.turn == "red" and state.phase == "roll" and state.sixes == 0


def test_rule03_getting_a_token_home_earns_an_extra_roll():
    state, events = play(load(tokens={"red": ["red-lane-3", 20, Y, Y]}, unlocked=["red"]),
                         roll(3), move(0))
    assert of(events, "reached_home") == [{"type": "reached_home", "seat": "red", "token": 0}]
    assert _extra(events) == ["home"]
    assert state.turn == "red" and state.phase == "roll"


def test_rule03_a_plain_move_passes_the_die():
    state, events = play(load(tokens={"red": [10, Y, Y, Y]}), roll(3), move(0))
    assert _extra(events) == [] and of(events, "turn") == [{"type": "turn", "seat": "green"}]
    assert state.turn == "green"


def test_rule03_six_and_capture_still_give_just_one_extra_roll():
    start = load(tokens={"red": [10, Y, Y, Y], "green": [16, Y, Y, Y]})
    state, events = play(start, roll(6), move(0))
    assert _extra(events) == ["six+capture"]
    assert toks(state, "green") == [Y] * 4 and state.turn == "red"
    # one roll only: the next plain move passes the die
    state, events = play(state, roll(2), move(0))
    assert _extra(events) == [] and state.turn == "green"


def test_rule03_six_and_home_still_give_just_one_extra_roll():
    start = load(tokens={"red": [50, 20, Y, Y]}, unlocked=["red"])
    state, events = play(start, roll(6), move(0))
    assert toks(state, "red")[0] == "home" and _extra(events) == ["six+home"]
    state, events = play(state, roll(2), move(1))
    assert _extra(events) == [] and state.turn == "green"


def test_rule03_a_six_with_no_legal_move_also_earns_another_roll():
    start = load(tokens={"red": ["home", "home", "red-lane-2", "red-lane-1"]}, unlocked=["red"])
    state, events = play(start, roll(6))
    assert kinds(events) == ["rolled", "extra_roll"] and _extra(events) == ["six"]
    assert state.turn == "red" and state.phase == "roll" and state.sixes == 1
    assert toks(state, "red") == toks(start, "red")
    # the die is back at "Roll" at once, so the event says why, over the board (`notice`)
    assert events[1]["no_move"] is True and events[1]["notice"] is True
    assert describe(state, events[1], {}) == "Red has no move with the 6 and rolls again."


def test_a_roll_with_no_move_is_told_without_its_value_twice():
    # the log read "Red rolled a 2. Red cannot move with a 2." (a screen reader heard the
    # value twice); the no-move line follows the roll's, which names the value
    start = load(tokens={"red": ["home", "home", "home", "red-lane-5"]}, unlocked=["red"])
    state, events = play(start, roll(3))  # the exact roll home is a 1
    assert kinds(events) == ["rolled", "no_move", "turn"]
    told = [describe(state, event, {}) for event in events[:2]]
    assert told == ["Red rolled a 3.", "Red has no move."]


def test_rule03_an_extra_roll_after_a_move_is_not_a_notice():
    state, events = play(load(tokens={"red": [10, Y, Y, Y]}), roll(6), move(0))
    assert _extra(events) == ["six"]
    assert not any(e.get("notice") or e.get("no_move") for e in events)


def test_rule03_any_other_roll_with_no_legal_move_passes():
    start = load(tokens={"red": ["home", "home", "red-lane-2", "red-lane-3"]}, unlocked=["red"])
    state, events = play(start, roll(5))
    assert kinds(events) == ["rolled", "no_move", "turn"] and state.turn == "green"


# --- Rule 4: three sixes -----------------------------------------------------------------------


def test_rule04_third_six_is_discarded_and_the_die_passes_moves_from_first_two_stay():
    state = load(tokens={"red": [10, 30, Y, Y]})
    state, _ = play(state, roll(6), move(0))  # 10 -> 16
    state, _ = play(state, roll(6), move(1))  # 30 -> 36
    assert state.sixes == 2 and state.turn == "red"
    after, events = apply(state, roll(6))
    assert kinds(events) == ["rolled", "three_sixes", "turn"]
    assert events[1]["notice"] is True  # the 6 is never seen on the die: say it over the board
    assert toks(after, "red") == [16, 36, Y, Y]  # the first two sixes' moves stay
    assert after.turn == "green" and after.phase == "roll"
    assert after.sixes == 0 and after.die is None


def test_rule04_sixes_without_a_legal_move_count_towards_three():
    state = load(tokens={"red": ["home", "home", "red-lane-2", "red-lane-1"]}, unlocked=["red"])
    state, events = play(state, roll(6), roll(6), roll(6))
    assert kinds(events) == ["rolled", "extra_roll", "rolled", "extra_roll",
                             "rolled", "three_sixes", "turn"]
    assert state.turn == "green"


def test_rule04_a_non_six_breaks_the_sequence():
    # 6, then a capture with a 3 (an extra roll that is not a six), then 6, 6: no discard
    state = load(tokens={"red": [10, Y, Y, Y], "green": [19, Y, Y, Y]})
    state, _ = play(state, roll(6), move(0))  # 10 -> 16, sixes 1
    state, events = play(state, roll(3), move(0))  # 16 -> 19 captures
    assert _extra(events) == ["capture"] and state.sixes == 0
    state, _ = play(state, roll(6), move(0))  # 19 -> 25, sixes 1
    state, events = play(state, roll(6))
    assert "three_sixes" not in kinds(events) and state.phase == "move" and state.sixes == 2
    state, _ = apply(state, move(0))  # 25 -> 31
    state, events = apply(state, roll(6))
    assert "three_sixes" in kinds(events)  # now three in a row
    assert toks(state, "red") == [31, Y, Y, Y]


def test_rule04_a_new_turn_starts_a_new_sequence():
    state, _ = play(load(seats=["red", "yellow"], tokens={"red": [10, Y, Y, Y]}),
                    roll(6), move(0), roll(6), move(0), roll(2), move(0))
    assert state.turn == "yellow" and state.sixes == 0


# --- Rule 5: captures; tokens share and never block -------------------------------------------


def test_rule05_landing_sends_every_opponent_token_on_the_square_home_whatever_colour():
    # two colours never share an ordinary square in play (the second would have captured
    # the first), so this position is built past the reader; the engine still takes them all
    start = unreachable(tokens={"red": [10, Y, Y, Y], "green": [14, 14, 30, Y],
                         "blue": [14, Y, Y, Y], "yellow": [15, Y, Y, Y]})
    state, events = play(start, roll(4), move(0))
    assert toks(state, "green") == [Y, Y, 30, Y]
    assert toks(state, "blue") == [Y] * 4
    assert toks(state, "yellow") == [15, Y, Y, Y]
    assert of(events, "captured") == [{"type": "captured", "seat": "red", "square": 14,
                                       "victims": [["green", 0], ["green", 1], ["blue", 0]]}]
    assert toks(state, "red") == [14, Y, Y, Y]


def test_rule05_own_tokens_share_a_square_without_capture():
    state, events = play(load(tokens={"red": [10, 14, Y, Y]}), roll(4), move(0))
    assert toks(state, "red") == [14, 14, Y, Y]
    assert "captured" not in kinds(events) and state.turn == "green"


def test_rule05_tokens_never_block_movement():
    # two green tokens on 12 (a "block" in other Ludo rules) do not stop red passing
    start = load(tokens={"red": [10, Y, Y, Y], "green": [12, 12, Y, Y]})
    state, events = play(start, roll(6), move(0))
    assert toks(state, "red")[0] == 16 and toks(state, "green") == [12, 12, Y, Y]
    # nor landing on them: a pair is captured like a single token
    state, events = play(start, roll(2), move(0))
    assert toks(state, "green") == [Y] * 4
    assert of(events, "captured")[0]["victims"] == [["green", 0], ["green", 1]]


def test_rule05_captured_tokens_must_enter_again():
    state, _ = play(load(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}),
                    roll(4), move(0), roll(3), move(0))
    assert state.turn == "green"
    assert toks(state, "green") == [Y] * 4
    state, events = play(state, roll(3))
    assert kinds(events) == ["rolled", "no_move", "turn"]


def test_rule05_a_capture_of_several_tokens_is_told_with_their_count_and_owner():
    captured = {"type": "captured", "seat": "red", "square": 5,
                "victims": [["green", 0], ["green", 2]]}
    assert describe("courtyard", captured, {}) == \
        "Red captured 2 of Green's tokens: back to the yard."
    # a named player's colour is in brackets already: it read "Bo (green) (2 tokens)"
    assert describe("courtyard", captured, {"red": "Ada", "green": "Bo"}) == \
        "Ada (red) captured 2 of Bo (green)'s tokens: back to the yard."
    one = dict(captured, victims=[["green", 1]])
    assert describe("courtyard", one, {"green": "Bo"}) == \
        "Red captured Bo (green): back to the yard."


# --- Rule 6: eight safe squares ----------------------------------------------------------------


def test_rule06_the_eight_safe_squares():
    assert SAFE == {0, 13, 26, 39, 8, 21, 34, 47}


@pytest.mark.parametrize("square", sorted(SAFE))
def test_rule06_no_capture_on_a_safe_square(square):
    origin = (square - 3) % 52
    start = load(tokens={"red": [origin, Y, Y, Y], "green": [square, Y, Y, Y],
                         "yellow": [square, square, Y, Y]})
    state, events = play(start, roll(3), move(0))
    assert toks(state, "red")[0] == square
    assert toks(state, "green")[0] == square and toks(state, "yellow")[:2] == [square, square]
    assert "captured" not in kinds(events) and "unlocked" not in kinds(events)
    assert state.turn == "green"  # no capture, no extra roll


@pytest.mark.parametrize("value", [1, 6])
def test_rule06_entering_onto_an_occupied_start_square_captures_nobody(value):
    state, events = play(load(tokens={"blue": [0, 0, Y, Y]}), roll(value), move(0))
    assert toks(state, "red")[0] == 0 and toks(state, "blue")[:2] == [0, 0]
    assert "captured" not in kinds(events)


@pytest.mark.parametrize("square", [1, 9, 14, 20, 22, 33, 35, 46, 48, 50, 51])
def test_rule06_next_to_a_safe_square_is_ordinary(square):
    start = load(tokens={"red": [(square - 1) % 52, Y, Y, Y], "green": [square, Y, Y, Y]})
    _, events = play(start, roll(1), move(0))
    assert "captured" in kinds(events)


# --- Rule 7: capture to unlock home ------------------------------------------------------------


def test_rule07_no_token_enters_its_lane_before_the_first_capture():
    start = load(tokens={"red": [48, 49, 50, 46]})
    state, _ = play(start, roll(5))
    results = {t: toks(apply(state, move(t))[0], "red")[t] for t in range(4)}
    assert results == {0: 1, 1: 2, 2: 3, 3: 51}  # all keep lapping on the track


def test_rule07_the_first_capture_opens_the_lock():
    start = load(tokens={"red": [10, 48, Y, Y], "green": [14, Y, Y, Y]})
    state, events = play(start, roll(4), move(0))
    assert {"type": "unlocked", "seat": "red"} in events
    assert kinds(events).index("unlocked") > kinds(events).index("captured")
    assert js(state)["unlocked"] == ["red"]
    state, _ = play(state, roll(5), move(1))  # another token now goes in: 48 -> lane 3
    assert toks(state, "red")[1] == "red-lane-3"


def test_rule07_only_the_first_capture_reports_the_unlock():
    start = load(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}, unlocked=["red"])
    _, events = play(start, roll(4), move(0))
    assert "captured" in kinds(events) and "unlocked" not in kinds(events)


def test_rule07_the_unlock_is_per_player():
    start = load(tokens={"red": [10, Y, Y, Y], "green": [14, 9, Y, Y]})
    state, _ = play(start, roll(4), move(0))
    assert js(state)["unlocked"] == ["red"]  # green is still locked


def test_rule07_unlock_is_permanent_for_all_four_tokens_even_if_the_capturer_is_sent_back():
    state = load(tokens={"red": [10, 48, Y, Y], "green": [14, 12, Y, Y]})
    state, _ = play(state, roll(4), move(0))  # red 10 -> 14 captures green; unlocked
    state, _ = play(state, roll(2), move(0))  # red 14 -> 16; turn passes
    assert state.turn == "green"
    state, events = play(state, roll(4), move(1))  # green 12 -> 16 captures the capturer
    assert of(events, "captured")[0]["victims"] == [["red", 0]]
    state, _ = play(state, roll(3), move(1))  # green 16 -> 19; turn passes
    state, _ = play(state, roll(2), roll(2))  # yellow and blue cannot move
    assert state.turn == "red" and toks(state, "red")[0] == Y
    assert "red" in state.unlocked
    state, _ = play(state, roll(5), move(1))  # red's other token still goes home-ward
    assert toks(state, "red")[1] == "red-lane-3"


def test_rule07_each_seats_facts_say_whether_its_lane_is_locked():
    # the lock is drawn on the board, hidden from a screen reader: the seat's facts (the seat
    # list, Moves & details) say it in words, "lane locked" until the first capture
    def facts(state):
        return {s.colour: s.facts for s in scene(state).seats}

    start = load(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}, out={"blue": "quit"})
    before = facts(start)
    assert "lane locked" in before["red"] and "lane locked" in before["green"]
    assert "lane locked" not in before["blue"]  # a seat that has left has no lane to open
    state, _ = play(start, roll(4), move(0))  # red captures green: red's lane opens
    after = facts(state)
    assert "lane open" in after["red"] and "lane locked" not in after["red"]
    assert "lane locked" in after["green"]
    # nor has one that left after its lane opened: "quit", not "quit · lane open"
    gone = facts(load(tokens={"red": [10, Y, Y, Y], "green": [14, Y, Y, Y]}, out={"blue": "quit"},
                      unlocked=["red", "blue"]))
    assert gone["blue"] == ("quit",) and "lane open" in gone["red"]
    classic = facts(load(rules="classic"))
    assert not any("lane" in fact for seat in classic.values() for fact in seat)


def test_rule07_a_locked_lane_cannot_be_written_in_the_notation():
    with pytest.raises(NotationError, match=r"^tokens\.red\[1\]: .*locked"):
        load(tokens={"red": [10, "red-lane-1", Y, Y]})


# --- Rule 8: another lap is always possible ----------------------------------------------------


def test_rule08_before_the_unlock_a_token_laps_as_many_times_as_needed():
    state = load(seats=["red", "yellow"], tokens={"red": [0, Y, Y, Y]})
    travelled = 0
    for _ in range(25):  # 125 squares: more than two full laps, past the entrance twice
        state, _ = play(state, roll(5), move(0), roll(2))
        travelled += 5
        assert isinstance(toks(state, "red")[0], int)
    assert toks(state, "red")[0] == travelled % 52 and travelled > 2 * 52


def test_rule08_after_the_unlock_a_token_enters_its_lane_on_its_next_approach():
    state = load(tokens={"red": [45, 44, 40, Y]}, unlocked=["red"])
    state, _ = play(state, roll(6))
    outcomes = {t: toks(apply(state, move(t))[0], "red")[t] for t in range(3)}
    assert outcomes == {0: "red-lane-1", 1: 50, 2: 46}


def test_rule08_a_token_on_its_entrance_when_the_lock_opens_enters_on_its_next_move():
    start = load(tokens={"red": [50, 10, Y, Y], "green": [14, Y, Y, Y]})
    locked, _ = play(start, roll(1), move(0))
    assert toks(locked, "red")[0] == 51  # while locked it would walk past
    state, _ = play(start, roll(4), move(1))  # capture: the lock opens, extra roll
    state, _ = play(state, roll(1), move(0))
    assert toks(state, "red")[0] == "red-lane-1"


def test_rule08_a_token_that_just_passed_the_entrance_cannot_jump_back():
    state = load(seats=["red", "yellow"], tokens={"red": [51, 1, Y, Y]}, unlocked=["red"])
    state1, _ = play(state, roll(1), move(0))
    assert toks(state1, "red")[0] == 0
    state2, _ = play(state, roll(3), move(1))
    assert toks(state2, "red")[1] == 4
    # it goes round once more, then turns in: 51 + 50 = 49 (mod 52), then 3 more
    lap = state
    for _ in range(10):
        lap, _ = play(lap, roll(5), move(0), roll(2))
    assert toks(lap, "red")[0] == 49
    lap, _ = play(lap, roll(3), move(0))
    assert toks(lap, "red")[0] == "red-lane-2"


# --- Rule 9: the home lane and the finish ------------------------------------------------------


def test_rule09_other_colours_pass_a_lane_entrance():
    state = load(tokens={"green": [48, Y, Y, Y]}, turn="green", unlocked=["red", "green"])
    state, _ = play(state, roll(5), move(0))
    assert toks(state, "green")[0] == 1  # past red's entrance, on along the track


def test_rule09_only_your_colour_can_be_in_your_lane():
    with pytest.raises(NotationError, match=r"^tokens\.green\[0\]: .*red's home lane"):
        load(tokens={"green": ["red-lane-2", Y, Y, Y]}, unlocked=["red", "green"])


def test_rule09_no_capture_in_a_home_lane():
    # red-lane-3 and green-lane-3 are different squares; own tokens share lane squares
    start = load(tokens={"red": [50, "red-lane-3", Y, Y], "green": ["green-lane-3", Y, Y, Y]},
                 unlocked=["red", "green"])
    state, events = play(start, roll(3), move(0))
    assert toks(state, "red")[:2] == ["red-lane-3", "red-lane-3"]
    assert toks(state, "green")[0] == "green-lane-3"
    assert "captured" not in kinds(events) and state.turn == "green"


@pytest.mark.parametrize("square,value", [("red-lane-4", 2), ("red-lane-1", 5), (50, 6),
                                          ("red-lane-5", 1)])
def test_rule09_the_exact_number_gets_home(square, value):
    state, events = play(load(tokens={"red": [square, 20, Y, Y]}, unlocked=["red"]),
                         roll(value), move(0))
    assert toks(state, "red")[0] == "home" and "reached_home" in kinds(events)


@pytest.mark.parametrize("value", [3, 4, 5, 6])
def test_rule09_overshooting_home_is_illegal(value):
    state, _ = play(load(tokens={"red": ["red-lane-4", 20, "home", "home"]}, unlocked=["red"]),
                    roll(value))
    assert tokens_moving(state) == {1}
    with pytest.raises(Exception, match="cannot move"):
        apply(state, move(0))


def test_rule09_home_tokens_do_not_move():
    state, _ = play(load(tokens={"red": ["home", 20, Y, Y]}, unlocked=["red"]), roll(1))
    assert 0 not in tokens_moving(state)


def test_rule09_if_no_move_is_legal_the_roll_is_skipped():
    start = load(tokens={"red": ["red-lane-4", "home", Y, Y]}, unlocked=["red"])
    state, events = play(start, roll(4))
    assert kinds(events) == ["rolled", "no_move", "turn"]
    assert events[1] == {"type": "no_move", "seat": "red", "value": 4}
    assert state.turn == "green" and toks(state, "red") == toks(start, "red")


@pytest.mark.parametrize("players", [2, 4])
def test_rule09_the_first_player_with_all_four_tokens_home_wins(players):
    seats = ["red", "yellow"] if players == 2 else list(COLOURS)
    start = load(seats=seats, tokens={"red": ["home", "home", "home", "red-lane-5"],
                                      "yellow": ["home", "home", "home", 20]},
                 unlocked=["red", "yellow"])
    state, events = play(start, roll(1), move(3))
    assert kinds(events) == ["rolled", "moved", "reached_home", "won"]
    assert events[-1] == {"type": "won", "seat": "red"}
    assert state.phase == "over" and state.winner == "red"
    assert legal_actions(state) == [] and next_player(state) is None
    # the game ends at the first winner: nobody plays on for second place
    with pytest.raises(Exception, match="over"):
        apply(state, roll(3))


def test_rule09_a_win_with_a_six_ends_the_game_without_an_extra_roll():
    start = load(tokens={"red": ["home", "home", "home", 50]}, unlocked=["red"])
    state, events = play(start, roll(6), move(3))
    assert "extra_roll" not in kinds(events) and state.winner == "red"


def test_the_rules_in_force_say_captured_tokens_go_back_to_their_yards():
    # rule 5: "send all their tokens on that square back to their yards" -- "home" is the
    # finish everywhere else in this game, so the summary must not use it for a capture
    from ludo import new_game, scene
    from ludo.engine import rules_for

    for rules in ("courtyard", "classic"):
        (line,) = [s for s in scene(new_game(rules, ["red", "yellow"], 1)).summary
                   if "ordinary square" in s]
        assert "back to its yard" in line and "home" not in line
    help_text = " ".join(text for _, text in rules_for("courtyard").help.rules)
    assert "Losing your connection does not make you leave at once" in help_text


def test_a_moves_label_says_what_it_captures_and_where_it_lands() -> None:
    # a screen reader reads the label before the move: it names the captured colours, the
    # unlocking of the lane, and a star or a start square, exactly when the move does so
    import random

    from ludo import Action, choices, new_game
    from ludo.geometry import SAFE_SQUARES, START_SQUARES

    seen = {"capturing": 0, "star": 0, "start": 0, "unlocks": 0}
    for seed in range(6):
        rng = random.Random(seed)
        state = new_game("courtyard", ("red", "green", "yellow", "blue"), seed)
        for _ in range(1500):
            if state.phase == "over":
                break
            if state.phase == "roll":
                state, _ = apply(state, Action("roll"))
                continue
            for choice in choices(state):
                _, events = apply(state, choice.action)
                victims = {v[0] for e in events if e["type"] == "captured" for v in e["victims"]}
                assert ("capturing" in choice.label) == bool(victims), choice.label
                for colour in victims:
                    assert colour.capitalize() in choice.label.split("capturing")[1]
                unlocks = any(e["type"] == "unlocked" for e in events)
                assert ("unlocks your home lane" in choice.label) == unlocks, choice.label
                moved = [e for e in events if e["type"] == "moved"]
                to = moved[0]["to"] if moved else None
                if not victims and to in SAFE_SQUARES and to not in START_SQUARES:
                    assert choice.label.endswith(", a star"), choice.label
                    seen["star"] += 1
                if not victims and to in START_SQUARES:
                    assert choice.label.endswith("start"), choice.label
                    seen["start"] += 1
                seen["capturing"] += bool(victims)
                seen["unlocks"] += unlocks
            state, _ = apply(state, rng.choice(legal_actions(state)))
    assert all(seen.values()), seen
