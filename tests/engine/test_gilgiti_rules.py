"""Gilgiti Ludo: one or more tests per sentence of the seed (docs/rules/gilgiti.md lists them).

Square numbers: red's entry star is 0, green's 13, yellow's 26, blue's 39; the other
stars are 8, 21, 34 and 47; red turns into its lane after 50, green after 11,
yellow after 24, blue after 37. Piece numbers: 4 x colour index + token.
"""

from __future__ import annotations

from collections import Counter

import pytest
from gilgitikit import (
    OTHER_STARS,
    STARS,
    START,
    force,
    forces,
    gload,
    js,
    kinds,
    mv,
    of,
    play,
    roll,
    singles,
    strike,
    strikes,
    toks,
)

from ludo import (
    COLOURS,
    Action,
    IllegalAction,
    NotationError,
    apply,
    describe,
    distinct_moves,
    legal_actions,
    new_game,
    next_player,
    resolve,
    rules_for,
    winners,
)
from ludo.rules.gilgiti import GILGITI

HOME4 = ["home"] * 4


# -- seats and teams -----------------------------------------------------------------------


def test_seats_two_to_four_players_each_for_themselves():
    for seats in (("red", "yellow"), ("red", "green", "yellow"),
                  ("red", "green", "yellow", "blue")):
        state = new_game("gilgiti", seats, 3)
        assert state.seats == seats and not state.teams
        for seat in seats:
            assert GILGITI.team_of(state, seat) == (seat,)
    for bad in ((), ("red",), ("red", "red"), ("red", "green", "yellow", "blue", "purple")):
        with pytest.raises(NotationError):
            new_game("gilgiti", bad, 3)


def test_teams_partners_sit_opposite_red_yellow_vs_green_blue():
    state = new_game("gilgiti", ("red", "green", "yellow", "blue"), 3, {"teams": True})
    assert state.teams
    assert GILGITI.team_of(state, "red") == GILGITI.team_of(state, "yellow") == ("red", "yellow")
    assert GILGITI.team_of(state, "green") == GILGITI.team_of(state, "blue") == ("green", "blue")
    # opposite corners: two seats apart in clockwise order
    order = state.seats
    assert abs(order.index("red") - order.index("yellow")) == 2
    assert abs(order.index("green") - order.index("blue")) == 2


def test_teams_option_is_offered_for_four_players_only():
    (option,) = GILGITI.options
    # a team game is what the seed describes first: the setup form ticks Teams for four
    # players (the engine itself plays each for themselves unless the options say teams)
    assert option.name == "teams" and option.players == (4,) and option.default is True
    assert not new_game("gilgiti", ("red", "green", "yellow", "blue"), 3).teams
    assert "Red + Yellow" in option.label and "Green + Blue" in option.label
    with pytest.raises(NotationError, match="options.teams"):
        new_game("gilgiti", ("red", "yellow"), 3, {"teams": True})
    with pytest.raises(NotationError, match="options.colours"):
        new_game("gilgiti", ("red", "yellow"), 3, {"colours": True})
    with pytest.raises(NotationError, match="options.teams"):
        new_game("gilgiti", ("red", "green", "yellow", "blue"), 3, {"teams": "yes"})


def test_seats_a_random_seat_starts():
    starters = Counter(new_game("gilgiti", ("red", "green", "yellow", "blue"), seed, {}).turn
                       for seed in range(400))
    assert set(starters) == {"red", "green", "yellow", "blue"}
    assert min(starters.values()) > 60
    assert new_game("gilgiti", ("red", "yellow"), 9).turn == new_game(
        "gilgiti", ("red", "yellow"), 9).turn


def test_seats_turns_go_clockwise():
    state = gload(turn="red")
    seen = []
    for _ in range(4):
        state, _ = apply(state, roll(3))  # all in the yard: nothing to play, the turn passes
        seen.append(state.turn)
    assert seen == ["green", "yellow", "blue", "red"]
    state = gload(seats=("red", "yellow"), turn="yellow")
    state, _ = apply(state, roll(2))
    assert state.turn == "red"


# -- your turn: roll first, move after -----------------------------------------------------


def test_turn_roll_first_move_after():
    state = gload(tokens={"red": [5, "yard", "yard", "yard"]})
    assert legal_actions(state) == [Action("roll")]
    with pytest.raises(IllegalAction, match="must roll before playing"):
        apply(state, mv("red", 0, 3))
    state, _ = apply(state, roll(3))
    assert state.phase == "move"
    with pytest.raises(IllegalAction, match="every value must be played"):
        apply(state, roll(2))


def test_turn_a_six_means_roll_again():
    state = gload(tokens={"red": [5, "yard", "yard", "yard"]})
    state, events = apply(state, roll(6))
    assert state.phase == "roll" and state.turn == "red" and state.rolled == (6,)
    assert kinds(events) == ["rolled", "roll_again"]
    state, events = apply(state, roll(6))
    assert state.phase == "roll" and state.rolled == (6, 6)
    state, events = apply(state, roll(2))
    assert state.phase == "move" and state.rolled == (6, 6, 2) and state.unplayed == (2, 6, 6)
    assert of(events, "to_play")[0]["values"] == [6, 6, 2]


def test_turn_three_sixes_in_a_row_cancel_the_whole_turn():
    start = gload(tokens={"red": [5, 20, "yard", "yard"], "green": [30, "yard", "yard", "yard"]})
    state, events = play(start, roll(6), roll(6), roll(6))
    assert kinds(events)[-2:] == ["three_sixes", "turn"]
    assert state.turn == "green" and state.phase == "roll" and state.rolled == ()
    assert state.tokens == start.tokens


