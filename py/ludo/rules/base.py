"""The one interface between a rule set and everything else.

A rule set is a value (not a class hierarchy to subclass deeply): it creates
positions, lists legal actions, applies actions, converts positions to and
from their JSON notation -- and it tells a screen what to draw (:class:`Scene`)
and what a person may click (:class:`Choice`), and narrates its own events.
Callers (the table, the view, bots, the CLI, network code) never read a rule
set's position fields: they go through :mod:`ludo.engine`, which dispatches on
the ``rules`` name every position carries.

Chessground's ``movable.dests`` is the model for choices: the board has no
rules inside; it marks what the rule set says can be clicked and reports the
click. OpenSpiel's is the model for chance: ``chance_outcomes`` lists a chance
node's outcomes with their probabilities, so the bots take expectations over
any die (numbers, crowns, feathers) without knowing its faces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol, TypeVar

from ..actions import Action

POSITION_FORMAT = "courtyard-ludo/position"
"""The envelope every rule set's position notation shares: ``format``, ``version``, ``rules``.
The version is the rule set's own (each reads only its own versions)."""

MAX_COUNT = 2**53 - 1
"""The most a position's count without a natural bound may hold (Royal's ``crowns`` this turn,
Gilgiti's ``timeouts``): the largest whole number every JSON reader keeps exactly (a double's
53-bit significand). Play never comes near it; without a bound a hostile position's count,
once a crown or timeout added one, grew past what Python writes as text (4,300 digits)."""

Event = dict[str, Any]
"""An event is a plain JSON-ready dict with at least ``type`` and ``seat``.

A few keys mean the same in every rule set, so a screen can show any game's
events without knowing its rules:

- ``rolled`` events carry ``value``: the face rolled, as :class:`DieView` shows it;
- ``turn`` events name in ``seat`` the seat whose turn begins;
- an event that moves pieces may carry ``pieces`` (the ids of the pieces that
  travel together, as :class:`Piece` names them) and ``path`` (the :class:`Cell`
  ids they pass through, from where they start to where they stop, both
  included). A screen moves them along it; a piece that changes place without
  such an event (one sent back by a capture) is shown going straight there;
- an event with ``notice`` true is one a player must not miss (a whole turn
  undone or cancelled): the screen shows its sentence as a notice over the
  board, besides the log and the screen reader's announcement.
"""

Names = Mapping[str, str]
"""Display names by seat colour (the players' own names; a seat without one uses its colour)."""


class Position(Protocol):
    """What every rule set's position offers (they are immutable NamedTuples).

    ``phase`` is ``"roll"`` at a chance node, ``"over"`` once the game has
    ended, and any other name (``"move"``, ``"play"``, ...) at a decision of
    the seat in ``turn``. These four fields are what code outside a rule set reads of a
    position (the engine's entry points, the bots, the command line, whose ``legal`` also
    shows the dice fields a rule set has); the app reads none: it asks the engine
    (tests/app/test_app_neutral.py).
    """

    @property
    def rules(self) -> str: ...

    @property
    def seats(self) -> tuple[str, ...]: ...

    @property
    def turn(self) -> str: ...

    @property
    def phase(self) -> str: ...


S = TypeVar("S", bound=Position)


# -- what a screen draws: the scene ---------------------------------------------------


class Cell(NamedTuple):
    """One place a piece can stand, in board units (the board is ``Board.size`` square).

    ``kind`` is one of ``track``, ``start``, ``safe``, ``lane``, ``home``, ``yard``;
    ``marks`` are a rule set's extra signs: ``star``, ``lock`` (a closed lock drawn
    here), ``locked`` (a lane square drawn grey), ``crown``, ``feather``, ...
    ``shape`` is ``square`` (a board square), ``spot`` (a yard circle) or
    ``none`` (an anchor with nothing drawn, such as a place in the home triangle).
    """

    id: str
    x: float  # centre
    y: float
    kind: str
    colour: str | None = None
    marks: tuple[str, ...] = ()
    shape: str = "square"
    label: str = ""  # words for screen readers: "square 12", "red home lane, square 3"


class Region(NamedTuple):
    """Decoration under the cells: a yard's background, the home centre's triangles.

    ``points`` is a polygon in board units; ``muted`` draws it grey (an empty seat).
    """

    kind: str  # "yard", "yard-inner", "home"
    colour: str | None
    points: tuple[tuple[float, float], ...]
    muted: bool = False


class Board(NamedTuple):
    """A whole board: what to draw under the pieces."""

    size: float
    regions: tuple[Region, ...]
    cells: tuple[Cell, ...]
    turns: tuple[tuple[str, int], ...] = ()
    """Anticlockwise quarter turns that bring each seat's corner to the bottom left (online)."""


class Piece(NamedTuple):
    """One token (a man, a piece): ``id`` is unique in the game, e.g. ``red-2``."""

    id: str
    colour: str
    token: int  # its number within its colour (0-based)
    label: str  # "Green token 3, on square 15 (2 from green's start)": spoken from 1


