"""The board view: a position in, SVG markup out.

Pure Python with no browser imports, so it is tested in CPython.  It never
decides rules: which tokens may move comes from the controller (which asks
the engine); the view only draws what it is told.  Every coordinate comes
from :mod:`ludo.geometry`.
"""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

from ludo.geometry import (
    CENTRE,
    COLOURS,
    GRID_SIZE,
    HOME,
    LANE_CELLS,
    LANE_FIRST,
    STAR_SQUARES,
    START_SQUARES,
    TRACK_CELLS,
    YARD,
    YARD_BOXES,
    YARD_SPOTS,
    colour_index,
    rotate_point_for_view,
)

CELL = 40  # SVG user units per grid cell
SIZE = GRID_SIZE * CELL

FILL = {"red": "#c62828", "green": "#2e7d32", "yellow": "#f9a825", "blue": "#1565c0"}
"""Token and square colours; each passes WCAG AA against its letter colour."""
TINT = {"red": "#f6d5d5", "green": "#d4ead5", "yellow": "#fdefc8", "blue": "#d3e3f7"}
INK = {"red": "#ffffff", "green": "#ffffff", "yellow": "#1a1a1a", "blue": "#ffffff"}
LETTER = {"red": "R", "green": "G", "yellow": "Y", "blue": "B"}
"""Colour is never the only cue: each token also carries its colour's letter."""
LOCKED_LANE = "#b8bcc2"

# Where several tokens share a square, each is drawn smaller and offset so
# that every one stays visible and clickable.
_CLUSTER = {
    1: ((0.0, 0.0),),
    2: ((-0.22, -0.22), (0.22, 0.22)),
    3: ((-0.22, -0.22), (0.22, -0.22), (0.0, 0.22)),
    4: ((-0.22, -0.22), (0.22, -0.22), (-0.22, 0.22), (0.22, 0.22)),
}


def _xy(point: tuple[float, float], view: str) -> tuple[float, float]:
    x, y = rotate_point_for_view(point, view)
    return x * CELL, y * CELL


def _rect(cell: tuple[int, int], view: str, fill: str, cls: str = "sq", extra: str = "") -> str:
    x, y = _xy((cell[0] + 0.5, cell[1] + 0.5), view)
    h = CELL / 2
    return (f'<rect class="{cls}" x="{x - h:g}" y="{y - h:g}" width="{CELL}" height="{CELL}" '
            f'fill="{fill}"{extra}/>')


def _star(cx: float, cy: float, r: float) -> str:
    import math

    pts = []
    for k in range(10):
        rad = r if k % 2 == 0 else r * 0.45
        a = -math.pi / 2 + k * math.pi / 5
        pts.append(f"{cx + rad * math.cos(a):.1f},{cy + rad * math.sin(a):.1f}")
    return f'<polygon class="star" points="{" ".join(pts)}"/>'


def _lock(cx: float, cy: float) -> str:
    return (f'<g class="lock" transform="translate({cx:g} {cy:g})" aria-hidden="true">'
            '<path d="M-6,-2 v-4 a6,6 0 0 1 12,0 v4" fill="none" stroke="#333" stroke-width="2.5"/>'
            '<rect x="-9" y="-2" width="18" height="14" rx="2" fill="#333"/></g>')


