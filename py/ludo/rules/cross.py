"""The standard cross-shaped board as a scene: cells, yards and the home centre.

Courtyard, Classic, Gilgiti and Royal are all played on this board; each rule
set builds its :class:`~ludo.rules.base.Board` here, adding its own marks
(locks on lanes, crowns, feathers), and names places with the ids below, so
the view draws any of them without knowing which game it is.

Place ids: ``"0"``..``"51"`` for track squares, ``"red-lane-1"``..``"red-lane-5"``,
``"red-home"`` (where finished tokens stand, inside the centre triangle) and
``"red-yard-0"``..``"red-yard-3"`` (the four circles of a yard).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from ..geometry import (
    CENTRE,
    COLOURS,
    GRID_SIZE,
    HOME,
    LANE_CELLS,
    LANE_FIRST,
    LANE_LENGTH,
    STAR_SQUARES,
    START_SQUARES,
    TRACK_CELLS,
    TRACK_LENGTH,
    YARD,
    YARD_BOXES,
    YARD_SPOTS,
    colour_index,
)
from .base import Board, Cell, Region

SEAT_TURNS: tuple[tuple[str, int], ...] = tuple((c, i) for i, c in enumerate(COLOURS))
"""Quarter turns (anticlockwise) of the board that bring each colour's yard to the bottom left."""


def track_id(square: int) -> str:
    return str(square)


def lane_id(colour: str, number: int) -> str:
    """Id of lane square ``number`` (1 = outermost .. 5) of ``colour``."""
    return f"{colour}-lane-{number}"


def home_id(colour: str) -> str:
    return f"{colour}-home"


def yard_id(colour: str, spot: int) -> str:
    return f"{colour}-yard-{spot}"


def place_id(colour: str, token: int, position: int) -> str:
    """The place of token ``token`` of ``colour`` at engine position ``position``."""
    if position == YARD:
        return yard_id(colour, token)
    if position == HOME:
        return home_id(colour)
    if position >= LANE_FIRST:
        return lane_id(colour, position - LANE_FIRST + 1)
    return track_id(position)


def progress(colour: str, position: int) -> int:
    """Distance travelled from the yard: 0 in the yard, 1 on the start square, 57 home.

    Extra laps are not counted; this is for ordering tokens and telling moves, not for rules.
    """
    if position == YARD:
        return 0
    if position >= LANE_FIRST:
        return position - LANE_FIRST + TRACK_LENGTH
    return (position - START_SQUARES[colour_index(colour)]) % TRACK_LENGTH + 1


def relative_square(colour: str, square: int) -> int:
    """How far a track square is from ``colour``'s start square (its start is 1)."""
    return (square - START_SQUARES[colour_index(colour)]) % TRACK_LENGTH + 1


def describe_position(colour: str, position: int) -> str:
    """Words for a token's place, for screen readers and the move log."""
    if position == YARD:
        return "in the yard"
    if position == HOME:
        return "home"
    if position >= LANE_FIRST:
        return f"on home-lane square {position - LANE_FIRST + 1} of {LANE_LENGTH}"
    # spoken squares count from 1, as people do (the notation's 0..51 stay the engine's)
    return f"on square {position + 1} ({from_start(colour, position)})"


def safe_words(colour: str, position: int, start: str = "start") -> str:
    """What a token's name adds when it stands on one of the eight safe squares (Courtyard's
    starts and stars, Gilgiti's entry stars and stars), where no capture happens: the board
    draws a star or a start colour, which a screen reader does not say ("", or ", a star
    (safe)", ", Green's start (safe)", and on its own start, already named, ", safe").
    ``start``: the rule set's word for a starting square ("start", "entry star")."""
    if not 0 <= position < TRACK_LENGTH:
        return ""
    if position in START_SQUARES:
        owner = COLOURS[START_SQUARES.index(position)]
        return ", safe" if owner == colour else f", {owner.capitalize()}'s {start} (safe)"
    return ", a star (safe)" if position in STAR_SQUARES else ""


def from_start(colour: str, square: int) -> str:
    """Where a track square lies for ``colour``, in words: "Red's start" on it, else how many
    squares past it ("12 past Red's start"; its start is not counted as the first)."""
    past = relative_square(colour, square) - 1
    return f"{colour.capitalize()}'s start" if past == 0 else \
        f"{past} past {colour.capitalize()}'s start"


