"""Gilgiti Ludo (seed 003): roll first, then play every value; all or nothing.

A turn has two parts. First the seat rolls: a 6 means roll again, and the
third 6 in a row cancels the whole turn. Then it plays every rolled value, in
any order, one value per move (or two 6s at once to force a blocked gate).
If at any point none of the values still to play can be played, the whole
turn is rolled back to where it began and play passes -- a finish made
earlier in the turn included, because a turn only counts once every value
was played.

Blocks: two or more tokens of one side (a colour, or a team in team games)
on a track square. An enemy block can be neither passed nor landed on; on a
star, a side with a token of its own there ignores the enemies' blocks. A
single token landing on a lone enemy token off the stars sends it to its
yard; a stack (all of one side's tokens on a square) moves only to land, as
one unit with one value, on an enemy block of exactly its size and colour
pattern, which goes back to its yards.

See docs/rules/gilgiti.md for every sentence of the seed with the reading
chosen and the tests that pin it; docs/notation.md for the position notation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, TypeGuard

from .. import rng
from ..actions import Action, refuse_nulls
from ..errors import IllegalAction, NotationError, quote, wrong_type
from ..geometry import (
    COLOUR_INDEX,
    COLOURS,
    ENTRANCE_SQUARES,
    HOME,
    LANE_FIRST,
    SAFE_SQUARES,
    START_SQUARES,
    TRACK_LENGTH,
    YARD,
)
from . import cross, gilgiti_scene
from .base import (
    MAX_COUNT,
    POSITION_FORMAT,
    Board,
    BotFeatures,
    Choice,
    Event,
    Help,
    Leave,
    Names,
    Option,
    Wording,
)
from .base import Scene as SceneView
from .courtyard import (
    SEATS_BY_PLAYERS,
    format_square,
    normalise_seats,
    parse_square,
    rolled_event,
)

POSITION_VERSION = 1
"""Gilgiti's own position version (the envelope's format is shared by every rule set)."""

TOKENS_PER_SEAT = 4
PIECES = TOKENS_PER_SEAT * len(COLOURS)  # piece numbers 0..15: 4 x colour index + token
SIXES_LIMIT = 3  # the third 6 in a row cancels the turn
PARTNER = (2, 3, 0, 1)  # red+yellow, green+blue: partners sit opposite
TEAMS: tuple[tuple[str, str], ...] = (("red", "yellow"), ("green", "blue"))
SIDES = ((0, 1, 2, 3), (0, 1, 0, 1))
"""SIDES[teams][colour index]: who a colour plays for (itself, or its team)."""
PAST_ENTRANCE = tuple((e + 1) % TRACK_LENGTH for e in ENTRANCE_SQUARES)
"""The track square just past each colour's lane entrance: lanes are always open, so a
token of that colour never stands there (it is the square before its entry star)."""
IS_STAR = tuple(square in SAFE_SQUARES for square in range(TRACK_LENGTH))
"""The 8 stars: the 4 entry stars (start squares) and the 4 others. No capture on any."""
TEAM_COLOURS = ((0, 2), (1, 3))  # the colour indices of team 0 (red, yellow) and team 1
OTHER_COLOURS = tuple(tuple(o for o in range(4) if o != ci) for ci in range(4))
# Gilgiti is a team game ("Partners sit opposite each other"): with four players the setup
# form starts with Teams ticked (a player may untick it). The engine and the command line
# play each for themselves unless their options say teams.
TEAMS_OPTION = Option("teams", "Teams: Red + Yellow vs Green + Blue", True, (4,))
ROLL_OUTCOMES = tuple((Action("roll", value=v), 1 / 6) for v in range(1, 7))

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_new_state = tuple.__new__
_roll_die = rng.roll_die
ROLL = Action("roll")
MOVES = tuple(tuple(Action("move", token=piece, value=v) if v else None for v in range(7))
              for piece in range(PIECES))
"""MOVES[piece][value]: shared single-token move actions (actions are immutable)."""


def _walk(ci: int, position: int, steps: int) -> tuple[int, tuple[int, ...]] | None:
    """Where a token of colour ``ci`` at ``position`` ends after ``steps``, and the
    track squares it passes on the way (not counting where it ends); None if illegal."""
    if position == YARD:
        return (START_SQUARES[ci], ()) if steps == 6 else None
    entrance = ENTRANCE_SQUARES[ci]
    p = position
    passed: list[int] = []
    for step in range(steps):
        if p == HOME:
            return None  # an exact roll is needed to finish
        if p >= LANE_FIRST:
            p += 1
        elif p == entrance:
            p = LANE_FIRST  # lanes are open from the start
        else:
            p = (p + 1) % TRACK_LENGTH
        if step < steps - 1 and p < TRACK_LENGTH:
            passed.append(p)
    return p, tuple(passed)


WALK: tuple[tuple[tuple[tuple[int, tuple[int, ...]] | None, ...], ...], ...] = tuple(
    tuple(tuple(_walk(ci, pos, v) if v else None for v in range(7))
          for pos in range(YARD, HOME + 1))
    for ci in range(len(COLOURS))
)
"""WALK[colour][position + 1][value]: (destination, track squares passed), precomputed."""


def progress(ci: int, position: int) -> int:
    """Steps travelled from the yard: 0 in the yard, 1 on the entry star, 57 home."""
    if position == YARD:
        return 0
    if position >= LANE_FIRST:
        return position - LANE_FIRST + 52
    return (position - START_SQUARES[ci]) % TRACK_LENGTH + 1


class State(NamedTuple):
    """A Gilgiti position: plain, immutable, hashable data.

    ``tokens``, ``timeouts`` have one entry per colour of
    :data:`ludo.geometry.COLOURS`, seated or not (an unseated colour has no
    tokens). ``start`` is the tokens when the turn began -- the rollback point
    -- in the ``move`` phase, and None otherwise (then ``tokens`` are the start).
    """

    rules: str
    seats: tuple[str, ...]
    teams: bool
    tokens: tuple[tuple[int, ...], ...]
    turn: str
    phase: str  # "roll", "move" or "over"
    rolled: tuple[int, ...]  # every value rolled this turn, in order
    unplayed: tuple[int, ...]  # the values still to play, ascending (move phase)
    start: tuple[tuple[int, ...], ...] | None
    resting: frozenset[str]  # finished team players who sit out their next turn
    timeouts: tuple[int, ...]
    quit: str | None  # the seat whose leaving ended the match
    winners: tuple[str, ...]
    rng: int


# -- the board as one side sees it -------------------------------------------------------


def occupancy(tokens: tuple[tuple[int, ...], ...]) -> dict[int, list[int]]:
    """Track square -> tokens there per colour (``[red, green, yellow, blue]``)."""
    occ: dict[int, list[int]] = {}
    for ci, toks in enumerate(tokens):
        for p in toks:
            if 0 <= p < TRACK_LENGTH:
                counts = occ.get(p)
                if counts is None:
                    occ[p] = counts = [0, 0, 0, 0]
                counts[ci] += 1
    return occ


def closed_squares(occ: dict[int, list[int]], teams: bool, side: int) -> set[int]:
    """The track squares ``side`` can neither pass nor land on: an enemy block stands
    there, and (on a star) ``side`` has no token of its own there."""
    closed = set()
    if teams:
        a, b = TEAM_COLOURS[side]
        x, y = TEAM_COLOURS[1 - side]
        for square, counts in occ.items():
            if counts[x] + counts[y] >= 2 and not (
                    IS_STAR[square] and (counts[a] or counts[b])):
                closed.add(square)
        return closed
    others = OTHER_COLOURS[side]
    for square, counts in occ.items():
        if IS_STAR[square] and counts[side]:
            continue  # your own token on a star: the enemies there never block you
        for ci in others:
            if counts[ci] >= 2:
                closed.add(square)
                break
    return closed


def pattern(counts: list[int], colours: tuple[int, ...]) -> tuple[int, ...]:
    """A block's colour pattern: its per-colour counts, largest first ((2,), (2, 1), ...)."""
    return tuple(sorted((counts[ci] for ci in colours if counts[ci]), reverse=True))


