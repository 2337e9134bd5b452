"""JSON notation for positions and game records (docs/notation.md).

``parse_position(format_position(s)) == s`` and
``parse_record(format_record(r)) == r`` hold for every position and record.
Any malformed or inconsistent input raises :class:`NotationError` naming the
field; nothing half-built is ever returned.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from collections.abc import Iterator
from typing import Any, NamedTuple

from .actions import Action
from .engine import apply, new_game, resolve, rules_for
from .errors import IllegalAction, LudoError, NotationError, quote
from .rules.base import POSITION_FORMAT, Event

RECORD_FORMAT = "courtyard-ludo/record"
RECORD_VERSION = 2
ONLINE_RECORD_VERSION = 3
"""A record of an online match: version 2's fields plus ``dice``, the verifiable dice's record
(commitments and every roll's reveals, docs/online.md). The engine keeps that part as it is; a
reader that checks it is ``python -m ludo verify``."""
MAX_SEED = (1 << 64) - 1


def position_to_json(state: Any) -> dict[str, Any]:
    """The JSON object for a position."""
    return rules_for(state).to_json(state)


def position_from_json(data: Any) -> Any:
    """Parse a position from its JSON object.

    The envelope is read here: the format first, then ``rules``, whose rule set
    reads its own version and everything else.
    """
    if not isinstance(data, dict):
        raise NotationError("position", "must be a JSON object")
    _present(data, "format", f"(a position's is {quote(POSITION_FORMAT)})")
    if data.get("format") != POSITION_FORMAT:
        raise NotationError("format", f"must be {quote(POSITION_FORMAT)}")
    _present(data, "version")
    _present(data, "rules")
    return rules_for(data.get("rules")).from_json(data)


def _present(data: dict[str, Any], name: str, hint: str = "") -> None:
    """A field that is left out is said to be missing: read as null it was "version null is
    not supported" or "unknown rule set null", quoting a null the input never had."""
    if name not in data:
        raise NotationError(name, f"is missing {hint}".rstrip())


def format_position(state: Any) -> str:
    """A position as JSON text."""
    return json.dumps(position_to_json(state), separators=(",", ":"))


def parse_position(text: str) -> Any:
    """A position from JSON text."""
    return position_from_json(_load(text, "position"))


class Record(NamedTuple):
    """A whole game: enough to replay every position exactly.

    ``options`` are the rule set's options the game was set up with, as
    sorted ``(name, value)`` pairs (empty for rule sets without options).
    ``dice`` is an online match's dice record (a JSON object, kept as read:
    version 3), or None for a game whose dice came from its seed (version 2).
    """

    rules: str
    seats: tuple[str, ...]
    seed: int
    actions: tuple[Action, ...] = ()
    options: tuple[tuple[str, Any], ...] = ()
    dice: dict[str, Any] | None = None

    def start(self) -> Any:
        """The starting position."""
        return new_game(self.rules, self.seats, self.seed, dict(self.options))

    def then(self, action: Action) -> Record:
        """This record with one more (resolved) action."""
        return self._replace(actions=self.actions + (action,))


def record_to_json(record: Record) -> dict[str, Any]:
    """The JSON object for a record (``options`` only when the game has any; ``dice``, and
    version 3, only for an online match)."""
    data: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION if record.dice is None else ONLINE_RECORD_VERSION,
        "rules": record.rules,
        "seats": list(record.seats),
        "seed": record.seed,
    }
    if record.options:
        data["options"] = dict(record.options)
    data["actions"] = [a.to_json() for a in record.actions]
    if record.dice is not None:
        data["dice"] = record.dice
    return data


