"""The controller: browser events in, engine actions out, view markup on screen.

It never decides a rule (the engine does) and never builds board markup (the
view does).  It owns the things that live in the browser: the turn clock, the
pace of automatic and computer moves, saving after every action, focus and
announcements.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from pyscript import document, window
from pyscript.ffi import create_proxy, is_none, to_js

from ludo import (
    COLOURS,
    Action,
    IllegalAction,
    Record,
    active_seats,
    apply,
    auto_action,
    default_seats,
    format_position,
    legal_actions,
    next_player,
    play,
    rules_for,
)

from . import narrate, storage, view
from .savegame import SaveError, Session, decode, encode

SAVE_KEY = "courtyard-ludo/save"
SETTINGS_KEY = "courtyard-ludo/settings"
OWNER_KEY = "courtyard-ludo/owner"  # the tab that plays the table (clock, computers)
HANDOVER_MS = 600  # the die ignores input this long after the turn passes (no double rolls)
TURN_SECONDS = 30
AUTO_DELAY_MS = 450  # a short pause so players see the roll before an automatic move
PACE_MS = {"slow": 1300, "normal": 700, "fast": 250}
BOT_SLICE_MS = 25  # a computer's search never holds the page longer than this per slice
SCREENS = ("loading", "screen-home", "screen-table", "screen-rules", "screen-install")

try:  # computer players arrive with the bots package; the app works without it
    from ludo import bots as _bots
except ImportError:  # pragma: no cover - depends on the build
    _bots = None


def _el(element_id: str) -> Any:
    return document.getElementById(element_id)


def _now_ms() -> float:
    return float(window.Date.now())


def _js(value: Any) -> Any:
    return to_js(value, dict_converter=window.Object.fromEntries)


def _query_param(name: str) -> str | None:
    params = window.URLSearchParams.new(window.location.search)
    value = params.get(name)
    return None if is_none(value) else str(value)


def _number_param(name: str, default: float, low: float, high: float) -> float:
    raw = _query_param(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        return default
    return min(max(value, low), high)


class Controller:
    """One table in one browser tab."""

    def __init__(self) -> None:
        self.session: Session | None = None
        self.state: Any = None
        self.log: list[str] = []
        self.layout: dict[tuple[str, int], tuple[float, float, float]] = {}
        self.last_roll: int | None = None
        self.pending: Any = None  # (timer, proxy) of a scheduled automatic or computer action
        self.save_failed = False
        self.passive = False  # another tab of this browser plays the game
        self.tab_id = os.urandom(8).hex()
        self.die_ready_at = 0.0  # epoch ms before which the die ignores input
        self.turn_seconds = _number_param("turn_seconds", TURN_SECONDS, 1, 600)
        self.auto_delay = _number_param("auto_delay", AUTO_DELAY_MS, 0, 5000)
        self.handover = min(HANDOVER_MS, self.auto_delay)
        self.pace_override = _query_param("pace_ms")
        self.reduced_motion = bool(
            window.matchMedia("(prefers-reduced-motion: reduce)").matches)
        self.settings = self._load_settings()
        self._proxies: list[Any] = []  # keep every proxy alive for the page's life

    # -- wiring ------------------------------------------------------------

    def _on(self, target: Any, event: str, handler: Any) -> None:
        proxy = create_proxy(handler)
        self._proxies.append(proxy)
        target.addEventListener(event, proxy)

    def boot(self) -> None:
        """Take over from the static page: wire events, restore the save, show a screen."""
        self._build_seat_rows()
        self._apply_settings_to_form()
        self._on(_el("setup"), "submit", self.on_start)
        self._on(_el("setup"), "change", self.on_setup_change)
        self._on(_el("btn-resume"), "click", lambda e: self.go("table"))
        self._on(_el("die"), "click", self.on_die)
        self._on(_el("board"), "click", self.on_board_click)
        self._on(_el("board"), "keydown", self.on_board_key)
        self._on(_el("btn-home"), "click", lambda e: self.go("home"))
        self._on(_el("btn-details"), "click", self.on_details)
        self._on(_el("btn-quit"), "click", self.on_quit)
        self._on(_el("dlg-quit"), "close", self.on_quit_closed)
        self._on(_el("dlg-winner"), "close", self.on_winner_closed)
        self._on(_el("dlg-error"), "close", self.on_error_closed)
        self._on(window, "hashchange", lambda e: self.route())
        self._on(window, "pagehide", lambda e: self.save())
        self._on(window, "storage", self.on_storage)
        self._on(_el("btn-play-here"), "click", lambda e: self.claim(reload=True))
        tick = create_proxy(lambda: self.tick())
        self._proxies.append(tick)
        window.setInterval(tick, 250)
        self._expose_test_hooks()

        self.load_saved()
        self.claim()
        _el("loading").hidden = True
        self._draw_idle_board()
        if self.session is not None and self.session.screen == "table" and \
                not window.location.hash:
            window.history.replaceState(None, "", "#table")
        self.route()
        document.documentElement.dataset.ready = "1"
        self.schedule()
        try:  # offline play, updates and Install; the game works without them
            from . import pwa
            pwa.start(self)
        except Exception as exc:  # noqa: BLE001
            window.console.warn(f"offline support failed to start: {exc}")

    def load_saved(self) -> bool:
        """Restore the saved game, if any; a damaged save is explained, never fatal."""
        saved = storage.get(SAVE_KEY)
        if saved is None:
            return False
        try:
            self.session, states, events = decode(saved)
        except SaveError as exc:
            self.show_error(str(exc))
            return False
        self.state = states[-1]
        self.log = self._log_from_events(events)
        self.layout = {}
        return True

    # -- one table per browser: the newest tab plays, the others watch ---------

    def claim(self, reload: bool = False) -> None:
        """Make this tab the one that plays (clock, computers, input)."""
        if reload:
            self.cancel_pending()
            self.load_saved()
        self.passive = False
        _el("tab-banner").hidden = True
        storage.put(OWNER_KEY, self.tab_id)
        if reload:
            self.route()
            self.schedule()

    def on_storage(self, event: Any) -> None:
        """Another tab wrote: step aside if it took the table, follow its saves."""
        key = None if is_none(event.key) else str(event.key)
        if key == OWNER_KEY and not is_none(event.newValue) and \
                str(event.newValue) != self.tab_id:
            self.passive = True
            self.cancel_pending()
            _el("tab-banner").hidden = False
            self.render_if_shown()
        elif key == SAVE_KEY and self.passive and self.load_saved():
            self.render_if_shown()

    def render_if_shown(self) -> None:
        if self.state is None:
            return
        if _el("screen-table").hidden:
            self._draw_idle_board()
            if not _el("screen-home").hidden:
                self._show_resume()
        else:
            self.render()

    def _expose_test_hooks(self) -> None:
        # Read-only hooks for automated tests; they never change the game.
        hooks = window.Object.new()
        position = create_proxy(lambda *a: format_position(self.state) if self.state else "")
        legal = create_proxy(lambda *a: json.dumps(
            [a.to_json() for a in legal_actions(self.state)] if self.state else []))
        self._proxies += [position, legal]
        hooks.position = position
        hooks.legal = legal
        window.ludo = hooks

    # -- settings and the home screen ----------------------------------------

    def _load_settings(self) -> dict[str, Any]:
        defaults: dict[str, Any] = {"rules": "courtyard", "seats": list(default_seats(2)),
                                    "names": {}, "players": {}, "timer": True, "pace": "normal"}
        raw = storage.get(SETTINGS_KEY)
        if raw is None:
            return defaults
        try:
            data = json.loads(raw)
        except ValueError:
            return defaults
        if not isinstance(data, dict):
            return defaults
        for key, value in defaults.items():
            if not isinstance(data.get(key), type(value)):
                data[key] = value
        return data

    def _build_seat_rows(self) -> None:
        rows = []
        bots_ok = _bots is not None
        for colour in COLOURS:
            letter = view.LETTER[colour]
            kinds = "".join(
                f'<option value="{k}">{label}</option>'
                for k, label in (("human", "Human"), ("easy", "Computer: Easy"),
                                 ("medium", "Computer: Medium"), ("hard", "Computer: Hard"))
                if k == "human" or bots_ok)
            rows.append(
                f'<div class="seat-row" data-colour="{colour}">'
                f'<label class="choice"><input type="checkbox" name="seat" value="{colour}">'
                f'<span class="swatch {colour}" aria-hidden="true">{letter}</span>'
                f'{colour.capitalize()}</label>'
                f'<input type="text" name="name-{colour}" maxlength="20" '
                f'placeholder="{colour.capitalize()}" aria-label="{colour.capitalize()} name">'
                f'<select name="kind-{colour}" aria-label="{colour.capitalize()} player">'
                f'{kinds}</select></div>')
        _el("seat-rows").innerHTML = "".join(rows)

    def _apply_settings_to_form(self) -> None:
        s = self.settings
        form = _el("setup")
        for box in form.querySelectorAll('input[name="rules"]'):
            box.checked = box.value == s["rules"] and not box.disabled
        seats = [c for c in s["seats"] if c in COLOURS] or list(default_seats(2))
        for box in form.querySelectorAll('input[name="seat"]'):
            box.checked = box.value in seats
        for colour in COLOURS:
            form.querySelector(f'[name="name-{colour}"]').value = s["names"].get(colour, "")
            kind = s["players"].get(colour, "human")
            select = form.querySelector(f'[name="kind-{colour}"]')
            select.value = kind if (kind == "human" or _bots is not None) else "human"
        self._sync_player_count()
        _el("opt-timer").checked = bool(s["timer"])
        _el("opt-pace").value = s["pace"] if s["pace"] in PACE_MS else "normal"

    def _checked_seats(self) -> list[str]:
        return [str(b.value) for b in _el("setup").querySelectorAll('input[name="seat"]')
                if b.checked]

    def _sync_player_count(self) -> None:
        n = len(self._checked_seats())
        for radio in _el("setup").querySelectorAll('input[name="players"]'):
            radio.checked = int(radio.value) == n

    def on_setup_change(self, event: Any) -> None:
        target = event.target
        if target.name == "players":
            # a player count picks the usual colours for that many players
            chosen = default_seats(int(target.value))
            for box in _el("setup").querySelectorAll('input[name="seat"]'):
                box.checked = box.value in chosen
        elif target.name == "seat":
            self._sync_player_count()
        _el("setup-error").hidden = True

    def on_start(self, event: Any) -> None:
        event.preventDefault()
        form = _el("setup")
        seats = self._checked_seats()
        if not 2 <= len(seats) <= 4:
            error = _el("setup-error")
            error.textContent = "Choose 2 to 4 colours to play."
            error.hidden = False
            return
        rules = str(form.querySelector('input[name="rules"]:checked').value)
        names = {}
        players = {}
        for colour in COLOURS:
            name = str(form.querySelector(f'[name="name-{colour}"]').value).strip()[:20]
            if name:
                names[colour] = name
            kind = str(form.querySelector(f'[name="kind-{colour}"]').value)
            if kind != "human":
                players[colour] = kind
        timer = bool(_el("opt-timer").checked)
        self.settings.update(rules=rules, seats=seats, names=names, players=players,
                             timer=timer, pace=str(_el("opt-pace").value))
        storage.put(SETTINGS_KEY, json.dumps(self.settings))
        self.start_game(rules, tuple(seats), names, {c: k for c, k in players.items()
                                                     if c in seats}, timer)

    def start_game(self, rules: str, seats: tuple[str, ...], names: dict[str, str],
                   players: dict[str, str], timer: bool) -> None:
        """A fresh game; the seed (who starts, every die) comes from the OS's randomness."""
        self.cancel_pending()
        # 52 bits: the seed survives JSON in any JavaScript tool unchanged
        record = Record(rules, seats, int.from_bytes(os.urandom(7), "big") >> 4)
        self.session = Session(record=record, names=names, players=players, timer=timer)
        self.state = record.start()
        self.log = []
        self.layout = {}
        self.last_roll = None
        self.session.deadline = _now_ms() + self.turn_seconds * 1000
        first = narrate.name_of(self.state.turn, names)
        self.add_log([f"New {rules_for(rules).title} game. {first} starts."])
        self.save()
        self.go("table")
        self.announce(f"{first} starts. {self._prompt()}")
        self.schedule()

    # -- navigation ----------------------------------------------------------

    def go(self, screen: str) -> None:
        """Show a screen by changing the address, so Back works as expected."""
        if self.session is not None and screen in ("table", "home"):
            self.session.screen = screen
            self.save()
        if window.location.hash == f"#{screen}":
            self.route()
        else:
            window.location.hash = screen

    def route(self) -> None:
        name = str(window.location.hash or "#home")[1:]
        if name == "table" and self.state is None:
            name = "home"
        if name not in ("home", "table", "rules", "install"):
            if any(not _el(screen).hidden for screen in SCREENS[1:]):
                return  # an in-page anchor such as the skip link: stay on this screen
            name = "home"
        for screen in SCREENS:
            _el(screen).hidden = screen != f"screen-{name}"
        for link in document.querySelectorAll("[data-nav]"):
            if link.dataset.nav == name:
                link.setAttribute("aria-current", "page")
            else:
                link.removeAttribute("aria-current")
        if name == "home":
            self._show_resume()
            self._draw_idle_board()
        if name == "table":
            self.render()
            if self.state.phase == "over":
                self.show_winner()
        elif self.state is None:
            self._draw_idle_board()

    def _show_resume(self) -> None:
        box = _el("resume-box")
        if self.state is None:
            box.hidden = True
            return
        title = rules_for(self.state).title
        if self.state.phase == "over":
            winner = narrate.name_of(self.state.winner, self.session.names)
            _el("resume-text").textContent = f"The last {title} game is over: {winner} won."
            _el("btn-resume").textContent = "See the table"
        else:
            turn = narrate.name_of(self.state.turn, self.session.names)
            _el("resume-text").textContent = (
                f"A {title} game is in progress ({len(active_seats(self.state))} players; "
                f"{turn} to play). Its clock keeps running. Starting a new game replaces it.")
            _el("btn-resume").textContent = "Resume game"
        box.hidden = False

    def _draw_idle_board(self) -> None:
        """The board behind the home screen: the game in progress, or an empty board."""
        if self.state is None:
            _el("board").innerHTML = view.board_svg(COLOURS, frozenset(), locks=False)
        else:
            self.render_board()

    # -- the table -------------------------------------------------------------

    def human_to_act(self) -> bool:
        return (self.state is not None and self.state.phase != "over" and not self.passive
                and self.session.kind(self.state.turn) == "human")

    def movable(self) -> dict[tuple[str, int], int]:
        """Movable tokens of a human player and where each would go (asked of the engine)."""
        if not self.human_to_act() or self.state.phase != "move" or self.passive \
                or _el("screen-table").hidden:
            return {}
        found = {}
        for action in legal_actions(self.state):
            _, events = apply(self.state, action)
            dest = next(e["to"] for e in events if e["type"] in ("moved", "entered"))
            found[(self.state.turn, action.token)] = dest
        return found

    def render(self) -> None:
        """Draw everything the table shows from the current position."""
        if self.state is None:
            return
        self.render_board()
        self.render_panel()

    def render_board(self) -> None:
        state = self.state
        targets = self.movable()
        rules = rules_for(state)
        locks = bool(getattr(rules, "capture_to_unlock", False))
        _el("board").innerHTML = view.full_svg(state, set(targets), targets, locks=locks)
        tokens = {c: state.tokens[COLOURS.index(c)] for c in state.seats}
        new_layout = view.token_layout(tokens)
        if not self.reduced_motion and self.layout:
            for key, (x, y, _) in new_layout.items():
                old = self.layout.get(key)
                if old and (abs(old[0] - x) > 0.5 or abs(old[1] - y) > 0.5):
                    body = _el(f"tok-{key[0]}-{key[1]}").querySelector(".token-body")
                    body.animate(_js([{"transform": f"translate({old[0] - x}px, {old[1] - y}px)"},
                                      {"transform": "translate(0px, 0px)"}]),
                                 _js({"duration": 260, "easing": "ease-out"}))
        self.layout = new_layout

    def render_panel(self) -> None:
        state = self.state
        names = self.session.names
        turn = _el("turn")
        if state.phase == "over":
            turn.innerHTML = f"Winner: {self._badge(state.winner)}"
            _el("next").textContent = ""
        else:
            kind = self.session.kind(state.turn)
            who = "" if kind == "human" else f" <span class='muted'>(computer, {kind})</span>"
            turn.innerHTML = f"{self._badge(state.turn, '’s turn')}{who}"
            nxt = next_player(state)
            _el("next").textContent = f"Next: {narrate.name_of(nxt, names)}" if nxt else ""
        die = _el("die")
        can_roll = self.human_to_act() and state.phase == "roll" and self.pending is None
        die.disabled = not can_roll
        die.classList.toggle("ready", can_roll)
        die.classList.toggle("rolled", state.phase == "move")
        shown = state.die if state.phase == "move" else self.last_roll
        _el("die-face").innerHTML = _die_face(shown)
        if can_roll:
            die.setAttribute("aria-label", f"Roll the die for {narrate.name_of(state.turn, names)}")
        elif state.phase == "move":
            die.setAttribute("aria-label", f"Die showing {state.die}; choose a token to move")
        else:
            die.setAttribute("aria-label", f"Die{f' showing {shown}' if shown else ''}")
        _el("die-hint").textContent = self._prompt()
        self.render_seats()
        self.render_details()
        self.tick(render_only=True)

    def _badge(self, colour: str, suffix: str = "") -> str:
        name = narrate.name_of(colour, self.session.names)
        return (f'<span class="swatch {colour}" aria-hidden="true">{view.LETTER[colour]}</span>'
                f"<span>{_escape(name)}{suffix}</span>")

    def _prompt(self) -> str:
        state = self.state
        if state is None or state.phase == "over":
            return ""
        if self.session.kind(state.turn) != "human":
            return "The computer is playing this turn."
        if state.phase == "roll":
            return "Tap the die, or focus it and press Enter or Space."
        if auto_action(state) is None:
            return f"You rolled {state.die}: choose a glowing token (arrow keys, then Enter)."
        return f"You rolled {state.die}: the only move plays by itself."

    def render_seats(self) -> None:
        state = self.state
        items = []
        for colour in state.seats:
            ci = COLOURS.index(colour)
            out = state.out[ci]
            home = sum(1 for p in state.tokens[ci] if p == view.HOME)
            meta = (f"{out}" if out else f"{home}/4 home") + \
                f" · timeouts {state.timeouts[ci]}/5"
            if colour in state.unlocked and getattr(rules_for(state), "capture_to_unlock", False):
                meta += " · lane open"
            cls = "current" if colour == state.turn and state.phase != "over" else ""
            if out:
                cls += " out"
            kind = self.session.kind(colour)
            label = "" if kind == "human" else f" <span class='muted'>({kind})</span>"
            items.append(f'<li class="{cls}" data-colour="{colour}">{self._badge(colour)}{label}'
                         f'<span class="meta">{meta}</span></li>')
        _el("seats").innerHTML = "".join(items)

    def render_details(self) -> None:
        if _el("details").hidden:
            return
        state = self.state
        _el("details-timeouts").innerHTML = "".join(
            f"<li>{_escape(narrate.name_of(c, self.session.names))}: "
            f"{state.timeouts[COLOURS.index(c)]} of 5"
            + (f" ({state.out[COLOURS.index(c)]})" if state.out[COLOURS.index(c)] else "")
            + "</li>" for c in state.seats)
        _el("details-rules").innerHTML = "".join(f"<li>{_escape(r)}</li>"
                                                 for r in _rules_summary(state, self.session))
        _el("log").innerHTML = "".join(f"<li>{_escape(line)}</li>"
                                       for line in reversed(self.log[-300:]))

    def add_log(self, lines: list[str]) -> None:
        self.log.extend(lines)

    def announce(self, text: str) -> None:
        if text:
            _el("announcer").textContent = text

    # -- acting ------------------------------------------------------------

    def act(self, action: Action) -> bool:
        """Apply an action through the engine; returns False if it was illegal."""
        if self.state is None or self.state.phase == "over" or self.passive:
            return False
        before = self.state
        try:
            record, state, events = play(self.session.record, before, action)
        except IllegalAction as exc:
            self.announce(str(exc))
            return False
        self.session.record = record
        self.state = state
        for e in events:
            if e["type"] == "rolled":
                self.last_roll = e["value"]
        if state.phase == "roll" and (action.type != "quit" or state.turn != before.turn):
            # a new turn or an extra roll starts a fresh 30 seconds (another seat quitting
            # does not)
            self.session.deadline = _now_ms() + self.turn_seconds * 1000
        if state.turn != before.turn:
            # a short handover, so a double click cannot roll for the next player too
            self.die_ready_at = _now_ms() + self.handover
        lines = narrate.describe_all(events, self.session.names)
        self.add_log(lines)
        self.save()
        on_table = not _el("screen-table").hidden
        self.render_if_shown()
        # rolls, moves, captures, unlocks and turn changes, then what to do next
        self.announce(f"{' '.join(lines)} {self._prompt()}".strip())
        if state.phase == "over":
            if on_table:
                self.show_winner()
        elif on_table and self.human_to_act():
            self._focus_after(state)
        self.schedule()
        return True

    def _focus_after(self, state: Any) -> None:
        if state.phase == "move" and auto_action(state) is None:
            first = document.querySelector("#board .token.movable")
            if not is_none(first):
                first.focus()
        elif state.phase == "roll":
            _el("die").focus()

    def on_die(self, event: Any) -> None:
        if (event.detail or 0) > 1 or _now_ms() < self.die_ready_at:
            return  # the second click of a double click, or the turn has only just passed
        if self.human_to_act() and self.state.phase == "roll" and self.pending is None:
            self.act(Action("roll"))

    def on_board_click(self, event: Any) -> None:
        token = event.target.closest(".token.movable")
        if not is_none(token) and self.pending is None and not _el("screen-table").hidden:
            self.act(Action("move", token=int(token.dataset.token)))

    def on_board_key(self, event: Any) -> None:
        key = str(event.key)
        tokens = list(document.querySelectorAll("#board .token.movable"))
        if not tokens:
            return
        active = document.activeElement
        current = next((i for i, t in enumerate(tokens) if t == active), -1)
        if key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
            event.preventDefault()
            step = 1 if key in ("ArrowRight", "ArrowDown") else -1
            tokens[(current + step) % len(tokens)].focus()
        elif key in ("Enter", " ") and current >= 0 and self.pending is None:
            event.preventDefault()
            self.act(Action("move", token=int(tokens[current].dataset.token)))

    def on_details(self, event: Any) -> None:
        panel = _el("details")
        panel.hidden = not panel.hidden
        _el("btn-details").setAttribute("aria-expanded", "false" if panel.hidden else "true")
        self.render_details()

    # -- automatic moves, computers and the clock ------------------------------

    def cancel_pending(self) -> None:
        if self.pending is not None:
            timer, proxy = self.pending
            window.clearTimeout(timer)
            proxy.destroy()
            self.pending = None

    def schedule(self) -> None:
        """Queue the next automatic action: an auto-move or a computer's turn."""
        self.cancel_pending()
        state = self.state
        if state is None or state.phase == "over" or self.session is None or self.passive:
            return
        if self.session.kind(state.turn) != "human":
            if _bots is None:
                return
            delay = self._pace_ms()
            self._later(delay, self.computer_step)
            return
        if state.phase == "move":
            auto = auto_action(state)
            if auto is not None:
                self._later(self.auto_delay, lambda: self._auto(auto))

    def _pace_ms(self) -> float:
        if self.pace_override is not None:
            try:
                return max(0.0, float(self.pace_override))
            except ValueError:
                pass
        return PACE_MS.get(self.settings.get("pace", "normal"), PACE_MS["normal"])

    def _later(self, delay: float, fn: Any, quiet: bool = False) -> None:
        """Run ``fn`` after ``delay`` ms; at most one such action is pending at a time."""
        def fire(*_: Any) -> None:
            self.pending = None
            proxy.destroy()
            fn()

        self.cancel_pending()
        proxy = create_proxy(fire)
        self.pending = (window.setTimeout(proxy, delay), proxy)
        if not quiet and not _el("screen-table").hidden:
            self.render_panel()  # the die is disabled while something is pending

    def _auto(self, action: Action) -> None:
        if self.state is not None and self.state.phase == "move" and self.human_to_act():
            self.act(action)

    def computer_step(self) -> None:
        """Let the computer choose, a slice at a time so the page never freezes."""
        state = self.state
        if state is None or state.phase == "over" or self.session.kind(state.turn) == "human":
            return
        level = self.session.kind(state.turn)
        seed = (self.session.record.seed + len(self.session.record.actions)) & 0xFFFFFFFF
        thinking = _bots.think(state, level, seed)
        started = float(window.performance.now())

        def run_slice() -> None:
            if self.state is not state:  # the position changed (quit, reload): drop it
                return
            deadline = time.perf_counter() + BOT_SLICE_MS / 1000
            try:
                while time.perf_counter() < deadline:
                    next(thinking)
            except StopIteration as done:
                # a User Timing entry per decision, read by bench/bots_browser.py
                window.performance.measure(
                    f"ludo:decision:{level}:{state.phase}",
                    _js({"start": started, "end": float(window.performance.now())}))
                self.act(done.value)
                return
            self._later(0, run_slice, quiet=True)  # give the page its turn, then go on

        run_slice()

    def tick(self, render_only: bool = False) -> None:
        """Every quarter second: show the clock and play a timeout when it runs out."""
        box = _el("timer")
        session = self.session
        if session is None or self.state is None or self.state.phase == "over" \
                or not session.timer:
            box.hidden = True
            return
        human = session.kind(self.state.turn) == "human"
        box.hidden = not human
        if not human or session.deadline is None:
            return
        left = max(0.0, (session.deadline - _now_ms()) / 1000)
        _el("timer-text").textContent = f"{int(left + 0.999)} s"
        _el("timer-fill").style.width = f"{100 * left / self.turn_seconds:.1f}%"
        box.classList.toggle("low", left <= 5)
        box.setAttribute("aria-label", f"{int(left + 0.999)} seconds left for this roll")
        if not render_only and left <= 0 and self.pending is None and not self.passive:
            self.act(Action("timeout"))

    # -- leaving, winning, errors -------------------------------------------------

    def on_quit(self, event: Any) -> None:
        if self.state is None or self.state.phase == "over":
            return
        select = _el("quit-seat")
        seats = active_seats(self.state)
        humans = [c for c in seats if self.session.kind(c) == "human"]
        # people quit for themselves: computers cannot be made to leave (all-computer games
        # can be stopped seat by seat)
        choices = humans or list(seats)
        default = self.state.turn if self.state.turn in choices else choices[0]
        select.innerHTML = "".join(
            f'<option value="{c}"{" selected" if c == default else ""}>'
            f"{_escape(narrate.name_of(c, self.session.names))}</option>" for c in choices)
        _el("dlg-quit").showModal()

    def on_quit_closed(self, event: Any) -> None:
        dialog = _el("dlg-quit")
        if dialog.returnValue != "confirm":
            return
        seat = str(_el("quit-seat").value)
        if not self.act(Action("quit", seat=seat)):
            return
        humans_left = [c for c in active_seats(self.state)
                       if self.session.kind(c) == "human"]
        if self.state.phase != "over" and not humans_left:
            self.go("home")  # computer games return to Home when the person quits

    def show_winner(self) -> None:
        dialog = _el("dlg-winner")
        if dialog.open:
            return
        winner = self.state.winner
        tokens = self.state.tokens[COLOURS.index(winner)]
        all_home = bool(tokens) and all(p == view.HOME for p in tokens)
        how = "got all four tokens home" if all_home else "is the last player remaining"
        _el("winner-title").textContent = f"{narrate.name_of(winner, self.session.names)} wins!"
        _el("winner-text").textContent = (f"{narrate.name_of(winner, self.session.names)} {how}. "
                                          "Play again with the same seats?")
        dialog.showModal()

    def on_winner_closed(self, event: Any) -> None:
        choice = _el("dlg-winner").returnValue
        if choice == "rematch" and self.session is not None:
            s = self.session
            self.start_game(s.record.rules, s.record.seats, s.names, s.players, s.timer)
        else:
            self.go("home")

    def show_error(self, message: str) -> None:
        _el("error-text").textContent = (f"{message} You can start a new game; the damaged "
                                         "save will be discarded.")
        dialog = _el("dlg-error")
        if not dialog.open:
            dialog.showModal()

    def on_error_closed(self, event: Any) -> None:
        storage.remove(SAVE_KEY)
        self.session = None
        self.state = None
        self.go("home")

    # -- saving ------------------------------------------------------------------

    def save(self) -> None:
        if self.session is None:
            return
        if not storage.put(SAVE_KEY, encode(self.session)):
            # storage full or blocked (private mode): play on, but say so
            if not self.save_failed:
                self.save_failed = True
                warning = _el("save-warning")
                warning.textContent = (
                    "This game cannot be saved on this device (its storage is full or "
                    "blocked); it will be lost if the page closes.")
                warning.hidden = False
            return
        if self.save_failed:
            self.save_failed = False
            _el("save-warning").hidden = True

    def _log_from_events(self, events: list[list[dict[str, Any]]]) -> list[str]:
        """Rebuild the move log from the events the save's replay produced."""
        lines = []
        names = self.session.names
        for caused in events:
            lines += narrate.describe_all(caused, names)
            for e in caused:
                if e["type"] == "rolled":
                    self.last_roll = e["value"]
        return lines


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


