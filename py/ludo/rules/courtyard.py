"""Courtyard Ludo's house rules, and the Classic preset that shares their mechanics.

Courtyard (seed 000): enter on a 1 or a 6; tokens share squares and never
block; landing on an ordinary square captures every opponent token there; a
player must capture once before any of their tokens may enter the home lane;
extra roll for a 6, a capture or reaching home (one at most per roll); the
third consecutive 6 is discarded and passes the die; exact finish; timeouts
and quitting.

Classic: the rules most players know -- enter only on a 6, home lanes open
from the start; everything else as Courtyard.

See docs/rules/courtyard.md and docs/rules/classic.md for the rules as
implemented, with the tests that pin each sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from .. import rng
from ..actions import Action, parse_action
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
from . import courtyard_scene
from .base import (
    POSITION_FORMAT,
    Board,
    BotFeatures,
    Choice,
    Event,
    Help,
    Leave,
    Names,
    Option,
    Scene,
    Wording,
)
from .cross import progress

TOKENS_PER_SEAT = 4
MAX_TIMEOUTS = 5  # the fifth timeout eliminates the seat
SIXES_LIMIT = 3  # the third consecutive six is discarded

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")

POSITION_VERSION = 2
"""This rule set's position version (the envelope's format is shared by every rule set)."""
SEATS_BY_PLAYERS: dict[int, tuple[str, ...]] = {
    2: ("red", "yellow"),  # opposite corners: the fairest 2-player board
    3: ("red", "green", "yellow"),
    4: ("red", "green", "yellow", "blue"),
}
"""Colours that sit when the players don't choose: docs/rules/courtyard.md."""
ROLL_OUTCOMES = tuple((Action("roll", value=v), 1 / 6) for v in range(1, 7))


class State(NamedTuple):
    """A Courtyard or Classic position: plain, immutable, hashable data.

    ``tokens``, ``timeouts`` and ``out`` have one entry per colour in
    :data:`ludo.geometry.COLOURS` order, seated or not; a colour that is not
    seated, or whose tokens were removed (quit, eliminated), has no tokens.
    """

    rules: str
    seats: tuple[str, ...]
    tokens: tuple[tuple[int, ...], ...]
    turn: str
    phase: str  # "roll", "move" or "over"
    die: int | None  # the roll waiting to be played (phase "move")
    sixes: int  # consecutive sixes rolled in this turn
    unlocked: frozenset[str]
    timeouts: tuple[int, ...]
    out: tuple[str | None, ...]  # None, "quit" or "eliminated"
    winner: str | None
    rng: int


def _walk(colour_index: int, position: int, steps: int, unlocked: bool) -> int | None:
    """Where a token on the track or in its lane ends after ``steps``; None if illegal."""
    entrance = ENTRANCE_SQUARES[colour_index]
    p = position
    for _ in range(steps):
        if p == HOME:
            return None  # overshooting home is illegal
        if p >= LANE_FIRST:
            p += 1
        elif p == entrance and unlocked:
            p = LANE_FIRST
        else:
            p = (p + 1) % TRACK_LENGTH
    return p


# DESTINATION[colour][unlocked][position][steps]: precomputed so that legal
# move generation -- the hot path of bot search and simulation -- is lookups.
DESTINATION: tuple[tuple[tuple[tuple[int | None, ...], ...], ...], ...] = tuple(
    tuple(
        tuple(
            tuple(_walk(ci, pos, d, unlocked) if d else pos for d in range(7))
            for pos in range(HOME + 1)
        )
        for unlocked in (False, True)
    )
    for ci in range(len(COLOURS))
)


# The hot path (simulation, bot search) builds States with tuple.__new__, which
# skips the Python-level NamedTuple constructor; the result is the same State.
_new_state = tuple.__new__
_roll_die = rng.roll_die
ROLL = Action("roll")
MOVES = tuple(Action("move", token=t) for t in range(TOKENS_PER_SEAT))
"""Shared action values: actions are immutable, so legal_actions can hand these out."""

_MOVE_SETS = tuple(tuple(MOVES[t] for t in range(TOKENS_PER_SEAT) if mask >> t & 1)
                   for mask in range(1 << TOKENS_PER_SEAT))
"""The legal moves for each 4-bit mask of movable tokens."""

_CAPTURING = tuple(p < LANE_FIRST and p not in SAFE_SQUARES for p in range(HOME + 1))
_OPPONENTS = tuple(tuple(o for o in range(len(COLOURS)) if o != ci) for ci in range(len(COLOURS)))
_EXTRA_ROLL_REASON = {  # (six, capture, home) -> reason; capture and home never coincide
    (True, False, False): "six", (False, True, False): "capture", (False, False, True): "home",
    (True, True, False): "six+capture", (True, False, True): "six+home",
}

