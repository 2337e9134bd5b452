"""How the computer players judge Gilgiti positions.

The generic players (:mod:`ludo.bots.players`) search with the engine's public
functions; this module is the one place that looks inside Gilgiti positions
for them, through ``GILGITI.bot`` (:class:`GilgitiBot`).

Values are in "steps" (one square of progress is worth 1.0). An evaluation is
from one side's point of view -- a seat, or a team in team games, whose two
partners' tokens count alike, so a team plays for the team -- minus the mean
value of the enemy sides.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

from ..actions import Action
from ..geometry import COLOUR_INDEX, COLOURS, HOME, LANE_FIRST, START_SQUARES, TRACK_LENGTH, YARD
from .base import Event
from .gilgiti import (
    IS_STAR,
    SIDES,
    _completable,
    _move_pieces,
    _play_action,
    _plays,
    _remove_value,
    _side,
    mover_index,
    progress,
)

if TYPE_CHECKING:
    from .gilgiti import GilgitiRules, State

WIN = 10_000.0
"""Value of a won game (and minus this for a lost one)."""


def _hit_chances() -> dict[int, float]:
    """The chance that a turn's dice let one token reach a square ``d`` ahead.

    A turn rolls (x), (6, x) or (6, 6, x) with x in 1..5 (three 6s cancel it);
    one token can use any of the values, in order, so it reaches the sums of
    the values it uses: d = x, 6, 6 + x, 12, 12 + x.
    """
    chance: dict[int, float] = {}
    for sixes, p in ((0, 1 / 6), (1, 1 / 36), (2, 1 / 216)):
        for x in range(1, 6):
            reach = {x}
            for k in range(1, sixes + 1):
                reach |= {6 * k, 6 * k + x}
            for d in reach:
                chance[d] = chance.get(d, 0.0) + p
    return chance


HIT_CHANCE = _hit_chances()


def _threat_row(ci: int, position: int) -> tuple[tuple[int, float], ...]:
    """(square, chance) for each track square a token of ``ci`` at ``position`` may land on
    in its next turn (before it turns into its lane); a yard token enters with a 6 first."""
    if position == YARD:
        start = START_SQUARES[ci]
        return tuple(((start + x) % TRACK_LENGTH, 1 / 36) for x in range(1, 6))
    if position >= LANE_FIRST or position == HOME:
        return ()
    row = []
    for d, p in sorted(HIT_CHANCE.items()):
        if progress(ci, position) + d <= TRACK_LENGTH - 1:
            row.append(((position + d) % TRACK_LENGTH, p))
    return tuple(row)


THREAT_ROWS = tuple(tuple(_threat_row(ci, p) for p in range(YARD, HOME + 1))
                    for ci in range(len(COLOURS)))
"""THREAT_ROWS[colour][position + 1]: where that token may land next turn, and how likely."""

_PROGRESS = tuple(tuple(progress(ci, p) for p in range(YARD, HOME + 1))
                  for ci in range(len(COLOURS)))


class Weights(NamedTuple):
    """Hard's knobs (in steps)."""

    out: float  # a token on the board rather than in the yard
    home: float  # bonus for a token home (on top of its 57 steps)
    lane: float  # bonus for a token in its (safe) home lane
    safe: float  # bonus for a token on a star
    block: float  # bonus for a token in a block of its side off the stars (singles can't hit it)
    danger: float  # fraction of a lone token's value lost per unit of hit chance
    locked: float  # penalty per yard token while an enemy block holds its entry star
    opponents: float  # weight of the enemy sides' mean value
    extra_roll: float  # an extra roll, where a search stops before it (Gilgiti: within a turn)
    convex: float  # extra value of steps already travelled: convex x steps^2 / 57
    later: float = 1.0  # weight of a threat from an enemy who plays after the token's owner
    attack: float = 0.0  # value to a side of its threats on enemy lone tokens (hit x value)
    cover: float = 0.0  # share of a lone token's danger taken off when its side can hit back
    leader: float = 0.0  # share of the enemies' mean replaced by the strongest enemy's value
    temper: float = 0.0  # > 0: the value is the chance of winning, a softmax of the sides'
    # values at this temperature (in steps), scaled to -WIN..WIN; 0: the linear difference
    tempo: float = 0.0  # steps credited to the seat to play, less to each seat after it
    stuck: float = 0.0  # steps lost per unit of chance that a colour's next one-value roll
    # (1-5) has no legal play, so that its turn passes (all or nothing)
    obstruct: float = 0.0  # the same for the enemy colours only, from the judging side's view


