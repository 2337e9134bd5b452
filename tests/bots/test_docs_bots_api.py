"""docs/bots.md's API says what `choose_action` returns: every kind of action the computer
players choose in each rule set is named there (it named only Courtyard's
`Action("move", token=i)`, while Gilgiti's moves carry a value or force the gate, and Royal's
players also send a rider back, climb on top or stay)."""

from __future__ import annotations

from pathlib import Path

from ludo import apply, is_over, new_game
from ludo.bots import choose_action

API = Path(__file__).resolve().parents[2].joinpath("docs", "bots.md").read_text(encoding="utf-8")
API = " ".join(API.split("## API", 1)[1].split("\n## ", 1)[0].split())


def _kinds(rules: str, games: int) -> set[str]:
    """What the players chose over a few games: `move+value` for a move carrying a value."""
    kinds = set()
    for game in range(games):
        state = new_game(rules, ("red", "green", "yellow", "blue"), game)
        for step in range(3000):
            if is_over(state):
                break
            action = choose_action(state, ("easy", "medium")[step % 2], game)
            kinds.add(action.type + ("+value" if action.type == "move" and action.value else ""))
            state, _ = apply(state, action)
    return kinds


def test_the_api_names_every_kind_of_action_the_players_choose() -> None:
    said = {
        "roll": '`Action("roll")`',
        "move": '`Action("move", token=i)`',
        "move+value": "a move with its `value`",
        "force": "`force`",
        "send_back": "`send_back`",
        "stay": "`stay`",
        "reverse": "`reverse`",
    }
    seen = set()
    for rules in ("courtyard", "classic", "royal", "gilgiti"):
        seen |= _kinds(rules, 4)
    assert {"roll", "move", "move+value", "force", "send_back", "stay"} <= seen
    assert [kind for kind in sorted(seen) if said[kind] not in API] == []
