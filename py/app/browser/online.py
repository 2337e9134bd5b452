"""Online rooms in the page: the room screen, and the controller that plays through a room.

:class:`OnlineController` is the app's controller with online play added (py/main.py makes
one): a setup with seats marked "Online" creates a room; a link with ``#room=<id>`` joins one.
While a room is open the table is the room's (the host's :class:`~app.room.HostRoom` table, or
a guest's follower table), actions go through the room (the host applies them after the dice
are revealed; a guest sends them to the host), and what arrives from the network is drawn like
a local action. Everything the rooms decide is pure Python in :mod:`app.room`; this module only
wires it to the page, the storage and the transport (:mod:`app.browser.rtc`).

Storage: ``courtyard-ludo/online`` names the room this device is in and its role; the room's
own state (the host's match and chains, or a guest's secret, name and chains) is kept under
``courtyard-ludo/room/<role>/<id>``, so a reload, a lost network or a reopened link comes back to
the same seat. Beside it, ``courtyard-ludo/hostkey/<role>/<id>`` holds the host's private key (on
the host's device) or the fingerprint of that key from the link the guest joined by (on a
guest's): see :mod:`net.hostkey` and docs/online.md, "Host authentication". A local game's save
is never touched by online play. (These are names: a copy of the app in a folder stores them
under keys of its own, :mod:`app.storekeys`; so is the handover channel named.)

The room link is ``<page>#room=<id>&host=<fingerprint>``. A link without the fingerprint (made
before the host proved its key) is refused with a message: nothing could tell its host from
anyone else holding it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pyscript import document, window
from pyscript.ffi import is_none

from ludo import Action, IllegalAction, LudoError
from ludo.notation import load_json

from .. import roomview, setup
from ..table import TABLE
from . import storage
from .controller import SCREENS, Controller
from .dom import Timeout, el, keep, now_ms, number_param, on, set_text, text_of
from .persist import ROOM_SAVE_FAILED
from .rtc import CALL_AGAIN_S, Transport
from .screen import open_dialog

SESSION_KEY = "courtyard-ludo/online"
OFFLINE = "Online rooms need an internet connection."


ROOM_PREFIX = "courtyard-ludo/room/"
SAVED_ROOMS_KEY = "courtyard-ludo/rooms"  # "<role>/<id>" of the saved rooms, latest first
HANDOVER_CHANNEL = "courtyard-ludo/handover"  # a refused save, to the tab that takes the table


def _room_key(role: str, room: str) -> str:
    return f"{ROOM_PREFIX}{role}/{room}"


def _forget_old_rooms(current: str) -> None:
    """Keep the rooms saved most recently, ``current`` first, and forget the others
    (app.room.saved_rooms_to_keep says why); nothing to do while ``current`` heads the list."""
    from ..room import saved_rooms_to_keep

    order = _load(SAVED_ROOMS_KEY)
    if isinstance(order, list) and order[:1] == [current]:
        return
    present = [key[len(ROOM_PREFIX):] for key in storage.keys(ROOM_PREFIX)]
    kept, dropped = saved_rooms_to_keep(order, current, present)
    for name in dropped:
        role, _, room = name.partition("/")
        storage.remove(_room_key(role, room))
        storage.remove(_key_key(role, room))
    storage.put(SAVED_ROOMS_KEY, json.dumps(kept))


MAX_ROOM_STATE = 4_000_000  # a host's saved room: its match record and dice chains


def _load(key: str) -> Any:
    """A stored room state, read as hostile input: anything unreadable is as if absent."""
    text = storage.get(key)
    if text is None:
        return None
    try:
        return load_json(text, "room", MAX_ROOM_STATE)
    except LudoError:
        return None


def _key_key(role: str, room: str) -> str:
    return f"courtyard-ludo/hostkey/{role}/{room}"


OTHER_HOST = ("This link names a different host for this room than the link you joined by; "
              "ask the host for the link again.")
# A room link whose room id or host fingerprint is malformed: most often cut off when it was
# copied or typed (a chat app wrapping it, a QR code read in part), not an old version's link
# The signalling helper cannot be reached: a guest not connected to its host cannot call it
# (nor can anybody join), but links already open do not need the helper and play on
SERVER_LOST = "The room's server cannot be reached; trying again…"
SERVER_LOST_HOST = ("The room's server cannot be reached; trying again… Players already "
                    "connected play on; nobody else can join until it is back.")
# An online match's winner dialog: the host's Rematch plays again in this room, with the same
# seats, and every guest's and spectator's page follows it into the new match
REMATCH_HOST = "Play again in this room with the same seats? Your friends follow you."
REMATCH_GUEST = ("Waiting for the host to start a rematch: you will follow them into it. "
                 "Home leaves the table.")
# The table's Quit button for a guest with no seat in play (a spectator): what it can do is
# leave the room (after a confirmation), not quit a seat it does not have
LEAVE_ROOM = "Leave the room"
WAITING = "Waiting for the host."
# A guest that has waited this long for a host it never reached (or that left the lobby)
LONG_WAIT_MS = 15_000
LONG_WAIT = ("Waiting for the host: the game must be open on their device. If they closed the "
             "room, ask them for a new link.")
# How long a host that closes its room keeps the connections for its "closed" to go out
CLOSED_LINGER_MS = 1500
LOBBY_CLOSED = "the room is closed; ask for a new link to play."  # (what the guests read)
DAMAGED_LINK = ("This room link is incomplete or damaged (perhaps cut off when it was copied); "
                "ask the host to send it again.")


def room_link(room: str, fingerprint: str) -> str:
    """The page's address with the room id and the host key's fingerprint in its fragment
    (never sent to any server)."""
    from net.hostkey import link_fragment

    location = window.location
    base = f"{location.origin}{location.pathname}{roomview.link_query(str(location.search))}"
    return f"{base}#{link_fragment(room, fingerprint)}"


def _host_key(room: str) -> Any:
    """The host's private key for ``room`` from storage; a new one (stored) when there is none
    or it is unreadable (a room saved before hosts had keys: its old links cannot work)."""
    from net.hostkey import HostKeyError, PrivateKey

    text = storage.get(_key_key("host", room))
    try:
        return PrivateKey.from_text(text)
    except HostKeyError:
        key = PrivateKey.generate()
        storage.put(_key_key("host", room), key.to_text())
        return key


def _guest_fingerprint(room: str) -> str | None:
    """The fingerprint a guest's device took from the link it joined ``room`` by, if any."""
    from net.hostkey import is_fingerprint

    text = storage.get(_key_key("guest", room))
    return text if is_fingerprint(text) else None


