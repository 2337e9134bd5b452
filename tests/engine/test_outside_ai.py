"""The interface for outside Ludo AIs (docs/notation.md, "Playing from another program") as a
program in another language meets it: `python -m ludo stdio`, one JSON line in, one out."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys

import pytest

from ludo import LudoError, new_game, position_from_json, position_to_json
from ludo.cli import CliError, answer, legal_of, stdio

PY = os.path.join(os.path.dirname(__file__), "..", "..", "py")
RULE_SETS = ["courtyard", "classic", "royal", "gilgiti"]


def _answers(lines: list[bytes]) -> list[dict]:
    """stdio's answers to these lines, in one session."""
    sink = io.StringIO()
    assert stdio(io.BytesIO(b"".join(lines)), sink) == 0
    return [json.loads(line) for line in sink.getvalue().splitlines()]


def test_stdio_answers_every_line_a_blank_one_too():
    # a program that writes a line and waits for its answer must get one: a blank line that
    # was skipped in silence left it waiting for ever
    replies = _answers([b"\n", b"  \r\n", b'{"command": "new", "id": 3}\n'])
    assert len(replies) == 3
    assert "blank line" in replies[0]["error"] and "blank line" in replies[1]["error"]
    assert replies[2]["id"] == 3 and replies[2]["command"] == "new"


def test_stdio_refuses_a_line_that_is_not_utf8_and_gives_the_id_back_unchanged():
    # decoded with replacement characters, the request was answered with another id ("\ufffd")
    replies = _answers([b'{"command": "new", "id": "caf\xe9"}\n',
                        '\ufeff{"command": "new", "id": "café"}\n'.encode()])
    assert replies[0] == {"error": "request: is not UTF-8 text (byte 30 is not valid UTF-8)"}
    assert replies[1]["id"] == "café"


@pytest.mark.parametrize("request_, field", [
    ({"command": "new", "rules": "gilgiti", "teams": True}, '"teams"'),  # the --teams flag
    ({"command": "new", "seeds": 7}, '"seeds"'),
    ({"command": "apply", "position": None, "action": {"type": "roll"}, "roll": 3}, '"roll"'),
    ({"command": "legal", "position": None, "action": {"type": "roll"}}, '"action"'),
    ({"command": "bot", "position": None, "lvl": "hard"}, '"lvl"'),
])
def test_stdio_refuses_a_field_its_command_does_not_take(request_, field):
    # ignored, "teams": true gave a game without teams, and "seeds" the default seed
    with pytest.raises(CliError, match=f"^request: unknown field {field} "):
        answer(request_)
    with pytest.raises(CliError, match=r'"options": \{"teams": true\}'):
        answer({"command": "new", "rules": "gilgiti", "teams": True})
    teams = answer({"command": "new", "rules": "gilgiti", "options": {"teams": True}, "id": 1})
    assert teams["position"]["teams"] is True


@pytest.mark.parametrize("rules", RULE_SETS)
def test_distinct_is_what_a_player_chooses_among_in_the_roll_phase_too(rules):
    # it was [] while the seat had to roll: a program choosing among `distinct` had nothing
    state = new_game(rules, ("red", "yellow"), 5)
    assert legal_of(state)["distinct"] == legal_of(state)["legal"] == [{"type": "roll"}]
    over = answer({"command": "apply", "position": position_to_json(state),
                   "action": {"type": "quit", "seat": "yellow"}})
    assert answer({"command": "legal", "position": over})["distinct"] == []


def test_a_stdio_roll_is_named_as_the_request_names_it():
    state = position_to_json(new_game("courtyard", ("red", "yellow"), 5))
    # the request's field is "roll": it has no "roll.value", which errors named
    with pytest.raises(LudoError, match=r"^roll: must be a die value 1\.\.6$"):
        answer({"command": "legal", "position": state, "roll": 9})
    rolled = answer({"command": "legal", "position": state, "roll": 6})["position"]
    with pytest.raises(CliError, match="^roll needs a position waiting for a roll"):
        answer({"command": "legal", "position": rolled, "roll": 6})
    with pytest.raises(CliError, match="^--roll needs"):  # the command line's own name
        legal_of(position_from_json(rolled), 6)


