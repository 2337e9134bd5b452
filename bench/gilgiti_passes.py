"""How often Gilgiti turns pass unplayed, by seat (a printout, never an assertion).

    python bench/gilgiti_passes.py --games 120
    python bench/gilgiti_passes.py --games 120 --hard '{"stuck": 20}'

Plays games of one Hard seat (rotating) against three Medium (game seeds 7000, 7001, ...) and
counts, for each seat by its place after Hard's (0 Hard, 1 the enemy whose reply Hard's search
plays out, 2 and 3 the enemies it does not see), the turns and the turns that passed with
nothing kept (all or nothing: no legal play for a value, so the turn is rolled back or never
starts), and of those the ones where the seat had a token on the board (track or home lane),
so that a block ahead or an exact finish, not the yard alone, stopped it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from ludo.actions import Action  # noqa: E402
from ludo.bots import choose_action  # noqa: E402
from ludo.engine import apply, new_game  # noqa: E402
from ludo.geometry import HOME  # noqa: E402
from ludo.rules.gilgiti import GILGITI  # noqa: E402
from ludo.rules.gilgiti_bot import HARD  # noqa: E402

ROLL = Action("roll")
SEATS = ("red", "green", "yellow", "blue")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--hard", default="", help='Hard weights other than HARD\'s: JSON '
                    '{"stuck": 20.0, ...}')
    args = ap.parse_args()
    given = json.loads(args.hard) if args.hard else {}
    GILGITI.bot.weights = HARD._replace(  # type: ignore[attr-defined]
        **{k: float(v) for k, v in given.items()})
    turns: Counter[int] = Counter()
    passed: Counter[int] = Counter()
    on_board: Counter[int] = Counter()
    for game in range(args.games):
        hard = SEATS[game % 4]
        state = new_game("gilgiti", SEATS, 7000 + game)
        had_board = False
        while state.phase != "over":
            who = state.turn
            if state.phase == "roll":
                if not state.rolled:  # a turn starts: has the seat a token on the board?
                    had_board = any(0 <= p < HOME for p in state.tokens[SEATS.index(who)])
                action = ROLL
            else:
                level = "hard" if who == hard else "medium"
                action = choose_action(state, level, game * 8 + SEATS.index(who))
            place = (SEATS.index(who) - SEATS.index(hard)) % 4
            state, events = apply(state, action)
            if any(e["type"] == "rolled_back" for e in events):
                passed[place] += 1
                on_board[place] += had_board
            if state.phase == "over" or state.turn != who:
                turns[place] += 1
    print(json.dumps({"bench": "gilgiti_passes", "games": args.games, "hard": given,
                      "seats": [{"place": k, "turns": turns[k], "passed": passed[k],
                                 "passed_share": round(passed[k] / max(1, turns[k]), 4),
                                 "passed_with_a_token_out": on_board[k],
                                 "share": round(on_board[k] / max(1, turns[k]), 4)}
                                for k in range(4)]}))


if __name__ == "__main__":
    main()
