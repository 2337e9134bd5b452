"""Drawing into the page: the board, the panel, the clock, dialogs, announcements and focus.

The markup itself comes from the pure :mod:`app.view` and :mod:`app.panel`; this
module only puts it into the document (and animates pieces that moved), so the
controller never draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyscript import document, window
from pyscript.ffi import is_none

from ludo import Choice, board

from .. import panel, setup, view
from ..table import Table
from .dom import el, js


class Screen:
    def __init__(self) -> None:
        self.layout: dict[str, tuple[float, float, float]] = {}  # where pieces were drawn
        self.bottom_left: str | None = None  # online: the player's own colour (seed rule 1)
        self.reduced_motion = bool(window.matchMedia("(prefers-reduced-motion: reduce)").matches)

    @staticmethod
    def table_shown() -> bool:
        return not el("screen-table").hidden

    def forget_layout(self) -> None:
        self.layout = {}

    def draw_board(self, table: Table | None, options: Sequence[Choice] = ()) -> None:
        """The board with the clickable pieces marked; the empty board without a game."""
        if table is None:
            el("board").innerHTML = view.board_svg(board(setup.default_rules()))
            self.layout = {}
            return
        scene = table.scene()
        el("board").innerHTML = view.scene_svg(scene, [c for c in options if c.pieces],
                                               bottom_left=self.bottom_left)
        layout = view.piece_layout(scene, self.bottom_left)
        if not self.reduced_motion and self.layout:
            for piece, (x, y, _) in layout.items():
                old = self.layout.get(piece)
                if old and (abs(old[0] - x) > 0.5 or abs(old[1] - y) > 0.5):
                    el(f"tok-{piece}").querySelector(".token-body").animate(
                        js([{"transform": f"translate({old[0] - x}px, {old[1] - y}px)"},
                            {"transform": "translate(0px, 0px)"}]),
                        js({"duration": 260, "easing": "ease-out"}))
        self.layout = layout

    def draw_home(self, table: Table | None) -> None:
        """The board behind the home screen, and the note about the game in progress."""
        self.draw_board(table)
        box = el("resume-box")
        box.hidden = table is None
        if table is not None:
            text, button = panel.resume_text(table)
            el("resume-text").textContent = text
            el("btn-resume").textContent = button

    def draw_table(self, table: Table, options: Sequence[Choice], buttons: Sequence[Choice],
                   selected: str | None, prompt: str, log: Sequence[str]) -> None:
        """Everything the table screen shows."""
        self.draw_board(table, options)
        scene = table.scene()
        el("turn").innerHTML = panel.turn_html(table, scene)
        el("next").textContent = panel.next_text(table, scene)
        die = el("die")
        can_roll = any(c.kind == "roll" for c in options)
        die.disabled = not can_roll
        die.classList.toggle("ready", can_roll)
        die.classList.toggle("rolled", len(scene.dice) == 1)
        shown = scene.dice[0].value if len(scene.dice) == 1 else None
        el("die-face").innerHTML = panel.die_face(shown)
        label = f"Roll the die for {table.name(scene.turn or '')}" if can_roll else \
            f"Die showing {shown}; choose a token to move" if shown is not None else "Die"
        die.setAttribute("aria-label", label)
        el("die-hint").textContent = prompt
        el("choices").innerHTML = panel.choice_buttons_html(buttons)
        el("dice").innerHTML = panel.dice_html(scene, selected)
        el("seats").innerHTML = panel.seats_html(table, scene)
        if not el("details").hidden:
            el("details-seats").innerHTML = panel.details_seats_html(table, scene)
            el("details-rules").innerHTML = panel.rules_html(table, scene)
            el("log").innerHTML = panel.log_html(log)

    @staticmethod
    def draw_clock(seconds_left: float | None, turn_seconds: float) -> None:
        box = el("timer")
        box.hidden = seconds_left is None
        if seconds_left is None:
            return
        shown = int(seconds_left + 0.999)
        el("timer-text").textContent = f"{shown} s"
        el("timer-fill").style.width = f"{100 * seconds_left / turn_seconds:.1f}%"
        box.classList.toggle("low", seconds_left <= 5)
        box.setAttribute("aria-label", f"{shown} seconds left for this roll")

    @staticmethod
    def announce(text: str) -> None:
        if text:
            el("announcer").textContent = text

    @staticmethod
    def focus(table: Table) -> None:
        """The die when it is time to roll, else the first choice (unless it plays by itself)."""
        first = document.querySelector("#board .token.movable, #choices button")
        if table.rolling:
            el("die").focus()
        elif table.auto() is None and not is_none(first):
            first.focus()

    @staticmethod
    def piece_for_key(event: Any) -> str | None:
        """Arrow keys move the focus among the movable pieces; Enter or Space names one."""
        movable = list(document.querySelectorAll("#board .token.movable"))
        if not movable:
            return None
        key = str(event.key)
        current = next((i for i, t in enumerate(movable) if t == document.activeElement), -1)
        if key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
            event.preventDefault()
            step = 1 if key in ("ArrowRight", "ArrowDown") else -1
            movable[(current + step) % len(movable)].focus()
        elif key in ("Enter", " ") and current >= 0:
            event.preventDefault()
            return str(movable[current].dataset.piece)
        return None

    @staticmethod
    def show_quit(table: Table, seats: Sequence[str], default: str) -> None:
        el("quit-seat").innerHTML = panel.quit_options_html(table, seats, default)
        leave = table.leave
        el("quit-title").textContent = leave.title
        el("quit-text").textContent = leave.text
        el("quit-confirm").textContent = leave.button
        el("dlg-quit").showModal()

    @staticmethod
    def show_winner(table: Table) -> None:
        dialog = el("dlg-winner")
        if dialog.open:
            return
        title, text = panel.winner_text(table)
        el("winner-title").textContent = title
        el("winner-text").textContent = text
        dialog.showModal()

    @staticmethod
    def show_error(message: str) -> None:
        el("error-text").textContent = (f"{message} You can start a new game; the damaged "
                                        "save will be discarded.")
        if not el("dlg-error").open:
            el("dlg-error").showModal()

    @staticmethod
    def dialog_answer(name: str) -> str:
        return str(el(f"dlg-{name}").returnValue)


def any_shown(ids: Sequence[str]) -> bool:
    return any(not el(i).hidden for i in ids)


def show_only(screen_id: str, ids: Sequence[str], nav: str) -> None:
    """Show one screen and mark its link as the current page."""
    for i in ids:
        el(i).hidden = i != screen_id
    for link in document.querySelectorAll("[data-nav]"):
        if link.dataset.nav == nav:
            link.setAttribute("aria-current", "page")
        else:
            link.removeAttribute("aria-current")