def forceable(counts: list[int], teams: bool, side: int) -> bool:
    """Whether the enemy block on a closed entry star may be forced: it is one block of
    exactly 2 tokens of one colour (a mixed partner block never is; nor are two pairs of
    two colours, which are not "the block" of exactly 2 tokens; a lone token of another
    colour beside the pair blocks nobody, so it does not prevent it)."""
    sides = SIDES[teams]
    if teams:
        enemy = [counts[ci] for ci in range(4) if sides[ci] != side]
        return sorted(enemy) == [0, 2]
    return [counts[ci] for ci in range(4) if ci != side and counts[ci] >= 2] == [2]


def mover_index(state: State) -> int:
    """The colour whose tokens the seat to act moves: its own, or -- in a team game,
    once all its own tokens were home when the turn began -- its partner's."""
    ci = COLOUR_INDEX[state.turn]
    if state.teams:
        start = state.start if state.start is not None else state.tokens
        if all(p == HOME for p in start[ci]):
            return PARTNER[ci]
    return ci


def _side(state: State) -> int:
    ci = COLOUR_INDEX[state.turn]
    return SIDES[state.teams][ci]


class Play(NamedTuple):
    """One legal play, decoded: what moves where, and what it strikes."""

    kind: str  # "move", "enter", "strike" or "force"
    pieces: tuple[int, ...]  # piece numbers (4 x colour index + token)
    origin: int
    dest: int
    value: int  # the value played (6 for a force, which spends two)
    victims: tuple[int, ...]  # piece numbers sent back to their yards


_PLAYS_CACHE: dict[tuple[Any, ...], list[Play]] = {}
_PLAYS_CACHE_SIZE = 2048


def _plays(tokens: tuple[tuple[int, ...], ...], teams: bool, side: int, m: int,
           unplayed: tuple[int, ...]) -> list[Play]:
    """Every legal play of colour ``m`` (playing for ``side``) with the values left.

    Remembered for the last few thousand positions: listing the plays, checking an
    action against them and asking whether the turn is stuck all need the same list,
    and a bot's search asks for it again and again. (Plays are immutable.)
    """
    key = (tokens, teams, side, m, unplayed)
    found = _PLAYS_CACHE.get(key)
    if found is None:
        if len(_PLAYS_CACHE) >= _PLAYS_CACHE_SIZE:
            _PLAYS_CACHE.clear()
        found = _PLAYS_CACHE[key] = _list_plays(tokens, teams, side, m, unplayed)
    return found


def _list_plays(tokens: tuple[tuple[int, ...], ...], teams: bool, side: int, m: int,
                unplayed: tuple[int, ...]) -> list[Play]:
    occ = occupancy(tokens)
    closed = closed_squares(occ, teams, side)
    found: list[Play] = []
    walk = WALK[m]
    mine = tokens[m]
    sides = SIDES[teams]
    values = sorted(set(unplayed))
    base = 4 * m
    for v in values:
        for t, p in enumerate(mine):
            w = walk[p + 1][v]
            if w is None:
                continue
            dest, passed = w
            if dest in closed:
                continue
            if passed and not closed.isdisjoint(passed):
                continue
            victims: tuple[int, ...] = ()
            if dest < TRACK_LENGTH and not IS_STAR[dest]:
                counts = occ.get(dest)
                if counts is not None:
                    for ci in range(4):
                        if counts[ci] and sides[ci] != side:
                            # a lone enemy token (a block would be closed)
                            victims = (4 * ci + tokens[ci].index(dest),)
                            break
            found.append(Play("enter" if p == YARD else "move", (base + t,), p, dest, v,
                              victims))
    # stacks: all of this side's tokens on a track square, with one of the mover's among them
    colours = tuple(ci for ci in range(4) if sides[ci] == side and tokens[ci])
    for square, counts in occ.items():
        if not counts[m]:
            continue
        size = 0
        for ci in colours:
            size += counts[ci]
        if size < 2:
            continue
        shape = pattern(counts, colours)
        for v in values:
            dest = -1
            passed = ()
            for ci in colours:
                if counts[ci]:
                    w = WALK[ci][square + 1][v]
                    if w is None or (dest != -1 and w[0] != dest):
                        dest = -2
                        break
                    dest, passed = w
            if dest < 0 or dest >= TRACK_LENGTH or IS_STAR[dest]:
                continue  # the stack would split, or its target is a lane or a star
            target = occ.get(dest)
            if target is None or sum(target) != size:
                continue
            enemy = tuple(ci for ci in range(4) if sides[ci] != side)
            if pattern(target, enemy) != shape:
                continue
            if passed and not closed.isdisjoint(passed):
                continue
            pieces = tuple(4 * ci + t for ci in colours for t, p in enumerate(tokens[ci])
                           if p == square)
            victims = tuple(4 * ci + t for ci in enemy for t, p in enumerate(tokens[ci])
                            if p == dest)
            found.append(Play("strike", pieces, square, dest, v, victims))
    # forcing the gate: two 6s spent together push two yard tokens onto a closed entry star
    if unplayed.count(6) >= 2:
        gate = START_SQUARES[m]
        yard = [t for t, p in enumerate(mine) if p == YARD]
        if gate in closed and len(yard) >= 2 and forceable(occ[gate], teams, side):
            for i, a in enumerate(yard):
                for b in yard[i + 1:]:
                    found.append(Play("force", (base + a, base + b), YARD, gate, 6, ()))
    return found


def _play_action(play: Play) -> Action:
    if play.kind == "force":
        return Action("force", tokens=play.pieces)
    if play.kind == "strike":
        return Action("move", value=play.value, tokens=play.pieces)
    move = MOVES[play.pieces[0]][play.value]
    assert move is not None  # every single play listed has its action
    return move


def _remove_value(unplayed: tuple[int, ...], value: int, count: int = 1) -> tuple[int, ...]:
    out = list(unplayed)
    for _ in range(count):
        out.remove(value)
    return tuple(out)


def _move_pieces(tokens: tuple[tuple[int, ...], ...], play: Play) -> tuple[tuple[int, ...], ...]:
    rows = [list(t) for t in tokens]
    for piece in play.pieces:
        rows[piece >> 2][piece & 3] = play.dest
    for piece in play.victims:
        rows[piece >> 2][piece & 3] = YARD
    return tuple(tuple(r) for r in rows)


