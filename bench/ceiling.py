"""How much of a game's result the decisions can decide: a clairvoyant player's win rate.

    python bench/ceiling.py --rules royal --against easy --games 200 --seed 1

Entry 0 is an "oracle" that cheats twice over: it knows the dice to come (the engine's
RNG word is in the position) and it knows every move its opponents will make (they are
the ordinary computer players, with the seeds a tournament gives them, so they are
deterministic). At each decision with a choice it plays every candidate move and then
the whole rest of the game out -- the opponents as they really will play, itself by
``--rollout``'s policy (Medium by default) -- and takes a move that wins, else the move
whose playout ends best (the playout's final evaluation). This is one step of policy
improvement over the rollout policy in a game made deterministic, so it wins at least
the games its rollout policy would win from the same point; no honest player, who sees
neither dice nor the opponents' choices, can be expected to beat it. Its win rate is
therefore a practical ceiling for a target such as "Medium >= 60% against 3 Easy".

The line-up is the oracle against 3 ``--against`` players, seats rotated and dice
duplicated exactly as in ``python -m ludo tournament`` (same game seeds, same bot seeds),
so its figures compare with a tournament's row for row. Prints one JSON line.
A printout, never an assertion; slow (each choice plays several whole games out).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from ludo.actions import Action  # noqa: E402
from ludo.bots import choose_action  # noqa: E402
from ludo.bots.players import WIN  # noqa: E402
from ludo.bots.tournament import tasks, win_figures  # noqa: E402
from ludo.engine import apply, distinct_moves, rules_for, winners  # noqa: E402

ROLL = Action("roll")


def play_out(state, me: str, levels: dict[str, str], seeds: dict[str, int],
             limit: int = 20_000) -> tuple[float, object]:
    """Play ``state`` to its end with every seat's policy; (result for ``me``, final state)."""
    actions = 0
    while state.phase != "over" and actions < limit:
        if state.phase == "roll":
            action = ROLL
        else:
            action = choose_action(state, levels[state.turn], seeds[state.turn])
        state, _ = apply(state, action)
        actions += 1
    if state.phase == "over":
        return (WIN if me in winners(state) else -WIN), state
    return rules_for(state).bot.evaluate(state, me), state


def oracle_move(state, me: str, levels: dict[str, str], seeds: dict[str, int],
                rollout: str) -> Action:
    moves = distinct_moves(state)
    if len(moves) == 1:
        return moves[0]
    policy = dict(levels)
    policy[me] = rollout
    # the rollout policy's own choice first, so ties keep it (policy improvement)
    own = choose_action(state, rollout, seeds[me])
    ordered = [own] + [m for m in moves if m != own]
    best, best_value = own, -float("inf")
    for m in ordered:
        after, _ = apply(state, m)
        value, _ = play_out(after, me, policy, seeds)
        if value > best_value + 1e-9:
            best, best_value = m, value
        if best_value >= WIN:
            break
    return best


def sampled_move(state, me: str, seed: int, rollout: str, playouts: int,
                 horizon: int) -> Action:
    """The honest counterpart: each candidate is judged by ``playouts`` games played on
    ``horizon`` actions with dice drawn afresh (the same draws for every candidate), every
    seat by the rollout policy, then the evaluation; nothing of the real future is used."""
    moves = distinct_moves(state)
    if len(moves) == 1:
        return moves[0]
    bot = rules_for(state).bot
    rng = random.Random(seed * 1_000_003 + state.rng)
    words = [rng.getrandbits(64) for _ in range(playouts)]
    own = choose_action(state, rollout, seed)
    ordered = [own] + [m for m in moves if m != own]
    best, best_value = own, -float("inf")
    for m in ordered:
        after, _ = apply(state, m)
        total = 0.0
        for k, word in enumerate(words):
            s = after._replace(rng=word)
            actions = 0
            while s.phase != "over" and actions < horizon:
                a = ROLL if s.phase == "roll" else choose_action(s, rollout, k)
                s, _ = apply(s, a)
                actions += 1
            total += (WIN if me in winners(s) else -WIN) if s.phase == "over" \
                else bot.evaluate(s, me)
        if total > best_value + 1e-9:
            best, best_value = m, total
    return best


def play_game(rules: str, against: str, game_seed: int, rotation: int, rollout: str,
              options: dict | None, playouts: int = 0, horizon: int = 0) -> dict:
    r = rules_for(rules)
    seats = r.seating(4)
    entry_of = {seat: (i + rotation) % 4 for i, seat in enumerate(seats)}
    levels = {seat: against for seat in seats}
    seeds = {seat: game_seed * 8 + entry_of[seat] for seat in seats}
    oracle = next(seat for seat in seats if entry_of[seat] == 0)
    state = r.new_game(seats, game_seed, options or None)
    while state.phase != "over":
        if state.phase == "roll":
            action = ROLL
        elif state.turn == oracle and playouts:
            action = sampled_move(state, oracle, seeds[oracle], rollout, playouts, horizon)
        elif state.turn == oracle:
            action = oracle_move(state, oracle, levels, seeds, rollout)
        else:
            action = choose_action(state, levels[state.turn], seeds[state.turn])
        state, _ = apply(state, action)
    return {"won": oracle in winners(state)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="royal")
    ap.add_argument("--against", default="easy", choices=["easy", "medium", "hard"])
    ap.add_argument("--rollout", default="medium", choices=["easy", "medium", "hard"])
    ap.add_argument("--games", type=int, default=50,
                    help="games (50 keeps `make bench` short; docs/bots.md used 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--playouts", type=int, default=0,
                    help="honest mode: sampled dice, this many playouts per candidate")
    ap.add_argument("--horizon", type=int, default=60,
                    help="honest mode: actions per playout before the evaluation")
    args = ap.parse_args()
    started = time.perf_counter()
    wins = 0
    for game in tasks(args.rules, ("oracle", args.against, args.against, args.against),
                      args.games, args.seed):
        _, _, game_seed, rotation = game
        wins += play_game(args.rules, args.against, game_seed, rotation, args.rollout,
                          None, args.playouts, args.horizon)["won"]
    print(json.dumps({"bench": "ceiling", "rules": args.rules, "oracle_rollout": args.rollout,
                      "mode": (f"sampled, {args.playouts} playouts x {args.horizon} actions"
                               if args.playouts else "clairvoyant"),
                      "against": [args.against] * 3, "games": args.games, "seed": args.seed,
                      **win_figures(wins, args.games),
                      "seconds": round(time.perf_counter() - started, 1)}))


if __name__ == "__main__":
    main()
