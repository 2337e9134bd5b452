"""Drawing into the page: the board, the seats' boxes and the die at their corners, the
panel, the clock, dialogs, announcements, focus -- and what makes play felt: the roll
tumbling, pieces hopping along their path, captured pieces sent back, sounds.

The markup itself comes from the pure :mod:`app.view` and :mod:`app.panel`; this
module only puts it into the document (writing a layer only when its markup changed,
so animations run on undisturbed), so the controller never draws.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from pyscript import document, window
from pyscript.ffi import is_none

from ludo import Choice, Scene, board

from .. import panel, setup, view
from ..table import Table
from .dom import Timeout, el, js, keep, set_text
from .sound import Sound

CORNERS = ("tl", "tr", "bl", "br")
ROLL_MS = 420
SLIDE_MS = 260
KNOCK_MS = 380
NOTICE_IN_MS = 350
LOW_SECONDS = 10  # the clock turns red, and warns off the table


class Screen:
    def __init__(self, sound: Sound) -> None:
        self.sound = sound
        self.reduced_motion = bool(window.matchMedia("(prefers-reduced-motion: reduce)").matches)
        self.layout: dict[str, tuple[float, float, float]] = {}  # where pieces were drawn
        self.places: dict[str, str] = {}  # the cell each piece stood on
        self.drawn: dict[str, str] = {}  # markup last written, by element id
        self.board_of: Any = None  # the Board last drawn
        self.bottom_left: str | None = None  # online: the player's own colour (seed rule 1)
        self.board_bottom_left: str | None = None  # the bottom_left the board layer was drawn with
        self.hit = view.CELL / 2
        # the board's width on screen (CSS px), kept by a ResizeObserver: reading it while
        # drawing would force the browser to lay the whole page out in the middle of a task
        self.board_px = 0.0
        self.corners: dict[str, str] = {}
        self.told: dict[tuple[int, int], str] = {}  # the move log's turns, as markup
        self.last: tuple[str, ...] = ()  # the last move's path
        self.motion: list[dict[str, Any]] = []  # events not yet shown moving
        self.rolled = False  # a roll not yet shown tumbling
        self.notice_timer: Any = None
        self.hide_notice_js = keep(self._hide_notice)  # one proxy for the page's life

    def watch_board(self, redraw: Callable[[], None]) -> None:
        """Keep ``board_px`` up to date; ``redraw`` when the pieces' hit squares change."""
        self.board_px = float(el("board").getBoundingClientRect().width)

        def resized(entries: Any, *_: Any) -> None:
            width = float(entries[entries.length - 1].contentRect.width)
            if width == self.board_px:
                return
            changed = view.hit_half(width) != view.hit_half(self.board_px)
            self.board_px = width
            if changed:
                redraw()

        window.ResizeObserver.new(keep(resized)).observe(el("board"))

    @staticmethod
    def table_shown() -> bool:
        return not el("screen-table").hidden

    # -- what happened -----------------------------------------------------------------------

    def forget_layout(self, table: Table | None = None) -> None:
        """A new or reloaded game: nothing to animate; the last move found in its history."""
        self.layout, self.places, self.motion, self.rolled = {}, {}, [], False
        self.told = {}
        self.last = ()
        for _, caused in reversed(table.history if table else []):
            paths = [e["path"] for e in caused if "path" in e]
            if paths:
                self.last = tuple(paths[-1])
                break

    def happened(self, events: list[dict[str, Any]]) -> None:
        """An action caused ``events``: show them moving at the next draw."""
        self.motion += events
        if any(e.get("type") == "rolled" for e in events):
            self.rolled = True
        paths = [e["path"] for e in events if "path" in e]
        if paths:
            self.last = tuple(paths[-1])

    # -- the board ---------------------------------------------------------------------------

    def _write(self, element_id: str, markup: str) -> bool:
        if self.drawn.get(element_id) == markup:
            return False
        el(element_id).innerHTML = markup
        self.drawn[element_id] = markup
        return True

    def draw_board(self, table: Table | None, options: Sequence[Choice] = (),
                   marked: Sequence[str] = (), idle_rules: str = "") -> None:
        """The board with the clickable pieces marked; without a game, the empty board of
        ``idle_rules`` (the rule set chosen on Home)."""
        if table is None:
            idle_board = board(idle_rules or setup.default_rules())
            if idle_board != self.board_of or self.board_bottom_left is not None:
                self._write("board-layer", view.board_svg(idle_board))
                self.board_of, self.board_bottom_left = idle_board, None
                # (a game on this board, as drawn, finds its seats' corners here)
                self.corners = view.seat_corners(idle_board, None)
            self._write("overlay-layer", "")
            self._write("tokens-layer", "")
            self.layout, self.places = {}, {}
            return
        scene = table.scene()
        bottom_left = self.bottom_left
        if scene.board != self.board_of or bottom_left != self.board_bottom_left:
            self._write("board-layer", view.board_svg(scene.board, bottom_left))
            self.board_of, self.board_bottom_left = scene.board, bottom_left
            self.corners = view.seat_corners(scene.board, bottom_left)
        self.hit = view.hit_half(self.board_px)
        self._write("overlay-layer", view.overlay_svg(scene, self.last, bottom_left))
        focused = document.activeElement
        piece = None if is_none(focused) or is_none(focused.closest("#tokens-layer")) \
            else focused.dataset.piece
        wrote = self._write("tokens-layer", view.pieces_svg(
            scene, [c for c in options if c.pieces], marked, bottom_left, hit=self.hit))
        if wrote and piece is not None:  # a redraw (a resize, a zoom) keeps the focused piece
            again = document.querySelector(f'#tokens-layer .token.movable[data-piece="{piece}"]')
            if not is_none(again):
                again.focus(js({"preventScroll": True}))
        layout = view.piece_layout(scene, bottom_left)
        places = {p.id: s.place for s in scene.stacks for p in s.pieces}
        if wrote and self.layout and self.motion:
            self._animate(scene, layout, places)
        self.motion = []
        self.layout, self.places = layout, places

    def _animate(self, scene: Scene, layout: Mapping[str, tuple[float, float, float]],
                 places: Mapping[str, str]) -> None:
        """Hop the pieces that moved along their paths; then send captured ones back."""
        paths = {p: e["path"] for e in self.motion if "path" in e for p in e["pieces"]}
        cells = {c.id: c for c in scene.board.cells}
        hopped, steps, home = 0.0, 0, False
        for piece, path in paths.items():
            if piece in layout and piece in self.layout:
                move = view.hop(scene, piece, path, self.layout[piece][:2], layout[piece][:2],
                                self.bottom_left)
                self._move(piece, move.frames, move.ms, 0)
                hopped, steps = max(hopped, move.ms), max(steps, move.steps)
                home = home or getattr(cells.get(path[-1]), "kind", "") == "home"
        knocked = 0
        for piece, (x, y, _) in layout.items():
            old = self.layout.get(piece)
            if piece in paths or old is None or (abs(old[0] - x) + abs(old[1] - y)) < 0.5:
                continue
            frames: list[dict[str, Any]] = [
                {"transform": f"translate({old[0] - x:.1f}px, {old[1] - y:.1f}px)"},
                {"transform": "translate(0px, 0px)"}]
            if places.get(piece) != self.places.get(piece):  # sent back by a capture
                knocked += 1
                frames.insert(1, {"transform": f"translate({(old[0] - x) * 0.9:.1f}px, "
                                               f"{(old[1] - y) * 0.9 - 30:.1f}px) scale(1.3)",
                                  "offset": 0.25})
                self._move(piece, frames, KNOCK_MS, hopped)
            else:  # made room for a piece arriving beside it
                self._move(piece, frames, SLIDE_MS, hopped * 0.8)
        if steps:
            self.sound.hops(steps, hopped / steps)
        if knocked:
            self.sound.knock(hopped)
            self.sound.vibrate([60, 40, 60])
        if home:
            self.sound.home(hopped)

    def _move(self, piece: str, frames: list[dict[str, Any]], ms: float, delay: float) -> None:
        if self.reduced_motion:
            return
        token = el(f"tok-{piece}")
        if not is_none(token):
            token.querySelector(".token-body").animate(
                js(frames), js({"duration": ms, "delay": delay, "easing": "ease-in-out",
                                "fill": "backwards"}))

    def pieces_at(self, event: Any, candidates: Sequence[str]) -> list[str]:
        """The movable pieces a click on the board may mean (several: a picker decides)."""
        token = event.target.closest(".token.movable")
        if (event.detail or 0) == 0:  # a keyboard's or a script's click: its target
            return [] if is_none(token) else [str(token.dataset.piece)]
        found = self.pieces_at_point(float(event.clientX), float(event.clientY), candidates)
        if not found and not is_none(token):
            found = [str(token.dataset.piece)]
        return found

    def pieces_at_point(self, x: float, y: float, candidates: Sequence[str]) -> list[str]:
        """The candidates a tap at page point (x, y) may mean."""
        box = el("board").getBoundingClientRect()
        if float(box.width) <= 0:
            return []
        scale = view.SIZE / float(box.width)
        return view.pieces_at(self.layout, candidates, (x - float(box.left)) * scale,
                              (y - float(box.top)) * scale, self.hit)

    # -- screens -----------------------------------------------------------------------------

    def draw_home(self, table: Table | None, chosen_rules: str,
                  online: str | None = None) -> None:
        """The board behind the home screen (the game in progress, else the empty board of the
        rule set chosen in the form), and the note about the game in progress (``online``: this
        device's part in it, panel.replace_text)."""
        el("table-area").classList.add("idle")
        el("die").hidden = True
        self.draw_board(table, idle_rules=chosen_rules)
        note = panel.rules_resume_text(table)
        el("rules-resume").hidden = note is None
        el("rules-resume-text").textContent = note or ""
        box = el("resume-box")
        box.hidden = table is None
        if table is not None:
            text, button = panel.resume_text(table, online)
            el("resume-text").textContent = text
            el("btn-resume").textContent = button

    def draw_table(self, table: Table, options: Sequence[Choice], buttons: Sequence[Choice],
                   selected: str | None, prompt: str, die_state: str,
                   picker: Sequence[Choice] = (), quit_label: str | None = None,
                   away: Collection[str] = ()) -> None:
        """Everything the table screen shows. ``die_state``: "ready" (it rolls), "wait" (the
        handover after the turn passed: it looks disabled, and is) or "off". ``quit_label``:
        the Quit button's words, if not the rule set's ("Quit game", Gilgiti's "Leave game"),
        which is hidden once the game is over. ``away``: the seats whose player plays online
        and is not connected (their box and their line in the seat list say so)."""
        el("table-area").classList.remove("idle")
        # a game that is over: no "Next", no hint, no clock (their reserved lines left a gap
        # under "Winner:")
        el("screen-table").classList.toggle("over", table.over)
        marked = [p for c in picker for p in c.pieces]
        self.draw_board(table, options, marked)
        scene = table.scene()
        self._write("turn", panel.turn_html(table, scene))
        el("next").textContent = panel.next_text(table, scene)
        self.draw_pods(table, scene, away)
        self.draw_die(table, scene, die_state)
        label = quit_label or table.leave.button
        if str(el("btn-quit").textContent) != label:
            el("btn-quit").textContent = label
        # a finished game has nothing to quit (on_quit does nothing): no button that answers
        # nothing; an online spectator's Leave the room (quit_label) still leaves the room
        el("btn-quit").hidden = table.over and quit_label is None
        self._write("die-hint", panel.prompt_html(prompt))
        pieces = {p.id: p for s in scene.stacks for p in s.pieces} if picker else None
        cells = {c.id: c for c in scene.board.cells} if picker else None
        self._write("choices", panel.choice_buttons_html(buttons, pieces, cells))
        self._write("dice", panel.dice_html(scene, selected, bool(options)))
        self._write("seats", panel.seats_html(table, scene, away))
        if not el("details").hidden:
            el("details-seats").innerHTML = panel.details_seats_html(table, scene)
            el("details-rules").innerHTML = panel.rules_html(table, scene)
            self._write("log", panel.log_html(table, table.history, f"New {table.title} game.",
                                              cache=self.told))

    def draw_pods(self, table: Table, scene: Scene, away: Collection[str] = ()) -> None:
        """Each seat's box at its corner; the seat to act's glows in its colour."""
        by_corner = {corner: seat for seat, corner in self.corners.items()}
        seated = {s.colour: s for s in scene.seats}
        for corner in CORNERS:
            pod = el(f"pod-{corner}")
            colour = by_corner.get(corner)
            seat = seated.get(colour or "")
            pod.classList.toggle("empty", seat is None)
            if seat is None:
                self._write(f"pod-{corner}", "")
                continue
            pod.dataset.colour = colour
            pod.classList.toggle("current", colour == scene.turn)
            pod.classList.toggle("out", seat.status in ("quit", "eliminated"))
            pod.classList.toggle("away", colour in away)
            self._write(f"pod-{corner}", panel.pod_html(table, scene, colour or "",
                                                        colour in away))

    def draw_die(self, table: Table, scene: Scene, state: str) -> None:
        """The die at the corner of the seat to act, in its colour, showing the last roll."""
        die = el("die")
        seat = scene.turn
        die.hidden = seat is None
        if seat is None:
            return
        die.dataset.corner = self.corners.get(seat, "bl")
        die.dataset.colour = seat
        die.dataset.seat = seat
        # Never the `disabled` attribute: a disabled button drops the keyboard focus to the page
        # (every computer turn, every turn of another seat online). aria-disabled keeps it on
        # the die, says it cannot be pressed, and a press does nothing (DiceBox.on_click).
        if state in ("wait", "off", "rolling"):
            die.setAttribute("aria-disabled", "true")
        else:
            die.removeAttribute("aria-disabled")
        # an online guest's roll on its way to the host: busy until the host's answer draws
        # the die again (it pulsed as ready meanwhile, as if the press had not been taken)
        if state == "rolling":
            die.setAttribute("aria-busy", "true")
        else:
            die.removeAttribute("aria-busy")
        for name in ("ready", "wait", "off", "rolling"):
            die.classList.toggle(name, state == name)
        shown = scene.dice[-1].value if scene.dice else None
        face = panel.die_face(panel.die_shown(state, shown),
                              blank=table.wording.verb.capitalize())
        if self._write("die-face", face) and self.rolled and shown is not None:
            self.sound.roll()
            if not self.reduced_motion:
                el("die-face").animate(
                    js([{"transform": "rotate(-250deg) scale(.55)"},
                        {"transform": "rotate(20deg) scale(1.12)", "offset": 0.7},
                        {"transform": "rotate(0deg) scale(1)"}]),
                    js({"duration": ROLL_MS, "easing": "ease-out"}))
        self.rolled = False
        die.setAttribute("aria-label", panel.die_label(table, seat, state, shown))

    def draw_clock(self, seconds_left: float | None, turn_seconds: float,
                   away: str | None = None, noun: str = "roll") -> None:
        """The running clock: in the panel and the box of the seat to act; off the table, in
        the header (``away`` names whose turn it is), as a warning that time runs."""
        # Four ticks a second draw it, and most change nothing but the bar: only what
        # changed is written (the same words written again are still a change to the page, and
        # its label rewritten four times a second churned what a screen reader is given).
        box = el("timer")
        link = el("away-clock")
        _set(box, "hidden", seconds_left is None)
        _set(link, "hidden", seconds_left is None or away is None)
        if seconds_left is None:
            return
        shown = int(seconds_left + 0.999)
        low = seconds_left <= LOW_SECONDS
        set_text("timer-text", f"{shown} s")
        # a transform, not the width: no layout, and a step four times a second (no glide,
        # which repainted every frame of the turn)
        share = min(1.0, max(0.0, seconds_left / turn_seconds))
        el("timer-fill").style.transform = f"scaleX({share:.3f})"
        box.classList.toggle("low", low)  # (a toggle that changes nothing writes nothing)
        if box.getAttribute("aria-label") != (label := f"{shown} seconds left for this {noun}"):
            box.setAttribute("aria-label", label)
        clock = document.querySelector(".pod.current .pod-clock")
        if not is_none(clock):
            _set(clock, "hidden", False)
            _set(clock, "textContent", f"{shown} s")
            clock.classList.toggle("low", low)
        if away is not None:
            _set(link, "textContent", f"{away}: {shown} s to play. Back to the table")
            link.classList.toggle("low", low)

    # -- words, focus, dialogs ---------------------------------------------------------------

    def show_notice(self, text: str, ms: float = panel.NOTICE_MS, quiet: bool = False) -> None:
        """A sentence a player must not miss (a turn undone), over the board for ``ms``;
        ``quiet``: news rather than a warning (a roll with no move), drawn without the red."""
        box = el("board-notice")
        box.textContent = text
        box.classList.toggle("quiet", quiet)
        box.hidden = False
        if self.notice_timer is not None:
            window.clearTimeout(self.notice_timer)
        if not self.reduced_motion:
            box.animate(js([{"transform": "translate(-50%, -50%) scale(.6)", "opacity": 0},
                            {"transform": "translate(-50%, -50%) scale(1.08)", "opacity": 1,
                             "offset": 0.6},
                            {"transform": "translate(-50%, -50%) scale(1)", "opacity": 1}]),
                        js({"duration": NOTICE_IN_MS, "easing": "ease-out"}))
        self.notice_timer = window.setTimeout(self.hide_notice_js, ms)

    def hide_notice(self) -> None:
        """The notice goes before its time."""
        if self.notice_timer is not None:
            window.clearTimeout(self.notice_timer)
        self._hide_notice()

    def _hide_notice(self, *_: Any) -> None:
        self.notice_timer = None
        el("board-notice").hidden = True

    held = ""  # a sentence said in this task that a later one must keep (announce's hold)

    @staticmethod
    def announce(text: str, hold: bool = False) -> None:
        """Say ``text`` in the page's live region. The region reads only its last words: a
        sentence said with ``hold`` is kept after whatever else this task says, until the
        task ends (a short turn clock's "10 seconds left for Ada (red).", said as the draw
        after a move starts the turn, was overwritten unheard by the move's announcement)."""
        if not text:
            return
        if hold:
            if not Screen.held:
                Timeout(Screen.release, 0)  # (the next task: the page's events have run)
            Screen.held = text
        elif Screen.held and Screen.held not in text:
            text = f"{text} {Screen.held}"
        box = el("announcer")
        if box.textContent == text:  # the same sentence again (the same roll twice)
            text += "\u00a0"  # must change the region, or a screen reader skips it
        box.textContent = text

    @staticmethod
    def release() -> None:
        """The task that held a sentence (announce) has ended: the next one replaces it."""
        Screen.held = ""

    @staticmethod
    def focus(table: Table, force: bool = False) -> None:
        """The die when it is time to roll, else the first choice (unless it plays by itself);
        unless ``force``, only when the focus is on the game's controls or nowhere: a player
        who went to the log or the Home button meanwhile keeps their place."""
        if not force and not Screen.focus_is_free():
            return
        first = document.querySelector("#board .token.movable, #choices button")
        if table.rolling:  # (scrolled into view only when out of it: at 400% zoom it often is)
            Screen._focus_in_view(el("die"))
        elif table.auto() is None and not is_none(first):
            Screen._focus_in_view(first)

    @staticmethod
    def bring_into_view(element_id: str) -> None:
        """Scroll an element to the middle of the view (clear of Start game, which stands
        over the bottom of Home's form)."""
        el(element_id).scrollIntoView(js({"block": "center"}))

    @staticmethod
    def focus_die_if_lost() -> None:
        """The die takes the focus if it fell to the page itself (the control that had it
        was drawn away); not scrolled to, so a phone's view stays where the player had it."""
        active = document.activeElement
        if is_none(active) or active == document.body:
            el("die").focus(js({"preventScroll": True}))

    @staticmethod
    def focus_is_free() -> bool:
        """True when the focus is nowhere (the page itself) or on the die, a piece, a value
        chip or a choice: what a turn's change may move it from."""
        active = document.activeElement
        return is_none(active) or active == document.body or bool(active.matches(
            "#die, #board .token, #choices button, #dice button, #turn"))

    @staticmethod
    def focus_first(selector: str) -> None:
        first = document.querySelector(selector)
        if not is_none(first):
            Screen._focus_in_view(first)

    @staticmethod
    def focus_element(element: Any) -> None:
        Screen._focus_in_view(element)

    @staticmethod
    def _focus_in_view(element: Any) -> None:
        """Focus without the browser's jump, then scroll just enough to show it (a picker's
        button below a phone's fold)."""
        element.focus(js({"preventScroll": True}))
        element.scrollIntoView(js({"block": "nearest"}))
        Screen._show_choices_beside(element)

    @staticmethod
    def _show_choices_beside(element: Any) -> None:
        """Buttons waiting below the board are one question (Royal's send back or climb on
        top, a picker's moves): when the focus goes to a piece or to one of them, scroll on
        until the last button is in view too, as far as the focused element stays in view.
        On a phone the focus went to the double's man and the second button stayed below the
        fold, so a player saw one answer of two."""
        group = el("choices")
        if is_none(group) or is_none(group.querySelector("button")):
            return
        margin = 8
        below = group.getBoundingClientRect().bottom + margin - window.innerHeight
        room = element.getBoundingClientRect().top - margin
        if below > 0 and room > 0:
            window.scrollBy(0, min(below, room))

    @staticmethod
    def focus_screen(page: str) -> None:
        """Another screen was shown: the focus goes to its heading (or, at the table, the
        line saying whose turn it is), so a screen reader starts there and Tab goes on
        from it, instead of the focus falling to the page itself."""
        target = document.querySelector(f"#screen-{page} h2") if page != "table" else el("turn")
        if is_none(target):
            return
        target.setAttribute("tabindex", "-1")
        target.focus(js({"preventScroll": True}))

    @staticmethod
    def focus_rules(rules: str) -> None:
        """The rules screen opens on one rule set's rules: the focus on its heading, scrolled
        to the top of the view (the screen's own heading if there is no such rule set)."""
        target = document.querySelector(f'#screen-rules [data-rules="{rules}"] h3')
        if is_none(target):
            Screen.focus_screen("rules")
            return
        target.setAttribute("tabindex", "-1")
        target.focus(js({"preventScroll": True}))
        # the first rule set's: the view stays at the top, where the screen's heading and a
        # game's note are (the route scrolled there)
        if not target.isSameNode(document.querySelector("#screen-rules .rules-page h3")):
            target.scrollIntoView(js({"block": "start"}))

    @staticmethod
    def piece_for_key(event: Any) -> str | None:
        """Arrow keys move the focus among the movable pieces, in the order they stand on the
        board as one reads it (top to bottom, left to right; right and down go on, left and
        up go back, round and round); Enter or Space names one."""
        movable = list(document.querySelectorAll("#board .token.movable"))
        if not movable:
            return None

        def reading(token: Any) -> tuple[int, float]:
            box = token.getBoundingClientRect()
            return round(float(box.top) / 12), float(box.left)  # a row: within 12 px

        movable.sort(key=reading)
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

    def show_quit(self, table: Table) -> None:
        """Who may leave: the local people's seats (the one to act first); one is named."""
        self.drawn.pop("quit-seat", None)  # the seat to act chosen anew, whatever was before
        self.fill_quit(table, None)
        open_dialog("quit")  # the focus on "Keep playing" (autofocus), not the seat list

    def fill_quit(self, table: Table, chosen: str | None) -> None:
        """The quit dialog's seats and words as ``table`` is now, ``chosen`` kept chosen while
        it may still leave. Only what changed is written, so a seat list in use keeps the
        focus while the dialog is kept up to date (``Controller.refresh_quit``)."""
        seats = table.quitters()
        default = chosen if chosen in seats else \
            table.seat_to_act if table.seat_to_act in seats else seats[0]
        self._write("quit-seat", panel.quit_options_html(table, seats, default))
        leave = table.leave
        # one seat is named; a leave that ends the match for everybody (Gilgiti) names none
        # when one person plays here, but asks who leaves on a device shared by several: the
        # record and Home's "ended when Red left" name that seat, not the first one listed
        named = len(seats) == 1 and not leave.ends_match
        el("quit-seat-row").hidden = len(seats) == 1
        el("quit-who").hidden = not named
        for element_id, text in (
                ("quit-who", f"{table.name(seats[0])} leaves the game." if named else ""),
                ("quit-seat-label", "Who leaves" if leave.ends_match else "Seat that quits"),
                ("quit-title", leave.title), ("quit-text", panel.quit_text(table)),
                ("quit-confirm", leave.button)):
            if str(el(element_id).textContent) != text:
                el(element_id).textContent = text

    @staticmethod
    def show_replace(table: Table, online: str | None = None) -> None:
        """Ask before a new game replaces the one in progress; "Keep it" has the focus."""
        el("replace-text").textContent = panel.replace_text(table, online)
        open_dialog("replace")

    def show_winner(self, table: Table, again: str = panel.PLAY_AGAIN,
                    rematch: bool = True) -> None:
        """The winner dialog, ending with ``again``; ``rematch``: its Rematch button shown."""
        dialog = el("dlg-winner")
        if dialog.open:
            return
        self.fill_winner(table, again, rematch)
        if table.winners():
            self.sound.win()
        self.hide_notice()  # a notice of the last turn would stand over it
        dialog.showModal()

    @staticmethod
    def fill_winner(table: Table, again: str, rematch: bool) -> None:
        """The winner dialog's words and its Rematch button, open or not (an open one is
        told anew when what it offers changes: a tab that stepped aside)."""
        el("winner-rematch").hidden = not rematch
        title, text = panel.winner_text(table, again)
        el("winner-title").textContent = title
        el("winner-text").textContent = text
        el("winner-standings").innerHTML = panel.standings_html(table)

    @staticmethod
    def show_error(message: str) -> None:
        el("error-text").textContent = (f"{message} You can start a new game; the damaged "
                                        "save will be discarded.")
        if not el("dlg-error").open:
            el("dlg-error").showModal()

    @staticmethod
    def dialog_answer(name: str) -> str:
        return str(el(f"dlg-{name}").returnValue)


def open_dialog(name: str) -> None:
    """Open a dialog with no answer yet: Escape leaves ``returnValue`` as it was, so a
    dialog confirmed once would read as confirmed again."""
    dialog = el(f"dlg-{name}")
    if dialog.open:
        return
    dialog.returnValue = ""
    dialog.showModal()


def close_dialog(name: str) -> None:
    """Close a dialog unanswered (its close handler reads an empty ``returnValue``)."""
    dialog = el(f"dlg-{name}")
    if dialog.open:
        dialog.returnValue = ""
        dialog.close()


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


def _set(target: Any, name: str, value: Any) -> None:
    """Set a DOM property only when it differs: writing the same value is still a change."""
    if getattr(target, name) != value:
        setattr(target, name, value)