def _team_home(tokens: tuple[tuple[int, ...], ...], ci: int) -> bool:
    return all(p == HOME for p in tokens[ci]) and all(p == HOME for p in tokens[PARTNER[ci]])


class GilgitiRules:
    """The Gilgiti rule set."""

    name = "gilgiti"
    title = "Gilgiti"
    summary = "alone or in teams; roll, then play every value, all or nothing"
    min_players = 2
    max_players = 4
    options: tuple[Option, ...] = (TEAMS_OPTION,)
    timer_default = False
    help: Help = gilgiti_scene.HELP
    leave: Leave = gilgiti_scene.LEAVE
    wording: Wording = Wording(dice="your dice box")  # "Tap your dice box" (the seed)

    def __init__(self) -> None:
        self._bot: BotFeatures | None = None

    def __repr__(self) -> str:
        return "<rules gilgiti>"

    @property
    def bot(self) -> BotFeatures:
        """The computer players' evaluation (loaded on first use)."""
        if self._bot is None:
            from .gilgiti_bot import GilgitiBot

            self._bot = GilgitiBot(self)
        return self._bot

    # -- creating ----------------------------------------------------------

    def new_game(self, seats: tuple[str, ...], seed: int,
                 options: Mapping[str, Any] | None = None) -> State:
        """Starting position for ``seats``; a random seat (from ``seed``) starts."""
        teams = self._teams_option(options)
        seats = normalise_seats(seats, self.min_players, self.max_players)
        if teams and len(seats) != 4:
            raise NotationError("options.teams", "teams need all four seats: "
                                "red + yellow against green + blue")
        state = rng.seed_state(seed)
        state, first = rng.choose_index(state, len(seats))
        return State(
            rules=self.name, seats=seats, teams=teams,
            tokens=tuple((YARD,) * TOKENS_PER_SEAT if c in seats else () for c in COLOURS),
            turn=seats[first], phase="roll", rolled=(), unplayed=(), start=None,
            resting=frozenset(), timeouts=(0, 0, 0, 0), quit=None, winners=(), rng=state,
        )

    @staticmethod
    def _teams_option(options: Mapping[str, Any] | None) -> bool:
        if not options:
            return False
        if not isinstance(options, Mapping):
            raise NotationError("options", "must be an object of the rule set's options")
        unknown = [k for k in options if k != "teams"]
        if unknown:
            raise NotationError(f"options.{unknown[0]}", "is not an option of Gilgiti "
                                "(it has \"teams\")")
        value = options["teams"]
        if not isinstance(value, bool):
            raise NotationError("options.teams", "must be true or false")
        return value

    def seating(self, players: int) -> tuple[str, ...]:
        """The colours that sit for 2, 3 or 4 players when nobody chooses."""
        try:
            return SEATS_BY_PLAYERS[players]
        except KeyError:
            raise NotationError("players", "Ludo is for 2 to 4 players") from None

    def parse_action(self, data: Any, field: str = "action") -> Action:
        """A Gilgiti action from its JSON form (docs/notation.md), checked for shape."""
        return parse_gilgiti_action(data, field)

    # -- asking ------------------------------------------------------------

    def plays(self, state: State) -> list[Play]:
        """Every legal play of the seat to act, decoded (move phase; else [])."""
        if state.phase != "move":
            return []
        return _plays(state.tokens, state.teams, _side(state), mover_index(state),
                      state.unplayed)

    def legal_actions(self, state: State) -> list[Action]:
        """``[roll]`` before the roll; every legal play (token or stack, value) after it."""
        phase = state.phase
        if phase == "move":
            return [_play_action(p) for p in self.plays(state)]
        if phase == "roll":
            return [ROLL]
        return []

    def distinct_moves(self, state: State) -> list[Action]:
        """One play per distinct outcome: single tokens of one colour on one square
        (the yard included) playing one value are one choice, and so is forcing."""
        if state.phase != "move":
            return []
        seen: set[tuple[int, int, int]] = set()
        moves = []
        for play in self.plays(state):
            key = (play.origin, play.value, len(play.pieces)) if play.kind != "force" \
                else (-2, 6, 2)
            if key in seen:
                continue
            seen.add(key)
            moves.append(_play_action(play))
        return moves

    def auto_action(self, state: State) -> Action | None:
        """The play the table makes by itself: the only distinct one, if so."""
        moves = self.distinct_moves(state)
        return moves[0] if len(moves) == 1 else None

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        """The six die values, each 1/6, at a roll; nothing at a decision."""
        return list(ROLL_OUTCOMES) if state.phase == "roll" else []

    def winners(self, state: State) -> tuple[str, ...]:
        return state.winners

    def active_seats(self, state: State) -> tuple[str, ...]:
        """Every seat, while the match runs (nobody leaves a Gilgiti match alone)."""
        return () if state.quit is not None else state.seats

    def next_player(self, state: State) -> str | None:
        """Who rolls once this turn is over: the next seat clockwise that is not resting."""
        if state.phase == "over":
            return None
        seats = state.seats
        i = seats.index(state.turn)
        for k in range(1, len(seats) + 1):
            seat = seats[(i + k) % len(seats)]
            if seat not in state.resting:
                return seat
        return state.turn  # pragma: no cover - at most two of four seats rest

    def team_of(self, state: State, seat: str) -> tuple[str, ...]:
        """The seats that win with ``seat``: its team, or itself alone."""
        if state.teams:
            ci = COLOUR_INDEX[seat]
            return tuple(c for c in COLOURS if c in (seat, COLOURS[PARTNER[ci]]))
        return (seat,)

    def can_complete(self, state: State) -> bool:
        """Whether some order of plays uses every value still to play (move phase)."""
        if state.phase != "move":
            return False
        return _completable(state.tokens, state.teams, _side(state), mover_index(state),
                            state.unplayed, {})

    # -- telling -------------------------------------------------------------

    def scene(self, state: State) -> SceneView:
        return gilgiti_scene.scene(self, state)

    def board(self, state: State | None) -> Board:
        return gilgiti_scene.board(self, state)

    def choices(self, state: State) -> list[Choice]:
        return gilgiti_scene.choices(self, state)

    def describe(self, event: Event, names: Names) -> str | None:
        return gilgiti_scene.describe(event, names)

    def violations(self, before: State, after: State, events: list[Event]) -> list[str]:
        return _violations(self, before, after, events)

    # -- changing ----------------------------------------------------------

    def resolve(self, state: State, action: Action) -> Action:
        """Fill in the die value the RNG will supply for a roll, or a timeout's roll.

        A timeout before the roll throws one die, like a roll: a chance value like any other,
        so online it comes from the dice ledger (were it drawn inside the timeout from the
        position's RNG, which every page holds, anyone could foresee it and choose between it
        and the ledger's die).
        """
        if action.type in ("roll", "timeout") and action.value is None \
                and state.phase == "roll":
            return action._replace(value=_roll_die(state.rng)[1])
        return action

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Apply a checked action; raise IllegalAction without changing anything."""
        events: list[Event] = []
        return self._step(state, action, events), events

    def advance(self, state: State, action: Action) -> State:
        """:meth:`apply` without building events: the same checks, the same next position."""
        return self._step(state, action, None)

    def _step(self, state: State, action: Action, events: list[Event] | None) -> State:
        kind = action.type
        phase = state.phase
        if kind == "move" and phase == "move":
            return self._play(state, action, events)
        if kind == "roll" and phase == "roll":
            return self._roll(state, action.value, events)
        if phase == "over":
            raise IllegalAction("the game is over")
        if kind == "force":
            if phase != "move":
                raise IllegalAction(f"{state.turn} must roll before playing")
            return self._play(state, action, events)
        if kind == "roll":
            raise IllegalAction(f"{state.turn} has rolled; now every value must be played")
        if kind == "move":
            raise IllegalAction(f"{state.turn} must roll before playing")
        if kind == "timeout":
            return self._timeout(state, action, events)
        if kind == "quit":
            return self._quit(state, action.seat, events)
        raise IllegalAction(f"unknown action type {quote(kind)}")

    def _roll(self, state: State, value: Any, events: list[Event] | None,
              clock: bool = False) -> State:
        if value is not None and (type(value) is not int or not 1 <= value <= 6):
            raise IllegalAction(f"a die shows 1..6, not {quote(value)}")
        (rules, seats, teams, tokens, turn, _, rolled, _, _, resting, timeouts, quit_,
         winners, seed_state) = state
        # the RNG advances even when the value is given, so the position does not
        # depend on where the die came from (local RNG, replay, online host)
        seed_state, drawn = _roll_die(seed_state)
        if value is None:
            value = drawn
        rolled = rolled + (value,)
        if events is not None:
            events.append(rolled_event(turn, value, clock))
        if value == 6:
            if len(rolled) == SIXES_LIMIT:
                if events is not None:
                    events.append({"type": "three_sixes", "seat": turn, "notice": True})
                return self._pass(state._replace(rng=seed_state), tokens, resting, events)
            if events is not None:
                events.append({"type": "roll_again", "seat": turn})
            return _new_state(State, (rules, seats, teams, tokens, turn, "roll", rolled, (),
                                      None, resting, timeouts, quit_, winners, seed_state))
        unplayed = tuple(sorted(rolled))
        state = _new_state(State, (rules, seats, teams, tokens, turn, "move", rolled, unplayed,
                                   tokens, resting, timeouts, quit_, winners, seed_state))
        if not _plays(tokens, teams, _side(state), mover_index(state), unplayed):
            return self._roll_back(state, events)  # nothing to play: no "to play" first
        if events is not None:
            events.append({"type": "to_play", "seat": turn, "values": list(rolled)})
        return state

    def _decode(self, state: State, action: Action) -> Play:
        """The legal play ``action`` names, or IllegalAction saying why not."""
        turn = state.turn
        m = mover_index(state)
        whose = turn if m == COLOUR_INDEX[turn] else f"{turn} (for {COLOURS[m]})"
        if action.type == "force":
            if action.value is not None or action.token is not None:
                raise IllegalAction("forcing the gate names two tokens and no value")
            pieces = action.tokens
            value = 6
            if state.unplayed.count(6) < 2:
                raise IllegalAction(f"{turn} needs two 6s still to play to force the gate")
        else:
            played = action.value
            if type(played) is not int or played not in state.unplayed:
                left = ", ".join(map(str, state.unplayed))
                raise IllegalAction(f"{turn} has no {quote(played)} to play (values left: {left})")
            value = played
            if action.tokens is not None:
                if action.token is not None:
                    raise IllegalAction("a move names one token or a stack, not both")
                pieces = action.tokens
                if not isinstance(pieces, tuple) or len(pieces) < 2:
                    raise IllegalAction("a stack strike names two or more tokens")
            else:
                pieces = () if action.token is None else (action.token,)
        if not isinstance(pieces, tuple) or not pieces or not all(
                type(p) is int and 0 <= p < PIECES for p in pieces):
            raise IllegalAction(f"not a token of this game: {quote(pieces)}")
        for play in _plays(state.tokens, state.teams, _side(state), m, state.unplayed):
            if play.pieces == pieces and play.value == value and (
                    (play.kind == "force") == (action.type == "force")):
                return play
        # not legal: say why as plainly as possible
        if action.type == "force":
            raise IllegalAction(f"{whose} cannot force the gate now")
        first = pieces[0]
        # the number the action gave first (a piece number, 0..15), then the colour's own
        colour, token = COLOURS[first >> 2], first & 3
        if first >> 2 != m:
            raise IllegalAction(f"{whose} does not move {colour}'s tokens")
        if len(pieces) > 1:
            raise IllegalAction(f"that stack cannot strike with a {value}: a stack moves only "
                                "onto an enemy block of exactly its size and colour pattern")
        raise IllegalAction(f"token {first} ({colour}'s token {token}) cannot move {value}")

    def _play(self, state: State, action: Action, events: list[Event] | None) -> State:
        play = self._decode(state, action)
        (rules, seats, teams, tokens, turn, _, rolled, unplayed, start, resting, timeouts,
         quit_, winners, seed_state) = state
        tokens = _move_pieces(tokens, play)
        unplayed = _remove_value(unplayed, play.value, 2 if play.kind == "force" else 1)
        if events is not None:
            _play_events(events, turn, play)
        if not unplayed:
            return self._complete(state, tokens, events)
        state = _new_state(State, (rules, seats, teams, tokens, turn, "move", rolled, unplayed,
                                   start, resting, timeouts, quit_, winners, seed_state))
        if not _plays(tokens, teams, _side(state), mover_index(state), unplayed):
            return self._roll_back(state, events)
        return state

    def _complete(self, state: State, tokens: tuple[tuple[int, ...], ...],
                  events: list[Event] | None) -> State:
        """Every value was played: the turn counts. A win, a finish, or the next seat."""
        turn = state.turn
        ci = COLOUR_INDEX[turn]
        m = mover_index(state)
        if state.teams:
            if _team_home(tokens, ci):
                won = self.team_of(state, turn)
                if events is not None:
                    events.append({"type": "won", "seat": turn, "seats": list(won)})
                return state._replace(tokens=tokens, phase="over", rolled=(), unplayed=(),
                                      start=None, resting=frozenset(), winners=won)
            resting = state.resting
            if m == ci and all(p == HOME for p in tokens[ci]):
                resting = resting | {turn}
                if events is not None:
                    events.append({"type": "finished", "seat": turn,
                                   "partner": COLOURS[PARTNER[ci]]})
            return self._pass(state, tokens, resting, events)
        if all(p == HOME for p in tokens[ci]):
            if events is not None:
                events.append({"type": "won", "seat": turn, "seats": [turn]})
            return state._replace(tokens=tokens, phase="over", rolled=(), unplayed=(),
                                  start=None, winners=(turn,))
        return self._pass(state, tokens, state.resting, events)

    def _roll_back(self, state: State, events: list[Event] | None) -> State:
        """No value left can be played: the whole turn goes back to where it began."""
        if events is not None:
            played = len(state.rolled) - len(state.unplayed)
            for event in events:  # this action's plays are undone: no hop ends where it went
                if event.pop("path", None) is not None:
                    event.pop("pieces", None)
            undone: Event = {"type": "rolled_back", "seat": state.turn,
                             "values": list(state.unplayed), "played": played,
                             "notice": played > 0}
            if not played:  # the roll had no move at all: news, as a roll with no move is
                undone["no_move"] = True
            events.append(undone)
        assert state.start is not None  # the move phase always keeps its starting point
        return self._pass(state, state.start, state.resting, events)

    def _pass(self, state: State, tokens: tuple[tuple[int, ...], ...],
              resting: frozenset[str], events: list[Event] | None) -> State:
        """The position passed to the next seat clockwise; a resting seat sits this one out."""
        seats = state.seats
        i = seats.index(state.turn)
        n = len(seats)
        nxt = state.turn
        for k in range(1, n + 1):
            nxt = seats[(i + k) % n]
            if nxt in resting:
                resting = resting - {nxt}
                if events is not None:
                    events.append({"type": "rested", "seat": nxt})
                continue
            break
        if events is not None:
            events.append({"type": "turn", "seat": nxt})
        return _new_state(State, (state.rules, seats, state.teams, tokens, nxt, "roll", (), (),
                                  None, resting, state.timeouts, None, (), state.rng))

    def timeout_choice(self, state: State) -> Action:
        """The play a timeout makes: the Easy policy, deterministic, that keeps the turn whole.

        Only the plays after which every value left can still be played are
        considered, when there are any (so a timeout never strands a value that
        some order plays; when no order plays them all, every play is, and the
        turn rolls back as it would for the player). Among them: a play that
        wins; else one that captures, strikes a block or gets a token home; else
        one of them picked by a number drawn from the position (its RNG word and
        how many values were played) so that every peer picks the same without
        advancing the game's dice.
        """
        seat = state.turn
        weighed = []  # (move, keeps the turn whole, wins, captures/strikes/gets home)
        for move in self.distinct_moves(state):
            after, events = self.apply(state, move)
            if after.phase == "move" and after.turn == seat:
                whole = self.can_complete(after)
            else:
                whole = not any(e["type"] == "rolled_back" for e in events)
            weighed.append((move, whole,
                            after.phase == "over" and seat in after.winners,
                            any(e["type"] in ("captured", "struck", "reached_home")
                                for e in events)))
        if any(whole for _, whole, _, _ in weighed):
            weighed = [w for w in weighed if w[1]]
        moves = [m for m, _, _, _ in weighed]
        won = [m for m, _, wins, _ in weighed if wins]
        good = [m for m, _, wins, gain in weighed if gain and not wins]
        pool = won or good or moves
        played = len(state.rolled) - len(state.unplayed)
        _, index = rng.choose_index(rng.seed_state(state.rng + played), len(pool))
        return pool[index]

    def _timeout(self, state: State, action: Action, events: list[Event] | None) -> State:
        if action.token is not None or action.tokens is not None:
            raise IllegalAction("a timeout names no token: the clock's policy plays")
        if action.value is not None and state.phase != "roll":
            raise IllegalAction("a timeout after the roll plays the values rolled: it carries "
                                "no value")
        seat = state.turn
        ci = COLOUR_INDEX[seat]
        count = state.timeouts[ci] + 1
        state = state._replace(timeouts=state.timeouts[:ci] + (count,) + state.timeouts[ci + 1:])
        said: Event = {"type": "timeout", "seat": seat, "count": count, "notice": True}
        if events is not None:
            events.append(said)
        if state.phase == "roll":
            # one die, as the seat's own roll would be; a 6 rolls again, and that roll has a
            # clock of its own (a second timeout if the seat is still away): one chance value
            # per action, so that online every die comes from the ledger
            die = action.value if action.value is not None else _roll_die(state.rng)[1]
            if die == 6:
                # the game only rolls (the seat rolls again, or three 6s cancel the turn), so
                # "the turn is played for them" would be untrue
                said["six"] = True
            state = self._roll(state, action.value, events, clock=True)
            if state.phase == "roll" and state.turn == seat:
                return state
        while state.phase == "move" and state.turn == seat:
            state = self._play(state, self.timeout_choice(state), events)
        if events is not None:
            _join_paths(events)
        return state

    def _quit(self, state: State, seat: Any, events: list[Event] | None) -> State:
        if not isinstance(seat, str) or seat not in state.seats:
            raise IllegalAction(f"{quote(seat)} is not a seat in this game")
        if events is not None:
            events.append({"type": "quit", "seat": seat})
        # the turn under way never completed, so it does not count
        tokens = state.start if state.start is not None else state.tokens
        return state._replace(tokens=tokens, phase="over", rolled=(), unplayed=(), start=None,
                              resting=frozenset(), quit=seat, winners=())

    # -- notation ----------------------------------------------------------

    def to_json(self, state: State) -> dict[str, Any]:
        """The position's JSON notation (docs/notation.md, Gilgiti version 1)."""
        def places(tokens: tuple[tuple[int, ...], ...]) -> dict[str, list[Any]]:
            return {c: [format_square(c, p) for p in tokens[COLOUR_INDEX[c]]]
                    for c in state.seats}

        return {
            "format": POSITION_FORMAT,
            "version": POSITION_VERSION,
            "rules": self.name,
            "seats": list(state.seats),
            "teams": state.teams,
            "turn": state.turn,
            "phase": state.phase,
            "rolled": list(state.rolled),
            "unplayed": list(state.unplayed),
            "tokens": places(state.tokens),
            "turn_start": None if state.start is None else places(state.start),
            "resting": [c for c in state.seats if c in state.resting],
            "timeouts": {c: state.timeouts[COLOUR_INDEX[c]] for c in state.seats},
            "quit": state.quit,
            "winners": list(state.winners),
            "rng": f"{state.rng:016x}",
        }

    def from_json(self, data: dict[str, Any]) -> State:
        """Parse and check a position; every error names its field."""
        return _PositionReader(self, data).read()


