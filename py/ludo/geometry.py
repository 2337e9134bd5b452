"""Geometry of the standard cross-shaped Ludo board.

The board is a 15x15 grid.  The 52 track squares run clockwise around the
centre; every colour owns a 13-square quarter starting at its start square.
Positions are encoded as small integers so that the engine can use lookup
tables in its hot path:

* ``YARD`` (-1): waiting in the yard;
* ``0..51``: an absolute track square (square 0 is red's start square);
* ``LANE_FIRST..LANE_LAST`` (52..56): the five squares of the token's *own*
  home lane (lane squares of different colours never meet, so the same code
  is reused per colour);
* ``HOME`` (57): finished, in the centre.

Grid coordinates are ``(column, row)`` with row 0 at the top, measured in
cell units; a square's centre is at ``(column + 0.5, row + 0.5)``.  Red sits
at the bottom left, as every player sees their own colour online.
"""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("red", "green", "yellow", "blue")
"""Colours in clockwise seating and turn order."""

TRACK_LENGTH = 52
QUARTER = TRACK_LENGTH // len(COLOURS)  # 13 squares between two start squares
LANE_LENGTH = 5

YARD = -1
LANE_FIRST = TRACK_LENGTH  # 52
LANE_LAST = LANE_FIRST + LANE_LENGTH - 1  # 56
HOME = LANE_LAST + 1  # 57

START_OFFSET = 0  # a colour's start square, relative to its quarter
STAR_OFFSET = 8  # the star square of each quarter
ENTRANCE_OFFSET = TRACK_LENGTH - 2  # last track square before the lane (50 for red)


COLOUR_INDEX: dict[str, int] = {colour: i for i, colour in enumerate(COLOURS)}
"""Each colour's index in clockwise order (red 0 .. blue 3): a dict, for the rules' hot paths."""


def colour_index(colour: str) -> int:
    """Index of ``colour`` in clockwise order (red 0 .. blue 3)."""
    return COLOURS.index(colour)


def start_square(colour: str) -> int:
    """The track square where ``colour`` enters from its yard."""
    return (colour_index(colour) * QUARTER + START_OFFSET) % TRACK_LENGTH


def entrance_square(colour: str) -> int:
    """The track square from which ``colour`` turns into its home lane."""
    return (colour_index(colour) * QUARTER + ENTRANCE_OFFSET) % TRACK_LENGTH


START_SQUARES: tuple[int, ...] = tuple(start_square(c) for c in COLOURS)
STAR_SQUARES: tuple[int, ...] = tuple(
    (i * QUARTER + STAR_OFFSET) % TRACK_LENGTH for i in range(len(COLOURS))
)
SAFE_SQUARES: frozenset[int] = frozenset(START_SQUARES + STAR_SQUARES)
"""The eight squares where no capture ever happens."""
ENTRANCE_SQUARES: tuple[int, ...] = tuple(entrance_square(c) for c in COLOURS)


def is_safe(square: int) -> bool:
    """True for the four start squares and the four stars."""
    return square in SAFE_SQUARES


# --- grid coordinates -------------------------------------------------------

GRID_SIZE = 15
CENTRE = (7.5, 7.5)


def _canonical_track() -> list[tuple[int, int]]:
    """Track cells for a board with the first colour at the top left.

    Walks clockwise from that colour's start square at (1, 6).
    """
    cells: list[tuple[int, int]] = []
    cells += [(c, 6) for c in range(1, 6)]  # left arm, top row, inwards
    cells += [(6, r) for r in range(5, -1, -1)]  # top arm, left column, up
    cells += [(7, 0)]
    cells += [(8, r) for r in range(0, 6)]  # top arm, right column, down
    cells += [(c, 6) for c in range(9, 15)]  # right arm, top row, outwards
    cells += [(14, 7)]
    cells += [(c, 8) for c in range(14, 8, -1)]  # right arm, bottom row, inwards
    cells += [(8, r) for r in range(9, 15)]  # bottom arm, right column, down
    cells += [(7, 14)]
    cells += [(6, r) for r in range(14, 8, -1)]  # bottom arm, left column, up
    cells += [(c, 8) for c in range(5, -1, -1)]  # left arm, bottom row, outwards
    cells += [(0, 7), (0, 6)]
    assert len(cells) == TRACK_LENGTH
    return cells


def _rotate_cw(cell: tuple[int, int], quarter_turns: int) -> tuple[int, int]:
    c, r = cell
    for _ in range(quarter_turns % 4):
        c, r = GRID_SIZE - 1 - r, c
    return c, r


# The canonical walk puts colour 0 at the top left; one counter-clockwise
# quarter turn (three clockwise) brings it to the bottom left.
_BOARD_TURN = 3

TRACK_CELLS: tuple[tuple[int, int], ...] = tuple(
    _rotate_cw(cell, _BOARD_TURN) for cell in _canonical_track()
)
"""Grid cell of each track square 0..51."""

LANE_CELLS: dict[str, tuple[tuple[int, int], ...]] = {
    colour: tuple(
        _rotate_cw((k, 7), _BOARD_TURN + i) for k in range(1, LANE_LENGTH + 1)
    )
    for i, colour in enumerate(COLOURS)
}
"""Grid cells of each colour's five home-lane squares, outermost first."""

def _yard_box(colour: str) -> tuple[float, float]:
    turns = _BOARD_TURN + colour_index(colour)
    corners = [_rotate_point(p, turns) for p in ((0.0, 0.0), (6.0, 6.0))]
    return min(x for x, _ in corners), min(y for _, y in corners)


def _yard_spots(colour: str) -> tuple[tuple[float, float], ...]:
    turns = _BOARD_TURN + colour_index(colour)
    # four circles in a 2x2 pattern inside the 6x6 yard, rotated with the yard
    pattern = ((2.0, 2.0), (4.0, 2.0), (2.0, 4.0), (4.0, 4.0))
    return tuple(_rotate_point(point, turns) for point in pattern)


def _rotate_point(point: tuple[float, float], quarter_turns: int) -> tuple[float, float]:
    x, y = point
    for _ in range(quarter_turns % 4):
        x, y = GRID_SIZE - y, x
    return x, y


YARD_SPOTS: dict[str, tuple[tuple[float, float], ...]] = {
    colour: _yard_spots(colour) for colour in COLOURS
}
"""Centre points of the four yard circles of each colour, one per token."""


YARD_BOXES: dict[str, tuple[float, float]] = {colour: _yard_box(colour) for colour in COLOURS}
"""Top-left corner of each colour's 6x6 yard (cell units)."""
