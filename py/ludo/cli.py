"""Command line: ``python -m ludo simulate|new|legal|apply|bot|stdio|replay|verify|tournament``.

Every command prints one JSON line on stdout.  Bad input exits with status 2
and a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import errno
import io
import json
import os
import random
import sys
import time
from collections import Counter
from typing import Any, AnyStr, NoReturn

from .actions import Action
from .engine import RULESETS, rules_for
from .errors import LudoError, NotationError, json_kinds, quote
from .invariants import violations
from .notation import (
    MAX_JSON_BYTES,
    MAX_SEED,
    RECORD_FORMAT,
    Record,
    final_position,
    format_position,
    load_json,
    position_from_json,
    position_to_json,
    record_from_json,
    record_to_json,
)
from .rules.base import POSITION_FORMAT

MAX_ACTIONS_PER_GAME = 200_000  # a game longer than this counts as never ending
COMMANDS = ("simulate", "new", "legal", "apply", "bot", "stdio", "replay", "verify",
            "tournament")
"""The commands: an object whose "command" is one of them is a previous answer."""


class CliError(Exception):
    """Bad input: reported on one line, exit status 2."""


class OutputError(CliError):
    """The answer could not be written (standard output closed, a full disk...): reported on
    one line, exit status 2. A reader that went away (a broken pipe) is not one: that ends
    quietly."""


def _write_line(sink: Any, text: str) -> None:
    """One line of output, flushed: an OutputError if it cannot be written (BrokenPipeError,
    the reader gone, passes through)."""
    if sink is None:  # started with standard output closed (`>&-`)
        raise OutputError("cannot write the answer: standard output is closed")
    try:
        sink.write(text + "\n")
        sink.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write the answer: {exc.strerror or exc}") from None
    except ValueError:  # writing to a closed stream
        raise OutputError("cannot write the answer: standard output is closed") from None


def _drop_output() -> None:
    """Point standard output at the null device, so that what could not be written is not
    tried again (with a traceback) when Python exits."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # no real stdout (tests, embedding)
        pass