HARD = Weights(out=14.0, home=8.0, lane=6.0, safe=4.0, block=4.0, danger=0.8, locked=4.0,
               opponents=1.0, extra_roll=6.0, convex=0.0, later=0.5)


def _add_misses(miss: dict[int, float], ci: int, toks: Any) -> None:
    """Multiply into ``miss`` (square -> chance that nothing lands there next turn) colour
    ``ci``'s chances of landing, one token per square it holds."""
    rows = THREAT_ROWS[ci]
    seen = set()
    for p in toks:
        if p in seen:
            continue
        seen.add(p)
        for square, chance in rows[p + 1]:
            miss[square] = miss.get(square, 1.0) * (1.0 - chance)


def _miss_maps(state: Any, teams: bool) -> dict[int, dict[int, float]]:
    """Per side: square -> the chance that none of its tokens lands there next turn."""
    sides = SIDES[teams]
    maps: dict[int, dict[int, float]] = {}
    for ci, toks in enumerate(state.tokens):
        if toks:
            _add_misses(maps.setdefault(sides[ci], {}), ci, toks)
    return maps


def _colour_misses(state: Any) -> dict[int, dict[int, float]]:
    """Per colour: square -> the chance that none of its tokens lands there next turn."""
    maps: dict[int, dict[int, float]] = {}
    for ci, toks in enumerate(state.tokens):
        if toks:
            _add_misses(maps.setdefault(ci, {}), ci, toks)
    return maps


def _ordered_threats(state: Any, w: Weights) -> list[list[tuple[dict[int, float], float]]]:
    """Per colour: (miss map, weight) of each enemy colour; an enemy who plays before the
    colour's next turn (from the seat to play) threatens fully, a later one ``w.later``."""
    sides = SIDES[state.teams]
    seats = state.seats
    n = len(seats)
    at = seats.index(state.turn)
    order = {COLOUR_INDEX[seats[(at + k) % n]]: k for k in range(n)}
    misses = _colour_misses(state)
    out: list[list[tuple[dict[int, float], float]]] = []
    for ci in range(len(COLOURS)):
        row = []
        mine = order.get(ci, 0)
        for e, miss in misses.items():
            if sides[e] != sides[ci]:
                row.append((miss, 1.0 if order.get(e, 0) < mine else w.later))
        out.append(row)
    return out


def _stuck_chance(ci: int, toks: Any, side: int, counts: dict[int, dict[int, int]]) -> float:
    """The chance that colour ``ci``'s next turn is a single value (1-5) that none of its
    tokens can play: each token reaches as far as its home (exactly) or the square before
    the first enemy block ahead of it; yard tokens play only a 6. A colour with every token
    home has no turn of its own to lose (in teams it plays its partner's tokens): 0."""
    if all(p == HOME for p in toks):
        return 0.0
    start = START_SQUARES[ci]
    prog = _PROGRESS[ci]
    reach = 0
    for p in toks:
        if p == YARD or p == HOME:
            continue
        s = prog[p + 1]
        room = min(5, 57 - s)
        if room <= reach:
            continue
        free = room
        for d in range(1, min(room, 51 - s) + 1):  # track squares ahead (the lane is private)
            at = counts.get((start + s + d - 1) % TRACK_LENGTH)
            if at and not at.get(side) and any(n >= 2 for n in at.values()):
                free = d - 1
                break
        reach = max(reach, free)
        if reach >= 5:
            return 0.0
    return (5 - reach) / 6


