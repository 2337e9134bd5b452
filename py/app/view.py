"""The board view: a scene in, SVG markup out.

Pure Python with no browser imports, so it is tested in CPython. It knows no
rule set: it draws whatever :class:`ludo.Scene` it is given -- the board's
regions and cells with their marks, the stacks of pieces (side by side,
stacked as a block, or a rider on its carrier) -- and marks the pieces that
the rule set's :class:`ludo.Choice` list says can be clicked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from html import escape

from ludo import Choice, Scene
from ludo.rules.base import Board, Cell, Piece, Region, Stack

CELL = 40  # SVG user units per board unit
SIZE = 15 * CELL

FILL = {"red": "#c62828", "green": "#2e7d32", "yellow": "#f9a825", "blue": "#1565c0"}
"""Token and square colours; each passes WCAG AA against its letter colour."""
TINT = {"red": "#f6d5d5", "green": "#d4ead5", "yellow": "#fdefc8", "blue": "#d3e3f7"}
INK = {"red": "#ffffff", "green": "#ffffff", "yellow": "#1a1a1a", "blue": "#ffffff"}
LETTER = {"red": "R", "green": "G", "yellow": "Y", "blue": "B"}
"""Colour is never the only cue: each token also carries its colour's letter."""
LOCKED_LANE = "#b8bcc2"
MUTED_YARD = "#9aa0a6"

# Where several tokens share a place, each is drawn smaller and offset so
# that every one stays visible and clickable.
_CLUSTER = {
    1: ((0.0, 0.0),),
    2: ((-0.22, -0.22), (0.22, 0.22)),
    3: ((-0.22, -0.22), (0.22, -0.22), (0.0, 0.22)),
    4: ((-0.22, -0.22), (0.22, -0.22), (-0.22, 0.22), (0.22, 0.22)),
}


class View:
    """How the board is turned: ``bottom_left`` is the seat drawn at the bottom left."""

    def __init__(self, board: Board, bottom_left: str | None = None) -> None:
        self.board = board
        self.turns = dict(board.turns).get(bottom_left, 0) if bottom_left else 0
        self.size = board.size

    def xy(self, x: float, y: float) -> tuple[float, float]:
        for _ in range(self.turns % 4):  # anticlockwise quarter turns
            x, y = y, self.size - x
        return x * CELL, y * CELL


