"""Hostile and clumsy input to the notation readers and the command line.

Every problem is one clear line naming the field; nothing quotes more than a short piece of
the input, nothing is spelled the Python way, and no input makes a traceback.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from enginekit import load, pos

from ludo import (
    IllegalAction,
    NotationError,
    apply,
    format_position,
    new_game,
    parse_position,
    parse_record,
)
from ludo.cli import CliError, answer, main
from ludo.engine import rules_for
from ludo.errors import quote
from ludo.notation import MAX_JSON_BYTES, json_depth, load_json

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("text,depth", [
    ("[]", 1), ('{"a": [1, {"b": []}]}', 4), ('"[[[["', 0), ('["\\"[", ["x"]]', 2),
    ('["\\\\", ["\\\\\\"]"]]', 2), ('"' + '\\"' * 1000, 0), ("[" * 70 + "]" * 70, 70),
    ('["a\\u005b", {"\\"": "]"}]', 2),
])
def test_json_depth_ignores_brackets_in_strings_and_escapes(text, depth) -> None:
    assert json_depth(text) == depth


def test_json_depth_stops_at_its_limit() -> None:
    assert json_depth("[" * 10_000, limit=64) == 65


def test_duplicate_keys_are_refused() -> None:
    text = json.dumps(pos())
    with pytest.raises(NotationError, match="turn: appears twice"):
        parse_position(text[:-1] + ', "turn": "green"}')
    record = '{"format": "courtyard-ludo/record", "version": 2, "seed": 1, "seed": 2}'
    with pytest.raises(NotationError, match="seed: appears twice"):
        parse_record(record)


def test_oversized_text_is_refused_before_parsing() -> None:
    with pytest.raises(NotationError, match="too long"):
        load_json(" " * (MAX_JSON_BYTES + 1), "position")
    with pytest.raises(NotationError, match="too long"):
        load_json(b"[" + b" " * MAX_JSON_BYTES + b"]", "record")


def test_two_colours_never_share_an_ordinary_square() -> None:
    with pytest.raises(NotationError, match="cannot share square 14"):
        load(tokens={"red": [14, "yard", "yard", "yard"], "green": [14, "yard", "yard", "yard"]})
    # the eight safe squares may be shared
    load(tokens={"red": [13, 8, "yard", "yard"], "green": [13, 8, "yard", "yard"]})


def test_only_the_winner_has_all_tokens_home() -> None:
    home = ["home"] * 4
    with pytest.raises(NotationError, match="only the winner"):
        load(phase="over", winner="red", unlocked=["red", "green"],
             tokens={"red": home, "green": home})


def test_unlocked_is_written_in_clockwise_order() -> None:
    with pytest.raises(NotationError, match="clockwise order: red, green"):
        load(unlocked=["green", "red"])


def test_messages_quote_input_briefly_and_in_json_spelling() -> None:
    assert quote(True) == "true" and quote(None) == "null" and quote("red") == '"red"'
    assert len(quote("x" * 1_000_000)) == 40
    # a character that cannot be shown is escaped alone, the quotes stay quotes: a byte the
    # locale could not decode (an argument read as a lone surrogate) gave \"re\\udcffd\"
    assert quote("re\udcffd") == '"re\\udcffd"' and quote("a\u200bb") == '"a\\u200bb"'
    with pytest.raises(NotationError) as info:
        load(tokens={"red": [True, "yard", "yard", "yard"]})
    assert "true is not a square" in str(info.value) and "True" not in str(info.value)
    data = pos()
    data["k" * 1_000_000] = 1
    with pytest.raises(NotationError) as info:
        parse_position(json.dumps(data))
    assert len(str(info.value)) < 400
    with pytest.raises(NotationError) as info:
        parse_position('{"format": "abc')
    assert "at at" not in str(info.value)
    with pytest.raises(NotationError) as info:
        parse_position('{"n": ' + "9" * 5000 + "}")
    assert "sys." not in str(info.value) and "digits()" not in str(info.value)


def _cli(*args: str, stdin: bytes | None = None, closed: bool = False,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT / "py"), **(env or {})}
    return subprocess.run([sys.executable, "-m", "ludo", *args], input=stdin,
                          stdin=subprocess.DEVNULL if stdin is None and not closed else None,
                          capture_output=True, timeout=60, env=full_env,
                          close_fds=True, **({"pass_fds": ()} if closed else {}))


@pytest.mark.parametrize("case", ["closed stdin", "not utf-8 under LC_ALL=C", "/dev/zero",
                                  "byte order mark", "a huge unknown key"])
def test_cli_never_shows_a_traceback(case: str, tmp_path: Path) -> None:
    if case == "closed stdin":
        result = subprocess.run(
            [sys.executable, "-c", "import os, sys; os.close(0); sys.stdin = None; "
             "from ludo.cli import main; sys.exit(main(['legal', '-']))"],
            capture_output=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT / "py")})
        words = "closed"
    elif case == "not utf-8 under LC_ALL=C":
        result = _cli("legal", "-", stdin=b"\xff\xfe{", env={"LC_ALL": "C", "LANG": "C"})
        words = "not UTF-8"
    elif case == "/dev/zero":
        result = _cli("legal", "/dev/zero")
        words = "longer than"
    elif case == "byte order mark":
        path = tmp_path / "p.json"
        path.write_bytes(b"\xef\xbb\xbf" + json.dumps(pos()).encode())
        result = _cli("legal", str(path))
        assert result.returncode == 0, result.stderr
        return
    else:
        path = tmp_path / "p.json"
        path.write_text(json.dumps({**pos(), "k" * 1_000_000: 1}))
        result = _cli("legal", str(path))
        words = "is not a field"
    err = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and words in err and len(err) < 400


def _mutate(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(4)
        at = rng.randrange(len(chars) + 1)
        if kind == 0 and chars:
            del chars[min(at, len(chars) - 1)]
        elif kind == 1:
            chars.insert(at, rng.choice('[]{}",:0123456789-.eEtruefalsn\\ \u202e\x00'))
        elif kind == 2 and chars:
            chars[min(at, len(chars) - 1)] = rng.choice('"[]{}0a-:')
        else:
            piece = rng.choice(['"yard"', '"home"', "51", "-1", "true", "null", '"red-lane-9"',
                                "1e400", "[" * 80, '"' + "\\" * 9])
            chars[at:at] = piece
    return "".join(chars)


def test_fuzzed_positions_and_records_give_one_line_or_an_answer(tmp_path, capsys) -> None:
    """A few thousand mutated inputs through the CLI's own entry point: exit 0 or 2, never
    a traceback (an exception escaping main() fails the test)."""
    from ludo import Action, Record, format_record, new_game, play

    rng = random.Random(20261201)
    state = new_game("courtyard", ("red", "green", "yellow"), 5)
    record = Record("courtyard", state.seats, 5)
    for _ in range(40):
        action = Action("roll") if state.phase == "roll" else \
            rng.choice(__import__("ludo").legal_actions(state))
        record, state, _ = play(record, state, action)
    seeds = [json.dumps(pos()), format_record(record),
             json.dumps(__import__("ludo").position_to_json(state))]
    path = tmp_path / "in.json"
    for i in range(1500):
        text = _mutate(rng.choice(seeds), rng)
        path.write_text(text, encoding="utf-8")
        command = "replay" if "ludo/record" in text else "legal"
        status = main([command, str(path)])
        out, err = capsys.readouterr()
        assert status in (0, 2), (i, text)
        if status == 2:
            assert len(err.strip().splitlines()) == 1 and len(err) < 400, (text, err)


def _sh(redirect: str, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """``python -m ludo ARGS`` started by the shell with ``redirect`` (``<&-``, ``>&-``,
    ``> /dev/full``): the streams as a user's shell would leave them."""
    return subprocess.run(["/bin/sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable,
                           "-m", "ludo", *args], input=stdin, capture_output=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "py")})


