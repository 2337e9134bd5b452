"""Engine benchmark: random-play games per second, ours against ludopy 1.5.0.

    python3 bench/engine.py [--games 300] [--ludopy-games 150] [--seed 1] [--repeat 3]
                            [--json out.json] [--lengths 10000]

For Classic and Courtyard with 4 players it plays ``--games`` whole games of
random legal moves through the engine's own loop (``rules.advance``, as
``python -m ludo simulate --no-check`` and the bots' search do; ``rules.apply``,
which also builds the events, is timed beside it): a roll action in the roll phase, a
uniformly random legal move in the move phase, no invariant checks).  In the
same run it plays ``--ludopy-games`` games of ludopy (PyPI ``ludopy==1.5.0``, a
pure-Python Ludo engine on numpy) choosing a random legal piece each turn, and
prints games per second for each and the ratio (the target is >= 10x on
Classic).  Each figure is the best of ``--repeat`` timed runs (after a warm-up).

Royal is timed the same way (there is no ludopy figure to compare it with). ``--lengths N``
instead plays N random 4-player games of every rule set and prints how long they were (actions
per game: median, 99th percentile, longest) and whether any reached the move cap
(:data:`LENGTH_CAP`), the evidence that random games end.

Both engines are timed in CPU seconds of the playing thread
(``time.thread_time``), which other processes on a shared machine do not
inflate; wall-clock figures are printed beside them.  Both loops pick moves
with the same cheap chooser (``int(random() * n)``).

ludopy is timed in a child process with ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE`` removed from its environment: on this kind of machine they
are set for old OpenBLAS builds and only slow a current numpy down, so removing
them gives ludopy its best figure.  Without ludopy installed, only our figures
are printed.

Gilgiti (4 players, alone and in teams) is timed the same way on ``--gilgiti-games``
games: a roll in the roll phase (a 6 rolls again), a uniformly random legal play
(token or stack and value, or forcing the gate) in the move phase.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))  # run as a script from anywhere: find this checkout's engine

from ludo.actions import Action  # noqa: E402
from ludo.engine import default_seats, rules_for  # noqa: E402

TARGET_RATIO = 10.0
RULES = ("classic", "courtyard", "royal")
LENGTH_CAP = 20_000
"""Actions after which a random game counts as never ending (``--lengths``)."""


def engine_games(rules_name: str, games: int, seed: int,
                 with_events: bool = False,
                 options: dict[str, Any] | None = None) -> tuple[float, float, int]:
    """Play ``games`` random 4-player games; returns (cpu seconds, wall seconds, actions).

    By default through ``rules.advance`` (positions only, as simulation and bot search use
    it); ``with_events`` plays through ``rules.apply``, which also builds every event.
    """
    rules = rules_for(rules_name)
    seats = default_seats(4)
    random_float = random.Random(seed).random
    roll = Action("roll")
    legal_actions = rules.legal_actions
    if with_events:
        def step(state: Any, action: Action) -> Any:
            return rules.apply(state, action)[0]
    else:
        step = rules.advance
    actions = 0
    cpu, wall = time.thread_time(), time.perf_counter()
    for game in range(games):
        state = rules.new_game(seats, seed * 1_000_003 + game, options)
        while True:
            phase = state.phase
            if phase == "roll":
                state = step(state, roll)
            elif phase != "over":  # a decision: "move", or Royal's two-crowns "choose"
                moves = legal_actions(state)
                state = step(state, moves[int(random_float() * len(moves))])
            else:
                break
            actions += 1
    return time.thread_time() - cpu, time.perf_counter() - wall, actions


def game_lengths(rules_name: str, games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` random 4-player games; how many actions each took, and any cut at the cap."""
    rules = rules_for(rules_name)
    seats = default_seats(4)
    random_float = random.Random(seed).random
    lengths = []
    capped = 0
    for game in range(games):
        state = rules.new_game(seats, seed * 1_000_003 + game)
        count = 0
        while state.phase != "over" and count < LENGTH_CAP:
            if state.phase == "roll":
                action = Action("roll")
            else:
                moves = rules.legal_actions(state)
                action = moves[int(random_float() * len(moves))]
            state = rules.advance(state, action)
            count += 1
        capped += state.phase != "over"
        lengths.append(count)
    lengths.sort()
    return {"games": games, "median": lengths[games // 2],
            "p99": lengths[min(games - 1, games * 99 // 100)], "longest": lengths[-1],
            "cap": LENGTH_CAP, "reached_cap": capped}


def ludopy_games(games: int, seed: int) -> tuple[float, float, int]:
    """Play ``games`` ludopy games with random legal pieces; (cpu s, wall s, observations)."""
    import ludopy
    import numpy as np

    np.random.seed(seed)  # ludopy's dice
    random_float = random.Random(seed).random
    steps = 0
    cpu, wall = time.thread_time(), time.perf_counter()
    for _ in range(games):
        game = ludopy.Game()
        there_is_a_winner = False
        while not there_is_a_winner:
            (dice, move_pieces, player_pieces, enemy_pieces, player_is_a_winner,
             there_is_a_winner), player_i = game.get_observation()
            if len(move_pieces):
                piece = move_pieces[int(random_float() * len(move_pieces))]
            else:
                piece = -1
            game.answer_observation(piece)
            steps += 1
    return time.thread_time() - cpu, time.perf_counter() - wall, steps


def best_of(measure: Any, repeat: int, *args: Any) -> tuple[float, float, int]:
    """The best of ``repeat`` runs: least CPU time and, separately, least wall time."""
    runs = [measure(*args) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2]


def run_ludopy_child(games: int, seed: int, repeat: int) -> dict[str, Any] | None:
    """Time ludopy in a child process with the OpenBLAS overrides removed."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    proc = subprocess.run(
        [sys.executable, __file__, "--ludopy-child", "--ludopy-games", str(games),
         "--seed", str(seed), "--repeat", str(repeat)],
        capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        message = proc.stderr.strip().splitlines()[-1:] or ["unknown error"]
        print(f"ludopy: not measured ({message[0]})", file=sys.stderr)
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300, help="engine games per rule set")
    parser.add_argument("--ludopy-games", type=int, default=150, help="ludopy games")
    parser.add_argument("--gilgiti-games", type=int, default=60,
                        help="Gilgiti games, alone and in teams")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best counts")
    parser.add_argument("--json", metavar="PATH", help="also write the results here")
    parser.add_argument("--lengths", type=int, metavar="N",
                        help="only measure the length of N random games of each rule set")
    parser.add_argument("--ludopy-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.lengths:
        for rules_name in RULES:
            found = game_lengths(rules_name, args.lengths, args.seed)
            print(f"{rules_name:9s}  {found['games']} games: median {found['median']} actions, "
                  f"99th percentile {found['p99']}, longest {found['longest']}; "
                  f"{found['reached_cap']} reached the cap of {found['cap']}")
        return 0

    if args.ludopy_child:
        ludopy_games(max(1, args.ludopy_games // 10), args.seed + 1)  # warm-up
        cpu, wall, steps = best_of(ludopy_games, args.repeat, args.ludopy_games, args.seed)
        print(json.dumps({"games": args.ludopy_games, "cpu_seconds": cpu,
                          "wall_seconds": wall, "steps": steps}))
        return 0

    results: dict[str, Any] = {
        "python": platform.python_version(), "machine": platform.machine(),
        "games": args.games, "seed": args.seed, "repeat": args.repeat,
    }
    for rules_name in RULES:
        engine_games(rules_name, max(1, args.games // 10), args.seed + 1)  # warm-up
        cpu, wall, actions = best_of(engine_games, args.repeat, rules_name, args.games,
                                     args.seed)
        results[rules_name] = {
            "games_per_second": round(args.games / cpu, 1),
            "games_per_wall_second": round(args.games / wall, 1),
            "actions_per_second": round(actions / cpu),
            "mean_actions_per_game": round(actions / args.games, 1),
        }
        print(f"{rules_name:9s}  {args.games / cpu:8.1f} games/s "
              f"(wall clock {args.games / wall:.1f})  {actions / cpu:9.0f} actions/s  "
              f"({actions / args.games:.0f} actions per game, {args.games} games)")
        cpu, _, _ = best_of(engine_games, args.repeat, rules_name, args.games, args.seed, True)
        results[rules_name]["games_per_second_with_events"] = round(args.games / cpu, 1)
        print(f"{'':9s}  {args.games / cpu:8.1f} games/s through apply(), events built")

    for label, options in (("gilgiti", None), ("gilgiti-teams", {"teams": True})):
        n = args.gilgiti_games
        engine_games("gilgiti", max(1, n // 10), args.seed + 1, False, options)  # warm-up
        cpu, wall, actions = best_of(engine_games, args.repeat, "gilgiti", n, args.seed, False,
                                     options)
        results[label] = {
            "games_per_second": round(n / cpu, 1),
            "games_per_wall_second": round(n / wall, 1),
            "actions_per_second": round(actions / cpu),
            "mean_actions_per_game": round(actions / n, 1),
        }
        print(f"{label:13s}  {n / cpu:8.1f} games/s (wall clock {n / wall:.1f})  "
              f"{actions / cpu:9.0f} actions/s  ({actions / n:.0f} actions per game, {n} games)")
        cpu, _, _ = best_of(engine_games, args.repeat, "gilgiti", n, args.seed, True, options)
        results[label]["games_per_second_with_events"] = round(n / cpu, 1)
        print(f"{'':13s}  {n / cpu:8.1f} games/s through apply(), events built")

    ludopy = run_ludopy_child(args.ludopy_games, args.seed, args.repeat)
    if ludopy is not None:
        ludopy_rate = ludopy["games"] / ludopy["cpu_seconds"]
        results["ludopy"] = {
            "version": "1.5.0", "games_per_second": round(ludopy_rate, 1),
            "games_per_wall_second": round(ludopy["games"] / ludopy["wall_seconds"], 1),
            "mean_steps_per_game": round(ludopy["steps"] / ludopy["games"], 1),
        }
        print(f"{'ludopy':9s}  {ludopy_rate:8.1f} games/s "
              f"(wall clock {ludopy['games'] / ludopy['wall_seconds']:.1f})  "
              f"({ludopy['steps'] / ludopy['games']:.0f} observations per game, "
              f"{ludopy['games']} games)")
        for rules_name in ("classic", "courtyard"):
            ratio = results[rules_name]["games_per_second"] / ludopy_rate
            with_events = results[rules_name]["games_per_second_with_events"] / ludopy_rate
            results[rules_name]["ratio_to_ludopy"] = round(ratio, 2)
            results[rules_name]["ratio_to_ludopy_with_events"] = round(with_events, 2)
            print(f"ratio {rules_name}/ludopy: {ratio:.1f}x ({with_events:.1f}x with events)")
        ok = results["classic"]["ratio_to_ludopy"] >= TARGET_RATIO
        results["target_met"] = ok
        print(f"target >= {TARGET_RATIO:.0f}x on classic: {'met' if ok else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
