"""A Gilgiti tournament with Hard's leaf evaluation chosen (a tuning tool).

    PYTHONPATH=py python tools/gilgiti_tournament.py --eval hand \
        --bots hard,medium,medium,medium --games 800 --seed 200

``--eval fitted`` plays Hard with the fitted evaluation (``GilgitiBot.fitted = FITTED``, which
the game does not use); ``--eval hand`` with the hand-set evaluation of ``HARD`` (the game's),
or of other weights given as ``--hard '{"later": 1.0}'``, so variants can be compared on the
same dice. Runs in this process (one core) and prints the
tournament's summary as ``python -m ludo tournament`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from ludo.bots import players  # noqa: E402
from ludo.bots.tournament import tournament  # noqa: E402
from ludo.rules.gilgiti import GILGITI  # noqa: E402
from ludo.rules.gilgiti_bot import FEATURES, FITTED, HARD, MOVE_WEIGHTS  # noqa: E402


def blended_hard(weight: float) -> Callable[[Any, int], players.Thinking]:
    """Hard, each candidate's searched value plus ``weight`` x Medium's move_score of it: does
    Medium's per-move knowledge (escaping, entering, safe squares) add to the search?"""

    def think(state: Any, seed: int) -> players.Thinking:
        bot = players._features(state)
        moves = players._candidates(bot, state)
        if len(moves) == 1:
            return moves[0]
        clock, context, scored = players._Clock(), bot.move_context(state), []
        for m in moves:
            after, events = players.apply(state, m)
            v = yield from players._after_move(after, state.turn, bot, 0, players.HARD_REPLY,
                                               clock)
            if abs(v) < players.WIN / 2:  # a won or lost game stays what it is
                v += weight * bot.move_score(state, m, after, events, context)
            scored.append((v, m))
        top = max(v for v, _ in scored)
        return players._pick([m for v, m in scored if v >= top - 1e-9], state, seed)

    return think


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval", choices=("fitted", "hand"), default="fitted")
    parser.add_argument("--bots", default="hard,medium,medium,medium")
    parser.add_argument("--games", type=int, default=800)
    parser.add_argument("--seed", type=int, default=200)
    parser.add_argument("--teams", action="store_true")
    parser.add_argument("--hard", default="", help='with --eval hand, Hard weights other than '
                        'HARD\'s: JSON {"later": 1.0, ...} (the Weights fields given)')
    parser.add_argument("--weights", default="", help='with --eval fitted, other weights: JSON '
                        '{"teams": {"out": 0.3, ...}} (features left out weigh 0)')
    parser.add_argument("--medium", default="", help='Medium\'s move weights other than '
                        'MOVE_WEIGHTS\': JSON {"escape": 2.0, ...}')
    parser.add_argument("--bot", default="", help='GilgitiBot search settings: JSON '
                        '{"reply_seats": 2, ...}')
    parser.add_argument("--blend", type=float, default=0.0, help="Hard's value of each "
                        "candidate plus this times Medium's move_score of it (a screen; 0: "
                        "Hard as it is)")
    args = parser.parse_args()
    bot = GILGITI.bot
    fitted = FITTED
    if args.weights:
        given = json.loads(args.weights)
        fitted = FITTED._replace(**{mode: tuple(float(given[mode].get(f, 0.0)) for f in FEATURES)
                                    for mode in given})
    bot.fitted = fitted if args.eval == "fitted" else None  # type: ignore[attr-defined]
    given_hard = json.loads(args.hard) if args.hard else {}
    bot.weights = HARD._replace(**{k: float(v) for k, v in given_hard.items()})
    bot.extra_roll = 0.0 if args.eval == "fitted" else bot.weights.extra_roll
    given_medium = json.loads(args.medium) if args.medium else {}
    bot.move_weights = MOVE_WEIGHTS._replace(  # type: ignore[attr-defined]
        **{k: float(v) for k, v in given_medium.items()})
    for key, value in (json.loads(args.bot) if args.bot else {}).items():
        if not hasattr(bot, key):
            parser.error(f"GilgitiBot has no setting {key!r}")
        setattr(bot, key, value)
    if args.blend:
        players.LEVELS["hard"] = blended_hard(args.blend)
    result = tournament("gilgiti", tuple(args.bots.split(",")), args.games, args.seed, 1,
                        {"teams": True} if args.teams else None)
    print(json.dumps({"eval": args.eval, "hard": bot.weights._asdict(),
                      "medium": given_medium, "bot": args.bot, **result}))


if __name__ == "__main__":
    main()