class Online:
    """One open room in this page: the pure room, its transport, and their wiring."""

    def __init__(self, ctl: OnlineController, room: Any, role: str, key: Any = None,
                 fingerprint: str | None = None) -> None:
        from net.signalling import SignallingError, read_setting, signal_url

        self.ctl, self.room, self.role = ctl, room, role
        self.id: str = room.room
        self.key = key  # the host's PrivateKey (a host only)
        if key is not None:
            fingerprint = key.public().fingerprint()
        if fingerprint is None:
            raise ValueError("a guest's room needs the host key's fingerprint")
        self.fingerprint: str = fingerprint
        self.status = "Connecting…"
        self.server_lost = False  # the signalling helper cannot be reached (on_state)
        self.seats_told: dict[str, str] | None = None  # the holders last told of (a host)
        self.seat_told: str | None = None  # the guest's own seat, last told of
        self.away_shown: list[str] = []  # the seats the status line last said were away
        # (table, version, seats): who came back, said until that table's next action
        self.back: tuple[Any, int, list[str]] | None = None
        self.waiting_since: float | None = None  # a guest waiting for its host (guest_waiting)
        self.tick_timer: Timeout | None = None
        self.playing = False
        self.told_ended = False  # this page went Home with the notice of a match ended by leaving
        self.table_match: str | None = None  # the match of the table this page shows
        self.save_timer: Timeout | None = None  # a guest's save, soon (see changed)
        self.suspended = False  # another tab of this browser holds the room now (suspend)
        # a guest's page that opened at Home: the first state id of the match its player left
        # there, whose table (at the host's sync) it shows at Home, not at the table
        self.home_at_sync: int | None = None
        self.unkept: str | None = None  # the room's last save, if storage refused it (full)
        try:
            url = signal_url(str(window.location.href), read_setting(document))
        except SignallingError as exc:
            url, self.status = "", str(exc)
        self.transport = Transport(url, self.id, role, self.opened, self.message, self.closed,
                                   self.on_state, key=key, fingerprint=self.fingerprint,
                                   call_again_ms=number_param("call_again_ms",
                                                              CALL_AGAIN_S * 1000, 1000, 60_000))
        room.on_change = self.changed
        if role == "guest":
            room.on_saved = self.save
        self.url = url

    @property
    def forced_quit(self) -> str | None:
        """A guest's seat that its host made leave without this device asking (a host's room
        has no such seat)."""
        return self.room.forced_quit if self.role == "guest" else None

    # -- transport events ------------------------------------------------------------------

    def start(self) -> None:
        if not bool(window.navigator.onLine):
            self.status = OFFLINE
        elif self.url:
            self.transport.start()
        self.save()
        self.ctl.draw_room()

    def on_state(self, state: str) -> None:
        """The signalling connection's state, in words. Once lost, its words stay until it
        is back: each new try ("Connecting…") is not said, or the status line (a live
        region) would alternate every few seconds while the helper is down."""
        words = {"connecting": "Connecting…", "closed": SERVER_LOST_HOST
                 if self.role == "host" else SERVER_LOST, "no-host": WAITING}
        if state == "joined":
            self.server_lost = False
            self.status = WAITING if self.role == "guest" and \
                not self.room.connected else "Connected."
        elif state == "connecting" and self.server_lost:
            pass
        else:
            self.server_lost = state == "closed"
            self.status = words.get(state, state)
        if not bool(window.navigator.onLine):
            self.status = OFFLINE
        self.ctl.draw_room()

    def opened(self, peer: str) -> None:
        if self.ctl.persist.stepped_aside_now():  # the room is the other tab's to answer
            return
        if self.role == "host":
            self.room.connect(peer)
        elif peer == self.transport.host:
            self.room.send_text = lambda text: self.transport.send_host(text)
            self.room.connect()
            self.status = "Connected to the host."
        self.ctl.draw_room()

    def message(self, peer: str, text: str) -> None:
        if self.ctl.persist.stepped_aside_now():  # (a rematch's claim among them: see docs)
            return
        if self.role == "host":
            self.room.receive(peer, text, now_ms())
            self.arm_tick()  # a resync asked too soon is owed: the tick sends it
        elif peer == self.transport.host:
            self.room.receive(text, now_ms())

    def closed(self, peer: str) -> None:
        if self.role == "host":
            self.room.disconnect(peer, now_ms())
        elif peer == self.transport.host:
            self.room.disconnect(now_ms())
            self.status = WAITING
        self.ctl.draw_room()

    # -- what the room says ----------------------------------------------------------------

    def changed(self, what: str) -> None:
        if what == "rematch":
            # the host plays again in this room: the old match's winner dialog goes, and a
            # page at the table waits on the room screen for the new match's table
            self.told_ended = False
            if self.ctl.screen.table_shown() or not el("screen-room").hidden:
                self.ctl.show_room()
        table = self.room.table
        if table is not None and (self.ctl.table is not table):
            # a page's first table, or a rematch's: shown (a guest follows its host into it);
            # a page that opened where its player was away from the match, at Home, goes
            # there instead (a reload at Home went to the table once the host's sync came)
            first = not self.playing or self.room.ledger.room != self.table_match
            at_home = self.home_at_sync is not None and self.home_at_sync == self.room.first
            self.home_at_sync = None  # (a rematch begun meanwhile is followed to its table)
            self.ctl.take_table(table, self)
            if first and not at_home:
                self.ctl.go("table")
            elif first and not el("screen-room").hidden:
                window.history.replaceState(None, "", "#home")
                self.ctl.route()
            self.ctl.schedule()
        if self.role == "host":
            self.save()  # the host's page is the table: every change is kept at once
        elif self.save_timer is None:
            # a guest's room is the host's copy (a reload syncs it again; its secrets and
            # chains are stored at once by on_saved): written at most every 250 ms, so a host
            # that floods messages cannot make it write its whole record for each of them
            self.save_timer = Timeout(self.save_now, 250)
        shown = self.room.to_show if what == "notice" and self.role == "guest" else None
        if shown and self.playing:  # what the host refused or did wrong: over the board too
            self.ctl.screen.show_notice(shown)
            self.ctl.screen.announce(shown)
        if what in ("action", "sync") and self.playing:
            self.ctl.after_network(what)
        else:
            self.ctl.draw_room()
        self.arm_tick()

    def arm_tick(self) -> None:
        """The host's next timed duty: settle a late roll, or send a sync it owes."""
        if self.role != "host":
            return
        if self.tick_timer is not None:
            self.tick_timer.cancel()
            self.tick_timer = None
        # a roll's reveals that did not all come in time, or a sync owed to a guest that
        # asked too soon after the last one (the room answers at most one per interval)
        dues = [d for d in (self.room.reveal_due(), self.room.sync_due()) if d is not None]
        due = min(dues) if dues else None
        if due is not None:
            self.tick_timer = Timeout(self.on_tick, due - now_ms() + 5)

    def on_tick(self) -> None:
        self.tick_timer = None
        if self.ctl.persist.stepped_aside_now():
            return
        self.room.tick(now_ms())
        self.arm_tick()  # another duty may be due later (a second owed sync)

    def act(self, actor: str, action: Action) -> None:
        if self.role == "host":
            self.room.act(actor, action, now_ms())
            self.arm_tick()
        elif actor == self.room.seat or action.type == "quit" and action.seat == self.room.seat:
            if not self.room.connected:
                raise IllegalAction("Waiting for the host: your move cannot be sent yet.")
            self.room.act(action)
        else:
            raise IllegalAction("Only your own seat plays from this device.")

    def save_now(self) -> None:
        self.save_timer = None
        self.save()

    def save(self) -> None:
        if self.save_timer is not None:  # (a save soon is this one)
            self.save_timer.cancel()
            self.save_timer = None
        if self.suspended:  # the tab that holds the room now writes it
            return
        storage.put(SESSION_KEY, json.dumps({"room": self.id, "role": self.role}))
        text = json.dumps(self.room.to_json())
        self.unkept = None if storage.put(_room_key(self.role, self.id), text) else text
        self.ctl.persist.report_saved(self.unkept is None, ROOM_SAVE_FAILED)
        storage.put(_key_key(self.role, self.id),
                    self.key.to_text() if self.key is not None else self.fingerprint)
        _forget_old_rooms(f"{self.role}/{self.id}")

    def link(self) -> str:
        return room_link(self.id, self.fingerprint)

    def suspend(self) -> None:
        """Another tab of this browser took the table, and it opens this room from storage
        itself: let go of the room's connections and stop writing it. Two tabs holding one
        room would split the match (the guests' links staying with a tab that no longer
        plays, while the other times them out); without this tab's links, each guest calls
        the room's host again and finds the tab that plays. Storage keeps the room."""
        self.suspended = True
        for timer in (self.save_timer, self.tick_timer):
            if timer is not None:
                timer.cancel()
        self.save_timer = self.tick_timer = None
        self.transport.stop()
        self.status = self.aside_words()

    def aside_words(self, kept: bool | None = None) -> str:
        """A tab that stepped aside says what the tab that plays does with its room now, and so
        what Play here does (OnlineController.claim): the session names the room that tab
        opened last (a tab that stepped aside never writes it), and storage keeps this room or
        not (``kept``, when the caller knows it)."""
        session = _load(SESSION_KEY)
        opened = (session.get("room"), session.get("role")) if isinstance(session, dict) \
            else (None, None)
        if kept is None:
            kept = storage.get(_room_key(self.role, self.id)) is not None
        return roomview.aside_text(opened == (self.id, self.role), kept,
                                   isinstance(opened[0], str) and opened != (self.id, self.role))

    def leave(self, linger_ms: int = 0) -> None:
        """Let go of the room. ``linger_ms``: keep its connections that long first, so that
        what was just sent (the host's ``closed``) reaches the guests: closing a peer
        connection at once drops what its data channel has not sent yet, and the guests
        went on "Waiting for the host." for good. Nothing heard meanwhile changes anything.
        A tab that stepped aside (suspended) removes nothing: the session and the saved room
        are the tab's that plays (its Leave deleted them from under that tab, the saved room
        of a lobby or an ended match with them)."""
        if self.save_timer is not None:  # nothing may write the room back after this
            self.save_timer.cancel()
            self.save_timer = None
        aside = self.suspended
        self.suspended = True  # (no save, no status from here on)
        self.room.on_change = lambda what: None
        if linger_ms > 0:
            Timeout(self.transport.stop, linger_ms)
        else:
            self.transport.stop()
        if aside:
            return
        storage.remove(SESSION_KEY)
        if not self.holds_match():
            storage.remove(_room_key(self.role, self.id))
            storage.remove(_key_key(self.role, self.id))

    def holds_match(self) -> bool:
        """Whether this device plays in the room's match still under way: the host, or a
        guest with a seat. Its saved room (the host's key and record, the guest's seat secret
        and chain) is then kept when the page lets go of the room, so that the room's link
        brings it back to its match: a host or guest that opened another room's link in its
        tab (or started a game of its own) once lost the match for good (the host came back
        as a guest of its own room, waiting for itself; the guest as a spectator, its seat
        timed out)."""
        t = self.room.table
        return t is not None and not t.over and (self.role == "host" or self.room.seat is not None)

    # -- what the page shows -------------------------------------------------------------

    def own_seat(self) -> str | None:
        if self.role == "guest":
            seat: str | None = self.room.seat
            return seat
        t = self.room.table
        people = [s for s in self.room.seats if self.room.kinds[s] == "human"]
        if t is not None:
            people = [s for s in people if s in t.active_seats()] or people
        return people[0] if people else None

    def guest_waiting(self) -> str:
        """A guest's words while the host is not connected: how long the host has been away
        from a running match (its page is the table: the match waits for it), else the
        connection's own state."""
        if not bool(window.navigator.onLine):
            return OFFLINE
        now = now_ms()
        away = self.room.host_away(now)
        if away is None and self.status == WAITING:
            # a link to a room whose host is not there: a wait without end said as such
            if self.waiting_since is None:
                self.waiting_since = now
            elif now - self.waiting_since >= LONG_WAIT_MS:
                return LONG_WAIT
        else:
            self.waiting_since = None
        if away is None or self.server_lost:  # the host may well be there: the helper is not
            return self.status
        return roomview.host_away_text(away)

    def status_line(self) -> str:
        room = self.room
        if self.suspended:  # its connections are another tab's now: nothing here is live
            return self.status
        if self.role == "guest":
            if room.problem:
                return room.problem
            if room.closed:
                return room.closed
            if not room.connected:
                return self.guest_waiting()
        news = self.presence_news()
        if self.role == "host":
            return news or self.status
        if self.own_seat() is None:
            # a spectator's table looks like a player's whose turn never comes: it is told it
            # watches whatever else the line says (the away sentence replaced it, and a
            # spectator's page read like a player's waiting for a friend)
            return " ".join(("You are watching: connected to the host.", news)).strip()
        return news or "Connected to the host."

    def away_now(self) -> list[str]:
        """The seats in the match under way whose player plays online and is not connected
        now (roomview.away_seats), as this page knows it: every page of the room marks the
        same seats, on its status line and at the board."""
        room, t = self.room, self.room.table
        if t is None or t.over:
            return []
        # who is here as the room lets the table say it (at most once a second after a burst:
        # a live region), and the match's online seats (a guest's: not the latest lobby's)
        here = room.here_shown
        online = room.online_seats()
        return roomview.away_seats(t.active_seats(), online, here, self.own_seat())

    def presence_news(self) -> str:
        """Who is away, on every page of the room (a guest's said nothing, and its player
        watched a friend's turns time out with no word why); and who has just come back, said
        until the table's next action (the host's line fell back to a bare "Connected.", and
        a screen reader heard no name): "Yusuf (yellow) is back." """
        t = self.room.table
        away = self.away_now()
        if t is None or t.over:
            self.away_shown, self.back = [], None
            return ""
        returned = [s for s in self.away_shown if s not in away and s in t.active_seats()]
        if returned:
            self.back = (t, t.version, returned)
        elif self.back is not None and self.back[:2] != (t, t.version):
            self.back = None
        self.away_shown = away
        back = [] if self.back is None else [s for s in self.back[2] if s not in away]
        return " ".join(text for text in (roomview.back_text([t.name(s) for s in back]),
                                          roomview.away_text([t.name(s) for s in away]))
                        if text)

    def dice_html(self) -> str:
        t = self.room.table
        if t is None:
            return ""
        guest = self.role == "guest"
        dropped = sorted(self.room.dropped) if guest else []
        return roomview.dice_panel_html(self.room.throws, t.record.seats, t.names, dropped,
                                        early=self.room.early_timeouts if guest else None)


