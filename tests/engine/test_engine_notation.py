"""Notation: round trips, and errors that name the field (never another exception type)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from enginekit import COLOURS, examples, load, play, pos
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ludo import (
    Action,
    LudoError,
    NotationError,
    Record,
    apply,
    format_position,
    format_record,
    move,
    new_game,
    parse_position,
    parse_record,
    position_from_json,
    position_to_json,
    quit_seat,
    record_from_json,
    record_to_json,
    replay,
    roll,
    timeout,
)
from ludo import notation as notation_module

Y = "yard"


def rich() -> dict[str, Any]:
    """A valid position using every feature: a quit seat, timeouts, an unlock, lanes, a die."""
    return pos(turn="red", phase="move", die=6, sixes=2,
               tokens={"red": [10, "red-lane-2", "home", Y], "yellow": [26, 30, 51, Y],
                       "blue": [0, 8, Y, Y]},
               unlocked=["red"], timeouts={"red": 1, "yellow": 4, "blue": 2},
               out={"green": "quit"}, rng="00ff00ff00ff00ff")


def test_the_rich_position_is_valid_and_round_trips():
    state = position_from_json(rich())
    assert position_to_json(state) == rich()
    assert parse_position(format_position(state)) == state


def test_position_json_field_by_field():
    data = position_to_json(new_game("courtyard", ["red", "yellow"], seed=5))
    assert list(data) == ["format", "version", "rules", "seats", "turn", "phase", "die", "sixes",
                          "tokens", "unlocked", "timeouts", "out", "winner", "rng"]
    assert data["format"] == "courtyard-ludo/position" and data["version"] == 2
    assert data["rules"] == "courtyard" and data["seats"] == ["red", "yellow"]
    assert data["phase"] == "roll" and data["die"] is None and data["sixes"] == 0
    assert data["tokens"] == {"red": [Y] * 4, "yellow": [Y] * 4}
    assert data["unlocked"] == [] and data["out"] == {} and data["winner"] is None
    assert data["timeouts"] == {"red": 0, "yellow": 0}
    assert len(data["rng"]) == 16 and int(data["rng"], 16) >= 0
    text = format_position(new_game("courtyard", ["red", "yellow"], seed=5))
    assert "\n" not in text and ": " not in text  # compact, one line


@pytest.mark.parametrize("state_factory", [
    lambda: new_game("courtyard", COLOURS, 1),
    lambda: new_game("classic", ("green", "blue"), 2**64 - 1),
    lambda: load(turn="blue", timeouts={"blue": 4}),
    lambda: load(phase="over", winner="green", out={"red": "quit", "yellow": "eliminated",
                                                    "blue": "quit"}, turn="red"),
    lambda: load(phase="over", winner="red", unlocked=["red"],
                 tokens={"red": ["home"] * 4}),
    lambda: position_from_json(rich()),
])
def test_positions_round_trip(state_factory):
    state = state_factory()
    assert parse_position(format_position(state)) == state
    assert position_from_json(position_to_json(state)) == state
    assert format_position(parse_position(format_position(state))) == format_position(state)


def test_records_round_trip_and_replay():
    record = Record("courtyard", ("red", "green", "yellow"), 42)
    state = record.start()
    for action in (roll(6), move(0), roll(), timeout(), quit_seat("yellow")):
        record, state, _ = notation_module.play(record, state, action)
    assert record.actions[2].value is not None  # rolls are stored with their values
    assert parse_record(format_record(record)) == record
    assert record_from_json(record_to_json(record)) == record
    assert replay(record)[-1] == state == notation_module.final_position(record)
    data = record_to_json(record)
    assert list(data) == ["format", "version", "rules", "seats", "seed", "actions"]
    assert data["actions"][:2] == [{"type": "roll", "value": 6}, {"type": "move", "token": 0}]
    assert data["actions"][-1] == {"type": "quit", "seat": "yellow"}


def test_record_seats_are_normalised_to_clockwise_order():
    data = {"format": "courtyard-ludo/record", "version": 2, "rules": "classic",
            "seats": ["blue", "red"], "seed": 0, "actions": []}
    assert record_from_json(data).seats == ("red", "blue")


@pytest.mark.parametrize("replaying", [replay, notation_module.final_position])
def test_replay_names_the_first_illegal_action(replaying):
    record = Record("courtyard", ("red", "yellow"), 1, (roll(3), move(0)))
    with pytest.raises(NotationError) as info:
        replaying(record)
    assert info.value.field == "actions[1]"
    assert "must roll before moving" in str(info.value)


# --- errors name the field ---------------------------------------------------------------------


def _set(path: str, value: Any):
    def mutate(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for p in parents:
            d = d[p]
        if isinstance(d, list):
            d[int(last)] = value
        else:
            d[last] = value
    return mutate


def _delete(key: str):
    return lambda d: d.pop(key)


POSITION_ERRORS = [
    # (description, mutation, field, words in the message)
    ("five tokens for a colour", _set("tokens.red", [10, 11, 12, Y, Y]), "tokens.red",
     "has 5 tokens"),
    ("three tokens", _set("tokens.blue", [Y, Y, Y]), "tokens.blue", "has 3 tokens"),
    ("tokens for a quit seat", _set("tokens.green", [Y] * 4), "tokens.green", "has left"),
    ("token in another colour's lane", _set("tokens.yellow.1", "red-lane-3"), "tokens.yellow[1]",
     "red's home lane"),
    ("lane before the unlock", _set("tokens.blue.2", "blue-lane-1"), "tokens.blue[2]",
     "still locked"),
    ("home before the unlock", _set("tokens.blue.2", "home"), "tokens.blue[2]", "still locked"),
    ("turn to a quit seat", _set("turn", "green"), "turn", "left the game"),
    ("turn to a non-seat", _set("turn", "purple"), "turn", "not a seat"),
    ("turn to an eliminated seat",
     lambda d: (d["out"].update(yellow="eliminated"), d["timeouts"].update(yellow=5),
                d["tokens"].update(yellow=[]), d.update(turn="yellow")), "turn", "left the game"),
    ("version 1 (older dice)", _set("version", 1), "version", "not supported"),
    ("version 3", _set("version", 3), "version", "not supported"),
    ("version as text", _set("version", "2"), "version", "not supported"),
    ("version true", _set("version", True), "version", "not supported"),
    ("version 2.0", _set("version", 2.0), "version", "not supported"),
    ("format", _set("format", "ludo"), "format", "courtyard-ludo/position"),
    ("unknown rules", _set("rules", "snakes"), "rules", "unknown rule set"),
    ("rules not text", _set("rules", 5), "rules", "unknown rule set"),
    ("unknown field", _set("colour", "red"), "colour", "not a field"),
    ("sixes as text", _set("sixes", "2"), "sixes", "wrong type"),
    ("sixes true", _set("sixes", True), "sixes", "wrong type"),
    ("sixes 3", _set("sixes", 3), "sixes", "0..2"),
    ("seats as text", _set("seats", "red"), "seats", "wrong type"),
    ("seats out of order", _set("seats", ["green", "red", "yellow", "blue"]), "seats",
     "clockwise order"),
    ("seats twice", _set("seats", ["red", "red", "yellow", "blue"]), "seats[1]", "twice"),
    ("one seat", _set("seats", ["red"]), "seats", "2 to 4"),
    ("tokens as a list", _set("tokens", []), "tokens", "wrong type"),
    ("tokens of a seat as text", _set("tokens.red", "yard"), "tokens.red", "list of squares"),
    ("square 52", _set("tokens.red.0", 52), "tokens.red[0]", "0..51"),
    ("square -1", _set("tokens.red.0", -1), "tokens.red[0]", "0..51"),
    ("square true", _set("tokens.red.0", True), "tokens.red[0]", "not a square"),
    ("square 3.5", _set("tokens.red.0", 3.5), "tokens.red[0]", "not a square"),
    ("lane 6", _set("tokens.red.0", "red-lane-6"), "tokens.red[0]", "not a square"),
    ("tokens of a non-seat", lambda d: d["tokens"].update(purple=[]), "tokens.purple",
     "not a seat"),
    ("timeouts as a list", _set("timeouts", [0, 0]), "timeouts", "wrong type"),
    ("timeouts 6", _set("timeouts.red", 6), "timeouts.red", "0..5"),
    ("timeouts -1", _set("timeouts.red", -1), "timeouts.red", "0..5"),
    ("timeouts text", _set("timeouts.red", "1"), "timeouts.red", "whole number"),
    ("timeouts missing a seat", lambda d: d["timeouts"].pop("blue"), "timeouts.blue",
     "whole number"),
    ("five timeouts but not eliminated", _set("timeouts.blue", 5), "timeouts.blue",
     "eliminated exactly on timeout 5"),
    ("eliminated without five timeouts", lambda d: d["out"].update(green="eliminated"),
     "timeouts.green", "eliminated exactly"),
    ("out reason", lambda d: d["out"].update(green="gone"), "out.green", "quit"),
    ("out of a non-seat", lambda d: d["out"].update(purple="quit"), "out.purple", "not a seat"),
    ("out as a list", _set("out", ["green"]), "out", "wrong type"),
    ("unlocked as text", _set("unlocked", "red"), "unlocked", "wrong type"),
    ("unlocked twice", _set("unlocked", ["red", "red"]), "unlocked", "twice"),
    ("unlocked non-seat", _set("unlocked", ["purple"]), "unlocked[0]", "not a seat"),
    ("phase", _set("phase", "play"), "phase", "roll"),
    ("phase as a number", _set("phase", 1), "phase", "wrong type"),
    ("die missing in the move phase", _set("die", None), "die", "rolled value"),
    ("die 7", _set("die", 7), "die", "rolled value"),
    ("die as text", _set("die", "6"), "die", "rolled value"),
    ("die in the roll phase", _set("phase", "roll"), "die", "must be null"),
    ("a six not counted", _set("sixes", 0), "sixes", "count the six"),
    ("a non-six with sixes", lambda d: d.update(die=1, sixes=1), "sixes", "non-six"),
    ("a die with no legal move", lambda d: d.update(die=3, sixes=0,
                                                    tokens=dict(d["tokens"], red=[Y] * 4)),
     "die", "no legal move"),
    ("winner in a running game", _set("winner", "red"), "winner", "only a finished game"),
    ("over without a winner", lambda d: d.update(phase="over", die=None), "winner",
     "names its winner"),
    ("over with an unfinished winner", lambda d: d.update(phase="over", die=None,
                                                          winner="red"),
     "winner", "neither all tokens home"),
    ("all home but not over", lambda d: d.update(tokens=dict(d["tokens"], red=["home"] * 4)),
     "tokens.red", "not over"),
    ("one player left but not over", lambda d: d["out"].update(yellow="quit", blue="quit")
     or d["tokens"].update(yellow=[], blue=[]), "out", "two players"),
    ("rng too short", _set("rng", "00ff"), "rng", "16 hexadecimal"),
    ("rng negative", _set("rng", "-00000000000000f"), "rng", "16 hexadecimal"),
    ("rng 0x", _set("rng", "0x000000000000ff"), "rng", "16 hexadecimal"),
    ("rng not hex", _set("rng", "zzzzzzzzzzzzzzzz"), "rng", "16 hexadecimal"),
    ("rng with underscores", _set("rng", "0000_0000_0000_0"), "rng", "16 hexadecimal"),
    ("rng as a number", _set("rng", 255), "rng", "wrong type"),
]


@pytest.mark.parametrize("name,mutate,field,words", POSITION_ERRORS,
                         ids=[e[0] for e in POSITION_ERRORS])
def test_position_errors_name_the_field(name, mutate, field, words):
    data = rich()
    mutate(data)
    with pytest.raises(NotationError) as info:
        position_from_json(data)
    assert info.value.field == field, str(info.value)
    assert words in str(info.value)
    assert str(info.value).startswith(f"{field}: ") and "\n" not in str(info.value)
    # the same through JSON text
    with pytest.raises(NotationError) as info:
        parse_position(json.dumps(data))
    assert info.value.field == field


@pytest.mark.parametrize("missing", ["format", "version", "rules", "seats", "turn", "phase",
                                     "die", "sixes", "tokens", "unlocked", "timeouts", "out",
                                     "winner", "rng"])
def test_missing_position_fields_are_named(missing):
    data = rich()
    del data[missing]
    with pytest.raises(NotationError) as info:
        position_from_json(data)
    assert info.value.field == missing


def test_classic_positions_need_every_lane_open():
    data = pos(rules="classic")
    data["unlocked"] = ["red"]
    with pytest.raises(NotationError, match="^unlocked: every home lane is open in Classic"):
        position_from_json(data)


@pytest.mark.parametrize("text,words", [
    ("", "not valid JSON"), ("{", "not valid JSON"), ("{'a': 1}", "not valid JSON"),
    ("[]", "JSON object"), ("null", "JSON object"), ('"position"', "JSON object"),
    ("1" * 5000, "not valid JSON"), ("[" * 100_000, "nested too deeply"),
], ids=["empty", "open brace", "single quotes", "list", "null", "string", "huge integer",
        "deep nesting"])
def test_bad_position_text(text, words):
    with pytest.raises(NotationError) as info:
        parse_position(text)
    assert info.value.field == "position" and words in str(info.value)


def test_position_text_as_bytes_and_non_text():
    state = load()
    assert parse_position(format_position(state).encode()) == state
    with pytest.raises(NotationError, match="^position: must be JSON text"):
        parse_position(123)


RECORD = {"format": "courtyard-ludo/record", "version": 2, "rules": "courtyard",
          "seats": ["red", "yellow"], "seed": 7,
          "actions": [{"type": "roll", "value": 6}, {"type": "move", "token": 0}]}

RECORD_ERRORS = [
    ("format", "ludo", "format"), ("version", 1, "version"), ("version", True, "version"),
    ("rules", "snakes", "rules"), ("rules", None, "rules"), ("seats", ["red"], "seats"),
    ("seats", "red", "seats"), ("seed", -1, "seed"), ("seed", 2**64, "seed"),
    ("seed", "7", "seed"), ("seed", True, "seed"), ("seed", 1.5, "seed"),
    ("actions", {}, "actions"), ("actions", [{"type": "roll"}, {"type": "move", "token": 9}],
                                 "actions[1].token"),
    ("actions", [{"type": "quit", "seat": 5}], "actions[0].seat"),
    ("actions", ["roll"], "actions[0]"), ("colour", "red", "colour"),
]


@pytest.mark.parametrize("key,value,field", RECORD_ERRORS)
def test_record_errors_name_the_field(key, value, field):
    data = dict(RECORD, **{key: value})
    with pytest.raises(NotationError) as info:
        record_from_json(data)
    assert info.value.field == field, str(info.value)


@pytest.mark.parametrize("missing,field", [("format", "format"), ("version", "version"),
                                           ("rules", "rules"), ("seats", "seats"),
                                           ("seed", "seed"), ("actions", "actions")])
def test_missing_record_fields_are_named(missing, field):
    data = dict(RECORD)
    del data[missing]
    with pytest.raises(NotationError) as info:
        record_from_json(data)
    assert info.value.field == field


def test_bad_record_text():
    with pytest.raises(NotationError, match="^record: is not valid JSON"):
        parse_record("{")
    with pytest.raises(NotationError, match="^record: must be a JSON object"):
        parse_record("[]")


# --- fuzzing: only NotationError, never another exception type -------------------------------

json_scalars = (st.none() | st.booleans() | st.integers(-3, 60) | st.integers()
                | st.floats(allow_nan=True) | st.text(max_size=12)
                | st.sampled_from(["red", "green", "yellow", "blue", "yard", "home",
                                   "red-lane-1", "courtyard", "classic", "roll", "move",
                                   "over", "quit", "eliminated"]))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=5),
    max_leaves=12,
)


def _parse_or_notation_error(data: Any) -> None:
    try:
        state = position_from_json(data)
    except NotationError as exc:
        assert exc.field and str(exc).startswith(exc.field) and "\n" not in str(exc)
        return
    assert position_from_json(position_to_json(state)) == state


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, prefix + (i,))
    return found


@st.composite
def mutated_positions(draw: Any) -> Any:
    base = draw(st.sampled_from([
        rich(), pos(), pos(rules="classic", seats=["green", "blue"], turn="blue"),
        position_to_json(play(load(tokens={"red": [10, Y, Y, Y]}), roll(6))[0]),
        pos(phase="over", winner="red", unlocked=["red"], tokens={"red": ["home"] * 4}),
    ]))
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        how = draw(st.sampled_from(["replace", "delete", "add"]))
        if how == "replace":
            parent[path[-1]] = draw(json_values)
        elif how == "delete":
            if isinstance(parent, dict):
                del parent[path[-1]]
            else:
                parent.pop(path[-1])
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(json_values)
        else:
            parent.append(draw(json_values))
    return data


@settings(deadline=None, max_examples=examples(400), suppress_health_check=[HealthCheck.too_slow])
@given(data=mutated_positions())
def test_fuzz_mutated_positions_raise_only_notation_errors(data):
    _parse_or_notation_error(data)


@settings(deadline=None, max_examples=examples(200))
@given(data=json_values)
def test_fuzz_random_json_positions_raise_only_notation_errors(data):
    _parse_or_notation_error(data)
    if isinstance(data, dict):
        _parse_or_notation_error(dict(pos(), **data))


@settings(deadline=None, max_examples=examples(200))
@given(text=st.text(max_size=40) | st.binary(max_size=40).map(lambda b: b))
def test_fuzz_position_and_record_text(text):
    for parser in (parse_position, parse_record):
        try:
            parser(text)
        except NotationError:
            pass


@settings(deadline=None, max_examples=examples(300))
@given(key=st.sampled_from(sorted(RECORD) + ["extra"]), value=json_values,
       drop=st.booleans())
def test_fuzz_records_raise_only_notation_errors(key, value, drop):
    data = copy.deepcopy(RECORD)
    if drop:
        data.pop(key, None)
    else:
        data[key] = value
    try:
        record = record_from_json(data)
    except NotationError:
        return
    assert record_from_json(record_to_json(record)) == record
    try:
        replay(record)
    except NotationError as exc:
        assert exc.field.startswith("actions[")


@settings(deadline=None, max_examples=examples(200))
@given(actions=st.lists(json_values | st.fixed_dictionaries(
    {"type": st.sampled_from(["roll", "move", "timeout", "quit"])},
    optional={"token": json_values, "value": json_values, "seat": json_values}), max_size=6))
def test_fuzz_record_actions(actions):
    data = dict(RECORD, actions=actions)
    try:
        record = record_from_json(data)
        replay(record)
    except NotationError as exc:
        assert exc.field.startswith("actions")


def test_errors_are_ludo_errors_and_value_errors():
    assert issubclass(NotationError, LudoError) and issubclass(LudoError, ValueError)
    err = NotationError("tokens.red[2]", "is not a square")
    assert str(err) == "tokens.red[2]: is not a square"
    assert err.field == "tokens.red[2]" and err.problem == "is not a square"


def test_apply_refuses_a_non_position():
    with pytest.raises(LudoError):
        apply(None, roll())
    with pytest.raises(LudoError):
        apply({"rules": "courtyard"}, roll())


def test_action_json_is_part_of_the_notation():
    assert Action.from_json({"type": "timeout", "value": 3}) == timeout(3)
    assert quit_seat("red").to_json() == {"type": "quit", "seat": "red"}


def test_json_without_nan_infinity_or_numbers_beyond_a_float() -> None:
    from ludo.errors import NotationError
    from ludo.notation import load_json

    for text in ("[NaN]", "[Infinity]", "[-Infinity]", '{"seed": 1e999}', "[-1e400]"):
        with pytest.raises(NotationError, match="is not valid JSON"):
            load_json(text, "record")
    assert load_json("[1.5, 1e308, -0.0]", "record") == [1.5, 1e308, -0.0]
