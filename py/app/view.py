"""The board view: a scene in, SVG markup out.

Pure Python with no browser imports, so it is tested in CPython. It knows no
rule set: it draws whatever :class:`ludo.Scene` it is given -- the board's
regions and cells with their marks, the stacks of pieces (side by side,
stacked as a block, or a rider on its carrier) -- and marks the pieces that
the rule set's :class:`ludo.Choice` list says can be clicked. It also works
out what a screen needs around the board: which corner each seat sits at, where
a tap lands, the last move's trail and the hops of a piece along its path.

Colours of plain surfaces are CSS classes (css/app.css has a light and a dark
theme); the four seat colours are the same in both and are written here.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from html import escape
from typing import NamedTuple

from ludo import Choice, Scene
from ludo.rules.base import Board, Cell, Piece, Region, Stack

CELL = 40  # SVG user units per board unit
SIZE = 15 * CELL

FILL = {"red": "#c62828", "green": "#2e7d32", "yellow": "#f9a825", "blue": "#1565c0"}
"""Token and square colours; each passes WCAG AA against its letter colour."""
INK = {"red": "#ffffff", "green": "#ffffff", "yellow": "#1a1a1a", "blue": "#ffffff"}
LETTER = {"red": "R", "green": "G", "yellow": "Y", "blue": "B"}
"""Colour is never the only cue: each token also carries its colour's letter."""
RIM = "#ffffff"
OUTLINE = "#1d1b26"
"""Every token is ringed white inside a dark outline, so it stands out on any square,
its own colour's included (tests/e2e/test_feel_layout.py measures it)."""

HOP_MS = 110  # one square of a hop
HOP_MAX_MS = 900  # a long walk hops faster
MIN_HIT_PX = 48  # the side of a movable piece's invisible hit square, in CSS pixels (>= 44)