class OnlineController(Controller):
    """The controller, with online rooms."""

    def __init__(self) -> None:
        super().__init__()
        self.online: Online | None = None
        self.channel: Any = None  # to this browser's other tabs of the game (on_handover)
        self.away_drawn: list[str] = []  # the seats the table was last drawn marked away

    def step_aside(self) -> None:
        if self.online is not None:  # the tab that took the table opens the room itself
            o = self.online
            if o.unkept is not None and self.channel is not None:
                # storage refused this tab's last save of the room (full): the tab that
                # took the table hears it by the channel instead of a storage event, and
                # takes it as it takes a later save (take_newer_save); a rematch's claim
                # made here in the handover was lost else (docs/online.md, "Rematch")
                self.channel.postMessage(json.dumps({"key": _room_key(o.role, o.id),
                                                     "value": o.unkept}))
            o.suspend()
            set_text("tab-banner-text", o.status)
        super().step_aside()
        self.draw_room()  # (its status too: it said "Connected." still)
        self.refresh_winner()

    def refresh_winner(self) -> None:
        """An open winner dialog offers what is true now: a tab that stepped aside offers no
        Rematch (it would start nothing), and says what Play here does instead."""
        if self.table is not None and self.table.over and el("dlg-winner").open:
            self.screen.fill_winner(self.table, *self.play_again())

    def follow(self) -> None:
        if self.online is not None and self.online.suspended:
            return  # the room stays shown, which Play here brings back (not that tab's game)
        super().follow()

    def prompt(self, after_roll: bool = False) -> str:
        o, t = self.online, self.table
        if o is not None and o.suspended and t is not None and not t.over:
            return o.status  # (what this tab can do here: Play here, and what it does)
        return super().prompt(after_roll)

    def on_room_storage(self, event: Any) -> None:
        """Another tab wrote the session or this page's room. A tab that stepped aside says
        anew what the tab that plays does with the room (that tab opened another room, left
        this one, ...). A tab that plays takes a newer save of its room from the tab it took
        the table from, written before that tab stepped aside (Online's room.outdated_by):
        it read the room a moment before, and that tab may have played on meanwhile, a
        rematch's claim among what it did (docs/online.md, "Rematch")."""
        o = self.online
        key, value = storage.name_of(event), text_of(event.newValue)  # (this copy's names)
        if o is None or key not in (SESSION_KEY, _room_key(o.role, o.id)):
            return
        if o.suspended:
            words = o.aside_words(None if key == SESSION_KEY else value is not None)
            if words != o.status:
                o.status = words
                set_text("tab-banner-text", words)
                self.draw()
                self.draw_room()
                self.refresh_winner()
            return
        if key == SESSION_KEY or value is None:
            return
        self.take_newer_save(o, value)

    def on_handover(self, event: Any) -> None:
        """Another tab's save of its room that storage refused, sent as it stepped aside
        (step_aside): taken as a storage event's would be. Read as hostile input."""
        o = self.online
        try:
            # (the room's text inside a JSON string: its quotes escaped, hence twice)
            data = load_json(str(event.data), "room", 2 * MAX_ROOM_STATE)
            key, value = data["key"], data["value"]
        except Exception:  # noqa: BLE001 - not a hand-over this page can read: ignored
            return
        if o is not None and not o.suspended and key == _room_key(o.role, o.id) \
                and isinstance(value, str):
            self.take_newer_save(o, value)

    def take_newer_save(self, o: Online, value: str) -> None:
        """Take ``value``, the room as the tab this one took the table from saved it after
        this tab read it, if the room says it is newer (outdated_by) and it restores."""
        from ..room import GuestRoom, HostRoom, saved_room_refusal

        try:
            saved = load_json(value, "room", MAX_ROOM_STATE)
            if not o.room.outdated_by(saved) or saved_room_refusal(saved, o.id) is not None:
                return
            # read as any saved room is: one that does not restore is not taken
            if o.role == "host":
                HostRoom.restore(saved, lambda peer, text: None, now_ms(), key=o.id)
            else:
                GuestRoom.restore(saved, lambda text: None, key=o.id)
        except Exception as exc:  # noqa: BLE001 - hostile input: this page's room stays
            window.console.warn(f"another tab's save of the room cannot be used: {exc}")
            return
        self.take_over(o, saved)

    def take_over(self, online: Online, saved: Any) -> None:
        """Open ``online``'s room again from ``saved``, the newer save of it (see
        on_room_storage): its connections go, nothing is written meanwhile."""
        online.suspend()
        self.forget_room()
        self.open_room(online.role, online.id, saved,
                       online.fingerprint if online.role == "guest" else None)

    def claim(self, reload: bool = False) -> None:
        online = self.online
        if online is None or not online.suspended:
            super().claim(reload)
            session = _load(SESSION_KEY) if reload and self.online is None else None
            if isinstance(session, dict):
                # a tab without a room (it left one while aside, or showed a game of its
                # own) that takes the table takes the room the tab that played has open, as
                # a reload does: it played this device's own game, while that tab's room
                # stayed open in the session (the other tab then said it had the room open,
                # and the next reload opened the room over this tab's game)
                self.resume(session, "home" if self.page_shown == "home" else "saved")
            return
        # this tab let go of its room when another took the table: open it again from
        # storage, where that tab kept it (and which now lets go of it in turn)
        shown = self.page_shown
        self.forget_room()
        self.persist.claim()
        session = _load(SESSION_KEY)
        if storage.get(_room_key(online.role, online.id)) is not None:
            # its own room, still saved: the other tab may have opened another room (a
            # friend's link), which the session names now; "Play here" opened that one
            session = {"room": online.id, "role": online.role}
        if isinstance(session, dict):
            self.resume(session)
            if shown == "table" and self.table is not None and not self.screen.table_shown():
                # back at the table it showed: the room opens where it was saved last, and
                # the other tab may have gone Home with it (it opened the room screen then)
                self.go("table")
        if self.online is None:  # the room has closed meanwhile: this device's own game
            self.load_saved()
            if str(window.location.hash).startswith("#room="):
                # (its link: it would open the room as a guest's, one this device had left)
                window.history.replaceState(None, "", "#home")
            self.route()
            self.schedule()

    def boot(self) -> None:
        for target, handler in (("btn-room-copy", self.on_copy), ("btn-room-share", self.on_share),
                                ("btn-room-start", self.on_room_start),
                                ("btn-room-leave", self.on_room_leave),
                                ("btn-room-watch", self.on_watch), ("room-seats", self.on_take),
                                ("btn-online-room", lambda e: self.show_room()),
                                ("btn-room-table", lambda e: self.go("table"))):
            on(el(target), "click", handler)
        on(el("online-dice"), "toggle", lambda e: self.draw_online())
        on(el("dlg-leave"), "close", self.on_leave_closed)
        on(window, "storage", self.on_room_storage)
        try:  # (before the table is claimed below: a tab stepping aside for it may send)
            # (named for this copy's folder, as its storage is: not another copy's tabs)
            self.channel = window.BroadcastChannel.new(storage.key_of(HANDOVER_CHANNEL))
            on(self.channel, "message", self.on_handover)
        except Exception as exc:  # noqa: BLE001 - without it, a refused save is not handed over
            window.console.warn(f"no channel between tabs: {exc}")
        on(window, "online", lambda e: self.draw_room())
        on(window, "offline", lambda e: self.draw_room())
        el("btn-room-share").hidden = is_none(getattr(window.navigator, "share", None))
        session = _load(SESSION_KEY)
        # read before booting: the link's room, opened at its table, changes the address to
        # #table, and the session (the room this device opened last) then replaced it
        linked = str(window.location.hash).startswith("#room=")
        super().boot()
        hooks = window.ludo
        hooks.online = keep(lambda *_: json.dumps(self.online_facts()))
        hooks.sendRaw = keep(lambda text: self.send_raw(str(text)))
        if isinstance(session, dict) and not linked:
            self.resume(session, "saved")

    # -- opening rooms ---------------------------------------------------------------------

    def resume(self, session: dict[str, Any], where: str = "room") -> None:
        """Open the room ``session`` names, from storage, its match ``where`` (open_room)."""
        from ..room import saved_room_refusal

        room, role = session.get("room"), session.get("role")
        if not isinstance(room, str) or role not in ("host", "guest"):
            return
        saved = _load(_room_key(role, room))
        if saved is None:
            storage.remove(SESSION_KEY)
            return
        refusal = saved_room_refusal(saved, room)
        if refusal is not None:
            # damaged like a room that cannot be read (an id that is no room id, or not the
            # one it was saved under): dropped, and the page opens Home (docs/online.md)
            window.console.warn(f"the saved room cannot be used: {refusal}")
            storage.remove(_room_key(role, room))
            storage.remove(SESSION_KEY)
            return
        fingerprint = _guest_fingerprint(room) if role == "guest" else None
        if role == "guest" and fingerprint is None:
            # joined by a link from before hosts had keys: it cannot be authenticated
            storage.remove(SESSION_KEY)
            return
        self.open_room(role, room, saved, fingerprint, where)

    def open_room(self, role: str, room_id: str, saved: Any = None,
                  fingerprint: str | None = None, where: str = "room") -> None:
        """Open a room: a host's from its saved state (its key from storage), or a guest's,
        whose host must prove the key with ``fingerprint`` (from the link or storage). A room
        before its match opens on the room screen; its match opens, by ``where``:
        "room" (a link, Play here of a room this tab stepped aside from): at the table if it
        was saved there, else on the room screen; "saved" (a page that opens: a reload, a new
        tab): at the table or at Home, as saved (a reload at Home opened the room screen,
        where the player had not been); "home": at Home (a tab at Home that takes the table),
        whose Resume is the match. A guest's match comes with its host's sync: a guest's
        device saved at Home waits for it on the room screen, then goes Home."""
        from ..room import GuestRoom, HostRoom, new_secret

        if self.online is not None and self.online.id == room_id:
            return
        self.close_room()
        key = _host_key(room_id) if role == "host" else None
        try:
            if role == "host":
                room: Any = HostRoom.restore(saved, lambda p, t: None, now_ms(), key=room_id)
            elif saved is not None:
                room = GuestRoom.restore(saved, lambda t: None, key=room_id)
            else:
                room = GuestRoom(room_id, new_secret(), "", lambda t: None)
        except Exception as exc:  # a DiceError, a LudoError or anything else:
            # what the browser stores is hostile input; a room that cannot be read is dropped
            # and the page carries on with a fresh one (it never stops the page from opening)
            window.console.warn(f"the saved room cannot be used: {exc}")
            storage.remove(_room_key(role, room_id))
            room = GuestRoom(room_id, new_secret(), "", lambda t: None)
            if key is not None:  # this device's own room: its guests' links name this key
                fingerprint = key.public().fingerprint()
            role, key = "guest", None
        online = Online(self, room, role, key=key, fingerprint=fingerprint)
        if role == "host":
            room.send_text = online.transport.send
        self.online = online
        online.start()
        if role == "host":
            room.resume(now_ms())
        if room.table is not None:
            self.take_table(room.table, online)
            if room.table.session.screen == "table" and where != "home":
                self.go("table")
                return
            if where != "room":
                window.history.replaceState(None, "", "#home")
                self.route()
                return
        elif role == "guest" and where != "room" and room.page_screen() == "home":
            # a guest's table comes with the host's sync: meanwhile the room screen says
            # what it waits for (Home would offer this device's own game), then Home
            online.home_at_sync = room.first
        self.show_room()

    def close_room(self, linger_ms: int = 0) -> None:
        o = self.online
        if o is not None:
            if o.role == "host" and o.room.table is None and not o.suspended:
                # A lobby whose host goes (Leave, another room's link, a game of its own) is
                # gone: its guests are told, or they waited for a host that would not come.
                o.room.close(LOBBY_CLOSED)
                linger_ms = max(linger_ms, CLOSED_LINGER_MS)
            o.leave(linger_ms)
            self.forget_room()
            self.load_saved()

    def forget_room(self) -> None:
        """This page no longer shows or plays its room (the room itself is left, suspended or
        replaced by the caller): no table, no computer's move pending, the board unturned."""
        self.online = None
        self.screen.bottom_left = None
        self.auto.cancel()
        self.table = None

    def create_room(self, rules: str, seats: tuple[str, ...], names: dict[str, str],
                    players: dict[str, str], timer: bool, options: dict[str, Any]) -> None:
        from net.signalling import new_room_id

        from ..room import HostRoom

        if not bool(window.navigator.onLine):
            el("setup-error").textContent = OFFLINE
            el("setup-error").hidden = False
            return
        from net.hostkey import PrivateKey

        self.close_room()
        room = HostRoom(new_room_id(), rules, seats, {s: players.get(s, "human") for s in seats},
                        names, timer, options, self.turn_seconds, lambda p, t: None)
        online = Online(self, room, "host", key=PrivateKey.generate())
        room.send_text = online.transport.send
        self.online = online
        online.start()
        self.show_room()

    def take_table(self, table: Any, online: Online) -> None:
        """The room's match is the table now: drawn with this player's colour at bottom left."""
        self.auto.cancel()
        self.seat_table(table, online.own_seat())
        online.playing = True
        ledger = online.room.ledger
        online.table_match = None if ledger is None else ledger.room

    # -- the controller's hooks ------------------------------------------------------------

    def start_game(self, rules: str, seats: tuple[str, ...], names: dict[str, str],
                   players: dict[str, str], timer: bool, options: dict[str, Any]) -> None:
        # Only the seats that play count: an unticked seat keeps the kind chosen for it in the
        # form (so ticking it again brings it back), and an Online one there made a room that
        # no friend could join.
        playing = {seat: kind for seat, kind in players.items() if seat in seats}
        if setup.ONLINE in playing.values():
            self.create_room(rules, seats, names, playing,
                             timer or setup.clock_required(playing), options)
        else:
            self.close_room()
            super().start_game(rules, seats, names, players, timer, options)

    def record_dice(self) -> Any:
        """An online match's record carries its dice ledger, so `verify` can check each die."""
        room = self.online.room if self.online is not None and self.online.playing else None
        ledger = getattr(room, "ledger", None)
        return None if ledger is None else ledger.to_json()

    def save(self) -> None:
        if self.online is not None and self.online.playing:
            self.online.save()
        else:
            super().save()

    def act(self, actor: str, action: Action) -> bool:
        online = self.online
        if online is None or not online.playing or self.table is None:
            return super().act(actor, action)
        if self.table.over or self.persist.passive or self.persist.stepped_aside_now():
            return False  # (a tab that stepped aside played a quit into its memory)
        try:
            online.act(actor, action)
        except IllegalAction as exc:
            self.screen.announce(str(exc))
            return False
        self.drop_pending()
        if actor != TABLE:
            self.draw()
        return True

    def after_network(self, what: str) -> None:
        """An action was applied (here or from the host): show it as a local one is shown."""
        t = self.table
        if t is None:
            return
        self.drop_pending()
        self.auto.cancel()
        room = self.online.room if self.online is not None else None
        if what == "sync":
            self.screen.forget_layout(t)
        elif room is not None:
            self.screen.happened(room.events)
            # a person here who rolled has seen the notice over the board: it goes, as at a
            # local table (it stood over the tokens they were to play for its whole time)
            last = t.record.actions[-1] if t.record.actions else None
            rolled_here = last is not None and last.type == "roll" \
                and room.turn_before is not None and t.kind(room.turn_before) == "human"
            self.show_notices(t, room.events, rolled_here=rolled_here)
            if t.seat_to_act != room.turn_before:  # the handover, as for a local action
                self.die.turn_passed()
                if t.local_person_to_act():  # (a phone buzzed only for a local game's turn)
                    self.sound.vibrate([35])
        self.draw()
        told = " ".join(t.told) if what == "action" else ""
        rolled = bool(told) and room is not None and any(e.get("type") == "rolled"
                                                         for e in room.events)
        passed = room is not None and what == "action" and t.seat_to_act != room.turn_before
        # what to do next, said only when it changed, as at a local table (Controller.act): a
        # person's prompt after each of their actions, another's ("Waiting for Ada (red) to
        # play online.", "The computer is playing this turn.") once per turn; and a sync (a
        # reconnection, a resync) says it only if it is new. Both were said every time
        prompt = self.prompt(after_roll=rolled)
        if prompt == self.told_prompt and (
                what == "sync" or not passed and not t.local_person_to_act()):
            prompt = ""
        else:
            self.told_prompt = prompt
        self.announce_play(told, prompt, turn_passed=passed)
        forced = self.online.forced_quit if self.online is not None else None
        ended = roomview.ended_by_leaving(t, forced) if t.over else None
        if ended is not None:
            self.end_by_leaving(ended)
        elif forced is not None and room is not None and room.problem and what == "action" \
                and t.record.actions and t.record.actions[-1].type == "quit" \
                and t.record.actions[-1].seat == forced:
            # the match goes on without our seat: the host's doing is said over the board
            # (the quit's own words, just shown, would say that our player left)
            self.screen.show_notice(room.problem)
            self.screen.announce(room.problem)
        elif t.over:
            if self.screen.table_shown():
                self.show_winner()
        elif self.screen.table_shown() and t.local_person_to_act():
            self.screen.focus(t)
        elif self.screen.table_shown() and not self.persist.passive:
            # the token or picker button just played by keyboard is drawn away once the move
            # is applied: the focus waits on the die, as at a local table (Controller.act);
            # it fell to the page itself for the other players' whole turn
            self.screen.focus_die_if_lost()
        self.schedule()

    def away_seats(self) -> list[str]:
        # marked in the seat list and their box at the board, as on the status line: only
        # the status line and the room screen said so
        o = self.online
        self.away_drawn = [] if o is None or not o.playing or o.suspended else o.away_now()
        return self.away_drawn

    def die_state(self) -> str:
        """"rolling" while a guest's roll is on its way to the host and unanswered: the die
        kept pulsing as ready (50-300 ms here, longer on a slow network), though a press
        then sends nothing (GuestRoom.act's double-press guard holds the same action back)."""
        state = super().die_state()
        o = self.online
        if state == "ready" and o is not None and o.role == "guest" and o.playing \
                and o.room.rolling_sent():
            return "rolling"
        return state

    def play_again(self) -> tuple[str, bool]:
        """Online only the host starts a rematch (in this room, with the same seats); a
        guest's or spectator's page waits for it, and follows it into the new match."""
        o = self.online
        if o is None or not o.playing:
            return super().play_again()
        if o.suspended:  # nothing to start or follow from here: what Play here does instead
            return o.status, False
        return (REMATCH_HOST, True) if o.role == "host" else (REMATCH_GUEST, False)

    def start_rematch(self) -> None:
        """The host's Rematch: a new match in this room. The page waits on the room screen
        while the seats' devices commit their new dice chains; the new table follows."""
        o = self.online
        if o is None or o.role != "host":
            return
        if o.suspended:  # (a winner dialog that offered Rematch before this tab stepped aside)
            self.tell(o.status)
            return
        if o.room.table is None:  # (the old match's table, from Home: its rematch is on)
            self.show_room()
            return
        from ..room import Refused

        try:
            o.room.rematch(now_ms())
        except Refused as exc:
            self.tell(str(exc))
            return
        o.arm_tick()
        if o.room.table is None:
            self.show_room()

    def end_by_leaving(self, notice: str) -> None:
        """A player's leaving ended the match for everybody (the rule set's
        ``leave.ends_match``): every page of the room goes back to the start screen, saying
        who left, once (a later sync of the same ended match leaves the page where it is)."""
        o = self.online
        if o is None or o.told_ended:
            return
        o.told_ended = True
        if el("dlg-quit").open:  # asked to leave a match that has just ended: nothing to ask
            el("dlg-quit").close("cancel")
        self.go("home")
        self.screen.show_notice(notice)
        self.screen.announce(notice)

    def route(self) -> None:
        page = str(window.location.hash or "")
        if page.startswith("#room="):
            from net.hostkey import OLD_LINK, damaged_fragment, parse_fragment
            from net.signalling import is_room_id

            room, fingerprint = parse_fragment(page)
            if not is_room_id(room):
                # said, not dropped silently at Home: the friend would not know why
                self.show_refused_link(DAMAGED_LINK)
                return
            if self.online is None or self.online.id != room:
                session = _load(SESSION_KEY)
                if isinstance(session, dict) and session.get("room") == room:
                    role = str(session.get("role"))
                else:
                    # the session names the room this device opened last; a room it hosts
                    # and left for another one is still its own (Online.holds_match)
                    role = "host" if storage.get(_room_key("host", room)) is not None \
                        else "guest"
                if role == "guest":
                    # the fingerprint of the link this device first joined by holds: a
                    # link naming another key for the same room is refused, not obeyed
                    known = _guest_fingerprint(room)
                    if known is not None and fingerprint is not None \
                            and known != fingerprint:
                        self.show_refused_link(OTHER_HOST)
                        return
                    if known is None and damaged_fragment(page, is_room_id):
                        self.show_refused_link(DAMAGED_LINK)
                        return
                    fingerprint = known or fingerprint
                    if fingerprint is None:
                        self.show_refused_link(OLD_LINK)
                        return
                if self.persist.passive:
                    # a link opened in a tab that stepped aside: it takes the table first,
                    # as Start game does there, and lets go of its own room without a
                    # word (Online.leave); it let go of it by deleting the session and a
                    # lobby's saved room from under the tab that played, and the room it
                    # opened wrote over that tab's session while that tab played on
                    self.close_room()
                    self.persist.claim()
                self.open_room(role, room, _load(_room_key(role, room)), fingerprint)
                return
            self.show_room()
            return
        el("screen-room").hidden = True
        super().route()

    def _room_screen(self) -> None:
        self.leave_other_screens("room")  # Back from the table: its quit or winner dialog goes
        first = bool(el("screen-room").hidden)
        for screen_id in SCREENS:
            el(screen_id).hidden = True
        el("screen-room").hidden = False
        if first:  # the room's heading takes the focus, as another screen's does
            self.page_shown = "room"
            self.screen.focus_screen("room")

    def show_room(self) -> None:
        self._room_screen()
        if self.online is not None:
            from net.hostkey import link_fragment

            fragment = "#" + link_fragment(self.online.id, self.online.fingerprint)
            if str(window.location.hash) != fragment:
                window.history.replaceState(None, "", fragment)
        self.draw_room()

    def show_refused_link(self, message: str) -> None:
        """The room screen with only ``message`` and the way out: a link this page will not
        follow (it cannot tell the room's host from anyone else holding the link)."""
        self.close_room()
        self._room_screen()
        el("room-title").textContent = "Join the online room"
        set_text("room-status", message)
        for hidden in ("room-invite", "room-join", "btn-room-start", "btn-room-table"):
            el(hidden).hidden = True
        el("room-seats").innerHTML = ""
        el("room-hint").textContent = ""
        set_text("room-game", "")
        self.screen.announce(message)

    def draw(self) -> None:
        super().draw()
        o, t = self.online, self.table
        if o is not None and o.playing and t is not None and not self.screen.table_shown():
            note = self.home_note()
            if note is not None:
                el("resume-text").textContent = note
        self.draw_online()

    def home_note(self) -> str | None:
        """Home's note on the room's match, where the local one's would mislead: who ended it
        by leaving, or (a guest) that it waits for its host ("its clock keeps running" is
        true only while the host's page, which runs the clocks, is there)."""
        o, t = self.online, self.table
        if o is None or t is None:
            return None
        if t.over:
            return roomview.ended_by_leaving(t, o.forced_quit)
        if o.role == "guest" and not o.room.connected and not o.room.problem \
                and not o.suspended:
            return o.guest_waiting()
        return None

    def tick(self) -> None:
        super().tick()
        o = self.online
        if o is not None and o.role == "guest":
            # the room learns that this page runs (and whether it is shown): a page that was
            # frozen or hidden does not flag the host's timeouts (docs/online.md)
            o.room.alive(now_ms(), hidden=str(document.visibilityState) == "hidden")
        elif o is not None and o.role == "host":
            o.room.show_held_presence(now_ms())
        if o is None or o.role != "guest" or o.room.connected or o.suspended:
            return  # (a tab that stepped aside is not waiting: its words are aside_words)
        # the host's time away goes on: its words change every 10 s (Home stays a click away)
        if o.room.problem or o.room.closed:
            return
        text = o.guest_waiting()
        home = o.playing and not el("screen-home").hidden
        for box, shown in (("online-status", o.playing and self.screen.table_shown()),
                           ("room-status", not el("screen-room").hidden)):
            if shown and el(box).textContent != text:
                el(box).textContent = text
        note = self.home_note() if home else None
        if note is not None and el("resume-text").textContent != note:
            el("resume-text").textContent = note

    def draw_online(self) -> None:
        o = self.online
        box = el("online-panel")
        box.hidden = o is None or not o.playing or not self.screen.table_shown()
        if o is None or box.hidden:
            return
        set_text("online-status", o.status_line())
        if el("online-dice").open:
            el("online-dice-body").innerHTML = o.dice_html()

    def draw_room(self) -> None:
        """The room screen: the link and its QR code, the seats, the buttons."""
        o = self.online
        if o is None or el("screen-room").hidden:
            if o is not None and o.playing and self.screen.table_shown() \
                    and o.away_now() != self.away_drawn:
                # someone left or came back: the table's seat list and boxes say so too
                # (only the status line was drawn again at a connection's change)
                self.draw()
            else:
                self.draw_online()
            return
        room, host = o.room, o.role == "host"
        status = o.status if bool(window.navigator.onLine) else OFFLINE
        if o.suspended:  # another tab has the room's connections: nothing here is live
            status = o.status
        elif not host and room.problem:
            status = room.problem
        elif not host and room.closed:  # for good: not "Waiting for the host."
            status = room.closed
        elif not host and not room.connected:
            status = o.guest_waiting()
        set_text("room-status", status)
        link = o.link()
        el("room-invite").hidden = not host
        if host and el("room-link").value != link:
            el("room-link").value = link
            try:
                el("room-qr").innerHTML = roomview.qr_svg(link)
            except Exception as exc:  # noqa: BLE001 - the link works without its picture
                window.console.warn(f"QR code: {exc}")
        lobby = room.lobby_fields() if host else room.lobby
        you = o.own_seat() if not host else None
        # the seats the match under way has lost: listed as out, not "here"
        out = {} if room.table is None else {
            v.colour: v.status for v in room.table.scene().seats
            if v.status in ("quit", "eliminated")}
        if lobby is not None:
            seats = el("room-seats")
            focused = document.activeElement
            held = None if is_none(focused) or not seats.contains(focused) else \
                str(focused.dataset.seat or "")
            if held is not None and not held.isalpha():  # (a colour, put in a selector below)
                held = ""
            seats.innerHTML = roomview.lobby_html(
                lobby, {}, host, you, room.connected_seats() if host else room.here, out)
            if held is not None:
                # the focused seat button was drawn anew: a keyboard user keeps their place
                # (its seat's button, or the hint once it says "Your seat" and is disabled),
                # instead of falling to the top of the page
                again = seats.querySelector(f"button.take[data-seat='{held}']:not([disabled])")
                target = el("room-hint") if is_none(again) else again
                if is_none(again):
                    target.setAttribute("tabindex", "-1")
                target.focus()
        if not host and you is not None and you != o.seat_told:
            # the guest's own seat, confirmed by the host: said, as the hint changes silently
            self.screen.announce(f"You have the {you} seat.")
        o.seat_told = you
        started = lobby is not None and lobby["started"]
        set_text("room-game", roomview.game_line(lobby) if lobby is not None else "")
        if host and lobby is not None and not started and o.seats_told is not None:
            # the host's screen reader hears friends arrive (the list changes silently);
            # not the seats a restored room already had
            self.screen.announce(" ".join(roomview.seat_news(o.seats_told, lobby)))
        if lobby is not None:
            o.seats_told = {row["seat"]: row["name"] for row in lobby["seats"] if row["taken"]}
        el("room-title").textContent = "Your online room" if host else "Join the online room"
        el("room-join").hidden = host or started or lobby is None or bool(room.closed) \
            or o.suspended
        # once the match is over the host's Start is Rematch: the winner dialog's, for a host
        # whose page went Home (its person left) and came back to the room
        over = room.table is not None and room.table.over
        el("btn-room-start").hidden = not host or (started and not over)
        # (a tab that stepped aside cannot start anything: its room is the other tab's;
        # its Start and Rematch did nothing and said nothing)
        el("btn-room-start").disabled = not (host and (over or room.ready())) or o.suspended
        label = "Rematch" if over else "Start the match"
        if str(el("btn-room-start").textContent) != label:
            el("btn-room-start").textContent = label
        el("btn-room-table").hidden = room.table is None
        if o.suspended:
            el("room-hint").textContent = roomview.ASIDE_HINT
            for button in el("room-seats").querySelectorAll("button.take"):
                button.disabled = True
        elif not host and room.closed:
            el("room-hint").textContent = "Leave the room to go back to Home."
            for button in el("room-seats").querySelectorAll("button.take"):
                button.disabled = True
        elif lobby is not None and not started:
            el("room-hint").textContent = roomview.lobby_hint(
                lobby, host, you, not host and bool(room.watching))
        else:
            el("room-hint").textContent = roomview.left_hint(
                out.get(you) if you is not None else None, over)

    # -- room screen events ----------------------------------------------------------------

    def on_copy(self, event: Any) -> None:
        asyncio.ensure_future(self.copy_link())

    async def copy_link(self) -> None:
        """Copy the room's link. The browser's clipboard answers later, and may refuse (no
        permission, the page not focused, no clipboard over plain http): only then is the link
        selected for the person to copy, and "Copied." is said only once it is true (it was
        said at once, and a refusal went to the console as an unhandled rejection)."""
        link = str(el("room-link").value)
        try:
            await window.navigator.clipboard.writeText(link)
        except Exception:  # noqa: BLE001 - refused or unavailable, whatever its kind
            shown = spoken = ("The link could not be copied here: it is selected, copy it "
                              "from the box.")
            el("room-link").focus()
            el("room-link").select()
        else:
            shown, spoken = "Copied.", "Link copied."
        set_text("room-copied", shown)
        el("room-copied").hidden = False
        self.screen.announce(spoken)

    def on_share(self, event: Any) -> None:
        asyncio.ensure_future(self.share_link())

    async def share_link(self) -> None:
        """The system's share sheet; closing it (AbortError) or a refusal is no fault."""
        from .dom import js

        try:
            await window.navigator.share(js({"title": "Courtyard Ludo",
                                             "text": "Join my Ludo game",
                                             "url": str(el("room-link").value)}))
        except Exception:  # noqa: BLE001 - dismissed or unavailable
            pass

    def on_room_start(self, event: Any) -> None:
        o = self.online
        if o is None or o.role != "host" or o.suspended:
            return
        if o.room.table is not None and o.room.table.over:
            self.start_rematch()
            return
        from ..room import Refused

        try:
            o.room.start(now_ms())
        except Refused as exc:
            el("room-hint").textContent = str(exc)
            return
        o.arm_tick()
        if o.room.table is not None:
            self.go("table")

    def on_room_leave(self, event: Any) -> None:
        o = self.online
        if o is not None and o.suspended:
            self.leave_aside()
            return
        linger_ms = 0
        if o is not None and o.role == "guest" and o.room.connected and \
                not o.room.started and o.room.seat is not None:
            # leaving before the match gives the seat back (the host frees it on a watch),
            # instead of holding it "away" until the match starts and its clock runs out
            o.room.watch()
            linger_ms = CLOSED_LINGER_MS
        self.close_room(linger_ms)
        window.history.replaceState(None, "", "#home")
        self.route()

    def leave_aside(self) -> None:
        """Leave, in a tab that stepped aside: only this tab lets go of the room (its
        connections are closed already) and goes Home, still aside. The session and the saved
        room are the tab's that plays: nothing is removed (Online.leave) nor said to anybody
        (a lobby's guests, a seat given back); Play here then plays in this tab what that tab
        plays (claim), as a reload would."""
        self.close_room()
        set_text("tab-banner-text", roomview.LEFT_ASIDE)
        window.history.replaceState(None, "", "#home")
        self.route()
        self.screen.announce(roomview.LEFT_ASIDE)

    def on_take(self, event: Any) -> None:
        button = event.target.closest("button.take")
        o = self.online
        if is_none(button) or o is None or o.role != "guest" or o.suspended:
            return
        name = setup.clean_name(str(el("room-name").value)) or str(button.dataset.seat).title()
        o.room.claim(str(button.dataset.seat), name)

    def on_watch(self, event: Any) -> None:
        o = self.online
        if o is not None and o.role == "guest" and not o.suspended:
            o.room.watching = True
            o.room.watch()
            self.draw_room()

    def on_quit_closed(self, event: Any) -> None:
        o = self.online
        if o is None or not o.playing:
            super().on_quit_closed(event)
            return
        if self.screen.dialog_answer("quit") != "confirm" or self.table is None:
            return
        seat = str(el("quit-seat").value)
        t = self.table
        # "Online and computer players return to Home. On a shared device, the other players
        # keep playing": a host page with another person still in play stays at the table,
        # unless the quit ends the match for everybody (then every page of the room goes Home
        # with the notice, see end_by_leaving, when the quit is applied)
        others_here = t.people_in_play() not in ([], [seat])
        if self.act(seat, Action("quit", seat=seat)) and not others_here:
            self.go("home")

    def quit_label(self) -> str | None:
        return LEAVE_ROOM if self.spectating() else None

    def online_part(self) -> str | None:
        # a new game here lets go of the room (close_room) but not of the match: the host's
        # page is its table, a guest's seat is kept and timed (Online.holds_match)
        o, t = self.online, self.table
        if o is None or o.suspended or t is None or o.room.table is not t or t.over:
            return None
        if o.role == "guest" and (o.room.seat is None or not t.people_in_play()):
            return "watcher"  # a spectator, or its seat has left: it only watches the match
        return o.role if o.holds_match() else None

    def in_room(self) -> bool:
        return self.online is not None

    def spectating(self) -> bool:
        """A guest's page at the room's table with no seat in play there (a spectator, or a
        player whose seat has left): its Quit button leaves the room."""
        o, t = self.online, self.table
        return o is not None and o.role == "guest" and o.playing and t is not None \
            and not t.people_in_play()

    def on_quit(self, event: Any) -> None:
        o, t = self.online, self.table
        if self.spectating():
            open_dialog("leave")  # Keep watching has the focus
            return
        if o is not None and o.suspended and t is not None and not t.over:
            self.tell(o.status)  # (its quit changed only this tab's memory, and said nothing)
            return
        if o is not None and o.playing and t is not None and not t.people_in_play():
            self.tell("You have no seat in play here: there is nothing to quit. "
                      "Leave the room from its screen.")
            return
        super().on_quit(event)

    def on_leave_closed(self, event: Any) -> None:
        if self.screen.dialog_answer("leave") == "confirm" and self.online is not None:
            self.on_room_leave(event)

    def on_winner_closed(self, event: Any) -> None:
        o = self.online
        if o is None or not o.playing:
            super().on_winner_closed(event)
        elif o.role == "host" and self.screen.dialog_answer("winner") == "rematch":
            self.start_rematch()
        elif self.page_shown == "table":  # not when it closed because the player went Back
            self.go("home")

    # -- for tests and the benchmark -------------------------------------------------------

    def online_facts(self) -> dict[str, Any]:
        o = self.online
        if o is None:
            return {"room": None}
        room, t = o.room, o.room.table
        facts: dict[str, Any] = {
            "room": o.id, "role": o.role, "status": o.status_line(),
            "version": None if t is None else t.version, "over": bool(t and t.over),
            "seat": o.own_seat(), "position": None if t is None else t.position_text(),
            "rolls": len(room.throws), "bottomLeft": self.screen.bottom_left,
            "match": None if room.ledger is None else room.ledger.room,
            "first": room.first,  # the state id of the match's first position (a rematch's)
            "awayDrawn": list(self.away_drawn),  # the seats the table was last drawn away
        }
        if o.role == "host":
            facts["roundTrips"] = list(room.round_trips)
            facts["connected"] = room.connected_seats()
            facts["here"] = list(room.here_shown)  # connected, as the table says it
            facts["ready"] = room.ready()
        else:
            facts["problem"] = room.problem
            facts["notices"] = list(room.notices)
            facts["dropped"] = sorted(room.dropped)
            facts["earlyTimeouts"] = dict(room.early_timeouts)
            facts["connected"] = room.connected
        return facts

    def send_raw(self, text: str) -> None:
        """Send ``text`` as it is to the host (a guest) or to every guest (the host): the
        browser tests' forged messages."""
        o = self.online
        if o is None:
            return
        if o.role == "guest":
            o.transport.send_host(text)
        else:
            for peer in list(o.room.peers):
                o.transport.send(peer, text)


__all__ = ["OnlineController"]