def _completable(tokens: tuple[tuple[int, ...], ...], teams: bool, side: int, m: int,
                 unplayed: tuple[int, ...], seen: dict[Any, bool]) -> bool:
    """Whether some order of legal plays uses every value in ``unplayed``."""
    if not unplayed:
        return True
    key = (tokens, unplayed)
    known = seen.get(key)
    if known is not None:
        return known
    result = False
    for play in _plays(tokens, teams, side, m, unplayed):
        rest = _remove_value(unplayed, play.value, 2 if play.kind == "force" else 1)
        if _completable(_move_pieces(tokens, play), teams, side, m, rest, seen):
            result = True
            break
    seen[key] = result
    return result


def _steps(ci: int, position: int, steps: int) -> list[int]:
    """Every position a token of colour ``ci`` stands on walking ``steps`` from
    ``position``, both ends included (a legal walk: :data:`WALK` said so)."""
    if position == YARD:
        return [YARD, START_SQUARES[ci]]
    entrance = ENTRANCE_SQUARES[ci]
    out = [position]
    p = position
    for _ in range(steps):
        if p >= LANE_FIRST:
            p += 1
        elif p == entrance:
            p = LANE_FIRST
        else:
            p = (p + 1) % TRACK_LENGTH
        out.append(p)
    return out


