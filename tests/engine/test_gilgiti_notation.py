"""Gilgiti's position notation (version 1), its actions, records and the command line."""

from __future__ import annotations

import json

import pytest
from gilgitikit import gload, gpos, js, mv, play, roll

from ludo import (
    Action,
    NotationError,
    apply,
    format_position,
    format_record,
    new_game,
    parse_position,
    parse_record,
    position_from_json,
    replay,
)
from ludo.cli import main
from ludo.notation import Record, record_from_json
from ludo.notation import play as record_play
from ludo.rules.gilgiti import GILGITI


def test_a_new_game_round_trips():
    for options in ({}, {"teams": True}):
        state = new_game("gilgiti", ("red", "green", "yellow", "blue"), 5, options)
        data = js(state)
        assert data["format"] == "courtyard-ludo/position" and data["version"] == 1
        assert data["rules"] == "gilgiti" and data["teams"] is bool(options)
        assert position_from_json(data) == state
        assert parse_position(format_position(state)) == state


def test_a_turn_under_way_round_trips_with_its_start_and_values():
    start = gload(phase="move", rolled=[6, 6, 3], tokens={"red": [5, 20, "yard", "yard"]})
    mid, _ = apply(start, mv("red", 0, 6))
    data = js(mid)
    assert data["rolled"] == [6, 6, 3] and data["unplayed"] == [3, 6]
    assert data["turn_start"]["red"] == [5, 20, "yard", "yard"]
    assert data["tokens"]["red"] == [11, 20, "yard", "yard"]
    assert position_from_json(data) == mid


def test_a_resting_seat_and_timeouts_round_trip():
    state = gload(teams=True, turn="green", resting=["red"], timeouts={"blue": 7},
                  tokens={"red": ["home"] * 4, "yellow": [30, "yard", "yard", "yard"]})
    assert js(state)["resting"] == ["red"] and js(state)["timeouts"]["blue"] == 7
    assert position_from_json(js(state)) == state


def test_finished_games_round_trip():
    won = gload(phase="over", winners=["red"], tokens={"red": ["home"] * 4})
    team = gload(teams=True, phase="over", turn="yellow", winners=["red", "yellow"],
                 tokens={"red": ["home"] * 4, "yellow": ["home"] * 4})
    left = gload(phase="over", quit="green", tokens={"red": [5, "yard", "yard", "yard"]})
    for state in (won, team, left):
        assert position_from_json(js(state)) == state


BAD = [
    (dict(version=2), "version", "Gilgiti version 1"),
    (dict(rules="courtyard"), "version", ""),  # courtyard reads its own version 2 only
    (dict(teams="yes"), "teams", "wrong type"),
    (dict(seats=["red", "yellow"], teams=True), "teams", "four seats"),
    (dict(seats=["yellow", "red"]), "seats", "clockwise"),
    (dict(phase="play"), "phase", "roll"),
    (dict(rolled=[6, 3]), "rolled", "only one or two 6s"),
    (dict(rolled=[6, 6, 6]), "rolled", "only one or two 6s"),
    (dict(unplayed=[3]), "unplayed", "nothing is played"),
    (dict(phase="move", rolled=[3, 6], tokens={"red": [5, "yard", "yard", "yard"]}),
     "rolled", "first value that is not a 6"),
    (dict(phase="move", rolled=[6], tokens={"red": [5, "yard", "yard", "yard"]}),
     "rolled", "first value that is not a 6"),
    (dict(phase="move", rolled=[3], unplayed=[4], tokens={"red": [5, "yard", "yard", "yard"]}),
     "unplayed", "was not rolled"),
    (dict(phase="move", rolled=[6, 3], unplayed=[6, 3], tokens={"red": [5, "yard", "yard",
                                                                        "yard"]}),
     "unplayed", "ascending"),
    (dict(phase="move", rolled=[3], tokens={"red": ["yard"] * 4}), "unplayed",
     "rolled back"),
    (dict(phase="move", rolled=[3], tokens={"red": [5, "yard", "yard", "yard"]},
          turn_start={"red": [20, "yard", "yard", "yard"]}), "tokens", "cannot be reached"),
    (dict(phase="move", rolled=[6, 3], unplayed=[6], tokens={"red": [9, "yard", "yard",
                                                                      "yard"]},
          turn_start={"red": [5, "yard", "yard", "yard"]}), "tokens", "cannot be reached"),
    (dict(tokens={"red": [5, 5, "yard", "yard"], "green": [5, "yard", "yard", "yard"]}),
     "tokens", "not a star"),
    (dict(tokens={"green": [12, "yard", "yard", "yard"]}), "tokens.green[0]",
     "turns into its lane after 11"),
    (dict(tokens={"red": ["green-lane-2", "yard", "yard", "yard"]}), "tokens.red[0]",
     "home lane"),
    (dict(tokens={"red": [5, "yard", "yard"]}), "tokens.red", "4 tokens"),
    (dict(tokens={"red": ["home"] * 4}), "tokens.red", "not over"),
    (dict(teams=True, tokens={"red": ["home"] * 4, "yellow": ["home"] * 4}), "tokens.red",
     "not over"),
    (dict(resting=["red"]), "resting", "only a finished team player rests"),
    (dict(teams=True, resting=["green"], tokens={"red": ["home"] * 4}), "resting",
     "not all its tokens"),
    (dict(teams=True, turn="red", resting=["red"], tokens={"red": ["home"] * 4}), "turn",
     "resting"),
    (dict(winners=["red"]), "winners", "only a finished game"),
    (dict(quit="red"), "quit", "running game"),
    (dict(quit="purple"), "quit", "not a seat"),
    (dict(phase="over"), "winners", "names its winners"),
    (dict(phase="over", winners=["red"]), "winners", "not every token"),
    (dict(phase="over", teams=True, winners=["red"], tokens={"red": ["home"] * 4,
                                                               "yellow": ["home"] * 4}),
     "winners", "in seat order"),
    (dict(phase="over", quit="red", winners=["red"], tokens={"red": ["home"] * 4}), "winners",
     "no winner"),
    (dict(timeouts={"red": -1}), "timeouts.red", "0 or more"),
    (dict(timeouts={"red": True}), "timeouts.red", "whole number"),
    (dict(rng="xyz"), "rng", "16 hexadecimal"),
]


