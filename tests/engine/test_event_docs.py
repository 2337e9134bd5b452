"""docs/notation.md's event tables name every field the engines' events carry: an outside
program reads events by those tables (Gilgiti's `entered` and `moved` carried `pieces` and
`path` that its table did not name)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from ludo import Action, apply, is_over, legal_actions, new_game

NOTATION = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
# said once for the events of every rule set, in the paragraph above Courtyard's table
EVERY_RULE_SET = {"type", "seat", "pieces", "path"}


def _table(start: str, end: str) -> dict[str, set[str]]:
    """The event table between two lines of notation.md: per type, the names its row quotes."""
    text = NOTATION.read_text()
    body = text[text.index(start):]
    body = body[:body.index(end)]
    rows: dict[str, set[str]] = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        names = set(re.findall(r"`([a-z_]+)", cells[1]))
        for kind in re.findall(r"`([a-z_]+)`", cells[0]):
            rows[kind] = names
    return rows


COURTYARD = _table("## Events", "One of each")
TABLES = {
    "courtyard": COURTYARD,
    "classic": COURTYARD,
    "royal": _table("Royal's events", "## Gilgiti positions"),
    "gilgiti": _table("### Gilgiti events", "## Errors"),
}


@pytest.mark.parametrize("rules", list(TABLES))
def test_every_event_field_is_named_in_its_rule_set_s_table(rules: str) -> None:
    table = TABLES[rules]
    chooser = random.Random(11)
    unnamed: dict[str, set[str]] = {}
    seen: set[str] = set()
    for game in range(12):
        seats = ("red", "green", "yellow", "blue")[: 2 + game % 3]
        state = new_game(rules, seats, game)
        for step in range(4000):
            if is_over(state):
                break
            # a timeout now and then (five eliminate), and a seat quitting in some games
            if step % 40 == 39:
                action = Action("timeout")
            elif game % 4 == 3 and step == 300:
                action = Action("quit", seat=seats[-1])
            else:
                action = chooser.choice(legal_actions(state))
            state, events = apply(state, action)
            seen.update(e["type"] for e in events)
            for event in events:
                kind = event["type"]
                assert kind in table, f"{rules}: no row for {kind!r} in docs/notation.md"
                named = table[kind] if table[kind] or rules != "royal" else COURTYARD[kind]
                extra = set(event) - EVERY_RULE_SET - named
                if extra:
                    unnamed.setdefault(kind, set()).update(extra)
    assert unnamed == {}, f"{rules}: fields not named in docs/notation.md: {unnamed}"
    # the games met most kinds of event, so the check is not an empty one
    assert {"rolled", "moved", "captured", "timeout", "quit", "won", "turn"} <= seen, seen