def _say(message: str) -> None:
    """``error: <message>`` on stderr, if there is a stderr to write to."""
    if sys.stderr is None:  # (print(file=None) would write to stdout)
        return
    try:
        print(f"error: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def simulate(rules_name: str, players: int, games: int, seed: int,
             check: bool = True, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Random legal play; returns the summary the CLI prints."""
    rules = rules_for(rules_name)
    seats = rules.seating(players)
    options = options or {}
    chooser = random.Random(seed)
    roll = Action("roll")
    wins: Counter[str] = Counter()
    total_actions = 0
    problems = 0
    first_problem = None
    started = time.perf_counter()
    for game in range(games):
        state = rules.new_game(seats, seed * 1_000_003 + game, options)
        count = 0
        while state.phase != "over":
            if count >= MAX_ACTIONS_PER_GAME:
                problems += 1
                first_problem = first_problem or f"game {game} did not end"
                break
            if state.phase == "roll":
                action = roll
            else:
                moves = rules.legal_actions(state)
                action = moves[chooser.randrange(len(moves))]
            if check:
                after, events = rules.apply(state, action)
                found = violations(state, after, events)
                if found:
                    problems += len(found)
                    first_problem = first_problem or f"game {game}: {found[0]}"
            else:  # raw speed: positions only
                after = rules.advance(state, action)
            state = after
            count += 1
        total_actions += count
        for winner in rules.winners(state):
            wins[winner] += 1
    elapsed = time.perf_counter() - started
    return {
        "command": "simulate",
        "rules": rules.name,
        "players": players,
        "seats": list(seats),
        **({"options": options} if options else {}),
        "games": games,
        "seed": seed,
        "actions": total_actions,
        "wins": {c: wins[c] for c in seats},
        "mean_game_length": round(total_actions / games, 1) if games else 0,
        "games_per_second": round(games / elapsed, 1) if elapsed > 0 else None,
        "invariants_checked": check,
        "invariant_violations": problems,
        "first_violation": first_problem,
    }


def _utf8_size(text: str | bytes) -> int:
    """How many bytes ``text`` is in UTF-8: what every size limit here counts, whether the
    stream handed its text over as bytes or already decoded (tests, embedding)."""
    if isinstance(text, bytes):
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _without_line_end(text: AnyStr) -> AnyStr:
    """``text`` without one final line end ("\n" or "\r\n"), which no size limit counts: a
    document saved with its newline, or a request line, is as long as what is before it."""
    newline = "\n" if isinstance(text, str) else b"\n"
    if not text.endswith(newline):
        return text
    text = text[:-1]
    return text[:-1] if text.endswith("\r" if isinstance(text, str) else b"\r") else text


def _read_input(path: str) -> str:
    """A JSON file's text (``-`` for standard input), read as UTF-8 bytes whatever the locale.

    At most MAX_JSON_BYTES are read, a final line end not counted, so an endless or enormous
    input (``/dev/zero``) is refused instead of filling the memory; a text stream (tests,
    embedding) is held to the same number of UTF-8 bytes.
    """
    # a path is shown whole up to 120 characters, so that the reason after it is never cut off
    where = "standard input" if path == "-" else path if len(path) <= 120 else path[:119] + "…"
    too_long = CliError(f"cannot read {where}: it is longer than {MAX_JSON_BYTES:,} bytes "
                        "(a final line end not counted)")
    try:
        if path == "-":
            if sys.stdin is None:
                raise CliError("cannot read standard input: it is closed")
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a text stream (tests, embedding): already decoded
                text = _without_line_end(sys.stdin.read(MAX_JSON_BYTES + 3))
                if _utf8_size(text) > MAX_JSON_BYTES:
                    raise too_long
                return text
            data = stream.read(MAX_JSON_BYTES + 3)  # room for the line end and one more
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_JSON_BYTES + 3)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENAMETOOLONG) and path.lstrip().startswith("{"):
            # the JSON itself where its file's name goes: README's `apply last.json '{"type":
            # "roll"}'` gives the action as JSON text, and a program gave the position so too
            raise CliError(f"cannot read {where}: no such file: FILE is the name of a file "
                           "holding the JSON, or - to read it from standard input") from None
        raise CliError(f"cannot read {where}: {exc.strerror or exc}") from None
    except ValueError:  # reading a closed stream
        raise CliError(f"cannot read {where}: it is closed") from None
    data = _without_line_end(data)  # (load_json's own limit counts what is passed on)
    if len(data) > MAX_JSON_BYTES:
        raise too_long
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # a byte order mark is allowed
    except UnicodeDecodeError as exc:
        raise CliError(f"cannot read {where}: it is not UTF-8 text (byte {exc.start + 1} "
                       "is not valid UTF-8)") from None


def _is_answer(data: Any) -> bool:
    """Whether parsed JSON given as a position is a previous answer (its position inside)."""
    return isinstance(data, dict) and "command" in data and "format" not in data


def _in_request(field: str, wrapped: bool) -> str:
    """A position's field as a path in a stdio request: under ``position``, and under
    ``position.position`` when the request gave a whole previous answer. The position's
    NotationErrors call the document itself ``position``."""
    where = "position.position" if wrapped else "position"
    return where if field == "position" else f"{where}.{field}"


# Why an answer given as a position holds none: new's, apply's and replay's always print one,
# so without it the answer was cut or edited, not of the wrong kind.
_NO_POSITION_WHY = {
    **{command: "which holds no position" for command in COMMANDS},
    **{command: f"but without its \"position\" member ({command}'s answers hold one)"
       for command in ("new", "apply", "replay")},
    "legal": "which holds a position only when asked with a roll (legal --roll)",
}


def _position_of(data: Any) -> Any:
    """A position from parsed JSON: a position, or the whole line that ``new``, ``apply`` or
    ``legal`` printed (its ``position`` member), so that one command's output can be saved and
    handed to the next as it is."""
    if _is_answer(data):
        command = data["command"]
        if not isinstance(command, str) or command not in COMMANDS:
            raise CliError(f"its \"command\" {quote(command)} is not one of this program's "
                           "commands: give a position, or the output of new or apply")
        if "position" not in data:
            raise CliError(f"this is the output of {quote(command)}, {_NO_POSITION_WHY[command]}"
                           ": give a position, or the whole output of new or apply")
        return position_from_json(data["position"])
    if isinstance(data, dict) and data.get("format") == RECORD_FORMAT:
        # the other document: say which command reads it rather than "format: must be ..."
        raise CliError("this is a game record, not a position: replay checks a record and "
                       "prints its final position")
    return position_from_json(data)


def _read_document(path: str, what: str) -> str:
    """A position's or record's text, refused at once when there is none: an empty file or
    standard input (a program that piped nothing, a save that failed) gets words that say
    so, not a JSON parser's "Expecting value at line 1 column 1"."""
    text = _read_input(path)
    if not text.strip():
        where = "standard input" if path == "-" else path
        given = ("a position's JSON, or the whole line new, apply or legal --roll printed"
                 if what == "position" else "a game record's JSON")
        raise CliError(f"{what}: {where} is empty; give {given}")
    return text


def _read_position(path: str) -> Any:
    return _position_of(load_json(_read_document(path, "position"), "position"))


def legal_of(state: Any, roll_value: int | str | None = None,
             roll_field: str = "--roll") -> dict[str, Any]:
    """Legal actions of a position, optionally after rolling ``roll_value``; ``roll_field``
    names that value in messages as the caller gave it (the option, or stdio's ``roll``)."""
    rules = rules_for(state)
    events: list[dict[str, Any]] = []
    if roll_value is not None:
        if state.phase != "roll":
            raise CliError(f"{roll_field} needs a position waiting for a roll; this one is in "
                           f"the {state.phase} phase")
        # the rule set checks the value: a number, or a face name such as Royal's "crown"
        try:
            roll = rules.parse_action({"type": "roll", "value": roll_value}, roll_field)
        except NotationError as exc:  # the caller's field is the value itself: no ".value"
            raise NotationError(roll_field, exc.problem) from None
        state, events = rules.apply(state, roll)
    shown: dict[str, Any] = {
        "command": "legal",
        "turn": state.turn,
        "phase": state.phase,
        "die": getattr(state, "die", None),
    }
    if hasattr(state, "unplayed"):  # Gilgiti: no one die, but the turn's values still to play
        shown["rolled"], shown["to_play"] = list(state.rolled), list(state.unplayed)
    if roll_value is not None:  # the answer is about the position after the roll: show it
        shown["position"] = position_to_json(state)
    return {
        **shown,
        "events": events,
        **choosing(rules, state),
        "next": rules.next_player(state),
        **outcome(rules, state),
    }


def outcome(rules: Any, state: Any) -> dict[str, Any]:
    """Whether the game is over and who won, in the same two fields for every rule set: a
    program need not know that a Courtyard position names one `winner` and a Gilgiti one its
    `winners` (both partners of a team), nor that a match left by a player has none."""
    return {"over": state.phase == "over", "winners": list(rules.winners(state))}


def choosing(rules: Any, state: Any) -> dict[str, list[dict[str, Any]]]:
    """A position's `legal` actions and its `distinct` ones, what a player chooses among: the
    distinct moves, or in the roll phase the roll itself (distinct_moves lists moves only), so
    that a program can always pick from `distinct`. Every answer that gives a position to play
    on gives both, so a program needs no second request to choose."""
    legal_actions = [a.to_json() for a in rules.legal_actions(state)]
    distinct = [a.to_json() for a in rules.distinct_moves(state)] or legal_actions
    return {"legal": legal_actions, "distinct": distinct}


def legal(path: str, roll_value: int | str | None) -> dict[str, Any]:
    """Legal actions of the position in ``path``, optionally after rolling ``roll_value``."""
    return legal_of(_read_position(path), roll_value)


def new_command(rules_name: str, players: int, seats: tuple[str, ...] | None, seed: int,
                options: dict[str, Any]) -> dict[str, Any]:
    """A new game's first position: the start for a program that plays through the CLI."""
    rules = rules_for(rules_name)
    seats = seats if seats is not None else rules.seating(players)
    state = rules.new_game(seats, seed, options)
    # the game's record so far (no action yet): append each action applied, and `replay`
    # checks the game and gives back the same position
    record = record_to_json(Record(rules_name, tuple(state.seats), seed,
                                   options=tuple(sorted(options.items()))))
    return {"command": "new", "position": position_to_json(state),
            **choosing(rules, state), **outcome(rules, state), "record": record}


def apply_to(state: Any, action_data: Any) -> dict[str, Any]:
    """One action (parsed JSON) applied to a position: the events it caused, the position after
    it and that position's legal actions. A roll draws its value from the position's own dice,
    so a game stepped so replays exactly; an illegal action is refused (IllegalAction)."""
    rules = rules_for(state)
    after, events = rules.apply(state, rules.parse_action(action_data, "action"))
    return {"command": "apply", "events": events, "position": position_to_json(after),
            **choosing(rules, after), **outcome(rules, after)}


def apply_command(path: str, action_text: str) -> dict[str, Any]:
    # the action is untrusted JSON like any file: size, depth and duplicate keys checked
    return apply_to(_read_position(path), load_json(action_text, "action"))


def bot_for(state: Any, level: str, seed: int = 0) -> dict[str, Any]:
    """The action a built-in computer player (easy, medium, hard) chooses in a position, for a
    program that plays against them; the same position, level and seed give the same action."""
    from .bots import choose_action

    if state.phase == "over":
        raise CliError("the game is over: there is nothing to choose")
    return {"command": "bot", "level": level, "action": choose_action(state, level, seed).to_json()}


def bot_command(path: str, level: str, seed: int) -> dict[str, Any]:
    return bot_for(_read_position(path), level, seed)


LEVELS = ("easy", "medium", "hard")


def _one_line(exc: Exception) -> str:
    """An error's message on one line, whatever the input held, and at most 300 characters."""
    message = " ".join(str(exc).split())
    return message if len(message) <= 300 else message[:299] + "…"


def _seed_in_range(value: int) -> int:
    if not 0 <= value <= MAX_SEED:
        raise CliError(f"seed: a seed is 0 to {MAX_SEED}")
    return value


# what a field's type means where JSON's words say less (errors.json_kinds says the rest)
_KINDS: dict[type | tuple[type, ...], str] = {(int, str): "a die value"}


def _field(request: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any) -> Any:
    """A request's field, of the type it takes (true and false are not numbers), or its
    default when absent. null is refused like any other wrong type ("seats": null was taken
    as absent while "options": null was refused)."""
    if name not in request:
        return default
    value = request[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise CliError(f"{name}: expected {_KINDS.get(kind) or json_kinds(kind)}, not "
                       f"{quote(value)}")
    return value


REQUEST_FIELDS = {
    "new": ("rules", "players", "seats", "seed", "options"),
    "apply": ("position", "action"),
    "legal": ("position", "roll"),
    "bot": ("position", "level", "seed"),
}
"""Each stdio command's fields besides ``command`` and ``id``."""
REQUIRED_FIELDS = {"new": (), "apply": ("position", "action"), "legal": ("position",),
                   "bot": ("position",)}
"""The fields a stdio command cannot do without (the others have defaults)."""


def _no_unknown_fields(request: dict[str, Any], command: str) -> None:
    """Refuse a field the command does not read, as the notation refuses one: ignored, a typo
    (``"seeds"``) or a command line flag written as a field (``"teams": true``, which belongs
    in ``options``) would quietly give another game than the one asked for."""
    for name in request:
        if name not in REQUEST_FIELDS[command] and name not in ("command", "id"):
            hint = (f'; a rule set\'s option goes in "options": {{{quote(name)}: true}}'
                    if command == "new" and any(name == o.name for o in _all_options()) else "")
            article = "an" if command == "apply" else "a"
            raise CliError(f"request: unknown field {quote(name)} ({article} {command} request "
                           f"takes {', '.join(REQUEST_FIELDS[command])} and id){hint}")


def answer(request: Any) -> dict[str, Any]:
    """One request of ``stdio`` (a JSON object with a ``command``: new, apply, legal or bot,
    and that command's arguments as fields) answered as the command line would."""
    if not isinstance(request, dict):
        raise CliError('request: is not a JSON object; a request is a JSON object with a '
                       '"command": new, apply, legal or bot')
    if "command" not in request:
        raise CliError("command: is missing (a request needs one: new, apply, legal or bot)")
    command = request["command"]
    if not isinstance(command, str):
        raise CliError(f"command: {quote(command)} is not new, apply, legal or bot")
    if command in REQUEST_FIELDS:
        _no_unknown_fields(request, command)
    if command == "new":
        rules_name = _field(request, "rules", str, "courtyard")
        if rules_name not in RULESETS:
            raise CliError(f"rules: {quote(rules_name)} is not one of {', '.join(RULESETS)}")
        players = _field(request, "players", int, 4)
        if players not in (2, 3, 4):
            raise CliError("players: 2, 3 or 4")
        seats = _field(request, "seats", list, None)
        if seats is not None and "players" in request:
            raise CliError('give "players" or "seats", not both')
        seed = _seed_in_range(_field(request, "seed", int, 1))
        options = _field(request, "options", dict, {})
        return new_command(rules_name, players, None if seats is None else tuple(seats), seed,
                           options)
    if command not in ("apply", "legal", "bot"):
        raise CliError(f"command: {quote(command)} is not new, apply, legal or bot")
    needed = REQUIRED_FIELDS[command]
    for name in needed:
        if name not in request:  # said as missing, not as a wrong value ("must be an object")
            article = "an" if command[0] in "aeiou" else "a"
            raise CliError(f"{name}: is missing ({article} {command} request needs "
                           f"{' and '.join(needed)})")
    given = request["position"]
    try:
        state = _position_of(given)
    except CliError as exc:  # a wrapped answer refused: say which field of the request
        raise CliError(f"position: {exc}") from None
    except NotationError as exc:
        # the position's own field names ("turn") as paths in the request ("position.turn",
        # or "position.position.turn" inside a previous answer given whole)
        raise NotationError(_in_request(exc.field, _is_answer(given)), exc.problem) from None
    if command == "apply":
        return apply_to(state, request.get("action"))
    if command == "legal":
        roll = _field(request, "roll", (int, str), None)
        return legal_of(state, roll, "roll")
    level = _field(request, "level", str, "medium")
    if level not in LEVELS:
        raise CliError(f"level: {quote(level)} is not easy, medium or hard")
    return bot_for(state, level, _seed_in_range(_field(request, "seed", int, 0)))


def _utf8_line(line: bytes | str) -> str:
    """A request line as text: UTF-8, as the files the other commands read, and refused as
    they are when it is not (decoding it with replacement characters would answer another
    request than the one sent, and give back another ``id``)."""
    if isinstance(line, str):  # a text stream (tests, embedding): already decoded
        return line.removeprefix("\ufeff")
    try:
        return line.decode("utf-8").removeprefix("\ufeff")  # a byte order mark is allowed
    except UnicodeDecodeError as exc:
        raise CliError(f"request: is not UTF-8 text (byte {exc.start + 1} is not valid "
                       "UTF-8)") from None


class _BinarySink:
    """A binary stream (a caller's io.BytesIO, a pipe's buffer) written as text: the answers,
    JSON in ASCII, as UTF-8 bytes."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> None:
        self.stream.write(text.encode("utf-8"))

    def flush(self) -> None:
        self.stream.flush()


def stdio(source: Any = None, sink: Any = None) -> int:
    """Answer requests, one JSON object a line, one JSON line each, until the input ends: a
    whole game in one process (a process per action costs about 0.15 s of start-up). A bad
    request gets ``{"error": "..."}`` and the next one is read; a request's ``id``, if given,
    comes back with its answer. ``source`` and ``sink`` (standard input and output when None)
    may each be a binary or a text stream."""
    if source is None:
        if sys.stdin is None:  # started with standard input closed (`<&-`)
            raise CliError("cannot read standard input: it is closed")
        source = sys.stdin.buffer
    sink = sink if sink is not None else sys.stdout
    if sink is None:
        raise OutputError("cannot write the answers: standard output is closed")
    if isinstance(sink, io.RawIOBase | io.BufferedIOBase):
        sink = _BinarySink(sink)  # a caller's bytes stream: writing text to it raised TypeError

    def read_line() -> Any:
        try:
            # room for the longest line allowed, its line end ("\r\n") and one more: a
            # line read whole is then told from one cut short
            return source.readline(MAX_JSON_BYTES + 3)
        except OSError as exc:
            raise CliError(f"cannot read standard input: {exc.strerror or exc}") from None
        except ValueError:  # reading a closed stream
            raise CliError("cannot read standard input: it is closed") from None

    too_long = {"error": f"request: is too long: a request line is at most "
                         f"{MAX_JSON_BYTES:,} bytes, its line end not counted"}
    while True:
        line = read_line()
        if not line:
            return 0
        # bytes from standard input, text from a text stream (tests, embedding)
        newline = b"\n" if isinstance(line, bytes) else "\n"
        request_text = _without_line_end(line)
        if len(line) > MAX_JSON_BYTES + 2 and not line.endswith(newline):
            # answered at once, then the rest of the line skipped: answered after the skip, a
            # line without end (/dev/zero, a program that never writes its "\n") was never
            # answered, and a long one only once all of it had been read
            try:
                _write_line(sink, json.dumps(too_long, separators=(",", ":")))
            except BrokenPipeError:
                return 0
            while line and not line.endswith(newline):
                line = read_line()
            continue
        reply: dict[str, Any]
        if _utf8_size(request_text) > MAX_JSON_BYTES:  # its size in bytes, however handed over
            reply = too_long
        elif not request_text.strip():
            # answered like any other bad line: one answer a line, so that a program that
            # waits for the answer to each line it wrote never waits for ever
            reply = {"error": 'request: is a blank line; a request is a JSON object with a '
                              '"command": new, apply, legal or bot'}
        else:
            request: Any = None
            try:
                request = load_json(_utf8_line(request_text), "request")
                reply = answer(request)
            except (CliError, LudoError) as exc:
                reply = {"error": _one_line(exc)}
            if isinstance(request, dict) and "id" in request:
                reply = {"id": request["id"], **reply}
        try:
            _write_line(sink, json.dumps(reply, separators=(",", ":")))
        except BrokenPipeError:  # the reader went away: nothing more to say
            return 0


def _read_record(path: str) -> Any:
    """A record's JSON for replay and verify, refused in plain words when it is a position or
    a previous answer (verify said only "format: is missing" of new's whole line)."""
    data = load_json(_read_document(path, "record"), "record")
    if isinstance(data, dict) and data.get("format") == POSITION_FORMAT:
        raise CliError("this is a position, not a game record: new prints a game's record, "
                       "and each action applied is appended to its \"actions\"")
    if isinstance(data, dict) and "command" in data and "format" not in data:
        raise CliError(f"this is the output of {quote(data['command'])}, not a game record"
                       + (": replay its \"record\" member, with each action applied appended "
                          "to its \"actions\"" if "record" in data else ""))
    return data


def replay_command(path: str) -> dict[str, Any]:
    """Check a record by replaying it; return its final position."""
    record = record_from_json(_read_record(path))
    final = final_position(record)
    won = rules_for(final).winners(final)
    return {"command": "replay", "actions": len(record.actions),
            "over": final.phase == "over", "winner": won[0] if won else None,
            "winners": list(won), "position": position_to_json(final)}


def verify_command(path: str) -> dict[str, Any]:
    """Check an online match's record (version 3): every die, every action.

    The dice are checked by py/net (pure standard library, like the engine), imported only
    here: the engine itself never needs it, and is installed without it (then this says so).
    """
    try:
        from net.dice import DiceError
        from net.record import summary, verify_record_json
    except ImportError:  # the engine installed alone (pip installs py/ludo only)
        raise CliError("verify needs the online package (py/net), which is not installed with "
                       "this engine; replay checks a record's actions without it") from None
    try:
        return summary(verify_record_json(_read_record(path)))
    except DiceError as exc:
        raise CliError(f"the record does not verify: {exc}") from None


FACE_NAMES = ("feather", "crown")
"""Die faces that are names, not numbers (Royal's); the rule set decides which it has."""


def _die(text: str) -> int | str:
    if text in FACE_NAMES:
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a die value is 1..6 (Royal's die also has the faces "
                                         f"feather and crown), not {quote(text)}") from None
    if not 1 <= value <= 6:
        raise argparse.ArgumentTypeError(f"a die value is 1..6, not {value}")
    return value


def _too_long_a_number(text: str) -> bool:
    """Whether ``text`` is a whole number too long for int() (Python's digit limit): out of
    range, not "not a whole number"."""
    digits = text.strip().removeprefix("-").removeprefix("+")
    return digits.isascii() and digits.isdigit()


def _positive(text: str, most: int = 1_000_000) -> int:
    try:
        value = int(text)
    except ValueError:
        if _too_long_a_number(text):
            raise argparse.ArgumentTypeError(f"must be 1 to {most:,}, not a number that "
                                             "long") from None
        raise argparse.ArgumentTypeError(f"expected a whole number, not {quote(text)}") from None
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"must be 1 to {most:,}, not {value}")
    return value


def _jobs(text: str) -> int:
    return _positive(text, 64)


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        if _too_long_a_number(text):
            raise argparse.ArgumentTypeError(f"a seed is 0 to {MAX_SEED}") from None
        raise argparse.ArgumentTypeError(f"a seed is a whole number, not {quote(text)}") from None
    try:
        return _seed_in_range(value)
    except CliError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("seed: ")) from None


def _bots(text: str) -> tuple[str, ...]:
    from .bots import LEVEL_NAMES

    levels = tuple(part.strip() for part in text.split(","))
    for level in levels:
        if level not in LEVEL_NAMES:
            raise argparse.ArgumentTypeError(
                f"unknown bot level {quote(level)}; use {', '.join(LEVEL_NAMES)}")
    if not 2 <= len(levels) <= 4:
        raise argparse.ArgumentTypeError(
            f"one bot per seat, 2 to 4 of them, not {len(levels)}")
    return levels


def _seats(text: str) -> tuple[str, ...]:
    # which colours, in which order, the rule set's new_game checks (and says why not)
    return tuple(part.strip() for part in text.split(","))


def _all_options() -> list[Any]:
    """Every rule set's options, once each by name (they become simulate's flags)."""
    seen: dict[str, Any] = {}
    for rules in RULESETS.values():
        for option in rules.options:
            seen.setdefault(option.name, option)
    return list(seen.values())


POSITION_FILE_HELP = ("a position (JSON), or the whole line new, apply or legal --roll printed; "
                      "- for standard input (the default)")
STDIO_HELP = """\
One JSON object a line on standard input, one JSON line on standard output for each line, in
order, until standard input ends (docs/notation.md, "Playing from another program"):

  {"command": "new", "rules": "gilgiti", "players": 4, "seed": 7, "options": {"teams": true}}
  {"command": "apply", "position": P, "action": {"type": "roll"}}
  {"command": "legal", "position": P, "roll": 6}
  {"command": "bot", "position": P, "level": "hard", "seed": 0}

P is a position, or a whole previous answer. A field left out takes the command's default
(apply needs both position and action, legal and bot a position); "seats": ["red", "blue"]
may replace "players". Any "id" comes back with the answer. A bad line gets {"error": "..."}
and the next is read."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        raise CliError(message)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and --help)."""
    parser = _Parser(prog="python -m ludo", description="Courtyard Ludo rules engine")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sim = sub.add_parser("simulate", help="random legal play with invariant checks")
    sim.add_argument("--rules", choices=list(RULESETS), default="courtyard")
    sim.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    sim.add_argument("--games", type=_positive, default=100)
    sim.add_argument("--seed", type=_seed, default=1)
    sim.add_argument("--no-check", action="store_true",
                     help="skip invariant checks (measures raw engine speed)")
    for option in _all_options():
        sim.add_argument(f"--{option.name}", action="store_true",
                         help=f"{option.label} (rule sets that offer it)")
    leg = sub.add_parser("legal", help="legal actions of a position (JSON file or - for stdin)")
    leg.add_argument("--roll", type=_die, default=None, metavar="V",
                     help="roll V first (a die value 1-6; Royal's faces are 1, 2, 3, 4, feather "
                          "and crown) and answer for the position after it, which is printed too")
    leg.add_argument("file", nargs="?", default="-", help=POSITION_FILE_HELP)
    new_ = sub.add_parser("new", help="a new game's first position and its legal actions")
    new_.add_argument("--rules", choices=list(RULESETS), default="courtyard",
                      help="default courtyard")
    new_.add_argument("--players", type=int, choices=(2, 3, 4), default=None,
                      help="seated as the rule set seats them (default 4)")
    new_.add_argument("--seats", type=_seats, default=None, metavar="COLOURS",
                      help="comma-separated colours, e.g. red,yellow (instead of --players)")
    new_.add_argument("--seed", type=_seed, default=1,
                      help="the game's dice and first player (default 1)")
    for option in _all_options():
        new_.add_argument(f"--{option.name}", action="store_true",
                          help=f"{option.label} (rule sets that offer it)")
    app = sub.add_parser("apply", help="apply one action (JSON) to a position (JSON file or - "
                         "for stdin): its events, the next position and its legal actions")
    app.add_argument("file", help=POSITION_FILE_HELP.removesuffix(" (the default)"))
    app.add_argument("action", help='e.g. \'{"type": "roll"}\' or \'{"type": "move", "token": 0}\'')
    bot = sub.add_parser("bot", help="the action a computer player chooses in a position")
    bot.add_argument("--level", choices=LEVELS, default="medium", help="default medium")
    bot.add_argument("--seed", type=_seed, default=0, help="its tie-breaks (default 0)")
    bot.add_argument("file", nargs="?", default="-", help=POSITION_FILE_HELP)
    sub.add_parser("stdio", help="answer JSON requests (new, apply, legal, bot), one a line on "
                   "stdin, one JSON line each on stdout, until stdin ends",
                   description=STDIO_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    rep = sub.add_parser("replay", help="check a game record and print its final position")
    rep.add_argument("file", help="a game record (JSON), or - for standard input")
    ver = sub.add_parser("verify", help="check an online match's record: every die and action")
    ver.add_argument("file", help="an online match's record (JSON, version 3), or - for "
                     "standard input")
    tour = sub.add_parser("tournament", help="bots against each other, seats rotated, "
                          "duplicate dice (docs/bots.md)")
    tour.add_argument("--rules", choices=list(RULESETS), default="courtyard")
    tour.add_argument("--bots", type=_bots, default=("hard", "medium", "medium", "medium"),
                      help="2 to 4 comma-separated levels, one per seat: easy, medium, hard")
    tour.add_argument("--games", type=_positive, default=100,
                      help="games in all; game seed k is played under every seat rotation")
    tour.add_argument("--seed", type=_seed, default=1)
    tour.add_argument("--jobs", type=_jobs, default=1, help="worker processes (1 to 64)")
    for option in _all_options():
        tour.add_argument(f"--{option.name}", action="store_true",
                          help=f"{option.label} (rule sets that offer it)")
    return parser


def _chosen_options(args: argparse.Namespace) -> dict[str, Any]:
    """The rule-set option flags given, checked against what ``--rules`` offers."""
    offered = {o.name for o in rules_for(args.rules).options}
    chosen = {o.name: True for o in _all_options() if getattr(args, o.name, False)}
    for name in chosen.keys() - offered:
        raise CliError(f"--{name} is not an option of {args.rules}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        if args.command == "simulate":
            chosen = _chosen_options(args)
            result = simulate(args.rules, args.players, args.games, args.seed,
                              check=not args.no_check, options=chosen)
        elif args.command == "legal":
            result = legal(args.file, args.roll)
        elif args.command == "new":
            if args.players is not None and args.seats is not None:
                raise CliError("give --players or --seats, not both")
            result = new_command(args.rules, args.players or 4, args.seats, args.seed,
                                 _chosen_options(args))
        elif args.command == "apply":
            result = apply_command(args.file, args.action)
        elif args.command == "bot":
            result = bot_command(args.file, args.level, args.seed)
        elif args.command == "stdio":
            return stdio()
        elif args.command == "tournament":
            from .bots.tournament import tournament

            result = tournament(args.rules, args.bots, args.games, args.seed, args.jobs,
                                _chosen_options(args))
        elif args.command == "verify":
            result = verify_command(args.file)
        else:
            result = replay_command(args.file)
        _write_line(sys.stdout, json.dumps(result, separators=(",", ":")))
    except BrokenPipeError:  # the reader went away (`... | head`): nothing more to say
        _drop_output()
        return 0
    except (CliError, LudoError) as exc:
        _say(_one_line(exc))
        if isinstance(exc, OutputError):
            _drop_output()
        return 2
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    return 0


__all__ = ["main", "simulate", "new_command", "legal", "legal_of", "apply_command", "apply_to",
           "bot_command", "bot_for", "answer", "stdio", "replay_command", "verify_command",
           "format_position"]
