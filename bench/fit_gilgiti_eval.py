"""Fit Gilgiti Hard's evaluation from self-play (a development tool; needs numpy, so it lives
with the benchmarks; run bare, as `make bench` does, it fits 12 games as a demonstration).

    # positions: every turn start of whole games, with each side's features and the winner
    PYTHONPATH=py python bench/fit_gilgiti_eval.py generate --bots hard,medium,medium,medium \
        --games 1500 --seed 300 --out /tmp/gil-alone-hm.npz
    PYTHONPATH=py python bench/fit_gilgiti_eval.py generate --teams \
        --bots hard,medium,hard,medium --games 1500 --seed 400 --out /tmp/gil-teams-hm.npz
    # a conditional logit (softmax over the sides) of the winner on the features
    PYTHONPATH=py python bench/fit_gilgiti_eval.py fit /tmp/gil-alone-*.npz

``generate`` plays games as the tournament does (seats rotated per game) and records, at the
start of every turn, :func:`ludo.rules.gilgiti_bot.side_features` of every side and which
side won. ``fit`` fits P(side s wins) = exp(w . f_s) / sum over sides of exp(w . f_t) by
Newton's method with a little L2, holds out every fifth game, prints the held-out log-loss
of the fit next to that of today's hand-set evaluation (a softmax of ``side_values`` with
its best temperature), and prints the weights as the Python constant to paste into
gilgiti_bot.py. The runtime never imports numpy: the weights are committed as constants.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from ludo.actions import Action  # noqa: E402
from ludo.bots import choose_action  # noqa: E402
from ludo.engine import apply, rules_for  # noqa: E402
from ludo.geometry import COLOURS  # noqa: E402
from ludo.rules.gilgiti import SIDES, State  # noqa: E402
from ludo.rules.gilgiti_bot import FEATURES, side_features, side_values  # noqa: E402

ROLL = Action("roll")


def play(bots: tuple[str, ...], game_seed: int, rotation: int, teams: bool,
         every: int) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], int | None]:
    """One game: (features per recorded position, hand-set side values, the positions as
    16 token squares and the index of the seat to act, winning side)."""
    rules = rules_for("gilgiti")
    n = len(bots)
    seats = rules.seating(n)
    entry_of = {seat: (i + rotation) % n for i, seat in enumerate(seats)}
    state = rules.new_game(seats, game_seed, {"teams": True} if teams else None)
    sides = sorted({SIDES[teams][COLOURS.index(s)] for s in seats})
    feats, hand, raw = [], [], []
    turn_starts = 0
    while state.phase != "over":
        if state.phase == "roll":
            if not state.rolled:
                if turn_starts % every == 0:
                    f = side_features(state)
                    v = side_values(state)
                    feats.append(np.array([f[s] for s in sides], dtype=np.float64))
                    hand.append(np.array([v.get(s, 0.0) for s in sides], dtype=np.float64))
                    raw.append(np.array([p for t in state.tokens for p in t]
                                        + [COLOURS.index(state.turn)], dtype=np.int8))
                turn_starts += 1
            action = ROLL
        else:
            action = choose_action(state, bots[entry_of[state.turn]],
                                   game_seed * 8 + entry_of[state.turn])
        state, _ = apply(state, action)
    win_side = SIDES[teams][COLOURS.index(state.winners[0])] if state.winners else None
    return feats, hand, raw, (sides.index(win_side) if win_side is not None else None)


def generate(args: argparse.Namespace) -> None:
    bots = tuple(args.bots.split(","))
    xs, hs, rs, ys, gs = [], [], [], [], []
    started = time.perf_counter()
    for i in range(args.games):
        game_seed = args.seed * 1_000_003 + i // len(bots)
        feats, hand, raw, winner = play(bots, game_seed, i % len(bots), args.teams, args.every)
        if winner is None:
            continue
        xs += feats
        hs += hand
        rs += raw
        ys += [winner] * len(feats)
        gs += [args.seed * 100_000 + i] * len(feats)
        if (i + 1) % 50 == 0 or i + 1 == args.games:  # saved as it goes: stop it any time
            tmp = args.out + ".part.npz"  # replaced whole, so a reader never sees half a file
            np.savez_compressed(tmp, x=np.array(xs), hand=np.array(hs), raw=np.array(rs),
                                y=np.array(ys),
                                game=np.array(gs), teams=np.array(args.teams))
            os.replace(tmp, args.out)
            print(f"{i + 1} games, {len(xs)} positions, {time.perf_counter() - started:.0f} s"
                  f" (saved)", flush=True)


def _logloss(z: np.ndarray, y: np.ndarray) -> float:
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


def _newton(x: np.ndarray, y: np.ndarray, l2: float, iters: int = 30) -> np.ndarray:
    n, _, k = x.shape
    w = np.zeros(k)
    onehot = np.zeros(x.shape[:2])
    onehot[np.arange(n), y] = 1.0
    for _ in range(iters):
        z = x @ w
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        mean = (p[:, :, None] * x).sum(axis=1)  # expected features under the model
        grad = ((onehot - p)[:, :, None] * x).sum(axis=(0, 1)) - l2 * n * w
        # Hessian: sum over positions of the covariance of the features under p
        xc = x - mean[:, None, :]
        hess = -np.einsum("ns,nsk,nsl->kl", p, xc, xc) - l2 * n * np.eye(k)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def recompute(raw: np.ndarray, teams: bool) -> np.ndarray:
    """Today's :func:`side_features` of recorded positions (16 token squares + seat to act)."""
    rows = []
    for r in raw.tolist():
        tokens = tuple(tuple(r[4 * c:4 * c + 4]) for c in range(4))
        state = State(rules="gilgiti", seats=tuple(COLOURS), teams=teams, tokens=tokens,
                      turn=COLOURS[r[16]], phase="roll", rolled=(), unplayed=(), start=None,
                      resting=frozenset(), timeouts=(0, 0, 0, 0), quit=None, winners=(), rng=0)
        f = side_features(state)
        rows.append([f[s] for s in sorted(f)])
    return np.array(rows, dtype=np.float64)