# Where several tokens share a place, each is drawn smaller and offset so
# that every one stays visible.
_CLUSTER = {
    1: ((0.0, 0.0),),
    2: ((-0.2, -0.2), (0.2, 0.2)),
    3: ((-0.22, -0.2), (0.22, -0.2), (0.0, 0.22)),
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


def _bounds(pts: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    x, y = min(p[0] for p in pts), min(p[1] for p in pts)
    return x, y, max(p[0] for p in pts) - x, max(p[1] for p in pts) - y


def _region(view: View, region: Region) -> str:
    pts = _points(view, region.points)
    colour = region.colour
    if region.kind in ("yard", "yard-inner"):
        x, y, w, h = _bounds(pts)
        if region.kind == "yard":
            muted = region.muted or colour is None
            fill = "" if muted else f' fill="{FILL[colour or ""]}"'
            cls = f"yard yard-{colour}" + (" muted" if muted else "")
            return (f'<rect class="{cls}" x="{x + 3:g}" y="{y + 3:g}" '
                    f'width="{w - 6:g}" height="{h - 6:g}" rx="14"{fill}/>')
        return (f'<rect class="yard-inner" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
                f'rx="10"/>')
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


CROWN_PATH = "M-11,7 L-13,-6 L-5,1 L0,-10 L5,1 L13,-6 L11,7 Z"
FEATHER_PATHS = ("M0,-13 C8,-6 7,6 0,12 C-7,6 -8,-6 0,-13 Z", "M0,-11 L0,15")


def crown_svg(cx: float, cy: float, scale: float = 1.0, cls: str = "crown-mark") -> str:
    """A crown (board marks, die faces, the winner dialog): drawn, never an emoji."""
    return (f'<g class="{cls}" transform="translate({cx:g} {cy:g}) scale({scale:g})" '
            f'aria-hidden="true"><path d="{CROWN_PATH}" fill="#f2c230" stroke="#5b4500" '
            'stroke-width="1.5" stroke-linejoin="round"/></g>')


def feather_svg(cx: float, cy: float, scale: float = 1.0, cls: str = "feather-mark") -> str:
    body, quill = FEATHER_PATHS
    return (f'<g class="{cls}" transform="translate({cx:g} {cy:g}) scale({scale:g}) '
            f'rotate(-35)" aria-hidden="true"><path d="{body}" fill="#e8eef7" stroke="#33475e" '
            f'stroke-width="1.5"/><path d="{quill}" stroke="#33475e" stroke-width="1.5"/></g>')


_MARKS = {"star": lambda x, y: _star(x, y, CELL * 0.38), "lock": _lock, "crown": crown_svg,
          "feather": feather_svg}


def _cell(view: View, cell: Cell, muted: Collection[str] = ()) -> str:
    cx, cy = view.xy(cell.x, cell.y)
    colour = cell.colour
    if cell.shape == "spot":
        edge = FILL.get(colour or "", "#888888")
        out = (f'<circle class="spot spot-{colour}" cx="{cx:g}" cy="{cy:g}" r="{CELL * 0.55:g}" '
               f'stroke="{edge}" stroke-width="2" data-place="{cell.id}"/>')
    elif cell.shape == "none":
        out = ""
    else:
        h = CELL / 2
        cls, fill, extra = "sq", "", ""
        if cell.kind == "start" and colour:
            cls, fill = f"sq start start-{colour}", FILL[colour]
        elif cell.kind == "lane" and colour:
            # a lane of a seat nobody plays is grey, like its yard; a locked lane grey too
            grey = "locked" in cell.marks or colour in muted
            cls = f"sq lane lane-{colour}" + (" locked" if grey else "")
            fill = "" if grey else FILL[colour]
        if cell.kind in ("track", "start", "safe"):
            extra = f' data-square="{cell.id}"'
        paint = f' fill="{fill}"' if fill else ""
        out = (f'<rect class="{cls}" x="{cx - h:g}" y="{cy - h:g}" width="{CELL}" '
               f'height="{CELL}"{paint}{extra}/>')
    for mark in cell.marks:
        draw = _MARKS.get(mark)
        if draw is not None:
            out += draw(cx, cy)
    return out


def board_svg(board: Board, bottom_left: str | None = None) -> str:
    """The board without pieces: regions, cells and their marks."""
    view = View(board, bottom_left)
    size = board.size * CELL
    muted = {r.colour for r in board.regions if r.kind == "yard" and r.muted and r.colour}
    parts = [f'<rect class="board-bg" x="0" y="0" width="{size:g}" height="{size:g}" rx="12"/>']
    parts += [_region(view, r) for r in board.regions if r.kind != "home"]
    parts += [_cell(view, c) for c in board.cells if c.shape == "spot"]
    parts += [_cell(view, c, muted) for c in board.cells if c.shape == "square"]
    parts += [_region(view, r) for r in board.regions if r.kind == "home"]
    parts += [_cell(view, c) for c in board.cells if c.shape == "none" and c.marks]
    return "".join(parts)


def seat_corners(board: Board, bottom_left: str | None = None) -> dict[str, str]:
    """Each seat's corner of the board as drawn: ``tl``, ``tr``, ``bl`` or ``br`` (where its
    yard is), so that its dice box and name sit beside its own yard."""
    view = View(board, bottom_left)
    half = board.size * CELL / 2
    corners: dict[str, str] = {}
    for region in board.regions:
        if region.kind == "yard" and region.colour and region.colour not in corners:
            x, y, w, h = _bounds(_points(view, region.points))
            corners[region.colour] = ("t" if y + h / 2 < half else "b") + \
                ("l" if x + w / 2 < half else "r")
    return corners


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
            # the rider up and to the right of its carrier, far enough apart that both
            # letters stay readable (both colours must show), each inside the square
            carrier, *riders = stack.pieces
            layout[carrier.id] = (ax - 0.17 * CELL, ay + 0.17 * CELL, CELL * 0.32)
            for rider in riders:
                layout[rider.id] = (ax + 0.16 * CELL, ay - 0.16 * CELL, CELL * 0.28)
            continue
        offsets = _CLUSTER.get(n)
        radius = CELL * (0.4 if n == 1 else 0.27 if n == 2 else 0.25 if n <= 4 else 0.19)
        for k, piece in enumerate(stack.pieces):
            if offsets is None:  # 5+ pieces: a small ring
                a = 2 * math.pi * k / n
                dx, dy = 0.3 * math.cos(a), 0.3 * math.sin(a)
            else:
                dx, dy = offsets[k]
            layout[piece.id] = (ax + dx * CELL, ay + dy * CELL, radius)
    return layout


def hit_half(board_px: float) -> float:
    """Half the side of a movable piece's hit square, in SVG units, for a board drawn
    ``board_px`` CSS pixels wide: at least MIN_HIT_PX on screen, at least one square."""
    if board_px <= 0:
        return CELL / 2
    return max(CELL / 2, MIN_HIT_PX / 2 * SIZE / board_px)


def _piece(piece: Piece, x: float, y: float, r: float, picks: list[Choice],
           selected: bool, hit: float, role: str = "", tab_stop: bool = True) -> str:
    can = bool(picks)
    label = piece.label
    if len(picks) == 1:
        label += f"; {picks[0].label}"
    elif picks:
        label += f"; {len(picks)} possible moves"
    attrs = (f' role="button" tabindex="{0 if tab_stop else -1}" aria-label="{escape(label)}"'
             if can
             else f' role="img" aria-label="{escape(label)}"')
    cls = f"token token-{piece.colour}" + (f" {role}" if role else "") + \
        (" movable" if can else "") + (" selected" if selected else "")
    font = r * 0.95
    colour = piece.colour
    side = max(hit, r + 4)
    return (
        f'<g class="{cls}" id="tok-{piece.id}" data-piece="{piece.id}" data-colour="{colour}" '
        f'data-token="{piece.token}" transform="translate({x:.1f} {y:.1f})"{attrs}>'
        + (f'<rect class="hit" x="{-side:.1f}" y="{-side:.1f}" width="{2 * side:.1f}" '
           f'height="{2 * side:.1f}"/>' if can else "")
        + '<g class="token-body">'
        + (f'<circle class="halo" r="{r + 5:.1f}"/>' if can else "")
        + f'<circle class="rim" r="{r:.1f}" fill="{RIM}" stroke="{OUTLINE}"/>'
        f'<circle class="disc" r="{r * 0.76:.1f}" fill="{FILL.get(colour, "#777")}"/>'
        f'<text class="letter" y="{font * 0.36:.1f}" font-size="{font:.1f}" '
        f'fill="{INK.get(colour, "#fff")}" aria-hidden="true">{LETTER.get(colour, "?")}</text>'
        "</g></g>"
    )


def _count_badge(stack: Stack, layout: dict[str, tuple[float, float, float]]) -> str:
    x, y, r = layout[stack.pieces[-1].id]
    return (f'<g class="count" transform="translate({x + r * 0.8:.1f} {y - r * 0.8:.1f})" '
            f'aria-hidden="true"><circle r="10"/>'
            f'<text y="4.5" font-size="13" text-anchor="middle">'
            f'{len(stack.pieces)}</text></g>')


def picks_by_piece(options: Iterable[Choice]) -> dict[str, list[Choice]]:
    """The choices a click on each piece can select."""
    found: dict[str, list[Choice]] = {}
    for choice in options:
        for piece in choice.pieces:
            found.setdefault(piece, []).append(choice)
    return found


def pieces_svg(scene: Scene, options: Iterable[Choice] = (), selected: Collection[str] = (),
               bottom_left: str | None = None, hit: float = CELL / 2) -> str:
    """The piece layer. Pieces some choice names are focusable buttons with a halo and an
    invisible hit square of side ``2 * hit`` (SVG units) around them."""
    layout = piece_layout(scene, bottom_left)
    picks = picks_by_piece(options)
    parts = []
    order = [(stack, piece) for stack in scene.stacks for piece in stack.pieces]
    # pieces that can be clicked last, so they are drawn on top and reached first by Tab
    # (a block keeps its own order: its top piece is drawn last)
    order.sort(key=lambda sp: (sp[1].id in picks and sp[0].kind == "group"))
    # One Tab stop for all the movable pieces (the first): arrow keys go from piece to piece
    # (Screen.piece_for_key), so Tab goes on to the buttons below instead of through them all
    first = next((piece.id for _, piece in order if piece.id in picks), None)
    for stack, piece in order:
        x, y, r = layout[piece.id]
        role = "" if stack.kind != "double" else \
            "carrier" if piece is stack.pieces[0] else "rider"
        parts.append(_piece(piece, x, y, r, picks.get(piece.id, []), piece.id in selected, hit,
                            role, tab_stop=piece.id == first))
    locked = {c.id for c in scene.board.cells if "lock" in c.marks}
    for stack in scene.stacks:
        if stack.kind == "block" and len(stack.pieces) > 1:
            parts.append(_count_badge(stack, layout))
        if stack.place in locked:  # the cell's lock is under the pieces: shown above them too
            x, y, r = layout[stack.pieces[-1].id]
            # a round badge like the count's, the lock light on dark: a dark lock on the
            # block's dark rim was about 6 px wide and lost on a phone's board
            parts.append(f'<g class="lock-badge" transform="translate({x - r * 0.8:.1f} '
                         f'{y - r * 0.8:.1f})" pointer-events="none" aria-hidden="true">'
                         f'<circle r="10"/><g transform="scale(0.55)">{_lock(0, 0)}</g></g>')
    return "".join(parts)


def _mark_at(view: View, cell: Cell, cls: str) -> str:
    cx, cy = view.xy(cell.x, cell.y)
    if cell.shape == "square":
        h = CELL / 2 - 2
        return (f'<rect class="{cls}" x="{cx - h:g}" y="{cy - h:g}" width="{2 * h:g}" '
                f'height="{2 * h:g}" rx="4"/>')
    return f'<circle class="{cls}" cx="{cx:g}" cy="{cy:g}" r="{CELL * 0.5:g}"/>'


def overlay_svg(scene: Scene, last: Sequence[str] = (), bottom_left: str | None = None) -> str:
    """What lies between the board and the pieces: the glow around the yard of the seat
    to act, and the last move's trail (where it started, the squares passed, where it ended)."""
    view = View(scene.board, bottom_left)
    parts = []
    if scene.turn:
        for region in scene.board.regions:
            if region.kind == "yard" and region.colour == scene.turn:
                x, y, w, h = _bounds(_points(view, region.points))
                parts.append(f'<rect class="turn-glow turn-glow-{scene.turn}" x="{x + 3:g}" '
                             f'y="{y + 3:g}" width="{w - 6:g}" height="{h - 6:g}" rx="14"/>')
    cells = {c.id: c for c in scene.board.cells}
    trail = [cells[p] for p in last if p in cells]
    if len(trail) >= 2:
        parts.append('<g class="last-move" aria-hidden="true">')
        parts.append(_mark_at(view, trail[0], "last-from"))
        for cell in trail[1:-1]:
            cx, cy = view.xy(cell.x, cell.y)
            parts.append(f'<circle class="last-step" cx="{cx:g}" cy="{cy:g}" r="3.5"/>')
        parts.append(_mark_at(view, trail[-1], "last-to"))
        parts.append("</g>")
    return "".join(parts)


def scene_svg(scene: Scene, options: Iterable[Choice] = (), selected: Collection[str] = (),
              bottom_left: str | None = None, last: Sequence[str] = (),
              hit: float = CELL / 2) -> str:
    """The whole board with its pieces, as inner markup of the board's <svg> element."""
    return (f'<g class="board">{board_svg(scene.board, bottom_left)}</g>'
            f'<g class="overlay">{overlay_svg(scene, last, bottom_left)}</g>'
            f'<g class="tokens">{pieces_svg(scene, options, selected, bottom_left, hit)}</g>')


# -- taps, hops -----------------------------------------------------------------------------


def pieces_at(layout: dict[str, tuple[float, float, float]], candidates: Iterable[str],
              x: float, y: float, hit: float) -> list[str]:
    """The candidate pieces a tap at (x, y) (SVG units) may mean, nearest first.

    A tap on a piece's disc means that piece alone; elsewhere it means every piece
    whose hit square (side ``2 * hit``) holds the point -- one, or several for a
    picker to tell apart.
    """
    near, on = [], []
    for piece in candidates:
        if piece not in layout:
            continue
        px, py, r = layout[piece]
        d = math.hypot(px - x, py - y)
        if d <= r + 1:
            on.append((d / r, piece))
        if abs(px - x) <= max(hit, r + 4) and abs(py - y) <= max(hit, r + 4):
            near.append((d, piece))
    if on:  # discs that overlap (a rider on its carrier): the one nearest its centre, in
        return [min(on)[1]]  # proportion, whatever the order of the candidates
    return [piece for _, piece in sorted(near)]


def same_outcome(choices: Sequence[Choice], places: dict[str, str]) -> bool:
    """Whether ``choices`` all do the same thing as seen on the board: pieces from one
    place, of one kind, with one value, to one target (tokens sharing a square)."""
    return len({(c.kind, c.value, c.target, tuple(sorted(places.get(p, p) for p in c.pieces)))
                for c in choices}) <= 1


class Hop(NamedTuple):
    """One piece's walk: keyframes for its body (offsets from where it ends) and a duration."""

    piece: str
    frames: list[dict[str, object]]
    ms: float
    steps: int


def hop(scene: Scene, piece: str, path: Sequence[str], start: tuple[float, float],
        end: tuple[float, float], bottom_left: str | None = None) -> Hop:
    """Keyframes that carry a piece from ``start`` along ``path`` (cell ids) to ``end``,
    rising a little between squares, so it is seen to hop square by square."""
    view = View(scene.board, bottom_left)
    cells = {c.id: c for c in scene.board.cells}
    points = [start] + [view.xy(cells[p].x, cells[p].y) for p in path[1:-1] if p in cells] \
        + [end]
    steps = len(points) - 1
    ms = min(HOP_MS * steps, HOP_MAX_MS)
    ex, ey = end
    frames: list[dict[str, object]] = []
    for i, (px, py) in enumerate(points):
        if i:
            qx, qy = points[i - 1]
            frames.append({"transform": f"translate({(px + qx) / 2 - ex:.1f}px, "
                                        f"{(py + qy) / 2 - ey - 9:.1f}px) scale(1.22)",
                           "offset": round((i - 0.5) / steps, 4)})
        frames.append({"transform": f"translate({px - ex:.1f}px, {py - ey:.1f}px) scale(1)",
                       "offset": round(i / steps, 4) if steps else 1})
    return Hop(piece, frames, ms, steps)
