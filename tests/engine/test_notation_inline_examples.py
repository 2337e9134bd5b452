"""docs/notation.md's inline examples are what the engine reads and says.

tests/engine/test_engine_docs.py checks the ```json blocks (positions, records, events); this
module checks the rest a reader copies from the page: every action written inline as
`{"type": ...}` parses with the rule set whose section it is in, and the error messages the page
quotes are the engine's own, word for word, for the inputs the page describes.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

import ludo
from ludo import position_from_json, record_from_json, replay, rules_for

NOTATION = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
TEXT = NOTATION.read_text(encoding="utf-8")
# Where each rule set's part of the page begins: Courtyard's and Classic's come first, and the
# command line's part at the end uses Courtyard's actions.
SECTIONS = [("courtyard", "# Notation"), ("royal", "## Royal positions"),
            ("gilgiti", "## Gilgiti positions"), ("courtyard", "## Errors")]


def _section_of(offset: int) -> str:
    rules = "courtyard"
    for name, heading in SECTIONS:
        if TEXT.index(heading) <= offset:
            rules = name
    return rules


def _inline_actions() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for match in re.finditer(r'`(\{"type":[^`]*\})`', TEXT):
        found.append((_section_of(match.start()), json.loads(match.group(1))))
    return found


def _blocks(rules: str, fmt: str) -> list[dict[str, Any]]:
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", TEXT, re.S)]
    return [b for b in blocks if isinstance(b, dict) and b.get("format") == fmt
            and b["rules"] == rules]


def test_the_page_has_inline_actions_of_every_rule_set() -> None:
    kinds = {(rules, action["type"]) for rules, action in _inline_actions()}
    assert {("courtyard", "move"), ("royal", "send_back"), ("royal", "stay"),
            ("gilgiti", "force")} <= kinds


@pytest.mark.parametrize("rules,data", _inline_actions(),
                         ids=lambda v: v if isinstance(v, str) else json.dumps(v))
def test_every_inline_action_parses_and_writes_back_as_written(rules: str, data: dict) -> None:
    action = rules_for(rules).parse_action(data)
    assert action.to_json() == data


def _error(call: Any) -> str:
    with pytest.raises(ludo.LudoError) as raised:
        call()
    return str(raised.value)


def _position_error(data: dict[str, Any]) -> str:
    return _error(lambda: position_from_json(data))


def _quoted(message: str) -> str:
    """The message as the page quotes it: in a code span, which may wrap across lines."""
    assert message in " ".join(TEXT.split()), message
    return message


def test_the_courtyard_errors_the_page_quotes_are_the_engines() -> None:
    example = _blocks("courtyard", "courtyard-ludo/position")[0]
    record = _blocks("courtyard", "courtyard-ludo/record")[0]

    def changed(edit: Any) -> dict[str, Any]:
        data = copy.deepcopy(example)
        edit(data)
        return data

    assert _position_error(changed(lambda d: d.update(version=1))) == _quoted(
        "version: version 1 is not supported (this app reads version 2)")
    assert _error(lambda: ludo.parse_record('{"format": NaN}')) == _quoted(
        "record: is not valid JSON (NaN is not a JSON number)")

    def green_on_14(d: dict[str, Any]) -> None:
        d["out"] = {}
        d["tokens"]["green"] = [14, "yard", "yard", "yard"]
        d["tokens"]["blue"][0] = 14
    assert _position_error(changed(green_on_14)) == _quoted(
        "tokens.blue[0]: green and blue cannot share square 14, which is not safe")

    def green_in_red_lane(d: dict[str, Any]) -> None:
        d["out"] = {}
        d["tokens"]["green"] = ["red-lane-1", "yard", "yard", "yard"]
    assert _position_error(changed(green_in_red_lane)) == _quoted(
        "tokens.green[0]: a green token cannot be in red's home lane")
    assert _position_error(changed(lambda d: d.update(unlocked=[]))) == _quoted(
        "tokens.red[1]: red's home lane is still locked")

    def classic_on_51(d: dict[str, Any]) -> None:
        d.update(rules="classic", unlocked=["red", "green", "yellow", "blue"])
        d["tokens"]["red"][1] = 51
    assert _position_error(changed(classic_on_51)) == _quoted(
        "tokens.red[1]: a red token never stands on square 51 in Classic: its home lane is"
        " open, so it turns in at square 50")
    assert _position_error(changed(lambda d: d.update(turn="green"))) == _quoted(
        "turn: green has left the game and cannot have the turn")

    def no_move_with_3(d: dict[str, Any]) -> None:
        d.update(die=3, sixes=0)
        d["tokens"]["red"] = ["yard"] * 4
    assert _position_error(changed(no_move_with_3)) == _quoted(
        "die: red has no legal move with a 3, so the roll would have been skipped")
    assert _position_error(changed(lambda d: d["tokens"]["red"].append(5))) == _quoted(
        "tokens.red: has 5 tokens; a seat has 4 tokens")

    # replay names the first illegal action: the record's first seat moves before rolling
    first = replay(record_from_json(record))[0]
    bad = copy.deepcopy(record)
    bad["actions"][0] = {"type": "move", "token": 1}
    mover = ludo.to_act(first)
    assert _error(lambda: replay(record_from_json(bad))) == (
        f"actions[0]: {mover} must roll before moving")
    assert _quoted("actions[1]: red must roll before moving")
    assert _error(lambda: rules_for("courtyard").parse_action({"type": "move", "token": 7})) \
        == _quoted("action.token: must be a token number 0..3")


def test_the_royal_errors_the_page_quotes_are_the_engines() -> None:
    example = _blocks("royal", "courtyard-ludo/position")[0]

    def changed(edit: Any) -> dict[str, Any]:
        data = copy.deepcopy(example)
        edit(data)
        return data

    assert _position_error(changed(lambda d: d["doubles"][0].update(rider=["red", 1]))) == \
        _quoted("doubles[0].rider: a man only ever rides on an opponent")

    def double_in_a_column(d: dict[str, Any]) -> None:
        d["men"]["red"][1] = d["men"]["green"][1] = "red-lane-1"
        d["doubles"][0]["carrier"] = ["red", 1]
    assert _position_error(changed(double_in_a_column)) == _quoted(
        "doubles[0].carrier: a double stands on a track space")
    assert _position_error(changed(lambda d: d.update(doubles=d["doubles"][::-1]))).startswith(
        _quoted("doubles: must be listed by carrier,"))
    # the page's example names green's man 0; man 1 is the one free to stand in a column here
    problem = _quoted("men.green[0]: \"red-lane-5\" is beyond a left rider's").split(": ", 1)[1]
    assert _position_error(changed(lambda d: d["men"]["green"].__setitem__(1, "red-lane-5"))) \
        .startswith(f"men.green[1]: {problem}")

    def nothing_else_to_move(d: dict[str, Any]) -> None:
        d["men"]["red"] = [5, "home", "home", "home"]
    assert _position_error(changed(nothing_else_to_move)) == _quoted(
        "phase: red has no other man to move, so the rider would already have gone to balk")


def test_the_gilgiti_errors_the_page_quotes_are_the_engines() -> None:
    example = _blocks("gilgiti", "courtyard-ludo/position")[0]

    def changed(edit: Any) -> dict[str, Any]:
        data = copy.deepcopy(example)
        edit(data)
        return data

    def both_on_5(d: dict[str, Any]) -> None:
        for tokens in (d["tokens"], d["turn_start"]):
            tokens["green"][2] = tokens["yellow"][2] = 5
    assert _position_error(changed(both_on_5)) == _quoted(
        "tokens: square 5: tokens of two sides share a square that is not a star")

    def green_on_12(d: dict[str, Any]) -> None:
        d["tokens"]["green"][0] = d["turn_start"]["green"][0] = 12
    assert _position_error(changed(green_on_12)) == _quoted(
        "tokens.green[0]: a green token never stands on square 12: it turns into its lane"
        " after 11")
    assert _position_error(changed(lambda d: d["tokens"]["yellow"].__setitem__(0, 27))) == \
        _quoted("tokens: cannot be reached from turn_start by playing the values already played")
    gilgiti = rules_for("gilgiti")
    assert _error(lambda: gilgiti.parse_action({"type": "move", "tokens": [1, 0], "value": 5})) \
        == _quoted("action.tokens: must name two or more tokens, in increasing order")
    assert _error(lambda: gilgiti.parse_action({"type": "move", "token": 1, "value": 9})) == \
        _quoted("action.value: must be the value played, 1..6")
