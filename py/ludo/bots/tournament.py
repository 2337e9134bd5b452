"""Bot tournaments: duplicate games with rotated seats (``python -m ludo tournament``).

Game seed ``k`` is played once under every rotation of the bot list over the
seats, so every entry meets the same dice from every seat; game ``i`` of the
run uses seed ``k = i // n`` and rotation ``i % n`` (n = number of bots).

With a rule set's options (``--teams`` in Gilgiti) a game may have several
winners: a team's win counts for every entry of the team. Partners sit
opposite, and a rotation moves every entry by one seat, so entries 0 and 2
(and 1 and 3) are always partners: ``hard,medium,hard,medium`` is a Hard pair
against a Medium pair, and entry 0's win rate is the pair's.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from typing import Any

from ..actions import Action
from ..engine import apply, distinct_moves, rules_for, winners
from . import LEVEL_NAMES, choose_action

MAX_ACTIONS_PER_GAME = 100_000
ROLL = Action("roll")


def play_game(rules_name: str, bots: tuple[str, ...], game_seed: int,
              rotation: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """One game; seat ``i`` is played by entry ``(i + rotation) % len(bots)``.

    Returns the winning entry (None if the game did not end) and every winning
    entry (a team is several), the number of actions and, per level, the seconds
    each move decision took (trivial ones included) and the seconds of decisions
    that had a real choice.
    """
    n = len(bots)
    rules = rules_for(rules_name)
    seats = rules.seating(n)
    entry_of = {seat: (i + rotation) % n for i, seat in enumerate(seats)}
    state = rules.new_game(seats, game_seed, options or None)
    times: dict[str, list[float]] = {}
    choice_times: dict[str, list[float]] = {}
    actions = 0
    perf = time.perf_counter
    while state.phase != "over" and actions < MAX_ACTIONS_PER_GAME:
        if state.phase == "roll":
            action = ROLL
        else:
            entry = entry_of[state.turn]
            level = bots[entry]
            choices = len(distinct_moves(state))
            bot_seed = game_seed * 8 + entry
            started = perf()
            action = choose_action(state, level, bot_seed)
            spent = perf() - started
            times.setdefault(level, []).append(spent)
            if choices > 1:
                choice_times.setdefault(level, []).append(spent)
        state, _ = apply(state, action)
        actions += 1
    won = [entry_of[seat] for seat in winners(state)]
    winner = won[0] if won else None
    return {"winner": winner, "winners": won, "actions": actions, "times": times,
            "choice_times": choice_times}


def _task(args: tuple[Any, ...]) -> dict[str, Any]:
    return play_game(*args)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def win_figures(wins: int, games: int) -> dict[str, Any]:
    """A row's figures: wins, the win rate and its 95% Wilson interval, rounded to 4 places."""
    lo, hi = wilson(wins, games)
    return {"wins": wins, "win_rate": round(wins / games, 4) if games else 0.0,
            "ci95": [round(lo, 4), round(hi, 4)]}


def _parity(results: list[dict[str, Any]], n: int) -> float:
    """The win rate of an entry no better than the others: winners per game over entries
    (1/n, or 1/2 when teams of two win together)."""
    finished = [len(r["winners"]) for r in results if r["winners"]]
    return sum(finished) / len(finished) / n if finished else 1 / n


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def tasks(rules: str, bots: tuple[str, ...], games: int, seed: int,
          options: dict[str, Any] | None = None) -> Iterable[tuple]:
    """The games of a run, in order: (rules, bots, game seed, rotation[, options])."""
    n = len(bots)
    for i in range(games):
        if options:
            yield (rules, bots, seed * 1_000_003 + i // n, i % n, options)
        else:
            yield (rules, bots, seed * 1_000_003 + i // n, i % n)


def tournament(rules: str, bots: tuple[str, ...], games: int, seed: int,
               jobs: int = 1, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Play ``games`` games and summarise them (the CLI prints this)."""
    for level in bots:
        if level not in LEVEL_NAMES:
            raise ValueError(f"unknown bot level {level!r}; choose {', '.join(LEVEL_NAMES)}")
    if not 2 <= len(bots) <= 4:
        raise ValueError("a tournament needs 2 to 4 bots (one per seat)")
    rules = rules_for(rules).name
    started = time.perf_counter()
    work = list(tasks(rules, bots, games, seed, options))
    if jobs > 1:
        import multiprocessing

        with multiprocessing.Pool(jobs) as pool:
            results = pool.map(_task, work, chunksize=max(1, len(work) // (jobs * 8)))
    else:
        results = [_task(t) for t in work]
    elapsed = time.perf_counter() - started

    wins = [0] * len(bots)
    unfinished = 0
    times: dict[str, list[float]] = {}
    choice_times: dict[str, list[float]] = {}
    total_actions = 0
    for r in results:
        total_actions += r["actions"]
        if r["winner"] is None:
            unfinished += 1
        for entry in r["winners"]:
            wins[entry] += 1
        for level, ts in r["times"].items():
            times.setdefault(level, []).extend(ts)
        for level, ts in r["choice_times"].items():
            choice_times.setdefault(level, []).extend(ts)
    entries = []
    for i, level in enumerate(bots):
        entries.append({"entry": i, "bot": level, **win_figures(wins[i], games)})
    decision = {}
    for level in sorted(set(bots), key=LEVEL_NAMES.index):
        ts = times.get(level, [])
        cs = choice_times.get(level, [])
        decision[level] = {
            "decisions": len(ts),
            "avg_ms": round(1000 * sum(ts) / len(ts), 3) if ts else None,
            "p95_ms": round(1000 * _percentile(ts, 0.95), 3),
            "choices": len(cs),
            "choice_avg_ms": round(1000 * sum(cs) / len(cs), 3) if cs else None,
            "choice_p95_ms": round(1000 * _percentile(cs, 0.95), 3),
            "max_ms": round(1000 * max(ts), 3) if ts else None,
        }
    return {
        "command": "tournament",
        "rules": rules,
        "bots": list(bots),
        **({"options": options} if options else {}),
        "games": games,
        "seed": seed,
        "rotations": len(bots),
        "jobs": jobs,
        "parity": round(_parity(results, len(bots)), 4),
        "entries": entries,
        "unfinished": unfinished,
        "decision_time": decision,
        "mean_game_length": round(total_actions / games, 1),
        "games_per_second": round(games / elapsed, 2) if elapsed > 0 else None,
        "seconds": round(elapsed, 1),
    }
