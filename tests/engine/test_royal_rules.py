"""Royal Ludo: one or more tests per sentence of the seed (docs/rules/royal.md lists them).

Test names start with the number of the seed sentence they pin (``s01`` .. ``s29``), or
``entering``/``table`` for the readings that complete the seed. Positions are built through
the notation (:func:`load`), so every scenario also exercises Royal's position reader.

Track spaces: red's starting point is 0, green's 13, yellow's 26, blue's 39 (the crown spaces,
with the four home crowns); the feather spaces (stars) are 8, 21, 34 and 47. Red turns into its
home column after 50, green after 11, yellow after 24, blue after 37.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

from ludo import Action, IllegalAction, apply, format_position, legal_actions, parse_position
from ludo.engine import auto_action, choices, distinct_moves, rules_for, scene
from ludo.errors import NotationError
from ludo.geometry import TRACK_CELLS
from ludo.notation import position_to_json
from ludo.rules import royal

COLOURS = ("red", "green", "yellow", "blue")
RNG = "0123456789abcdef"
R = rules_for("royal")


def pos(seats: Any = COLOURS, turn: str = "red", phase: str = "roll", die: Any = None,
        crowns: int | None = None, men: dict[str, list[Any]] | None = None,
        doubles: Any = (), timeouts: dict[str, int] | None = None,
        out: dict[str, str] | None = None, winner: str | None = None) -> dict[str, Any]:
    """A Royal position as JSON; men not given wait in the balk.

    ``doubles`` is a list of ``((carrier colour, man), (rider colour, man))``.
    """
    seats = [c for c in COLOURS if c in seats]
    out = dict(out or {})
    men = {c: list(v) for c, v in (men or {}).items()}
    timeouts = dict(timeouts or {})
    for c in seats:
        men.setdefault(c, [] if c in out else ["balk"] * 4)
        timeouts.setdefault(c, 5 if out.get(c) == "eliminated" else 0)
    if crowns is None:
        crowns = 1 if die == "crown" else 0
    return {
        "format": "courtyard-ludo/position", "version": 1, "rules": "royal", "seats": seats,
        "turn": turn, "phase": phase, "die": die, "crowns": crowns, "men": men,
        "doubles": [{"carrier": list(c), "rider": list(r)} for c, r in doubles],
        "timeouts": timeouts, "out": out, "winner": winner, "rng": RNG,
    }


def load(**kwargs: Any) -> Any:
    """Parse :func:`pos` through the engine's notation reader."""
    return parse_position(json.dumps(pos(**kwargs)))


def men(state: Any, colour: str) -> list[Any]:
    return position_to_json(state)["men"][colour]


def doubles(state: Any) -> list[dict[str, Any]]:
    return position_to_json(state)["doubles"]


def throw(state: Any, face: Any) -> tuple[Any, list[dict[str, Any]]]:
    return apply(state, Action("roll", value=face))