def test_turn_play_your_values_in_any_order():
    start = gload(phase="move", rolled=[6, 3], tokens={"red": [5, 20, "yard", "yard"]})
    assert {(c, t, v) for c, t, v in singles(start)} >= {("red", 0, 3), ("red", 0, 6),
                                                        ("red", 1, 3), ("red", 1, 6)}
    a, _ = play(start, mv("red", 0, 6), mv("red", 1, 3))
    b, _ = play(start, mv("red", 1, 3), mv("red", 0, 6))
    assert a == b and toks(a, "red")[:2] == [11, 23] and a.turn == "green"


def test_turn_only_a_six_brings_a_token_out_onto_the_entry_star():
    for colour, square in START.items():
        for value in range(1, 6):
            state = gload(turn=colour, tokens={colour: ["yard", "yard", "yard", 40 if colour
                                                        != "blue" else 45]},
                          phase="move", rolled=[value])
            assert all(t == 3 for _, t, _ in singles(state))
        state = gload(turn=colour, phase="move", rolled=[6, 1],
                      tokens={colour: ["yard", "yard", "yard", "yard"]})
        after, events = apply(state, mv(colour, 2, 6))
        assert toks(after, colour)[2] == square
        assert of(events, "entered")[0]["to"] == square


def test_turn_an_exact_roll_is_needed_to_finish_a_token():
    state = gload(phase="move", rolled=[4], tokens={"red": ["red-lane-3", 10, "yard", "yard"]})
    assert ("red", 0, 4) not in singles(state)  # lane 3 + 4 overshoots home
    state = gload(phase="move", rolled=[3], tokens={"red": ["red-lane-3", 10, "yard", "yard"]})
    after, events = apply(state, mv("red", 0, 3))
    assert toks(after, "red")[0] == "home" and of(events, "reached_home")
    state = gload(phase="move", rolled=[1], tokens={"red": ["home", 10, "yard", "yard"]})
    assert {t for _, t, _ in singles(state)} == {1}


def test_turn_only_sixes_give_another_roll():
    # a capture with a 4 and a token home with a 2 both pass the turn
    state = gload(phase="move", rolled=[4],
                  tokens={"red": [10, "yard", "yard", "yard"], "green": [14, 40, 41, 42]})
    after, events = apply(state, mv("red", 0, 4))
    assert of(events, "captured") and after.turn == "green" and after.phase == "roll"
    state = gload(phase="move", rolled=[2], tokens={"red": ["red-lane-4", 10, "yard", "yard"]})
    after, events = apply(state, mv("red", 0, 2))
    assert of(events, "reached_home") and after.turn == "green"


# -- all or nothing --------------------------------------------------------------------------


def test_all_or_nothing_every_value_you_rolled_must_be_played():
    state = gload(phase="move", rolled=[6, 3], tokens={"red": [5, "yard", "yard", "yard"]})
    state, _ = apply(state, mv("red", 0, 3))
    assert state.turn == "red" and state.phase == "move" and state.unplayed == (6,)
    assert {a.value for a in legal_actions(state)} == {6}
    state, _ = apply(state, mv("red", 0, 6))
    assert state.turn == "green"


def test_all_or_nothing_stuck_rolls_the_entire_turn_back_and_play_passes_on():
    # red captures green with the 4, then cannot play the 6: the capture is undone too
    tokens = {"red": ["red-lane-1", 10, "home", "home"], "green": [14, 18, 18, "yard"]}
    start = gload(phase="move", rolled=[6, 4], tokens=tokens)
    after, events = apply(start, mv("red", 1, 4))
    assert of(events, "captured") and kinds(events)[-2:] == ["rolled_back", "turn"]
    assert of(events, "rolled_back")[0]["values"] == [6]
    assert after.tokens == start.tokens and after.turn == "green" and after.phase == "roll"
    assert js(after)["turn_start"] is None and after.rolled == () and after.unplayed == ()


def test_all_or_nothing_a_turn_with_nothing_playable_passes():
    state = gload(tokens={"red": ["yard"] * 4})
    after, events = apply(state, roll(4))
    # nothing is announced as "to play" when nothing can be played
    assert kinds(events) == ["rolled", "rolled_back", "turn"]
    assert of(events, "rolled_back")[0]["played"] == 0
    assert after.turn == "green" and after.tokens == state.tokens


def test_all_or_nothing_order_matters_a_careless_order_strands_a_value():
    tokens = {"red": ["red-lane-2", 49, "home", "home"]}
    start = gload(phase="move", rolled=[6, 4], tokens=tokens)
    careless, events = apply(start, mv("red", 1, 4))  # token 2 to lane 3; the 6 fits nowhere
    assert of(events, "rolled_back") and careless.tokens == start.tokens
    assert GILGITI.can_complete(start)
    good, events = play(start, mv("red", 1, 6), mv("red", 0, 4))
    assert not of(events, "rolled_back") and toks(good, "red")[:2] == ["home", "red-lane-5"]


def test_all_or_nothing_even_a_win_is_undone():
    # red's last token reaches home with the 2, but the 6 is left unplayable
    start = gload(phase="move", rolled=[6, 2], tokens={"red": ["red-lane-4"] + HOME4[:3]})
    after, events = apply(start, mv("red", 0, 2))
    assert of(events, "reached_home") and not of(events, "won")
    assert of(events, "rolled_back") and after.phase == "roll" and winners(after) == ()
    assert toks(after, "red")[0] == "red-lane-4"
    # with values that fit, the same finish wins
    start = gload(phase="move", rolled=[6, 2], tokens={"red": [48] + HOME4[:3]})
    after, events = play(start, mv("red", 0, 2), mv("red", 0, 6))
    assert of(events, "won") and winners(after) == ("red",)


def test_all_or_nothing_a_team_finish_is_undone_too():
    tokens = {"red": ["red-lane-4"] + HOME4[:3], "yellow": [30, "yard", "yard", "yard"]}
    start = gload(teams=True, phase="move", rolled=[6, 2], tokens=tokens)
    after, events = apply(start, mv("red", 0, 2))  # red cannot play yellow's tokens this turn
    assert of(events, "rolled_back") and not of(events, "finished")
    assert after.resting == frozenset() and after.tokens == start.tokens