def board_svg(seats: tuple[str, ...], unlocked: frozenset[str] | set[str], locks: bool,
              view: str = "red") -> str:
    """The static board: track, start squares, stars, yards, home lanes and centre.

    ``locks`` is True for rule sets with capture-to-unlock: a locked lane is
    drawn grey with a closed lock, an unlocked one in its colour.
    """
    parts = [f'<rect class="board-bg" x="0" y="0" width="{SIZE}" height="{SIZE}" rx="12"/>']
    for colour in COLOURS:
        x0, y0 = YARD_BOXES[colour]
        # rotate the box's corners for the view and normalise
        corners = [_xy((x0, y0), view), _xy((x0 + 6, y0 + 6), view)]
        x, y = min(c[0] for c in corners), min(c[1] for c in corners)
        seated = colour in seats
        parts.append(f'<rect class="yard yard-{colour}" x="{x + 3:g}" y="{y + 3:g}" '
                     f'width="{6 * CELL - 6}" height="{6 * CELL - 6}" rx="14" '
                     f'fill="{FILL[colour] if seated else "#9aa0a6"}"/>')
        parts.append(f'<rect class="yard-inner" x="{x + CELL:g}" y="{y + CELL:g}" '
                     f'width="{4 * CELL}" height="{4 * CELL}" rx="10" fill="#fff"/>')
        for spot in YARD_SPOTS[colour]:
            sx, sy = _xy(spot, view)
            parts.append(f'<circle class="spot" cx="{sx:g}" cy="{sy:g}" r="{CELL * 0.55:g}" '
                         f'fill="{TINT[colour]}" stroke="{FILL[colour]}" stroke-width="2"/>')
    for square, cell in enumerate(TRACK_CELLS):
        fill = "#ffffff"
        cls = "sq"
        if square in START_SQUARES:
            colour = COLOURS[START_SQUARES.index(square)]
            fill = FILL[colour]
            cls = f"sq start start-{colour}"
        parts.append(_rect(cell, view, fill, cls, f' data-square="{square}"'))
        if square in STAR_SQUARES:
            cx, cy = _xy((cell[0] + 0.5, cell[1] + 0.5), view)
            parts.append(_star(cx, cy, CELL * 0.38))
    for colour in COLOURS:
        open_lane = colour in unlocked or not locks
        fill = FILL[colour] if open_lane else LOCKED_LANE
        for cell in LANE_CELLS[colour]:
            parts.append(_rect(cell, view, fill, f"sq lane lane-{colour}"
                               + ("" if open_lane else " locked")))
        if not open_lane:
            first = LANE_CELLS[colour][0]
            cx, cy = _xy((first[0] + 0.5, first[1] + 0.5), view)
            parts.append(_lock(cx, cy))
    # the centre home: one triangle per colour, pointing at its lane
    cx, cy = _xy(CENTRE, view)
    h = 1.5 * CELL
    corners = {"tl": (cx - h, cy - h), "tr": (cx + h, cy - h), "br": (cx + h, cy + h),
               "bl": (cx - h, cy + h)}
    for colour in COLOURS:
        lx, ly = _xy(_lane_mouth(colour), view)
        # the two centre-square corners nearest to this lane's mouth
        near = sorted(corners.values(), key=lambda p: (p[0] - lx) ** 2 + (p[1] - ly) ** 2)[:2]
        pts = " ".join(f"{px:g},{py:g}" for px, py in (*near, (cx, cy)))
        parts.append(f'<polygon class="home home-{colour}" points="{pts}" fill="{FILL[colour]}"/>')
    return "".join(parts)


def _lane_mouth(colour: str) -> tuple[float, float]:
    last = LANE_CELLS[colour][-1]
    return last[0] + 0.5, last[1] + 0.5


def _home_point(colour: str) -> tuple[float, float]:
    """Where finished tokens of ``colour`` sit: inside its centre triangle."""
    mx, my = _lane_mouth(colour)
    return CENTRE[0] + (mx - CENTRE[0]) * 0.45, CENTRE[1] + (my - CENTRE[1]) * 0.45


def token_anchor(colour: str, token: int, position: int) -> tuple[float, float]:
    """The grid point a token is drawn around (before clustering)."""
    if position == YARD:
        return YARD_SPOTS[colour][token]
    if position == HOME:
        return _home_point(colour)
    if position >= LANE_FIRST:
        cell = LANE_CELLS[colour][position - LANE_FIRST]
    else:
        cell = TRACK_CELLS[position]
    return cell[0] + 0.5, cell[1] + 0.5


