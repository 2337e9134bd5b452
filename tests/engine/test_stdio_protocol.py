"""`python -m ludo stdio` as an outside integrator meets it (docs/notation.md, "Playing from
another program"): the line-length limit, text streams handed in as `source`, missing and
null fields, and error messages whose field paths follow the request's own structure."""

from __future__ import annotations

import io
import json
import random
import sys

import pytest

from ludo import LudoError, NotationError, new_game, position_to_json, record_from_json
from ludo.cli import CliError, answer, main, stdio
from ludo.engine import RULESETS, rules_for
from ludo.notation import MAX_JSON_BYTES, load_json

LIMIT = MAX_JSON_BYTES
TOO_LONG = (f"request: is too long: a request line is at most {LIMIT:,} bytes, its line end "
            "not counted")


def _sized(size: int, id_: int) -> bytes:
    """A `new` request of exactly ``size`` bytes (padded with JSON's spaces), no line end."""
    line = b'{"command": "new", "id": %d}' % id_
    return line + b" " * (size - len(line))


def _session(data: bytes, text: bool) -> list[dict]:
    """stdio's answers to ``data``, handed in as bytes or as an already decoded text stream
    (tests and programs that embed the engine pass an io.StringIO)."""
    sink = io.StringIO()
    source = io.StringIO(data.decode(), newline="") if text else io.BytesIO(data)
    assert stdio(source, sink) == 0
    return [json.loads(line) for line in sink.getvalue().splitlines()]


@pytest.mark.parametrize("text", [False, True], ids=["bytes", "text"])
@pytest.mark.parametrize("end", [b"\n", b"\r\n"], ids=["LF", "CRLF"])
def test_the_line_limit_counts_the_line_without_its_end(text, end):
    # a line of exactly the limit and its "\n" was refused, and "is too long (over 4,000,000
    # characters)" named no unit the docs use; a text stream raised a TypeError instead
    lines = [_sized(LIMIT - 1, 1), _sized(LIMIT, 2), _sized(LIMIT + 1, 3),
             _sized(LIMIT + 100, 4), b'{"command": "new", "id": 5}']
    replies = _session(end.join(lines) + end, text)
    assert [r.get("id") for r in replies] == [1, 2, None, None, 5]
    assert [r.get("command") for r in replies] == ["new", "new", None, None, "new"]
    assert replies[2] == replies[3] == {"error": TOO_LONG}


@pytest.mark.parametrize("text", [False, True], ids=["bytes", "text"])
@pytest.mark.parametrize("size, answered", [(LIMIT, True), (LIMIT + 1, False)])
def test_the_last_line_without_an_end_has_the_same_limit(text, size, answered):
    replies = _session(b'{"command": "new", "id": 0}\n' + _sized(size, 1), text)
    assert len(replies) == 2 and replies[0]["id"] == 0
    if answered:
        assert replies[1]["id"] == 1 and replies[1]["command"] == "new"
    else:
        assert replies[1] == {"error": TOO_LONG}