def _path(play: Play, piece: int | None = None) -> list[str]:
    """The cells a play's pieces pass, from where they stand to where they stop (the
    screen hops them along it; base.Event). A stack walks the track together, so its
    first piece's walk is everyone's; ``piece`` names one (a force's pieces come from
    different yard spots)."""
    piece = play.pieces[0] if piece is None else piece
    colour, token = COLOURS[piece >> 2], piece & 3
    steps = [YARD, play.dest] if play.kind == "force" else \
        _steps(piece >> 2, play.origin, play.value)
    return [cross.place_id(colour, token, p) for p in steps]


def _piece_id(piece: int) -> str:
    return f"{COLOURS[piece >> 2]}-{piece & 3}"


def _join_paths(events: list[Event]) -> None:
    """One action that plays a token twice (a timeout) hops it once, along both walks (a
    stack's walk is joined to the walk its pieces made just before, if they made one)."""
    last: dict[str, Event] = {}
    for event in events:
        if "path" not in event:
            continue
        pieces = event["pieces"]
        before = last.get(pieces[0])
        if before is not None and before["pieces"] == [pieces[0]] and \
                all(last.get(p) is None for p in pieces[1:]):
            event["path"] = before.pop("path") + event["path"][1:]
            before.pop("pieces")
        for piece in pieces:
            last[piece] = event