def describe_position(colour: str, position: int) -> str:
    """Words for a token's place, for screen readers and the move log."""
    if position == YARD:
        return "in the yard"
    if position == HOME:
        return "home"
    if position >= LANE_FIRST:
        return f"on home-lane square {position - LANE_FIRST + 1} of 5"
    relative = (position - START_SQUARES[colour_index(colour)]) % 52 + 1
    return f"on square {position} ({relative} from {colour}'s start)"


def token_layout(tokens_by_colour: dict[str, tuple[int, ...]], view: str = "red"
                 ) -> dict[tuple[str, int], tuple[float, float, float]]:
    """``(colour, token) -> (x, y, radius)`` in SVG units, clustering shared squares."""
    groups: dict[tuple[float, float], list[tuple[str, int]]] = defaultdict(list)
    for colour, places in tokens_by_colour.items():
        for token, pos in enumerate(places):
            groups[token_anchor(colour, token, pos)].append((colour, token))
    layout = {}
    for anchor, members in groups.items():
        ax, ay = _xy(anchor, view)
        n = len(members)
        offsets = _CLUSTER.get(n)
        radius = CELL * (0.36 if n == 1 else 0.24 if n <= 4 else 0.18)
        for k, key in enumerate(members):
            if offsets is None:  # 5+ tokens: a small ring
                import math

                a = 2 * math.pi * k / n
                dx, dy = 0.3 * math.cos(a), 0.3 * math.sin(a)
            else:
                dx, dy = offsets[k]
            layout[key] = (ax + dx * CELL, ay + dy * CELL, radius)
    return layout


def tokens_svg(tokens_by_colour: dict[str, tuple[int, ...]], movable: set[tuple[str, int]],
               targets: dict[tuple[str, int], int] | None = None, view: str = "red") -> str:
    """The token layer.  ``movable`` tokens are focusable buttons with a highlight.

    ``targets`` maps a movable token to its destination, for its label.
    """
    layout = token_layout(tokens_by_colour, view)
    parts = []
    # movable tokens last, so they are drawn on top and reached first by Tab
    order = sorted(layout, key=lambda key: (key in movable, COLOURS.index(key[0]), key[1]))
    for colour, token in order:
        x, y, r = layout[(colour, token)]
        pos = tokens_by_colour[colour][token]
        can = (colour, token) in movable
        label = f"{colour.capitalize()} token {token + 1}, {describe_position(colour, pos)}"
        if can and targets is not None and (colour, token) in targets:
            label += f"; moves to {describe_position(colour, targets[(colour, token)])}"
        attrs = (f' role="button" tabindex="0" aria-label="{escape(label)}"' if can
                 else f' role="img" aria-label="{escape(label)}"')
        cls = f"token token-{colour}" + (" movable" if can else "")
        font = r * 1.05
        parts.append(
            f'<g class="{cls}" id="tok-{colour}-{token}" data-colour="{colour}" '
            f'data-token="{token}" transform="translate({x:.1f} {y:.1f})"{attrs}>'
            f'<g class="token-body">'
            + (f'<circle class="halo" r="{r + 6:.1f}"/>' if can else "")
            + f'<circle class="disc" r="{r:.1f}" fill="{FILL[colour]}"/>'
            f'<text class="letter" y="{font * 0.36:.1f}" font-size="{font:.1f}" '
            f'fill="{INK[colour]}" aria-hidden="true">{LETTER[colour]}</text>'
            "</g></g>"
        )
    return "".join(parts)


def full_svg(state: Any, movable: set[tuple[str, int]] | None = None,
             targets: dict[tuple[str, int], int] | None = None, locks: bool = True,
             view: str = "red") -> str:
    """The whole board with tokens, as inner markup of the board's <svg> element."""
    tokens = {c: state.tokens[colour_index(c)] for c in state.seats
              if state.tokens[colour_index(c)]}
    return (f'<g class="board">{board_svg(state.seats, state.unlocked, locks, view)}</g>'
            f'<g class="tokens">{tokens_svg(tokens, movable or set(), targets, view)}</g>')