class Stack(NamedTuple):
    """The pieces on one place, bottom first.

    ``kind`` says how they belong together: ``group`` (they merely share the
    place and are drawn side by side), ``block`` (drawn as one stack with its
    count visible) or ``double`` (the last piece rides on the one below it).
    """

    place: str  # a Cell id
    pieces: tuple[Piece, ...]
    kind: str = "group"


class SeatView(NamedTuple):
    """A seat as the panel shows it."""

    colour: str
    status: str  # "playing", "finished", "resting", "quit" or "eliminated"
    facts: tuple[str, ...]  # short facts: "2/4 home", "timeouts 1/5", "lane locked"
    team: str | None = None  # a team's name when seats play in teams
    home: int = 0  # tokens home: what the final standings rank the seats still playing by


class DieView(NamedTuple):
    """One rolled value: ``state`` is ``rolled`` (waiting to be played), ``used``,
    ``playable`` or ``stranded`` (no legal move uses it); ``said``: the throw in words where
    its face alone does not tell what it allows (Royal's "two crowns in succession")."""

    value: int | str
    label: str
    state: str = "rolled"
    said: str = ""


class Scene(NamedTuple):
    """Everything a screen shows of a position, with no rule inside."""

    board: Board
    stacks: tuple[Stack, ...]
    seats: tuple[SeatView, ...]
    dice: tuple[DieView, ...]  # the values of the current turn that are on show
    turn: str | None  # the seat to act (None once over)
    phase: str  # "roll", "over", or the rule set's decision phase
    next: str | None  # who plays once this turn and its extra rolls are over
    winners: tuple[str, ...]
    summary: tuple[str, ...]  # the rules in force, one short line each


class Choice(NamedTuple):
    """A legal decision as something a person can click.

    ``pieces`` are the pieces a click on which selects it (empty for a roll or
    a choice offered as a button); ``value`` is the value chip it plays, when a
    turn has several values; ``target`` is the Cell it ends on.
    """

    action: Action
    kind: str  # "roll", "move", or a rule set's own ("force", "send_back", ...)
    label: str  # "moves to square 18 (5 from green's start)"; a button's text
    pieces: tuple[str, ...] = ()
    target: str | None = None
    value: str | None = None


class Option(NamedTuple):
    """A setting of a rule set offered when a game is set up (e.g. Gilgiti's teams)."""

    name: str
    label: str
    default: bool  # whether the setup form ticks it until the player chooses
    players: tuple[int, ...]  # the player counts it applies to


class Leave(NamedTuple):
    """How leaving a game is put to a player, and what it does.

    ``ends_match``: a ``quit`` ends the game for everybody (Gilgiti), instead of
    removing only the seat that leaves (Courtyard).
    """

    title: str  # "Quit this game?"
    text: str
    button: str  # "Quit game"
    ends_match: bool = False

    def text_at_device(self, shared: bool, last_two: bool = False) -> str:
        """``text`` with only what applies at this device: ``shared`` (other people here
        play on) drops :data:`LEAVE_AWAY`, else :data:`LEAVE_SHARED` goes. The rest, in the
        seed's words, stays as written (a text with neither sentence is returned whole).

        ``last_two``: only two seats still play, so nobody plays on after this leave; the
        other seat is the last player remaining and wins (Courtyard's rule 11). Then the
        sentences about the others continuing (:data:`LEAVE_CONTINUE`, :data:`LEAVE_SHARED`)
        would be untrue: :data:`LEAVE_LAST_TWO` says what happens instead, and
        :data:`LEAVE_AWAY` stays where it applies (the page still goes Home)."""
        text = self.text
        if last_two and LEAVE_CONTINUE in text:
            text = text.replace(LEAVE_CONTINUE, LEAVE_LAST_TWO).replace(LEAVE_SHARED, "")
        drop = LEAVE_AWAY if shared else LEAVE_SHARED
        return " ".join(text.replace(drop, "").split())


LEAVE_CONTINUE = "The remaining players continue."
"""The sentence of a leave's text that says the match goes on (the seed's words)."""
LEAVE_LAST_TWO = ("Only one player would be left: the last player remaining wins, and the match "
                  "ends.")
"""What replaces :data:`LEAVE_CONTINUE` when only two seats still play."""
LEAVE_AWAY = "Online and computer players return to Home."
"""The sentence of a leave's text for one who plays alone at this device (the seed's words)."""
LEAVE_SHARED = "On a shared device, the other players keep playing."
"""The sentence of a leave's text for a device shared with others who play on."""


class Wording(NamedTuple):
    """The words a rule set's players use for the die, where the screen says them: most
    roll it; Royal's players throw it (the crown-and-feather game)."""

    verb: str = "roll"  # "Roll the die for Ada", "The die is ready: roll for Ada."
    past: str = "rolled"  # "You rolled a 4: ..."
    noun: str = "roll"  # "28 seconds left for this roll"
    piece: str = "token"  # "Choose a highlighted token"; Royal's players move men
    pieces: str = "tokens"  # "got all four tokens home"
    dice: str = "the die"  # "Tap the die"; Gilgiti's players tap "your dice box" (its seed)


