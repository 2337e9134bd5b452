"""Royal Ludo (seed 001): crown and feather throws, carried "doubles", balk and home crowns.

An old boxed game's English rules (``shared/seeds/001_99cff91905dd9cb4.txt``),
read as docs/rules/royal.md explains sentence by sentence, with the tests that
pin each reading. In short:

* the standard cross board; crown spaces are the four starting points and the
  four home crowns (the home at the end of each home column), feather spaces
  are the four star squares; the die shows 1, 2, 3, 4, a feather or a crown;
* Red leads the throwing and turns go clockwise; a man leaves the balk (the
  yard) only on a crown, onto its starting point; every crown earns another
  throw; a number moves a man that many spaces, a crown to the next crown space
  on its path, a feather to the next feather space unless a crown space comes
  first; a player must move when any move is possible;
* a man that lands on a single opponent rides on top of it: a "double"; the
  carrier must move the double in preference to all his other men; a double
  landing on a single opponent sends it to balk; the rider may move off alone
  onto an empty space; no man plays into a space held by his own man or by a
  double; a space holds at most two men;
* a carrier that throws two crowns in succession sends the rider to balk or
  climbs on top of it (the rider must go to balk when the carrier's owner has
  no other man that could play the crown);
* a man in his home column is out of danger and reaches the home crown only
  with a crown; a double that enters its carrier's home column leaves the rider
  there, to wait until its owner has all his other men home and then play back
  down the column and round the board.

Places are small integers (:data:`BALK`, track ``0..51``, lane spaces
``52..71`` for every colour's column, :data:`HOME`), so that a man stranded in
another colour's column has a place of its own, and move generation is table
lookups along each colour's precomputed path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .. import rng
from ..actions import Action, refuse_nulls
from ..errors import IllegalAction, NotationError, quote, wrong_type
from ..geometry import (
    COLOUR_INDEX,
    COLOURS,
    ENTRANCE_SQUARES,
    LANE_LENGTH,
    STAR_SQUARES,
    START_SQUARES,
    TRACK_LENGTH,
)
from . import royal_scene
from .base import (
    MAX_COUNT,
    POSITION_FORMAT,
    Board,
    BotFeatures,
    Choice,
    Event,
    Names,
    Option,
    Scene,
)
from .courtyard import (
    MAX_TIMEOUTS,
    SEATS_BY_PLAYERS,
    left_event,
    normalise_seats,
    rolled_event,
)

MEN_PER_SEAT = 4
POSITION_VERSION = 1
"""Royal's own position version (the envelope's format is shared by every rule set)."""

FACES: tuple[int | str, ...] = (1, 2, 3, 4, "feather", "crown")
"""The die's six faces, equally likely; a roll's ``value`` is one of them."""
FEATHER = 4  # face indices
CROWN = 5

BALK = -1
LANE_BASE = TRACK_LENGTH  # 52: lane space k (1..5) of colour c is 52 + 5 * c + k - 1
HOME = LANE_BASE + LANE_LENGTH * len(COLOURS)  # 72: the man's own home crown
PLACES = HOME + 2  # table rows: 0..72, then the balk's row last so that index -1 finds it

CROWN_SQUARES = frozenset(START_SQUARES)
FEATHER_SQUARES = frozenset(STAR_SQUARES)

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")

LOST_ORDER = ("start_held", "waiting", "double_home", "feather", "feather_column", "column_end",
              "blocked")
"""The causes of a lost throw, most telling first (a no_move event's ``reason``, then ``also``);
``no_man_out`` and ``in_balk`` stand alone (no man on the board)."""


def lane_place(colour_index: int, space: int) -> int:
    """The place of space ``space`` (1 = nearest the track .. 5) of a colour's home column."""
    return LANE_BASE + LANE_LENGTH * colour_index + space - 1


def lane_of(place: int) -> tuple[int, int]:
    """``(colour index, space 1..5)`` of a lane place."""
    colour_index, k = divmod(place - LANE_BASE, LANE_LENGTH)
    return colour_index, k + 1


def is_lane(place: int) -> bool:
    return LANE_BASE <= place < HOME


def _track_path(ci: int, square: int) -> tuple[int, ...]:
    """The places a man of colour ``ci`` on track ``square`` passes, in order, to its home."""
    out = []
    entrance = ENTRANCE_SQUARES[ci]
    while square != entrance:
        square = (square + 1) % TRACK_LENGTH
        out.append(square)
    return tuple(out) + tuple(lane_place(ci, k) for k in range(1, LANE_LENGTH + 1)) + (HOME,)


def path_from(ci: int, place: int) -> tuple[int, ...]:
    """Every place a man of colour ``ci`` at ``place`` would pass through to reach home.

    On the track: on to its own entrance, up its home column, home. In its own
    column: up to the home crown. In another colour's column (a rider left
    there): down that column to its entrance square, then round the board in
    the ordinary way. From the balk or home: nothing (a crown starts a man).
    """
    if place == HOME or place == BALK:
        return ()
    if is_lane(place):
        lc, k = lane_of(place)
        if lc == ci:
            return tuple(lane_place(ci, j) for j in range(k + 1, LANE_LENGTH + 1)) + (HOME,)
        down = tuple(lane_place(lc, j) for j in range(k - 1, 0, -1)) + (ENTRANCE_SQUARES[lc],)
        return down + _track_path(ci, ENTRANCE_SQUARES[lc])
    return _track_path(ci, place)


def is_crown_space(place: int) -> bool:
    return place == HOME or place in CROWN_SQUARES


def _destinations(ci: int, place: int) -> tuple[int | None, ...]:
    """Where each face (1, 2, 3, 4, feather, crown) takes a man at ``place``; None: nowhere."""
    if place == BALK:
        return (None, None, None, None, None, START_SQUARES[ci])
    path = path_from(ci, place)
    # a number moves up the column but never onto the home crown: only a crown does that
    numbers = tuple(path[n - 1] if n < len(path) else None for n in range(1, 5))
    crown = next((p for p in path if is_crown_space(p)), None)
    feather = None
    for p in path:
        if is_crown_space(p):
            break  # a feather cannot pass a crown
        if p in FEATHER_SQUARES:
            feather = p
            break
    return numbers + (feather, crown)


def _feather_stopped(ci: int, place: int) -> bool:
    """True when a crown space lies before the next feather space on the man's path."""
    for p in path_from(ci, place):
        if p in FEATHER_SQUARES:
            return False
        if is_crown_space(p):
            return True
    return False


# DESTINATION[colour][place][face]: where a man goes, precomputed (place -1, the balk, is the
# last row). Move generation, the hot path of simulation and bot search, is lookups.
DESTINATION: tuple[tuple[tuple[int | None, ...], ...], ...] = tuple(
    tuple(_destinations(ci, p) for p in range(HOME + 1)) + (_destinations(ci, BALK),)
    for ci in range(len(COLOURS))
)
FEATHER_STOPPED: tuple[tuple[bool, ...], ...] = tuple(
    tuple(_feather_stopped(ci, p) for p in range(HOME + 1)) + (False,)
    for ci in range(len(COLOURS))
)
PATHS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(path_from(ci, p) for p in range(HOME + 1)) + ((),) for ci in range(len(COLOURS)))
"""PATHS[colour][place]: :func:`path_from`, precomputed (the screen's hops follow it)."""
REMAINING: tuple[tuple[int, ...], ...] = tuple(
    tuple(len(path_from(ci, p)) for p in range(HOME + 1)) + (len(path_from(ci, 0)) + 1,)
    for ci in range(len(COLOURS))
)
"""Spaces still to go to the home crown (the balk counts one more than the starting point)."""
FULL_JOURNEY = REMAINING[0][-1]  # 57: balk to home crown


