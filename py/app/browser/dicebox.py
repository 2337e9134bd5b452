"""The die's input: a press rolls only for the seat the die shows, never during the handover.

The rule itself is :class:`~app.browser.gate.DieGate` (pure, tested in CPython); this
module wires it to the die button: clicks and keys, a shake for a press that is not
taken, and one timer that redraws the die when its handover ends (it looks disabled
until then, so no press is ever dropped without a sign).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyscript import window

from .dom import Timeout, el, js, on
from .gate import DieGate

HANDOVER_MS = 500  # the die is closed (and looks it) this long after the turn passes
QUIET_MS = 250  # ...and until presses pause this long: no roll carries over to the next seat


class DieInput:
    def __init__(self, auto_delay: float, roller: Callable[[], str | None],
                 roll: Callable[[], None], redraw: Callable[[], None],
                 pressed: Callable[[], None], tell: Callable[[str], None] = lambda _: None,
                 name: Callable[[str], str] = str,
                 verb: Callable[[], str] = lambda: "roll") -> None:
        # no longer than an automatic move's pause: tests that set it to 0 click at once
        self.gate = DieGate(min(HANDOVER_MS, auto_delay), QUIET_MS)
        self.roller = roller  # the seat that may roll now, or None
        self.roll = roll
        self.redraw = redraw
        self.pressed = pressed  # any press (sounds may start only after one)
        self.tell = tell  # a sentence for a screen reader (a shake is not heard)
        self.name = name  # a seat's name as the table says it
        self.verb = verb  # the rule set's verb for the die: roll (or throw)
        self.refused: str | None = None  # the seat whose press was not taken, until it can be
        self.timer: Timeout | None = None

    def bind(self) -> None:
        on(el("die"), "click", self.on_click)
        on(el("die"), "keydown", self.on_key)

    def state(self) -> str:
        """"ready" (a press rolls), "wait" (the handover: it looks disabled, and is) or "off"."""
        if self.roller() is None:
            return "off"
        return "wait" if self.gate.closed(clock_ms()) else "ready"

    def turn_passed(self) -> None:
        self.gate.turn_passed(clock_ms())
        self.reopen()

    def reopen(self) -> None:
        """Redraw the die when its handover ends."""
        if self.timer is not None:
            self.timer.cancel()
        wait = self.gate.open_at - clock_ms()
        self.timer = None if wait <= 0 else Timeout(self.opened, wait + 5)

    def opened(self) -> None:
        self.timer = None
        self.redraw()
        seat, self.refused = self.refused, None
        if seat is not None and self.roller() == seat:  # the press that was not taken: now
            self.tell(f"The die is ready: {self.verb()} for {self.name(seat)}.")

    def on_click(self, event: Any) -> None:
        self.pressed()
        if (event.detail or 0) > 1:
            return  # the second click of a double click
        seat = self.roller()
        if seat is None:
            return
        die = el("die")
        if die.classList.contains("rolling"):
            return  # a roll is on its way to the host: pressing again sends nothing
        # a roll must be meant for the seat the die shows, and the die must show it ready
        shown = die.classList.contains("ready") and str(die.dataset.seat) == seat
        if self.gate.press(pressed_at(event)) and shown:
            self.roll()
            return
        shake(die)  # the turn has only just passed, and the die looks disabled
        if self.gate.closed(clock_ms()):
            self.refused = seat
            self.tell(f"Not yet: the die is passing to {self.name(seat)}.")
            self.reopen()
        else:
            self.redraw()  # its handover is over: show it ready (this press was not seen so)

    @staticmethod
    def on_key(event: Any) -> None:
        if event.repeat and str(event.key) in ("Enter", " "):
            event.preventDefault()  # a held key rolls once, never for the next player


def clock_ms() -> float:
    """The die's clock: the page's monotonic one, on which events carry their timeStamp."""
    return float(window.performance.now())


def pressed_at(event: Any) -> float:
    """When ``event`` happened on clock_ms's clock: its timeStamp, not the moment Python
    handles it. While the page is busy (drawing a move) a press waits in the queue; timed at
    handling, a press made 100 ms after the last one could look like one after a pause, and
    roll for the next player (a click every 100 ms did, once in a CI run)."""
    stamp = getattr(event, "timeStamp", None)
    return clock_ms() if stamp is None else float(stamp)


def shake(element: Any) -> None:
    if window.matchMedia("(prefers-reduced-motion: reduce)").matches:
        return  # the sentence told says it; nothing moves
    element.animate(js([{"transform": "translateX(0)"}, {"transform": "translateX(-4px)"},
                        {"transform": "translateX(4px)"}, {"transform": "translateX(0)"}]),
                    js({"duration": 180}))
