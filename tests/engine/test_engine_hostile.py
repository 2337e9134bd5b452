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

from ludo import NotationError, parse_position, parse_record
from ludo.cli import main
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