_PIPS = {1: [(50, 50)], 2: [(28, 28), (72, 72)], 3: [(28, 28), (50, 50), (72, 72)],
         4: [(28, 28), (72, 28), (28, 72), (72, 72)],
         5: [(28, 28), (72, 28), (50, 50), (28, 72), (72, 72)],
         6: [(28, 25), (72, 25), (28, 50), (72, 50), (28, 75), (72, 75)]}


def _die_face(value: int | None) -> str:
    blank = '<rect class="die-blank" x="4" y="4" width="92" height="92" rx="16"/>'
    if value is None:
        return blank + '<text x="50" y="60" text-anchor="middle" font-size="26" ' \
            'font-weight="700">Roll</text>'
    return blank + "".join(f'<circle class="pip" cx="{x}" cy="{y}" r="9"/>'
                           for x, y in _PIPS[value])


def _rules_summary(state: Any, session: Session) -> list[str]:
    rules = rules_for(state)
    lines = []
    if rules.name == "courtyard":
        lines += ["Enter a token on a 1 or a 6.",
                  "Capture once to unlock your home lane (grey with a lock until then)."]
    else:
        lines += ["Enter a token only on a 6.", "Home lanes are open from the start."]
    lines += ["A 6, a capture or reaching home earns one extra roll.",
              "The third six in a row is discarded and the die passes.",
              "Landing on an ordinary square sends every opponent there home; the 4 start "
              "squares and 4 stars are safe.",
              "Exact roll to finish; the first with all four tokens home wins."]
    if session.timer:
        lines.append("30 seconds per roll; the fifth timeout removes a seat.")
    else:
        lines.append("Turn timer off for this game.")
    return lines