_CLOCKWISE_AFTER = tuple(tuple((ci + k) % len(COLOURS) for k in range(1, len(COLOURS) + 1))
                         for ci in range(len(COLOURS)))
"""The colour indices after each colour, clockwise, ending with the colour itself."""


def next_seat(tokens: tuple[tuple[int, ...], ...], colour_index: int) -> str:
    """The first seat clockwise after ``colour_index`` that is still in the match.

    The seats still in the match are exactly the colours that have tokens: a
    colour that is not seated, has quit or was eliminated has none (a State
    invariant that new_game, seat removal and the notation reader keep), so the
    answer comes from ``tokens`` alone, without hashing the seat list.
    """
    for j in _CLOCKWISE_AFTER[colour_index]:
        if tokens[j]:
            return COLOURS[j]
    return COLOURS[colour_index]


class CourtyardRules:
    """The Courtyard rule set, or the Classic preset of the same mechanics."""

    min_players = 2
    max_players = 4
    options: tuple[Option, ...] = ()
    timer_default = True
    leave: Leave = courtyard_scene.LEAVE
    wording: Wording = Wording()

    def __init__(self, name: str, title: str, summary: str, entry_values: tuple[int, ...],
                 capture_to_unlock: bool, help: Help) -> None:
        self.name = name
        self.title = title
        self.summary = summary
        self.help = help
        self.entry_values = frozenset(entry_values)
        self.capture_to_unlock = capture_to_unlock
        self._bot: BotFeatures | None = None
        # moves[colour][unlocked][position][die]: DESTINATION plus one more row, the
        # yard's, appended last so that position YARD (-1) indexes it: entering is the
        # same lookup as any other move.
        self.moves = tuple(
            tuple(
                rows + (tuple(START_SQUARES[ci] if d in self.entry_values else None
                              for d in range(7)),)
                for rows in DESTINATION[ci]
            )
            for ci in range(len(COLOURS))
        )

        # movable[colour][unlocked][die][position]: whether a token there may use that
        # die, column by column, so that "can any token move?" is four lookups
        self.movable = tuple(
            tuple(
                tuple(tuple(row[d] is not None for row in rows) for d in range(7))
                for rows in by_unlock
            )
            for by_unlock in self.moves
        )

    def __repr__(self) -> str:
        return f"<rules {self.name}>"

    @property
    def bot(self) -> BotFeatures:
        """The computer players' evaluation of these rules (loaded on first use)."""
        if self._bot is None:
            from .courtyard_bot import CourtyardBot

            self._bot = CourtyardBot(self)
        return self._bot

    # -- creating ----------------------------------------------------------

    def new_game(self, seats: tuple[str, ...], seed: int,
                 options: Mapping[str, Any] | None = None) -> State:
        """Starting position for ``seats``; a random seat (from ``seed``) starts."""
        if options:
            raise NotationError("options", f"{self.title} has no options")
        seats = normalise_seats(seats, self.min_players, self.max_players)
        state = rng.seed_state(seed)
        state, first = rng.choose_index(state, len(seats))
        return State(
            rules=self.name,
            seats=seats,
            tokens=tuple((YARD,) * TOKENS_PER_SEAT if c in seats else () for c in COLOURS),
            turn=seats[first],
            phase="roll",
            die=None,
            sixes=0,
            unlocked=frozenset() if self.capture_to_unlock else frozenset(seats),
            timeouts=(0, 0, 0, 0),
            out=(None, None, None, None),
            winner=None,
            rng=state,
        )

    def seating(self, players: int) -> tuple[str, ...]:
        """The colours that sit for 2, 3 or 4 players when nobody chooses."""
        try:
            return SEATS_BY_PLAYERS[players]
        except KeyError:
            raise NotationError("players", "Ludo is for 2 to 4 players") from None

    def parse_action(self, data: Any, field: str = "action") -> Action:
        """A roll, move, timeout or quit from its JSON form."""
        return parse_action(data, field)

    # -- asking ------------------------------------------------------------

    def chance_outcomes(self, state: State) -> list[tuple[Action, float]]:
        """The six die values, each 1/6, at a roll; nothing at a decision."""
        return list(ROLL_OUTCOMES) if state.phase == "roll" else []

    def winners(self, state: State) -> tuple[str, ...]:
        return (state.winner,) if state.winner is not None else ()

    # -- telling -------------------------------------------------------------

    def scene(self, state: State) -> Scene:
        return courtyard_scene.scene(self, state)

    def board(self, state: State | None) -> Board:
        return courtyard_scene.board(self, state)

    def choices(self, state: State) -> list[Choice]:
        return courtyard_scene.choices(self, state)

    def describe(self, event: Event, names: Names) -> str | None:
        return courtyard_scene.describe(event, names)

    def violations(self, before: State, after: State, events: list[Event]) -> list[str]:
        """Every broken invariant for one applied action (empty when all is well)."""
        found: list[str] = []
        for ci, colour in enumerate(COLOURS):
            tokens = after.tokens[ci]
            active = colour in after.seats and after.out[ci] is None
            want = TOKENS_PER_SEAT if active else 0
            if len(tokens) != want:
                found.append(f"{colour} has {len(tokens)} tokens, expected {want}")
            if any(p >= LANE_FIRST for p in tokens) and colour not in after.unlocked:
                found.append(f"{colour} is in its home lane before the unlock")
        extra_rolls = sum(1 for e in events if e["type"] == "extra_roll")
        if extra_rolls > 1:
            found.append(f"{extra_rolls} extra rolls earned by one action")
        for e in events:
            if e["type"] == "captured" and e["square"] in SAFE_SQUARES:
                found.append(f"capture on safe square {e['square']}")
        if after.phase != "over" and after.out[COLOUR_INDEX[after.turn]] is not None:
            found.append(f"the turn went to {after.turn}, who has left")
        return found

    # -- asking ------------------------------------------------------------

    def targets(self, state: State, die: int) -> list[tuple[int, int, int]]:
        """``(token, from, to)`` for every token of the player to act that may use ``die``."""
        ci = COLOUR_INDEX[state.turn]
        table = self.moves[ci][state.turn in state.unlocked]
        return [(token, pos, dest) for token, pos in enumerate(state.tokens[ci])
                if (dest := table[pos][die]) is not None]

    def legal_actions(self, state: State) -> list[Action]:
        """``[roll]`` before the roll, the legal token moves after it."""
        phase = state.phase
        if phase == "move":
            turn = state.turn
            ci = COLOUR_INDEX[turn]
            # in the move phase the die is an int: the hot path skips the check
            movable = self.movable[ci][turn in state.unlocked][state.die]  # type: ignore[index]
            # the player to act has four tokens: which of them can move, as a 4-bit mask
            a, b, c, d = state.tokens[ci]
            return [*_MOVE_SETS[movable[a] | movable[b] << 1 | movable[c] << 2
                                | movable[d] << 3]]
        if phase == "roll":
            return [ROLL]
        return []

    def distinct_moves(self, state: State) -> list[Action]:
        """One move per distinct outcome.

        Tokens on the same square (the yard included) moved by the same die
        end in the same place, so they are one choice for the player.
        """
        if state.phase != "move":
            return []
        ci = COLOUR_INDEX[state.turn]
        table = self.moves[ci][state.turn in state.unlocked]
        die = cast(int, state.die)  # set in the move phase
        seen: set[int] = set()
        moves = []
        for token, pos in enumerate(state.tokens[ci]):
            if pos not in seen and table[pos][die] is not None:
                seen.add(pos)
                moves.append(MOVES[token])
        return moves

    def auto_action(self, state: State) -> Action | None:
        """The move to play automatically: the only distinct legal move, if so."""
        moves = self.distinct_moves(state)
        return moves[0] if len(moves) == 1 else None

    def active_seats(self, state: State) -> tuple[str, ...]:
        """Seats still in the match (not quit, not eliminated)."""
        return tuple(c for c in state.seats if state.out[COLOUR_INDEX[c]] is None)

    def next_player(self, state: State) -> str | None:
        """Who rolls once the current turn and all its extra rolls are over."""
        if state.phase == "over":
            return None
        return self._seat_after(state, state.turn)

    def _seat_after(self, state: State, colour: str) -> str:
        return next_seat(state.tokens, COLOUR_INDEX[colour])

    def timeout_choice(self, state: State, die: int) -> int | None:
        """The token a timeout plays with ``die`` (None when no move is legal).

        Policy, in order: a move that gets a token home; a capture; entering a
        token from the yard; otherwise the token furthest along, that is nearest
        home (a token on the one square past its entrance has a whole lap ahead:
        it counts as the start of a lap).  Ties go to the lowest token number.
        Deterministic, so every peer agrees.
        """
        best_key: tuple[int, ...] | None = None
        best = None
        for token, pos, dest in self.targets(state, die):
            along = progress(state.turn, pos)
            key = (
                dest == HOME,
                self._captures_at(state, dest) != [],
                pos == YARD,
                # past the entrance: a lap to go
                0 if along == TRACK_LENGTH and pos < LANE_FIRST else along,
                -token,
            )
            if best_key is None or key > best_key:
                best_key, best = key, token
        return best

    def _captures_at(self, state: State, dest: int) -> list[tuple[str, int]]:
        """Opponent tokens a token of the player to act would capture at ``dest``."""
        if dest >= LANE_FIRST or dest in SAFE_SQUARES:
            return []
        me = COLOUR_INDEX[state.turn]
        return [
            (COLOURS[ci], t)
            for ci, toks in enumerate(state.tokens)
            if ci != me and dest in toks
            for t, p in enumerate(toks)
            if p == dest
        ]

    # -- changing ----------------------------------------------------------

    def resolve(self, state: State, action: Action) -> Action:
        """Fill in the die value the RNG will supply for a roll or a timeout's roll."""
        if action.value is None and (
            action.type == "roll"
            or (action.type == "timeout" and state.phase == "roll"
                and state.timeouts[COLOUR_INDEX[state.turn]] + 1 < MAX_TIMEOUTS)
        ):
            return action._replace(value=rng.roll_die(state.rng)[1])
        return action

    def apply(self, state: State, action: Action) -> tuple[State, list[Event]]:
        """Apply a checked action; raise IllegalAction without changing anything."""
        events: list[Event] = []
        return self._advance(state, action, events), events

    def advance(self, state: State, action: Action) -> State:
        """:meth:`apply` without building events: the same checks, the same next position.

        For callers that only need positions (simulation, bot search), where
        building the event dicts would be a sizeable share of the work.
        """
        # _advance's dispatch of the two common cases, written out here: one call less per
        # action, 3-4% more games per second in bench/engine.py
        kind = action.type
        phase = state.phase
        if kind == "roll" and phase == "roll":
            return self._roll(state, action.value, None)
        if kind == "move" and phase == "move":
            return self._move(state, action.token, None)
        return self._advance(state, action, None)

    def _advance(self, state: State, action: Action, events: list[Event] | None) -> State:
        kind = action.type
        phase = state.phase
        # the two common cases first: a roll in the roll phase, a move in the move phase
        if kind == "roll" and phase == "roll":
            return self._roll(state, action.value, events)
        if kind == "move" and phase == "move":
            return self._move(state, action.token, events)
        if phase == "over":
            raise IllegalAction("the game is over")
        if kind == "roll":
            raise IllegalAction(f"{state.turn} must move a token before rolling again")
        if kind == "move":
            raise IllegalAction(f"{state.turn} must roll before moving")
        if kind == "timeout":
            return self._timeout(state, action.value, events)
        if kind == "quit":
            return self._quit(state, action.seat, events)
        raise IllegalAction(f"unknown action type {quote(kind)}")

    def _roll(self, state: State, value: int | str | None,
              events: list[Event] | None, clock: bool = False) -> State:
        if value is not None and (type(value) is not int or not 1 <= value <= 6):
            raise IllegalAction(f"a die shows 1..6, not {quote(value)}")
        (rules, seats, tokens, turn, _, _, sixes, unlocked, timeouts, out, winner,
         seed_state) = state
        # The RNG advances even when the value is given, so the position does
        # not depend on where the die came from (local RNG, replay, online).
        seed_state, drawn = _roll_die(seed_state)
        if value is None:
            value = drawn
        sixes = sixes + 1 if value == 6 else 0
        if events is not None:
            events.append(rolled_event(turn, value, clock))
        if sixes == SIXES_LIMIT:
            if events is not None:
                events.append({"type": "three_sixes", "seat": turn, "notice": True})
            return self._next_turn(rules, seats, tokens, turn, unlocked, timeouts, out,
                                   winner, seed_state, events)
        ci = COLOUR_INDEX[turn]
        movable = self.movable[ci][turn in unlocked][value]
        a, b, c, d = tokens[ci]
        if movable[a] or movable[b] or movable[c] or movable[d]:
            return _new_state(State, (rules, seats, tokens, turn, "move", value, sixes,
                                      unlocked, timeouts, out, winner, seed_state))
        if value == 6:  # a six with no legal move still earns another roll
            if events is not None:
                # the die shows "Roll" again at once: say why, or the 6 goes unseen
                events.append({"type": "extra_roll", "seat": turn, "reason": "six",
                               "no_move": True, "notice": True})
            return _new_state(State, (rules, seats, tokens, turn, "roll", None, sixes, unlocked,
                                      timeouts, out, winner, seed_state))
        # _next_turn, written out: in the opening most rolls end here
        nxt = next_seat(tokens, ci)
        if events is not None:
            events.append({"type": "no_move", "seat": turn, "value": value})
            events.append({"type": "turn", "seat": nxt})
        return _new_state(State, (rules, seats, tokens, nxt, "roll", None, 0, unlocked, timeouts,
                                  out, winner, seed_state))

    def _move(self, state: State, token: Any, events: list[Event] | None) -> State:
        (rules, seats, tokens, colour, _, die, sixes, unlocked, timeouts, out, _,
         seed_state) = state
        ci = COLOUR_INDEX[colour]
        mine = tokens[ci]
        if type(token) is not int or not 0 <= token < TOKENS_PER_SEAT:
            raise IllegalAction(f"{colour} has no token {quote(token)}")
        origin = mine[token]
        dest = self.moves[ci][colour in unlocked][origin][die]  # type: ignore[index]
        if dest is None:
            raise IllegalAction(f"{colour} token {token} cannot move {die}")
        # rebuilt element by element: cheaper than slicing and concatenating
        a, b, c, d = mine
        mine = ((dest, b, c, d) if token == 0 else (a, dest, c, d) if token == 1
                else (a, b, dest, d) if token == 2 else (a, b, c, dest))
        if events is not None:
            # the places passed, so a screen can move the piece along them (base.Event)
            walk = [YARD, dest] if origin == YARD else [origin] + [
                cast(int, DESTINATION[ci][colour in unlocked][origin][k])
                for k in range(1, cast(int, die) + 1)]
            shown = courtyard_scene.motion(colour, token, walk)
            if origin == YARD:
                events.append({"type": "entered", "seat": colour, "token": token, "to": dest,
                               **shown})
            else:
                events.append({"type": "moved", "seat": colour, "token": token,
                               "from": origin, "to": dest, **shown})
        victims = None
        t0, t1, t2, t3 = tokens
        if _CAPTURING[dest] and (dest in t0 or dest in t1 or dest in t2 or dest in t3):
            new_tokens = [t0, t1, t2, t3]
            new_tokens[ci] = mine
            # every opponent token on an ordinary square goes back, whatever its colour
            for vi in _OPPONENTS[ci]:
                theirs = tokens[vi]
                if dest in theirs:
                    if victims is None:
                        victims = []
                    victim_colour = COLOURS[vi]
                    victims += [[victim_colour, t] for t, p in enumerate(theirs) if p == dest]
                    new_tokens[vi] = tuple(YARD if p == dest else p for p in theirs)
            if victims is not None:
                if events is not None:
                    events.append({"type": "captured", "seat": colour, "square": dest,
                                   "victims": victims})
                if colour not in unlocked:
                    unlocked = unlocked | {colour}
                    if events is not None:
                        events.append({"type": "unlocked", "seat": colour})
            tokens = tuple(new_tokens)
        else:
            tokens = ((mine, t1, t2, t3) if ci == 0 else (t0, mine, t2, t3) if ci == 1
                      else (t0, t1, mine, t3) if ci == 2 else (t0, t1, t2, mine))
        home = dest == HOME
        if home:
            if events is not None:
                events.append({"type": "reached_home", "seat": colour, "token": token})
            if all(p == HOME for p in mine):
                if events is not None:
                    events.append({"type": "won", "seat": colour})
                return _new_state(State, (rules, seats, tokens, colour, "over", None, sixes,
                                          unlocked, timeouts, out, colour, seed_state))
        if die == 6 or victims is not None or home:
            # several rewards from one roll still earn a single extra roll
            if events is not None:
                reason = _EXTRA_ROLL_REASON[die == 6, victims is not None, home]
                events.append({"type": "extra_roll", "seat": colour, "reason": reason})
            return _new_state(State, (rules, seats, tokens, colour, "roll", None, sixes,
                                      unlocked, timeouts, out, None, seed_state))
        nxt = next_seat(tokens, ci)  # _next_turn, written out: most moves end here
        if events is not None:
            events.append({"type": "turn", "seat": nxt})
        return _new_state(State, (rules, seats, tokens, nxt, "roll", None, 0, unlocked, timeouts,
                                  out, None, seed_state))

    def _pass_turn(self, state: State, events: list[Event] | None) -> State:
        (rules, seats, tokens, turn, _, _, _, unlocked, timeouts, out, winner, seed_state) = state
        return self._next_turn(rules, seats, tokens, turn, unlocked, timeouts, out, winner,
                               seed_state, events)

    @staticmethod
    def _next_turn(rules: str, seats: tuple[str, ...], tokens: tuple[tuple[int, ...], ...],
                   turn: str, unlocked: frozenset[str], timeouts: tuple[int, ...],
                   out: tuple[str | None, ...], winner: str | None, seed_state: int,
                   events: list[Event] | None) -> State:
        """The position passed to the next seat clockwise, in its roll phase."""
        nxt = next_seat(tokens, COLOUR_INDEX[turn])
        if events is not None:
            events.append({"type": "turn", "seat": nxt})
        return _new_state(State, (rules, seats, tokens, nxt, "roll", None, 0, unlocked, timeouts,
                                  out, winner, seed_state))

    def _timeout(self, state: State, value: int | str | None,
                 events: list[Event] | None) -> State:
        if state.phase == "move" and value is not None:
            raise IllegalAction("a timeout after the roll plays the rolled die; give no value")
        if value is not None and (type(value) is not int or not 1 <= value <= 6):
            # checked here too: the fifth timeout never reaches _roll's check
            raise IllegalAction(f"a die shows 1..6, not {quote(value)}")
        colour = state.turn
        ci = COLOUR_INDEX[colour]
        count = state.timeouts[ci] + 1
        timeouts = state.timeouts[:ci] + (count,) + state.timeouts[ci + 1:]
        state = state._replace(timeouts=timeouts)
        if events is not None:
            events.append({"type": "timeout", "seat": colour, "count": count, "notice": True})
        if count >= MAX_TIMEOUTS:
            # the fifth timeout removes the seat before any roll or move
            return self._remove_seat(state, colour, "eliminated", events)
        if state.phase == "roll":
            state = self._roll(state, value, events, clock=True)
            if state.phase != "move" or state.turn != colour:
                return state
        token = self.timeout_choice(state, cast(int, state.die))
        return self._move(state, token, events)

    def _quit(self, state: State, seat: Any, events: list[Event] | None) -> State:
        if not isinstance(seat, str) or seat not in state.seats:
            raise IllegalAction(f"{quote(seat)} is not a seat in this game")
        if state.out[COLOUR_INDEX[seat]] is not None:
            raise IllegalAction(f"{seat} has already left this game")
        return self._remove_seat(state, seat, "quit", events)

    def _remove_seat(self, state: State, seat: str, reason: str,
                     events: list[Event] | None) -> State:
        si = COLOUR_INDEX[seat]
        tokens = state.tokens[:si] + ((),) + state.tokens[si + 1:]
        out = state.out[:si] + (reason,) + state.out[si + 1:]
        if events is not None:
            events.append(left_event(seat, reason))
        state = state._replace(tokens=tokens, out=out)
        remaining = self.active_seats(state)
        if len(remaining) == 1:
            if events is not None:
                events.append({"type": "won", "seat": remaining[0]})
            return state._replace(phase="over", winner=remaining[0], die=None, sixes=0)
        if seat == state.turn:
            return self._pass_turn(state, events)
        return state

    # -- notation ----------------------------------------------------------

    def to_json(self, state: State) -> dict[str, Any]:
        """The position's JSON notation (docs/notation.md)."""
        return {
            "format": POSITION_FORMAT,
            "version": POSITION_VERSION,
            "rules": state.rules,
            "seats": list(state.seats),
            "turn": state.turn,
            "phase": state.phase,
            "die": state.die,
            "sixes": state.sixes,
            "tokens": {
                c: [format_square(c, p) for p in state.tokens[COLOUR_INDEX[c]]]
                for c in state.seats
            },
            "unlocked": [c for c in COLOURS if c in state.unlocked],
            "timeouts": {c: state.timeouts[COLOUR_INDEX[c]] for c in state.seats},
            "out": {c: state.out[COLOUR_INDEX[c]] for c in state.seats
                    if state.out[COLOUR_INDEX[c]] is not None},
            "winner": state.winner,
            "rng": f"{state.rng:016x}",
        }

    def from_json(self, data: dict[str, Any]) -> State:
        """Parse and check a position; every error names its field."""
        return _PositionReader(self, data).read()


