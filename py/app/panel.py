"""The side panel as markup: turn, next, die, seats, choices as buttons, details.

Pure Python (tested in CPython): a :class:`~app.table.Table` and its scene in,
HTML text out. It knows no rule set; every fact and sentence comes from the
scene, the choices and the rule set's narration.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ludo import Choice, Scene

from .table import COMPUTER_LEVELS, Table
from .view import LETTER

_PIPS = {1: [(50, 50)], 2: [(28, 28), (72, 72)], 3: [(28, 28), (50, 50), (72, 72)],
         4: [(28, 28), (72, 28), (28, 72), (72, 72)],
         5: [(28, 28), (72, 28), (50, 50), (28, 72), (72, 72)],
         6: [(28, 25), (72, 25), (28, 50), (72, 50), (28, 75), (72, 75)]}
_BLANK = '<rect class="die-blank" x="4" y="4" width="92" height="92" rx="16"/>'


def badge(table: Table, seat: str, suffix: str = "") -> str:
    """A seat's colour swatch and name (the name isolated: it is the player's own text)."""
    return (f'<span class="swatch {seat}" aria-hidden="true">{LETTER.get(seat, "?")}</span>'
            f'<span><bdi>{escape(table.name(seat))}</bdi>{escape(suffix)}</span>')


def die_face(value: int | str | None) -> str:
    """A die face: pips for 1..6, the face's name for any other face, "Roll" when blank."""
    if value is None:
        return _BLANK + ('<text x="50" y="60" text-anchor="middle" font-size="26" '
                         'font-weight="700">Roll</text>')
    if isinstance(value, int) and value in _PIPS:
        return _BLANK + "".join(f'<circle class="pip" cx="{x}" cy="{y}" r="9"/>'
                                for x, y in _PIPS[value])
    return _BLANK + (f'<text x="50" y="58" text-anchor="middle" font-size="20" '
                     f'font-weight="700">{escape(str(value))}</text>')


def agent_label(table: Table, seat: str) -> str:
    kind = table.kind(seat)
    if kind in COMPUTER_LEVELS:
        return f"computer, {kind}"
    return "online" if kind == "remote" else ""


def turn_html(table: Table, scene: Scene) -> str:
    if scene.phase == "over":
        if not scene.winners:
            return "<span>The game has ended</span>"
        return "Winner: " + " and ".join(badge(table, s) for s in scene.winners)
    seat = scene.turn or ""
    label = agent_label(table, seat)
    who = f" <span class='muted'>({escape(label)})</span>" if label else ""
    return f"{badge(table, seat, '’s turn')}{who}"


def next_text(table: Table, scene: Scene) -> str:
    return f"Next: {table.name(scene.next)}" if scene.next else ""


def prompt(table: Table, scene: Scene, options: Sequence[Choice], waiting: bool = False) -> str:
    """What the player to act should do now, in words."""
    if scene.phase == "over" or scene.turn is None:
        return ""
    kind = table.kind(scene.turn)
    if kind in COMPUTER_LEVELS:
        return "The computer is playing this turn."
    if kind == "remote":
        return f"Waiting for {table.name(scene.turn)} to play online."
    if any(c.kind == "roll" for c in options):
        return "Tap the die, or focus it and press Enter or Space."
    rolled = ", ".join(d.label for d in scene.dice if d.state in ("rolled", "playable"))
    if waiting or table.auto() is not None:
        return f"You rolled {rolled}: the only move plays by itself."
    if any(c.pieces for c in options):
        return f"You rolled {rolled}: choose a glowing token (arrow keys, then Enter)."
    return "Choose one of the moves below." if options else ""


def seats_html(table: Table, scene: Scene) -> str:
    items = []
    for seat in scene.seats:
        cls = "current" if seat.colour == scene.turn else ""
        if seat.status in ("quit", "eliminated"):
            cls += " out"
        label = agent_label(table, seat.colour)
        extra = f" <span class='muted'>({escape(label.split(', ')[-1])})</span>" if label else ""
        team = f" · team {escape(seat.team)}" if seat.team else ""
        items.append(f'<li class="{cls.strip()}" data-colour="{seat.colour}">'
                     f'{badge(table, seat.colour)}{extra}'
                     f'<span class="meta">{escape(" · ".join(seat.facts))}{team}</span></li>')
    return "".join(items)


def choice_buttons_html(options: Sequence[Choice]) -> str:
    """Choices a person makes with a button rather than on the board (or a picker's list)."""
    return "".join(f'<button type="button" class="choice-btn" data-choice="{i}">'
                   f'{escape(c.label)}</button>' for i, c in enumerate(options))


def dice_html(scene: Scene, selected: str | None) -> str:
    """Value chips for a turn with several values: which are used, playable or stranded."""
    if len(scene.dice) < 2:
        return ""
    chips = []
    for i, die in enumerate(scene.dice):
        usable = die.state in ("playable", "unused", "rolled")
        pressed = "true" if selected == die.label and usable else "false"
        chips.append(
            f'<button type="button" class="chip chip-{die.state}" data-value="{escape(die.label)}"'
            f' data-index="{i}" aria-pressed="{pressed}"'
            + ("" if usable else " disabled")
            + f' aria-label="{escape(die.label)}, {die.state}">{escape(die.label)}</button>')
    return "".join(chips)


def details_seats_html(table: Table, scene: Scene) -> str:
    return "".join(f"<li><bdi>{escape(table.name(s.colour))}</bdi>: "
                   f"{escape(', '.join(s.facts))}</li>" for s in scene.seats)


def rules_html(table: Table, scene: Scene) -> str:
    lines = list(scene.summary)
    if not table.session.timer:
        lines = [line for line in lines if not line.startswith("With the turn clock")]
        lines.append("Turn timer off for this game.")
    return "".join(f"<li>{escape(line)}</li>" for line in lines)


def log_html(lines: Sequence[str], limit: int = 300) -> str:
    return "".join(f"<li>{escape(line)}</li>" for line in reversed(lines[-limit:]))


def quit_options_html(table: Table, seats: Sequence[str], default: str) -> str:
    return "".join(f'<option value="{s}"{" selected" if s == default else ""}>'
                   f"{escape(table.name(s))}</option>" for s in seats)


def winner_text(table: Table) -> tuple[str, str]:
    """The winner dialog's title and text."""
    won = table.winners()
    if not won:
        return "The game has ended", "Nobody won this match. Play again with the same seats?"
    names = " and ".join(table.name(s) for s in won)
    verb = "win" if len(won) > 1 else "wins"
    finished = {s.colour for s in table.scene().seats if s.status == "finished"}
    if set(won) <= finished:
        how = "got all their tokens home" if len(won) > 1 else "got all four tokens home"
    else:
        how = "is the last player remaining"
    return f"{names} {verb}!", f"{names} {how}. Play again with the same seats?"


def resume_text(table: Table) -> tuple[str, str]:
    """The home screen's note about the game in progress, and its button."""
    if table.over:
        won = table.winners()
        who = " and ".join(table.name(s) for s in won) if won else "nobody"
        return f"The last {table.title} game is over: {who} won.", "See the table"
    turn = table.name(table.seat_to_act or "")
    return (f"A {table.title} game is in progress ({len(table.active_seats())} players; "
            f"{turn} to play). Its clock keeps running. Starting a new game replaces it.",
            "Resume game")