class Help(NamedTuple):
    """A rule set's page in the rules screen: a title, a lead line and numbered rules."""

    lead: str
    rules: tuple[tuple[str, str], ...]  # (short title, text)
    notes: tuple[str, ...] = ()
    heading: str = ""  # the page's heading when the seed names the game otherwise (the title)
    kicker: str = ""  # a small label the seed sets over its rules ("A quick refresher")


# -- the interface ----------------------------------------------------------------------


class BotFeatures(Protocol):
    """What a rule set tells the generic computer players about its positions."""

    extra_roll: float  # what an extra roll is worth where a search stops before it

    def evaluate(self, state: Any, seat: str) -> float:
        """How good ``state`` is for ``seat`` (Hard's leaf value; higher is better)."""
        ...

    def move_context(self, state: Any) -> Any:
        """Work shared by the scoring of several moves from one position."""
        ...

    def move_score(self, state: Any, action: Action, after: Any, events: list[Event],
                   context: Any) -> float:
        """Medium's score of one move, judged by its features."""
        ...


class RuleSet(Protocol[S]):
    """The interface between a rule set and everything else."""

    name: str
    title: str
    summary: str  # one line for the setup form: "enter on a 6, lanes always open"
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    help: Help
    leave: Leave
    wording: Wording  # roll or throw: the die's verb in prompts and labels
    timer_default: bool  # whether the turn clock is on unless the players switch it off

    @property
    def bot(self) -> BotFeatures | None:
        """How the computer players judge positions (None: they play these rules at Easy)."""
        ...

    # -- creating and reading
    def new_game(self, seats: tuple[str, ...], seed: int,
                 options: Mapping[str, Any] | None = None) -> S:
        """The starting position; the starting player is drawn from ``seed``."""
        ...

    def seating(self, players: int) -> tuple[str, ...]:
        """The colours that sit for ``players`` when nobody chooses, clockwise."""
        ...

    def parse_action(self, data: Any, field: str = "action") -> Action:
        """An action from its JSON form, checked for shape (not yet for legality)."""
        ...

    def to_json(self, state: S) -> dict[str, Any]:
        """The position's JSON notation (format, version, rules, then its own fields)."""
        ...

    def from_json(self, data: dict[str, Any]) -> S:
        """Parse and check a position (its version included); NotationError names the field."""
        ...

    # -- playing
    def legal_actions(self, state: S) -> list[Action]:
        """Decisions and chance actions open to the seat to act.

        Table actions (``timeout`` for the seat to act, ``quit``) are allowed
        while the game runs and are not listed.
        """
        ...

    def chance_outcomes(self, state: S) -> list[tuple[Action, float]]:
        """At a chance node: every resolved chance action with its probability; else []."""
        ...

    def apply(self, state: S, action: Action) -> tuple[S, list[Event]]:
        """The next position and the events the action caused.

        Raises :class:`ludo.errors.IllegalAction` (and changes nothing) when
        the action is not allowed.
        """
        ...

    def advance(self, state: S, action: Action) -> S:
        """The next position alone: :meth:`apply`'s checks and result, no events built."""
        ...

    def resolve(self, state: S, action: Action) -> Action:
        """``action`` with any chance value the position's RNG would supply filled in."""
        ...

    def distinct_moves(self, state: S) -> list[Action]:
        """One representative of each distinct legal decision (for auto-move and bots)."""
        ...

    def auto_action(self, state: S) -> Action | None:
        """The decision the table plays by itself (the only distinct one), or None."""
        ...

    def active_seats(self, state: S) -> tuple[str, ...]:
        """Seats still in the match (not quit, not eliminated)."""
        ...

    def next_player(self, state: S) -> str | None:
        """Who acts once the current turn and all its extra rolls are over."""
        ...

    def winners(self, state: S) -> tuple[str, ...]:
        """The winning seats (a team is several), empty while the game runs."""
        ...

    # -- telling
    def scene(self, state: S) -> Scene:
        """What a screen shows of ``state``."""
        ...

    def board(self, state: S | None) -> Board:
        """The board for ``state``, or the empty board shown before a game."""
        ...

    def choices(self, state: S) -> list[Choice]:
        """Every legal decision as something a person can click."""
        ...

    def describe(self, event: Event, names: Names) -> str | None:
        """The sentence for an event (move log, screen readers), or None for a silent one."""
        ...

    def violations(self, before: S, after: S, events: list[Event]) -> list[str]:
        """Every broken invariant of one applied action (simulation and tests)."""
        ...


def name_of(seat: str, names: Names | None = None) -> str:
    """A seat's display name: the player's name with the colour, or the colour."""
    if names and names.get(seat):
        return f"{names[seat]} ({seat})"
    return seat.capitalize()


def join_names(seats: Sequence[str], names: Names | None = None) -> str:
    """"Red", "Red and Yellow", "Red, Green and Blue"."""
    return join_words([name_of(s, names) for s in seats])


def join_words(words: Sequence[str]) -> str:
    """Words as a sentence lists them: "a", "a and b", "a, b and c" ("" for none)."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