def left_event(seat: str, reason: str) -> Event:
    """The event of a seat leaving the match: ``reason`` is "quit" or "eliminated". An
    elimination is the clock's doing, easy to miss mid-game: it carries ``notice``."""
    event: Event = {"type": reason, "seat": seat}
    if reason == "eliminated":
        event["notice"] = True
    return event


def rolled_event(seat: str, value: int | str, clock: bool = False) -> Event:
    """The event of a roll; ``clock`` marks the roll of a timeout, which the game made for a
    seat that was away, so that the log says so rather than "Red rolled a 4"."""
    event: Event = {"type": "rolled", "seat": seat, "value": value}
    if clock:
        event["clock"] = True
    return event


def normalise_seats(seats: Any, min_players: int = 2, max_players: int = 4) -> tuple[str, ...]:
    """Check a seat list and put it in clockwise order."""
    if not isinstance(seats, list | tuple):
        raise NotationError("seats", "must be a list of colours")
    # a wrong entry is named by its index, as a record's actions are: in a list of four the
    # program that wrote it is told which one
    for i, seat in enumerate(seats):
        if not isinstance(seat, str) or seat not in COLOUR_INDEX:
            problem = f"unknown colour {quote(seat)}" if isinstance(seat, str) \
                else f"{quote(seat)} is not a colour"
            raise NotationError(f"seats[{i}]", f"{problem}; use {', '.join(COLOURS)}")
        if seat in seats[:i]:
            raise NotationError(f"seats[{i}]", f"{quote(seat)} is listed twice")
    if not min_players <= len(seats) <= max_players:
        raise NotationError("seats", f"needs {min_players} to {max_players} players")
    return tuple(c for c in COLOURS if c in seats)


