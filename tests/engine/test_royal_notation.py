"""Royal's position notation (version 1 under the shared envelope): round trips, a strict reader
that names the field of every error and refuses positions that cannot arise, fuzzing."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_royal_rules import CARRYING, load, pos

from ludo import Action, NotationError, format_position, parse_position
from ludo.engine import rules_for
from ludo.notation import position_from_json, position_to_json

R = rules_for("royal")


def random_positions(count: int, seed: int) -> list[Any]:
    rnd = random.Random(seed)
    found = []
    for game in range(count):
        state = R.new_game(("red", "green", "yellow", "blue")[:2 + game % 3], seed + game)
        while state.phase != "over":
            found.append(state)
            state = R.advance(state, rnd.choice(R.legal_actions(state)))
        found.append(state)
    return found


def test_every_position_of_random_games_round_trips():
    states = random_positions(12, 3)
    assert any(s.riders for s in states) and any(s.phase == "choose" for s in states)
    for state in states:
        data = position_to_json(state)
        assert position_from_json(json.loads(json.dumps(data))) == state
        assert parse_position(format_position(state)) == state


def test_the_notation_names_men_places_and_doubles():
    state = load(phase="move", die=2, **CARRYING)
    data = position_to_json(state)
    assert data["version"] == 1 and data["rules"] == "royal"
    assert data["men"]["red"] == [5, 20, "balk", "balk"]
    assert data["doubles"] == [{"carrier": ["red", 0], "rider": ["green", 0]}]
    assert list(data) == ["format", "version", "rules", "seats", "turn", "phase", "die",
                          "crowns", "men", "doubles", "timeouts", "out", "winner", "rng"]


def broken(**changes: Any) -> dict[str, Any]:
    data = pos(**{k: v for k, v in changes.items() if not k.startswith("_")})
    for key, value in changes.items():
        if key.startswith("_"):
            name = key[1:]
            if value is KeyError:
                del data[name]
            else:
                data[name] = value
    return data


DOUBLE = {"red": [5, "balk", "balk", "balk"], "green": [5, "balk", "balk", "balk"]}


@pytest.mark.parametrize("data, field, words", [
    (broken(_version=2), "version", "Royal positions of version 1"),
    (broken(_version=True), "version", "not supported"),
    (broken(_dice=3), "dice", "not a field"),
    (broken(_crowns=KeyError), "crowns", "missing"),
    (broken(_rules="courtyard"), "version", "reads version 2"),  # courtyard's reader
    (broken(_seats=["yellow", "red"]), "seats", "clockwise"),
    (broken(men={"red": [5, 5, "balk", "balk"]}), "men.red[0]", "his own man"),
    (broken(men={"red": [5, "balk", "balk"]}), "men.red", "4 men"),
    (broken(men={"red": [52, "balk", "balk", "balk"]}), "men.red[0]", "0..51"),
    (broken(men={"red": ["yard", "balk", "balk", "balk"]}), "men.red[0]", "not a place"),
    (broken(men={"red": [True, "balk", "balk", "balk"]}), "men.red[0]", "not a place"),
    (broken(men=DOUBLE), "men.red[0]", "must be a double"),
    (broken(men={"red": [8, "balk", "balk", "balk"], "green": [8, "balk", "balk", "balk"],
                 "yellow": [8, "balk", "balk", "balk"]}), "men.red[0]", "at most 2"),
    (broken(men=DOUBLE, doubles=[(("red", 0), ("red", 1))]), "doubles[0].rider",
     "only ever rides on an opponent"),
    (broken(men=DOUBLE, doubles=[(("red", 0), ("green", 1))]), "doubles[0].rider",
     "carrier's space"),
    (broken(men={"red": ["red-lane-1", "balk", "balk", "balk"],
                 "green": ["red-lane-1", "balk", "balk", "balk"]},
            doubles=[(("red", 0), ("green", 0))]), "doubles[0].carrier", "track space"),
    (broken(men=DOUBLE, doubles=[(("red", 0), ("green", 0)), (("green", 0), ("red", 0))]),
     "doubles[1].carrier", "already in a double"),
    (broken(men=DOUBLE, _doubles=[{"carrier": ["red", 0]}]), "doubles[0]", "must be"),
    (broken(men={"red": [5, 9, "balk", "balk"], "green": [5, 9, "balk", "balk"]},
            doubles=[(("red", 1), ("green", 1)), (("red", 0), ("green", 0))]), "doubles",
     "by carrier, colours clockwise and then men in order: red 0, red 1"),
    (broken(men={"red": [5, "balk", "balk", "balk"], "green": [9, 5, "balk", "balk"],
                 "yellow": [9, "balk", "balk", "balk"]},
            doubles=[(("green", 0), ("yellow", 0)), (("red", 0), ("green", 1))]), "doubles",
     "red 0, green 0"),
    (broken(men=DOUBLE, _doubles=[{"carrier": ["red", 9], "rider": ["green", 0]}]),
     "doubles[0].carrier", "man 0..3"),
    (broken(men={"green": ["red-lane-2", "balk", "balk", "balk"],
                 "yellow": ["red-lane-2", "balk", "balk", "balk"]}), "men.green[0]",
     "carrier has just left its rider"),
    (broken(phase="move", die=2), "die", "no legal move with 2"),
    (broken(phase="move", die=6, men={"red": [5, "balk", "balk", "balk"]}), "die",
     "thrown face"),
    (broken(phase="roll", die=2), "die", "null in the roll phase"),
    (broken(phase="move", die="crown", crowns=0, men={"red": [5, "balk", "balk", "balk"]}),
     "crowns", "crown just thrown"),
    (broken(phase="roll", crowns=2, **CARRYING), "crowns", "two-crowns choice"),
    (broken(phase="move", die="crown", crowns=2, **CARRYING), "crowns", "two-crowns choice"),
    (broken(phase="choose", die="crown", crowns=2, men={"red": [5, "balk", "balk", "balk"]}),
     "phase", "carrier's second crown"),
    (broken(phase="choose", die="crown", crowns=2, men={"red": [5, "home", "home", "home"],
                                                       "green": [5, "balk", "balk", "balk"]},
            doubles=[(("red", 0), ("green", 0))]), "phase", "no other man to move"),
    (broken(phase="roll", crowns=-1), "crowns", "0 or more"),
    (broken(men={"red": ["home"] * 4}), "men.red", "four men are home"),
    (broken(phase="over", winner="green"), "winner", "neither four men home"),
    (broken(winner="red"), "winner", "only a finished game"),
    (broken(out={"green": "quit"}, turn="green"), "turn", "has left"),
    (broken(timeouts={"red": 5}), "timeouts.red", "exactly on timeout 5"),
    (broken(_rng="xyz"), "rng", "16 hexadecimal digits"),
    (broken(phase="dance"), "phase", "must be"),
])
def test_positions_that_cannot_arise_are_refused_naming_the_field(data, field, words):
    with pytest.raises(NotationError) as info:
        position_from_json(data)
    assert info.value.field == field, info.value
    assert words in str(info.value)


def test_a_left_seat_frees_its_doubles_in_the_notation_too():
    state = load(**CARRYING)
    after, _ = R.apply(state, Action("quit", seat="green"))
    assert position_to_json(after)["doubles"] == []
    assert parse_position(format_position(after)) == after


def _mutations() -> Any:
    base = position_to_json(load(phase="move", die=2, **CARRYING))
    keys = sorted(base)
    values = st.one_of(st.none(), st.booleans(), st.integers(-3, 80), st.text(max_size=8),
                       st.sampled_from(["balk", "home", "red-lane-3", "crown", "feather",
                                        "choose", "red", "green"]),
                       st.lists(st.integers(-1, 60), max_size=5))
    return st.tuples(st.just(base), st.lists(st.tuples(st.sampled_from(keys + ["men.red",
                                                                              "men.green",
                                                                              "doubles.0"]),
                                                       values), min_size=1, max_size=3))


@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(case=_mutations())
def test_fuzzed_positions_parse_or_name_a_field(case):
    base, changes = case
    data = copy.deepcopy(base)
    for key, value in changes:
        try:
            if key == "men.red":
                data["men"]["red"][0] = value
            elif key == "men.green":
                data["men"]["green"] = value
            elif key == "doubles.0":
                data["doubles"][0]["rider"] = value
            else:
                data[key] = value
        except (TypeError, KeyError, IndexError):
            continue  # an earlier change replaced the container: this one does not apply
    try:
        state = position_from_json(data)
    except NotationError as exc:
        assert exc.field and "\n" not in str(exc)
        return
    assert parse_position(format_position(state)) == state
