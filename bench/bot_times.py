"""Decision times of a computer player over whole games (a printout, never an assertion).

    python bench/bot_times.py --rules gilgiti --level hard --games 30 [--teams]

Plays ``--games`` games with every seat at ``--level`` (seeds 500, 501, ...) and times
every move decision twice over: the whole decision as ``choose_action`` makes it, in CPU
time of this thread (``time.thread_time``, so a loaded machine inflates it less than wall
time), and the longest slice of the incremental form (``think`` driven slice by slice),
which is how long the page would be blocked at once. Prints one JSON line with avg, p95,
p99 and max (ms) over all move decisions and over those with a real choice.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from ludo.actions import Action  # noqa: E402
from ludo.bots import choose_action, think  # noqa: E402
from ludo.engine import apply, distinct_moves, rules_for  # noqa: E402

ROLL = Action("roll")


def _summary(ms: list[float]) -> dict[str, float | int | None]:
    if not ms:
        return {"n": 0, "avg_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None}
    s = sorted(ms)

    def q(p: float) -> float:
        return round(s[min(len(s) - 1, max(0, int(p * len(s) + 0.999) - 1))], 3)

    return {"n": len(s), "avg_ms": round(sum(s) / len(s), 3), "p95_ms": q(0.95),
            "p99_ms": q(0.99), "max_ms": round(s[-1], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="gilgiti")
    ap.add_argument("--level", default="hard", choices=["easy", "medium", "hard"])
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--teams", action="store_true")
    args = ap.parse_args()
    rules = rules_for(args.rules)
    options = {"teams": True} if args.teams else None
    clock = time.thread_time
    all_ms: list[float] = []
    choice_ms: list[float] = []
    slices: list[float] = []
    for game in range(args.games):
        seed = 500 + game
        state = rules.new_game(rules.seating(4), seed, options)
        while state.phase != "over":
            if state.phase == "roll":
                state, _ = apply(state, ROLL)
                continue
            choices = len(distinct_moves(state))
            started = clock()
            action = choose_action(state, args.level, seed)
            spent = 1000 * (clock() - started)
            all_ms.append(spent)
            if choices > 1:
                choice_ms.append(spent)
                gen = think(state, args.level, seed)
                while True:
                    started = clock()
                    try:
                        next(gen)
                    except StopIteration as done:
                        slices.append(1000 * (clock() - started))
                        assert done.value == action
                        break
                    slices.append(1000 * (clock() - started))
            state, _ = apply(state, action)
    print(json.dumps({"bench": "bot_times", "rules": args.rules, "teams": args.teams,
                      "level": args.level, "games": args.games, "clock": "thread_time",
                      "decisions": _summary(all_ms), "choices": _summary(choice_ms),
                      "slices": _summary(slices)}))


if __name__ == "__main__":
    main()