def play(state: Any, *actions: Action) -> tuple[Any, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    for action in actions:
        state, caused = apply(state, action)
        events += caused
    return state, events


def told(events: list[dict[str, Any]]) -> str:
    """What a throw's events say, as the log and the screen reader put it (the turn aside)."""
    return " ".join(t for e in events if e["type"] != "turn" and (t := R.describe(e, {})))


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def movable(state: Any) -> set[int]:
    return {a.token for a in legal_actions(state) if a.type == "move"}


def move(token: int) -> Action:
    return Action("move", token=token)


def assert_illegal(state: Any, action: Action, match: str) -> None:
    """Refused with a one-line message, and the position is exactly as it was."""
    before = copy.deepcopy(state)
    text = format_position(state)
    with pytest.raises(IllegalAction, match=match) as info:
        apply(state, action)
    assert state == before and format_position(state) == text
    assert "\n" not in str(info.value)


# -- the men, the balk, the direction ---------------------------------------------------------


def test_s01_each_player_has_four_men_of_one_colour():
    for seats in (("red", "yellow"), ("red", "green", "yellow"), COLOURS):
        state = R.new_game(seats, 3)
        for colour in seats:
            assert men(state, colour) == ["balk"] * 4
        pieces = [p for s in scene(state).stacks for p in s.pieces]
        assert len(pieces) == 4 * len(seats)
        assert {p.colour for p in pieces} == set(seats)


def test_s02_men_start_on_the_four_circles_of_their_own_balk():
    state = R.new_game(COLOURS, 3)
    places = {s.place: s.pieces for s in scene(state).stacks}
    for colour in COLOURS:
        for t in range(4):
            (piece,) = places[f"{colour}-yard-{t}"]
            assert piece.colour == colour and "balk" in piece.label
    cells = {c.id: c for c in scene(state).board.cells}
    assert cells["red-yard-0"].shape == "spot" and cells["red-yard-0"].label == "red's balk"


def test_s03_play_goes_right_to_left_round_the_board_clockwise():
    # screen coordinates (y down): the angle round the centre grows when going clockwise
    total = 0.0
    for a, b in zip(TRACK_CELLS, TRACK_CELLS[1:] + TRACK_CELLS[:1], strict=True):
        ta = math.atan2(a[1] + 0.5 - 7.5, a[0] + 0.5 - 7.5)
        tb = math.atan2(b[1] + 0.5 - 7.5, b[0] + 0.5 - 7.5)
        total += (tb - ta + math.pi) % (2 * math.pi) - math.pi
    assert total == pytest.approx(2 * math.pi)
    # along the bottom edge, where red and blue sit, men go from right to left
    bottom = [i for i, (col, row) in enumerate(TRACK_CELLS) if row == 14]
    assert [TRACK_CELLS[i][0] for i in sorted(bottom)] == [8, 7, 6]
    state = load(turn="red", phase="move", die=1, men={"red": [3, "balk", "balk", "balk"]})
    after, _ = play(state, move(0))
    assert men(after, "red")[0] == 4


# -- starting --------------------------------------------------------------------------


def test_s04_red_leads_the_throwing_whatever_the_seed():
    assert {R.new_game(COLOURS, seed).turn for seed in range(40)} == {"red"}
    assert {R.new_game(("red", "yellow"), seed).turn for seed in range(40)} == {"red"}
    # without red, the first seat clockwise after red leads
    assert R.new_game(("green", "blue"), 5).turn == "green"


def test_s04_the_player_on_the_left_follows_round_the_board():
    state = R.new_game(COLOURS, 1)
    order = []
    for _ in range(8):
        order.append(state.turn)
        state, _ = throw(state, 2)
    assert order == ["red", "green", "yellow", "blue"] * 2
    two = R.new_game(("red", "yellow"), 1)
    after, events = throw(two, 3)
    assert after.turn == "yellow" and events[-1] == {"type": "turn", "seat": "yellow"}


def test_s04_throws_do_nothing_until_a_crown():
    state = R.new_game(COLOURS, 1)
    for face in (1, 2, 3, 4, "feather"):
        after, events = throw(state, face)
        assert kinds(events) == ["rolled", "no_move", "turn"]
        assert events[1]["reason"] == "no_man_out"
        assert after.tokens == state.tokens and after.turn == "green"
    assert told(events) == ("Red threw a feather. No man is out yet, and only a crown starts "
                            "one: the throw is lost.")


def test_s04_a_throw_lost_with_men_home_and_the_rest_in_the_balk_does_not_say_none_is_out():
    # three men home, one in the balk: men have been out, so "No man is out yet" would be false
    state = load(men={"red": ["balk", "home", "home", "home"]})
    after, events = throw(state, 3)
    assert kinds(events) == ["rolled", "no_move", "turn"]
    assert events[1]["reason"] == "in_balk"
    assert told(events) == ("Red threw a 3. Every man not yet home is in the balk, and only a "
                            "crown starts one: the throw is lost.")


def test_s05_the_first_crown_places_a_man_on_the_starting_point():
    state = R.new_game(COLOURS, 1)
    after, events = throw(state, "crown")
    assert after.phase == "move" and after.turn == "red"
    assert distinct_moves(after) == [move(0)]  # the four men in the balk are one choice
    assert auto_action(after) == move(0)
    after, events = play(after, move(0))
    assert men(after, "red") == [0, "balk", "balk", "balk"]
    assert events[0] == {"type": "entered", "seat": "red", "token": 0, "to": 0,
                         "pieces": ["red-0"], "path": ["red-yard-0", "0"]}


def test_s06_after_the_first_crown_he_throws_again():
    state, events = play(R.new_game(COLOURS, 1), Action("roll", value="crown"), move(0))
    assert state.turn == "red" and state.phase == "roll"
    assert events[-1] == {"type": "extra_roll", "seat": "red", "reason": "crown"}


def test_s07_the_others_start_the_same_way_on_their_own_crown():
    state = load(turn="green", men={"red": [0, "balk", "balk", "balk"]})
    after, _ = play(state, Action("roll", value="crown"), move(2))
    assert men(after, "green") == ["balk", "balk", 13, "balk"]
    assert after.turn == "green" and after.phase == "roll"


# -- throws --------------------------------------------------------------------------------


def test_s08_every_crown_earns_another_throw_even_one_that_cannot_be_used():
    state = load(men={"red": [5, "balk", "balk", "balk"]})
    after, events = play(state, Action("roll", value="crown"), move(0))
    assert men(after, "red")[0] == 13 and after.turn == "red" and after.phase == "roll"
    # a crown red cannot play: its only man left is blocked by a double on 13
    blocked = load(men={"red": [10, "home", "home", "home"],
                        "green": [13, "balk", "balk", "balk"],
                        "yellow": [13, "balk", "balk", "balk"]},
                   doubles=[(("green", 0), ("yellow", 0))])
    after, events = throw(blocked, "crown")
    assert kinds(events) == ["rolled", "no_move", "extra_roll"]
    assert after.turn == "red" and after.phase == "roll" and after.crowns == 1


def test_s08_the_extra_throw_is_always_taken_there_is_no_passing_it_up():
    # "entitled to another throw", "He may throw again": the right is always used. After a
    # crown, also one whose next throw might force a move to his disadvantage (a carrier must
    # carry his rider on), the only action is the throw, and a try to end the turn is refused
    state = load(men={"red": [5, 20, "balk", "balk"], "green": [5, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, events = play(state, Action("roll", value="crown"), move(0))
    assert after.turn == "red" and after.phase == "roll"
    assert legal_actions(after) == [Action("roll")]
    for action in (Action("stay"), Action("move", token=1)):
        with pytest.raises(IllegalAction):
            apply(after, action)


def test_s09_a_later_crown_starts_another_man_or_moves_one_out():
    state = load(men={"red": [5, "balk", "balk", "balk"]})
    after, _ = throw(state, "crown")
    assert distinct_moves(after) == [move(0), move(1)]
    labels = {c.action.token: c.label for c in choices(after)}
    assert labels[0].startswith("moves to space 14") and labels[1] == "starts on the starting point"
    started, _ = play(after, move(1))
    assert men(started, "red") == [5, 0, "balk", "balk"]
    moved, _ = play(after, move(0))
    assert men(moved, "red") == [13, "balk", "balk", "balk"]


def test_s10_a_number_moves_that_many_spaces():
    for face in (1, 2, 3, 4):
        state = load(phase="move", die=face, men={"red": [5, "balk", "balk", "balk"]})
        after, events = play(state, move(0))
        assert men(after, "red")[0] == 5 + face
        assert events[0] == {"type": "moved", "seat": "red", "token": 0, "from": 5,
                             "to": 5 + face, "pieces": ["red-0"],
                             "path": [str(5 + k) for k in range(face + 1)]}
    # round the corner of the board: green from 50 goes on over 51 to 0
    state = load(turn="green", phase="move", die=3, men={"green": [50, "balk", "balk", "balk"]})
    assert men(play(state, move(0))[0], "green")[0] == 1


def test_s11_he_must_move_whenever_he_can():
    state = load(phase="move", die=2, men={"red": [5, 20, "balk", "balk"]})
    assert movable(state) == {0, 1}
    assert all(a.type == "move" for a in legal_actions(state))  # there is no "pass"
    assert_illegal(state, Action("roll"), "must move a man before throwing again")


def test_s11_whether_to_his_advantage_or_not():
    # red's only move carries green's rider four spaces on for nothing: it must be played
    state = load(men={"red": [0, "balk", "balk", "balk"], "green": [0, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, _ = throw(state, 4)
    assert auto_action(after) == move(0)
    after, _ = play(after, move(0))
    assert men(after, "green")[0] == 4


def test_s12_a_crown_moves_to_the_next_crown_space_whatever_lies_between():
    for start, end in ((1, 13), (8, 13), (12, 13), (13, 26), (30, 39)):
        state = load(phase="move", die="crown", men={"red": [start, "balk", "balk", "balk"]})
        after, _ = play(state, move(0))
        assert men(after, "red")[0] == end, start


def test_s12_a_crown_whose_next_crown_space_is_the_home_crown_goes_home():
    for start in (39, 40, 47, 50, "red-lane-1", "red-lane-5"):
        state = load(phase="move", die="crown",
                     men={"red": [start, "home", "balk", "balk"]})
        after, events = play(state, move(0))
        assert men(after, "red")[0] == "home", start
        assert {"type": "reached_home", "seat": "red", "token": 0} in events


def test_s13_a_feather_moves_to_the_next_feather_space():
    for start, end in ((0, 8), (1, 8), (7, 8), (13, 21), (27, 34), (39, 47)):
        state = load(phase="move", die="feather", men={"red": [start, "balk", "balk", "balk"]})
        after, _ = play(state, move(0))
        assert men(after, "red")[0] == end, start


def test_s13_a_feather_cannot_pass_a_crown_and_the_throw_is_lost():
    for start in (8, 9, 12, 48, 50):  # 13 (a crown) or the home crown comes first
        state = load(men={"red": [start, "balk", "balk", "balk"]})
        after, events = throw(state, "feather")
        assert kinds(events) == ["rolled", "no_move", "turn"], start
        assert events[1]["reason"] == "feather"
        assert men(after, "red")[0] == start
        assert told(events) == ("Red threw a feather. A feather cannot pass a crown: the "
                                "throw is lost.")


def test_s13_a_feather_stopped_for_one_man_is_played_by_another():
    state = load(men={"red": [10, 2, "balk", "balk"]})
    after, _ = throw(state, "feather")
    assert after.phase == "move" and movable(after) == {1}
    assert men(play(after, move(1))[0], "red") == [10, 8, "balk", "balk"]


# -- doubles -------------------------------------------------------------------------------------


def test_s14_throwing_onto_an_opponent_puts_the_man_on_top_a_double():
    state = load(phase="move", die=3, men={"red": [5, "balk", "balk", "balk"],
                                           "green": [8, "balk", "balk", "balk"]})
    after, events = play(state, move(0))
    assert men(after, "red")[0] == 8 and men(after, "green")[0] == 8
    assert doubles(after) == [{"carrier": ["green", 0], "rider": ["red", 0]}]
    assert events[1] == {"type": "doubled", "seat": "red", "token": 0, "place": 8,
                         "carrier": ["green", 0]}
    (stack,) = [s for s in scene(after).stacks if s.place == "8"]
    assert stack.kind == "double" and [p.id for p in stack.pieces] == ["green-0", "red-0"]
    assert "riding on Green man 1" in stack.pieces[1].label
    assert "carrying Red man 1" in stack.pieces[0].label


CARRYING = dict(men={"red": [5, 20, "balk", "balk"], "green": [5, "balk", "balk", "balk"]},
                doubles=[(("red", 0), ("green", 0))])


def test_s15_the_carrier_moves_the_double_rider_and_all():
    state = load(phase="move", die=2, **CARRYING)
    after, events = play(state, move(0))
    assert men(after, "red")[0] == 7 and men(after, "green")[0] == 7
    assert doubles(after) == [{"carrier": ["red", 0], "rider": ["green", 0]}]
    assert events[0]["rider"] == ["green", 0]
    # the screen moves both men along the carrier's path
    assert events[0]["pieces"] == ["red-0", "green-0"]
    assert events[0]["path"] == ["5", "6", "7"]
    assert told(events) == "Red carried the double (with Green man 1) to space 8 (7 past " \
        "Red's start)."
    (choice,) = choices(state)
    assert choice.pieces == ("red-0", "green-0") and choice.target == "7"
    assert choice.label == "carries the double to space 8 (7 past Red's start)"


def test_s15_if_he_cannot_move_the_double_he_moves_another_man():
    # red's own man stands where the double would go: the double cannot move 2
    state = load(phase="move", die=2, men={"red": [5, 7, "balk", "balk"],
                                           "green": [5, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    assert movable(state) == {1}


def test_s16_the_double_is_moved_in_preference_to_all_his_other_men():
    state = load(phase="move", die=1, **CARRYING)
    assert movable(state) == {0}
    assert_illegal(state, move(1), "red must move the double it carries")
    # a crown too: neither the man out nor a man in the balk, while the double can move
    crown = load(phase="move", die="crown", **CARRYING)
    assert movable(crown) == {0}


def test_s16_a_man_of_his_riding_on_another_double_is_one_of_his_other_men():
    # red carries green's man on 5, and red's man 1 rides on blue's man on 20: the rider is
    # one of red's "other men", so while the double can move he may not move off
    both = dict(men={"red": [5, 20, "balk", "balk"], "green": [5, "balk", "balk", "balk"],
                     "blue": [20, "balk", "balk", "balk"]},
                doubles=[(("red", 0), ("green", 0)), (("blue", 0), ("red", 1))])
    state = load(phase="move", die=2, **both)
    assert movable(state) == {0}
    assert "stay" not in {a.type for a in legal_actions(state)}
    assert_illegal(state, move(1), "red must move the double it carries")
    # when the double cannot use the throw (a feather from 48 meets red's starting point
    # first), moving the rider off is the only move: "when he pleases", so he may stay on
    stuck = load(phase="move", die="feather",
                 men={"red": [48, 20, "home", "home"], "green": [48, "balk", "balk", "balk"],
                      "blue": [20, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0)), (("blue", 0), ("red", 1))])
    assert movable(stuck) == {1}
    assert "stay" in {a.type for a in legal_actions(stuck)}


def test_s17_the_rider_may_move_off_alone_when_its_owner_pleases():
    state = load(turn="green", phase="move", die=3,
                 men={"red": [5, "balk", "balk", "balk"], "green": [5, 30, "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    assert movable(state) == {0, 1}  # never compelled: the other man may move instead
    after, events = play(state, move(0))
    assert men(after, "green")[0] == 8 and men(after, "red")[0] == 5
    assert doubles(after) == []
    assert events[0]["off"] is True
    assert R.describe(events[0], {}) == ("Green moved man 1 off alone to space 9, a feather "
                                        "(47 past Green's start).")


# A rider whose owner has no other man out: moving him off is the only move a throw allows
LONE_RIDER = {"men": {"red": [5, "balk", "balk", "balk"], "green": [5, "balk", "balk", "balk"]},
              "doubles": [(("red", 0), ("green", 0))]}


def test_s17_a_rider_is_never_forced_off_when_moving_off_is_the_only_move():
    """"when he pleases": with moving off as the only move, the owner may stay on top and
    let the throw go (seed review 3: the table used to play the move off by itself)."""
    state = load(turn="green", phase="move", die=3, **LONE_RIDER)
    assert [(a.type, a.token) for a in legal_actions(state)] == [("move", 0), ("stay", None)]
    assert auto_action(state) is None  # a decision: not played by itself
    assert [(c.kind, c.label) for c in choices(state)] == [
        ("off", "moves off alone to space 9, a feather (47 past Green's start)"),
        ("stay", "Stay on top (lose this throw)")]
    after, events = apply(state, Action("stay"))
    assert kinds(events) == ["stayed", "turn"]
    assert events[0] == {"type": "stayed", "seat": "green", "value": 3, "tokens": [0],
                         "carriers": [["red", 0]]}
    assert told(events) == "Green stayed on top of Red man 1: the throw is lost."
    assert after.turn == "yellow" and after.phase == "roll"
    assert men(after, "green")[0] == 5 and doubles(after) == [
        {"carrier": ["red", 0], "rider": ["green", 0]}]
    # the same choice on the throw right after climbing on: the double is not undone at once
    fresh = load(turn="green", men={"red": [13, "balk", "balk", "balk"]})
    climbed, events = play(fresh, Action("roll", value="crown"), move(0))
    assert "doubled" in kinds(events) and climbed.turn == "green" and climbed.phase == "roll"
    again, _ = throw(climbed, 3)
    assert {a.type for a in legal_actions(again)} == {"move", "stay"}


def test_s17_staying_on_with_a_crown_still_earns_another_throw():
    # green's other men are home, so no crown can start a man: moving off is the only move
    state = load(turn="green", phase="move", die="crown", crowns=1,
                 men={"red": [5, "balk", "balk", "balk"], "green": [5, "home", "home", "home"]},
                 doubles=[(("red", 0), ("green", 0))])
    assert {a.type for a in legal_actions(state)} == {"move", "stay"}
    after, events = apply(state, Action("stay"))
    assert kinds(events) == ["stayed", "extra_roll"]
    assert after.turn == "green" and after.phase == "roll"


def test_s17_staying_on_is_refused_when_another_man_can_move():
    # "He must move at every throw": another man can use the 3, so the throw cannot be let go
    state = load(turn="green", phase="move", die=3,
                 men={"red": [5, "balk", "balk", "balk"], "green": [5, 30, "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    assert "stay" not in {a.type for a in legal_actions(state)}
    assert_illegal(state, Action("stay"), "green must move a man: staying on top is only")
    assert_illegal(load(turn="green", **LONE_RIDER), Action("stay"), "no throw to let go")
    # a man who rides nobody is never offered it either
    assert_illegal(load(phase="move", die=3, men={"red": [5, "balk", "balk", "balk"]}),
                   Action("stay"), "red must move a man")


def test_s17_a_timeout_lets_the_rider_stay_on():
    """Moving off is the player's choice; a player who ran out of time made none."""
    state = load(turn="green", phase="move", die=3, **LONE_RIDER)
    after, events = apply(state, Action("timeout"))
    assert kinds(events) == ["timeout", "stayed", "turn"]
    assert men(after, "green")[0] == 5 and len(doubles(after)) == 1


def test_s17_a_timeout_moves_the_rider_off_when_that_takes_him_home():
    """Staying on top is for a player who did not choose; nobody would pass up going home
    (here the last man home wins the game), so the timeout takes it."""
    state = load(turn="red", phase="move", die="crown",
                 men={"red": [40, "home", "home", "home"], "green": [40, "balk", "balk", "balk"]},
                 doubles=[(("green", 0), ("red", 0))])  # red rides green
    assert Action("stay") in legal_actions(state)
    after, events = apply(state, Action("timeout"))
    assert kinds(events)[:3] == ["timeout", "moved", "reached_home"]
    assert after.phase == "over" and R.winners(after) == ("red",)
    assert men(after, "green")[0] == 40 and doubles(after) == []


def test_s18_a_rider_moving_off_cannot_play_into_an_occupied_space():
    state = load(turn="green", men={"red": [5, "balk", "balk", "balk"],
                                    "green": [5, "balk", "balk", "balk"],
                                    "yellow": [7, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, events = throw(state, 2)
    assert kinds(events) == ["rolled", "no_move", "turn"]  # it may not climb on yellow
    after, _ = throw(state, 3)
    assert movable(after) == {0}


def test_s19_two_crowns_let_the_carrier_send_the_rider_to_balk():
    state = load(crowns=1, **CARRYING)
    after, events = throw(state, "crown")
    assert after.phase == "choose" and after.turn == "red"
    assert kinds(events) == ["rolled", "two_crowns"]
    assert told(events) == ("Red threw a crown. Two crowns in succession: Red may send Green "
                            "man 1 back to balk, climb on top, or play the crown as a move.")
    options = choices(after)
    assert [(c.kind, c.label, c.pieces, c.target) for c in options] == [
        ("send_back", "Send Green man 1 back to balk", (), None),
        ("reverse", "Climb on top of Green man 1", (), None),
        ("carry", "carries the double to space 14, a crown (13 past Red's start)",
         ("red-0", "green-0"), "13")]
    back, events = play(after, Action("send_back", token=0))
    assert men(back, "green")[0] == "balk" and doubles(back) == []
    assert men(back, "red")[0] == 5
    assert kinds(events) == ["captured", "extra_roll"]
    assert back.turn == "red" and back.phase == "roll" and back.crowns == 0


def test_s19_or_climb_on_top_reversing_the_double():
    state, events = play(load(crowns=1, **CARRYING), Action("roll", value="crown"),
                         Action("reverse", token=0))
    assert doubles(state) == [{"carrier": ["green", 0], "rider": ["red", 0]}]
    assert kinds(events)[-2:] == ["reversed", "extra_roll"]
    (stack,) = [s for s in scene(state).stacks if s.place == "5"]
    assert [p.id for p in stack.pieces] == ["green-0", "red-0"]
    # green is now the carrier: on its throw it must move the double
    green, _ = play(state, Action("roll", value=1))  # red's extra throw: a 1, red moves man 1
    green, _ = play(green, move(1))
    after, _ = throw(green, 2)
    assert after.turn == "green" and movable(after) == {0}


def test_s19_may_also_play_the_crown_as_an_ordinary_move():
    # "he may send the double back ... or place himself on top": he is not obliged to; the
    # crown can be played as usual instead (the double still moves in preference); he keeps
    # the double, and that crown counts as the first of the next pair
    state = load(crowns=1, turn="green",
                 men={"red": [20, "balk", "balk", "balk"], "green": [20, "green-lane-5", "home",
                                                                    "balk"],
                      "yellow": [39, "balk", "balk", "balk"]},
                 doubles=[(("green", 0), ("red", 0))])
    after, _ = throw(state, "crown")
    assert after.phase == "choose"
    assert legal_actions(after) == [Action("send_back", token=0), Action("reverse", token=0),
                                    move(0)]
    with pytest.raises(IllegalAction, match="must move the double"):
        play(after, move(1))  # the double moves in preference to the man in the column
    moved, events = play(after, move(0))
    assert men(moved, "green")[0] == 26 and men(moved, "red")[0] == 26
    assert doubles(moved) == [{"carrier": ["green", 0], "rider": ["red", 0]}]
    assert moved.phase == "roll" and moved.turn == "green" and moved.crowns == 1
    assert kinds(events) == ["moved", "extra_roll"]
    assert parse_position(format_position(moved)) == moved  # the position reads back


def test_s19_a_crown_right_after_a_crown_played_as_a_move_is_again_two_crowns_in_succession():
    # crowns 2 and 3 are also "two crowns in succession" while the carrier still carries the
    # double: playing crown 2 as a move does not use the pair up (only sending back or
    # climbing on top does)
    state = load(crowns=1, turn="green",
                 men={"red": [14, "balk", "balk", "balk"], "green": [14, 30, "balk", "balk"]},
                 doubles=[(("green", 0), ("red", 0))])
    second, _ = throw(state, "crown")
    assert second.phase == "choose"
    moved, _ = play(second, move(0))  # crown 2 as a move: the double goes on to 26
    assert men(moved, "green")[0] == 26 and doubles(moved) != [] and moved.crowns == 1
    third, events = throw(moved, "crown")
    assert third.phase == "choose" and third.crowns == 2
    assert kinds(events) == ["rolled", "two_crowns"]
    assert legal_actions(third) == [Action("send_back", token=0), Action("reverse", token=0),
                                    move(0)]
    # crown 3 played as a move too: crown 4 gives the choice once more
    fourth, _ = play(third, move(0), Action("roll", value="crown"))
    assert men(fourth, "green")[0] == 39 and fourth.phase == "choose"
    # a choice made uses the pair up: the next crown is the first of a new pair
    after, _ = play(fourth, Action("reverse", token=0))
    assert after.crowns == 0


def test_s19_ending_one_double_keeps_the_pair_going_for_another_double_carried():
    # red carries two doubles. Crowns 1 and 2: red sends one rider back (or climbs on top of
    # him). That ends the double the pair was about; the other double was carried through
    # crown 2 as well, so crown 3, straight after, is again two crowns in succession for it,
    # as when crown 2 is played as a move (before 2026-12-07 the count started again for both)
    state = load(crowns=1, men={"red": [3, 20, "balk", "balk"], "green": [3, 20, "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0)), (("red", 1), ("green", 1))])
    second, _ = throw(state, "crown")
    assert second.phase == "choose"
    for first in ("send_back", "reverse"):
        after, _ = play(second, Action(first, token=0))
        assert after.phase == "roll" and after.turn == "red" and after.crowns == 1
        third, events = throw(after, "crown")
        assert third.phase == "choose" and kinds(events) == ["rolled", "two_crowns"]
        assert legal_actions(third) == [Action("send_back", token=1),
                                        Action("reverse", token=1), move(1)]
        assert parse_position(format_position(after)) == after
        # with the last double ended too, the count starts again: no double, no pair
        done, _ = play(third, Action("send_back", token=1))
        assert done.crowns == 0 and doubles(done) == ([] if first == "send_back" else
                                                      [{"carrier": ["green", 0],
                                                        "rider": ["red", 0]}])


def test_s19_the_two_crowns_sentence_names_only_the_options_offered():
    # red carries two doubles: the one on 20 can play the crown (to 26), the one on 10 cannot
    # (13 holds a double); red has no other man. Either rider may be sent back; red may climb
    # on Green man 2 only (climbing on Green man 1 would leave the double on 10, which cannot
    # play the crown, as red's only other man); the crown may be played as a move (the double
    # on 20)
    state = load(crowns=1, men={"red": [20, 10, "home", "home"],
                                "green": [20, 10, "balk", "balk"],
                                "yellow": [13, "balk", "balk", "balk"],
                                "blue": [13, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0)), (("red", 1), ("green", 1)),
                          (("yellow", 0), ("blue", 0))])
    after, events = throw(state, "crown")
    assert legal_actions(after) == [Action("send_back", token=0), Action("send_back", token=1),
                                    Action("reverse", token=1), move(0)]
    assert events[1] == {"type": "two_crowns", "seat": "red",
                         "riders": [["green", 0], ["green", 1]],
                         "send_back": [["green", 0], ["green", 1]],
                         "reverse": [["green", 1]], "move": True}
    assert told(events) == ("Red threw a crown. Two crowns in succession: Red may send Green "
                            "man 1 or Green man 2 back to balk, climb on top of Green man 2, or "
                            "play the crown as a move.")
    assert [c.label for c in choices(after) if not c.pieces] == [
        "Send Green man 1 back to balk", "Send Green man 2 back to balk",
        "Climb on top of Green man 2"]
    assert_illegal(after, Action("roll"), "must first play the second crown: send a rider to "
                   "balk, climb on top, or move a man")


def test_s19_crowns_in_succession_are_counted_within_the_turn():
    state = load(**CARRYING)  # first crown of the turn: the double moves, no choice yet
    after, _ = throw(state, "crown")
    assert after.phase == "move" and after.crowns == 1 and movable(after) == {0}
    after, _ = play(after, move(0))
    assert men(after, "red")[0] == 13 and after.phase == "roll" and after.crowns == 1
    after, _ = throw(after, "crown")
    assert after.phase == "choose"


def test_s20_the_rider_must_go_to_balk_if_the_carrier_has_no_other_man_to_move():
    state = load(crowns=1, men={"red": [5, "home", "home", "home"],
                                "green": [5, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, events = throw(state, "crown")
    assert kinds(events) == ["rolled", "captured", "extra_roll"]
    assert events[1]["reason"] == "two_crowns_forced"
    assert "notice" not in events[1]  # his own throw: seen as it happens, like any capture
    assert men(after, "green")[0] == "balk" and after.phase == "roll" and after.turn == "red"
    assert "must go back to balk" in R.describe(events[1], {})


def test_s20_carrying_two_doubles_with_no_other_man_to_move_one_rider_must_go_to_balk():
    # neither double can play the crown (from 5 and 6 green's next crown space is his home
    # crown, where a double never goes) and green has no other man: one rider must go, green
    # picks which; nothing else is offered, and the sentence says no more than that
    state = load(turn="green", crowns=1, men={"red": [5, 6, "balk", "balk"],
                                              "green": [5, 6, "home", "home"]},
                 doubles=[(("green", 0), ("red", 0)), (("green", 1), ("red", 1))])
    after, events = throw(state, "crown")
    assert legal_actions(after) == [Action("send_back", token=0), Action("send_back", token=1)]
    assert told(events) == ("Green threw a crown. Two crowns in succession: Green must send Red "
                            "man 1 or Red man 2 back to balk.")
    assert [c.label for c in choices(after)] == ["Send Red man 1 back to balk",
                                                 "Send Red man 2 back to balk"]
    assert_illegal(after, Action("roll"), "must first play the second crown: send a rider to "
                   "balk$")


def test_s20_a_man_in_the_balk_that_the_crown_could_start_is_another_man_to_move():
    state = load(crowns=1, men={"red": [5, "home", "home", "balk"],
                                "green": [5, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, _ = throw(state, "crown")
    assert after.phase == "choose"
    assert {a.type for a in legal_actions(after)} == {"send_back", "reverse", "move"}
    # ...unless its starting point is blocked by its own man
    blocked = load(crowns=1, men={"red": [5, 0, "home", "balk"],
                                  "green": [5, "balk", "balk", "balk"],
                                  "yellow": [13, "balk", "balk", "balk"],
                                  "blue": [13, "balk", "balk", "balk"]},
                   doubles=[(("red", 0), ("green", 0)), (("yellow", 0), ("blue", 0))])
    after, events = throw(blocked, "crown")
    assert "captured" in kinds(events) and after.phase == "roll"


def test_s21_a_rider_carried_past_its_own_home_colour_plays_round_again():
    # green turns into its column after 11; red carries green's man from 9 to 12
    state = load(phase="move", die=3, men={"red": [9, "balk", "balk", "balk"],
                                           "green": [9, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, _ = play(state, move(0))
    assert men(after, "green")[0] == 12
    assert royal.path_from(1, 12)[:3] == (13, 14, 15)
    assert len(royal.path_from(1, 12)) == 51 + 6  # the whole way round again
    assert royal.progress(1, 12) < royal.progress(1, 9)


def test_s22_a_rider_carried_into_another_home_colour_stays_there():
    state = load(phase="move", die=3, men={"red": [48, 20, "balk", "balk"],
                                           "green": [48, 30, "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    # the move's words say before the click that the rider is left there (the seed's "he has
    # to remain there"), not only that the double goes up the column
    (carry,) = [c for c in choices(state) if c.action == move(0)]
    assert carry.label == ("carries the double to space 1 of its own home column, leaving Green "
                           "man 1 there")
    after, events = play(state, move(0))
    assert men(after, "red")[0] == "red-lane-1" and men(after, "green")[0] == "red-lane-1"
    assert doubles(after) == []
    assert events[1] == {"type": "left_in_column", "seat": "green", "token": 0,
                         "place": royal.lane_place(0, 1), "column": "red"}
    # green cannot move that man while its other men are not home
    green = after._replace(turn="green")
    for face in (1, 2, 3, 4, "crown"):
        rolled, _ = throw(green, face)
        assert 0 not in movable(rolled)
    # red's carrier goes on up its column alone
    red, _ = throw(after._replace(turn="red"), 2)
    assert 0 in movable(red)
    assert told(events).endswith("Green's man 1 was carried into Red's home column and waits "
                                 "there until all Green's other men are home.")


def test_s22_a_rider_left_in_a_column_with_his_other_men_home_is_not_told_to_wait():
    # green's other three men are home: "till he has got all his other men home first" is
    # already true, so he may play back down at once, and the log must not say he waits
    state = load(phase="move", die=3, men={"red": [48, 20, "balk", "balk"],
                                           "green": [48, "home", "home", "home"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, events = play(state, move(0))
    assert events[1] == {"type": "left_in_column", "seat": "green", "token": 0,
                         "place": royal.lane_place(0, 1), "column": "red", "free": True}
    assert "waits there" not in told(events)
    assert told(events).endswith("Green's man 1 was carried into Red's home column; Green has "
                                 "no other man to bring home first, so it need not wait there "
                                 "and may play back down.")
    rolled, _ = throw(after, 1)  # green's turn: the man plays down straight away
    assert movable(rolled) == {0}


def test_s22_a_double_never_goes_onto_the_home_crown():
    state = load(men={"red": [45, 20, "balk", "balk"], "green": [45, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, _ = throw(state, "crown")
    assert movable(after) == {1, 2, 3}  # the double cannot go home; red plays another man
    assert distinct_moves(after) == [move(1), move(2)]


def test_s22_a_crown_lost_because_the_double_cannot_go_onto_the_home_crown_says_so():
    # red carries green's man on 45: red's next crown space is his home crown, where a double
    # never goes; red has no other man out, so the crown is lost, and the player is told why
    state = load(men={"red": [45, "home", "home", "home"], "green": [45, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, events = throw(state, "crown")
    assert kinds(events) == ["rolled", "no_move", "extra_roll"]
    assert events[1]["reason"] == "double_home" and "also" not in events[1]
    assert told(events) == ("Red threw a crown. A double cannot go onto the home crown: the "
                            "throw is lost. A crown: Red throws again.")
    assert men(after, "red")[0] == 45 and after.crowns == 1


def test_s23_with_all_other_men_home_the_rider_plays_down_and_round():
    state = load(turn="green", men={"red": [20, "balk", "balk", "balk"],
                                    "green": ["red-lane-3", "home", "home", "home"]})
    for face, end in ((1, "red-lane-2"), (2, "red-lane-1"), (3, 50), (4, 51), ("crown", 0)):
        rolled, _ = throw(state, face)
        assert movable(rolled) == {0}, face
        assert men(play(rolled, move(0))[0], "green")[0] == end, face
    # and on round to its own home column, after green's entrance (11)
    assert royal.path_from(1, royal.lane_place(0, 3))[-7:] == (
        11, *(royal.lane_place(1, k) for k in range(1, 6)), royal.HOME)


def test_s23_two_men_left_in_columns_do_not_wait_for_each_other():
    # green's other men are home or waiting too: both may play down (else neither ever could)
    state = load(turn="green", men={"red": [20, "balk", "balk", "balk"],
                                    "green": ["red-lane-3", "yellow-lane-2", "home", "home"]})
    rolled, _ = throw(state, 2)
    assert movable(rolled) == {0, 1}
    waiting = load(turn="green", men={"red": [20, "balk", "balk", "balk"],
                                      "green": ["red-lane-3", "yellow-lane-2", 30, "home"]})
    rolled, _ = throw(waiting, 2)
    assert movable(rolled) == {2}


def test_s24_a_space_holds_at_most_two_men():
    state = load(men={"red": [5, "balk", "balk", "balk"], "green": [8, "balk", "balk", "balk"],
                      "yellow": [8, "balk", "balk", "balk"]},
                 doubles=[(("green", 0), ("yellow", 0))])
    after, events = throw(state, 3)
    assert kinds(events) == ["rolled", "no_move", "turn"]
    three = pos(men={"red": [8, "balk", "balk", "balk"], "green": [8, "balk", "balk", "balk"],
                     "yellow": [8, "balk", "balk", "balk"]})
    with pytest.raises(Exception, match="at most 2"):
        parse_position(json.dumps(three))


def test_s25_a_double_coming_to_an_opponent_sends_him_to_balk():
    state = load(phase="move", die=3, men={"red": [5, "balk", "balk", "balk"],
                                           "green": [5, "balk", "balk", "balk"],
                                           "yellow": [8, 30, "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0))])
    after, events = play(state, move(0))
    assert men(after, "yellow")[0] == "balk"
    assert men(after, "red")[0] == 8 and men(after, "green")[0] == 8
    assert events[1] == {"type": "captured", "seat": "red", "place": 8,
                         "victims": [["yellow", 0]], "reason": "double"}
    assert R.describe(events[1], {}) == "Red's double landed on Yellow man 1: back to balk."
    # the rider's own colour is an opponent of the carrier too
    same = load(phase="move", die=3, men={"red": [5, "balk", "balk", "balk"],
                                          "green": [5, 8, "balk", "balk"]},
                doubles=[(("red", 0), ("green", 0))])
    assert men(play(same, move(0))[0], "green") == [8, "balk", "balk", "balk"]


def test_s26_no_man_plays_into_a_space_held_by_his_own_man():
    state = load(men={"red": [5, 8, "balk", "balk"]})
    after, _ = throw(state, 3)
    assert movable(after) == {1}
    assert_illegal(after, move(0), "red man 0 cannot move 3")


def test_s26_no_man_plays_into_a_space_held_by_a_double():
    state = load(men={"red": [5, 30, "balk", "balk"], "green": [8, "balk", "balk", "balk"],
                      "yellow": [8, "balk", "balk", "balk"]},
                 doubles=[(("green", 0), ("yellow", 0))])
    after, _ = throw(state, 3)
    assert movable(after) == {1}
    carrier = load(men={"red": [5, "balk", "balk", "balk"], "blue": [5, "balk", "balk", "balk"],
                        "green": [8, "balk", "balk", "balk"],
                        "yellow": [8, "balk", "balk", "balk"]},
                   doubles=[(("red", 0), ("blue", 0)), (("green", 0), ("yellow", 0))])
    after, events = throw(carrier, 3)
    assert events[1]["type"] == "no_move"


def test_s27_with_no_other_man_to_move_the_throw_is_lost():
    # a 2 would put each of red's men onto a double
    state = load(men={"red": [5, 9, "balk", "balk"], "green": [7, 11, "balk", "balk"],
                      "yellow": [7, 11, "balk", "balk"]},
                 doubles=[(("green", 0), ("yellow", 0)), (("green", 1), ("yellow", 1))])
    after, events = throw(state, 2)
    assert kinds(events) == ["rolled", "no_move", "turn"]
    assert events[1]["reason"] == "blocked" and after.turn == "green"
    assert told(events) == "Red threw a 2. No man can move: the throw is lost."


def test_s27_a_lost_throw_names_every_cause_whatever_else_is_in_the_balk():
    # red: a man waiting in green's column (red's other men are not all home), one in the
    # balk whose starting point holds a green-blue double; a crown: both are why it is lost
    state = load(men={"red": ["green-lane-2", "balk", "home", "home"],
                      "green": [0, "balk", "balk", "balk"], "blue": [0, "balk", "balk", "balk"]},
                 doubles=[(("green", 0), ("blue", 0))])
    after, events = throw(state, "crown")
    assert kinds(events) == ["rolled", "no_move", "extra_roll"]
    assert events[1]["reason"] == "start_held" and events[1]["also"] == ["waiting"]
    assert told(events) == (
        "Red threw a crown. A double holds the starting point, so no man can start, and a man "
        "left in another colour's column waits there until all the player's other men are "
        "home: the throw is lost. A crown: Red throws again.")
    # with men in the balk, a number lost to the waiting man says so too
    after, events = throw(state, 2)
    assert events[1]["reason"] == "waiting" and "also" not in events[1]
    # a cause for some men, and others blocked: the feather cannot pass 13 from 8 or 10, and
    # the man on 5 would land on his own man on 8
    state = load(men={"red": [5, 8, 10, "balk"]})
    after, events = throw(state, "feather")
    assert events[1]["reason"] == "feather" and events[1]["also"] == ["blocked"]
    assert told(events) == ("Red threw a feather. A feather cannot pass a crown, and no other man "
                            "can move: the throw is lost.")
    # a feather stopped by a crown for one man and in the home column for another: one clause
    state = load(men={"red": [10, "red-lane-2", "balk", "balk"]})
    after, events = throw(state, "feather")
    assert events[1]["reason"] == "feather" and events[1]["also"] == ["feather_column"]
    assert told(events) == ("Red threw a feather. A feather cannot pass a crown or be used in the "
                            "home column: the throw is lost.")


# -- home colours and winning -------------------------------------------------------------


def test_s28_numbers_move_up_the_home_column_but_never_past_its_last_space():
    state = load(phase="move", die=4, men={"red": [49, "balk", "balk", "balk"]})
    assert men(play(state, move(0))[0], "red")[0] == "red-lane-3"
    for start, face, end in (("red-lane-1", 4, "red-lane-5"), ("red-lane-3", 2, "red-lane-5")):
        state = load(phase="move", die=face, men={"red": [start, "balk", "balk", "balk"]})
        assert men(play(state, move(0))[0], "red")[0] == end
    stuck = load(men={"red": ["red-lane-3", "balk", "balk", "balk"]})
    for face in (3, 4):
        after, events = throw(stuck, face)
        assert kinds(events) == ["rolled", "no_move", "turn"]
        # the end of every game (the last man in the column, numbers thrown): said as such
        assert events[1]["reason"] == "column_end" and "also" not in events[1]
    assert told(events) == ("Red threw a 4. A number cannot take a man past the last space of "
                            "his home column, where only a crown takes him home: the throw is "
                            "lost.")
    # beside another cause, each is said
    both = load(men={"red": ["red-lane-5", 5, "balk", "balk"], "green": [7, "balk", "balk", "balk"],
                     "yellow": [7, "balk", "balk", "balk"]},
                doubles=[(("green", 0), ("yellow", 0))])
    after, events = throw(both, 2)
    assert events[1]["reason"] == "column_end" and events[1]["also"] == ["blocked"]


def test_s28_only_a_crown_reaches_the_home_crown_and_a_feather_is_no_use_there():
    state = load(men={"red": ["red-lane-5", "balk", "balk", "balk"]})
    for face in (1, 2, 3, 4, "feather"):
        after, events = throw(state, face)
        assert events[1]["type"] == "no_move", face
    after, events = throw(state, "feather")
    # the lost feather says why in the column's own words (the home crown comes before any
    # feather space, but "cannot pass a crown" would suggest a crown to get past)
    assert events[1]["reason"] == "feather_column" and "also" not in events[1]
    assert told(events) == ("Red threw a feather. A feather cannot be used in the home column: "
                            "the throw is lost.")
    after, events = play(state, Action("roll", value="crown"), move(0))
    assert men(after, "red")[0] == "home"


def test_s28_in_the_home_column_a_man_is_out_of_danger():
    # a green man left in red's column, free to play down, may not land on red's man
    state = load(turn="green", men={"red": ["red-lane-1", "balk", "balk", "balk"],
                                    "green": ["red-lane-3", "home", "home", "home"]})
    after, events = throw(state, 2)
    assert kinds(events) == ["rolled", "no_move", "turn"]
    # and nobody else's path ever enters red's column
    for ci in (1, 2, 3):
        for place in range(52):
            assert not any(royal.is_lane(p) and royal.lane_of(p)[0] == 0
                           for p in royal.path_from(ci, place))


def test_s28_a_man_waiting_in_another_colour_s_column_blocks_that_colour_s_men_from_his_space():
    # red waits on green-lane-1: green's man on 10 may not land there with a 2 (nobody climbs
    # on a man in a column, and he is not sent back), but passes him with a 3 or a crown
    state = load(turn="green", men={"red": ["green-lane-1", "home", "home", "home"],
                                    "green": [10, "home", "home", "home"]})
    after, events = throw(state, 2)
    assert kinds(events) == ["rolled", "no_move", "turn"]
    assert events[1]["reason"] == "blocked" and men(after, "red")[0] == "green-lane-1"
    assert told(events) == "Green threw a 2. No man can move: the throw is lost."
    after, _ = play(state, Action("roll", value=3), move(0))
    assert men(after, "green")[0] == "green-lane-2" and men(after, "red")[0] == "green-lane-1"
    after, _ = play(state, Action("roll", value="crown"), move(0))
    assert men(after, "green")[0] == "home"


def test_s29_the_first_with_four_men_on_the_home_crown_wins():
    state = load(men={"red": ["red-lane-5", "home", "home", "home"],
                      "green": ["green-lane-5", "home", "home", "home"]})
    after, events = play(state, Action("roll", value="crown"), move(0))
    assert after.phase == "over" and after.winner == "red"
    assert R.winners(after) == ("red",)
    assert kinds(events)[-2:] == ["reached_home", "won"]
    assert legal_actions(after) == []
    assert_illegal(after, Action("roll"), "the game is over")
    assert scene(after).winners == ("red",) and scene(after).turn is None


# -- readings that complete the seed ---------------------------------------------------------


def test_entering_onto_a_single_opponent_on_the_starting_point_makes_a_double():
    state = load(men={"red": ["balk"] * 4, "green": [0, "balk", "balk", "balk"]})
    after, events = play(state, Action("roll", value="crown"), move(0))
    assert doubles(after) == [{"carrier": ["green", 0], "rider": ["red", 0]}]
    assert kinds(events)[1:3] == ["entered", "doubled"]


def test_entering_onto_an_own_man_or_a_double_is_not_possible():
    own = load(men={"red": [0, 30, "balk", "balk"]})
    after, _ = throw(own, "crown")
    assert movable(after) == {0, 1}  # the men out, not the balk
    double = load(men={"red": ["balk"] * 4, "green": [0, "balk", "balk", "balk"],
                       "yellow": [0, "balk", "balk", "balk"]},
                  doubles=[(("green", 0), ("yellow", 0))])
    after, events = throw(double, "crown")
    assert kinds(events) == ["rolled", "no_move", "extra_roll"]
    # the reason given is the double on the starting point, not that a crown is needed
    assert events[1]["reason"] == "start_held"
    assert told(events).startswith("Red threw a crown. A double holds the starting point, so no "
                                   "man can start: the throw is lost.")


def test_table_a_timeout_throws_and_plays_for_the_player():
    state = load(men={"red": [5, 20, "balk", "balk"]})
    after, events = apply(state, Action("timeout", value=3))
    assert kinds(events)[:3] == ["timeout", "rolled", "moved"]
    assert men(after, "red") == [5, 23, "balk", "balk"]  # the man furthest along
    choose = load(crowns=1, **CARRYING)
    rolled, _ = throw(choose, "crown")
    after, events = apply(rolled, Action("timeout"))
    assert kinds(events)[:2] == ["timeout", "captured"]


def test_table_the_fifth_timeout_removes_the_seat_and_its_doubles():
    state = load(timeouts={"red": 4}, **CARRYING)
    after, events = apply(state, Action("timeout"))
    assert kinds(events)[:2] == ["timeout", "eliminated"]
    assert men(after, "red") == [] and doubles(after) == []
    assert men(after, "green")[0] == 5  # the man it carried stays, alone
    assert after.turn == "green"


def test_table_quitting_lifts_the_seat_s_riders_off():
    state = load(turn="green", **CARRYING)
    after, events = apply(state, Action("quit", seat="green"))
    assert men(after, "green") == [] and doubles(after) == []
    assert after.turn == "yellow" and kinds(events) == ["quit", "turn"]
    two = load(seats=("red", "green"), **CARRYING)
    after, events = apply(two, Action("quit", seat="green"))
    assert after.phase == "over" and after.winner == "red"


# -- illegal actions change nothing ---------------------------------------------------------


@pytest.mark.parametrize("action, phase, match", [
    (Action("move", token=0), "roll", "must throw before moving"),
    (Action("send_back", token=0), "roll", "only for a carrier"),
    (Action("roll", value=5), "roll", "1, 2, 3, 4, feather or crown"),
    (Action("roll", value="six"), "roll", "1, 2, 3, 4, feather or crown"),
    (Action("roll", value=True), "roll", "1, 2, 3, 4, feather or crown"),
    (Action("move", token=7), "move", "has no man 7"),
    (Action("move", token=2), "move", "only a crown starts a man"),
    (Action("quit", seat="purple"), "roll", "not a seat"),
    (Action("dance"), "roll", "unknown action type"),
    (Action("timeout", value=2), "move", "give no value"),
])
def test_illegal_actions_are_refused_and_change_nothing(action, phase, match):
    state = load(phase=phase, die=2 if phase == "move" else None,
                 men={"red": [5, 20, "balk", "balk"]})
    assert_illegal(state, action, match)


def test_the_choice_phase_refuses_moves_and_throws():
    state, _ = throw(load(crowns=1, **CARRYING), "crown")
    assert_illegal(state, Action("roll"), "send the rider to balk, climb on top, or move a man")
    assert_illegal(state, move(1), "must move the double")  # played as a move, it is the double's
    assert_illegal(state, Action("reverse", token=1), "carries no double")
    forced, _ = throw(load(crowns=1, men={"red": [5, 20, "home", "home"],
                                          "green": [5, 24, "balk", "balk"],
                                          "yellow": [20, "balk", "balk", "balk"]},
                           doubles=[(("red", 0), ("green", 0)),
                                    (("red", 1), ("yellow", 0))]), "crown")
    # red carries two doubles; each carrier's other man is the other carrier
    assert forced.phase == "choose"
    assert {(a.type, a.token) for a in legal_actions(forced)} >= {("send_back", 0),
                                                                  ("send_back", 1)}


def test_every_action_kind_round_trips_through_its_json():
    for data in ({"type": "roll"}, {"type": "roll", "value": "crown"},
                 {"type": "roll", "value": "feather"}, {"type": "roll", "value": 4},
                 {"type": "move", "token": 3}, {"type": "send_back", "token": 1},
                 {"type": "reverse", "token": 0}, {"type": "timeout", "value": "crown"},
                 {"type": "quit", "seat": "blue"}):
        assert R.parse_action(data).to_json() == data


@pytest.mark.parametrize("data, field", [
    ({"type": "roll", "value": 6}, "action.value"),
    ({"type": "roll", "value": "Crown"}, "action.value"),
    ({"type": "move"}, "action.token"),
    ({"type": "reverse", "token": 4}, "action.token"),
    ({"type": "send_back", "token": 1, "value": 2}, "action.value"),
    ({"type": "fly"}, "action.type"),
    ({"type": "roll", "colour": "red"}, "action"),
    ([], "action"),
])
def test_malformed_actions_name_the_field(data, field):
    with pytest.raises(Exception) as info:
        R.parse_action(data)
    assert info.value.field == field


# -- a seat leaving in the middle of another's throw; positions that cannot arise --------------


def test_the_riders_owner_quitting_during_the_two_crowns_choice_leaves_an_ordinary_crown():
    # green carries yellow; on green's second crown yellow quits: with the double gone there
    # is nothing to choose, and the crown is played as any crown is (it was a freeze before:
    # no legal action, and a timeout crashed)
    state = load(crowns=1, turn="green", men={"red": [30, "balk", "balk", "balk"],
                                              "green": [5, 20, "balk", "balk"],
                                              "yellow": [5, "balk", "balk", "balk"]},
                 doubles=[(("green", 0), ("yellow", 0))])
    choosing, _ = throw(state, "crown")
    assert choosing.phase == "choose"
    after, events = play(choosing, Action("quit", seat="yellow"))
    assert after.phase == "move" and after.turn == "green" and after.die == "crown"
    assert movable(after) == {0, 1, 2, 3}  # the balk men are one distinct move
    assert parse_position(format_position(after)) == after
    timed_out, _ = play(after, Action("timeout"))  # the clock's fallback plays it
    assert timed_out.phase == "roll" and timed_out.turn == "green"


def test_a_seat_leaving_during_the_two_crowns_choice_can_leave_the_rider_no_choice():
    # red carries green (man 0, on 5: its crown is stopped by blue's double on 13) and yellow
    # (man 1, on 20: its crown goes on to 26), and its other men are home. On red's second crown
    # man 1's double is the other man to move for man 0's choice. Green quits: man 0's double
    # is gone, man 0 alone still cannot play the crown, so red has no other man to move and
    # yellow's rider must go to balk ("But the double must go to balk if his carrier has no
    # other man to move"). It stayed a choice before, offering the crown as a move, in a
    # position the reader refuses.
    state = load(crowns=1, men={"red": [5, 20, "home", "home"],
                                "green": [5, "balk", "balk", "balk"],
                                "yellow": [20, 13, "balk", "balk"],
                                "blue": [13, "balk", "balk", "balk"]},
                 doubles=[(("red", 0), ("green", 0)), (("red", 1), ("yellow", 0)),
                          (("blue", 0), ("yellow", 1))])
    choosing, _ = throw(state, "crown")
    assert choosing.phase == "choose" and movable(choosing) == {1}
    after, events = play(choosing, Action("quit", seat="green"))
    assert kinds(events) == ["quit", "captured", "extra_roll"]
    assert events[1]["reason"] == "two_crowns_forced"
    # red's choice vanished because of green's quit, not a throw of his: shown over the board
    assert events[1]["notice"] is True
    assert "Two crowns: Red has no other man to move, so Yellow man 1 must go back to balk." \
        in told(events)
    assert men(after, "yellow") == ["balk", 13, "balk", "balk"]
    assert after.phase == "roll" and after.turn == "red" and after.crowns == 0
    assert parse_position(format_position(after)) == after


def test_a_seat_leaving_at_any_moment_leaves_a_legal_action_or_a_finished_game():
    import random

    rng = random.Random(5)
    for game in range(80):
        seats = R.seating(rng.choice((3, 4)))
        state = R.new_game(seats, game, None)
        steps = 0
        quit_at = rng.randrange(40, 400)
        while state.phase != "over" and steps < 3000:
            if steps == quit_at or (state.phase == "choose" and rng.random() < 0.5):
                others = [s for s in R.active_seats(state) if s != state.turn]
                state, _ = apply(state, Action("quit", seat=rng.choice(others)))
                quit_at = -1 if len(R.active_seats(state)) <= 2 else quit_at + 150
                if state.phase != "over":
                    assert legal_actions(state), format_position(state)
                    assert parse_position(format_position(state)) == state
                steps += 1
                continue
            options = legal_actions(state)
            assert options, format_position(state)
            state, _ = apply(state, rng.choice(options))
            steps += 1


def test_a_feather_or_number_lost_because_the_only_man_out_waits_in_a_column_says_so():
    state = load(turn="red", men={"red": ["green-lane-2", "balk", "balk", "balk"],
                                  "green": ["green-lane-2", "balk", "balk", "balk"]})
    for face in (1, "feather"):
        after, events = throw(state, face)
        assert kinds(events) == ["rolled", "no_move", "turn"]
        assert events[1]["reason"] == "waiting"
        assert "waits there until all the player's other men are home" in told(events)


@pytest.mark.parametrize(("change", "field", "why"), [
    (dict(doubles=[(([], 0), ("red", 0))]), "doubles[0].carrier", "must be"),
    (dict(doubles=[(({}, 0), ("red", 0))]), "doubles[0].carrier", "must be"),
    (dict(men={"red": ["balk"] * 4, "green": ["red-lane-5", "balk", "balk", "balk"]}),
     "men.green[0]", "space 1 to 4"),
    (dict(men={"red": ["red-lane-5"] + ["balk"] * 3, "green": ["red-lane-5", "balk", "balk",
                                                                  "balk"]}),
     "men.green[0]", "space 1 to 4"),
    (dict(seats=("red", "green", "yellow"),
          men={"green": ["blue-lane-2", "balk", "balk", "balk"]}), "men.green[0]",
     "no blue carrier"),
    (dict(phase="over", winner="red", men={"red": ["home"] * 4, "green": ["home"] * 4}),
     "men.green", "the game ends when the first has four home"),
    (dict(phase="over", winner="red", turn="green", men={"red": ["home"] * 4}), "turn",
     "ended on his turn"),
])
def test_the_reader_refuses_positions_that_cannot_arise(change, field, why):
    with pytest.raises(NotationError) as info:
        load(**change)
    assert str(info.value).startswith(field + ":") and why in str(info.value)
