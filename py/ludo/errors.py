"""Errors the engine raises for bad input."""

from __future__ import annotations

import json


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
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