def side_values(state: Any, w: Weights = HARD) -> dict[int, float]:
    """Every side's value: its tokens' progress and safety (see :class:`Weights`)."""
    teams = state.teams
    sides = SIDES[teams]
    tokens = state.tokens
    ordered = _ordered_threats(state, w)
    # side counts per track square: blocks protect, and enemy blocks lock entry stars
    counts = _track_counts(tokens, sides)
    values: dict[int, float] = {}
    attack: dict[int, float] = {}
    colour_miss = _colour_misses(state) if w.attack else {}
    side_miss = _miss_maps(state, teams) if w.cover else {}
    for ci, toks in enumerate(tokens):
        if not toks:
            continue
        side = sides[ci]
        prog = _PROGRESS[ci]
        total = 0.0
        yard = 0
        for p in toks:
            if p == YARD:
                yard += 1
                continue
            if p == HOME:
                total += w.out + 57.0 + w.home + w.convex * 57.0
                continue
            steps = prog[p + 1]
            value = w.out + steps + w.convex * steps * steps / 57.0
            if p >= LANE_FIRST:
                total += value + w.lane
                continue
            if IS_STAR[p]:
                total += value + w.safe
                continue
            if counts[p][side] >= 2:
                total += value + w.block
                continue
            survive = 1.0
            for miss, weight in ordered[ci]:  # later = 1: every enemy colour's miss chance
                survive *= 1.0 - weight * (1.0 - miss.get(p, 1.0))
            loss = (1.0 - survive) * value * w.danger
            if w.cover and loss:
                # a token of its side (or the partner's) within reach behind it can take
                # back the capturer on the same square
                loss *= 1.0 - w.cover * (1.0 - side_miss.get(side, {}).get(p, 1.0))
            total += value - loss
            if w.attack and survive < 1.0:
                for e, miss in colour_miss.items():
                    if sides[e] != side:
                        hit = 1.0 - miss.get(p, 1.0)
                        if hit:
                            attack[sides[e]] = attack.get(sides[e], 0.0) + hit * value
        if yard:
            gate = counts.get(START_SQUARES[ci])
            if gate is not None and not gate.get(side) and any(
                    n >= 2 for s, n in gate.items() if s != side):
                total -= w.locked * yard
        if w.stuck:
            total -= w.stuck * _stuck_chance(ci, toks, side, counts)
        values[side] = values.get(side, 0.0) + total
    for side, threat in attack.items():
        values[side] = values.get(side, 0.0) + w.attack * threat
    return values


def evaluate(state: Any, seat: str, w: Weights = HARD) -> float:
    """How good ``state`` is for ``seat``'s side (higher is better)."""
    if state.phase == "over":
        return WIN if seat in state.winners else -WIN
    values = side_values(state, w)
    sides = SIDES[state.teams]
    me = sides[COLOUR_INDEX[seat]]
    if w.obstruct:
        counts = _track_counts(state.tokens, sides)
        for ci, toks in enumerate(state.tokens):
            if toks and sides[ci] != me and sides[ci] in values:
                values[sides[ci]] -= w.obstruct * _stuck_chance(ci, toks, sides[ci], counts)
    if w.tempo:
        # a seat about to play is ahead by (part of) a turn's worth of steps
        seats = state.seats
        n = len(seats)
        at = seats.index(state.turn)
        for k in range(n):
            side = sides[COLOUR_INDEX[seats[(at + k) % n]]]
            if side in values:
                values[side] += w.tempo * (n - 1 - k) / (n - 1)
    mine = values.get(me, 0.0)
    theirs = [v for s, v in values.items() if s != me]
    if not theirs:
        return mine
    if w.temper:
        top = max(values.values())
        exps = {s: math.exp((v - top) / w.temper) for s, v in values.items()}
        return WIN * (2.0 * exps[me] / sum(exps.values()) - 1.0)
    enemies = sum(theirs) / len(theirs)
    if w.leader:
        enemies += w.leader * (max(theirs) - enemies)
    return mine - w.opponents * enemies


# -- Medium's play-by-play scoring --------------------------------------------------------


class MoveWeights(NamedTuple):
    """Medium's knobs: each judges one feature of the play itself (in steps)."""

    enter: float  # a token out of the yard (each, when forcing the gate)
    capture: float  # per token sent back, plus the progress it loses
    safe: float  # ending on a star, in the home lane, or in a block of its side
    home: float  # a token home
    leave_block: float  # leaving a partner token alone off the stars
    danger: float  # times (hit chance x token value) at the destination
    escape: float  # times (hit chance x token value) left behind at the origin
    rollback: float  # a play after which the turn is rolled back
    attack: float = 0.0  # times the moved token's (hit chance x value) on enemy lone tokens
    stuck: float = 0.0  # times the change of the enemies' chance that their next single
    # roll has no legal play, less that of its own colour (see Weights.stuck)


MOVE_WEIGHTS = MoveWeights(enter=20.0, capture=20.0, safe=8.0, home=10.0, leave_block=4.0,
                           danger=1.5, escape=1.0, rollback=100.0)


