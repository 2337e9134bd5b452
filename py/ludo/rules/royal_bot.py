"""How the computer players judge Royal Ludo positions (``RoyalRules.bot``).

The generic players (:mod:`ludo.bots.players`) search through the engine's
public functions, the die included (``chance_outcomes`` lists the crown and
feather faces); this module is the one place that looks inside Royal's
positions for them.

Values are in spaces of progress (one space is worth 1.0). A man's value is
its progress plus bonuses for being out of the balk, one crown from home, in
its home column and home; a man a double could land on next throw (back to
balk) loses that chance times his value; a man left waiting in another
colour's column loses a fixed amount; a rider gains a bonus (he travels on his
carrier's throws) less his risk of being carried past his own column or into
the carrier's before he can hop off. A player's value adds the "mobility" of
his men: the expected progress of his next throw, each face played by the man
that gains most (with no man out, only a crown does anything). An evaluation
is the player's value minus the mean of the opponents'.

Medium is greedy on this evaluation (``RoyalBot.move_score``); Hard searches
with it at the leaves. docs/bots.md has the tournaments that chose the weights.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..actions import Action
from ..geometry import COLOURS, ENTRANCE_SQUARES
from .base import Event
from .royal import (
    BALK,
    COLOUR_INDEX,
    DESTINATION,
    HOME,
    LANE_BASE,
    LANE_LENGTH,
    all_others_home,
    progress,
)

WIN = 10_000.0


class Weights(NamedTuple):
    """The knobs of the evaluation (in spaces)."""

    out: float  # a man out of the balk
    home: float  # a man on the home crown (on top of its progress)
    lane: float  # a man in its own home column (out of danger)
    ride: float  # a man riding on an opponent
    carry: float  # a man carrying an opponent
    stranded: float  # a man waiting in another colour's column (until the others are home)
    danger: float  # fraction of a man's value lost per unit chance of a double landing on it
    crown_home: float  # a man one crown from home (track past the last start, or its column)
    ride_risk: float  # a rider's loss if carried past its home column or into the carrier's
    # column, times the chance of that on the carrier's next throws (it may hop off first)
    mobility: float  # times the expected best progress of the next throw (men out use numbers,
    # feathers and crowns; with no man out only a crown does anything)
    opponents: float  # weight of the opponents' mean value
    extra_roll: float  # value of an extra throw where a search stops before it


HARD = Weights(out=30.0, home=25.0, lane=4.0, ride=10.0, carry=0.0, stranded=20.0, danger=1.0,
               crown_home=4.0, ride_risk=30.0, mobility=3.0, opponents=1.0, extra_roll=6.0)
ENTER_GAIN = 8.0
"""What starting a man counts as in the mobility term (spaces)."""


def _double_threats(state: Any) -> dict[int, float]:
    """Per board place: the chance that some double lands there on its carrier's next throw.

    Counts the faces (of six) with which each double's carrier could move it
    there; several doubles combine as independent chances.
    """
    hits: dict[int, float] = {}
    for _, _, cc, ct in state.riders:
        place = state.tokens[cc][ct]
        row = DESTINATION[cc][place]
        seen = set()
        for dest in row:
            if dest is not None and dest < LANE_BASE and dest not in seen:
                seen.add(dest)
                count = sum(1 for d in row if d == dest)
                hits[dest] = 1.0 - (1.0 - hits.get(dest, 0.0)) * (1.0 - count / 6.0)
    return hits


PROGRESS = tuple(tuple(progress(ci, p) for p in range(HOME + 1)) + (0,)
                 for ci in range(len(COLOURS)))
"""PROGRESS[colour][place]: spaces travelled (the balk, place -1, is the last entry)."""
GAINS = tuple(
    tuple(tuple(0 if d is None else PROGRESS[ci][d] - PROGRESS[ci][p] for d in DESTINATION[ci][p])
          for p in range(HOME + 1)) + ((0, 0, 0, 0, 0, ENTER_GAIN),)
    for ci in range(len(COLOURS))
)
"""GAINS[colour][place][face]: the progress each face gives a man there (starting counts
:data:`ENTER_GAIN`), for the mobility term."""
ONE_CROWN_HOME = tuple(tuple(DESTINATION[ci][p][5] == HOME for p in range(HOME + 1)) + (False,)
                       for ci in range(len(COLOURS)))
OWN_LANE = tuple(tuple(LANE_BASE + LANE_LENGTH * ci <= p < LANE_BASE + LANE_LENGTH * (ci + 1)
                       for p in range(HOME + 1)) + (False,) for ci in range(len(COLOURS)))


def _player_value(state: Any, ci: int, threats: dict[int, float], w: Weights) -> float:
    men = state.tokens[ci]
    if not men:
        return 0.0
    riding: set[int] = set()
    carrying: set[int] = set()
    for rc, rt, cc, ct in state.riders:
        if rc == ci:
            riding.add(rt)
        elif cc == ci:
            carrying.add(ct)
    released = all_others_home(ci, men)
    prog = PROGRESS[ci]
    gains = GAINS[ci]
    own_lane = OWN_LANE[ci]
    total = 0.0
    b0 = b1 = b2 = b3 = b4 = b5 = 0.0  # the best gain of each face (mobility)
    for t, p in enumerate(men):
        if p == HOME:
            total += w.out + 57.0 + w.home
            continue
        if p == BALK:
            if b5 < ENTER_GAIN:
                b5 = ENTER_GAIN
            continue
        value = w.out + prog[p]
        if p >= LANE_BASE:
            if own_lane[p]:
                value += w.lane + w.crown_home
            elif not released:
                total += value - w.stranded
                continue  # cannot move: no mobility
        else:
            if ONE_CROWN_HOME[ci][p]:
                value += w.crown_home
            if riders_here := (t in riding):
                value += w.ride - w.ride_risk * _ride_risk(state, ci, t, p)
            elif t in carrying:
                value -= w.carry
            if threats and not riders_here:
                hit = threats.get(p)
                if hit:
                    value -= hit * w.danger * value
        total += value
        g0, g1, g2, g3, g4, g5 = gains[p]
        if g0 > b0:
            b0 = g0
        if g1 > b1:
            b1 = g1
        if g2 > b2:
            b2 = g2
        if g3 > b3:
            b3 = g3
        if g4 > b4:
            b4 = g4
        if g5 > b5:
            b5 = g5
    return total + w.mobility * (b0 + b1 + b2 + b3 + b4 + b5) / 6.0


def _ride_risk(state: Any, ci: int, t: int, place: int) -> float:
    """How close a rider is to being carried past its own column or into its carrier's.

    1.0 when the carrier's next throw of 1..4 can do it, falling to 0 at 12
    spaces: the owner can still hop off on his own throws before then.
    """
    cc = next(r[2] for r in state.riders if r[0] == ci and r[1] == t)
    mine = ENTRANCE_SQUARES[ci]
    theirs = ENTRANCE_SQUARES[cc]
    # spaces until the carrier passes the rider's entrance, or turns into its own column
    distance = min((mine - place) % 52 + 1, (theirs - place) % 52 + 1)
    if distance <= 4:
        return 1.0
    return max(0.0, (12 - distance) / 8.0)


def evaluate(state: Any, colour: str, w: Weights = HARD) -> float:
    """How good ``state`` is for ``colour`` (higher is better)."""
    if state.phase == "over":
        return WIN if state.winner == colour else -WIN
    threats = _double_threats(state) if state.riders else {}
    me = COLOUR_INDEX[colour]
    mine = _player_value(state, me, threats, w)
    theirs = [_player_value(state, ci, threats, w) for ci in range(len(COLOURS))
              if ci != me and state.tokens[ci]]
    if not theirs or not w.opponents:
        return mine
    return mine - w.opponents * sum(theirs) / len(theirs)


class RoyalBot:
    """:class:`ludo.rules.base.BotFeatures` for Royal."""

    def __init__(self, weights: Weights = HARD) -> None:
        self.weights = weights
        self.extra_roll = weights.extra_roll

    def evaluate(self, state: Any, seat: str) -> float:
        return evaluate(state, seat, self.weights)

    def move_context(self, state: Any) -> None:
        return None

    def move_score(self, state: Any, action: Action, after: Any, events: list[Event],
                   context: Any) -> float:
        """Medium: greedy on the evaluation of the position the decision leads to."""
        value = evaluate(after, state.turn, self.weights)
        if after.phase == "roll" and after.turn == state.turn:
            value += self.extra_roll
        return value