# -- blocks ------------------------------------------------------------------------------------


def test_blocks_two_tokens_of_one_colour_form_a_block():
    base = {"red": [10, "yard", "yard", "yard"], "green": [14, 14, "yard", "yard"]}
    for value in (4, 5):
        state = gload(phase="move", rolled=[value], tokens={**base, "red": [10, 20, "yard",
                                                                            "yard"]})
        assert ("red", 0, value) not in singles(state)  # landing on it, passing it
    state = gload(phase="move", rolled=[3], tokens=base)
    assert ("red", 0, 3) in singles(state)  # stopping short is fine


def test_blocks_partners_tokens_mix_into_blocks_in_team_games():
    # green and blue share star 8: a mixed block in a team game, two lone tokens alone
    tokens = {"red": [5, 30, "yard", "yard"], "green": [8, "yard", "yard", "yard"],
              "blue": [8, "yard", "yard", "yard"]}
    alone = gload(phase="move", rolled=[3], tokens=tokens)
    team = gload(teams=True, phase="move", rolled=[3], tokens=tokens)
    assert ("red", 0, 3) in singles(alone) and ("red", 0, 3) not in singles(team)
    passing = gload(teams=True, phase="move", rolled=[5], tokens=tokens)
    assert ("red", 0, 5) not in singles(passing)
    # off the stars, a red and a yellow token together block green in a team game
    tokens = {"red": [16, "yard", "yard", "yard"], "yellow": [16, "yard", "yard", "yard"],
              "green": [14, 40, "yard", "yard"]}
    state = gload(teams=True, turn="green", phase="move", rolled=[3], tokens=tokens)
    assert ("green", 0, 3) not in singles(state) and ("green", 0, 2) not in singles(
        gload(teams=True, turn="green", phase="move", rolled=[2], tokens=tokens))


def test_blocks_enemy_blocks_cannot_be_passed_through_or_landed_on():
    tokens = {"red": [10, 30, "yard", "yard"], "blue": [12, 12, "yard", "yard"]}
    for value in range(1, 6):
        state = gload(phase="move", rolled=[value], tokens=tokens)
        assert (("red", 0, value) in singles(state)) == (value == 1)


