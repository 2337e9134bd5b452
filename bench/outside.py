"""Our computer players against "outside" Ludo AIs (a printout, never an assertion).

    PYTHONPATH=py .venv/bin/python bench/outside.py   # hard against expert, 200 Classic games
    PYTHONPATH=py .venv/bin/python bench/outside.py --rules classic \
        --bots medium,expert,expert,expert --games 400 --seed 1
    PYTHONPATH=py .venv/bin/python bench/outside.py --rules gilgiti --teams \
        --bots hard,expert,hard,expert --games 200 --seed 1

The outside players are the kinds found in Ludo AI papers and hobby projects, written here from
their published ideas (none of their code is copied) and playing through the engine's public
API only (``new_game``, ``distinct_moves``, ``apply``/``advance``, the position's documented
fields). Gilgiti's and Royal's are in ``bench/outside_gilgiti.py`` and ``bench/outside_royal.py``
(aggressive, defensive, fast, expert; no Monte Carlo player there), each module's docstring
says what they do. Courtyard's and Classic's are below; they know Courtyard's house rules
(capture to unlock the home lane, another lap before that, entry on 1 or 6):

* ``aggressive`` -- capture first (the most advanced victim), else enter a token from the yard,
  else move the leading token. The "aggressive player" of the ludopy-style rule-based players.
* ``defensive`` -- keep tokens safe: get a threatened token out of reach (a safe square, the
  home lane, home, or out of every enemy's 1-6), never step into reach when another move
  avoids it; among equals the leading token. The classic "defensive player".
* ``fast`` -- race: bring a token home, else move the leading token (furthest along), entering
  only when nothing else can move. The classic "fast player".
* ``expert`` -- the weighted "mixed"/"expert" heuristic of the Ludo AI literature (capture,
  safety, danger from enemy tokens within 6 behind, entering the home lane, leaving the yard,
  progress), each move scored by a weighted sum; Courtyard-aware (the first capture is worth a
  lot, progress is worth less while the lane is locked, and standing 1-6 squares behind an
  enemy, a capture threat, is worth twice as much while locked).
* ``montecarlo`` -- flat Monte Carlo: for each distinct move, a fixed number of playouts to the
  end of the game (every seat playing the ``aggressive`` rules with a little randomness), the
  move with the most wins. Playouts per move are fixed (``--playouts``, default 16) so results do
  not depend on the machine's load; about 45-70 ms a decision in CPython.

Our levels (``easy``, ``medium``, ``hard``) play through ``ludo.bots.choose_action``.

Games are played as ``ludo tournament`` plays them: game seed ``k`` under every rotation of the
line-up over the seats, so every entry meets the same dice from every seat (the dice come from
the position's RNG, which advances on every roll, so roll number ``i`` of seed ``k`` is the same
whoever plays). With ``--teams`` (Gilgiti, 4 players) entries 0 and 2 are partners against 1
and 3 in every rotation, and a team's win counts for both partners' entries (parity 50%).
Prints one JSON line: wins, win rate and Wilson 95% interval per entry, mean actions,
unfinished games, mean ms per decision with a choice for each kind of player, and entry 0's
games split by result (captures made and suffered -- a Gilgiti stack strike counts its victims,
a Royal man sent to balk counts --, tokens home; in Courtyard and Classic also the exposure
figures and when the lane was unlocked; in Gilgiti ``rolled_back``, turns that went back after
something had been played).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import outside_gilgiti  # noqa: E402
import outside_royal  # noqa: E402

from ludo import advance, apply, distinct_moves, new_game, rules_for, winners  # noqa: E402
from ludo.actions import Action  # noqa: E402
from ludo.bots import choose_action  # noqa: E402
from ludo.bots.tournament import win_figures  # noqa: E402
from ludo.geometry import (  # noqa: E402
    COLOURS,
    ENTRANCE_SQUARES,
    HOME,
    LANE_FIRST,
    START_SQUARES,
    TRACK_LENGTH,
    YARD,
    is_safe,
)

ROLL = Action("roll")
OURS = ("easy", "medium", "hard")
MAX_ACTIONS = 100_000


# ---------------------------------------------------------------- what a move does

def progress(ci: int, place: int) -> int:
    """Steps from the colour's start: yard -1, track 0..50 (51 after a lap's wrap), lane 51..55,
    home 56. (Before Courtyard's unlock a token past its entrance wraps to small numbers.)"""
    if place == YARD:
        return -1
    if place >= LANE_FIRST:
        return place - LANE_FIRST + 51
    return (place - START_SQUARES[ci]) % TRACK_LENGTH


def threats(state: Any, ci: int, square: int) -> int:
    """How many enemy tokens could land on ``square`` with their next roll (1..6 behind it,
    not turning into their own lane first). Safe squares, lanes and home are never threatened."""
    if square < 0 or square >= LANE_FIRST or is_safe(square):
        return 0
    count = 0
    for ei, places in enumerate(state.tokens):
        if ei == ci or not places:
            continue
        unlocked = COLOURS[ei] in state.unlocked
        entrance = ENTRANCE_SQUARES[ei]
        for p in places:
            if p < 0 or p >= LANE_FIRST:
                continue
            d = (square - p) % TRACK_LENGTH
            if 1 <= d <= 6 and not (unlocked and (entrance - p) % TRACK_LENGTH < d):
                count += 1
    return count


def targets(state: Any, ci: int, square: int) -> int:
    """Enemy tokens on ordinary track squares 1..6 in front of ``square`` (ours to capture)."""
    if square < 0 or square >= LANE_FIRST:
        return 0
    unlocked = COLOURS[ci] in state.unlocked
    entrance = ENTRANCE_SQUARES[ci]
    count = 0
    for ei, places in enumerate(state.tokens):
        if ei == ci or not places:
            continue
        for p in places:
            if p < 0 or p >= LANE_FIRST or is_safe(p):
                continue
            d = (p - square) % TRACK_LENGTH
            if 1 <= d <= 6 and not (unlocked and (entrance - square) % TRACK_LENGTH < d):
                count += 1
    return count


class Move:
    """The facts of one distinct move, read from the position before and after it."""

    __slots__ = ("action", "token", "frm", "to", "before", "after", "captured", "victim_steps",
                 "entered", "home", "lane", "unlocks", "ci", "won", "p_from", "p_to")

    def __init__(self, state: Any, action: Action) -> None:
        ci = COLOURS.index(state.turn)
        after, events = apply(state, action)
        self.action, self.ci, self.before, self.after = action, ci, state, after
        self.token = action.token
        self.frm = state.tokens[ci][action.token]
        self.to = after.tokens[ci][action.token]
        self.captured = 0
        self.victim_steps = 0
        self.unlocks = False
        self.won = after.phase == "over" and after.winner == state.turn
        for e in events:
            if e["type"] == "captured":
                for colour, token in e["victims"]:
                    vi = COLOURS.index(colour)
                    self.captured += 1
                    self.victim_steps += max(0, progress(vi, state.tokens[vi][token]))
            elif e["type"] == "unlocked":
                self.unlocks = True
        self.entered = self.frm == YARD
        self.home = self.to == HOME
        self.lane = self.to >= LANE_FIRST and self.frm < LANE_FIRST
        self.p_from = progress(ci, self.frm)
        self.p_to = progress(ci, self.to)


def moves_of(state: Any) -> list[Move]:
    return [Move(state, a) for a in distinct_moves(state)]


def locked(state: Any) -> bool:
    return state.turn not in state.unlocked


# ---------------------------------------------------------------- the outside players

def aggressive(state: Any, rng: random.Random) -> Action:
    """Capture first (the most advanced victims), else enter, else the leading token."""
    ms = moves_of(state)
    return max(ms, key=lambda m: (m.won, m.captured > 0, m.victim_steps, m.entered,
                                  m.p_from, rng.random())).action


def fast(state: Any, rng: random.Random) -> Action:
    """Race: home first, then the token furthest along; enter only when nothing else moves."""
    ms = moves_of(state)
    return max(ms, key=lambda m: (m.won, m.home, not m.entered, m.p_from, rng.random())).action


def defensive(state: Any, rng: random.Random) -> Action:
    """Safety first: rescue a threatened token, never walk into reach if avoidable."""
    ms = moves_of(state)

    def key(m: Move) -> tuple:
        ci = m.ci
        exposed_before = threats(m.before, ci, m.frm) if m.frm != YARD else 0
        exposed_after = threats(m.after, ci, m.to)
        # everything of ours left in reach after the move (the others may be exposed too)
        total_after = sum(threats(m.after, ci, p) * (progress(ci, p) + 10)
                          for p in m.after.tokens[ci])
        rescued = exposed_before > 0 and exposed_after == 0
        return (m.won, m.home, rescued, -total_after, exposed_after == 0,
                is_safe(m.to) if m.to < LANE_FIRST else True, m.p_from, rng.random())

    return max(ms, key=key).action


# Weights of the mixed/expert heuristic, in steps of progress.
EXPERT = {
    "progress": 1.0,        # per step moved (half while Courtyard's lane is locked)
    "enter": 14.0,          # leaving the yard
    "capture": 18.0,        # per captured token, plus half the steps it loses
    "unlock": 45.0,         # Courtyard: the first capture opens the home lane
    "home": 25.0,           # getting a token home
    "lane": 12.0,           # entering the home lane (out of reach for good)
    "safe": 9.0,            # ending on a safe square
    "danger": 9.0,          # per enemy within 6 behind the destination, plus 0.4 per step at risk
    "escape": 9.0,          # per enemy that had the moved token in reach before
    "hunt": 3.0,            # per enemy 1..6 in front of the destination (x2 while locked)
    "win": 1000.0,
}


def expert_score(m: Move) -> float:
    w = EXPERT
    is_locked = m.before.turn not in m.before.unlocked
    steps = (m.p_to - m.p_from) if m.frm != YARD else 0
    if steps < 0:  # lapping past the entrance while locked
        steps += TRACK_LENGTH
    s = w["progress"] * steps * (0.5 if is_locked else 1.0)
    if m.won:
        s += w["win"]
    if m.entered:
        s += w["enter"]
    if m.captured:
        s += w["capture"] * m.captured + 0.5 * m.victim_steps
    if m.unlocks:
        s += w["unlock"]
    if m.home:
        s += w["home"]
    if m.lane:
        s += w["lane"]
    if m.to < LANE_FIRST and is_safe(m.to) and m.frm != YARD:
        s += w["safe"]
    at_risk = max(m.p_to, 0) * 0.4
    s -= threats(m.after, m.ci, m.to) * (w["danger"] + at_risk)
    if m.frm != YARD and m.frm < LANE_FIRST:
        s += threats(m.before, m.ci, m.frm) * (w["escape"] + max(m.p_from, 0) * 0.4)
    if m.to < LANE_FIRST:
        s += targets(m.after, m.ci, m.to) * w["hunt"] * (2.0 if is_locked else 1.0)
    return s


def expert(state: Any, rng: random.Random) -> Action:
    ms = moves_of(state)
    return max(ms, key=lambda m: (expert_score(m), rng.random())).action


def _playout_policy(state: Any, rng: random.Random) -> Action:
    """Cheap rollout policy: a capture or getting home if any, else a random move (15%) or the
    leading token."""
    acts = distinct_moves(state)
    if len(acts) == 1:
        return acts[0]
    ci = COLOURS.index(state.turn)
    mine = state.tokens[ci]
    occupied = {p for ei, ps in enumerate(state.tokens) if ei != ci for p in ps
                if 0 <= p < LANE_FIRST and not is_safe(p)}
    best, best_key = acts[0], None
    for a in acts:
        after = advance(state, a)
        to = after.tokens[ci][a.token]
        key = (to == HOME, to in occupied, rng.random() < 0.15, progress(ci, mine[a.token]),
               rng.random())
        if best_key is None or key > best_key:
            best, best_key = a, key
    return best


def make_montecarlo(playouts: int) -> Callable[[Any, random.Random], Action]:
    def montecarlo(state: Any, rng: random.Random) -> Action:
        me = state.turn
        acts = distinct_moves(state)
        best, best_wins = acts[0], -1.0
        for a in acts:
            wins = 0.0
            for _ in range(playouts):
                s = advance(state, a)
                n = 0
                while s.phase != "over" and n < 4000:
                    if s.phase == "roll":
                        s = advance(s, Action("roll", value=rng.randint(1, 6)))
                    else:
                        s = advance(s, _playout_policy(s, rng))
                    n += 1
                w = winners(s)
                if me in w:
                    wins += 1.0
            wins += rng.random() * 1e-3
            if wins > best_wins:
                best, best_wins = a, wins
        return best
    return montecarlo


OUTSIDE: dict[str, Callable[[Any, random.Random], Action]] = {
    "aggressive": aggressive,
    "defensive": defensive,
    "fast": fast,
    "expert": expert,
    "montecarlo": make_montecarlo(16),
}
"""Courtyard's and Classic's outside players."""

PLAYERS_BY_RULES: dict[str, dict[str, Callable[[Any, random.Random], Action]]] = {
    "courtyard": OUTSIDE,
    "classic": OUTSIDE,
    "gilgiti": outside_gilgiti.PLAYERS,
    "royal": outside_royal.PLAYERS,
}
COURTYARD_FAMILY = ("courtyard", "classic")


# ---------------------------------------------------------------- games and tournaments

def _note_exposure(state: Any, acts: list[Action], chosen: Action, stats: dict[str, Any],
                   risky: set[tuple[int, int]]) -> None:
    """Count a choice that leaves the moved token in an enemy's reach, and whether a move
    that leaves no token of ours newly in reach was available."""
    ci = COLOURS.index(state.turn)

    def exposed(a: Action) -> bool:
        after = advance(state, a)
        return threats(after, ci, after.tokens[ci][a.token]) > 0

    stats["choices"] += 1
    risky.discard((ci, chosen.token))
    if exposed(chosen):
        stats["exposed"] += 1
        if any(not exposed(a) for a in acts if a != chosen):
            stats["exposed_by_choice"] += 1
            risky.add((ci, chosen.token))


def play_game(rules: str, lineup: tuple[str, ...], game_seed: int, rotation: int,
              record: bool = False, teams: bool = False) -> dict[str, Any]:
    n = len(lineup)
    seats = rules_for(rules).seating(n)
    entry_of = {seat: (i + rotation) % n for i, seat in enumerate(seats)}
    state = new_game(rules, seats, game_seed, {"teams": True} if teams else None)
    players = PLAYERS_BY_RULES[rules]
    courtyard_family = rules in COURTYARD_FAMILY
    rngs = {seat: random.Random(game_seed * 8 + entry_of[seat]) for seat in seats}
    times: dict[str, list[float]] = {}
    actions: list[Action] = []
    count = 0
    # per entry: captures made, tokens lost, action index of the unlock (Courtyard), sixes used
    stats = [{"captures": 0, "lost": 0, "unlock_at": None, "lost_steps": 0, "choices": 0,
              "exposed": 0, "exposed_by_choice": 0, "punished": 0, "rolled_back": 0}
             for _ in lineup]
    # tokens left in reach of an enemy by a choice that had a move out of reach
    risky: set[tuple[int, int]] = set()
    while state.phase != "over" and count < MAX_ACTIONS:
        if state.phase == "roll":
            action = ROLL
        else:
            acts = distinct_moves(state)
            name = lineup[entry_of[state.turn]]
            if len(acts) == 1:
                action = acts[0]
            else:
                started = time.perf_counter()
                if name in OURS:
                    action = choose_action(state, name, game_seed * 8 + entry_of[state.turn])
                else:
                    action = players[name](state, rngs[state.turn])
                times.setdefault(name, []).append(time.perf_counter() - started)
                if courtyard_family:
                    _note_exposure(state, acts, action, stats[entry_of[state.turn]], risky)
        before = state
        state, events = apply(state, action)
        for e in events:
            if e["type"] in ("captured", "struck"):  # struck: a Gilgiti stack strike
                stats[entry_of[e["seat"]]]["captures"] += len(e["victims"])
                for colour, token in e["victims"]:
                    vi = COLOURS.index(colour)
                    if (vi, token) in risky:
                        stats[entry_of[colour]]["punished"] += 1
                    stats[entry_of[colour]]["lost"] += 1
                    if courtyard_family:
                        stats[entry_of[colour]]["lost_steps"] += progress(
                            vi, before.tokens[vi][token])
            elif e["type"] == "unlocked":
                stats[entry_of[e["seat"]]]["unlock_at"] = count
            elif e["type"] == "rolled_back" and e.get("notice"):  # Gilgiti: a stranded value
                stats[entry_of[e["seat"]]]["rolled_back"] += 1
        if record:
            actions.append(next((Action("roll", value=e["value"]) for e in events
                                 if e["type"] == "rolled"), action))
        count += 1
    won = [entry_of[s] for s in winners(state)]
    home = 72 if rules == "royal" else HOME  # Royal's home crown (docs/notation.md)
    for seat in seats:
        ci = COLOURS.index(seat)
        stats[entry_of[seat]]["home"] = sum(1 for p in state.tokens[ci] if p == home)
    out = {"winner": won[0] if won else None, "winners": won, "actions": count, "times": times,
           "seats": seats, "entry_of": entry_of, "stats": stats}
    if record:
        out["record"] = actions
    return out


def tournament(rules: str, lineup: tuple[str, ...], games: int, seed: int,
               teams: bool = False) -> dict[str, Any]:
    n = len(lineup)
    wins = [0] * n
    unfinished = 0
    total = 0
    times: dict[str, list[float]] = {}
    # entry 0's games split by its result: its stats and the best opponent's
    split: dict[str, dict[str, float]] = {}
    started = time.perf_counter()
    for i in range(games):
        r = play_game(rules, lineup, seed * 1_000_003 + i // n, i % n, teams=teams)
        total += r["actions"]
        if r["winner"] is None:
            unfinished += 1
        for w in r["winners"]:  # a team's win counts for both partners' entries
            wins[w] += 1
        for name, ts in r["times"].items():
            times.setdefault(name, []).extend(ts)
        if r["winner"] is not None:
            key = "entry0_won" if 0 in r["winners"] else "entry0_lost"
            agg = split.setdefault(key, {"games": 0})
            agg["games"] += 1
            me = r["stats"][0]
            if rules in COURTYARD_FAMILY:
                keys: tuple[str, ...] = ("captures", "lost", "lost_steps", "home", "choices",
                                         "exposed", "exposed_by_choice", "punished")
            else:
                keys = ("captures", "lost", "home") + (
                    ("rolled_back",) if rules == "gilgiti" else ())
            for k in keys:
                agg[k] = agg.get(k, 0) + me[k]
                agg["opp_" + k] = agg.get("opp_" + k, 0) + sum(
                    st[k] for st in r["stats"][1:]) / (n - 1)
            if rules == "courtyard":
                u = me["unlock_at"]
                agg["never_unlocked"] = agg.get("never_unlocked", 0) + (u is None)
                agg["unlock_at_sum"] = agg.get("unlock_at_sum", 0) + (u or 0)
                agg["unlocked"] = agg.get("unlocked", 0) + (u is not None)
    for agg in split.values():
        g = agg.pop("games")
        u = agg.pop("unlock_at_sum", None)
        k = agg.pop("unlocked", None)
        summary = {key: round(v / g, 2) for key, v in agg.items()}
        if u is not None and k:
            summary["mean_unlock_action"] = round(u / k, 1)
        summary["games"] = g
        agg.clear()
        agg.update(summary)
    elapsed = time.perf_counter() - started
    entries = []
    for i, name in enumerate(lineup):
        entries.append({"entry": i, "player": name, **win_figures(wins[i], games)})
    return {"rules": rules, "teams": teams, "lineup": list(lineup), "games": games, "seed": seed,
            "entries": entries, "unfinished": unfinished,
            "mean_actions": round(total / max(games, 1), 1),
            "entry0_by_result": split,
            "choice_ms": {k: round(1000 * sum(v) / len(v), 2) for k, v in times.items() if v},
            "seconds": round(elapsed, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", choices=tuple(PLAYERS_BY_RULES), default="classic")
    # the defaults (make bench runs every script without arguments): the head-to-head row
    parser.add_argument("--bots", default="hard,expert",
                        help="comma-separated line-up, 2-4 of: " + ", ".join(OURS + tuple(OUTSIDE))
                        + " (no montecarlo in Gilgiti and Royal; default: hard,expert)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--teams", action="store_true",
                        help="Gilgiti's team game (4 players: entries 0 and 2 against 1 and 3)")
    parser.add_argument("--playouts", type=int, default=16,
                        help="Monte Carlo playouts per candidate move")
    args = parser.parse_args(argv)
    lineup = tuple(args.bots.split(","))
    players = PLAYERS_BY_RULES[args.rules]
    for name in lineup:
        if name not in OURS and name not in players:
            parser.error(f"unknown player {name!r} for {args.rules}")
    if not 2 <= len(lineup) <= 4:
        parser.error("a line-up has 2 to 4 players")
    if args.teams and (args.rules != "gilgiti" or len(lineup) != 4):
        parser.error("--teams is Gilgiti's, for 4 players")
    OUTSIDE["montecarlo"] = make_montecarlo(args.playouts)
    print(json.dumps(tournament(args.rules, lineup, args.games, args.seed, args.teams)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