def _play_events(events: list[Event], seat: str, play: Play) -> None:
    kind = play.kind
    victims = [[COLOURS[p >> 2], p & 3] for p in play.victims]
    if kind == "force":
        colour = COLOURS[play.pieces[0] >> 2]
        # each token hops from its own yard spot onto the star: one path per piece, so the
        # second token's hop is an event of its own, with nothing to say
        first, *others = play.pieces
        events.append({"type": "forced", "seat": seat, "colour": colour,
                       "tokens": [p & 3 for p in play.pieces], "to": play.dest,
                       "pieces": [_piece_id(first)], "path": _path(play, first)})
        events.extend({"type": "pushed_in", "seat": seat, "pieces": [_piece_id(p)],
                       "path": _path(play, p)} for p in others)
        return
    if kind == "strike":
        events.append({"type": "struck", "seat": seat, "value": play.value,
                       "stack": [[COLOURS[p >> 2], p & 3] for p in play.pieces],
                       "from": play.origin, "to": play.dest, "victims": victims,
                       "pieces": [_piece_id(p) for p in play.pieces], "path": _path(play)})
        return
    piece = play.pieces[0]
    colour, token = COLOURS[piece >> 2], piece & 3
    if kind == "enter":
        events.append({"type": "entered", "seat": seat, "colour": colour, "token": token,
                       "value": play.value, "to": play.dest,
                       "pieces": [f"{colour}-{token}"], "path": _path(play)})
    else:
        events.append({"type": "moved", "seat": seat, "colour": colour, "token": token,
                       "value": play.value, "from": play.origin, "to": play.dest,
                       "pieces": [f"{colour}-{token}"], "path": _path(play)})
    if victims:
        events.append({"type": "captured", "seat": seat, "square": play.dest,
                       "victims": victims})
    if play.dest == HOME:
        events.append({"type": "reached_home", "seat": seat, "colour": colour,
                       "token": token})


# -- actions -------------------------------------------------------------------------------

ACTION_TYPES = ("roll", "move", "force", "timeout", "quit")


def _is_int(x: Any) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_gilgiti_action(data: Any, field: str = "action") -> Action:
    """Parse a Gilgiti action; every error names the field.

    ``{"type": "roll"}`` (optionally ``"value": 1..6``); ``{"type": "move", "token": p,
    "value": v}`` (one token, ``p`` a piece number 0..15 = 4 x colour index + token);
    ``{"type": "move", "tokens": [p, q, ...], "value": v}`` (a stack strike, pieces in
    increasing order); ``{"type": "force", "tokens": [p, q]}`` (two yard tokens through
    the gate with two 6s); ``{"type": "timeout"}`` (optionally ``"value": 1..6``, the die
    of a timeout before the roll); ``{"type": "quit", "seat": colour}``.
    """
    if not isinstance(data, dict):
        raise NotationError(field, "must be an object like {\"type\": \"roll\"}")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise NotationError(f"{field}.type", f"must be one of {', '.join(ACTION_TYPES)}")
    unknown = set(data) - {"type", "token", "tokens", "value", "seat"}
    if unknown:
        raise NotationError(field, f"unknown field(s) {', '.join(sorted(map(quote, unknown)))}")
    refuse_nulls(data, field)
    allowed = {"roll": {"value"}, "move": {"token", "tokens", "value"}, "force": {"tokens"},
               "timeout": {"value"}, "quit": {"seat"}}[kind]
    for name in ("token", "tokens", "value", "seat"):
        if name in data and name not in allowed:
            raise NotationError(f"{field}.{name}", f"is not used by a {kind} action")
    token = data.get("token")
    tokens = data.get("tokens")
    value = data.get("value")
    seat = data.get("seat")
    if kind in ("roll", "timeout"):
        if value is not None and (not _is_int(value) or not 1 <= value <= 6):
            raise NotationError(f"{field}.value", "must be a die value 1..6")
        return Action(kind, value=value)
    if kind == "quit":
        if not isinstance(seat, str):
            raise NotationError(f"{field}.seat", "must name the colour that leaves")
        return Action("quit", seat=seat)
    pieces = None
    if tokens is not None:
        if not isinstance(tokens, list) or not all(_is_int(p) and 0 <= p < PIECES
                                                   for p in tokens):
            raise NotationError(f"{field}.tokens", f"must be a list of token numbers "
                                f"0..{PIECES - 1}")
        if len(tokens) < 2 or tokens != sorted(set(tokens)):
            raise NotationError(f"{field}.tokens", "must name two or more tokens, "
                                "in increasing order")
        pieces = tuple(tokens)
    if kind == "force":
        if pieces is None or len(pieces) != 2:
            raise NotationError(f"{field}.tokens", "must name the two tokens that force "
                                "the gate")
        return Action("force", tokens=pieces)
    if not _is_int(value) or not 1 <= value <= 6:
        raise NotationError(f"{field}.value", "must be the value played, 1..6")
    if (token is None) == (pieces is None):
        raise NotationError(f"{field}.token", "a move names one token (\"token\") or a "
                            "stack (\"tokens\")")
    if pieces is not None:
        return Action("move", value=value, tokens=pieces)
    if not _is_int(token) or not 0 <= token < PIECES:
        raise NotationError(f"{field}.token", f"must be a token number 0..{PIECES - 1}")
    return Action("move", token=token, value=value)


# -- invariants ----------------------------------------------------------------------------