def _points(view: View, points: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    return [view.xy(x, y) for x, y in points]


def _region(view: View, region: Region) -> str:
    pts = _points(view, region.points)
    colour = region.colour
    if region.kind in ("yard", "yard-inner"):
        x, y = min(p[0] for p in pts), min(p[1] for p in pts)
        w, h = max(p[0] for p in pts) - x, max(p[1] for p in pts) - y
        if region.kind == "yard":
            fill = MUTED_YARD if region.muted or colour is None else FILL[colour]
            return (f'<rect class="yard yard-{colour}" x="{x + 3:g}" y="{y + 3:g}" '
                    f'width="{w - 6:g}" height="{h - 6:g}" rx="14" fill="{fill}"/>')
        return (f'<rect class="yard-inner" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
                f'rx="10" fill="#fff"/>')
    fill = FILL.get(colour or "", "#ffffff")
    text = " ".join(f"{px:g},{py:g}" for px, py in pts)
    return f'<polygon class="{region.kind} {region.kind}-{colour}" points="{text}" fill="{fill}"/>'


def _star(cx: float, cy: float, r: float) -> str:
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


def _crown(cx: float, cy: float) -> str:
    return (f'<g class="crown-mark" transform="translate({cx:g} {cy:g})" aria-hidden="true">'
            '<path d="M-11,7 L-13,-6 L-5,1 L0,-10 L5,1 L13,-6 L11,7 Z" fill="#f2c230" '
            'stroke="#5b4500" stroke-width="1.5" stroke-linejoin="round"/></g>')


def _feather(cx: float, cy: float) -> str:
    return (f'<g class="feather-mark" transform="translate({cx:g} {cy:g}) rotate(-35)" '
            'aria-hidden="true"><path d="M0,-13 C8,-6 7,6 0,12 C-7,6 -8,-6 0,-13 Z" '
            'fill="#e8eef7" stroke="#33475e" stroke-width="1.5"/>'
            '<path d="M0,-11 L0,15" stroke="#33475e" stroke-width="1.5"/></g>')


_MARKS = {"star": lambda x, y: _star(x, y, CELL * 0.38), "lock": _lock, "crown": _crown,
          "feather": _feather}


def _cell(view: View, cell: Cell) -> str:
    cx, cy = view.xy(cell.x, cell.y)
    colour = cell.colour
    if cell.shape == "spot":
        tint = TINT.get(colour or "", "#eeeeee")
        edge = FILL.get(colour or "", "#888888")
        out = (f'<circle class="spot" cx="{cx:g}" cy="{cy:g}" r="{CELL * 0.55:g}" '
               f'fill="{tint}" stroke="{edge}" stroke-width="2" data-place="{cell.id}"/>')
    elif cell.shape == "none":
        out = ""
    else:
        h = CELL / 2
        cls = "sq"
        fill = "#ffffff"
        extra = ""
        if cell.kind == "start" and colour:
            cls, fill = f"sq start start-{colour}", FILL[colour]
        elif cell.kind == "lane" and colour:
            locked = "locked" in cell.marks
            cls = f"sq lane lane-{colour}" + (" locked" if locked else "")
            fill = LOCKED_LANE if locked else FILL[colour]
        if cell.kind in ("track", "start", "safe"):
            extra = f' data-square="{cell.id}"'
        out = (f'<rect class="{cls}" x="{cx - h:g}" y="{cy - h:g}" width="{CELL}" '
               f'height="{CELL}" fill="{fill}"{extra}/>')
    for mark in cell.marks:
        draw = _MARKS.get(mark)
        if draw is not None:
            out += draw(cx, cy)
    return out


def board_svg(board: Board, bottom_left: str | None = None) -> str:
    """The board without pieces: regions, cells and their marks."""
    view = View(board, bottom_left)
    size = board.size * CELL
    parts = [f'<rect class="board-bg" x="0" y="0" width="{size:g}" height="{size:g}" rx="12"/>']
    parts += [_region(view, r) for r in board.regions if r.kind != "home"]
    parts += [_cell(view, c) for c in board.cells if c.shape == "spot"]
    parts += [_cell(view, c) for c in board.cells if c.shape == "square"]
    parts += [_region(view, r) for r in board.regions if r.kind == "home"]
    parts += [_cell(view, c) for c in board.cells if c.shape == "none" and c.marks]
    return "".join(parts)


# -- pieces --------------------------------------------------------------------------------


def piece_layout(scene: Scene, bottom_left: str | None = None
                 ) -> dict[str, tuple[float, float, float]]:
    """``piece id -> (x, y, radius)`` in SVG units."""
    view = View(scene.board, bottom_left)
    cells = {c.id: c for c in scene.board.cells}
    layout: dict[str, tuple[float, float, float]] = {}
    for stack in scene.stacks:
        cell = cells[stack.place]
        ax, ay = view.xy(cell.x, cell.y)
        n = len(stack.pieces)
        if stack.kind == "block":
            # one stack: each piece a little higher than the one below, all the same size
            for k, piece in enumerate(stack.pieces):
                lift = min(k, 3) * 0.09
                layout[piece.id] = (ax, ay - lift * CELL + 0.06 * CELL, CELL * 0.36)
            continue
        if stack.kind == "double":
            carrier, *riders = stack.pieces
            layout[carrier.id] = (ax - 0.1 * CELL, ay + 0.1 * CELL, CELL * 0.34)
            for rider in riders:
                layout[rider.id] = (ax + 0.14 * CELL, ay - 0.14 * CELL, CELL * 0.3)
            continue
        offsets = _CLUSTER.get(n)
        radius = CELL * (0.36 if n == 1 else 0.24 if n <= 4 else 0.18)
        for k, piece in enumerate(stack.pieces):
            if offsets is None:  # 5+ pieces: a small ring
                a = 2 * math.pi * k / n
                dx, dy = 0.3 * math.cos(a), 0.3 * math.sin(a)
            else:
                dx, dy = offsets[k]
            layout[piece.id] = (ax + dx * CELL, ay + dy * CELL, radius)
    return layout


def _piece(piece: Piece, x: float, y: float, r: float, picks: list[Choice],
           selected: bool) -> str:
    can = bool(picks)
    label = piece.label
    if len(picks) == 1:
        label += f"; {picks[0].label}"
    elif picks:
        label += f"; {len(picks)} possible moves"
    attrs = (f' role="button" tabindex="0" aria-label="{escape(label)}"' if can
             else f' role="img" aria-label="{escape(label)}"')
    cls = f"token token-{piece.colour}" + (" movable" if can else "") + \
        (" selected" if selected else "")
    font = r * 1.05
    colour = piece.colour
    return (
        f'<g class="{cls}" id="tok-{piece.id}" data-piece="{piece.id}" data-colour="{colour}" '
        f'data-token="{piece.token}" transform="translate({x:.1f} {y:.1f})"{attrs}>'
        f'<g class="token-body">'
        + (f'<circle class="halo" r="{r + 6:.1f}"/>' if can else "")
        + f'<circle class="disc" r="{r:.1f}" fill="{FILL.get(colour, "#777")}"/>'
        f'<text class="letter" y="{font * 0.36:.1f}" font-size="{font:.1f}" '
        f'fill="{INK.get(colour, "#fff")}" aria-hidden="true">{LETTER.get(colour, "?")}</text>'
        "</g></g>"
    )


def _count_badge(stack: Stack, layout: dict[str, tuple[float, float, float]]) -> str:
    x, y, r = layout[stack.pieces[-1].id]
    return (f'<g class="count" transform="translate({x + r * 0.8:.1f} {y - r * 0.8:.1f})" '
            f'aria-hidden="true"><circle r="9" fill="#1d1b26"/>'
            f'<text y="4" font-size="12" fill="#fff" text-anchor="middle">'
            f'{len(stack.pieces)}</text></g>')


def picks_by_piece(options: Iterable[Choice]) -> dict[str, list[Choice]]:
    """The choices a click on each piece can select."""
    found: dict[str, list[Choice]] = {}
    for choice in options:
        for piece in choice.pieces:
            found.setdefault(piece, []).append(choice)
    return found


def pieces_svg(scene: Scene, options: Iterable[Choice] = (), selected: str | None = None,
               bottom_left: str | None = None) -> str:
    """The piece layer. Pieces some choice names are focusable buttons with a halo."""
    layout = piece_layout(scene, bottom_left)
    picks = picks_by_piece(options)
    parts = []
    order = [(stack, piece) for stack in scene.stacks for piece in stack.pieces]
    # pieces that can be clicked last, so they are drawn on top and reached first by Tab
    # (a block keeps its own order: its top piece is drawn last)
    order.sort(key=lambda sp: (sp[1].id in picks and sp[0].kind == "group"))
    for _stack, piece in order:
        x, y, r = layout[piece.id]
        parts.append(_piece(piece, x, y, r, picks.get(piece.id, []), piece.id == selected))
    for stack in scene.stacks:
        if stack.kind == "block" and len(stack.pieces) > 1:
            parts.append(_count_badge(stack, layout))
    return "".join(parts)


def scene_svg(scene: Scene, options: Iterable[Choice] = (), selected: str | None = None,
              bottom_left: str | None = None) -> str:
    """The whole board with its pieces, as inner markup of the board's <svg> element."""
    return (f'<g class="board">{board_svg(scene.board, bottom_left)}</g>'
            f'<g class="tokens">{pieces_svg(scene, options, selected, bottom_left)}</g>')