@pytest.mark.parametrize("changes, field, words", BAD)
def test_impossible_positions_are_refused_naming_the_field(changes, field, words):
    data = gpos(**{k: v for k, v in changes.items() if k in gpos.__code__.co_varnames})
    for key in ("version", "rules", "seats"):
        if key in changes:
            data[key] = changes[key]
    with pytest.raises(NotationError) as info:
        position_from_json(data)
    assert info.value.field == field, str(info.value)
    assert words in str(info.value)


def test_missing_and_unknown_fields_are_named():
    data = gpos()
    del data["rolled"]
    with pytest.raises(NotationError, match="^rolled: is missing"):
        position_from_json(data)
    data = gpos()
    data["die"] = None
    with pytest.raises(NotationError, match="^die: is not a field"):
        position_from_json(data)


# -- actions -----------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [
    {"type": "roll"}, {"type": "roll", "value": 6}, {"type": "move", "token": 9, "value": 3},
    {"type": "move", "tokens": [0, 1, 8], "value": 5}, {"type": "force", "tokens": [2, 3]},
    {"type": "timeout"}, {"type": "timeout", "value": 3}, {"type": "quit", "seat": "blue"},
])
def test_actions_round_trip(data):
    action = GILGITI.parse_action(data)
    assert action.to_json() == data


@pytest.mark.parametrize("data, field", [
    ({"type": "move", "token": 2}, "action.value"),
    ({"type": "move", "value": 2}, "action.token"),
    ({"type": "move", "token": 16, "value": 2}, "action.token"),
    ({"type": "move", "token": True, "value": 2}, "action.token"),
    ({"type": "move", "token": 1, "tokens": [1, 2], "value": 2}, "action.token"),
    ({"type": "move", "tokens": [2, 1], "value": 2}, "action.tokens"),
    ({"type": "move", "tokens": [2], "value": 2}, "action.tokens"),
    ({"type": "move", "tokens": [2, 2], "value": 2}, "action.tokens"),
    ({"type": "move", "tokens": "0,1", "value": 2}, "action.tokens"),
    ({"type": "move", "token": 1, "value": 7}, "action.value"),
    ({"type": "force", "tokens": [1, 2, 3]}, "action.tokens"),
    ({"type": "force", "tokens": [1, 2], "value": 6}, "action.value"),
    ({"type": "force"}, "action.tokens"),
    ({"type": "timeout", "value": 7}, "action.value"),
    ({"type": "timeout", "token": 1}, "action.token"),
    ({"type": "roll", "value": 0}, "action.value"),
    ({"type": "roll", "token": 1}, "action.token"),
    ({"type": "quit"}, "action.seat"),
    ({"type": "pass"}, "action.type"),
    ({"type": "roll", "extra": 1}, "action"),
    ([], "action"),
])
def test_malformed_actions_are_refused_naming_the_field(data, field):
    with pytest.raises(NotationError) as info:
        GILGITI.parse_action(data)
    assert info.value.field == field, str(info.value)