def board_problems(tokens: tuple[tuple[int, ...], ...], teams: bool) -> list[tuple[int, str]]:
    """(square, problem) for every track square no play can produce: tokens of two
    sides on a square that is not a star."""
    sides = SIDES[teams]
    found = []
    for square, counts in occupancy(tokens).items():
        present = {sides[ci] for ci in range(4) if counts[ci]}
        if len(present) > 1 and not IS_STAR[square]:
            found.append((square, "tokens of two sides share a square that is not a star"))
    return found


def _violations(rules: GilgitiRules, before: State, after: State,
                events: list[Event]) -> list[str]:
    found: list[str] = []
    for ci, colour in enumerate(COLOURS):
        want = TOKENS_PER_SEAT if colour in after.seats else 0
        if len(after.tokens[ci]) != want:
            found.append(f"{colour} has {len(after.tokens[ci])} tokens, expected {want}")
    found += [f"square {sq}: {why}" for sq, why in board_problems(after.tokens, after.teams)]
    kinds = [e["type"] for e in events]
    for e in events:
        if e["type"] == "captured" and IS_STAR[e["square"]]:
            found.append(f"capture on star {e['square']}")
        if e["type"] == "struck" and len(e["stack"]) != len(e["victims"]):
            found.append("a stack struck a block of another size")
    if "three_sixes" in kinds and after.tokens != before.tokens:
        found.append("three sixes changed the board")
    if "rolled_back" in kinds:
        start = before.start if before.start is not None else before.tokens
        if after.tokens != start:
            found.append("a rollback did not restore the turn's starting position")
    if before.phase == "move" and events and events[0]["type"] in ("moved", "entered",
                                                                   "struck", "forced"):
        found += _path_problems(before, events[0])
    if after.phase == "over" and after.winners:
        for seat in after.winners:
            if any(p != HOME for p in after.tokens[COLOUR_INDEX[seat]]):
                found.append(f"{seat} won without every token home")
        if before.teams and len(after.winners) != 2:
            found.append("a team game was won by one seat")
    if after.phase != "over" and after.turn in after.resting:
        found.append(f"{after.turn} has the turn while resting")
    if "turn" in kinds and after.phase != "over":
        predicted = rules.next_player(before)
        if after.turn != predicted:
            found.append(f"the turn went to {after.turn}, not {predicted} as Next said")
    return found


def _path_problems(before: State, event: Event) -> list[str]:
    """Re-check the first play of an action against the rules, from scratch."""
    side = _side(before)
    occ = occupancy(before.tokens)
    closed = closed_squares(occ, before.teams, side)
    to = event["to"]
    kind = event["type"]
    problems = []
    if kind == "forced":
        return [] if to in closed else ["a gate that was open was forced"]
    if kind == "struck":
        colour = event["stack"][0][0]
    else:
        colour = event["colour"]
    ci = COLOUR_INDEX[colour]
    origin = event.get("from", YARD)
    walk = WALK[ci][origin + 1][event["value"]]
    if walk is None or walk[0] != to:
        problems.append(f"{colour} moved from {origin} to {to} with a {event['value']}")
        return problems
    if not closed.isdisjoint(walk[1]):
        problems.append(f"a move passed an enemy block on its way to {to}")
    if kind == "struck":
        if to not in closed or IS_STAR[to]:
            problems.append(f"a stack moved to {to}, which held no enemy block to strike")
    elif to in closed:
        problems.append(f"a token landed on the enemy block on {to}")
    return problems


# -- reading a position --------------------------------------------------------------------


