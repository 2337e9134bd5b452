"""Errors the engine raises for bad input."""

from __future__ import annotations

import json

MAX_QUOTED = 40  # characters of the input a message quotes at most
MAX_FIELD = 80
MAX_PROBLEM = 300


def quote(value: object, limit: int = MAX_QUOTED) -> str:
    """Input as a message shows it: in JSON's spelling (``true``, ``null``, ``"red"``), cut short.

    Messages quote what the input said, never Python's ``repr`` (``True``, ``None``), and never
    more than ``limit`` characters of it, however long the input is.
    """
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = type(value).__name__
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    # a character that cannot be shown (a control, a byte the locale could not decode) in
    # JSON's escape, the rest as it is: escaping the whole text escaped its quotes too
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


_JSON_KINDS: dict[type, str] = {dict: "an object", list: "a list", str: "text",
                               bool: "true or false", int: "a whole number", float: "a number",
                               type(None): "null"}


def wrong_type(value: object, kinds: type | tuple[type, ...]) -> str:
    """A field's type problem in JSON's words (``has the wrong type: expected an object, not
    null``), never Python's type names (``NoneType``, ``dict``), which mean nothing to a
    program in another language that wrote the JSON."""
    return f"has the wrong type: expected {json_kinds(kinds)}, not {quote(value)}"


def json_kinds(kinds: type | tuple[type, ...]) -> str:
    """Python types as JSON's words: ``(int, str)`` is "a whole number or text"."""
    expected = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join(dict.fromkeys(_JSON_KINDS.get(k, k.__name__) for k in expected))


class LudoError(ValueError):
    """Base class: every engine error is a ``ValueError`` with a clear message."""


class IllegalAction(LudoError):
    """An action that the rules do not allow in the given position."""


class NotationError(LudoError):
    """Malformed or inconsistent notation.

    ``field`` names the offending JSON field (a dotted path such as
    ``tokens.red[2]``) so that the message points at the problem.
    """

    def __init__(self, field: str, problem: str) -> None:
        # Field names can come from the input (an unknown key, a colour used as a
        # key): keep the message on one line and never let the field be blank.
        if not field or not field.isprintable():
            field = json.dumps(field)
        if not problem.isprintable():
            problem = json.dumps(problem)[1:-1]
        if len(field) > MAX_FIELD:
            field = field[:MAX_FIELD - 1] + "…"
        if len(problem) > MAX_PROBLEM:
            problem = problem[:MAX_PROBLEM - 1] + "…"
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