@pytest.mark.parametrize("extra", [0, 1])
def test_a_text_stream_counts_the_lines_utf8_bytes_not_its_characters(extra):
    # the limit is one rule whatever the stream: "é" is two bytes of the line as sent
    head = '{"command": "new", "id": "'
    fill = LIMIT - len(head) - len('"}')
    line = head + "é" * (fill // 2) + "e" * (fill % 2 + extra) + '"}'
    assert len(line.encode()) == LIMIT + extra and len(line) < LIMIT
    sink = io.StringIO()
    assert stdio(io.StringIO(line + "\n"), sink) == 0
    reply = json.loads(sink.getvalue())
    if extra:
        assert reply == {"error": TOO_LONG}
    else:
        assert reply["command"] == "new"


def test_a_file_has_the_same_limit_without_its_final_line_end(tmp_path, capsys):
    # the other commands read a whole document: a saved line and its "\n" counts as the line
    for size, status in ((LIMIT, 0), (LIMIT + 1, 2)):
        path = tmp_path / f"{size}.json"
        position = json.dumps(answer({"command": "new"})["position"]).encode()
        path.write_bytes(position + b" " * (size - len(position)) + b"\r\n")
        assert main(["legal", str(path)]) == status
        out, err = capsys.readouterr()
        assert err == ("" if status == 0 else
                       f"error: cannot read {path}: it is longer than {LIMIT:,} bytes (a final "
                       "line end not counted)\n")


def test_text_standard_input_counts_bytes_too(monkeypatch, capsys):
    position = json.dumps(answer({"command": "new"})["position"])
    too_long = position + " " * (LIMIT - len(position) - 1) + "é"  # LIMIT characters
    monkeypatch.setattr(sys, "stdin", io.StringIO(too_long))
    assert main(["legal", "-"]) == 2
    assert capsys.readouterr().err == (f"error: cannot read standard input: it is longer than "
                                       f"{LIMIT:,} bytes (a final line end not counted)\n")


def test_verify_without_the_online_package_says_so_on_one_line(monkeypatch, capsys, tmp_path):
    # the engine installed alone (no py/net): `verify` gave a ModuleNotFoundError traceback
    for name in ("net", "net.dice", "net.record"):
        monkeypatch.setitem(sys.modules, name, None)  # import now raises ModuleNotFoundError
    record = tmp_path / "record.json"
    record.write_text("{}")
    assert main(["verify", str(record)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == ("error: verify needs the online package (py/net), which is "
                                 "not installed with this engine; replay checks a record's "
                                 "actions without it\n")


@pytest.mark.parametrize("request_, missing", [
    ({"command": "apply", "action": {"type": "roll"}}, "position"),
    ({"command": "apply"}, "position"),
    ({"command": "apply", "position": "P"}, "action"),
    ({"command": "legal"}, "position"),
    ({"command": "bot", "level": "easy"}, "position"),
])
def test_a_missing_field_is_named_as_missing(request_, missing):
    # it said "position: must be a JSON object" or "action: must be an object like ...",
    # which reads as a field given with a wrong value
    if request_.get("position") == "P":
        request_ = {**request_, "position": answer({"command": "new"})}
    needs = "position and action" if request_["command"] == "apply" else "position"
    with pytest.raises(CliError) as info:
        answer(request_)
    article = "an" if request_["command"] == "apply" else "a"
    assert str(info.value) == (f"{missing}: is missing ({article} {request_['command']} request "
                               f"needs {needs})")


NULLS = [({"type": "roll", "value": None}, "value"), ({"type": "roll", "seat": None}, "seat"),
         ({"type": "roll", "token": None}, "token"),
         ({"type": "timeout", "value": None}, "value"),
         ({"type": "quit", "seat": None}, "seat"),
         ({"type": "move", "token": 0, "value": 6, "seat": None}, "seat")]


@pytest.mark.parametrize("rules", list(RULESETS))
@pytest.mark.parametrize("action, field", NULLS)
def test_every_rule_set_refuses_a_null_action_field_alike(rules, action, field):
    # Courtyard, Classic and Royal took "seat": null (and other nulls) as left out, Gilgiti
    # refused "seat": null as "not used by a roll action" but took "tokens": null as left out
    with pytest.raises(NotationError) as info:
        rules_for(rules).parse_action(action)
    assert str(info.value) == f"action.{field}: is null; leave the field out instead"
    # and without the null the action reads (a move's shape is the rule set's own)
    if action["type"] != "quit" and action["type"] != "move":
        rules_for(rules).parse_action({k: v for k, v in action.items() if v is not None})


def test_gilgiti_refuses_null_tokens_like_any_null():
    for action in ({"type": "move", "token": 9, "value": 4, "tokens": None},
                   {"type": "force", "tokens": None}):
        with pytest.raises(NotationError, match=r"^action\.tokens: is null; leave the field "
                                                r"out instead$"):
            rules_for("gilgiti").parse_action(action)


@pytest.mark.parametrize("rules", list(RULESETS))
def test_a_null_action_field_is_refused_through_stdio_and_in_a_record(rules):
    started = answer({"command": "new", "rules": rules, "players": 2})
    with pytest.raises(NotationError, match=r"^action\.seat: is null"):
        answer({"command": "apply", "position": started,
                "action": {"type": "roll", "seat": None}})
    record = {**started["record"], "actions": [{"type": "roll", "value": None}]}
    with pytest.raises(NotationError, match=r"^actions\[0\]\.value: is null"):
        record_from_json(record)


@pytest.mark.parametrize("rules", list(RULESETS))
def test_a_stdio_roll_error_names_the_request_field(rules):
    # "roll.value: must be a die value 1..6": the request has no roll.value, its field is roll
    position = position_to_json(new_game(rules, ("red", "yellow"), 5))
    with pytest.raises(LudoError) as info:
        answer({"command": "legal", "position": position, "roll": 9})
    assert str(info.value).startswith("roll: must be ")


@pytest.mark.parametrize("rules", list(RULESETS))
def test_a_position_error_names_the_field_inside_the_request(rules):
    # "turn: ..." named a field the request does not have: it is position.turn, and inside a
    # previous answer given as the position, position.position.turn
    started = answer({"command": "new", "rules": rules, "players": 2})
    bad = {**started["position"], "turn": "purple"}
    for given, path in ((bad, "position.turn"), ({**started, "position": bad},
                                                 "position.position.turn")):
        with pytest.raises(NotationError) as info:
            answer({"command": "legal", "position": given})
        assert str(info.value) == f'{path}: "purple" is not a seat in this game'
    for given, path in (({"format": "x"}, "position.format"),
                        ({**started, "position": 5}, "position.position"),
                        ({**started["position"], "rules": "chess"}, "position.rules")):
        with pytest.raises(NotationError) as info:
            answer({"command": "bot", "position": given})
        assert str(info.value).startswith(f"{path}: "), str(info.value)


def test_a_position_error_from_a_file_names_the_documents_own_field(tmp_path, capsys):
    # the command line reads a position from a file: its fields are the document's own
    started = answer({"command": "new"})
    path = tmp_path / "p.json"
    path.write_text(json.dumps({**started["position"], "turn": "purple"}))
    assert main(["legal", str(path)]) == 2
    assert capsys.readouterr().err == 'error: turn: "purple" is not a seat in this game\n'


@pytest.mark.parametrize("rules", list(RULESETS))
def test_a_position_or_record_without_a_field_says_it_is_missing(rules):
    # a position without "version" or "rules" was told "version null is not supported" and
    # "unknown rule set null", a record without "seed" or "actions" "must be ...": a null
    # the input never had, and words for a wrong value
    started = answer({"command": "new", "rules": rules, "players": 2})
    for name in ("format", "version", "rules"):
        position = {k: v for k, v in started["position"].items() if k != name}
        with pytest.raises(NotationError) as info:
            answer({"command": "legal", "position": position})
        assert str(info.value).startswith(f"position.{name}: is missing"), str(info.value)
    for name in ("format", "version", "rules", "seats", "seed", "actions"):
        record = {k: v for k, v in started["record"].items() if k != name}
        with pytest.raises(NotationError) as info:
            record_from_json(record)
        assert str(info.value).startswith(f"{name}: is missing"), str(info.value)
    online = {**started["record"], "version": 3}
    with pytest.raises(NotationError, match=r"^dice: is missing"):
        record_from_json(online)


@pytest.mark.parametrize("source_kind", [io.BytesIO, io.StringIO])
@pytest.mark.parametrize("sink_kind", [io.BytesIO, io.StringIO])
def test_stdio_takes_binary_and_text_streams_for_input_and_output(source_kind, sink_kind):
    # a caller's io.BytesIO as the sink raised "TypeError: a bytes-like object is required"
    request = '{"command": "new", "id": "é"}\n'
    source = source_kind(request.encode()) if source_kind is io.BytesIO else source_kind(request)
    sink = sink_kind()
    assert stdio(source, sink) == 0
    written = sink.getvalue()
    reply = json.loads(written.decode() if isinstance(written, bytes) else written)
    assert reply["id"] == "é" and reply["command"] == "new"


@pytest.mark.parametrize("command, why", [
    ("new", 'but without its "position" member (new\'s answers hold one)'),
    ("apply", 'but without its "position" member (apply\'s answers hold one)'),
    ("legal", "which holds a position only when asked with a roll (legal --roll)"),
    ("bot", "which holds no position"),
])
def test_an_answer_without_a_position_says_why_by_its_command(command, why):
    # every such answer was told "...the output of "new", which holds no position", untrue of
    # new and apply (whose answers always hold one: this one was cut or edited) and of legal
    # (whose answer holds one when asked with a roll)
    with pytest.raises(CliError) as info:
        answer({"command": "legal", "position": {"command": command, "turn": "red"}})
    assert str(info.value).endswith(
        f'this is the output of "{command}", {why}: give a position, or the whole output of'
        " new or apply")


def test_messages_name_no_python_remedies_and_a_long_number_is_out_of_range(capsys):
    # a second byte order mark (or one in apply's action) was "Unexpected UTF-8 BOM (decode
    # using utf-8-sig)", Python's advice to a program in another language; a seed or a game
    # count too long for Python's int() was "a seed is a whole number, not "999…"" though it is
    # one (too large). Found by hostile6's stdio and command line probes
    replies = _session(b'\xef\xbb\xbf\xef\xbb\xbf{"command": "new", "id": 1}\n', text=False)
    assert replies == [{"error": "request: is not valid JSON (a byte order mark, U+FEFF, at "
                                 "line 1 column 1)"}]
    with pytest.raises(NotationError, match=r"^action: is not valid JSON \(a byte order mark, "
                                            r"U\+FEFF, at line 1 column 1\)$"):
        load_json('\ufeff{"type": "roll"}', "action")
    long = "9" * 5000
    for argv, said in ((["new", "--seed", long], "argument --seed: a seed is 0 to "
                        "18446744073709551615"),
                       (["simulate", "--games", long], "argument --games: must be 1 to "
                        "1,000,000, not a number that long")):
        assert main(argv) == 2
        assert capsys.readouterr().err == f"error: {said}\n"


def test_stdio_fuzz_every_mutated_line_gets_one_answer_with_its_id():
    # a bounded, seeded fuzz of one stdio session as a hostile program drives it: valid
    # requests (a game's own answers handed back whole) mutated byte by byte (flips, junk and
    # control bytes, cuts, a carriage return, a lone surrogate escape, NaN, a huge number, a
    # key twice) with ids of every JSON type. Every line gets exactly one JSON answer line, in
    # order; a line still read as an object with an "id" gets that id back, equal and of the
    # same type. (hostile6 ran 20 seeds of 2,000 lines: nothing escaped)
    rnd = random.Random(6)
    ids: list = [0, -1, 2**70, 1.5, -0.0, 1e308, "", "ß\u202e", "\ud800", True, False, None, [],
                 {}, [1, {"a": [None]}]]
    new = answer({"command": "new", "rules": "gilgiti", "players": 4, "seed": 3})
    requests = [{"command": "new", "rules": r, "players": 2} for r in RULESETS]
    requests += [{"command": "apply", "position": new, "action": {"type": "roll"}},
                 {"command": "legal", "position": new, "roll": 5},
                 {"command": "bot", "position": new["position"], "level": "hard"}]
    junk = [b"\x00", b"\xff", b"\r", b"\\ud800", b"NaN", b"1e999", b"9" * 5000, b"[" * 70,
            b"\xef\xbb\xbf", b"\xc0\xaf", b'"id":1,"id":2', b"}", b"{", b'"', b"\t"]
    lines, expected = [], []
    for _ in range(200):
        request = {**rnd.choice(requests), "id": rnd.choice(ids)}
        line = bytearray(json.dumps(request, separators=(",", ":")).encode())
        for _ in range(rnd.choice((0, 0, 1, 2, 3))):
            at = rnd.randrange(len(line) + 1)
            kind = rnd.randrange(3)
            if kind == 0:
                line[at:at] = rnd.choice(junk)
            elif kind == 1 and at < len(line):
                line[at] = rnd.randrange(256)
            else:
                del line[at:at + rnd.randrange(1, 40)]
        line = line.replace(b"\n", b" ")  # one request a line
        lines.append(bytes(line))
        try:  # (stdio's own reading: NaN, 1e999 or a key twice is no JSON it reads)
            parsed = load_json(bytes(line).decode("utf-8").removeprefix("\ufeff"), "request")
        except (ValueError, LudoError):
            parsed = None
        expected.append(parsed["id"] if isinstance(parsed, dict) and "id" in parsed else ...)
    replies = _session(b"\n".join(lines) + b"\n", text=False)
    assert len(replies) == len(lines)
    for reply, id_, line in zip(replies, expected, lines, strict=True):
        assert isinstance(reply, dict) and ("error" in reply or "command" in reply), line
        if id_ is ...:
            assert "id" not in reply, line
        else:
            assert reply["id"] == id_ and type(reply["id"]) is type(id_), (line, reply, id_)


class _EndlessLine(io.RawIOBase):
    """A source whose first line never ends (a program that never writes its "\\n", or
    /dev/zero): ``pieces`` reads of spaces, then the end of input; ``reads`` counts them."""

    def __init__(self, pieces: int) -> None:
        self.pieces, self.reads = pieces, 0

    def readline(self, size: int = -1) -> bytes:  # type: ignore[override]
        self.reads += 1
        return b" " * size if self.reads <= self.pieces else b""


def test_a_line_past_the_limit_is_answered_before_its_rest_is_read():
    # the error for an oversized line was written only once the whole line had been read: a
    # line without end (/dev/zero) was never answered, and a program waiting for the answer
    # to a 10 MB line waited until all of it was read. Now answered as soon as the limit is
    # passed; the rest of the line is skipped in bounded pieces
    source = _EndlessLine(pieces=50)
    written_at: list[int] = []

    class Sink(io.StringIO):
        def write(self, text: str) -> int:
            written_at.append(source.reads)
            return super().write(text)

    sink = Sink()
    assert stdio(source, sink) == 0
    assert [json.loads(line) for line in sink.getvalue().splitlines()] == [{"error": TOO_LONG}]
    assert written_at == [1]


@pytest.mark.parametrize("rules", list(RULESETS))
def test_a_wrong_seats_entry_is_named_by_its_index(rules):
    # "seats: a colour is listed twice" and "seats: must be a list of colours" (for one number
    # among four colours) did not say which entry: a new request's and a position's seats
    for seats, said in ((["red", 5], "seats[1]: 5 is not a colour; use red, green, yellow, "
                         "blue"),
                        (["red", "green", "red"], 'seats[2]: "red" is listed twice'),
                        (["red", "purple"], 'seats[1]: unknown colour "purple"; use red, '
                         "green, yellow, blue"),
                        ("red", 'seats: expected a list, not "red"')):
        with pytest.raises((LudoError, CliError)) as info:
            answer({"command": "new", "rules": rules, "seats": seats})
        assert str(info.value) == said
    position = answer({"command": "new", "rules": rules, "players": 2})["position"]
    bad = {**position, "seats": [position["seats"][0], None]}
    with pytest.raises(NotationError) as info:
        answer({"command": "legal", "position": bad})
    assert str(info.value).startswith("position.seats[1]: null is not a colour"), \
        str(info.value)


def _with_count(rules: str, count: int) -> dict:
    """A new two-seat game's position with its one unbounded count set to ``count``: Royal's
    ``crowns`` (in the roll phase, crowns thrown in succession so far this turn) and
    Gilgiti's ``timeouts`` of the seat to act."""
    position = answer({"command": "new", "rules": rules, "players": 2, "seed": 5})["position"]
    if rules == "royal":
        return {**position, "crowns": count}
    return {**position, "timeouts": {**position["timeouts"], position["turn"]: count}}


@pytest.mark.parametrize("rules, action, field", [
    ("royal", {"type": "roll", "value": "crown"}, "crowns"),
    ("gilgiti", {"type": "timeout", "value": 3}, "timeouts.{turn}")])
def test_a_count_past_any_json_readers_exact_range_is_refused(rules, action, field):
    # Royal's crowns and Gilgiti's timeouts had no upper bound: a count of 4,300 nines (the
    # longest number the reader takes) was read, and the crown or timeout that added one made
    # an answer Python cannot write as text (over 4,300 digits), so stdio died with a
    # traceback and answered none of the lines after it (outside11's probes). Both counts now
    # stop at 2**53 - 1, the largest whole number every JSON reader keeps exactly
    top = 2**53 - 1
    position = _with_count(rules, top - 1)
    name = field.format(turn=position["turn"])
    reached = answer({"command": "apply", "position": position, "action": action})
    assert answer({"command": "legal", "position": reached})["legal"]  # top itself reads back
    for count in (top + 1, int("9" * 4300)):
        with pytest.raises(NotationError) as info:
            answer({"command": "apply", "position": _with_count(rules, count), "action": action})
        assert str(info.value) == f"position.{name}: must be 0 to 9007199254740991", info.value
    huge = json.dumps({"command": "apply", "position": _with_count(rules, int("9" * 4300)),
                       "action": action, "id": 1})
    replies = _session(huge.encode() + b'\n{"command": "new", "id": 2}\n', text=False)
    assert [r.get("id") for r in replies] == [1, 2] and "error" in replies[0]


def test_a_request_without_a_usable_command_names_the_command_field():
    # "{}", a null or numeric "command" and a line that is no object all got the same
    # 'a request is a JSON object with a "command": ...', which named no field, where the docs
    # say a field a request lacks is named as missing; and a misspelt field of an apply request
    # was explained as "(a apply request takes ...)" (outside11's stdio probes)
    lines = [b"[]", b'"apply"', b"{}", b'{"id": 7}', b'{"command": null, "id": 8}',
             b'{"command": 5}', b'{"command": "apply", "positon": {}}']
    replies = _session(b"\n".join(lines) + b"\n", text=False)
    assert replies == [
        {"error": 'request: is not a JSON object; a request is a JSON object with a "command": '
                  "new, apply, legal or bot"},
        {"error": 'request: is not a JSON object; a request is a JSON object with a "command": '
                  "new, apply, legal or bot"},
        {"error": "command: is missing (a request needs one: new, apply, legal or bot)"},
        {"id": 7, "error": "command: is missing (a request needs one: new, apply, legal or bot)"},
        {"id": 8, "error": "command: null is not new, apply, legal or bot"},
        {"error": "command: 5 is not new, apply, legal or bot"},
        {"error": 'request: unknown field "positon" (an apply request takes position, action '
                  "and id)"}]