def format_square(colour: str, position: int) -> str | int:
    """Notation for a token's place: "yard", 0..51, "<colour>-lane-<1..5>" or "home"."""
    if position == YARD:
        return "yard"
    if position == HOME:
        return "home"
    if position >= LANE_FIRST:
        return f"{colour}-lane-{position - LANE_FIRST + 1}"
    return position


def parse_square(colour: str, value: Any, field: str) -> int:
    """Inverse of :func:`format_square`, checking that a lane is the token's own."""
    if value == "yard":
        return YARD
    if value == "home":
        return HOME
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < TRACK_LENGTH:
            return value
        raise NotationError(field, f"track squares are 0..{TRACK_LENGTH - 1}, not {value}")
    if isinstance(value, str) and value.count("-lane-") == 1:
        lane_colour, _, number = value.partition("-lane-")
        if lane_colour in COLOUR_INDEX and number in ("1", "2", "3", "4", "5"):
            if lane_colour != colour:
                raise NotationError(
                    field, f"a {colour} token cannot be in {lane_colour}'s home lane")
            return LANE_FIRST + int(number) - 1
    raise NotationError(
        field,
        f"{quote(value)} is not a square (use \"yard\", 0..51, \"{colour}-lane-1..5\" or "
        "\"home\")")


class _PositionReader:
    """Builds a State from JSON, checking each field before anything is built."""

    def __init__(self, rules: CourtyardRules, data: Any) -> None:
        self.rules = rules
        self.data = data

    def field(self, name: str, kinds: type | tuple[type, ...], required: bool = True) -> Any:
        if name not in self.data:
            if required:
                raise NotationError(name, "is missing")
            return None
        value = self.data[name]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in (
                kinds if isinstance(kinds, tuple) else (kinds,))):
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
            raise NotationError("version", f"version {quote(data.get('version'))} is not supported "
                                f"(this app reads version {POSITION_VERSION})")
        known = ("format", "version", "rules", "seats", "turn", "phase", "die", "sixes", "tokens",
                 "unlocked", "timeouts", "out", "winner", "rng")
        extra = set(data) - set(known)
        if extra:
            raise NotationError(sorted(map(str, extra))[0], "is not a field of a position")
        for name in known:  # every field is written, null ones ("die", "winner") included
            if name not in data:
                raise NotationError(name, "is missing")
        if data.get("rules") != self.rules.name:
            raise NotationError("rules", f"expected {quote(self.rules.name)}")
        seats = normalise_seats(self.field("seats", list), self.rules.min_players,
                                self.rules.max_players)
        if list(seats) != data["seats"]:
            raise NotationError("seats", f"must be in clockwise order: {', '.join(seats)}")

        out_data = self.field("out", dict)
        out = [None] * len(COLOURS)
        for colour, reason in out_data.items():
            if colour not in seats:
                raise NotationError(f"out.{colour}", "is not a seat in this game")
            if reason not in ("quit", "eliminated"):
                raise NotationError(f"out.{colour}", "must be \"quit\" or \"eliminated\"")
            out[COLOUR_INDEX[colour]] = reason

        timeouts_data = self.field("timeouts", dict)
        timeouts = [0] * len(COLOURS)
        for colour in seats:
            count = timeouts_data.get(colour)
            name = f"timeouts.{colour}"
            if not isinstance(count, int) or isinstance(count, bool):
                raise NotationError(name, "must be a whole number")
            if not 0 <= count <= MAX_TIMEOUTS:
                raise NotationError(name, f"must be 0..{MAX_TIMEOUTS}")
            eliminated = out[COLOUR_INDEX[colour]] == "eliminated"
            if (count == MAX_TIMEOUTS) != eliminated:
                raise NotationError(name, f"a seat is eliminated exactly on timeout {MAX_TIMEOUTS}")
            timeouts[COLOUR_INDEX[colour]] = count
        for colour in timeouts_data:
            if colour not in seats:
                raise NotationError(f"timeouts.{colour}", "is not a seat in this game")

        unlocked_data = self.field("unlocked", list)
        for i, colour in enumerate(unlocked_data):
            if colour not in seats:
                raise NotationError(f"unlocked[{i}]", f"{quote(colour)} is not a seat in this game")
        unlocked = frozenset(unlocked_data)
        if len(unlocked) != len(unlocked_data):
            raise NotationError("unlocked", "lists a colour twice")
        if unlocked_data != [c for c in COLOURS if c in unlocked]:
            raise NotationError("unlocked", "must list colours in clockwise order: "
                                f"{', '.join(c for c in COLOURS if c in unlocked)}")
        if not self.rules.capture_to_unlock and unlocked != frozenset(seats):
            raise NotationError("unlocked", f"every home lane is open in {self.rules.title}")

        tokens_data = self.field("tokens", dict)
        tokens: list[tuple[int, ...]] = [()] * len(COLOURS)
        for colour in tokens_data:
            if colour not in seats:
                raise NotationError(f"tokens.{colour}", "is not a seat in this game")
        for colour in seats:
            name = f"tokens.{colour}"
            listed = tokens_data.get(colour)
            if not isinstance(listed, list):
                raise NotationError(name, "must be a list of squares")
            removed = out[COLOUR_INDEX[colour]] is not None
            want = 0 if removed else TOKENS_PER_SEAT
            if len(listed) != want:
                why = "a seat that has left has no tokens" if removed else "a seat has 4 tokens"
                raise NotationError(name, f"has {len(listed)} tokens; {why}")
            places = tuple(parse_square(colour, v, f"{name}[{i}]") for i, v in enumerate(listed))
            for i, p in enumerate(places):
                if p >= LANE_FIRST and colour not in unlocked:
                    raise NotationError(f"{name}[{i}]", f"{colour}'s home lane is still locked")
            tokens[COLOUR_INDEX[colour]] = places
            if not self.rules.capture_to_unlock:
                # a lane open from the start takes every token in at its entrance, so none
                # stands on the square just past it (a locked lane's lap): play never reaches it
                entrance = ENTRANCE_SQUARES[COLOUR_INDEX[colour]]
                past = (entrance + 1) % TRACK_LENGTH
                if past in places:
                    raise NotationError(
                        f"{name}[{places.index(past)}]",
                        f"a {colour} token never stands on square {past} in {self.rules.title}: "
                        f"its home lane is open, so it turns in at square {entrance}")
        # a token landing on an ordinary square captures every opponent there, so two colours
        # can share only the eight safe squares
        owner: dict[int, str] = {}
        for colour in seats:
            for i, p in enumerate(tokens[COLOUR_INDEX[colour]]):
                if 0 <= p < TRACK_LENGTH and p not in SAFE_SQUARES:
                    other = owner.setdefault(p, colour)
                    if other != colour:
                        raise NotationError(f"tokens.{colour}[{i}]", f"{other} and {colour} "
                                            f"cannot share square {p}, which is not safe")

        active = [c for c in seats if out[COLOUR_INDEX[c]] is None]
        phase = self.field("phase", str)
        if phase not in ("roll", "move", "over"):
            raise NotationError("phase", "must be \"roll\", \"move\" or \"over\"")
        turn = self.field("turn", str)
        if turn not in seats:
            raise NotationError("turn", f"{quote(turn)} is not a seat in this game")
        winner = data.get("winner")
        finished = [c for c in active if all(p == HOME for p in tokens[COLOUR_INDEX[c]])]
        if phase == "over":
            if winner not in seats:
                raise NotationError("winner", "a finished game names its winner")
            if winner not in finished and active != [winner]:
                raise NotationError("winner", f"{winner} has neither all tokens home nor "
                                    "is the last player remaining")
            others = [c for c in finished if c != winner]
            if others:  # the game ends when the first seat gets all its tokens home
                raise NotationError(f"tokens.{others[0]}", "only the winner can have all "
                                    "tokens home")
        else:
            if winner is not None:
                raise NotationError("winner", "only a finished game has a winner")
            if out[COLOUR_INDEX[turn]] is not None:
                raise NotationError("turn", f"{turn} has left the game and cannot have the turn")
            if len(active) < 2:
                raise NotationError("out", "a running game needs two players remaining")
            if finished:
                raise NotationError(f"tokens.{finished[0]}", "all tokens are home but the "
                                    "game is not over")

        sixes = self.field("sixes", int)
        if not 0 <= sixes < SIXES_LIMIT:
            raise NotationError("sixes", f"must be 0..{SIXES_LIMIT - 1}")
        die = data.get("die")
        if phase == "move":
            if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= 6:
                raise NotationError("die", "the move phase needs the rolled value 1..6")
            if (die == 6) != (sixes > 0):
                raise NotationError("sixes", "must count the six just rolled" if die == 6
                                    else "a non-six breaks the sequence")
        elif die is not None:
            raise NotationError("die", f"must be null in the {phase} phase")

        rng_text = self.field("rng", str)
        # int(..., 16) alone would also take "-", "0x", "_", spaces and non-ASCII digits
        if len(rng_text) != 16 or not all(c in _HEX_DIGITS for c in rng_text):
            raise NotationError("rng", "must be 16 hexadecimal digits")
        rng_state = int(rng_text, 16)

        state = State(
            rules=self.rules.name, seats=seats, tokens=tuple(tokens), turn=turn, phase=phase,
            die=die, sixes=sixes, unlocked=unlocked, timeouts=tuple(timeouts), out=tuple(out),
            winner=winner, rng=rng_state,
        )
        if phase == "move" and not self.rules.targets(state, cast(int, die)):
            raise NotationError("die", f"{turn} has no legal move with a {die}, so the roll "
                                "would have been skipped")
        return state


COURTYARD = CourtyardRules("courtyard", "Courtyard", "house rules", entry_values=(1, 6),
                           capture_to_unlock=True, help=courtyard_scene.COURTYARD_HELP)
CLASSIC = CourtyardRules("classic", "Classic", "enter on a 6, lanes always open",
                         entry_values=(6,), capture_to_unlock=False,
                         help=courtyard_scene.CLASSIC_HELP)
