"""The saved game in the browser's storage, and the one tab of a browser that plays it.

Every tab can show the game, but only the newest one plays (runs the clock and the
computers, takes input and saves); the others follow its saves and offer "Play here".
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..savegame import SaveError, Session, decode, encode
from . import storage
from .dom import el, set_text, text_of

SAVE_KEY = "courtyard-ludo/save"
OWNER_KEY = "courtyard-ludo/owner"  # the tab that plays the table (clock, computers)
# what a tab that does not play is told at its table, in the words of its banner (index.html)
ANOTHER_TAB = "This game is open in another tab, which plays it now."
# ... once the game has ended: it is not played anywhere now; the other tab plays what comes
# next (a rematch, a new game) unless Play here makes this tab the one
GAME_ENDED_ANOTHER_TAB = ("This game has ended. Another tab plays the next one; press Play here "
                          "to play it in this tab.")
# its prompt line, said too when it comes back to the table: what it can do here
PASSIVE_PROMPT = f"{ANOTHER_TAB} Press Play here to play it in this tab."
SAVE_FAILED = ("This game cannot be saved on this device (its storage is full or blocked); "
               "it will be lost if the page closes.")
ROOM_SAVE_FAILED = ("This room cannot be saved on this device (its storage is full or "
                    "blocked); if the page closes or reloads, this device loses its place in it.")

Loaded = tuple[Session, list[Any], list[list[dict[str, Any]]]]


class Persist:
    def __init__(self, on_passive: Callable[[], None], on_followed: Callable[[], None]) -> None:
        self.tab_id = os.urandom(8).hex()
        self.passive = False  # another tab of this browser plays the game
        self.owner_kept = False  # storage took this tab's claim of the table (see claim)
        self.save_failed = False
        self.on_passive = on_passive  # this tab has just stepped aside
        self.on_followed = on_followed  # the playing tab saved: reload from storage

    @staticmethod
    def load() -> Loaded | str | None:
        """The saved game (session, positions, events), a message if it is damaged, or None."""
        saved = storage.get(SAVE_KEY)
        if saved is None:
            return None
        try:
            return decode(saved)
        except SaveError as exc:
            return str(exc)

    def save(self, session: Session | None) -> None:
        """Save after every action; a storage that refuses is reported, and play goes on."""
        if session is None or self.passive:
            return
        self.report_saved(storage.put(SAVE_KEY, encode(session)), SAVE_FAILED)

    def report_saved(self, ok: bool, failed: str) -> None:
        """Show ``failed`` under the table's prompt while saves are refused (a local game's
        or an online room's), and take it away when one is taken again."""
        # written only when it changes: the warning is an alert, said again at each write
        warning = el("save-warning")
        if ok:
            warning.hidden = True
        elif not self.save_failed or warning.textContent != failed:
            warning.textContent = failed
            warning.hidden = False
        self.save_failed = not ok

    @staticmethod
    def discard() -> None:
        storage.remove(SAVE_KEY)

    def claim(self) -> None:
        """Make this tab the one that plays."""
        self.passive = False
        el("tab-banner").hidden = True
        self.owner_kept = storage.put(OWNER_KEY, self.tab_id)

    def stepped_aside_now(self) -> bool:
        """Step aside now if storage says another tab has taken the table, before that tab's
        storage event comes (the browser queues it as a task of its own: a room's message
        handled meanwhile made this tab act for a room the other tab held already, a
        rematch's claim among them); True if it did. Only once storage took this tab's own
        claim: a storage that refused it (full) still names the tab before, perhaps closed."""
        if self.passive or not self.owner_kept:
            return False
        owner = storage.get(OWNER_KEY)
        if owner is None or owner == self.tab_id:
            return False
        self.step_aside()
        return True

    def step_aside(self) -> None:
        self.passive = True
        set_text("tab-banner-text", ANOTHER_TAB)  # (a room's own words follow, on_passive)
        el("tab-banner").hidden = False
        self.on_passive()

    def followed(self, over: bool) -> None:
        """The banner of a tab that follows another's game (after each save it followed, and
        when it steps aside): that tab plays it, or (``over``) nobody does, where the banner
        said the former for ever after the game ended."""
        if self.passive:
            set_text("tab-banner-text", GAME_ENDED_ANOTHER_TAB if over else ANOTHER_TAB)

    def on_storage(self, event: Any) -> None:
        """Another tab wrote: step aside if it took the table, follow its saves."""
        key, value = storage.name_of(event), text_of(event.newValue)  # (this copy's names)
        if key == OWNER_KEY and value is not None and value != self.tab_id:
            self.step_aside()
        elif key == SAVE_KEY and self.passive:
            self.on_followed()
