"""The controller: browser events to the table, timers for what the table says is due.

Thin by design. The :class:`~app.table.Table` decides who may act, applies
actions, keeps the record and the clock and says which automatic action is
due; :mod:`app.screen` draws. What is left here is wiring: DOM events,
timers, the computers' slices, storage and the one tab of a browser that plays.
"""

from __future__ import annotations

from typing import Any

from pyscript import document, window
from pyscript.ffi import is_none

from ludo import Action, Choice, IllegalAction

from .. import panel, setup, view
from ..savegame import record_file
from ..table import Table, bots_available
from . import form
from .autoplay import Autoplay
from .dicebox import DieInput
from .dom import (
    download,
    el,
    expose_hooks,
    keep,
    kept_callbacks,
    later,
    now_ms,
    number_param,
    on,
    query_param,
)
from .persist import PASSIVE_PROMPT, Persist
from .screen import LOW_SECONDS, Screen, any_shown, close_dialog, show_only
from .sound import Sound

AUTO_DELAY_MS = 450  # a short pause so players see the roll before an automatic move
SCREENS = ("loading", "screen-home", "screen-table", "screen-rules", "screen-install")
PAGES = ("home", "table", "rules", "install")
# The screen each dialog asks about. Back (or any other change of address) away from that
# screen closes it unanswered: a winner or quit dialog stood over the home screen, where its
# Rematch or Quit game would act on a table no longer shown.
DIALOG_SCREENS = {"quit": "table", "winner": "table", "leave": "table", "replace": "home"}