@pytest.mark.skipif(not os.path.exists("/dev/full") or not os.path.exists("/bin/sh"),
                    reason="needs /bin/sh and /dev/full")
@pytest.mark.parametrize("args,redirect,words", [
    (["stdio"], "<&-", "cannot read standard input: it is closed"),
    (["stdio"], ">&-", "cannot write the answers: standard output is closed"),
    (["stdio"], "> /dev/full", "cannot write the answer: No space left on device"),
    (["new"], "> /dev/full", "cannot write the answer: No space left on device"),
    (["new"], ">&-", "cannot write the answer: standard output is closed"),
    (["simulate", "--games", "2"], "> /dev/full",
     "cannot write the answer: No space left on device"),
])
def test_cli_says_so_when_it_cannot_read_or_write(args, redirect, words) -> None:
    # one line on stderr and status 2: never a traceback, never 0 when nothing was written
    result = _sh(redirect, *args, stdin=b'{"command": "new"}\n')
    err = result.stderr.decode()
    assert result.returncode == 2 and err == f"error: {words}\n", (result.returncode, err)


@pytest.mark.parametrize("args", [["new"], ["stdio"]])
def test_cli_ends_quietly_when_its_reader_goes_away(args) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first answer: a broken pipe
    try:
        result = subprocess.run([sys.executable, "-m", "ludo", *args], stdout=write,
                                stderr=subprocess.PIPE, input=b'{"command": "new"}\n' * 20,
                                timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT / "py")})
    finally:
        os.close(write)
    assert result.returncode == 0 and result.stderr == b""


