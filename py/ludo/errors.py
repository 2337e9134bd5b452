"""Errors the engine raises for bad input."""

from __future__ import annotations


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
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