def move_score(state: Any, action: Action, after: Any, events: list[Event],
               context: dict[int, dict[int, float]] | None = None,
               w: MoveWeights = MOVE_WEIGHTS) -> float:
    """Medium's score of one play from ``state`` (``events`` are what it did)."""
    me = state.turn
    if after.phase == "over":
        return WIN if me in after.winners else -WIN
    if context is None:
        context = _miss_maps(state, state.teams)
    teams = state.teams
    sides = SIDES[teams]
    side = sides[COLOUR_INDEX[me]]
    score = 0.0
    first = events[0]
    kind = first["type"]
    for e in events:
        if e["type"] == "rolled_back":
            return score - w.rollback
    if kind == "forced":
        return 2 * w.enter
    if kind == "struck":
        for colour, token in first["victims"]:
            vi = COLOUR_INDEX[colour]
            score += w.capture + _PROGRESS[vi][state.tokens[vi][token] + 1]
        return score + first["value"] + w.safe
    ci = COLOUR_INDEX[first["colour"]]
    origin = first.get("from", YARD)
    dest = first["to"]
    prog = _PROGRESS[ci]
    if kind == "entered":
        score += w.enter
    else:
        score += first["value"]
    for e in events:
        if e["type"] == "captured":
            for colour, token in e["victims"]:
                vi = COLOUR_INDEX[colour]
                score += w.capture + _PROGRESS[vi][state.tokens[vi][token] + 1]
    if w.stuck:
        score += w.stuck * _stuck_shift(state.tokens, after.tokens, sides, side)
    if dest == HOME:
        return score + w.home
    if w.attack and dest < LANE_FIRST:
        score += w.attack * _threat_on(after, ci, dest, sides, side)
    here = _side_count(after.tokens, sides, side, dest) if dest < TRACK_LENGTH else 0
    if dest >= LANE_FIRST or IS_STAR[dest] or here >= 2:
        if origin == YARD or origin < LANE_FIRST:
            score += w.safe
    else:
        survive = 1.0
        for other, miss in context.items():
            if other != side:
                survive *= miss.get(dest, 1.0)
        score -= w.danger * (1.0 - survive) * (14.0 + prog[dest + 1])
    if 0 <= origin < TRACK_LENGTH and not IS_STAR[origin]:
        left = _side_count(after.tokens, sides, side, origin)
        if left == 1:
            score -= w.leave_block
        if _side_count(state.tokens, sides, side, origin) == 1:
            survive = 1.0
            for other, miss in context.items():
                if other != side:
                    survive *= miss.get(origin, 1.0)
            score += w.escape * (1.0 - survive) * (14.0 + prog[origin + 1])
    return score


def _track_counts(tokens: Any, sides: tuple[int, ...]) -> dict[int, dict[int, int]]:
    """Tokens per side on each track square that holds any (blocks, and who holds a star)."""
    counts: dict[int, dict[int, int]] = {}
    for ci, toks in enumerate(tokens):
        for p in toks:
            if 0 <= p < TRACK_LENGTH:
                at = counts.setdefault(p, {})
                at[sides[ci]] = at.get(sides[ci], 0) + 1
    return counts


def _stuck_shift(before: Any, after: Any, sides: tuple[int, ...], side: int) -> float:
    """How much a play raised the enemy colours' stuck chances (:func:`_stuck_chance`),
    less how much it raised those of its own side's colours."""
    was, now = _track_counts(before, sides), _track_counts(after, sides)
    shift = 0.0
    for ci, toks in enumerate(after):
        if not toks:
            continue
        delta = (_stuck_chance(ci, toks, sides[ci], now)
                 - _stuck_chance(ci, before[ci], sides[ci], was))
        shift += -delta if sides[ci] == side else delta
    return shift


def _threat_on(state: Any, ci: int, square: int, sides: tuple[int, ...], side: int) -> float:
    """Expected value of the enemy lone tokens off the stars that colour ``ci``'s token on
    ``square`` may land on next turn (hit chance x (14 + the victim's steps))."""
    lone: dict[int, tuple[int, int]] = {}
    crowd: set[int] = set()
    for vi, toks in enumerate(state.tokens):
        for p in toks:
            if 0 <= p < TRACK_LENGTH and not IS_STAR[p]:
                if p in lone or p in crowd:
                    crowd.add(p)
                    lone.pop(p, None)
                else:
                    lone[p] = (vi, p)
    total = 0.0
    for target, chance in THREAT_ROWS[ci][square + 1]:
        hit = lone.get(target)
        if hit is not None and sides[hit[0]] != side:
            total += chance * (14.0 + _PROGRESS[hit[0]][hit[1] + 1])
    return total


def _side_count(tokens: tuple[tuple[int, ...], ...], sides: tuple[int, ...], side: int,
                square: int) -> int:
    n = 0
    for ci, toks in enumerate(tokens):
        if sides[ci] == side:
            for p in toks:
                if p == square:
                    n += 1
    return n