def _lane_mouth(colour: str) -> tuple[float, float]:
    last = LANE_CELLS[colour][-1]
    return last[0] + 0.5, last[1] + 0.5


def home_point(colour: str) -> tuple[float, float]:
    """Where finished tokens of ``colour`` stand: inside its centre triangle."""
    mx, my = _lane_mouth(colour)
    return CENTRE[0] + (mx - CENTRE[0]) * 0.45, CENTRE[1] + (my - CENTRE[1]) * 0.45


def _home_triangle(colour: str) -> tuple[tuple[float, float], ...]:
    cx, cy = CENTRE
    corners = ((cx - 1.5, cy - 1.5), (cx + 1.5, cy - 1.5), (cx + 1.5, cy + 1.5),
               (cx - 1.5, cy + 1.5))
    lx, ly = _lane_mouth(colour)
    # the two corners of the centre square nearest to this lane's mouth, and the centre
    near = sorted(corners, key=lambda p: (p[0] - lx) ** 2 + (p[1] - ly) ** 2)[:2]
    return (*near, (cx, cy))


def _box(x0: float, y0: float, size: float) -> tuple[tuple[float, float], ...]:
    return ((x0, y0), (x0 + size, y0), (x0 + size, y0 + size), (x0, y0 + size))


def cross_board(seated: Iterable[str] = COLOURS, locked: Iterable[str] = (),
                marks: Mapping[str, tuple[str, ...]] | None = None) -> Board:
    """The cross board: ``seated`` colours' yards in colour, the others muted.

    ``locked`` lanes are drawn grey with a closed lock on their first square;
    ``marks`` adds a rule set's own marks to cells by id.
    """
    # The same few boards come back at every move (a screen asks for the scene after each
    # action): built once each, not 90-odd cells again per move (in the browser 0.4 ms a move).
    return _cross_board(frozenset(seated), frozenset(locked),
                        tuple(sorted((marks or {}).items())))


@lru_cache(maxsize=64)
def _cross_board(seated: frozenset[str], locked: frozenset[str],
                 marks: tuple[tuple[str, tuple[str, ...]], ...]) -> Board:
    extra = dict(marks)
    regions: list[Region] = []
    cells: list[Cell] = []
    for colour in COLOURS:
        x0, y0 = YARD_BOXES[colour]
        regions.append(Region("yard", colour, _box(x0, y0, 6.0), muted=colour not in seated))
        regions.append(Region("yard-inner", colour, _box(x0 + 1.0, y0 + 1.0, 4.0)))
        for spot, (x, y) in enumerate(YARD_SPOTS[colour]):
            cid = yard_id(colour, spot)
            cells.append(Cell(cid, x, y, "yard", colour, extra.get(cid, ()), "spot",
                              f"{colour}'s yard"))
    for square, (col, row) in enumerate(TRACK_CELLS):
        cid = track_id(square)
        own: tuple[str, ...] = ()
        owner = None
        if square in START_SQUARES:
            kind = "start"
            owner = COLOURS[START_SQUARES.index(square)]
            label = f"square {square + 1}, {owner}'s start"  # spoken from 1, as people count
        elif square in STAR_SQUARES:
            kind, own, label = "safe", ("star",), f"square {square + 1}, a star"
        else:
            kind, label = "track", f"square {square + 1}"
        cells.append(Cell(cid, col + 0.5, row + 0.5, kind, owner, own + extra.get(cid, ()),
                          "square", label))
    for colour in COLOURS:
        is_locked = colour in locked
        for k, (col, row) in enumerate(LANE_CELLS[colour], start=1):
            cid = lane_id(colour, k)
            own = (("locked", "lock") if k == 1 else ("locked",)) if is_locked else ()
            cells.append(Cell(cid, col + 0.5, row + 0.5, "lane", colour,
                              own + extra.get(cid, ()), "square",
                              f"{colour}'s home lane, square {k}"))
    for colour in COLOURS:
        regions.append(Region("home", colour, _home_triangle(colour)))
        x, y = home_point(colour)
        cid = home_id(colour)
        cells.append(Cell(cid, x, y, "home", colour, extra.get(cid, ()), "none",
                          f"{colour}'s home"))
    return Board(float(GRID_SIZE), tuple(regions), tuple(cells), SEAT_TURNS)

