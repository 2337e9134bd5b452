"""Checks that must hold after every action; used by simulation and tests.

Each rule set states its own invariants (``RuleSet.violations``); what every
rule set shares is checked here: the position survives its notation round trip.
"""

from __future__ import annotations

from typing import Any

from .engine import rules_for
from .errors import LudoError
from .rules.base import Event


def violations(before: Any, after: Any, events: list[Event]) -> list[str]:
    """Every broken invariant for one applied action (empty when all is well)."""
    # imported here: notation imports the engine, which is fine, but keeps
    # this module importable from anywhere without cycles
    from .notation import position_from_json, position_to_json

    found = rules_for(after).violations(before, after, events)
    try:
        if position_from_json(position_to_json(after)) != after:
            found.append("the position does not survive its notation round trip")
    except LudoError as exc:
        found.append(f"the position is inconsistent: {exc}")
    return found