# -- Hard's fitted evaluation ---------------------------------------------------------------


class Fitted(NamedTuple):
    """Weights of :data:`FEATURES` in a conditional logit of who wins: side s wins with
    chance exp(w . f_s) / sum over the sides t of exp(w . f_t). Fitted by
    bench/fit_gilgiti_eval.py on self-play positions (see docs/bots.md).

    It predicts the winner better than the hand-set evaluation (held-out log-loss) but
    Hard played worse with it, so the game does not use it (``GilgitiBot.fitted`` is None);
    it is kept for the tools that reproduce that finding."""

    alone: tuple[float, ...]
    teams: tuple[float, ...]


FITTED = Fitted(
    alone=(0.1594, -0.0442, -0.0405, -0.0609, 0.0315, -0.0522, -0.1824, -0.0856, 0.0441, -0.0537,
           0.0358, 0.0473, -0.0697, -0.0374, -2.2701, -0.1471, 0.2525),
    teams=(0.3450, -0.0919, 0.1518, 0.1360, 0.5858, 0.2295, -0.0953, -0.0704, 0.0244, 0.0953,
           -0.0796, 0.0796, -0.4209, -0.1013, -3.4773, -0.3483, 0.1007),
)


def win_chances(state: Any, fitted: Fitted = FITTED) -> dict[int, float]:
    """Each side's fitted chance of winning from ``state`` (a game not over)."""
    w = fitted.teams if state.teams else fitted.alone
    scores = {side: sum(wi * fi for wi, fi in zip(w, f, strict=True))
              for side, f in side_features(state).items()}
    top = max(scores.values())
    exps = {side: math.exp(z - top) for side, z in scores.items()}
    total = sum(exps.values())
    return {side: e / total for side, e in exps.items()}


def fitted_evaluate(state: Any, seat: str, fitted: Fitted = FITTED) -> float:
    """``seat``'s side's fitted chance of winning, scaled to -WIN (lost) .. WIN (won), so
    that Hard's expectimax maximises its expected chance of winning."""
    if state.phase == "over":
        return WIN if seat in state.winners else -WIN
    me = SIDES[state.teams][COLOUR_INDEX[seat]]
    return WIN * (2.0 * win_chances(state, fitted).get(me, 0.0) - 1.0)


class GilgitiBot:
    """:class:`ludo.rules.base.BotFeatures` for Gilgiti."""

    reply_rolls = 2
    """Hard's opponent reply averages a second roll after a 6 (the generic players read it)."""
    reply_seats = 1
    """How many seats after Hard's turn play their turn (Medium's policy) before the
    evaluation (the generic players read it)."""

    def __init__(self, rules: GilgitiRules, weights: Weights = HARD,
                 fitted: Fitted | None = None) -> None:
        self.rules = rules
        self.weights = weights
        self.fitted = fitted
        """Hard's leaf evaluation: with None (the game's) the hand-set :func:`evaluate` of
        ``weights``; else the fitted chance of winning (:func:`fitted_evaluate`), which
        tools/gilgiti_tournament.py tries and which played worse (docs/bots.md)."""
        self.extra_roll = weights.extra_roll
        self.move_weights = MOVE_WEIGHTS

    def evaluate(self, state: Any, seat: str) -> float:
        if self.fitted is None:
            return evaluate(state, seat, self.weights)
        return fitted_evaluate(state, seat, self.fitted)

    def move_context(self, state: Any) -> dict[int, dict[int, float]]:
        return _miss_maps(state, state.teams)

    def move_score(self, state: Any, action: Action, after: Any, events: list[Event],
                   context: Any) -> float:
        return move_score(state, action, after, events, context, self.move_weights)

    def candidates(self, state: State) -> list[Action]:
        """The distinct plays after which every value left can still be played; every
        distinct play when none is (then the turn goes back whatever is played)."""
        if state.phase != "move":
            return []
        teams, side, m = state.teams, _side(state), mover_index(state)
        tokens, unplayed = state.tokens, state.unplayed
        seen_keys: set[tuple[int, int, int]] = set()
        everything: list[Action] = []
        keep: list[Action] = []
        memo: dict[Any, bool] = {}
        for play in _plays(tokens, teams, side, m, unplayed):
            key = (play.origin, play.value, len(play.pieces)) if play.kind != "force" \
                else (-2, 6, 2)
            if key in seen_keys:
                continue
            seen_keys.add(key)
            action = _play_action(play)
            everything.append(action)
            rest = _remove_value(unplayed, play.value, 2 if play.kind == "force" else 1)
            if _completable(_move_pieces(tokens, play), teams, side, m, rest, memo):
                keep.append(action)
        return keep or everything