@pytest.mark.parametrize("rules, field", [("courtyard", "tokens"), ("royal", "men"),
                                          ("gilgiti", "tokens"), ("classic", "out")])
def test_a_field_of_the_wrong_type_is_told_in_json_words(rules, field):
    # "has the wrong type (NoneType)" named a Python type to a program in any language
    position = position_to_json(new_game(rules, ("red", "yellow"), 5))
    for value, said in ((None, "null"), ([], "[]"), ("x", '"x"')):
        with pytest.raises(LudoError) as info:
            answer({"command": "legal", "position": {**position, field: value}})
        message = str(info.value)
        # named as the request's own path to it, which is inside its "position"
        assert message == f"position.{field}: has the wrong type: expected an object, not {said}"


def test_an_outside_program_plays_every_rule_set_choosing_among_distinct():
    # the loop docs/notation.md describes, as another program runs it: new, then for each
    # decision a choice among the last answer's `distinct`, then `apply` with that answer
    # (new's and apply's answers lacked `distinct`: a second request, `legal`, each time)
    env = dict(os.environ, PYTHONPATH=PY + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "ludo", "stdio"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    chooser, asked = random.Random(4), 0

    def ask(request: dict) -> dict:
        nonlocal asked
        asked += 1
        proc.stdin.write(json.dumps({**request, "id": [asked]}).encode() + b"\n")
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        assert reply.pop("id") == [asked] and "error" not in reply, reply
        return reply

    games = [("courtyard", {"players": 3}), ("classic", {"seats": ["blue", "green"]}),
             ("royal", {"players": 4}), ("gilgiti", {"players": 4, "options": {"teams": True}}),
             ("gilgiti", {"players": 3})]
    try:
        for seed, (rules, table) in enumerate(games):
            step = ask({"command": "new", "rules": rules, "seed": seed, **table})
            while step["position"]["phase"] != "over":
                if asked % 7 == 0:  # new's and apply's own `distinct` is legal's
                    assert ask({"command": "legal", "position": step})["distinct"] \
                        == step["distinct"]
                step = ask({"command": "apply", "position": step,
                            "action": chooser.choice(step["distinct"])})
    finally:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out == b"" and err == b""


def test_a_record_where_a_position_belongs_and_back_say_which_command_reads_it(tmp_path, capsys):
    # both said only `format: must be "courtyard-ludo/..."`, which tells an outsider nothing
    # about what to do; new's answer holds both documents, and a program may save either
    from ludo.cli import main

    started = answer({"command": "new", "players": 2})
    files = {}
    for name, document in (("position", started["position"]), ("record", started["record"]),
                           ("new", started)):
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(document))
    assert main(["legal", str(files["record"])]) == 2
    assert "this is a game record, not a position: replay" in capsys.readouterr().err
    with pytest.raises(CliError, match="^position: this is a game record"):
        answer({"command": "apply", "position": started["record"], "action": {"type": "roll"}})
    assert main(["replay", str(files["position"])]) == 2
    assert "this is a position, not a game record: new prints" in capsys.readouterr().err
    assert main(["replay", str(files["new"])]) == 2
    assert 'replay its "record" member' in capsys.readouterr().err
    assert main(["replay", str(files["record"])]) == 0
    assert json.loads(capsys.readouterr().out)["position"] == started["position"]


@pytest.mark.parametrize("command", [["legal"], ["bot"], ["apply", '{"type": "roll"}'],
                                     ["replay"], ["verify"]])