@pytest.mark.parametrize("rules", ["courtyard", "classic", "royal", "gilgiti"])
def test_every_rule_set_quotes_unknown_fields_and_seats_alike(rules) -> None:
    odd = {"type": "roll", "a\nb": 1, " ": 2, "x" * 5000: 3}
    with pytest.raises(NotationError) as info:
        rules_for(rules).parse_action(odd)
    assert str(info.value) == ('action: unknown field(s) " ", "a\\nb", "'
                               + "x" * (40 - 2) + '…')
    state = new_game(rules, ("red", "green"), 1)
    with pytest.raises(IllegalAction, match='^"purple" is not a seat in this game$'):
        apply(state, rules_for(rules).parse_action({"type": "quit", "seat": "purple"}))


def test_new_takes_players_or_seats_not_both(capsys) -> None:
    assert main(["new", "--players", "3", "--seats", "red,green"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "error: give --players or --seats, not both\n"
    with pytest.raises(CliError, match='^give "players" or "seats", not both$'):
        answer({"command": "new", "players": 2, "seats": ["red", "blue"]})
    assert main(["new", "--players", "2"]) == 0  # each alone is fine
    assert json.loads(capsys.readouterr().out)["position"]["seats"] == ["red", "yellow"]
    assert answer({"command": "new", "seats": ["red", "blue"]})["position"]["seats"] == \
        ["red", "blue"]


@pytest.mark.parametrize("command", [5, None, ["new"], "fly", ""])
def test_an_object_whose_command_is_no_command_is_not_a_previous_answer(command) -> None:
    with pytest.raises(CliError) as info:
        answer({"command": "apply", "position": {"command": command}, "action": {"type": "roll"}})
    # named as the request's field that holds it, like every other stdio error
    assert str(info.value) == (f'position: its "command" {quote(command)} is not one of this '
                               "program's commands: give a position, or the output of new or "
                               "apply")


@pytest.mark.parametrize("rules", ["courtyard", "royal", "gilgiti"])
def test_every_rule_set_quotes_a_bad_version_and_format_in_json_spelling(rules) -> None:
    """Gilgiti said Python's spelling ('version True', "must be 'courtyard-ludo/...'") and
    quoted a long version whole (the docs review's finding)."""
    good = _position_json(rules)
    for version, said in ((True, "version true "), ("1", 'version "1" '),
                          ("9" * 5000, None)):
        with pytest.raises(NotationError) as info:
            parse_position(json.dumps({**good, "version": version}))
        text = str(info.value)
        assert "True" not in text and "'" not in text and len(text) < 300, text
        if said:
            assert said in text, text
    with pytest.raises(NotationError) as info:
        parse_position(json.dumps({**good, "format": "x"}))
    assert "'" not in str(info.value) and '"' in str(info.value), str(info.value)


def _position_json(rules: str) -> dict:
    return json.loads(format_position(new_game(rules, ("red", "green"), 1)))