def record_from_json(data: Any) -> Record:
    """Parse a record (without replaying it; see :func:`replay`)."""
    if not isinstance(data, dict):
        raise NotationError("record", "must be a JSON object")
    _present(data, "format", f"(a record's is {quote(RECORD_FORMAT)})")
    if data.get("format") != RECORD_FORMAT:
        raise NotationError("format", f"must be {quote(RECORD_FORMAT)}")
    _present(data, "version")
    online = _is_version(data.get("version"), ONLINE_RECORD_VERSION)
    if not online and not _is_version(data.get("version"), RECORD_VERSION):
        raise NotationError("version", f"version {quote(data.get('version'))} is not supported "
                            f"(this app reads versions {RECORD_VERSION} and "
                            f"{ONLINE_RECORD_VERSION})")
    fields = {"format", "version", "rules", "seats", "seed", "options", "actions"}
    extra = set(data) - fields - ({"dice"} if online else set())
    if extra:
        raise NotationError(sorted(map(str, extra))[0], "is not a field of a record"
                            + (" (only version 3 has dice)" if "dice" in extra else ""))
    if online:
        _present(data, "dice", "(a version 3 record holds its dice)")
    dice = data.get("dice")
    if online and not isinstance(dice, dict):
        raise NotationError("dice", "must be a JSON object (a version 3 record's dice)")
    for name in ("rules", "seats", "seed", "actions"):
        _present(data, name)
    rules = rules_for(data.get("rules"))
    seed = data.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
        raise NotationError("seed", f"must be a whole number 0..{MAX_SEED}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise NotationError("options", "must be an object of the rule set's options")
    if "options" in data and not options:
        raise NotationError("options", "is empty: a record without options leaves the field out")
    # the starting position checks the seats and options, and puts the seats in order
    seats = rules.new_game(data["seats"], seed, options).seats
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise NotationError("actions", "must be a list")
    parsed = tuple(rules.parse_action(a, f"actions[{i}]") for i, a in enumerate(actions))
    return Record(rules.name, seats, seed, parsed, tuple(sorted(options.items())), dice)


def format_record(record: Record) -> str:
    """A record as JSON text."""
    return json.dumps(record_to_json(record), separators=(",", ":"))


def parse_record(text: str) -> Record:
    """A record from JSON text (not yet replayed)."""
    return record_from_json(_load(text, "record"))


def play(record: Record, state: Any, action: Action) -> tuple[Record, Any, list[Event]]:
    """Apply ``action`` and append its resolved form to ``record``.

    Rolls are stored with their values so a record reads on its own and can
    be replayed without trusting anyone's RNG.
    """
    action = resolve(state, action)
    state, events = apply(state, action)
    return record.then(action), state, events


def replay(record: Record) -> list[Any]:
    """Every position of the game, starting position first.

    Raises NotationError naming the first action that is not legal.
    """
    return replay_with_events(record)[0]


def _steps(record: Record, state: Any) -> Iterator[tuple[Any, list[Event]]]:
    """Each position after ``state`` (the record's start), with the events of the action
    that made it. Raises NotationError naming the first action that is not legal."""
    for i, action in enumerate(record.actions):
        try:
            state, caused = apply(state, action)
        except IllegalAction as exc:
            raise NotationError(f"actions[{i}]", str(exc)) from None
        yield state, caused


def final_position(record: Record) -> Any:
    """The position a record ends in, checked as ``replay`` checks it, keeping only the
    position reached so far (a record of 100,000 actions would hold as many positions)."""
    start = record.start()
    last = deque(_steps(record, start), maxlen=1)
    return last[0][0] if last else start


def replay_with_events(record: Record) -> tuple[list[Any], list[list[Event]]]:
    """Every position, and the events of each action (``events[i]`` for ``actions[i]``)."""
    start = record.start()
    states, events = [start], []
    for state, caused in _steps(record, start):
        states.append(state)
        events.append(caused)
    return states, events


def _is_version(value: Any, version: int) -> bool:
    """True only for the integer ``version`` itself (not true, not 1.0)."""
    return type(value) is int and value == version


MAX_JSON_DEPTH = 64  # positions and records nest 3 deep; saves 4
MAX_JSON_BYTES = 4_000_000
"""The longest JSON text read (a record of a very long game is well under 200 KB)."""
_ESCAPE = re.compile(r"\\.", re.S)
_STRING = re.compile(r'"[^"]*"')
_BRACKET = re.compile(r"[\[\]{}]")


def json_depth(text: str, limit: int | None = None) -> int:
    """How deeply the arrays and objects in JSON ``text`` nest (strings ignored).

    Linear in the length of ``text`` whatever it holds: escapes are removed
    first (each ``\\x`` pair once), so that every string is then a plain
    ``"..."`` run without backslashes. With ``limit`` the scan stops as soon as
    the depth passes it.
    """
    depth = deepest = 0
    for bracket in _BRACKET.findall(_STRING.sub("", _ESCAPE.sub("", text))):
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if limit is not None and deepest > limit:
                    break
        else:
            depth -= 1
    return deepest


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise NotationError(_short(key), "appears twice in one object")
        data[key] = value
    return data


def _short(text: str, limit: int = 40) -> str:
    """Input quoted in a message, cut so that a huge key cannot flood it."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _NotFinite(ValueError):
    """NaN, Infinity or a number too large for a float: Python's json reads them, JSON has none."""


def _refuse_constant(name: str) -> Any:
    raise _NotFinite(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"the number {_short(text, 24)} is too large")
    return value


def load_json(text: Any, what: str, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """Parse untrusted JSON text: size and depth checked first, duplicate keys refused.

    Every problem is a NotationError naming ``what``; nothing else escapes.
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > max_bytes:
            raise NotationError(what, f"is too long (over {max_bytes:,} bytes)")
        text = bytes(text).decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise NotationError(what, "must be JSON text")
    if len(text) > max_bytes:
        raise NotationError(what, f"is too long (over {max_bytes:,} characters)")
    if json_depth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        # refused before parsing: in Pyodide a deep parse overflows the JavaScript
        # stack, which Python cannot catch
        raise NotationError(what, "is nested too deeply")
    try:
        return json.loads(text, object_pairs_hook=_refuse_duplicates,
                          parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        # some messages end in "starting at", which the position completes
        where = f"line {exc.lineno} column {exc.colno}"
        message = exc.msg.removesuffix(" at")
        if message.startswith("Unexpected UTF-8 BOM"):  # not Python's remedy ("utf-8-sig")
            message = "a byte order mark, U+FEFF,"
        raise NotationError(what, f"is not valid JSON ({message} at {where})") from None
    except NotationError:
        raise
    except _NotFinite as exc:
        raise NotationError(what, f"is not valid JSON ({exc})") from None
    except ValueError as exc:  # e.g. an integer longer than Python's digit limit
        problem = "is not valid JSON (a number is too long to read)" if "digits" in str(exc) else \
            f"is not valid JSON ({_short(str(exc), 80)})"
        raise NotationError(what, problem) from None
    except RecursionError:
        raise NotationError(what, "is nested too deeply") from None


_load = load_json


__all__ = [
    "LudoError", "NotationError", "Record", "format_position", "parse_position",
    "format_record", "parse_record", "position_to_json", "position_from_json",
    "record_to_json", "record_from_json", "play", "replay",
]