__all__ = ["FITTED", "Fitted", "GilgitiBot", "HARD", "MOVE_WEIGHTS", "WIN", "Weights", "evaluate",
           "fitted_evaluate", "move_score", "side_features"]


# -- features of a side, for the fitted evaluation ------------------------------------------

FEATURES = ("out", "progress", "home", "lane", "star", "block", "exposed", "locked",
            "progress2", "attack", "to_act", "acts_next", "laggard", "star_block", "to_go_log",
            "obstructed", "home2")
"""What :func:`side_features` measures of each side (sums over the side's tokens).

out: tokens on the board; progress: their steps travelled / 10; home, lane, star: tokens home,
in the home lane, on a star; block: tokens in a block of their side off the stars; exposed: the
expected loss of lone tokens off the stars, sum of (hit chance x (14 + steps)) / 10; locked:
tokens in the yard while an enemy block closes their entry star; progress2: sum of steps squared
/ 570; attack: the expected loss of the enemies' lone tokens to this side's next turn, as
exposed; to_act: the side holds the turn; acts_next: the side plays next after it;
laggard: the steps of the side's least advanced token / 10 (yard 0, home 5.7); star_block:
tokens in a block of their side on a star (closing it); to_go_log: log(1 + the steps the side
still has to go / 10, a yard token counting 63); obstructed: tokens on the track with an enemy
block 1 to 6 squares ahead; home2: tokens home, squared, / 4.
"""


def side_features(state: Any) -> dict[int, list[float]]:
    """Each side's :data:`FEATURES` in ``state``."""
    teams = state.teams
    sides = SIDES[teams]
    tokens = state.tokens
    misses = _miss_maps(state, teams)
    counts = _track_counts(tokens, sides)
    out: dict[int, list[float]] = {}
    seats = state.seats
    turn = state.turn
    after_turn = seats[(seats.index(turn) + 1) % len(seats)]
    to_go: dict[int, float] = {}
    lag: dict[int, float] = {}
    for ci, toks in enumerate(tokens):
        if not toks:
            continue
        side = sides[ci]
        f = out.get(side)
        if f is None:
            f = out[side] = [0.0] * len(FEATURES)
        prog = _PROGRESS[ci]
        yard = 0
        for p in toks:
            if p == YARD:
                yard += 1
                to_go[side] = to_go.get(side, 0.0) + 63
                lag[side] = 0
                continue
            if p == HOME:
                f[2] += 1
                if lag.get(side, 99) > 57:
                    lag[side] = 57
                continue
            steps = prog[p + 1]
            f[0] += 1
            f[1] += steps / 10
            f[8] += steps * steps / 570
            to_go[side] = to_go.get(side, 0.0) + 57 - steps
            if steps < lag.get(side, 99):
                lag[side] = steps
            if p >= LANE_FIRST:
                f[3] += 1
                continue
            for d in range(1, 7):
                ahead = counts.get((p + d) % TRACK_LENGTH)
                if ahead and any(n >= 2 for s, n in ahead.items() if s != side):
                    f[15] += 1
                    break
            if IS_STAR[p]:
                f[4] += 1
                if counts[p][side] >= 2:
                    f[13] += 1
            elif counts[p][side] >= 2:
                f[5] += 1
            else:
                loss = (14.0 + steps) / 10
                for other, miss in misses.items():
                    hit = 1.0 - miss.get(p, 1.0)
                    if other == side or not hit:
                        continue
                    f[6] += hit * loss
                    a = out.get(other)
                    if a is None:
                        a = out[other] = [0.0] * len(FEATURES)
                    a[9] += hit * loss
        if yard:
            gate = counts.get(START_SQUARES[ci])
            if gate is not None and not gate.get(side) and any(
                    n >= 2 for s, n in gate.items() if s != side):
                f[7] += yard
        if COLOURS[ci] == turn:
            f[10] += 1
        if COLOURS[ci] == after_turn:
            f[11] += 1
    for side, f in out.items():
        f[12] = lag.get(side, 57) / 10
        f[14] = math.log(1.0 + to_go.get(side, 0.0) / 10)
        f[16] = f[2] * f[2] / 4
    return out