# -- records -----------------------------------------------------------------------------------


def _a_game(options: dict) -> tuple[Record, object]:
    record = Record("gilgiti", ("red", "green", "yellow", "blue"), 21, (),
                    tuple(sorted(options.items())))
    state = record.start()
    import random

    chooser = random.Random(3)
    from ludo import legal_actions

    for _ in range(3000):
        if state.phase == "over":
            break
        actions = legal_actions(state)
        if chooser.random() < 0.01:
            actions = [Action("timeout")]
        record, state, _ = record_play(record, state, actions[chooser.randrange(len(actions))])
    return record, state


@pytest.mark.parametrize("options", [{}, {"teams": True}])
def test_records_replay_exactly_with_their_options(options):
    record, state = _a_game(options)
    text = format_record(record)
    assert ('"options":{"teams":true}' in text) == bool(options)
    again = parse_record(text)
    assert again == record
    assert replay(again)[-1] == state
    # rolls, and timeouts before the roll, are stored resolved (a timeout's one die)
    data = json.loads(text)
    assert all("value" in a for a in data["actions"] if a["type"] == "roll")


def test_a_record_with_unknown_options_is_refused():
    data = {"format": "courtyard-ludo/record", "version": 2, "rules": "gilgiti",
            "seats": ["red", "yellow"], "seed": 1, "options": {"teams": True}, "actions": []}
    with pytest.raises(NotationError, match="options.teams"):
        record_from_json(data)
    data["options"] = {"speed": True}
    with pytest.raises(NotationError, match="options.speed"):
        record_from_json(data)


# -- the command line ----------------------------------------------------------------------


def run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out.strip() else None), err


def test_cli_simulate_alone_and_in_teams(capsys):
    status, out, _ = run(capsys, "simulate", "--rules", "gilgiti", "--games", "3")
    assert status == 0 and out["invariant_violations"] == 0 and "options" not in out
    status, out, _ = run(capsys, "simulate", "--rules", "gilgiti", "--games", "3", "--teams")
    assert status == 0 and out["options"] == {"teams": True}
    assert out["invariant_violations"] == 0
    assert sum(out["wins"].values()) == 6  # both partners of each winning team
    status, _, err = run(capsys, "simulate", "--rules", "classic", "--teams")
    assert status == 2 and "not an option of classic" in err


def test_cli_legal_lists_every_play(tmp_path, capsys):
    state = gload(tokens={"red": [5, "yard", "yard", "yard"]})
    path = tmp_path / "p.json"
    path.write_text(format_position(state))
    status, out, _ = run(capsys, "legal", "--roll", "6", str(path))
    assert status == 0 and out["phase"] == "roll" and out["legal"] == [{"type": "roll"}]
    after, _ = play(state, roll(6), roll(2))
    path.write_text(format_position(after))
    status, out, _ = run(capsys, "legal", str(path))
    # no single die: the turn's values, and those still to play
    assert out["die"] is None and out["rolled"] == [6, 2] and out["to_play"] == [2, 6]
    assert {"type": "move", "token": 0, "value": 2} in out["legal"]
    assert {"type": "move", "token": 1, "value": 6} in out["legal"]
    assert len(out["distinct"]) == 3


def test_cli_replay_of_a_team_game(tmp_path, capsys):
    record, state = _a_game({"teams": True})
    path = tmp_path / "r.json"
    path.write_text(format_record(record))
    status, out, _ = run(capsys, "replay", str(path))
    assert status == 0 and out["winners"] == list(state.winners)
    assert out["over"] is (state.phase == "over")
    assert position_from_json(out["position"]) == state


def test_cli_tournament_in_teams_counts_a_team_win_for_both_partners(capsys):
    status, out, _ = run(capsys, "tournament", "--rules", "gilgiti", "--teams", "--bots",
                         "medium,easy,medium,easy", "--games", "4", "--seed", "2")
    assert status == 0 and out["options"] == {"teams": True} and out["parity"] == 0.5
    wins = [e["wins"] for e in out["entries"]]
    assert wins[0] == wins[2] and wins[1] == wins[3] and sum(wins) == 8