def test_an_empty_input_is_called_empty(tmp_path, capsys, command):
    # it was "is not valid JSON (Expecting value at line 1 column 1)": a parser's words for
    # a program that piped nothing, or a save that failed
    from ludo.cli import main

    empty = tmp_path / "empty.json"
    empty.write_text(" \n")
    argv = [command[0], str(empty), *command[1:]]
    assert main(argv) == 2
    what = "record" if command[0] in ("replay", "verify") else "position"
    assert capsys.readouterr().err == f"error: {what}: {empty} is empty; give " + (
        "a game record's JSON\n" if what == "record" else
        "a position's JSON, or the whole line new, apply or legal --roll printed\n")


def test_stdio_help_shows_requests_that_it_answers(capsys):
    # `stdio --help` said only "answer JSON requests": an outsider reading --help had no request
    from ludo.cli import STDIO_HELP, main

    with pytest.raises(SystemExit):
        main(["stdio", "--help"])
    assert STDIO_HELP.splitlines()[0] in capsys.readouterr().out
    position = json.dumps(answer({"command": "new", "seed": 7})["position"])
    requests = [line.strip().replace(" P,", f" {position},") for line in STDIO_HELP.splitlines()
                if line.strip().startswith('{"command"')]
    assert len(requests) == 4
    for request in requests:
        assert "error" not in _answers([request.encode() + b"\n"])[0], request


@pytest.mark.parametrize("request_, field", [
    ({"command": "new", "seats": None}, "seats"),
    ({"command": "new", "options": None}, "options"),
    ({"command": "new", "seed": None}, "seed"),
    ({"command": "legal", "roll": None}, "roll"),
    ({"command": "bot", "level": None}, "level"),
])
def test_a_null_field_is_refused_like_any_wrong_type(request_, field):
    # "seats": null was taken as if absent while "options": null was refused
    if request_["command"] != "new":
        request_ = {**request_, "position": position_to_json(new_game("courtyard",
                                                                         ("red", "yellow"), 5))}
    with pytest.raises(CliError, match=rf"^{field}: expected .*, not null$"):
        answer(request_)


@pytest.mark.parametrize("command", [["legal"], ["apply", '{"type": "roll"}'], ["bot"],
                                     ["replay"], ["verify"]])
def test_json_given_where_a_file_name_goes_is_told_apart_from_a_missing_file(capsys, command):
    # README's `apply last.json '{"type": "roll"}'` takes the action as JSON text, so an outside
    # program gave the position so too: it got "cannot read {"command":"new",...", cut at 300
    # characters before the reason, which never said that FILE is a file's name (outside11)
    from ludo.cli import main

    given = json.dumps(answer({"command": "new", "players": 2}), separators=(",", ":"))
    argv = [command[0], given, *command[1:]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith('error: cannot read {"command":"new","position":') and len(err) < 300
    assert err.endswith(": no such file: FILE is the name of a file holding the JSON, or - to "
                        "read it from standard input\n"), err
    # a text of no "/" longer than a file name may be ("File name too long") is told so too
    assert main([command[0], '{"id": "' + "x" * 300 + '"}', *command[1:]]) == 2
    assert capsys.readouterr().err.endswith(": no such file: FILE is the name of a file "
                                            "holding the JSON, or - to read it from standard "
                                            "input\n")


@pytest.mark.parametrize("command", ["replay", "verify"])
def test_replay_and_verify_say_alike_what_a_previous_answer_or_a_position_is(tmp_path, capsys,
                                                                            command):
    # replay named new's whole line and a position for what they are; verify said only
    # "format: is missing (a record's is ...)" of new's line and "format: must be
    # "courtyard-ludo/record"" of a position (outside11)
    from ludo.cli import main

    new = answer({"command": "new", "players": 2})
    said = []
    for document in (new, new["position"]):
        path = tmp_path / "given.json"
        path.write_text(json.dumps(document))
        assert main([command, str(path)]) == 2
        said.append(capsys.readouterr().err)
    assert said == [
        'error: this is the output of "new", not a game record: replay its "record" member, '
        'with each action applied appended to its "actions"\n',
        "error: this is a position, not a game record: new prints a game's record, and each "
        'action applied is appended to its "actions"\n']
