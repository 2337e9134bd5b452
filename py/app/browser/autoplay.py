"""Timers for what the table says is due: auto-moves, clock timeouts and computers' turns.

At most one automatic action is pending at a time. A computer's search runs in
slices of a few milliseconds with the page getting its turn between them, so the
page never freezes; if the position changes meanwhile (a quit, a reload, another
tab), the search is dropped.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pyscript import window

from ludo import Action

from ..table import TABLE, Due, Table
from .dom import Timeout, js, later, now_ms

BOT_SLICE_MS = 25  # a computer's search never holds the page longer than this per slice

Act = Callable[[str, Action], bool]


class Autoplay:
    def __init__(self, act: Act, auto_delay: float) -> None:
        self.act = act  # submits an action as a seat (or the table); False if refused
        self.auto_delay = auto_delay
        self.pending: tuple[Timeout, str] | None = None  # (timer, kind): the one pending action
        self.thinking: Any = None  # a computer's search in progress
        self.table: Table | None = None
        self.pace = 0.0

    @property
    def kind(self) -> str | None:
        """What is pending: "auto", "computer", "timeout", or None."""
        return self.pending[1] if self.pending else None

    def cancel(self) -> None:
        if self.pending is not None:
            self.pending[0].cancel()
            self.pending = None
        self.thinking = None

    def schedule(self, table: Table | None, pace: float) -> Due | None:
        """Set one timer for the next automatic action ``table`` says is due."""
        self.cancel()
        self.table, self.pace = table, pace
        due = None if table is None else table.due(now_ms(), self.auto_delay, pace)
        if due is not None:
            self.pending = (Timeout(lambda: self.run(due), due.at - now_ms()), due.kind)
        return due

    def run(self, due: Due) -> None:
        self.pending = None
        t = self.table
        if t is None or t.seat_to_act != due.seat:
            return
        if due.kind == "computer":
            self.thinking = t.computer_thinking()
            self.think(self.thinking, t.version, float(window.performance.now()))
        elif due.action is not None and not self.act(
                TABLE if due.kind == "timeout" else due.seat, due.action):
            self.schedule(t, self.pace)  # refused (it should not be): look again

    def think(self, thinking: Any, version: int, started: float) -> None:
        """One slice of a computer's search; the next slice after the page's turn."""
        t = self.table
        if self.thinking is not thinking or t is None or t.version != version:
            return  # the position changed (quit, reload, another tab): drop it
        deadline = time.perf_counter() + BOT_SLICE_MS / 1000
        try:
            while time.perf_counter() < deadline:
                next(thinking)
        except StopIteration as done:
            seat = t.seat_to_act or ""
            # a User Timing entry per decision, read by bench/bots_browser.py
            name = f"ludo:decision:{t.kind(seat)}:{'roll' if t.rolling else 'move'}"
            window.performance.measure(name, js({"start": started,
                                                 "end": float(window.performance.now())}))
            # the move is played in a task of its own: this slice and the redraw that
            # follows the move never add up to one long task
            decision = done.value  # (the except clause's name is gone once it ends)
            later(lambda: self.decided(thinking, version, seat, decision))
            return
        later(lambda: self.think(thinking, version, started))

    def decided(self, thinking: Any, version: int, seat: str, action: Action) -> None:
        """Play a computer's decision, unless the position changed since it was asked."""
        t = self.table
        if self.thinking is not thinking or t is None or t.version != version:
            return
        self.thinking = None
        self.act(seat, action)
