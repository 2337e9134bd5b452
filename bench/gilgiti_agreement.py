"""How often a variant of Gilgiti's Hard would choose otherwise (a printout, never an assertion).

    python bench/gilgiti_agreement.py --games 6 --against reply_seats
    python bench/gilgiti_agreement.py --games 4 --teams --against reply_seats
    python bench/gilgiti_agreement.py --games 6 --against medium

Plays games of Hard against Medium (alone: one Hard seat, rotating; ``--teams``: a Hard pair
against a Medium pair; game seeds 700, 701, ...) and at every Hard decision with two or more
candidates asks the variant too: ``reply_seats`` is Hard with ``GilgitiBot.reply_seats = 2``
(the seat after the next enemy plays its turn too before the evaluation), ``medium`` is
Medium's choice. The game goes on with Hard's own choice, so both see the same positions.
Prints the decisions, how many the variant would play differently, and the share. A change
that alters few decisions cannot move the win rate much, whatever it costs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from ludo.actions import Action  # noqa: E402
from ludo.bots import choose_action  # noqa: E402
from ludo.engine import apply  # noqa: E402
from ludo.rules.gilgiti import GILGITI  # noqa: E402
from ludo.rules.gilgiti_bot import HARD  # noqa: E402

ROLL = Action("roll")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--teams", action="store_true")
    ap.add_argument("--against", choices=("reply_seats", "medium"), default="reply_seats")
    ap.add_argument("--hard", default="", help='Hard weights other than HARD\'s: JSON '
                    '{"cover": 0.0, ...}')
    args = ap.parse_args()
    bot = GILGITI.bot
    bot.weights = HARD._replace(**{k: float(v) for k, v in
                                   (json.loads(args.hard) if args.hard else {}).items()})
    decisions = differ = 0
    for game in range(args.games):
        seats = GILGITI.seating(4)
        hard = {seats[game % 4]} | ({seats[(game + 2) % 4]} if args.teams else set())
        state = GILGITI.new_game(seats, 700 + game, {"teams": True} if args.teams else None)
        while state.phase != "over":
            if state.phase == "roll":
                state, _ = apply(state, ROLL)
                continue
            if state.turn in hard and len(bot.candidates(state)) > 1:
                action = choose_action(state, "hard", game)
                if args.against == "medium":
                    other = choose_action(state, "medium", game)
                else:
                    bot.reply_seats = 2
                    try:
                        other = choose_action(state, "hard", game)
                    finally:
                        bot.reply_seats = 1
                decisions += 1
                differ += action != other
            else:
                action = choose_action(state, "hard" if state.turn in hard else "medium", game)
            state, _ = apply(state, action)
    print(json.dumps({"bench": "gilgiti_agreement", "games": args.games, "teams": args.teams,
                      "against": args.against, "hard": bot.weights._asdict(),
                      "decisions": decisions, "differ": differ,
                      "share": round(differ / max(decisions, 1), 3)}))


if __name__ == "__main__":
    main()