def progress(ci: int, place: int) -> int:
    """Spaces travelled: 0 in the balk, 1 on the starting point, 57 home (for ordering men).

    A man left in another colour's column may have to travel more than from its start.
    """
    return FULL_JOURNEY - REMAINING[ci][place]


class State(NamedTuple):
    """A Royal position: plain, immutable, hashable data.

    ``tokens`` has one entry per colour in :data:`ludo.geometry.COLOURS` order,
    seated or not; a colour that is not seated or has left has no men.
    ``riders`` lists every double as ``(rider colour index, rider token,
    carrier colour index, carrier token)``, sorted; the rider stands on its
    carrier's place.
    """

    rules: str
    seats: tuple[str, ...]
    tokens: tuple[tuple[int, ...], ...]
    riders: tuple[tuple[int, int, int, int], ...]
    turn: str
    phase: str  # "roll", "move", "choose" (two crowns: send back or reverse) or "over"
    die: int | str | None  # the throw waiting to be played
    # crowns thrown in succession this turn towards a carrier's pair: sending the rider back or
    # climbing on top uses the pair up (0), unless another double is still carried, for which
    # that crown is the first of the next pair (1); a second crown played as a move keeps the
    # double and counts as the first of the next pair (1)
    crowns: int
    timeouts: tuple[int, ...]
    out: tuple[str | None, ...]  # None, "quit" or "eliminated"
    winner: str | None
    rng: int


class Play(NamedTuple):
    """One legal move of the player to act.

    ``kind``: ``enter`` (a crown starts a man), ``move`` (a single man),
    ``carry`` (a carrier moves the double), ``off`` (a rider moves off alone).
    ``meets``: the opponent on the destination (``(colour index, token)``):
    climbed on by a single man, sent to balk by a double.
    """

    token: int
    origin: int
    dest: int
    kind: str
    meets: tuple[int, int] | None


_new_state = tuple.__new__
_roll_die = rng.roll_die
ROLL = Action("roll")
STAY = Action("stay")  # a rider's owner lets the throw go (see RoyalRules.may_stay)
ROLL_OUTCOMES = tuple((Action("roll", value=face), 1 / 6) for face in FACES)
ACTION_TYPES = ("roll", "move", "send_back", "reverse", "stay", "timeout", "quit")
_CLOCKWISE_AFTER = tuple(tuple((ci + k) % len(COLOURS) for k in range(1, len(COLOURS) + 1))
                         for ci in range(len(COLOURS)))


def face_of(value: Any) -> int:
    """:func:`face_index` of a value already known to be a face (a position's die)."""
    face = face_index(value)
    if face is None:
        raise IllegalAction(f"the die shows 1, 2, 3, 4, feather or crown, not {quote(value)}")
    return face


def face_index(value: Any) -> int | None:
    """The index of a face value (1..4, "feather", "crown"), or None for anything else."""
    if type(value) is int and 1 <= value <= 4:
        return value - 1
    if value == "feather" and type(value) is str:
        return FEATHER
    if value == "crown" and type(value) is str:
        return CROWN
    return None


def is_waiting(ci: int, place: int) -> bool:
    """True for a man of colour ``ci`` left in another colour's home column."""
    return LANE_BASE <= place < HOME and (place - LANE_BASE) // LANE_LENGTH != ci


def all_others_home(ci: int, men: tuple[int, ...]) -> bool:
    """Whether the men of colour ``ci`` left in other colours' columns may play down and round:
    every other man of his is home (men left waiting in a column do not count)."""
    return all(p == HOME or is_waiting(ci, p) for p in men)


def next_seat(tokens: tuple[tuple[int, ...], ...], colour_index: int) -> str:
    """The first seat clockwise after ``colour_index`` still in the match (a colour with men)."""
    for j in _CLOCKWISE_AFTER[colour_index]:
        if tokens[j]:
            return COLOURS[j]
    return COLOURS[colour_index]


def occupancy(tokens: tuple[tuple[int, ...], ...]) -> dict[int, list[tuple[int, int]]]:
    """Men on each board place (track and lanes; not the balk, not home)."""
    occ: dict[int, list[tuple[int, int]]] = {}
    for ci, men in enumerate(tokens):
        for t, p in enumerate(men):
            if 0 <= p < HOME:
                if p in occ:
                    occ[p].append((ci, t))
                else:
                    occ[p] = [(ci, t)]
    return occ


def _replace_man(tokens: tuple[tuple[int, ...], ...], ci: int, t: int,
                 place: int) -> tuple[tuple[int, ...], ...]:
    men = tokens[ci]
    men = men[:t] + (place,) + men[t + 1:]
    return tokens[:ci] + (men,) + tokens[ci + 1:]


def parse_action(data: Any, field: str = "action") -> Action:
    """A Royal action from its JSON form: roll, move, send_back, reverse, stay, timeout or quit.

    A roll's (or a timeout's) ``value`` is a face: 1, 2, 3, 4, "feather" or "crown".
    """
    if not isinstance(data, dict):
        raise NotationError(field, "must be an object like {\"type\": \"roll\"}")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise NotationError(f"{field}.type", f"must be one of {', '.join(ACTION_TYPES)}")
    unknown = set(data) - {"type", "token", "value", "seat"}
    if unknown:
        raise NotationError(field, f"unknown field(s) {', '.join(sorted(map(quote, unknown)))}")
    refuse_nulls(data, field)
    token = data.get("token")
    value = data.get("value")
    seat = data.get("seat")
    if kind in ("move", "send_back", "reverse"):
        if type(token) is not int or not 0 <= token < MEN_PER_SEAT:
            raise NotationError(f"{field}.token", "must be a man's number 0..3")
    elif token is not None:
        raise NotationError(f"{field}.token", f"is not used by a {kind} action")
    if kind in ("roll", "timeout"):
        if value is not None and face_index(value) is None:
            raise NotationError(f"{field}.value",
                                "must be a face of the die: 1, 2, 3, 4, \"feather\" or \"crown\"")
    elif value is not None:
        raise NotationError(f"{field}.value", f"is not used by a {kind} action")
    if kind == "quit":
        if not isinstance(seat, str):
            raise NotationError(f"{field}.seat", "must name the colour that quits")
    elif seat is not None:
        raise NotationError(f"{field}.seat", f"is not used by a {kind} action")
    return Action(kind, token, value, seat)