def fit(args: argparse.Namespace) -> None:
    data = [np.load(p) for p in args.files]
    teams = {bool(d["teams"]) for d in data}
    if len(teams) != 1:
        raise SystemExit("fit alone and team games separately")
    if all("raw" in d for d in data):  # features as side_features computes them today
        x = np.concatenate([recompute(d["raw"], bool(d["teams"])) for d in data])
    else:
        x = np.concatenate([d["x"] for d in data])
    hand = np.concatenate([d["hand"] for d in data])
    y = np.concatenate([d["y"] for d in data])
    game = np.concatenate([d["game"] for d in data])
    cols = [FEATURES.index(f) for f in args.features.split(",")] if args.features \
        else list(range(len(FEATURES)))
    x = x[:, :, cols]
    held = game % 5 == 0
    print(f"{len(y)} positions from {len(set(game.tolist()))} games; "
          f"{held.sum()} held out; sides {x.shape[1]}")
    w = _newton(x[~held], y[~held], args.l2)
    uniform = float(np.log(x.shape[1]))
    print(f"held-out log-loss: uniform {uniform:.4f}, fitted {_logloss(x[held] @ w, y[held]):.4f}"
          f", train {_logloss(x[~held] @ w, y[~held]):.4f}")
    best = min((_logloss(hand[held] * t, y[held]), t) for t in np.geomspace(0.001, 0.2, 60))
    print(f"hand-set side_values, best temperature 1/{1 / best[1]:.1f}: {best[0]:.4f}")
    names = [FEATURES[c] for c in cols]
    print("weights = {" + ", ".join(f'"{n}": {v:.4f}' for n, v in zip(names, w, strict=True)) + "}")
    print("(" + ", ".join(f"{v:.4f}" for v in w) + ")")


def main() -> None:
    if len(sys.argv) == 1:  # `make bench` runs every script bare: a small demonstration
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            out = str(Path(folder) / "demo.npz")
            generate(argparse.Namespace(bots="hard,medium,medium,medium", games=12, seed=300,
                                        teams=False, every=2, out=out))
            fit(argparse.Namespace(files=[out], l2=1e-4, features=""))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="play games and record positions")
    g.add_argument("--bots", default="hard,medium,medium,medium")
    g.add_argument("--games", type=int, default=1000)
    g.add_argument("--seed", type=int, default=300)
    g.add_argument("--teams", action="store_true")
    g.add_argument("--every", type=int, default=1, help="record every n-th turn start")
    g.add_argument("--out", required=True)
    f = sub.add_parser("fit", help="fit the conditional logit and print the weights")
    f.add_argument("files", nargs="+")
    f.add_argument("--l2", type=float, default=1e-4)
    f.add_argument("--features", default="", help="comma-separated subset of FEATURES")
    args = parser.parse_args()
    generate(args) if args.command == "generate" else fit(args)


if __name__ == "__main__":
    main()
