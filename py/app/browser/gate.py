"""When the die takes input: a short handover after the turn passes, kept closed while
presses keep coming (pure Python, no browser: tested in CPython).

A roll must be meant for the seat the die shows. After the turn passes to another seat,
the die stays closed (and looks it) for ``handover`` ms, so a double click or a held key
cannot roll for the next player. Presses that arrive while it is closed are answered
(it looks disabled, and shakes) and keep it closed until they pause for ``quiet`` ms:
Enter hammered every 35 ms, or clicks every 100 ms, never carry over to the next player,
however long they go on; the next player's first deliberate press rolls.
"""

from __future__ import annotations


class DieGate:
    def __init__(self, handover: float, quiet: float) -> None:
        self.handover = handover
        self.quiet = min(quiet, handover)
        self.open_at = 0.0  # ms (on the caller's clock) from which the die takes a press

    def turn_passed(self, now: float) -> None:
        """The turn went to another seat: close the die for the handover."""
        self.open_at = max(self.open_at, now + self.handover)

    def closed(self, now: float) -> bool:
        return now < self.open_at

    def press(self, now: float) -> bool:
        """A press of the die at ``now``: True if it may roll; else it keeps the die closed
        until the presses pause."""
        if now >= self.open_at:
            return True
        self.open_at = max(self.open_at, now + self.quiet)
        return False