class RoyalRules:
    """The Royal Ludo rule set (one instance, :data:`ROYAL`)."""

    name = "royal"
    title = "Royal"
    summary = "crowns and feathers, carried doubles"
    min_players = 2
    max_players = 4
    options: tuple[Option, ...] = ()
    timer_default = True
    help = royal_scene.HELP
    leave = royal_scene.LEAVE
    wording = royal_scene.WORDING  # the seed's players throw the die

    def __init__(self) -> None:
        self._bot: BotFeatures | None = None
        self._last_key: Any = None
        self._last_plays: tuple[Play, ...] = ()

    def __repr__(self) -> str:
        return f"<rules {self.name}>"

    @property
    def bot(self) -> BotFeatures:
        """The computer players' evaluation of Royal (loaded on first use)."""
        if self._bot is None:
            from .royal_bot import RoyalBot

            self._bot = RoyalBot()
        return self._bot

    # -- creating ----------------------------------------------------------

    def new_game(self, seats: tuple[str, ...], seed: int,
                 options: Mapping[str, Any] | None = None) -> State:
        """The starting position: every man in balk; Red (or the first seat after it) throws."""
        if options:
            raise NotationError("options", f"{self.title} has no options")
        seats = normalise_seats(seats, self.min_players, self.max_players)
        if type(seed) is not int:
            raise NotationError("seed", "must be a whole number")
        return State(
            rules=self.name,
            seats=seats,
            tokens=tuple((BALK,) * MEN_PER_SEAT if c in seats else () for c in COLOURS),
            riders=(),
            turn=seats[0],  # seats are in clockwise order from red: "Red leads the throwing"
            phase="roll",
            die=None,
            crowns=0,
            timeouts=(0, 0, 0, 0),
            out=(None, None, None, None),
            winner=None,
            rng=rng.seed_state(seed),
        )

    def seating(self, players: int) -> tuple[str, ...]:
        """The colours that sit for 2, 3 or 4 players when nobody chooses (red always)."""
        try:
            return SEATS_BY_PLAYERS[players]
        except KeyError:
            raise NotationError("players", "Royal Ludo is for 2 to 4 players") from None

    def parse_action(self, data: Any, field: str = "action") -> Action:
        return parse_action(data, field)

    # -- asking ------------------------------------------------------------

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        """The six faces, each 1/6, at a throw; nothing at a decision."""
        return list(ROLL_OUTCOMES) if state.phase == "roll" else []

    def winners(self, state: State) -> tuple[str, ...]:
        return (state.winner,) if state.winner is not None else ()

    def active_seats(self, state: State) -> tuple[str, ...]:
        return tuple(c for c in state.seats if state.out[COLOUR_INDEX[c]] is None)

    def next_player(self, state: State) -> str | None:
        """Who throws once this turn and all its extra throws are over."""
        if state.phase == "over":
            return None
        return next_seat(state.tokens, COLOUR_INDEX[state.turn])

    def plays(self, state: State, face: int | None = None, compel: bool = True) -> list[Play]:
        """Every legal move of the player to act with the die (or ``face``, an index).

        ``compel``: a carrier whose double can move must move it (the seed's
        "in preference to all his other men"); False lists every man's moves.
        """
        if face is None:
            face = face_of(state.die)
        ci = COLOUR_INDEX[state.turn]
        return self._plays(state.tokens, state.riders, ci, face, compel)

    def _plays(self, tokens: tuple[tuple[int, ...], ...],
               riders: tuple[tuple[int, int, int, int], ...], ci: int, face: int,
               compel: bool = True) -> list[Play]:
        # a throw asks three times (is any move possible? the legal list; the chosen move):
        # the last answer is kept, keyed by everything it depends on
        key = (tokens, riders, ci, face, compel)
        if key == self._last_key:
            return list(self._last_plays)
        found = self._find_plays(tokens, riders, ci, face, compel)
        self._last_key = key
        self._last_plays = tuple(found)
        return found

    @staticmethod
    def _find_plays(tokens: tuple[tuple[int, ...], ...],
                    riders: tuple[tuple[int, int, int, int], ...], ci: int, face: int,
                    compel: bool) -> list[Play]:
        mine = tokens[ci]
        table = DESTINATION[ci]
        carrying: dict[int, tuple[int, int]] = {}
        riding: set[int] = set()
        for rc, rt, cc, ct in riders:
            if cc == ci:
                carrying[ct] = (rc, rt)
            elif rc == ci:
                riding.add(rt)
        # where each man could go; the board is looked at only when somebody can move
        wanted = [(t, origin, dest) for t, origin in enumerate(mine)
                  if origin != HOME and (dest := table[origin][face]) is not None]
        if not wanted:
            return []
        # occupied places: (colour index, token) of a lone man, None for two men
        occ: dict[int, tuple[int, int] | None] = {}
        for oi, men in enumerate(tokens):
            for ot, p in enumerate(men):
                if 0 <= p < HOME:
                    occ[p] = None if p in occ else (oi, ot)
        found: list[Play] = []
        if carrying:
            for t, origin, dest in wanted:
                if t not in carrying or dest == HOME:
                    continue  # the home crown takes only a player's own finished men
                if dest not in occ:
                    found.append(Play(t, origin, dest, "carry", None))
                    continue
                here = occ[dest]
                if dest < LANE_BASE and here is not None and here[0] != ci:
                    # "a man carrying a double comes to a space occupied by an opponent"
                    found.append(Play(t, origin, dest, "carry", here))
            if found and compel:
                return found
        stranded_free = None
        for t, origin, dest in wanted:
            if t in carrying:
                continue
            if LANE_BASE <= origin < HOME and (origin - LANE_BASE) // LANE_LENGTH != ci:
                # left in another colour's column: waits until all the owner's others are
                # home (others left waiting in a column too do not count: two such men would
                # otherwise wait for each other for ever)
                if stranded_free is None:
                    stranded_free = all_others_home(ci, mine)
                if not stranded_free:
                    continue
            if dest == HOME:
                found.append(Play(t, origin, dest, "off" if t in riding else "move", None))
                continue
            if dest not in occ:
                kind = "enter" if origin == BALK else "off" if t in riding else "move"
                found.append(Play(t, origin, dest, kind, None))
                continue
            here = occ[dest]
            if t in riding or dest >= LANE_BASE or here is None or here[0] == ci:
                # a rider moving off needs an empty space; home columns are out of danger;
                # never onto a double, never onto one's own man
                continue
            found.append(Play(t, origin, dest, "enter" if origin == BALK else "move", here))
        return found

    def two_crown_options(self, state: State) -> list[tuple[str, int]]:
        """The carrier's choices after two crowns in succession: (kind, carrier token).

        For each double the player to act carries: ``send_back`` (the rider goes
        to its balk) and ``reverse`` (the carrier climbs on top), but only
        ``send_back`` when no other man of the player could play the crown.
        """
        ci = COLOUR_INDEX[state.turn]
        options: list[tuple[str, int]] = []
        carriers = sorted(ct for _, _, cc, ct in state.riders if cc == ci)
        if not carriers:
            return options
        every = self._plays(state.tokens, state.riders, ci, CROWN, compel=False)
        for ct in carriers:
            options.append(("send_back", ct))
            if any(p.token != ct for p in every):
                options.append(("reverse", ct))
        return options

    def may_stay(self, state: State) -> bool:
        """Whether the player to act may let the throw go: every move it has is a rider of his
        moving off alone, which the seed leaves to him ("The double may move off alone again
        when he pleases"), so he may also stay on top and lose the throw."""
        if state.phase != "move":
            return False
        found = self.plays(state)
        return bool(found) and all(p.kind == "off" for p in found)

    def legal_actions(self, state: State) -> list[Action]:
        """``[roll]`` before a throw, the legal moves after it (and ``stay`` when every move is
        a rider moving off); after two crowns in succession a carrier's choices (send back,
        climb on top) and the crown's ordinary moves."""
        phase = state.phase
        if phase == "roll":
            return [ROLL]
        if phase == "move":
            return [Action("move", token=p.token) for p in self.plays(state)] + (
                [STAY] if self.may_stay(state) else [])
        if phase == "choose":
            return [Action(kind, token=t) for kind, t in self.two_crown_options(state)] + [
                Action("move", token=p.token) for p in self.plays(state)]
        return []

    def distinct_moves(self, state: State) -> list[Action]:
        """One decision per distinct outcome: men in the balk started by a crown are one."""
        if state.phase not in ("move", "choose"):
            return []
        moves = [Action(kind, token=t) for kind, t in self.two_crown_options(state)] \
            if state.phase == "choose" else []
        seen_balk = False
        for p in self.plays(state):
            if p.origin == BALK:
                if seen_balk:
                    continue
                seen_balk = True
            moves.append(Action("move", token=p.token))
        if self.may_stay(state):
            moves.append(STAY)
        return moves

    def auto_action(self, state: State) -> Action | None:
        moves = self.distinct_moves(state)
        return moves[0] if len(moves) == 1 else None

    # -- telling -------------------------------------------------------------

    def scene(self, state: State) -> Scene:
        return royal_scene.scene(self, state)

    def board(self, state: State | None) -> Board:
        return royal_scene.board(state)

    def choices(self, state: State) -> list[Choice]:
        return royal_scene.choices(self, state)

    def describe(self, event: Event, names: Names) -> str | None:
        return royal_scene.describe(event, names)

    def violations(self, before: State, after: State, events: list[Event]) -> list[str]:
        """Every broken invariant of one applied action (empty when all is well)."""
        return royal_scene.violations(self, before, after, events)

    # -- changing ------------------------------------------------------------

    def resolve(self, state: State, action: Action) -> Action:
        """Fill in the face the RNG will supply for a throw or a timeout's throw."""
        if action.value is None and (
            action.type == "roll"
            or (action.type == "timeout" and state.phase == "roll"
                and state.timeouts[COLOUR_INDEX[state.turn]] + 1 < MAX_TIMEOUTS)
        ):
            return action._replace(value=FACES[_roll_die(state.rng)[1] - 1])
        return action

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Apply a checked action; raise IllegalAction without changing anything."""
        events: list[Event] = []
        return self._advance(state, action, events), events

    def advance(self, state: State, action: Action) -> State:
        """:meth:`apply` without building events."""
        return self._advance(state, action, None)

    def _advance(self, state: State, action: Action, events: list[Event] | None) -> State:
        kind = action.type
        phase = state.phase
        if kind == "roll" and phase == "roll":
            return self._roll(state, action.value, events)
        if kind == "move" and phase == "move":
            return self._move(state, action.token, events)
        if kind == "move" and phase == "choose":
            # after two crowns the carrier "may" send back or climb on top: he may also play
            # the crown as an ordinary move. That keeps the double, so the crown counts as the
            # first of the next pair: a crown thrown straight after it is again "two crowns in
            # succession" (only sending back or climbing on top uses the pair up)
            return self._move(state._replace(crowns=1), action.token, events)
        if phase == "over":
            raise IllegalAction("the game is over")
        if kind == "stay":
            return self._stay(state, events)
        if kind in ("send_back", "reverse"):
            if phase != "choose":
                raise IllegalAction(f"{kind} is only for a carrier who has thrown two crowns "
                                    "in succession")
            return self._choose(state, kind, action.token, events)
        if kind == "roll":
            if phase == "choose":
                raise IllegalAction(f"{state.turn} must first play the second crown: "
                                    + royal_scene.either(self._choose_words(state)))
            raise IllegalAction(f"{state.turn} must move a man before throwing again")
        if kind == "move":
            raise IllegalAction(f"{state.turn} must throw before moving")
        if kind == "timeout":
            return self._timeout(state, action.value, events)
        if kind == "quit":
            return self._quit(state, action.seat, events)
        raise IllegalAction(f"unknown action type {quote(kind)}")

    def _roll(self, state: State, value: Any, events: list[Event] | None,
              clock: bool = False) -> State:
        if value is not None and face_index(value) is None:
            raise IllegalAction(f"the die shows 1, 2, 3, 4, feather or crown, not {quote(value)}")
        # the RNG advances even when the value is given (replays, online dice)
        seed_state, drawn = _roll_die(state.rng)
        if value is None:
            value = FACES[drawn - 1]
        face = face_of(value)
        turn = state.turn
        ci = COLOUR_INDEX[turn]
        if events is not None:
            events.append(rolled_event(turn, value, clock))
        crowns = state.crowns + 1 if face == CROWN else state.crowns
        state = state._replace(rng=seed_state, die=value, crowns=crowns)
        return self._after_throw(state, ci, face, events)

    def _after_throw(self, state: State, ci: int, face: int, events: list[Event] | None) -> State:
        """The thrown face (``state.die``) asks for a move, a two-crowns choice, or is lost."""
        turn = state.turn
        value = state.die
        if face == CROWN and state.crowns >= 2 and any(cc == ci for _, _, cc, _ in state.riders):
            options = self.two_crown_options(state)
            if len(options) == 1:
                # "the double must go to balk if his carrier has no other man to move"
                return self._choose(state, "send_back", options[0][1], events, forced=True)
            if events is not None:  # says what the choice is about (the screen offers it)
                events.append(self._two_crowns_event(state, ci, options))
            return state._replace(phase="choose")
        if self._plays(state.tokens, state.riders, ci, face):
            return state._replace(phase="move")
        if events is not None:
            reasons = self._why_lost(state, ci, face)
            event: Event = {"type": "no_move", "seat": turn, "value": value, "reason": reasons[0]}
            if len(reasons) > 1:
                event["also"] = reasons[1:]
            events.append(event)
        if face == CROWN:
            return self._extra_throw(state, events)
        return self._next_turn(state, events)

    def _choose_words(self, state: State) -> list[str]:
        """What the player to act may do with his second crown, in words (only what is
        offered)."""
        kinds = [kind for kind, _ in self.two_crown_options(state)]
        several = kinds.count("send_back") > 1
        words = [f"send {'a' if several else 'the'} rider to balk"]
        if "reverse" in kinds:
            words.append("climb on top")
        if self.plays(state):
            words.append("move a man")
        return words

    def _two_crowns_event(self, state: State, ci: int,
                          options: list[tuple[str, int]]) -> Event:
        """The ``two_crowns`` event, naming exactly the options offered: the riders that may be
        sent back, those the carrier may climb on, and whether the crown may be played as a
        move."""
        rider_of = {ct: [COLOURS[rc], rt] for rc, rt, cc, ct in state.riders if cc == ci}
        return {"type": "two_crowns", "seat": state.turn,
                "riders": [rider_of[ct] for ct in sorted(rider_of)],
                "send_back": [rider_of[t] for kind, t in options if kind == "send_back"],
                "reverse": [rider_of[t] for kind, t in options if kind == "reverse"],
                "move": bool(self._plays(state.tokens, state.riders, ci, CROWN))}

    def _why_lost(self, state: State, ci: int, face: int) -> list[str]:
        """Why no man of colour ``ci`` can play ``face`` (the throw is lost): every cause, most
        telling first (royal_scene.LOST_REASONS words each). Each man's cause is found as
        :meth:`_find_plays` would refuse him; "needs a crown" for men in the balk is said only
        when no man is on the board (otherwise the men out say why)."""
        mine = state.tokens[ci]
        table = DESTINATION[ci]
        carrying = {ct for _, _, cc, ct in state.riders if cc == ci}
        occ = occupancy(state.tokens)
        free = all_others_home(ci, mine)
        causes: set[str] = set()
        for t, place in enumerate(mine):
            if place == HOME:
                continue
            if place == BALK:
                if face != CROWN:
                    causes.add("crown_needed")
                else:  # the starting point holds a double, or his own man
                    start = START_SQUARES[ci]
                    causes.add("start_held" if len(occ.get(start, ())) == 2 else "blocked")
                continue
            if is_waiting(ci, place) and not free:
                causes.add("waiting")
                continue
            dest = table[place][face]
            own_column = is_lane(place) and not is_waiting(ci, place)
            if dest is None and face == FEATHER:
                causes.add("feather_column" if own_column else "feather")
            elif dest is None and own_column:  # a number past the column's last space: the
                causes.add("column_end")  # end of every game, so it says so (seed review 2)
            elif dest == HOME and t in carrying:
                causes.add("double_home")
            else:  # onto his own man, a double, an occupied column space
                causes.add("blocked")
        if causes == {"crown_needed"}:
            return ["no_man_out" if HOME not in mine else "in_balk"]
        return [c for c in LOST_ORDER if c in causes]

    def _extra_throw(self, state: State, events: list[Event] | None) -> State:
        if events is not None:
            events.append({"type": "extra_roll", "seat": state.turn, "reason": "crown"})
        return _new_state(State, (state.rules, state.seats, state.tokens, state.riders,
                                  state.turn, "roll", None, state.crowns, state.timeouts,
                                  state.out, None, state.rng))

    def _next_turn(self, state: State, events: list[Event] | None) -> State:
        nxt = next_seat(state.tokens, COLOUR_INDEX[state.turn])
        if events is not None:
            events.append({"type": "turn", "seat": nxt})
        return _new_state(State, (state.rules, state.seats, state.tokens, state.riders, nxt,
                                  "roll", None, 0, state.timeouts, state.out, None, state.rng))

    def _move(self, state: State, token: Any, events: list[Event] | None) -> State:
        colour = state.turn
        ci = COLOUR_INDEX[colour]
        if type(token) is not int or not 0 <= token < MEN_PER_SEAT:
            raise IllegalAction(f"{colour} has no man {quote(token)}")
        face = face_of(state.die)
        found = self._plays(state.tokens, state.riders, ci, face)
        play = next((p for p in found if p.token == token), None)
        if play is None:
            raise IllegalAction(self._why_not(state, ci, token, face, found))
        return self._play(state, play, events)

    def _why_not(self, state: State, ci: int, token: int, face: int, found: list[Play]) -> str:
        colour = state.turn
        man = f"{colour} man {token}"
        place = state.tokens[ci][token]
        if found and found[0].kind == "carry" and all(p.kind == "carry" for p in found):
            return f"{colour} must move the double it carries"
        if any(cc == ci and ct == token for _, _, cc, ct in state.riders):
            return f"{man} carries a double that cannot move {FACES[face]}"
        if place == HOME:
            return f"{man} is already home"
        if place == BALK:
            return f"{man} is in the balk; only a crown starts a man"
        return f"{man} cannot move {FACES[face]}"

    def _play(self, state: State, play: Play, events: list[Event] | None) -> State:
        colour = state.turn
        ci = COLOUR_INDEX[colour]
        token, origin, dest, kind, meets = play
        tokens = _replace_man(state.tokens, ci, token, dest)
        riders = state.riders
        if kind == "carry":
            rider = next((rc, rt) for rc, rt, cc, ct in riders if cc == ci and ct == token)
            tokens = _replace_man(tokens, rider[0], rider[1], dest)
            if events is not None:
                events.append({"type": "moved", "seat": colour, "token": token, "from": origin,
                               "to": dest, "rider": [COLOURS[rider[0]], rider[1]],
                               **royal_scene.motion(ci, token, origin, dest, rider)})
            if meets is not None:
                tokens = _replace_man(tokens, meets[0], meets[1], BALK)
                if events is not None:
                    events.append({"type": "captured", "seat": colour, "place": dest,
                                   "victims": [[COLOURS[meets[0]], meets[1]]],
                                   "reason": "double"})
            if dest >= LANE_BASE:
                # carried into the carrier's home column: the rider gets off and stays there
                riders = tuple(r for r in riders if not (r[2] == ci and r[3] == token))
                if events is not None:
                    left: Event = {"type": "left_in_column", "seat": COLOURS[rider[0]],
                                   "token": rider[1], "place": dest, "column": colour}
                    if all_others_home(rider[0], tokens[rider[0]]):
                        # nothing to wait for: "the rest are home" would be said falsely
                        left["free"] = True
                    events.append(left)
        else:
            if kind == "off":
                riders = tuple(r for r in riders if not (r[0] == ci and r[1] == token))
            if events is not None:
                if kind == "enter":
                    events.append({"type": "entered", "seat": colour, "token": token,
                                   "to": dest, **royal_scene.motion(ci, token, origin, dest)})
                else:
                    event = {"type": "moved", "seat": colour, "token": token, "from": origin,
                             "to": dest, **royal_scene.motion(ci, token, origin, dest)}
                    if kind == "off":
                        event["off"] = True
                    events.append(event)
            if meets is not None:
                riders = tuple(sorted(riders + ((ci, token, meets[0], meets[1]),)))
                if events is not None:
                    events.append({"type": "doubled", "seat": colour, "token": token,
                                   "place": dest, "carrier": [COLOURS[meets[0]], meets[1]]})
        state = _new_state(State, (state.rules, state.seats, tokens, riders, colour, "move",
                                   state.die, state.crowns, state.timeouts, state.out, None,
                                   state.rng))
        if dest == HOME:
            if events is not None:
                events.append({"type": "reached_home", "seat": colour, "token": token})
            if all(p == HOME for p in tokens[ci]):
                if events is not None:
                    events.append({"type": "won", "seat": colour})
                return state._replace(phase="over", die=None, winner=colour, crowns=0)
        if state.die == "crown":
            return self._extra_throw(state, events)
        return self._next_turn(state, events)

    def _stay(self, state: State, events: list[Event] | None) -> State:
        """The player lets the throw go: his riders stay on top (the throw is lost; a crown
        still earns another throw)."""
        colour = state.turn
        if state.phase != "move":
            raise IllegalAction(f"{colour} has no throw to let go: staying on top is for a "
                                "throw whose only moves are riders moving off")
        if not self.may_stay(state):
            raise IllegalAction(f"{colour} must move a man: staying on top is only for a throw "
                                "whose only moves are riders moving off")
        ci = COLOUR_INDEX[colour]
        if events is not None:
            riding = [(rt, [COLOURS[cc], ct]) for rc, rt, cc, ct in state.riders if rc == ci]
            events.append({"type": "stayed", "seat": colour, "value": state.die,
                           "tokens": [t for t, _ in riding],
                           "carriers": [carrier for _, carrier in riding]})
        if face_of(state.die) == CROWN:
            return self._extra_throw(state, events)
        return self._next_turn(state, events)

    def _choose(self, state: State, kind: str, token: Any, events: list[Event] | None,
                forced: bool = False) -> State:
        colour = state.turn
        ci = COLOUR_INDEX[colour]
        if not forced and (kind, token) not in self.two_crown_options(state):
            if type(token) is int and any(cc == ci and ct == token
                                          for _, _, cc, ct in state.riders):
                raise IllegalAction(f"{colour} has no other man to move: the rider must go "
                                    "to balk")
            raise IllegalAction(f"{colour} man {quote(token)} carries no double")
        rc, rt, _, _ = next(r for r in state.riders if r[2] == ci and r[3] == token)
        riders = tuple(r for r in state.riders if not (r[2] == ci and r[3] == token))
        tokens = state.tokens
        if kind == "send_back":
            place = tokens[rc][rt]
            tokens = _replace_man(tokens, rc, rt, BALK)
            if events is not None:
                events.append({"type": "captured", "seat": colour, "place": place,
                               "victims": [[COLOURS[rc], rt]],
                               "reason": "two_crowns_forced" if forced else "two_crowns"})
        else:
            riders = tuple(sorted(riders + ((ci, token, rc, rt),)))
            if events is not None:
                events.append({"type": "reversed", "seat": colour, "token": token,
                               "carrier": [COLOURS[rc], rt]})
        # The pair was about the double just ended. A double still carried (a second one)
        # was carried through this crown too: for it the crown is the first of the next pair,
        # as a crown played as a move is, so a crown straight after is again two in succession.
        still_carrying = any(cc == ci for _, _, cc, _ in riders)
        state = state._replace(tokens=tokens, riders=riders, crowns=1 if still_carrying else 0)
        return self._extra_throw(state, events)

    def timeout_choice(self, state: State) -> Action:
        """What a timeout plays: deterministic, so every peer agrees.

        Two crowns: send the rider back. A throw whose only moves are riders moving
        off: stay on top (moving off is the player's choice, and he made none), unless
        moving off takes a rider home, which no player would pass up (and which may win
        the game). A move: one that gets a man home, then one that sends a man to balk,
        then one that climbs on an opponent, then starting a man, then the man furthest
        along; ties to the lowest number.
        """
        if state.phase == "choose":
            kind, token = self.two_crown_options(state)[0]
            return Action(kind, token=token)
        if self.may_stay(state):
            home = [p.token for p in self.plays(state) if p.dest == HOME]
            return Action("move", token=min(home)) if home else STAY
        ci = COLOUR_INDEX[state.turn]
        best = max(self.plays(state), key=lambda p: (
            p.dest == HOME, p.kind == "carry" and p.meets is not None, p.meets is not None,
            p.origin == BALK, progress(ci, p.origin), -p.token))
        return Action("move", token=best.token)

    def _timeout(self, state: State, value: Any, events: list[Event] | None) -> State:
        if state.phase != "roll" and value is not None:
            raise IllegalAction("a timeout after the throw plays the thrown face; give no value")
        if value is not None and face_index(value) is None:
            raise IllegalAction(f"the die shows 1, 2, 3, 4, feather or crown, not {quote(value)}")
        colour = state.turn
        ci = COLOUR_INDEX[colour]
        count = state.timeouts[ci] + 1
        state = state._replace(timeouts=state.timeouts[:ci] + (count,) + state.timeouts[ci + 1:])
        if events is not None:
            events.append({"type": "timeout", "seat": colour, "count": count, "notice": True})
        if count >= MAX_TIMEOUTS:
            return self._remove_seat(state, colour, "eliminated", events)
        if state.phase == "roll":
            state = self._roll(state, value, events, clock=True)
            if state.phase not in ("move", "choose") or state.turn != colour:
                return state
        return self._advance(state, self.timeout_choice(state), events)

    def _quit(self, state: State, seat: Any, events: list[Event] | None) -> State:
        if not isinstance(seat, str) or seat not in state.seats:
            raise IllegalAction(f"{quote(seat)} is not a seat in this game")
        if state.out[COLOUR_INDEX[seat]] is not None:
            raise IllegalAction(f"{seat} has already left this game")
        return self._remove_seat(state, seat, "quit", events)

    def _remove_seat(self, state: State, seat: str, reason: str,
                     events: list[Event] | None) -> State:
        si = COLOUR_INDEX[seat]
        options_before = self.two_crown_options(state) if state.phase == "choose" else []
        tokens = state.tokens[:si] + ((),) + state.tokens[si + 1:]
        out = state.out[:si] + (reason,) + state.out[si + 1:]
        # its riders leave with it; a man it carried stays on that space, alone
        riders = tuple(r for r in state.riders if r[0] != si and r[2] != si)
        if events is not None:
            events.append(left_event(seat, reason))
        state = state._replace(tokens=tokens, out=out, riders=riders)
        remaining = self.active_seats(state)
        if len(remaining) == 1:
            if events is not None:
                events.append({"type": "won", "seat": remaining[0]})
            return state._replace(phase="over", winner=remaining[0], die=None, crowns=0)
        if seat == state.turn:
            return self._next_turn(state, events)
        if state.phase in ("move", "choose"):
            ti = COLOUR_INDEX[state.turn]
            face = face_of(state.die)
            if state.phase == "choose" and self.two_crown_options(state) != options_before:
                # the leaving seat lifted its rider off a double of the choice, or freed a
                # space: the crown is played afresh. With no double left it is an ordinary
                # crown; if the carrier has no other man to move any more, the rider must go to
                # balk (a choice of one is not a choice); otherwise the new choice is said
                said = len(events) if events is not None else 0
                state = self._after_throw(state._replace(phase="move"), ti, face, events)
                for event in (events or [])[said:]:
                    if event.get("reason") == "two_crowns_forced":
                        # settled by another seat's leaving, not by the carrier's own throw:
                        # his choice vanished from the screen, so it is shown, not just logged
                        event["notice"] = True
                return state
            if state.phase == "move" and not self._plays(state.tokens, riders, ti, face):
                return self._after_throw(state, ti, face, events)
        return state

    # -- notation ----------------------------------------------------------

    def to_json(self, state: State) -> dict[str, Any]:
        """The position's JSON notation (docs/notation.md, "Royal positions")."""
        return {
            "format": POSITION_FORMAT,
            "version": POSITION_VERSION,
            "rules": state.rules,
            "seats": list(state.seats),
            "turn": state.turn,
            "phase": state.phase,
            "die": state.die,
            "crowns": state.crowns,
            "men": {c: [format_place(p) for p in state.tokens[COLOUR_INDEX[c]]]
                    for c in state.seats},
            "doubles": [{"carrier": [COLOURS[cc], ct], "rider": [COLOURS[rc], rt]}
                        for rc, rt, cc, ct in sorted(state.riders, key=lambda r: (r[2], r[3]))],
            "timeouts": {c: state.timeouts[COLOUR_INDEX[c]] for c in state.seats},
            "out": {c: state.out[COLOUR_INDEX[c]] for c in state.seats
                    if state.out[COLOUR_INDEX[c]] is not None},
            "winner": state.winner,
            "rng": f"{state.rng:016x}",
        }

    def from_json(self, data: dict[str, Any]) -> State:
        """Parse and check a Royal position; every error names its field."""
        return _PositionReader(self, data).read()


def format_place(place: int) -> str | int:
    """Notation for a man's place: "balk", 0..51, "<colour>-lane-<1..5>" or "home"."""
    if place == BALK:
        return "balk"
    if place == HOME:
        return "home"
    if place >= LANE_BASE:
        lc, k = lane_of(place)
        return f"{COLOURS[lc]}-lane-{k}"
    return place


def parse_place(value: Any, field: str) -> int:
    """Inverse of :func:`format_place`."""
    if value == "balk" and type(value) is str:
        return BALK
    if value == "home" and type(value) is str:
        return HOME
    if type(value) is int:
        if 0 <= value < TRACK_LENGTH:
            return value
        raise NotationError(field, f"track spaces are 0..{TRACK_LENGTH - 1}, not {value}")
    if isinstance(value, str) and value.count("-lane-") == 1:
        lane_colour, _, number = value.partition("-lane-")
        if lane_colour in COLOUR_INDEX and number in ("1", "2", "3", "4", "5"):
            return lane_place(COLOUR_INDEX[lane_colour], int(number))
    raise NotationError(field, f"{quote(value)} is not a place (use \"balk\", 0..51, "
                        "\"<colour>-lane-1..5\" or \"home\")")


class _PositionReader:
    """Builds a State from JSON, checking that it could have arisen in play."""

    KNOWN = ("format", "version", "rules", "seats", "turn", "phase", "die", "crowns", "men",
             "doubles", "timeouts", "out", "winner", "rng")

    def __init__(self, rules: RoyalRules, data: Any) -> None:
        self.rules = rules
        self.data = data

    def field(self, name: str, kinds: type | tuple[type, ...]) -> Any:
        value = self.data[name]
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise NotationError(name, wrong_type(value, kinds))
        return value

    def read(self) -> State:
        data = self.data
        if not isinstance(data, dict):
            raise NotationError("position", "must be a JSON object")
        if data.get("format") != POSITION_FORMAT:
            raise NotationError("format", f"must be {quote(POSITION_FORMAT)}")
        version = data.get("version")
        if type(version) is not int or version != POSITION_VERSION:
            raise NotationError("version", f"version {quote(version)} is not supported (this app "
                                f"reads Royal positions of version {POSITION_VERSION})")
        extra = set(data) - set(self.KNOWN)
        if extra:
            raise NotationError(sorted(map(str, extra))[0], "is not a field of a Royal position")
        for name in self.KNOWN:
            if name not in data:
                raise NotationError(name, "is missing")
        if data["rules"] != self.rules.name:
            raise NotationError("rules", f"expected {quote(self.rules.name)}")
        seats = normalise_seats(self.field("seats", list), self.rules.min_players,
                                self.rules.max_players)
        if list(seats) != data["seats"]:
            raise NotationError("seats", f"must be in clockwise order: {', '.join(seats)}")
        out = self.read_out(seats)
        timeouts = self.read_timeouts(seats, out)
        tokens = self.read_men(seats, out)
        riders = self.read_doubles(seats, tokens)
        self.check_places(tokens, riders, seats)
        active = [c for c in seats if out[COLOUR_INDEX[c]] is None]

        phase = self.field("phase", str)
        if phase not in ("roll", "move", "choose", "over"):
            raise NotationError("phase", "must be \"roll\", \"move\", \"choose\" or \"over\"")
        turn = self.field("turn", str)
        if turn not in seats:
            raise NotationError("turn", f"{quote(turn)} is not a seat in this game")
        winner = data["winner"]
        finished = [c for c in active if all(p == HOME for p in tokens[COLOUR_INDEX[c]])]
        if phase == "over":
            if winner not in seats:
                raise NotationError("winner", "a finished game names its winner")
            if winner not in finished and active != [winner]:
                raise NotationError("winner", f"{winner} has neither four men home nor is "
                                    "the last player remaining")
        else:
            if winner is not None:
                raise NotationError("winner", "only a finished game has a winner")
            if out[COLOUR_INDEX[turn]] is not None:
                raise NotationError("turn", f"{turn} has left the game and cannot have the turn")
            if len(active) < 2:
                raise NotationError("out", "a running game needs two players remaining")
            if finished:
                raise NotationError(f"men.{finished[0]}", "four men are home but the game is "
                                    "not over")
        if len(finished) > 1:
            raise NotationError(f"men.{finished[1]}", f"four men are home, but so are "
                                f"{finished[0]}'s: the game ends when the first has four home")
        if phase == "over" and winner in finished and turn != winner:
            raise NotationError("turn", f"{winner} won by getting his fourth man home, so the "
                                "game ended on his turn")

        crowns = data["crowns"]
        if type(crowns) is not int or crowns < 0:
            raise NotationError("crowns", "must be a whole number 0 or more")
        if crowns > MAX_COUNT:
            raise NotationError("crowns", f"must be 0 to {MAX_COUNT}")
        die = data["die"]
        face = face_index(die)
        ci = COLOUR_INDEX[turn]
        carrying = any(cc == ci for _, _, cc, _ in riders)
        if phase in ("move", "choose"):
            if face is None:
                raise NotationError("die", f"the {phase} phase needs the thrown face: 1, 2, 3, "
                                    "4, \"feather\" or \"crown\"")
            if face == CROWN and crowns == 0:
                raise NotationError("crowns", "must count the crown just thrown")
        elif die is not None:
            raise NotationError("die", f"must be null in the {phase} phase")
        if phase == "over" and crowns:
            raise NotationError("crowns", "must be 0 once the game is over")
        if carrying and phase != "over" and crowns > (2 if phase == "choose" else 1):
            raise NotationError("crowns", f"{turn} carries a double, so a second crown would "
                                "already have given the two-crowns choice")

        rng_text = self.field("rng", str)
        if len(rng_text) != 16 or not all(c in _HEX_DIGITS for c in rng_text):
            raise NotationError("rng", "must be 16 hexadecimal digits")

        state = State(
            rules=self.rules.name, seats=seats, tokens=tuple(tokens), riders=riders, turn=turn,
            phase=phase, die=die, crowns=crowns, timeouts=tuple(timeouts), out=tuple(out),
            winner=winner, rng=int(rng_text, 16),
        )
        if phase == "move":
            if face == CROWN and crowns >= 2 and carrying:
                raise NotationError("phase", f"{turn} carries a double and has thrown two crowns "
                                    "in succession: the phase is \"choose\"")
            if not self.rules.plays(state):
                raise NotationError("die", f"{turn} has no legal move with {die}, so the throw "
                                    "would have been lost")
        if phase == "choose":
            if face != CROWN or crowns != 2 or not carrying:
                raise NotationError("phase", "\"choose\" follows only a carrier's second crown "
                                    "in succession (die \"crown\", crowns 2)")
            if len(self.rules.two_crown_options(state)) == 1:
                raise NotationError("phase", f"{turn} has no other man to move, so the rider "
                                    "would already have gone to balk")
        return state

    def read_out(self, seats: tuple[str, ...]) -> list[str | None]:
        out_data = self.field("out", dict)
        out: list[str | None] = [None] * len(COLOURS)
        for colour, reason in out_data.items():
            if colour not in seats:
                raise NotationError(f"out.{colour}", "is not a seat in this game")
            if reason not in ("quit", "eliminated"):
                raise NotationError(f"out.{colour}", "must be \"quit\" or \"eliminated\"")
            out[COLOUR_INDEX[colour]] = reason
        return out

    def read_timeouts(self, seats: tuple[str, ...], out: list[str | None]) -> list[int]:
        data = self.field("timeouts", dict)
        timeouts = [0] * len(COLOURS)
        for colour in data:
            if colour not in seats:
                raise NotationError(f"timeouts.{colour}", "is not a seat in this game")
        for colour in seats:
            count = data.get(colour)
            name = f"timeouts.{colour}"
            if type(count) is not int:
                raise NotationError(name, "must be a whole number")
            if not 0 <= count <= MAX_TIMEOUTS:
                raise NotationError(name, f"must be 0..{MAX_TIMEOUTS}")
            if (count == MAX_TIMEOUTS) != (out[COLOUR_INDEX[colour]] == "eliminated"):
                raise NotationError(name, f"a seat is eliminated exactly on timeout {MAX_TIMEOUTS}")
            timeouts[COLOUR_INDEX[colour]] = count
        return timeouts

    def read_men(self, seats: tuple[str, ...], out: list[str | None]) -> list[tuple[int, ...]]:
        data = self.field("men", dict)
        tokens: list[tuple[int, ...]] = [()] * len(COLOURS)
        for colour in data:
            if colour not in seats:
                raise NotationError(f"men.{colour}", "is not a seat in this game")
        for colour in seats:
            name = f"men.{colour}"
            listed = data.get(colour)
            if not isinstance(listed, list):
                raise NotationError(name, "must be a list of places")
            removed = out[COLOUR_INDEX[colour]] is not None
            want = 0 if removed else MEN_PER_SEAT
            if len(listed) != want:
                why = "a seat that has left has no men" if removed else "a seat has 4 men"
                raise NotationError(name, f"has {len(listed)} men; {why}")
            tokens[COLOUR_INDEX[colour]] = tuple(
                parse_place(v, f"{name}[{i}]") for i, v in enumerate(listed))
        return tokens

    def read_doubles(self, seats: tuple[str, ...], tokens: list[tuple[int, ...]]
                     ) -> tuple[tuple[int, int, int, int], ...]:
        data = self.field("doubles", list)
        riders = []
        used: set[tuple[int, int]] = set()
        for i, entry in enumerate(data):
            name = f"doubles[{i}]"
            if not isinstance(entry, dict) or set(entry) != {"carrier", "rider"}:
                raise NotationError(name, "must be {\"carrier\": [colour, man], "
                                    "\"rider\": [colour, man]}")
            men = []
            for role in ("carrier", "rider"):
                ref = entry[role]
                if (not isinstance(ref, list) or len(ref) != 2 or not isinstance(ref[0], str)
                        or ref[0] not in COLOUR_INDEX
                        or type(ref[1]) is not int or not 0 <= ref[1] < MEN_PER_SEAT):
                    raise NotationError(f"{name}.{role}", "must be [colour, man 0..3]")
                ci = COLOUR_INDEX[ref[0]]
                if not tokens[ci]:
                    raise NotationError(f"{name}.{role}", f"{ref[0]} has no men on the board")
                if (ci, ref[1]) in used:
                    raise NotationError(f"{name}.{role}", f"{ref[0]} man {ref[1]} is already "
                                        "in a double")
                used.add((ci, ref[1]))
                men.append((ci, ref[1]))
            (cc, ct), (rc, rt) = men
            if cc == rc:
                raise NotationError(f"{name}.rider", "a man only ever rides on an opponent")
            place = tokens[cc][ct]
            if not 0 <= place < TRACK_LENGTH:
                raise NotationError(f"{name}.carrier", "a double stands on a track space")
            if tokens[rc][rt] != place:
                raise NotationError(f"{name}.rider", "must stand on its carrier's space")
            riders.append((rc, rt, cc, ct))
        carriers = [(cc, ct) for _, _, cc, ct in riders]
        if carriers != sorted(carriers):
            # as the writer lists them: read in another order, a position would not round-trip
            listed = ", ".join(f"{COLOURS[cc]} {ct}" for cc, ct in sorted(carriers))
            raise NotationError("doubles", f"must be listed by carrier, colours clockwise and "
                                f"then men in order: {listed}")
        return tuple(sorted(riders))

    def check_places(self, tokens: list[tuple[int, ...]],
                     riders: tuple[tuple[int, int, int, int], ...],
                     seats: tuple[str, ...]) -> None:
        occ = occupancy(tuple(tokens))
        doubles = {(r[0], r[1]) for r in riders} | {(r[2], r[3]) for r in riders}
        for place, men in occ.items():
            colour, token = COLOURS[men[0][0]], men[0][1]
            name = f"men.{colour}[{token}]"
            if len(men) > 2:
                raise NotationError(name, f"{len(men)} men on {quote(format_place(place))}; a "
                                    "space holds at most 2")
            if len(men) == 2 and men[0][0] == men[1][0]:
                raise NotationError(name, f"two {colour} men on {quote(format_place(place))}; a "
                                    "man never plays onto his own man")
            if place < TRACK_LENGTH:
                if len(men) == 2 and not all(m in doubles for m in men):
                    raise NotationError(name, f"two men on track space {place} must be a double "
                                        "(listed in doubles)")
                continue
            lc, k = lane_of(place)
            for m in men:
                if m[0] == lc:
                    continue
                # a rider is left in a column only by its carrier's double, which enters
                # the column with a number (1 to 4) and never goes up it afterwards
                waiting = f"men.{COLOURS[m[0]]}[{m[1]}]"
                if COLOURS[lc] not in seats:
                    raise NotationError(waiting, f"waits in {COLOURS[lc]}'s column, but no "
                                        f"{COLOURS[lc]} carrier ever played in this game")
                if k == LANE_LENGTH:
                    raise NotationError(waiting, f"{quote(format_place(place))} is beyond a left "
                                        "rider's reach: a double enters a column with a number, "
                                        "so it leaves its rider on space 1 to 4")
            owners = [m for m in men if m[0] == lc]
            if len(men) == 2 and len(owners) != 1:
                raise NotationError(name, f"two men share {quote(format_place(place))} only when a "
                                    f"{COLOURS[lc]} carrier has just left its rider there")


ROYAL = RoyalRules()
