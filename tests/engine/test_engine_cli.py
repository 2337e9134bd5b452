"""The command line: ``python -m ludo simulate|new|legal|apply|bot|replay``.

Each prints one JSON line, or exits non-zero with a one-line error on stderr.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from enginekit import load, play, pos

from ludo import (
    Record,
    format_record,
    legal_actions,
    position_from_json,
    position_to_json,
    record_from_json,
    replay,
    roll,
    timeout,
)
from ludo import notation as notation_module
from ludo.cli import main

PY = str(Path(__file__).resolve().parents[2] / "py")


def run(*args: str, stdin: str | bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=PY + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "ludo", *args], input=stdin,
                          capture_output=True, env=env, timeout=120,
                          text=not isinstance(stdin, bytes))


def one_json_line(proc: subprocess.CompletedProcess) -> dict:
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


def test_simulate_courtyard_reports_zero_invariant_violations():
    out = one_json_line(run("simulate", "--rules", "courtyard", "--players", "4",
                            "--games", "20", "--seed", "1"))
    assert out["command"] == "simulate" and out["rules"] == "courtyard"
    assert out["games"] == 20 and out["players"] == 4
    assert out["invariants_checked"] is True and out["invariant_violations"] == 0
    assert out["first_violation"] is None
    assert sum(out["wins"].values()) == 20 and set(out["wins"]) == set(out["seats"])
    assert out["actions"] > 20 * 100 and out["mean_game_length"] == round(out["actions"] / 20, 1)
    assert out["games_per_second"] > 0


def test_simulate_is_deterministic_for_a_seed():
    a = one_json_line(run("simulate", "--rules", "classic", "--players", "2", "--games", "5",
                          "--seed", "9", "--no-check"))
    b = one_json_line(run("simulate", "--rules", "classic", "--players", "2", "--games", "5",
                          "--seed", "9", "--no-check"))
    assert a["seats"] == ["red", "yellow"] and a["invariants_checked"] is False
    for key in ("actions", "wins", "mean_game_length"):
        assert a[key] == b[key]


@pytest.mark.parametrize("players", [2, 3])
def test_simulate_small_tables_in_process(players, capsys):
    assert main(["simulate", "--rules", "courtyard", "--players", str(players), "--games", "3",
                 "--seed", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["invariant_violations"] == 0 and len(out["seats"]) == players


def test_legal_with_roll_from_a_file(tmp_path):
    path = tmp_path / "position.json"
    path.write_text(json.dumps(pos(tokens={"red": [10, 10, "yard", "yard"]})))
    out = one_json_line(run("legal", "--roll", "6", str(path)))
    assert out["command"] == "legal" and out["phase"] == "move" and out["die"] == 6
    assert out["legal"] == [{"type": "move", "token": t} for t in range(4)]
    assert out["distinct"] == [{"type": "move", "token": 0}, {"type": "move", "token": 2}]
    assert out["events"] == [{"type": "rolled", "seat": "red", "value": 6}]
    assert out["next"] == "green" and out["turn"] == "red"
    # the position it answers for, after the roll, is printed too (not the one in the file)
    assert out["position"]["phase"] == "move" and out["position"]["die"] == 6
    assert "position" not in one_json_line(run("legal", str(path)))


def test_legal_from_stdin():
    text = json.dumps(pos(tokens={"red": [10, "yard", "yard", "yard"]}))
    out = one_json_line(run("legal", "-", stdin=text))
    assert out["legal"] == [{"type": "roll"}] and out["phase"] == "roll"
    out = one_json_line(run("legal", "--roll", "3", stdin=text))  # the file defaults to stdin
    assert out["legal"] == [{"type": "move", "token": 0}]


def test_legal_roll_with_no_move_passes_the_turn(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pos()))
    assert main(["legal", "--roll", "4", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["turn"] == "green" and [e["type"] for e in out["events"]] == [
        "rolled", "no_move", "turn"]


def _random_record(seed: int) -> tuple[Record, object]:
    rnd = random.Random(seed)
    record = Record("courtyard", ("red", "green", "yellow"), seed)
    state = record.start()
    while state.phase != "over":
        action = rnd.choice(legal_actions(state))
        if rnd.random() < 0.01:
            action = timeout()  # the clock ran out, before or after the roll
        record, state, _ = notation_module.play(record, state, action)
    return record, state


def test_replay_of_a_simulated_record_reproduces_its_final_position(tmp_path):
    record, final = _random_record(5)
    path = tmp_path / "game.json"
    path.write_text(format_record(record))
    out = one_json_line(run("replay", str(path)))
    assert out["command"] == "replay" and out["actions"] == len(record.actions)
    assert out["over"] is True and out["winner"] == final.winner
    assert out["position"] == position_to_json(final)


def test_replay_of_a_record_from_stdin_midgame(capsys, monkeypatch):
    record, _ = _random_record(6)
    short = record._replace(actions=record.actions[:50])
    states = notation_module.replay(short)
    monkeypatch.setattr(sys, "stdin", io.StringIO(format_record(short)))
    assert main(["replay", "-"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["over"] is False and out["position"] == position_to_json(states[-1])


# --- bad input: non-zero exit, one line on stderr, nothing on stdout -----------------------------


def assert_one_line_error(proc: subprocess.CompletedProcess, words: str) -> None:
    assert proc.returncode != 0
    assert proc.stdout in ("", b"")
    err = proc.stderr if isinstance(proc.stderr, str) else proc.stderr.decode()
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and words in err, err


def test_unknown_rules_subprocess():
    assert_one_line_error(run("simulate", "--rules", "snakes"), "snakes")


def test_roll_nine_subprocess(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(pos()))
    assert_one_line_error(run("legal", "--roll", "9", str(path)), "1..6")


def test_malformed_json_subprocess(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("{not json")
    assert_one_line_error(run("legal", str(path)), "not valid JSON")


def test_missing_file_subprocess(tmp_path):
    assert_one_line_error(run("replay", str(tmp_path / "nope.json")), "cannot read")


def test_binary_stdin_subprocess():
    assert_one_line_error(run("legal", stdin=b"\xff\xfe\x00{"), "error")


@pytest.mark.parametrize("argv,words", [
    (["simulate", "--rules", "snakes"], "snakes"),
    (["simulate", "--players", "5"], "players"),
    (["simulate", "--games", "0"], "must be 1 to"),
    (["simulate", "--seed", "-3"], "seed"),
    (["simulate", "--seed", "x"], "seed"),
    (["legal", "--roll", "9"], "1..6"),
    (["legal", "--roll", "0"], "1..6"),
    (["legal", "--roll", "six"], "1..6"),
    ([], "command"),
    (["fly"], "fly"),
    (["replay"], "file"),
])
def test_bad_arguments(argv, words, capsys):
    assert main(argv) != 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and words in captured.err


@pytest.mark.parametrize("content,words", [
    ("{not json", "not valid JSON"),
    ("[]", "JSON object"),
    ('{"format": "courtyard-ludo/position", "version": 1, "rules": "courtyard"}', "version"),
    (json.dumps(dict(pos(), tokens={"red": ["yard"] * 5})), "tokens.red"),
    (json.dumps(dict(pos(), turn="green", out={"green": "quit"})), "tokens.green"),
    ("\u00e9\n", "not valid JSON"),
])
def test_bad_position_files(content, words, tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(content, encoding="utf-8")
    assert main(["legal", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err


def test_non_utf8_file(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_bytes(b"\xff\xfe{")
    assert main(["legal", str(path)]) == 2
    assert "not UTF-8" in capsys.readouterr().err


def test_a_directory_is_not_a_file(tmp_path, capsys):
    assert main(["replay", str(tmp_path)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_roll_on_a_position_waiting_for_a_move(tmp_path, capsys):
    state, _ = play(load(tokens={"red": [10, "yard", "yard", "yard"]}), roll(3))
    path = tmp_path / "p.json"
    path.write_text(json.dumps(position_to_json(state)))
    assert main(["legal", "--roll", "2", str(path)]) == 2
    assert "move phase" in capsys.readouterr().err


def test_replay_of_an_illegal_record(tmp_path, capsys):
    record = Record("classic", ("red", "blue"), 1)
    data = json.loads(format_record(record))
    data["actions"] = [{"type": "roll", "value": 2}, {"type": "move", "token": 0}]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "actions[1]" in err and len(err.strip().splitlines()) == 1


def test_replay_of_a_malformed_record(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": "courtyard-ludo/record", "version": 2,
                                "rules": "courtyard", "seats": ["red"], "seed": 1,
                                "actions": []}))
    assert main(["replay", str(path)]) == 2
    assert "seats" in capsys.readouterr().err


@pytest.mark.parametrize(("rules", "flags"), [("courtyard", ()), ("classic", ()),
                                              ("royal", ()), ("gilgiti", ("--teams",))])
def test_a_program_plays_a_whole_game_through_new_and_apply(rules, flags, tmp_path, capsys):
    # an outside player in any language: `new` gives the first position (and the record so
    # far), `apply` one action's events, the next position and its legal actions; each output
    # line is saved as it is and handed to the next command; red asks `bot` for its moves; the
    # rolls come from the position's own dice, so the game stepped so is the game its record
    # replays
    def cli(*argv: str) -> dict:
        assert main(list(argv)) == 0
        out, err = capsys.readouterr()
        assert err == "" and len(out.splitlines()) == 1
        return json.loads(out)

    step = cli("new", "--rules", rules, "--seats", "red,green,yellow,blue", "--seed", "11",
               *flags)
    record = step["record"]
    assert (record["rules"], record["seed"], record["actions"]) == (rules, 11, [])
    assert record.get("options", {}) == ({"teams": True} if flags else {})
    path, chooser, bot_moves = tmp_path / "last.json", random.Random(3), 0
    for _ in range(5000):
        path.write_text(json.dumps(step))  # the whole line: its position is read from it
        if step["position"]["turn"] == "red" and step["legal"] != [{"type": "roll"}]:
            action = cli("bot", "--level", "hard", str(path))["action"]
            assert action in step["legal"]
            bot_moves += 1
        else:
            action = chooser.choice(step["legal"])
        step = cli("apply", str(path), json.dumps(action))
        record["actions"].append(action)
        if step["position"]["phase"] == "over":
            break
    else:
        raise AssertionError("the game did not end in 5000 actions")
    assert step["legal"] == [] and any(e["type"] == "won" for e in step["events"])
    assert bot_moves > 0
    (tmp_path / "record.json").write_text(json.dumps(record))
    assert cli("replay", str(tmp_path / "record.json"))["position"] == step["position"]


def test_new_and_apply_refuse_what_they_cannot_do(tmp_path, capsys):
    for argv, said in ((["new", "--seats", "red,purple"], "unknown colour"),
                       (["new", "--rules", "classic", "--teams"], "not an option of classic")):
        assert main(argv) == 2
        assert said in capsys.readouterr().err
    assert main(["new", "--seed", "2"]) == 0
    path = tmp_path / "p.json"
    path.write_text(json.dumps(json.loads(capsys.readouterr().out)["position"]))
    replayed = tmp_path / "replay.json"
    replayed.write_text('{"command": "replay", "actions": 0}')
    assert main(["apply", str(replayed), '{"type": "roll"}']) == 2
    # (replay's answers always hold one: one without it was cut or edited, 545bc61)
    assert "without its \"position\" member (replay's answers hold one)" in \
        capsys.readouterr().err
    over = tmp_path / "over.json"
    over.write_text(json.dumps(pos(seats=["red", "green"], phase="over", winner="red",
                                   unlocked=["red"],
                                   tokens={"red": ["home"] * 4})))
    assert main(["bot", str(over)]) == 2 and "game is over" in capsys.readouterr().err
    for action, said in (("nope", "not valid JSON"), ('{"type": "move", "token": 0}', "must roll"),
                         ("[" * 100_000 + "]" * 100_000, "nested"),
                         ('{"type": "roll", "type": "roll"}', "appears twice")):
        assert main(["apply", str(path), action]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and len(err.splitlines()) == 1


def _stdio() -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=PY + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "ludo", "stdio"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _ask(proc: subprocess.Popen, request: object) -> dict:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(request).encode() + b"\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_stdio_plays_a_whole_game_in_one_process(rules):
    # one request a line, one answer a line: the same answers as the commands, without a
    # process per action; green is the Hard computer, asked with `bot`
    proc = _stdio()
    try:
        step = _ask(proc, {"command": "new", "rules": rules, "seats": ["red", "green"],
                           "seed": 4, "id": "start"})
        assert step["id"] == "start" and step["command"] == "new"
        record, chooser = step["record"], random.Random(8)
        while step["legal"]:
            assert (step["over"], step["winners"]) == (False, [])
            if step["position"]["turn"] == "green" and step["legal"] != [{"type": "roll"}]:
                action = _ask(proc, {"command": "bot", "level": "hard",
                                     "position": step["position"]})["action"]
            else:
                action = chooser.choice(step["legal"])
            step = _ask(proc, {"command": "apply", "position": step, "action": action})
            assert "error" not in step, step
            record["actions"].append(action)
        assert step["position"]["phase"] == "over"
        # the end in the same words for every rule set: Gilgiti's position names `winners`,
        # the others' a `winner`
        winners = step["position"].get("winners") or [step["position"]["winner"]]
        assert step["over"] is True and step["winners"] == winners and len(winners) == 1
        assert replay(record_from_json(record))[-1] == position_from_json(step["position"])
        last = _ask(proc, {"command": "legal", "position": step})
        assert last["legal"] == [] and (last["over"], last["winners"]) == (True, winners)
    finally:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out == b"" and err == b""


def test_every_answer_says_whether_the_game_is_over_and_who_won_alike_in_every_rule_set():
    # a quit ends Courtyard for the seat that left (the last one remaining wins) and a Gilgiti
    # match for everybody (nobody wins): a program reads both from `over` and `winners`
    proc = _stdio()
    try:
        for rules, seats, options, winners in (
                ("courtyard", ["red", "yellow"], {}, ["yellow"]),
                ("gilgiti", ["red", "green", "yellow", "blue"], {"teams": True}, [])):
            step = _ask(proc, {"command": "new", "rules": rules, "seats": seats,
                               "options": options, "seed": 3})
            assert (step["over"], step["winners"]) == (False, [])
            step = _ask(proc, {"command": "apply", "position": step,
                               "action": {"type": "quit", "seat": "red"}})
            assert (step["over"], step["winners"]) == (True, winners), (rules, step)
            assert step["legal"] == []
    finally:
        proc.communicate(timeout=60)


def test_stdio_answers_a_bad_request_with_an_error_and_goes_on():
    proc = _stdio()
    assert proc.stdin is not None and proc.stdout is not None
    bad = [b"garbage", b"[1]", b'{"command": "fly"}', b'{"command": "new", "seed": true}',
           b'{"command": "new", "seats": ["red", "red"]}', b'{"command": "new", "rules": "chess"}',
           b'{"command": "bot", "position": null}', b'{"command": "new", "options": {"x": 1}}',
           b'{"command": "apply", "position": {}, "action": 3}',
           b"[" * 100_000, b"x" * 4_100_000, b'{"command": "new", "id": 7, "id": 8}']
    try:
        for line in bad:
            proc.stdin.write(line + b"\n")
            proc.stdin.flush()
            reply = json.loads(proc.stdout.readline())
            assert list(reply) == ["error"] and len(reply["error"]) <= 300, (line[:40], reply)
        assert "command" in _ask(proc, {"command": "new", "id": 9})  # and it goes on
    finally:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err == b""
