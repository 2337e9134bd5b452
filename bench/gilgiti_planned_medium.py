"""Screen (not the game's player): Gilgiti's Medium planning the order of the turn's values.

    PYTHONPATH=py .venv/bin/python bench/gilgiti_planned_medium.py \
        --bots medium,expert,expert,expert --games 2000 --seed 1

Today's Medium is greedy per value: it plays the value-and-token with the best ``move_score``
among the plays that keep the turn completable, one value at a time. This variant scores each
play as its ``move_score`` plus the best sum of ``move_score`` over the rest of the turn (every
order of the values left, the same candidates), and plays the first play of the best order. It
replaces ``medium`` in the line-up for this run only (``ludo.bots.players.LEVELS``); Hard's
reply model (Medium's greedy policy) is not changed. Games and output as bench/outside.py
(``--rules gilgiti``). Findings: docs/bots.md, "Gilgiti and Royal".
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import outside  # noqa: E402

from ludo import apply  # noqa: E402
from ludo.actions import Action  # noqa: E402
from ludo.bots import players  # noqa: E402

WON = 5000.0  # move_score gives +-WIN (10,000) for a play that ends the game


def _best_rest(state: Any, me: str, bot: Any, depth: int) -> float:
    """The best sum of move_score over the rest of ``me``'s turn."""
    if depth <= 0 or state.phase != "move" or state.turn != me:
        return 0.0
    context = bot.move_context(state)
    best = None
    for m in players._candidates(bot, state):
        after, events = apply(state, m)
        v = bot.move_score(state, m, after, events, context)
        if abs(v) < WON:
            v += _best_rest(after, me, bot, depth - 1)
        if best is None or v > best:
            best = v
    return best or 0.0


def think_planned_medium(state: Any, seed: int) -> Any:
    bot = players._features(state)
    context = bot.move_context(state)
    scored: list[tuple[float, Action]] = []
    for m in players._candidates(bot, state):
        after, events = apply(state, m)
        v = bot.move_score(state, m, after, events, context)
        if abs(v) < WON and after.phase == "move" and after.turn == state.turn:
            v += _best_rest(after, state.turn, bot, len(after.unplayed))
        scored.append((v, m))
    top = max(v for v, _ in scored)
    return players._pick([m for v, m in scored if v >= top - 1e-9], state, seed)
    yield  # pragma: no cover - a generator, as the players are


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", default="medium,expert,expert,expert")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--teams", action="store_true")
    args = parser.parse_args(argv)
    players.LEVELS["medium"] = think_planned_medium
    lineup = tuple(args.bots.split(","))
    print(json.dumps(outside.tournament("gilgiti", lineup, args.games, args.seed, args.teams)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