class Controller:
    """One table in one browser tab."""

    def __init__(self) -> None:
        self.table: Table | None = None
        self.page_shown: str | None = None
        self.warned: float | None = None  # the deadline whose low-time warning was spoken
        self.sound = Sound()
        self.screen = Screen(self.sound)
        self.selected: str | None = None  # a value chip the player picked
        self.picker: list[Choice] = []  # several choices under one click, offered as buttons
        # where the focus goes back to when Escape cancels a picker or a picked value: the
        # token (or the chip) the player was on when it opened
        self.pending_from: str | None = None
        self.leaving = False  # the last local person is quitting: Home, not a winner dialog
        self.told_prompt = ""  # the prompt last announced (a computer's is said once a turn)
        self.persist = Persist(self.step_aside, self.follow)
        self.turn_seconds = number_param("turn_seconds", 30, 1, 600)
        auto_delay = number_param("auto_delay", AUTO_DELAY_MS, 0, 5000)
        self.die = DieInput(auto_delay, self.roller, lambda: self.act_as_person(Action("roll")),
                            self.draw, self.sound.wake, self.screen.announce,
                            lambda seat: self.table.name(seat) if self.table else seat,
                            lambda: self.table.wording.verb if self.table else "roll")
        self.auto = Autoplay(self.act, auto_delay)
        pace = query_param("pace_ms")
        self.pace_override = number_param("pace_ms", 0, 0, 10_000) if pace else None
        self.bots = bots_available()
        self.settings = form.remembered()

    # -- boot, the save, and the one tab that plays -----------------------------------------

    def boot(self) -> None:
        """Take over from the static page: wire events, restore the save, show a screen."""
        form.build(self.bots)
        form.fill(self.settings, self.bots)
        for target, event, handler in (
                ("setup", "submit", self.on_start), ("setup", "change", self.on_setup_change),
                ("setup", "input", lambda e: self.remember_form()),
                ("btn-resume", "click", lambda e: self.go("table")),
                ("btn-rules-resume", "click", lambda e: self.go("table")),
                ("board", "click", self.on_board_click), ("board", "keydown", self.on_board_key),
                ("choices", "click", self.on_button), ("dice", "click", self.on_chip),
                ("choices", "keydown", self.on_cancel_key), ("dice", "keydown", self.on_cancel_key),
                ("btn-home", "click", lambda e: self.go("home")),
                ("btn-details", "click", self.on_details), ("btn-quit", "click", self.on_quit),
                ("btn-record", "click", self.on_record),
                ("dlg-quit", "close", self.on_quit_closed),
                ("dlg-replace", "close", self.on_replace_closed),
                ("dlg-winner", "close", self.on_winner_closed),
                ("dlg-error", "close", self.on_error_closed),
                ("btn-play-here", "click", lambda e: self.play_here()),
                ("skip", "click", self.on_skip)):
            on(el(target), event, handler)
        on(window, "hashchange", lambda e: self.route())
        # route() shows each screen from its top; the browser's own restoring of a history
        # entry's scroll came after it on Back and Forward, and put Home where it was left
        # (at the foot of its form, below the note of a game in progress and the focus)
        window.history.scrollRestoration = "manual"
        on(window, "pagehide", lambda e: self.save())
        on(window, "storage", self.persist.on_storage)
        on(window, "resize", lambda e: self.draw())
        window.setInterval(keep(lambda: self.tick()), 250)
        expose_hooks(position=lambda: self.table.position_text() if self.table else "",
                     legal=lambda: self.table.legal_json() if self.table else [],
                     taps=lambda x, y: self.screen.pieces_at_point(
                         float(x), float(y), self.movable()),
                     kept=kept_callbacks)
        self.die.bind()
        self.screen.watch_board(self.draw)
        self.sound.bind(el("btn-sound"))
        self.load_saved()
        self.claim()
        el("loading").hidden = True
        if self.table and self.table.session.screen == "table" and not window.location.hash:
            window.history.replaceState(None, "", "#table")
        self.route()
        document.documentElement.dataset.ready = "1"
        self.schedule()
        self.sound.prepare()  # here, not at the first press: it can take a long task
        try:  # offline play, updates and Install; the game works without them
            from . import pwa
            pwa.start(self)
        except Exception as exc:  # noqa: BLE001
            window.console.warn(f"offline support failed to start: {exc}")

    def load_saved(self) -> bool:
        """Restore the saved game, if any; a damaged save is explained, never fatal."""
        loaded = self.persist.load()
        if isinstance(loaded, str):
            self.screen.show_error(loaded)
        if not isinstance(loaded, tuple):
            return False
        table = Table.restore(*loaded, now=now_ms(), turn_seconds=self.turn_seconds)
        self.seat_table(table, table.sole_person())
        return True

    def seat_table(self, table: Table, bottom_left: str | None) -> None:
        """Make ``table`` the one shown (a new game, a save loaded, an online match), with
        ``bottom_left``'s colour at the board's bottom left: nothing of the table before it
        carries over (a picker or a picked value showed the old game's moves, an animation
        its pieces)."""
        self.table = table
        self.drop_pending()
        self.screen.forget_layout(table)
        self.screen.bottom_left = bottom_left

    def claim(self, reload: bool = False) -> None:
        """Make this tab the one that plays (clock, computers, input)."""
        if reload:
            self.auto.cancel()
            self.load_saved()
        self.persist.claim()
        if reload:
            self.route()
            self.schedule()

    def play_here(self) -> None:
        """"Play here": this tab takes the table, and the screen shown takes the focus again
        (the button, hidden now, had it: it fell to the page itself)."""
        self.claim(reload=True)
        self.focus_page(self.page_shown or "home")

    def step_aside(self) -> None:
        self.auto.cancel()
        self.say_followed()
        self.draw()

    def follow(self) -> None:
        if self.load_saved():
            self.say_followed()
            self.draw()

    def say_followed(self) -> None:
        if not self.in_room() and self.table is not None:  # (a room's banner says its own)
            self.persist.followed(self.table.over)

    def in_room(self) -> bool:
        """Whether this page is in an online room (whose banner words are the room's)."""
        return False

    def save(self) -> None:
        self.persist.save(self.table.session if self.table else None)

    # -- screens ------------------------------------------------------------------------------

    def on_start(self, event: Any) -> None:
        event.preventDefault()
        if self.persist.passive:  # another tab plays: take the table first, or it overwrites ours
            self.claim(reload=True)
        problem = form.read(self.settings)
        if problem:
            form.show_error(problem)
            # beside the seats, far below a phone's fold: seen only if brought into view
            self.screen.bring_into_view("setup-error")
            return
        form.remember(self.settings)
        t = self.table
        if t is not None and not t.over:  # a game in progress is not replaced without a word
            self.screen.show_replace(t, self.online_part())
            return
        self.start_from_settings()

    def on_replace_closed(self, event: Any) -> None:
        if self.screen.dialog_answer("replace") == "confirm":
            self.start_from_settings()

    def start_from_settings(self) -> None:
        s = self.settings
        self.start_game(s["rules"], tuple(s["seats"]), s["names"], s["players"], s["timer"],
                        s["options"])

    def start_game(self, rules: str, seats: tuple[str, ...], names: dict[str, str],
                   players: dict[str, str], timer: bool, options: dict[str, Any]) -> None:
        """A fresh game; the seed (who starts, every die) comes from the OS's randomness.

        In three tasks, so that none is long (a click's task also lays the page out when the
        click changed it): the game is made and saved; then the table is shown and drawn;
        then the focus goes to it (which lays out the page, unless a frame already did).
        """
        self.auto.cancel()
        table = Table.new(rules, seats, None, now_ms(), names, players, timer, options,
                          turn_seconds=self.turn_seconds)
        self.seat_table(table, table.sole_person())
        # a handover too: Start game or Rematch pressed twice (Enter 50-150 ms apart) rolled
        # the first die with the second press, on the die once the table took the focus
        self.die.turn_passed()
        self.save()
        later(lambda: self._show_new(table))

    def _show_new(self, table: Table) -> None:
        if self.table is not table:
            return  # another game was started, or loaded, meanwhile
        told = f"{table.name(table.seat_to_act or '')} starts. {self.prompt()}"
        self.schedule(draw=False)  # first, so that the one draw (in go) shows what is due
        self.go("table")
        window.scrollTo(0, 0)
        self.screen.announce(told)
        version = table.version
        later(lambda: self._focus_new(table, version))

    def _focus_new(self, table: Table, version: int) -> None:
        if self.table is table and table.version == version and table.local_person_to_act() \
                and self.screen.table_shown() and not self.persist.passive:
            self.screen.focus(table)

    def go(self, page: str) -> None:
        """Show a page by changing the address, so Back works as expected."""
        if window.location.hash != f"#{page}":  # Back returns (a hashchange routes it)
            window.history.pushState(None, "", f"#{page}")
        self.route()

    def route(self) -> None:
        page = str(window.location.hash or "#home")[1:]
        if page == "table" and self.table is None:
            # no game to show (a bookmark, a finished game cleared): Home, and the address
            # says so, or Start game would add no history entry for Back to return from
            page = "home"
            window.history.replaceState(None, "", "#home")
        if page not in PAGES:
            shown = self.page_shown if any_shown(SCREENS[1:]) else None
            page = shown if shown in PAGES else "home"
            # an address that names no screen (a typo, an old bookmark) is made to name the
            # one shown: left as it was, Back to it from another screen showed that screen
            # still, and Back seemed to do nothing
            window.history.replaceState(None, "", f"#{page}")
            if page == shown:
                return  # an in-page anchor such as the skip link: stay on this screen
        t = self.table
        if t is not None and page in ("table", "home") and t.session.screen != page:
            # kept with the game, where the page opens next time without an address: Back
            # to Home, as much as the Home button, leaves the table (it reopened at the table)
            t.session.screen = page
            self.save()
        self.leave_other_screens(page)
        show_only(f"screen-{page}", SCREENS, page)
        changed = page != self.page_shown
        if changed:  # another screen starts at its top, not mid-board
            self.page_shown = page
            window.scrollTo(0, 0)
            if page == "table":  # a handover: Resume game pressed twice rolled at once
                self.die.turn_passed()
        self.draw()
        if changed:
            self.focus_page(page)
        if page == "table" and self.table is not None and self.table.over:
            self.show_winner()

    def leave_other_screens(self, page: str) -> None:
        """Before ``page`` is shown: the other screens' dialogs close unanswered, and off the
        table a picker or a picked value is dropped (nothing is played). A picker left open
        stood under the next game's table, its buttons the old game's moves; on Forward it was
        back with the focus on a token and the prompt saying nothing of it."""
        for dialog, screen in DIALOG_SCREENS.items():
            if screen != page:
                close_dialog(dialog)
        if page != "table":
            self.drop_pending()

    def on_skip(self, event: Any) -> None:
        """"Skip to the controls": at the table, the die or the first glowing token when a
        person here is to act; else the screen's heading. No "#panel" in the history."""
        event.preventDefault()
        self.focus_page(self.page_shown or "home")

    def focus_page(self, page: str) -> None:
        """A screen just shown takes the focus (it would fall to the page itself): at the
        table, the die or a choice when a person here is to act, saying whose turn it is;
        elsewhere the screen's heading."""
        t = self.table
        if page == "table" and t is not None and not t.over:
            if t.local_person_to_act() and not self.persist.passive:
                self.screen.focus(t, force=True)
            # nothing to press here now: the focus is nowhere, or still on the screen just
            # hidden (the browser moves it to the page itself only later: checked for the
            # page itself alone, it fell there)
            active = document.activeElement
            if is_none(active) or active == document.body \
                    or not is_none(active.closest("[hidden]")):
                self.screen.focus_screen(page)
            # from the names, not the line's text: that holds the swatch's letter ("RAda")
            turn = panel.turn_text(t, t.scene())
            # said: another's next move does not say it again ("Waiting for Ada (red) to play
            # online.", "The computer is playing this turn." came twice on arriving)
            self.told_prompt = self.prompt()
            self.screen.announce(f"{turn}. {self.told_prompt}".strip())
        elif page == "rules":  # on the rules of the game in progress, or of the form's choice
            self.screen.focus_rules(t.record.rules if t is not None and not t.over
                                    else form.chosen_rules())
        else:
            self.screen.focus_screen(page)

    def on_setup_change(self, event: Any) -> None:
        # what the form changed by itself (the number of players when a seat is unticked, the
        # timer for a rule set or an online seat) is said once; the person's own change is not
        self.screen.announce(form.on_change(event))
        self.remember_form()
        if str(event.target.name) == "rules":  # the board behind Home shows the chosen rules
            self.draw()

    def remember_form(self) -> None:
        """The form's choices are kept as they are made, not only at Start game: a reload (a
        phone's browser dropping the tab in the background) brought the defaults back, every
        name to type again. The computers' pace so chosen applies to the game in progress
        at its next step (it waited for the next new game)."""
        if form.read(self.settings) is None:  # (a seat count that cannot start: kept as was)
            form.remember(self.settings)

    def draw(self) -> None:
        """The table when it is on screen; else the board behind, and Home's resume note."""
        t = self.table
        if t is None or not self.screen.table_shown():
            self.screen.draw_home(t, form.chosen_rules(), self.online_part())
            return
        self.screen.draw_table(t, self.person_choices(), self.buttons(), self.selected,
                               self.prompt(), self.die_state(), self.picker, self.quit_label(),
                               self.away_seats())
        self.refresh_quit()
        self.tick()

    def die_state(self) -> str:
        """The die's state as drawn (Screen.draw_die): the die input's ("ready", "wait",
        "off"); an online guest's also "rolling" (OnlineController)."""
        return self.die.state()

    def away_seats(self) -> list[str]:
        """The seats whose player plays online and is not connected (none at a local table)."""
        return []

    def person_choices(self) -> list[Choice]:
        """What the person to act may click now (an automatic move too: a click plays it at
        once; nothing while a computer plays)."""
        t = self.table
        if t is None or self.persist.passive or not self.screen.table_shown() \
                or not t.local_person_to_act() or self.auto.kind == "computer":
            return []
        return [c for c in t.choices_for(t.seat_to_act)
                if self.selected is None or c.value in (None, self.selected)]

    def movable(self) -> list[str]:
        return [p for c in self.person_choices() for p in c.pieces]

    def roller(self) -> str | None:
        """The seat a press of the die rolls for now, if any."""
        roll = any(c.kind == "roll" for c in self.person_choices())
        return self.table.seat_to_act if roll and self.table is not None else None

    def buttons(self) -> list[Choice]:
        """Choices made with a button: a picker's candidates, or choices with no piece."""
        return self.picker or [c for c in self.person_choices()
                               if not c.pieces and c.kind != "roll"]

    def announce_play(self, told: str, prompt: str, turn_passed: bool) -> None:
        """Say what happened at the table and what to do next. Off the table (Home, the rules,
        Install, an online room's screen) a game that computers or online players play on said
        every move there, each ending "Tap the die" with no die on the screen: there only the
        turn coming to a person here is said, and the game's end."""
        if self.screen.table_shown():
            self.screen.announce(f"{told} {prompt}".strip())
            return
        t = self.table
        if t is None:
            return
        if t.over and told:  # the action that ended it, not a later sync of the ended game
            self.screen.announce(f"{panel.turn_text(t, t.scene())}.")
        elif turn_passed and t.local_person_to_act() and not self.persist.passive:
            self.screen.announce(f"{panel.turn_text(t, t.scene())}. Go back to the table to "
                                 "play.")

    def prompt(self, after_roll: bool = False) -> str:
        t = self.table
        if t is not None and not t.over and self.persist.passive:
            # a tab that does not play: not "Tap the die", which does nothing here
            return PASSIVE_PROMPT
        return "" if t is None else panel.prompt(t, t.scene(), t.choices_for(t.seat_to_act),
                                                 waiting=self.auto.kind == "auto",
                                                 selected=self.selected, after_roll=after_roll)

    # -- acting -----------------------------------------------------------------------------

    def act(self, actor: str, action: Action) -> bool:
        """Submit an action to the table; returns False (and says why) if it was refused."""
        t = self.table
        if t is None or t.over or self.persist.passive:
            return False
        before = t.seat_to_act
        try:
            events = t.submit(actor, action, now_ms())
        except IllegalAction as exc:
            self.screen.announce(str(exc))
            return False
        self.drop_pending()
        self.screen.happened(events)
        self.show_notices(t, events, rolled_here=action.type == "roll"
                          and t.kind(actor) == "human")
        if t.seat_to_act != before:  # the handover: no press carries over to the next seat
            self.die.turn_passed()
            if t.local_person_to_act():
                self.sound.vibrate([35])
        self.save()
        self.schedule(draw=False)  # first, so that the one draw below shows what is due
        self.draw()
        # rolls, moves, captures, unlocks and turn changes, then what to do next: a person's
        # prompt every time, another's ("The computer is playing this turn.") once per turn,
        # so that a computer's rapid moves are not each followed by the same sentence
        # (not "You rolled a 6" straight after "Ada rolled a 6")
        prompt = self.prompt(after_roll=any(e.get("type") == "rolled" for e in events))
        if t.seat_to_act == before and not t.local_person_to_act() and prompt == self.told_prompt:
            prompt = ""
        else:
            self.told_prompt = prompt
        self.announce_play(" ".join(t.told), prompt, turn_passed=t.seat_to_act != before)
        if t.over:
            if self.screen.table_shown() and not self.leaving:
                self.show_winner()
        elif self.screen.table_shown() and t.local_person_to_act():
            self.screen.focus(t)
        elif self.screen.table_shown() and not self.persist.passive:
            # the token or picker button just pressed is no control any more: the focus fell
            # to the page itself while a computer or an online player plays; it waits on the
            # die, as after a roll (Tab started again from the top)
            self.screen.focus_die_if_lost()
        return True

    def show_notices(self, t: Table, events: list[dict[str, Any]],
                     rolled_here: bool = False) -> None:
        """Over the board, what a player must not miss (``panel.notice``). A person here who
        rolls has seen the last one: it goes, or it hid the tokens they were to play (a
        computer's roll leaves it: the person may not have looked yet)."""
        shown = panel.notice(t, events)
        if shown is not None:
            self.screen.show_notice(shown.text, shown.ms, quiet=shown.quiet)
        elif rolled_here:
            self.screen.hide_notice()

    def act_as_person(self, action: Action) -> None:
        """The person whose turn it is acts (the board and the die are theirs)."""
        if self.table is not None and self.table.seat_to_act is not None:
            self.act(self.table.seat_to_act, action)

    def play_pieces(self, pieces: list[str]) -> None:
        """A tap meant ``pieces``: play their move, or offer a picker when it is ambiguous."""
        self.sound.wake()
        picks = [c for c in self.person_choices() if any(p in c.pieces for p in pieces)]
        if picks and view.same_outcome(picks, self.screen.places):
            self.act_as_person(picks[0].action)
        elif picks or self.picker:  # several moves under the tap: offer them as buttons
            if picks and not self.picker and self.selected is None:
                active = document.activeElement  # a token by keyboard; else the tapped one
                on_token = not is_none(active) and bool(active.matches("#board .token[id]"))
                self.pending_from = f"#{active.id}" if on_token else f"#tok-{pieces[0]}"
            self.picker = picks
            self.draw()
            self.screen.focus_first("#choices button")
            if picks:  # the focus is on the first button: say what the buttons are for
                self.screen.announce(f"{len(picks)} possible moves: choose one below, or "
                                     "press Escape to cancel.")

    def on_board_click(self, event: Any) -> None:
        self.play_pieces(self.screen.pieces_at(event, self.movable()))

    def on_board_key(self, event: Any) -> None:
        if self.on_cancel_key(event):
            return
        piece = self.screen.piece_for_key(event)  # arrows move the focus; Enter picks
        if piece is not None:
            self.play_pieces([piece])

    def on_button(self, event: Any) -> None:
        button = event.target.closest("button[data-choice]")
        shown = self.buttons()
        if not is_none(button) and int(button.dataset.choice) < len(shown):
            self.act_as_person(shown[int(button.dataset.choice)].action)

    def on_chip(self, event: Any) -> None:
        """A value chip: it picks the value the next token plays -- or, when a tapped token
        has several values offered (the picker), plays that token with this value."""
        chip = event.target.closest("button[data-value]")
        if is_none(chip) or chip.disabled:
            return
        value = str(chip.dataset.value)
        fits = [c for c in self.picker if c.value == value]
        if len(fits) == 1:
            self.act_as_person(fits[0].action)
            return
        if not self.picker and self.selected is None:
            self.pending_from = f'#dice .chip[data-value="{value}"]'
        self.selected = None if self.selected == value else value
        self.picker = fits if self.selected is not None else []
        self.draw()
        if self.selected is not None and (event.detail or 0) == 0:
            # pressed by keyboard: on to the tokens that can play it (a mouse or a finger
            # goes there by itself, and a focus ring would look like a token picked)
            self.screen.focus_first("#board .token.movable, #choices button")

    def drop_pending(self) -> None:
        """Forget a picked value, an open picker and where the focus came from."""
        self.selected, self.picker, self.pending_from = None, [], None

    def on_cancel_key(self, event: Any) -> bool:
        """Escape on the board, a picker's button or a value chip: cancel the picker."""
        if str(event.key) != "Escape" or not self.cancel_pending():
            return False
        event.preventDefault()
        return True

    def cancel_pending(self) -> bool:
        """Close the picker and drop a picked value (nothing is played), say so, and put the
        focus back on the token (or chip) the player was on; False if nothing was pending."""
        t = self.table
        if t is None or (not self.picker and self.selected is None):
            return False
        back = self.pending_from
        self.drop_pending()
        self.draw()
        self.screen.announce(f"Choice cancelled. {self.prompt()}".strip())
        target = document.querySelector(back) if back else None
        if target is None or is_none(target) or not bool(target.matches(
                "#board .token.movable, #dice button:not(:disabled)")):
            self.screen.focus(t, force=True)  # that one cannot play now: the first that can
        else:
            self.screen.focus_element(target)
        return True

    def on_details(self, event: Any) -> None:
        details = el("details")
        details.hidden = not details.hidden
        el("btn-details").setAttribute("aria-expanded", "false" if details.hidden else "true")
        self.draw()

    def on_record(self, event: Any) -> None:
        if self.table is not None:
            day = str(window.Date.new().toISOString())[:10]
            download(*record_file(self.table.record, self.record_dice(), day))

    def record_dice(self) -> Any:
        """The dice part of the record to download: none here (the record's seed gives every
        roll); an online match's ledger (OnlineController)."""
        return None

    # -- automatic moves, computers and the clock -------------------------------------------

    def schedule(self, draw: bool = True) -> None:
        """Set one timer for the next automatic action the table says is due."""
        pace = self.pace_override if self.pace_override is not None \
            else setup.PACES[self.settings["pace"]]
        due = self.auto.schedule(None if self.persist.passive else self.table, pace)
        if draw and due is not None and due.kind != "timeout":
            self.draw()  # the die is disabled while something plays by itself

    def tick(self) -> None:
        """Every quarter second: show the clock of the seat to act (off the table too, while
        a person here is to act: their time runs)."""
        t = self.table
        left = None if t is None or t.over else t.seconds_left(now_ms())
        away = t.name(t.seat_to_act or "") if t is not None and t.local_person_to_act() \
            and not self.persist.passive and not self.screen.table_shown() else None
        self.screen.draw_clock(left, self.turn_seconds, away,
                               t.wording.noun if t is not None else "roll")
        # a spoken warning, once per clock, when a person here is running short of time
        # (the bar turning red is not seen by a screen reader)
        deadline = None if t is None else t.session.deadline
        if left is not None and left <= LOW_SECONDS and deadline != self.warned \
                and t is not None and t.local_person_to_act() and not self.persist.passive:
            self.warned = deadline
            shown = int(left + 0.999)
            # held: with a clock of 10 s or less it comes in the draw right after the move
            # that starts the turn, whose announcement follows in the same task (both heard)
            self.screen.announce(f"{shown} second{'' if shown == 1 else 's'} left for "
                                 f"{t.name(t.seat_to_act or '')}.", hold=True)

    # -- leaving, winning, errors ----------------------------------------------------------

    def on_quit(self, event: Any) -> None:
        t = self.table
        if t is None or t.over:
            return
        if not t.quitters():  # everyone here has quit: they watch, and cannot remove others
            self.tell("You have left this game: nobody here plays in it any more, so there "
                      "is nothing to quit. Home leaves the table.")
            return
        self.screen.show_quit(t)

    def quit_label(self) -> str | None:
        """The table's Quit button's words when not the rule set's own (an online spectator's)."""
        return None

    def online_part(self) -> str | None:
        """This device's part in an online match under way that a new game here would not end
        ("host", "guest" with a seat still in play, "watcher" with none), for the words about
        starting one."""
        return None

    def refresh_quit(self) -> None:
        """The quit dialog, open while the game goes on (the clock, computers, online
        players), says what is true now. Its words were fixed when it opened: a seat eliminated
        meanwhile still counted among those who continue, and a game won meanwhile had its
        winner dialog opened over it, where confirming the quit did nothing."""
        t = self.table
        if not el("dlg-quit").open or t is None:
            return
        if t.over or not t.quitters():
            close_dialog("quit")  # nothing left to quit (the winner dialog follows)
        else:
            self.screen.fill_quit(t, str(el("quit-seat").value))

    def tell(self, text: str) -> None:
        """Why a button did nothing: over the board, and to a screen reader."""
        self.screen.show_notice(text, quiet=True)
        self.screen.announce(text)

    def on_quit_closed(self, event: Any) -> None:
        t = self.table
        if self.screen.dialog_answer("quit") != "confirm" or t is None:
            return
        seat = str(el("quit-seat").value)
        # "Online and computer players return to Home": when no other person plays here, the
        # one who quits goes Home, even if the quit ended the game (one computer left wins it)
        self.leaving = t.people_in_play() in ([], [seat])
        try:
            if not self.act(seat, Action("quit", seat=seat)):
                return
        finally:
            self.leaving = False
        if t.leave.ends_match or not t.people_in_play():
            self.go("home")  # the match is over for all, or only computers are left

    def show_winner(self) -> None:
        t = self.table
        if t is not None and (t.winners() or not t.leave.ends_match):
            self.screen.show_winner(t, *self.play_again())

    def play_again(self) -> tuple[str, bool]:
        """How the winner dialog offers another game: its words, and whether Rematch is shown
        (a table here starts the same seats again)."""
        return panel.PLAY_AGAIN, True

    def on_winner_closed(self, event: Any) -> None:
        t = self.table
        if self.screen.dialog_answer("winner") == "rematch" and t is not None:
            s = t.session
            self.start_game(t.record.rules, t.record.seats, s.names, s.players, s.timer,
                            dict(t.record.options))
        elif self.page_shown == "table":  # not when it closed because the player went Back
            self.go("home")

    def on_error_closed(self, event: Any) -> None:
        self.persist.discard()
        self.table = None
        self.go("home")