def test_blocks_your_own_and_your_partners_blocks_never_block_you():
    tokens = {"red": [10, 12, 12, "yard"], "yellow": [14, 14, "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[5], tokens=tokens)
    assert ("red", 0, 5) in singles(state)
    state = gload(teams=True, phase="move", rolled=[4], tokens=tokens)
    after, events = apply(state, mv("red", 0, 4))  # joins the yellow pair: nothing captured
    assert not of(events, "captured") and toks(after, "yellow")[:2] == [14, 14]


def test_blocks_single_tokens_never_block_anyone():
    tokens = {"red": [10, 30, "yard", "yard"], "green": [11, 40, "yard", "yard"],
              "blue": [13, 45, "yard", "yard"]}
    state = gload(phase="move", rolled=[5], tokens=tokens)
    assert ("red", 0, 5) in singles(state)  # past a lone green and a lone blue


def test_blocks_home_lanes_are_private():
    # red's own pair in its lane is no obstacle to red; nobody else ever walks there
    tokens = {"red": ["red-lane-1", "red-lane-3", "red-lane-3", 5]}
    state = gload(phase="move", rolled=[4], tokens=tokens)
    after, _ = apply(state, mv("red", 0, 4))
    assert toks(after, "red")[0] == "red-lane-5"
    # green passes red's lane entrance with red tokens inside: they are not on its way
    tokens = {"red": ["red-lane-1", "red-lane-1", "yard", "yard"], "green": [48, "yard",
                                                                           "yard", "yard"]}
    state = gload(turn="green", phase="move", rolled=[5], tokens=tokens)
    after, _ = apply(state, mv("green", 0, 5))
    assert toks(after, "green")[0] == 1


# -- captures ------------------------------------------------------------------------------------


def test_captures_a_single_token_sends_a_lone_enemy_token_to_its_yard():
    tokens = {"red": [10, "yard", "yard", "yard"], "green": [14, 30, "yard", "yard"]}
    state = gload(phase="move", rolled=[4], tokens=tokens)
    after, events = apply(state, mv("red", 0, 4))
    assert of(events, "captured")[0]["victims"] == [["green", 0]]
    assert toks(after, "green") == ["yard", 30, "yard", "yard"]
    # back in the yard, it needs a 6 to come out again
    state = gload(turn="green", phase="move", rolled=[4],
                  tokens={"red": [14, "yard", "yard", "yard"],
                          "green": ["yard", 30, "yard", "yard"]})
    assert {t for _, t, _ in singles(state)} == {1}


def test_captures_a_partners_token_is_never_captured():
    tokens = {"red": [10, "yard", "yard", "yard"], "yellow": [14, "yard", "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[4], tokens=tokens)
    after, events = apply(state, mv("red", 0, 4))
    assert not of(events, "captured") and toks(after, "yellow")[0] == 14


# -- stacks strike together, only together ---------------------------------------------------


def test_stacks_a_stack_cannot_wander_around_as_a_group():
    state = gload(phase="move", rolled=[4], tokens={"red": [10, 10, "yard", "yard"]})
    assert strikes(state) == set()
    assert all(a.tokens is None for a in legal_actions(state))
    with pytest.raises(IllegalAction, match="stack"):
        apply(state, strike([("red", 0), ("red", 1)], 4))


def test_stacks_a_stack_strikes_an_enemy_block_of_the_same_size_and_colour_pattern():
    tokens = {"red": [10, 10, "yard", "yard"], "green": [14, 14, "yard", "yard"]}
    state = gload(phase="move", rolled=[4], tokens=tokens)
    assert strikes(state) == {((0, 1), 4)}
    after, events = apply(state, strike([("red", 0), ("red", 1)], 4))
    (struck,) = of(events, "struck")
    assert struck["victims"] == [["green", 0], ["green", 1]] and struck["value"] == 4
    assert toks(after, "red")[:2] == [14, 14] and toks(after, "green") == ["yard"] * 4


def test_stacks_two_plus_one_mixed_takes_two_plus_one_mixed():
    tokens = {"red": [10, 10, "yard", "yard"], "yellow": [10, "yard", "yard", "yard"],
              "green": [15, 15, "yard", "yard"], "blue": [15, "yard", "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[5], tokens=tokens)
    assert strikes(state) == {((0, 1, 8), 5)}  # the whole stack, yellow's token included
    after, events = apply(state, strike([("red", 0), ("red", 1), ("yellow", 0)], 5))
    assert len(of(events, "struck")[0]["victims"]) == 3
    assert toks(after, "yellow")[0] == 15 and toks(after, "blue")[0] == "yard"
    # the pattern counts, not which colour has two: 2 red + 1 yellow takes 1 green + 2 blue
    tokens["green"], tokens["blue"] = [15, "yard", "yard", "yard"], [15, 15, "yard", "yard"]
    assert strikes(gload(teams=True, phase="move", rolled=[5], tokens=tokens)) == {
        ((0, 1, 8), 5)}


def test_stacks_no_strike_on_a_block_of_another_size_or_pattern():
    cases = [
        # 2 red against 3 green
        (False, {"red": [10, 10, "yard", "yard"], "green": [14, 14, 14, "yard"]}),
        # 3 red against 2 green
        (False, {"red": [10, 10, 10, "yard"], "green": [14, 14, "yard", "yard"]}),
        # 2 same-colour against 1 + 1 mixed
        (True, {"red": [10, 10, "yard", "yard"], "green": [14, "yard", "yard", "yard"],
                "blue": [14, "yard", "yard", "yard"]}),
        # 2 + 1 mixed against 3 of one colour
        (True, {"red": [10, 10, "yard", "yard"], "yellow": [10, "yard", "yard", "yard"],
                "green": [14, 14, 14, "yard"]}),
    ]
    for teams, tokens in cases:
        tokens["red"] = tokens["red"][:3] + [30]  # something else to play
        state = gload(teams=teams, phase="move", rolled=[4], tokens=tokens)
        assert strikes(state) == set(), tokens


def test_stacks_a_stack_is_every_token_of_the_side_on_the_square():
    pair = strike([("red", 0), ("red", 1)], 4)
    alone = gload(teams=True, phase="move", rolled=[4],
                  tokens={"red": [10, 10, 30, "yard"], "green": [14, 14, "yard", "yard"]})
    assert pair in distinct_moves(alone)
    # a partner's token beside the pair makes it a 2+1 mixed stack: no pair strikes
    beside = gload(teams=True, phase="move", rolled=[4],
                   tokens={"red": [10, 10, 30, "yard"], "yellow": [10, "yard", "yard", "yard"],
                           "green": [14, 14, "yard", "yard"]})
    assert strikes(beside) == set()
    # three reds cannot split off a pair to strike a green pair
    three = gload(phase="move", rolled=[4],
                  tokens={"red": [10, 10, 10, 30], "green": [14, 14, "yard", "yard"]})
    assert strikes(three) == set()
    assert {a.tokens for a in legal_actions(three)} == {None}


def test_stacks_the_struck_block_goes_back_to_its_yards():
    tokens = {"red": [10, "yard", "yard", "yard"], "yellow": [10, "yard", "yard", "yard"],
              "green": [14, "yard", "yard", "yard"], "blue": [14, 40, "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[4], tokens=tokens)
    after, _ = apply(state, strike([("red", 0), ("yellow", 0)], 4))
    assert toks(after, "green")[0] == "yard" and toks(after, "blue")[:2] == ["yard", 40]


def test_stacks_never_strike_on_a_star():
    tokens = {"red": [4, 4, "yard", "yard"], "green": [8, 8, "yard", "yard"]}
    state = gload(phase="move", rolled=[4], tokens={**tokens, "red": [4, 4, 20, "yard"]})
    assert strikes(state) == set()


def test_stacks_the_stacks_path_obeys_the_block_rule():
    tokens = {"red": [10, 10, 30, "yard"], "blue": [11, 11, "yard", "yard"],
              "green": [14, 14, "yard", "yard"]}
    state = gload(phase="move", rolled=[4], tokens=tokens)
    assert strikes(state) == set()  # the blue block on 11 stands in the way
    state = gload(phase="move", rolled=[1], tokens=tokens)
    assert strikes(state) == {((0, 1), 1)}


def test_stacks_a_mixed_stack_that_would_split_does_not_move():
    # yellow turns into its lane after 24; red walks on: the stack cannot stay together
    tokens = {"red": [22, 40, "yard", "yard"], "yellow": [22, "yard", "yard", "yard"],
              "green": [25, "yard", "yard", "yard"], "blue": [25, "yard", "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[3], tokens=tokens)
    assert strikes(state) == set()


def test_stacks_otherwise_tokens_move_one_at_a_time():
    tokens = {"red": [10, 10, "yard", "yard"], "green": [14, 14, "yard", "yard"]}
    state = gload(phase="move", rolled=[3], tokens=tokens)
    after, _ = apply(state, mv("red", 1, 3))
    assert toks(after, "red")[:2] == [10, 13]


def test_stacks_a_lone_enemy_token_can_only_ever_be_taken_by_a_single_token():
    tokens = {"red": [10, 10, "yard", "yard"], "green": [14, "yard", "yard", "yard"]}
    state = gload(phase="move", rolled=[4], tokens=tokens)
    assert strikes(state) == set()
    with pytest.raises(IllegalAction):
        apply(state, strike([("red", 0), ("red", 1)], 4))
    after, events = apply(state, mv("red", 0, 4))
    assert of(events, "captured")[0]["victims"] == [["green", 0]]


def test_stacks_only_a_stack_with_a_token_of_the_seat_to_act_moves():
    # red may not move a pure yellow pair, even in a team game
    tokens = {"red": [30, "yard", "yard", "yard"], "yellow": [10, 10, "yard", "yard"],
              "green": [14, 14, "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[4], tokens=tokens)
    assert strikes(state) == set()
    with pytest.raises(IllegalAction, match="does not move yellow's tokens"):
        apply(state, strike([("yellow", 0), ("yellow", 1)], 4))


# -- stars -----------------------------------------------------------------------------------------


def test_stars_the_eight_stars_are_safe_ground():
    assert STARS == {0, 8, 13, 21, 26, 34, 39, 47}
    for star in sorted(STARS):
        mover = "blue" if star == 0 else "red"  # red would turn into its lane before 0
        tokens = {mover: [(star - 3) % 52, "yard", "yard", "yard"],
                  "green": [star, "yard", "yard", "yard"]}
        state = gload(turn=mover, phase="move", rolled=[3], tokens=tokens)
        after, events = apply(state, mv(mover, 0, 3))
        assert not of(events, "captured") and toks(after, "green")[0] == star
        assert toks(after, mover)[0] == star


def test_stars_a_star_held_by_an_enemy_block_is_closed():
    tokens = {"red": [5, 30, "yard", "yard"], "green": [8, 8, "yard", "yard"]}
    for value in (3, 4):  # landing on it, passing it
        state = gload(phase="move", rolled=[value], tokens=tokens)
        assert ("red", 0, value) not in singles(state)
    # until they move: with the pair split, the star is open again
    tokens["green"] = [8, 9, "yard", "yard"]
    state = gload(phase="move", rolled=[3], tokens=tokens)
    assert ("red", 0, 3) in singles(state)


def test_stars_your_teams_token_on_a_star_opens_it_for_you():
    tokens = {"red": [5, 8, "yard", "yard"], "green": [8, 8, "yard", "yard"]}
    for value in (3, 4):
        state = gload(phase="move", rolled=[value], tokens=tokens)
        assert ("red", 0, value) in singles(state)
    # a partner's token does the same in a team game
    tokens = {"red": [5, "yard", "yard", "yard"], "yellow": [8, "yard", "yard", "yard"],
              "green": [8, 8, "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[3], tokens=tokens)
    assert ("red", 0, 3) in singles(state)
    after, events = apply(state, mv("red", 0, 3))
    assert not of(events, "captured") and toks(after, "green")[:2] == [8, 8]
    # ...but not to a third player in a game for one
    tokens = {"red": [5, "yard", "yard", "yard"], "yellow": [8, "yard", "yard", "yard"],
              "green": [8, 8, "yard", "yard"]}
    state = gload(teams=False, phase="move", rolled=[3], tokens={
        **tokens, "red": [5, 30, "yard", "yard"]})
    assert ("red", 0, 3) not in singles(state)


def test_stars_other_stars_lie_on_every_quarter():
    assert OTHER_STARS == (8, 21, 34, 47)
    assert {c.id for c in GILGITI.board(None).cells if "star" in c.marks} == {
        str(s) for s in STARS}


# -- blocked entry and forcing the gate -------------------------------------------------------


def test_gate_an_enemy_block_on_your_entry_star_locks_you_out():
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, "yard", "yard"]}
    state = gload(phase="move", rolled=[6, 2], tokens=tokens)
    assert all(t == 3 for _, t, _ in singles(state))


def test_gate_unless_your_team_holds_a_token_there_too():
    tokens = {"red": ["yard", "yard", "yard", 0], "green": [0, 0, "yard", "yard"]}
    state = gload(phase="move", rolled=[6, 2], tokens=tokens)
    assert ("red", 0, 6) in singles(state)
    tokens = {"red": ["yard", "yard", "yard", 30], "yellow": [0, "yard", "yard", "yard"],
              "green": [0, 0, "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[6, 2], tokens=tokens)
    assert ("red", 0, 6) in singles(state) and forces(state) == []


def test_gate_two_sixes_in_one_turn_force_a_block_of_two_of_one_colour():
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, "yard", "yard"]}
    state = gload(phase="move", rolled=[6, 6, 2], tokens=tokens)
    assert len(forces(state)) == 3  # any two of the three yard tokens
    after, events = apply(state, force("red", 0, 2))
    (forced,) = of(events, "forced")
    assert forced["tokens"] == [0, 2] and forced["to"] == 0
    assert toks(after, "red") == [0, "yard", 0, 30] and toks(after, "green")[:2] == [0, 0]
    assert after.unplayed == (2,) and after.turn == "red"  # both 6s spent together


def test_gate_nothing_is_captured_and_the_contested_star_no_longer_locks_you_out():
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, "yard", "yard"]}
    state = gload(phase="move", rolled=[6, 6, 2], tokens=tokens)
    after, events = play(state, force("red", 0, 1), mv("red", 3, 2))
    assert not of(events, "captured") and toks(after, "green")[:2] == [0, 0]
    # red's next turn: a single 6 brings the third token in beside them
    later = gload(phase="move", rolled=[6, 1], tokens=js(after)["tokens"])
    assert ("red", 2, 6) in singles(later)


def test_gate_forcing_needs_two_sixes_of_one_turn_and_two_yard_tokens():
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, "yard", "yard"]}
    assert forces(gload(phase="move", rolled=[6, 2], tokens=tokens)) == []
    tokens["red"] = ["yard", 20, 25, 30]
    assert forces(gload(phase="move", rolled=[6, 6, 2], tokens=tokens)) == []
    # a 6 already played leaves one 6: no force
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, "yard", "yard"]}
    start = gload(phase="move", rolled=[6, 6, 2], tokens=tokens)
    after, _ = apply(start, mv("red", 3, 6))
    assert forces(after) == []
    with pytest.raises(IllegalAction, match="two 6s"):
        apply(after, force("red", 0, 1))


def test_gate_only_when_the_gate_is_closed():
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, "yard", "yard", "yard"]}
    assert forces(gload(phase="move", rolled=[6, 6, 2], tokens=tokens)) == []


def test_gate_a_block_of_three_cannot_be_forced():
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, 0, "yard"]}
    assert forces(gload(phase="move", rolled=[6, 6, 2], tokens=tokens)) == []


def test_gate_two_pairs_of_two_colours_are_not_the_block_of_exactly_two():
    # "If the block is exactly 2 tokens of one colour": a green pair and a yellow pair on red's
    # entry star are four enemy tokens, not "the block" of two, and cannot be forced
    tokens = {"red": ["yard", "yard", "yard", 20], "green": [0, 0, "yard", "yard"],
              "yellow": [0, 0, "yard", "yard"]}
    state = gload(phase="move", rolled=[6, 6, 3], tokens=tokens)
    assert forces(state) == []
    with pytest.raises(IllegalAction, match="cannot force"):
        apply(state, force("red", 0, 1))


def test_gate_a_mixed_partner_block_can_never_be_forced():
    for green, blue in (([0, "yard", "yard", "yard"], [0, "yard", "yard", "yard"]),
                        ([0, 0, "yard", "yard"], [0, "yard", "yard", "yard"])):
        tokens = {"red": ["yard", "yard", "yard", 30], "green": green, "blue": blue}
        state = gload(teams=True, phase="move", rolled=[6, 6, 2], tokens=tokens)
        assert forces(state) == [] and all(t == 3 for _, t, _ in singles(state))
        with pytest.raises(IllegalAction, match="cannot force"):
            apply(state, force("red", 0, 1))
    # in a game for one, two green and a lone blue: the green pair is the block
    tokens = {"red": ["yard", "yard", "yard", 30], "green": [0, 0, "yard", "yard"],
              "blue": [0, "yard", "yard", "yard"]}
    assert forces(gload(phase="move", rolled=[6, 6, 2], tokens=tokens))


# -- teams and winning -------------------------------------------------------------------------


def test_teams_a_team_wins_only_when_all_8_tokens_are_home():
    tokens = {"red": ["red-lane-5", "home", "home", "home"],
              "yellow": ["yellow-lane-1", "home", "home", "home"]}
    state = gload(teams=True, phase="move", rolled=[1], tokens=tokens)
    after, events = apply(state, mv("red", 0, 1))  # red's four are home: nothing won yet
    assert after.phase == "roll" and winners(after) == () and of(events, "finished")
    tokens = {"red": HOME4, "yellow": ["yellow-lane-4", "home", "home", "home"]}
    state = gload(teams=True, turn="yellow", phase="move", rolled=[2], tokens=tokens)
    after, events = apply(state, mv("yellow", 0, 2))
    assert after.phase == "over" and winners(after) == ("red", "yellow")
    assert of(events, "won")[0]["seats"] == ["red", "yellow"]


def test_teams_a_finished_partner_rests_one_turn_then_moves_the_partners_tokens():
    # green and blue wait in their yards, so their rolls of 1 pass at once
    tokens = {"red": ["red-lane-5", "home", "home", "home"],
              "yellow": [30, "yard", "yard", "yard"]}
    state = gload(teams=True, phase="move", rolled=[1], tokens=tokens)
    state, events = apply(state, mv("red", 0, 1))
    assert of(events, "finished") and state.resting == {"red"} and state.turn == "green"
    state, _ = play(state, roll(1), roll(1), mv("yellow", 0, 1))  # green, then yellow
    assert state.turn == "blue" and next_player(state) == "green"  # Next skips resting red
    state, events = apply(state, roll(1))
    assert kinds(events)[-2:] == ["rested", "turn"] and state.turn == "green"
    assert state.resting == frozenset()
    state, _ = play(state, roll(1), roll(1), mv("yellow", 0, 1), roll(1))
    assert state.turn == "red"
    state, _ = apply(state, roll(2))
    assert singles(state) == {("yellow", 0, 2)}  # red's roll moves yellow's token
    state, events = apply(state, mv("yellow", 0, 2))
    assert of(events, "moved")[0]["colour"] == "yellow" and toks(state, "yellow")[0] == 34


def test_teams_a_finished_player_can_bring_the_team_home():
    tokens = {"red": HOME4, "yellow": ["yellow-lane-3", "home", "home", "home"]}
    state = gload(teams=True, turn="red", phase="move", rolled=[3], tokens=tokens)
    after, _ = apply(state, mv("yellow", 0, 3))
    assert winners(after) == ("red", "yellow")
    with pytest.raises(IllegalAction, match="red"):
        apply(state, mv("red", 0, 3))


def test_alone_the_first_with_all_four_tokens_home_wins():
    state = gload(phase="move", rolled=[1], tokens={"red": ["red-lane-5", "home", "home",
                                                            "home"]})
    after, events = apply(state, mv("red", 0, 1))
    assert after.phase == "over" and winners(after) == ("red",)
    assert kinds(events)[-1] == "won" and legal_actions(after) == []


# -- leaving ---------------------------------------------------------------------------------


def test_leave_ends_the_match_for_everyone_with_no_winner():
    leave = GILGITI.leave
    assert leave.title == "Leave this game?" and leave.ends_match
    assert leave.text == ("The current match will end and everyone goes back to the start "
                          "screen.")
    state = gload(phase="move", rolled=[6, 3], tokens={"red": [5, "yard", "yard", "yard"]})
    mid, _ = apply(state, mv("red", 0, 3))
    for seat in ("red", "blue"):  # anyone, at any moment
        after, events = apply(mid, Action("quit", seat=seat))
        assert kinds(events) == ["quit"] and after.phase == "over" and winners(after) == ()
        assert after.quit == seat and rules_for(after).active_seats(after) == ()
        assert toks(after, "red")[0] == 5  # the unfinished turn does not count
    with pytest.raises(IllegalAction, match="over"):
        apply(after, Action("quit", seat="green"))
    with pytest.raises(IllegalAction, match="not a seat"):
        apply(mid, Action("quit", seat="purple"))


# -- the clock -------------------------------------------------------------------------------


def test_clock_is_off_by_default():
    assert GILGITI.timer_default is False


def test_clock_a_timeout_before_the_roll_rolls_one_die_then_plays_it():
    sixes = 0
    for seed in range(60):
        state = new_game("gilgiti", ("red", "green", "yellow", "blue"), seed)
        seat = state.turn
        # the timeout's die is a chance value, as the seat's own roll would be (online it comes
        # from the dice ledger): resolving fills it in, and it is the roll's die
        timeout = resolve(state, Action("timeout"))
        assert timeout.value == resolve(state, Action("roll")).value
        after, events = apply(state, timeout)
        assert kinds(events)[0] == "timeout" and [e["value"] for e in of(events, "rolled")] == [
            timeout.value]
        said = describe("gilgiti", events[0], {})
        if timeout.value == 6:  # rolls again, on a clock of its own
            sixes += 1
            # the game only rolled: the sentence says so, not that the turn was played
            assert said == f"{seat.capitalize()} ran out of time; the game rolls for them " \
                "(timeout 1)."
            assert after.turn == seat and after.phase == "roll" and after.rolled == (6,)
            again, events = apply(after, resolve(after, Action("timeout")))
            ci = COLOURS.index(seat)
            assert len(of(events, "rolled")) == 1
            assert again.timeouts[ci] == after.timeouts[ci] + 1
        else:
            assert after.turn != seat or after.phase == "over"
            assert said.endswith("ran out of time; the turn is played for them (timeout 1).")
    assert sixes > 0
    # a third 6 thrown by the clock cancels the turn: nothing was played for the seat either
    state = gload(phase="roll", rolled=[6, 6])
    _, events = apply(state, Action("timeout", value=6))
    assert "three_sixes" in kinds(events)
    assert describe("gilgiti", events[0], {}) == ("Red ran out of time; the game rolls for them "
                                                  "(timeout 1).")


def test_clock_a_timeout_after_the_roll_plays_the_values_left():
    state = gload(phase="move", rolled=[6, 3], tokens={"red": [5, 20, "yard", "yard"]})
    after, events = apply(state, Action("timeout"))
    assert len(of(events, "moved")) + len(of(events, "entered")) == 2
    assert after.turn == "green" and not of(events, "rolled")


def test_clock_a_timeout_plays_like_easy_wins_first_then_captures_and_homes():
    state = gload(phase="move", rolled=[2],
                  tokens={"red": ["red-lane-4", 10, "home", "home"],
                          "blue": [12, "yard", "yard", "yard"]})
    assert GILGITI.timeout_choice(state) in (mv("red", 0, 2), mv("red", 1, 2))
    state = gload(phase="move", rolled=[2],
                  tokens={"red": ["red-lane-4", "home", "home", "home"]})
    assert GILGITI.timeout_choice(state) == mv("red", 0, 2)
    # deterministic: the same position always gets the same play
    busy = gload(phase="move", rolled=[6, 4], tokens={"red": [5, 20, 33, "yard"]})
    assert len({GILGITI.timeout_choice(busy) for _ in range(5)}) == 1


def test_clock_a_timeout_never_strands_a_value_that_some_order_plays():
    # red rolled 6 then 5: taking token 3 home with the 6 first strands the 5 (nothing else
    # can move without a 6), but entering with the 6 and moving 5 plays both
    for word in ("0123456789abcdef", "00000000000000ff", "fedcba9876543210"):
        state = gload(phase="move", rolled=[6, 5], rng=word,
                      tokens={"red": ["yard", "yard", "yard", 50],
                              "green": [20, "yard", "yard", "yard"]})
        assert GILGITI.can_complete(state)
        assert mv("red", 3, 6) in distinct_moves(state)  # home at once: what Easy prefers
        assert GILGITI.timeout_choice(state) != mv("red", 3, 6)
        after, events = apply(state, Action("timeout"))
        assert "rolled_back" not in kinds(events)
        assert after.turn == "green" and len(of(events, "entered")) == 1
        assert len(of(events, "moved")) == 1


def test_clock_a_timeout_completes_every_turn_that_can_be_completed():
    checked = 0
    for seed in range(6):
        state = new_game("gilgiti", ("red", "green", "yellow", "blue"), seed, {"teams": True})
        for _ in range(400):
            if state.phase == "over":
                break
            if state.phase == "move" and GILGITI.can_complete(state):
                _, events = apply(state, Action("timeout"))
                assert "rolled_back" not in kinds(events), js(state)
                checked += 1
            state, _ = apply(state, Action("timeout") if state.phase == "move"
                             else resolve(state, Action("roll")))
    assert checked > 100


def test_clock_a_timeout_rolls_back_a_turn_no_order_completes():
    state = gload(phase="move", rolled=[6, 2], tokens={"red": ["red-lane-4"] + ["home"] * 3})
    assert not GILGITI.can_complete(state)
    after, events = apply(state, Action("timeout"))
    assert "rolled_back" in kinds(events) and after.turn == "green"
    assert toks(after, "red") == ["red-lane-4"] + ["home"] * 3


def test_clock_a_timeout_takes_a_stack_strike_like_a_capture():
    # red's pair on 2 strikes green's pair on 5 with the 3; red's token on 20 could step instead
    hit = strike([("red", 0), ("red", 1)], 3)
    for k in range(40):
        state = gload(phase="move", rolled=[3], rng=f"{k * 7919 + 1:016x}",
                      tokens={"red": [2, 2, 20, "yard"], "green": [5, 5, "yard", "yard"]})
        assert set(distinct_moves(state)) == {hit, mv("red", 2, 3)}
        assert GILGITI.timeout_choice(state) == hit


def test_clock_timeouts_are_counted_and_never_remove_anyone():
    state = new_game("gilgiti", ("red", "yellow"), 4)
    for _ in range(12):
        seat = state.turn
        state, events = apply(state, Action("timeout"))
        assert of(events, "timeout")[0]["seat"] == seat
        if state.phase == "over":
            break
    assert sum(state.timeouts) == 12
    assert rules_for(state).active_seats(state) == ("red", "yellow")


def test_clock_a_timeout_carries_its_die_before_the_roll_and_no_value_after_it():
    state = new_game("gilgiti", ("red", "yellow"), 4)
    after, events = apply(state, Action("timeout", value=3))  # the ledger's die, online
    assert [e["value"] for e in of(events, "rolled")] == [3]
    moving = gload(phase="move", rolled=[6, 3], tokens={"red": [5, 20, "yard", "yard"]})
    with pytest.raises(IllegalAction, match="no value"):
        apply(moving, Action("timeout", value=3))
    with pytest.raises(IllegalAction, match="no token"):
        apply(state, Action("timeout", token=0))


# -- distinct moves and auto-play --------------------------------------------------------------


def test_distinct_moves_tokens_on_one_square_with_one_value_are_one_choice():
    state = gload(phase="move", rolled=[6, 2], tokens={"red": ["yard", "yard", 10, 10]})
    moves = distinct_moves(state)
    assert len(legal_actions(state)) == 2 * 2 + 2 * 1  # 6 for the yard pair; 2 and 6 for the 10s
    assert len(moves) == 3
    assert GILGITI.auto_action(state) is None
    single = gload(phase="move", rolled=[2], tokens={"red": ["yard", "yard", 10, 10]})
    assert GILGITI.auto_action(single) == mv("red", 2, 2)


# -- illegal actions ---------------------------------------------------------------------------


@pytest.mark.parametrize("action, match", [
    (mv("red", 0, 5), "no 5 to play"),
    (mv("red", 1, 3), "cannot move 3"),
    (mv("green", 0, 3), "does not move green's tokens"),
    (Action("move", token=99, value=3), "not a token"),
    (Action("move", token=0, value=None), "no null"),
    (Action("move", token=0, tokens=(0, 1), value=3), "not both"),
    (force("red", 1, 2), "two 6s"),
    (Action("roll", value=3), "every value must be played"),
    (Action("flip"), "unknown action"),
    (Action("quit", seat=7), "not a seat"),
])
def test_illegal_actions_are_refused_and_change_nothing(action, match):
    state = gload(phase="move", rolled=[6, 3],
                  tokens={"red": [10, "home", "yard", "yard"], "green": [40, 41, "yard", "yard"]})
    before = js(state)
    with pytest.raises(IllegalAction, match=match) as info:
        apply(state, action)
    assert js(state) == before and "\n" not in str(info.value)


def test_a_refused_move_names_the_token_by_the_number_the_action_gave():
    # the message counted from 1 within the colour: piece 13 (blue's token 1) was "blue token
    # 2 cannot move 3", and piece 12 "blue token 1", which an outside program reads as piece 1,
    # red's (outside11, through stdio)
    state = gload(turn="blue", phase="move", rolled=[6, 3],
                  tokens={"blue": [20, "home", "yard", "yard"]})
    with pytest.raises(IllegalAction) as info:
        apply(state, mv("blue", 1, 3))
    assert str(info.value) == "token 13 (blue's token 1) cannot move 3"


def test_events_name_a_token_as_its_colours_own_not_by_piece_number():
    # docs/notation.md, "Gilgiti events": an outside program that sent piece 12 finds the
    # play told as blue's token 0 (the docs said only "colour: whose token"; outside11)
    state = gload(teams=True, turn="green", phase="move", rolled=[3],
                  tokens={"green": ["home"] * 4, "blue": ["blue-lane-2", "home", "home", "home"],
                          "red": [17, "home", "home", "home"]})
    _, events = apply(state, mv("blue", 0, 3))
    assert {k: events[0][k] for k in ("type", "seat", "colour", "token", "value")} == {
        "type": "moved", "seat": "green", "colour": "blue", "token": 0, "value": 3}


def test_illegal_anything_after_the_game_is_over():
    state = gload(phase="move", rolled=[1], tokens={"red": ["red-lane-5", "home", "home",
                                                            "home"]})
    over, _ = apply(state, mv("red", 0, 1))
    for action in (Action("roll"), mv("red", 0, 1), Action("timeout"), force("red", 0, 1)):
        with pytest.raises(IllegalAction, match="over"):
            apply(over, action)


@pytest.mark.parametrize(("teams", "tokens", "winners"), [
    (False, {"red": ["home"] * 4, "green": ["home"] * 4}, ["red"]),
    (True, {c: ["home"] * 4 for c in ("red", "yellow", "green", "blue")}, ["red", "yellow"]),
])
def test_the_reader_refuses_a_finished_game_where_the_losers_are_all_home_too(teams, tokens,
                                                                              winners):
    # the game ends the moment the winners' last token comes home, so nobody else can be
    with pytest.raises(NotationError, match="every token is home, but the game ended"):
        gload(teams=teams, phase="over", tokens=tokens, winners=winners)
    alone = {c: v for c, v in tokens.items() if c in winners}
    assert gload(teams=teams, phase="over", tokens=alone, winners=winners).phase == "over"