class _PositionReader:
    """Builds a State from JSON, checking each field before anything is built."""

    FIELDS = ("format", "version", "rules", "seats", "teams", "turn", "phase", "rolled",
              "unplayed", "tokens", "turn_start", "resting", "timeouts", "quit", "winners", "rng")

    def __init__(self, rules: GilgitiRules, data: Any) -> None:
        self.rules = rules
        self.data = data

    def field(self, name: str, kind: type) -> Any:
        value = self.data[name]
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise NotationError(name, wrong_type(value, kind))
        return value

    def tokens(self, name: str, seats: tuple[str, ...],
               teams: bool) -> tuple[tuple[int, ...], ...]:
        listed = self.field(name, dict)
        for colour in listed:
            if colour not in seats:
                raise NotationError(f"{name}.{colour}", "is not a seat in this game")
        out: list[tuple[int, ...]] = [()] * len(COLOURS)
        for colour in seats:
            places = listed.get(colour)
            where = f"{name}.{colour}"
            if not isinstance(places, list):
                raise NotationError(where, "must be a list of squares")
            if len(places) != TOKENS_PER_SEAT:
                raise NotationError(where, f"has {len(places)} tokens; a seat has 4 tokens")
            ci = COLOUR_INDEX[colour]
            out[ci] = tuple(
                parse_square(colour, v, f"{where}[{i}]") for i, v in enumerate(places))
            for i, p in enumerate(out[ci]):
                if p == PAST_ENTRANCE[ci]:
                    raise NotationError(f"{where}[{i}]", f"a {colour} token never stands on "
                                        f"square {p}: it turns into its lane after "
                                        f"{ENTRANCE_SQUARES[ci]}")
        tokens = tuple(out)
        for square, why in board_problems(tokens, teams):
            raise NotationError(name, f"square {square}: {why}")
        return tokens

    def values(self, name: str) -> tuple[int, ...]:
        listed = self.field(name, list)
        for i, v in enumerate(listed):
            if not _is_int(v) or not 1 <= v <= 6:
                raise NotationError(f"{name}[{i}]", "must be a die value 1..6")
        return tuple(listed)

    def read(self) -> State:
        data = self.data
        if not isinstance(data, dict):
            raise NotationError("position", "must be a JSON object")
        if data.get("format") != POSITION_FORMAT:
            raise NotationError("format", f"must be {quote(POSITION_FORMAT)}")
        version = data.get("version")
        if type(version) is not int or version != POSITION_VERSION:
            raise NotationError("version", f"version {quote(version)} is not supported (this app "
                                f"reads Gilgiti version {POSITION_VERSION})")
        extra = set(data) - set(self.FIELDS)
        if extra:
            raise NotationError(sorted(map(str, extra))[0], "is not a field of a position")
        for name in self.FIELDS:  # every field is written, null ones included
            if name not in data:
                raise NotationError(name, "is missing")
        if data["rules"] != self.rules.name:
            raise NotationError("rules", f"expected {quote(self.rules.name)}")
        seats = normalise_seats(self.field("seats", list), self.rules.min_players,
                                self.rules.max_players)
        if list(seats) != data["seats"]:
            raise NotationError("seats", f"must be in clockwise order: {', '.join(seats)}")
        teams = self.field("teams", bool)
        if teams and len(seats) != 4:
            raise NotationError("teams", "teams need all four seats")

        timeouts_data = self.field("timeouts", dict)
        timeouts = [0] * len(COLOURS)
        for colour in timeouts_data:
            if colour not in seats:
                raise NotationError(f"timeouts.{colour}", "is not a seat in this game")
        for colour in seats:
            count = timeouts_data.get(colour)
            if not _is_int(count) or count < 0:
                raise NotationError(f"timeouts.{colour}", "must be a whole number, 0 or more")
            if count > MAX_COUNT:
                raise NotationError(f"timeouts.{colour}", f"must be 0 to {MAX_COUNT}")
            timeouts[COLOUR_INDEX[colour]] = count

        tokens = self.tokens("tokens", seats, teams)
        phase = self.field("phase", str)
        if phase not in ("roll", "move", "over"):
            raise NotationError("phase", "must be \"roll\", \"move\" or \"over\"")
        turn = self.field("turn", str)
        if turn not in seats:
            raise NotationError("turn", f"{quote(turn)} is not a seat in this game")
        rolled = self.values("rolled")
        unplayed = self.values("unplayed")

        resting_data = self.field("resting", list)
        for i, colour in enumerate(resting_data):
            if colour not in seats:
                raise NotationError(f"resting[{i}]", f"{quote(colour)} is not a seat in this game")
        resting = frozenset(resting_data)
        if [c for c in seats if c in resting] != resting_data:
            raise NotationError("resting", "must list seats once each, in clockwise order")

        quit_ = data["quit"]
        if quit_ is not None and quit_ not in seats:
            raise NotationError("quit", f"{quote(quit_)} is not a seat in this game")
        winners_data = self.field("winners", list)
        winners = tuple(winners_data)

        rng_text = self.field("rng", str)
        # int(..., 16) alone would also take "-", "0x", "_", spaces and non-ASCII digits
        if len(rng_text) != 16 or not all(c in _HEX_DIGITS for c in rng_text):
            raise NotationError("rng", "must be 16 hexadecimal digits")
        rng_state = int(rng_text, 16)

        home = [c for c in seats if all(p == HOME for p in tokens[COLOUR_INDEX[c]])]
        if teams:
            team_home = [c for c in seats if _team_home(tokens, COLOUR_INDEX[c])]
        else:
            team_home = home
        for colour in resting:
            if not teams:
                raise NotationError("resting", "only a finished team player rests")
            if colour not in home:
                raise NotationError("resting", f"{colour} rests, but not all its tokens "
                                    "are home")

        start = None
        if phase == "over":
            if rolled or unplayed or data["turn_start"] is not None:
                raise NotationError("rolled" if rolled else "unplayed" if unplayed
                                    else "turn_start", "a finished game has no turn under way")
            if quit_ is not None:
                if winners:
                    raise NotationError("winners", "a match ended by leaving has no winner")
                if team_home:
                    raise NotationError(f"tokens.{team_home[0]}", "every token is home, so "
                                        "the game was won before anybody left")
            else:
                expected = self.rules.team_of(_probe(teams, turn), turn) if winners else ()
                if not winners or list(expected) != winners_data:
                    raise NotationError("winners", "a finished game names its winners: the "
                                        "seat (or team, in seat order) that got every token "
                                        "home, or none after a seat left")
                if any(c not in team_home for c in winners):
                    raise NotationError("winners", "not every token of the winners is home")
                losers_home = [c for c in team_home if c not in winners]
                if losers_home:
                    raise NotationError(f"tokens.{losers_home[0]}", "every token is home, but "
                                        "the game ended when the winners' last token came home")
            if resting:
                raise NotationError("resting", "nobody rests once the game is over")
        else:
            if quit_ is not None:
                raise NotationError("quit", "a running game has nobody who left")
            if winners:
                raise NotationError("winners", "only a finished game has winners")
            if team_home:
                raise NotationError(f"tokens.{team_home[0]}", "every token is home but the "
                                    "game is not over")
            if turn in resting:
                raise NotationError("turn", f"{turn} is resting and cannot have the turn")
            if phase == "roll":
                if any(v != 6 for v in rolled) or len(rolled) >= SIXES_LIMIT:
                    raise NotationError("rolled", "before the rolling stops, only one or two "
                                        "6s can have been rolled")
                if unplayed:
                    raise NotationError("unplayed", "nothing is played before the rolling "
                                        "stops")
                if data["turn_start"] is not None:
                    raise NotationError("turn_start", "must be null before the rolling stops "
                                        "(the tokens are the turn's start)")
            else:
                if not rolled or rolled[-1] == 6 or any(v != 6 for v in rolled[:-1]) \
                        or len(rolled) > SIXES_LIMIT:
                    raise NotationError("rolled", "the rolling stops at the first value that "
                                        "is not a 6, after at most two 6s")
                if list(unplayed) != sorted(unplayed) or not unplayed:
                    raise NotationError("unplayed", "must list the values still to play, in "
                                        "ascending order (at least one)")
                rest = list(rolled)
                for v in unplayed:
                    if v not in rest:
                        raise NotationError("unplayed", f"{v} was not rolled (or is listed "
                                            "too often)")
                    rest.remove(v)
                if data["turn_start"] is None:
                    raise NotationError("turn_start", "the move phase keeps the turn's "
                                        "starting position")
                start = self.tokens("turn_start", seats, teams)
                if any(_team_home(start, COLOUR_INDEX[c]) if teams else
                       all(p == HOME for p in start[COLOUR_INDEX[c]]) for c in seats):
                    raise NotationError("turn_start", "every token of a side is home: the "
                                        "game would be over")
                probe = _probe(teams, turn)._replace(tokens=start, start=start)
                m = mover_index(probe)
                side = _side(probe)
                if not _reachable(start, tokens, teams, side, m, tuple(sorted(rolled)),
                                  tuple(sorted(rest))):
                    raise NotationError("tokens", "cannot be reached from turn_start by "
                                        "playing the values already played")
                if not _plays(tokens, teams, side, m, unplayed):
                    raise NotationError("unplayed", "none of these values can be played, "
                                        "so the turn would have been rolled back")
        return State(
            rules=self.rules.name, seats=seats, teams=teams, tokens=tokens, turn=turn,
            phase=phase, rolled=rolled, unplayed=unplayed, start=start, resting=resting,
            timeouts=tuple(timeouts), quit=quit_, winners=winners, rng=rng_state,
        )


def _probe(teams: bool, turn: str) -> State:
    """A bare position for the helpers that need only ``teams``, ``turn`` and ``start``."""
    return State("gilgiti", (), teams, (), turn, "roll", (), (), None, frozenset(), (), None,
                 (), 0)


def _reachable(start: tuple[tuple[int, ...], ...], target: tuple[tuple[int, ...], ...],
               teams: bool, side: int, m: int, rolled: tuple[int, ...],
               used: tuple[int, ...]) -> bool:
    """Whether playing the values ``used`` (out of ``rolled``) from ``start`` can give
    ``target``, each play legal and none leaving the turn stuck on the way."""
    def search(tokens: tuple[tuple[int, ...], ...], unplayed: tuple[int, ...],
               to_use: tuple[int, ...]) -> bool:
        if not to_use:
            return tokens == target
        for play in _plays(tokens, teams, side, m, unplayed):
            spend = 2 if play.kind == "force" else 1
            if to_use.count(play.value) < spend:
                continue
            rest = _remove_value(unplayed, play.value, spend)
            after = _move_pieces(tokens, play)
            if rest and not _plays(after, teams, side, m, rest):
                continue  # this would have been rolled back
            if search(after, rest, _remove_value(to_use, play.value, spend)):
                return True
        return False

    return search(start, rolled, used)


GILGITI = GilgitiRules()
