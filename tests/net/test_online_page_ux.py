"""What a player sees and hears at an online table, checked in CPython: the page's online
controller (app.browser.online, imported against stand-in pyscript modules) fed by rooms on
the in-memory network of roomkit, with a stand-in screen that records what it is told.

Each test pins a fault a player met online: a stale notice left over the guest's tokens after
their own roll, the focus dropped to the page after a move that passes the turn, the same
"Waiting for …" said again at every sync and move (and on arriving at the table), guests never
told that a player is away, a double press answered with a red "The host refused: stale
action …", and no buzz when the turn comes to the phone's player; then (ux12) a spectator's
line losing "You are watching" while someone was away, nobody told who came back, the seat list
and boxes not marking who is away, a guest's die pulsing ready while its roll was on its way,
and a short clock's warning overwritten unheard by the move's words. (tests/e2e/
test_online_ux11.py shows the first two, and the rolling die, in real browsers.)
"""

from __future__ import annotations

import importlib
import random
import re
import sys
import types
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from roomkit import Net

from app.room import GuestRoom
from app.roomview import away_seats, away_text, back_text
from ludo import Action, legal_actions
from net import protocol
from tests import pyscript_stand_ins

BROWSER_MODULES = ("app.browser",)
FAULTS: list[Exception] = []  # what the page's code raised while a room's change was drawn


def _drop_browser_modules() -> None:
    for name in [n for n in sys.modules if n.startswith(BROWSER_MODULES)]:
        del sys.modules[name]


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """app.browser.online imported against stand-in pyscript modules, removed again after
    (the page's window and document are never reached by what these tests call)."""
    pyscript_stand_ins.install(monkeypatch, mock.MagicMock(), mock.MagicMock())
    _drop_browser_modules()
    FAULTS.clear()
    yield importlib.import_module("app.browser.online")
    _drop_browser_modules()
    assert FAULTS == []


class Screen:
    """The table's screen as the controller drives it: what it shows over the board, what it
    announces, and where it sends the focus."""

    def __init__(self) -> None:
        self.notice: str | None = None
        self.said: list[str] = []
        self.focused: str | None = None  # "table" (the die or token to play), "die" (if lost)
        self.buzzes: list[list[int]] = []  # the device's vibrations (Sound.vibrate)

    def table_shown(self) -> bool:
        return True

    def forget_layout(self, table: Any) -> None:
        pass

    def happened(self, events: Any) -> None:
        pass

    def show_notice(self, text: str, ms: float = 0, quiet: bool = False) -> None:
        self.notice = text

    def hide_notice(self) -> None:
        self.notice = None

    def announce(self, text: str, hold: bool = False) -> None:
        if text:
            self.said.append(text)

    def focus(self, table: Any, force: bool = False) -> None:
        self.focused = "table"

    def focus_die_if_lost(self) -> None:
        self.focused = "die"

    def focus_screen(self, page: str) -> None:
        self.focused = page


def page_of(module: Any, room: Any, role: str) -> tuple[Any, Screen]:
    """The online controller of a page at ``room``'s table (a guest's GuestRoom, or the
    host's HostRoom), with the room's changes wired to it as Online.changed wires them."""
    ctl = module.OnlineController.__new__(module.OnlineController)
    screen = ctl.screen = Screen()
    ctl.table = room.table
    ctl.told_prompt = ""
    ctl.selected, ctl.picker, ctl.pending_from, ctl.leaving = None, [], None, False
    ctl.persist = types.SimpleNamespace(passive=False, stepped_aside_now=lambda: False)
    ctl.auto = types.SimpleNamespace(kind=None, cancel=lambda: None)
    ctl.die = types.SimpleNamespace(turn_passed=lambda: None)
    ctl.sound = types.SimpleNamespace(vibrate=screen.buzzes.append)
    ctl.draw = lambda: None
    ctl.schedule = lambda draw=True: None
    ctl.online = types.SimpleNamespace(room=room, role=role, forced_quit=None, suspended=False)

    def changed(what: str) -> None:
        ctl.table = room.table
        if what in ("action", "sync"):
            try:
                ctl.after_network(what)
            except Exception as exc:  # the room would swallow it (a message it refuses)
                FAULTS.append(exc)
                raise

    room.on_change = changed
    return ctl, screen


def two_seats() -> tuple[Net, GuestRoom]:
    """Hana (red) hosts and plays at the host's device; Yusuf (yellow) plays online."""
    net = Net(seats=("red", "yellow"), kinds={"yellow": "online"}, names={"red": "Hana"})
    guest = net.add_guest("p1")
    guest.claim("yellow", "Yusuf")
    net.pump()
    net.host.start(net.now)
    net.pump()
    return net, guest


def host_plays(net: Net, rnd: random.Random) -> None:
    t = net.host.table
    action = Action("roll") if t.rolling else rnd.choice(legal_actions(t.state))
    net.host.act(t.seat_to_act, action, net.now)
    net.pump()
    net.now += 100


def test_a_guests_own_roll_takes_away_the_notice_over_their_tokens(online: Any) -> None:
    # "Hana (red) rolled a 4: no move." stood over the board for its whole time after Yusuf
    # rolled, hiding the tokens he was to play: a person's own roll takes it away, as at a
    # local table (Controller.show_notices' rolled_here), not only when the roll is local
    net, guest = two_seats()
    page, screen = page_of(online, guest, "guest")
    rnd = random.Random(3)
    told = 0
    for _ in range(400):
        t = net.host.table
        if t.seat_to_act == "yellow" and t.rolling and screen.notice is not None \
                and "Hana" in screen.notice:
            guest.act(Action("roll"))
            net.pump()
            assert screen.notice is None or "Hana" not in screen.notice, screen.notice
            told += 1
            if told == 3:
                return
        if t.seat_to_act == "yellow":
            view = guest.table
            guest.act(Action("roll") if view.rolling else rnd.choice(legal_actions(view.state)))
            net.pump()
            net.now += 100
        else:
            host_plays(net, rnd)
    raise AssertionError("Hana's notice never stood when Yusuf was to roll")


def test_a_move_that_passes_the_turn_online_leaves_the_focus_on_the_die(online: Any) -> None:
    # the token (or picker button) pressed with Enter is drawn away once the move comes back
    # from the host: the focus fell to the page itself for the other player's whole turn;
    # local play sends it to the die (Controller.act, Screen.focus_die_if_lost), and so does
    # the guest's page, and the host's for its own person
    net, guest = two_seats()
    page, screen = page_of(online, guest, "guest")
    rnd = random.Random(5)
    passed = 0
    for _ in range(400):
        t = net.host.table
        if t.seat_to_act == "yellow":
            view = guest.table
            moving = not view.rolling
            screen.focused = None
            guest.act(Action("roll") if view.rolling else rnd.choice(legal_actions(view.state)))
            net.pump()
            if moving and guest.table.seat_to_act != "yellow":
                assert screen.focused == "die"
                passed += 1
                if passed == 3:
                    break
        else:
            host_plays(net, rnd)
    assert passed == 3
    # the host's page, for its own person's move
    host_page, host_screen = page_of(online, net.host, "host")
    page.online.room.on_change = lambda what: None
    for _ in range(400):
        t = net.host.table
        if t.seat_to_act == "red" and not t.rolling:
            host_screen.focused = None
            host_plays(net, rnd)
            if net.host.table.seat_to_act != "red":
                assert host_screen.focused == "die"
                return
        elif t.seat_to_act == "red":
            host_plays(net, rnd)
        else:
            view = guest.table
            guest.act(Action("roll") if view.rolling else rnd.choice(legal_actions(view.state)))
            net.pump()
    raise AssertionError("red's move never passed the turn")


def test_the_same_waiting_words_are_not_said_again_at_every_sync_and_move(online: Any) -> None:
    # "Waiting for Hana (red) to play online." came after every move of Hana's turn and at
    # every sync (a reconnection, a resync), though nothing had changed: a screen reader said
    # it again each time. Said once per turn now, as a computer's turn is at a local table
    net, guest = two_seats()
    page, screen = page_of(online, guest, "guest")
    rnd = random.Random(7)
    waiting = "Waiting for Hana (red) to play online."
    while not (net.host.table.seat_to_act == "red" and net.host.table.rolling):
        view = guest.table
        guest.act(Action("roll") if view.rolling else rnd.choice(legal_actions(view.state)))
        net.pump()
    screen.said.clear()
    for _ in range(3):  # Yusuf's link drops and comes back: the host syncs him, nothing changed
        net.cut("p1")
        net.now += 2000
        net.connect("p1")
    assert screen.said.count(waiting) <= 1 and not [s for s in screen.said if s != waiting], \
        screen.said
    # Hana's turns, move by move: the waiting words only when the turn comes to her, never
    # after a move of hers that leaves her to play on (a 6: "Hana (red) rolled a 6.")
    played_on = 0
    while played_on < 3:
        if net.host.table.seat_to_act == "red":
            told = len(screen.said)
            host_plays(net, rnd)
            if net.host.table.seat_to_act == "red":
                played_on += 1
                assert not any(s.endswith(waiting) for s in screen.said[told:]), \
                    screen.said[told:]
        else:
            view = guest.table
            told = len(screen.said)
            guest.act(Action("roll") if view.rolling else rnd.choice(legal_actions(view.state)))
            net.pump()
            if net.host.table.seat_to_act == "red":  # said once, as the turn comes to her
                assert screen.said[told:] and screen.said[-1].endswith(waiting), \
                    screen.said[told:]
    # and a sync then says nothing new either
    told = len(screen.said)
    net.cut("p1")
    net.now += 2000
    net.connect("p1")
    assert screen.said[told:] == [], screen.said[told:]


def _match_of_three(yusuf_first: bool = True) -> tuple[Net, GuestRoom, GuestRoom]:
    """A started match: Hana (red) at the host, Yusuf (yellow) and Bo (green) online as
    guests p1 and p2 (Yusuf p1 unless ``yusuf_first`` is False). The net and both guests."""
    net = Net(seats=("red", "green", "yellow"), kinds={"green": "online", "yellow": "online"},
              names={"red": "Hana"})
    first, second = net.add_guest("p1"), net.add_guest("p2")
    yusuf, bo = (first, second) if yusuf_first else (second, first)
    for guest, seat, name in sorted(((yusuf, "yellow", "Yusuf"), (bo, "green", "Bo")),
                                    key=lambda row: row[0] is not first):
        guest.claim(seat, name)
    net.pump()
    net.host.start(net.now)
    net.pump()
    return net, yusuf, bo


def test_guests_are_told_who_is_away(online: Any) -> None:
    # only the host's status line said "Away: …": a guest saw its friend's seat time out turn
    # after turn with no word why
    net, yusuf, bo = _match_of_three(yusuf_first=False)
    net.cut("p2")
    line = _status_line(online, bo, "guest")
    assert line == "Yusuf (yellow) is away (disconnected): the clock runs on their turns.", line
    assert _status_line(online, net.host, "host") == line
    net.connect("p2")
    assert _status_line(online, bo, "guest") == "Connected to the host."


def _status_line(module: Any, room: Any, role: str) -> str:
    text: str = _online(module, room, role).status_line()
    return text


def _online(module: Any, room: Any, role: str) -> Any:
    """A page's Online for ``room`` (its transport and page never reached)."""
    o = module.Online.__new__(module.Online)
    o.room, o.role, o.suspended, o.status = room, role, False, "Connected."
    o.away_shown, o.back = [], None
    return o


def _three_seats() -> tuple[Net, GuestRoom, GuestRoom, GuestRoom]:
    """Hana (red) at the host's device, Bo (green) and Yusuf (yellow) online, and a
    spectator."""
    net = Net(seats=("red", "green", "yellow"), kinds={"green": "online", "yellow": "online"},
              names={"red": "Hana"})
    bo, yusuf, watcher = net.add_guest("p1"), net.add_guest("p2"), net.add_guest("p3")
    bo.claim("green", "Bo")
    yusuf.claim("yellow", "Yusuf")
    watcher.watching = True
    watcher.watch()
    net.pump()
    net.host.start(net.now)
    net.pump()
    return net, bo, yusuf, watcher


def test_a_spectator_is_told_it_watches_while_someone_is_away(online: Any) -> None:
    # the away sentence replaced "You are watching: …": a spectator's line read like a
    # player's waiting for a friend, and never said again that it only watched
    net, bo, yusuf, watcher = _three_seats()
    page = _online(online, watcher, "guest")
    assert page.status_line() == "You are watching: connected to the host."
    net.cut("p2")
    assert page.status_line() == (
        "You are watching: connected to the host. Yusuf (yellow) is away (disconnected): "
        "the clock runs on their turns."), page.status_line()


def test_a_player_back_from_away_is_named_once_then_the_usual_status(online: Any) -> None:
    # the host's line fell back to a bare "Connected." when Yusuf came back: a screen reader
    # heard no name. "Yusuf (yellow) is back." now, until the table's next action
    net, bo, yusuf, watcher = _three_seats()
    pages = {"host": _online(online, net.host, "host"), "bo": _online(online, bo, "guest"),
             "watcher": _online(online, watcher, "guest")}
    net.cut("p2")
    for page in pages.values():
        assert "Yusuf (yellow) is away" in page.status_line()
    net.connect("p2")
    net.pump()
    assert pages["host"].status_line() == "Yusuf (yellow) is back."
    assert pages["host"].status_line() == "Yusuf (yellow) is back."  # (drawn again: the same)
    assert pages["bo"].status_line() == "Yusuf (yellow) is back."
    assert pages["watcher"].status_line() == \
        "You are watching: connected to the host. Yusuf (yellow) is back."
    host_plays(net, random.Random(23))  # the next action: the usual words again
    assert pages["host"].status_line() == "Connected."
    assert pages["bo"].status_line() == "Connected to the host."
    assert pages["watcher"].status_line() == "You are watching: connected to the host."


def test_away_seats_are_the_online_seats_in_play_whose_player_is_not_connected() -> None:
    active = ("red", "green", "yellow", "blue")
    online = ("green", "yellow", "blue")
    assert away_seats(active, online, here=("yellow",), own="green") == ["blue"]
    assert away_seats(active, online, here=("yellow", "blue"), own="green") == []
    # a seat out of the match, or played at the host's device, is never away
    assert away_seats(("red", "green"), online, here=(), own=None) == ["green"]
    assert away_text(["Bo (green)"]) == \
        "Bo (green) is away (disconnected): the clock runs on their turns."
    assert away_text(["Bo (green)", "Yusuf (yellow)"]) == \
        "Bo (green) and Yusuf (yellow) are away (disconnected): the clock runs on their turns."
    assert away_text([]) == ""
    assert back_text(["Bo (green)"]) == "Bo (green) is back."
    assert back_text(["Bo (green)", "Yusuf (yellow)"]) == "Bo (green) and Yusuf (yellow) are back."
    assert back_text([]) == ""


def test_a_double_press_online_is_one_roll_and_no_refusal(online: Any) -> None:
    # Enter pressed twice on the die (or a double click) before the host's answer came sent the
    # roll twice: the host queued the second behind the first's reveals, then refused it, and
    # the guest's board said in red "The host refused: stale action: it was meant for position
    # 3, the table is at 4" after a roll that had worked. The same action again, while the
    # first is on its way, is not sent
    net, guest = two_seats()
    page, screen = page_of(online, guest, "guest")
    rnd = random.Random(11)
    rolls = 0
    while rolls < 3:
        if net.host.table.seat_to_act != "yellow":
            host_plays(net, rnd)
            continue
        view = guest.table
        action = Action("roll") if view.rolling else rnd.choice(legal_actions(view.state))
        version = view.version
        guest.act(action)
        guest.act(action)  # pressed again before the host answered
        net.pump()
        net.now += 100
        assert guest.table.version == version + 1
        rolls += action.type == "roll"
    assert guest.notices == [] and net.refused == [], (guest.notices, net.refused)
    assert screen.notice is None or "refused" not in screen.notice


def test_a_phone_buzzes_when_the_turn_comes_to_its_player_online(online: Any) -> None:
    # "a short buzz when the turn passes to a person here" (docs/ui.md) held for a local game
    # only: a guest waiting for a friend's turn online, the phone in a pocket, felt nothing
    net, guest = two_seats()
    page, screen = page_of(online, guest, "guest")
    rnd = random.Random(13)
    turns = 0
    while turns < 3:
        if net.host.table.seat_to_act == "yellow":
            view = guest.table
            guest.act(Action("roll") if view.rolling else rnd.choice(legal_actions(view.state)))
            net.pump()
            continue
        screen.buzzes.clear()
        while net.host.table.seat_to_act != "yellow":
            if screen.buzzes:  # not while Hana plays
                raise AssertionError(screen.buzzes)
            host_plays(net, rnd)
        assert screen.buzzes == [[35]]
        turns += 1


def test_arriving_at_the_table_says_the_waiting_words_once(online: Any) -> None:
    # the table shown (a page that opens at it, Back to it) says whose turn it is and the
    # prompt: "Hana (red)'s turn (online). Waiting for Hana (red) to play online."; Hana's
    # first move then said "Waiting for Hana (red) to play online." again
    net, guest = two_seats()
    page, screen = page_of(online, guest, "guest")
    rnd = random.Random(17)
    for _ in range(200):
        while not (net.host.table.seat_to_act == "red" and net.host.table.rolling):
            if net.host.table.seat_to_act == "red":
                host_plays(net, rnd)
                continue
            view = guest.table
            guest.act(Action("roll") if view.rolling else rnd.choice(legal_actions(view.state)))
            net.pump()
        page.told_prompt = ""  # (a page just opened: nothing said yet)
        page.focus_page("table")
        assert screen.said[-1] == \
            "Hana (red)'s turn (online). Waiting for Hana (red) to play online.", screen.said
        told = len(screen.said)
        host_plays(net, rnd)  # her roll
        if net.host.table.seat_to_act == "red":  # she plays on: said without the prompt
            assert not any(s.endswith("to play online.") for s in screen.said[told:]), \
                screen.said[told:]
            return
    raise AssertionError("Hana never played on in her turn")


def test_an_action_whose_answer_was_lost_can_be_sent_again_after_a_sync() -> None:
    # the same action again is held back only while the first may still be answered: once
    # the guest asked for the record (messages were lost, the host never played it), pressing
    # again sends it, or the match stood still for that seat
    net, guest = two_seats()
    _to_yusufs_roll(net, guest, random.Random(19))
    version = net.host.table.version
    guest.act(Action("roll"))
    net.queue.clear()  # lost on the way
    guest.act(Action("roll"))  # held back: it may still come
    assert not net.queue
    net.now += 5000
    guest.ask_sync()
    net.pump()
    guest.act(Action("roll"))
    net.pump()
    assert net.host.table.version > version


def _guest_at_the_die(online: Any, guest: GuestRoom) -> Any:
    """The guest's page at its table, its die drawn as ready whenever the table lets it roll
    (the page's die_state then says whether the roll is on its way)."""
    page, _ = page_of(online, guest, "guest")
    _playing(online, page, guest, "guest")
    page.die = types.SimpleNamespace(state=lambda: "ready", turn_passed=lambda: None)
    page.drop_pending = lambda: None
    return page


def _to_yusufs_roll(net: Net, guest: GuestRoom, rnd: random.Random) -> None:
    """Play on (the host's seat at random, the guest's too) until Yusuf (yellow) is to roll."""
    while net.host.table.seat_to_act != "yellow" or not net.host.table.rolling:
        if net.host.table.seat_to_act == "red":
            host_plays(net, rnd)
        else:
            guest.act(Action("roll") if guest.table.rolling
                      else rnd.choice(legal_actions(guest.table.state)))
            net.pump()
            net.now += 100
            guest.alive(net.now)


def test_a_roll_the_host_never_answers_is_chased_and_the_die_comes_back(online: Any) -> None:
    # a host that neither played nor refused a guest's roll (its page stuck, a message lost
    # inside it) left the guest's die "rolling", pressing it sending nothing, until a
    # reconnect or the seat's timeout: the guest asks for the record again after ANSWER_MS,
    # and says so over the board the second time
    from app.room import ANSWER_MS

    net, guest = two_seats()
    page = _guest_at_the_die(online, guest)
    rnd = random.Random(23)
    _to_yusufs_roll(net, guest, rnd)
    version = net.host.table.version
    guest.alive(net.now)
    assert page.act("yellow", Action("roll"))
    guest.alive(net.now)  # (the page's clock, a quarter of a second at most after the press)
    net.queue.clear()  # the host's page never takes it up
    assert page.die_state() == "rolling"
    net.now += ANSWER_MS - 100
    guest.alive(net.now)
    assert not net.queue and page.die_state() == "rolling"  # not chased too soon
    net.now += 100
    guest.alive(net.now)
    assert [kind for to, _, text in net.queue for kind in re.findall(r'"type":"(\w+)"', text)
            ] == ["resync"]
    net.queue.clear()  # that host ignores this too
    net.now += ANSWER_MS
    guest.alive(net.now)
    assert guest.to_show == ("The host has not answered your roll for 10 seconds: asked it "
                             "for the game again.")
    net.pump()  # now it answers the second ask with the record
    assert page.die_state() == "ready"
    assert page.act("yellow", Action("roll"))  # the press goes again, and is played
    net.pump()
    assert net.host.table.version > version
    for _ in range(3):  # answered: nothing more is asked
        net.now += ANSWER_MS
        guest.alive(net.now)
    assert not net.queue


def test_a_host_that_answers_is_never_chased() -> None:
    # a whole match at the host's usual pace asks for no record and says nothing
    net, guest = two_seats()
    rnd = random.Random(31)
    resyncs = 0
    while not net.host.table.over:
        guest.alive(net.now)
        if net.host.table.seat_to_act == "red":
            host_plays(net, rnd)
            continue
        guest.act(Action("roll") if guest.table.rolling
                  else rnd.choice(legal_actions(guest.table.state)))
        resyncs += sum('"type":"resync"' in text for _, _, text in net.queue)
        net.pump()
        net.now += 100
    assert resyncs == 0 and guest.notices == []


def _playing(module: Any, ctl: Any, room: Any, role: str) -> Any:
    """``ctl`` with a real Online for ``room``, at its table (page_of's stand-in has none of
    Online's methods)."""
    o = _online(module, room, role)
    o.playing = True
    ctl.online = o
    return o


@pytest.mark.parametrize("rules", ["courtyard", "classic", "royal", "gilgiti"])
def test_an_away_seat_is_marked_in_the_seat_list_and_its_box(rules: str) -> None:
    # only the status line and the room screen said who was away: the seat list beside the
    # board and the seat's box at its corner looked the same as a connected player's
    from html import unescape

    from app import panel
    from app.table import Table

    table = Table.new(rules, ("red", "yellow"), 3, now=0.0, names={"yellow": "Yusuf"})
    scene = table.scene()
    html = panel.seats_html(table, scene, away=["yellow"])
    classes = {colour: cls.split() for cls, colour in
               re.findall(r'<li class="([^"]*)" data-colour="(\w+)"', html)}
    assert "away" in classes["yellow"] and "away" not in classes["red"]
    texts = {colour: unescape(re.sub(r"<[^>]*>", " ", li)) for colour, li in re.findall(
        r'data-colour="(\w+)">(.*?)</li>', html)}
    assert re.search(r"\baway\b", texts["yellow"]) and not re.search(r"\baway\b", texts["red"])
    assert ">away<" in panel.pod_html(table, scene, "yellow", away=True).split("pod-sub")[0]
    assert ">away<" not in panel.pod_html(table, scene, "red")
    assert "away" not in panel.seats_html(table, scene)  # (a local table: nobody is)


def test_the_table_is_drawn_with_the_away_seats_marked(online: Any) -> None:
    net, bo, yusuf, watcher = _three_seats()
    page, screen = page_of(online, bo, "guest")
    _playing(online, page, bo, "guest")
    drawn: list[Any] = []
    screen.draw_table = lambda *args, **kw: drawn.append(list(args) + list(kw.values()))
    page.refresh_quit = page.tick = lambda: None
    page.die = types.SimpleNamespace(state=lambda: "off")
    page.picker = []
    net.cut("p2")
    online.Controller.draw(page)
    assert drawn and ["yellow"] in drawn[-1], drawn
    net.connect("p2")
    net.pump()
    online.Controller.draw(page)
    assert ["yellow"] not in drawn[-1] and [] in drawn[-1], drawn


def test_the_table_is_drawn_again_when_someone_goes_away_or_comes_back(online: Any) -> None:
    # a connection's change drew only the status line: the seat list and the boxes at the
    # board kept showing everyone there until the next move
    elements: dict[str, Any] = {"screen-room": mock.MagicMock(hidden=True)}
    sys.modules["pyscript"].document.getElementById.side_effect = \
        lambda name: elements.setdefault(name, mock.MagicMock())
    net, bo, yusuf, watcher = _three_seats()
    for room, role in ((bo, "guest"), (net.host, "host")):
        page, screen = page_of(online, room, role)
        _playing(online, page, room, role)
        drawn: list[list[str]] = []
        page.draw = lambda: drawn.append(page.away_seats())  # noqa: B023 - (called at once)
        page.away_drawn = []
        page.draw_room()
        assert drawn == []  # (nothing changed: the status line alone)
        net.now += 1000  # (a second apart: within what the status line may say at once)
        net.cut("p2")
        page.draw_room()
        assert drawn == [["yellow"]], drawn
        net.now += 1000
        net.connect("p2")
        net.pump()
        page.draw_room()
        assert drawn == [["yellow"], []], drawn


def test_a_guests_die_shows_its_roll_on_its_way_until_the_host_answers(online: Any) -> None:
    # the die pulsed as ready while the roll went to the host and back (50-300 ms here,
    # longer on a slow network), as if the press had not been taken; a press meanwhile
    # still sends nothing (the double-press guard)
    net, guest = two_seats()
    page = _guest_at_the_die(online, guest)
    rnd = random.Random(29)
    rolls = 0
    while rolls < 3:
        if net.host.table.seat_to_act != "yellow":
            host_plays(net, rnd)
            continue
        view = guest.table
        if not view.rolling:
            guest.act(rnd.choice(legal_actions(view.state)))
            net.pump()
            assert page.die_state() == "ready"  # (a move sent is no roll)
            continue
        assert page.die_state() == "ready"
        assert page.act("yellow", Action("roll"))
        assert page.die_state() == "rolling"
        sent = len(net.queue)
        page.act("yellow", Action("roll"))  # pressed again: nothing more goes
        assert len(net.queue) == sent and page.die_state() == "rolling"
        net.pump()
        net.now += 100
        assert page.die_state() == "ready", guest.table.version  # answered
        rolls += 1
    assert guest.notices == [] and net.refused == []


def test_a_short_clocks_warning_and_the_move_that_starts_the_turn_are_both_heard(
        online: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # with a turn clock of 10 s or less (?turn_seconds), the draw right after the move that
    # starts a person's turn says "9 seconds left for Ada (red).", and the move's own
    # announcement, in the same task, overwrote it in the live region: it was never heard.
    # Local play and online alike (Controller.tick, Controller.announce_play)
    from app.table import Table

    controller = sys.modules["app.browser.controller"]
    screen_module = sys.modules["app.browser.screen"]
    window = sys.modules["pyscript"].window
    region = sys.modules["pyscript"].document.getElementById.return_value
    region.textContent = ""
    monkeypatch.setattr(controller, "now_ms", lambda: 1000.0)
    ctl = online.OnlineController.__new__(online.OnlineController)
    ctl.table = Table.new("courtyard", ("red", "yellow"), 3, now=0.0, names={"red": "Ada"},
                          turn_seconds=10)
    ctl.screen = types.SimpleNamespace(draw_clock=lambda *args: None, table_shown=lambda: True,
                                       announce=screen_module.Screen.announce)
    ctl.persist = types.SimpleNamespace(passive=False)
    ctl.online, ctl.warned, ctl.turn_seconds = None, None, 10
    seat = ctl.table.seat_to_act
    name = ctl.table.name(seat)
    ctl.tick()  # (the draw after the move)
    ctl.announce_play("Yusuf (yellow) moved.", f"{name}'s turn. Tap the die.", True)
    said = str(region.textContent)
    assert said == f"Yusuf (yellow) moved. {name}'s turn. Tap the die. 9 seconds left for " \
        f"{name}.", said
    # the task ends: the next sentence replaces the region's words, as before
    window.setTimeout.call_args[0][0]()
    ctl.screen.announce("Ada (red) rolled a 4.")
    assert str(region.textContent) == "Ada (red) rolled a 4."


def test_a_rolling_die_says_so_in_the_rule_sets_words() -> None:
    from app import panel
    from app.table import Table

    for rules, verb in (("courtyard", "Rolling"), ("royal", "Throwing")):
        table = Table.new(rules, ("red", "yellow"), 3, now=0.0, names={"yellow": "Yusuf"})
        assert panel.die_label(table, "yellow", "rolling", 4) == \
            f"{verb} the die for Yusuf (yellow)…"
        assert panel.die_shown("rolling", 4) == panel.WAITING_FACE  # (not the last roll's)


def _lobby_from_host(net: Net, rows: list[tuple[str, str, bool]]) -> bool:
    """A lobby the host sends its guest p1 during the match: (seat, kind, here) rows, the
    match's own game and clock, started, p1's seat as its own."""
    seats = [{"seat": s, "kind": k, "name": s.capitalize(), "taken": True, "here": h}
             for s, k, h in rows]
    text = protocol.encode("lobby", net.host.peers["p1"].counter.next(), rules="courtyard",
                           options={}, timer=False, seats=seats, started=True, you="yellow")
    return net.guests["p1"].receive(text, net.now)


def test_a_lobby_sent_during_the_match_does_not_change_who_plays_online(online: Any) -> None:
    # the guest's status line took the online seats from the host's latest lobby, which a host
    # may send at any time: one listing Hana's seat (played at the host's own device) as online
    # and not here made Yusuf's page say "Hana (red) is away (disconnected)", and one leaving
    # out an online seat hid its player's absence. The match's online seats are its dice
    # participants, fixed when it began (and checked against the lobby then)
    # (and such a lobby is refused with words that blame it, not the next sync's record)
    net, guest = two_seats()
    assert not _lobby_from_host(net, [("red", "online", False), ("yellow", "online", True)])
    assert guest.problem == ("The host's lobby says red and yellow are played online, but in "
                             "the match under way yellow is: it is refused.")
    assert _status_line(online, guest, "guest") == guest.problem
    net3, yusuf, bo = _match_of_three()
    net3.cut("p2")
    away = "Bo (green) is away (disconnected): the clock runs on their turns."
    assert _status_line(online, yusuf, "guest") == away
    assert not _lobby_from_host(net3, [("red", "person", True), ("yellow", "online", True)])
    assert yusuf.problem == ("The host's lobby says yellow is played online, but in the match "
                             "under way green and yellow are: it is refused.")
    assert _status_line(online, yusuf, "guest") == yusuf.problem
    # an honest host's lobby during the match, its seats as they began, is taken
    yusuf.problem = None
    assert _lobby_from_host(net3, [("red", "person", True), ("green", "online", False),
                                   ("yellow", "online", True)])
    assert _status_line(online, yusuf, "guest") == away


def test_a_host_flapping_presence_does_not_flood_the_status_line(online: Any) -> None:
    # the table's status line is a live region (role=status): since guests are told who is
    # away, every presence that changed who is connected changed it, and a host sending
    # "connected: [yellow]" and "connected: [yellow, green]" in turn (or a link that flaps)
    # had a screen reader say "Bo (green) is away …" / "Connected to the host." dozens of
    # times a second. The host's word on who is connected now reaches the status line at most
    # once a second after a short burst (as notices do); the latest word is shown once due
    net, yusuf, bo = _match_of_three()
    redrawn: list[str] = []
    yusuf.on_change = redrawn.append
    lines = [_status_line(online, yusuf, "guest")]
    for i in range(60):  # 1.2 s of a presence every 20 ms, Bo away and back in turn
        net.now += 20
        text = protocol.encode("presence", net.host.peers["p1"].counter.next(),
                               connected=["yellow"] if i % 2 == 0 else ["green", "yellow"])
        assert yusuf.receive(text, net.now)
        line = _status_line(online, yusuf, "guest")
        if line != lines[-1]:
            lines.append(line)
    assert len(lines) <= 6, lines
    # the last word (Bo back) is shown at the page's next tick once due, and drawn
    net.now += 1000
    yusuf.alive(net.now)
    assert _status_line(online, yusuf, "guest") == "Connected to the host."
    assert redrawn[-1] == "presence"


def test_a_guest_flapping_its_connection_does_not_flood_the_hosts_status_line(
        online: Any) -> None:
    # the host's side of the same: a guest (hostile, or on a flaky link) dropping and calling
    # again and again changed the host's status line (a live region) and seat boxes with each
    # connection, "Bo (green) is away ..." / "Bo (green) is back." many times a second
    net, yusuf, bo = _match_of_three()
    host = net.host
    redrawn: list[str] = []
    host.on_change = redrawn.append
    page = _online(online, host, "host")
    lines = [page.status_line()]
    for i in range(61):  # 1.2 s: Bo's connection cut and made again every 20 ms, cut last
        net.now += 20
        if i % 2 == 0:
            net.cut("p2")
        else:
            net.connect("p2")
        line = page.status_line()
        if line != lines[-1]:
            lines.append(line)
    assert len(lines) <= 6, lines
    # the last word (Bo gone) is shown at the page's next tick once due
    net.now += 1000
    host.show_held_presence(net.now)
    assert host.here_shown == host.connected_seats() == ["yellow"]
    assert page.status_line() == "Bo (green) is away (disconnected): the clock runs on their turns."


def test_the_hosts_table_is_drawn_again_when_a_guest_that_was_away_says_hello(
        online: Any) -> None:
    # the host learns that a guest is back from its hello, and shows it (here_shown) once the
    # message is handled: the table must be drawn after that. It was drawn only before (the
    # hello's own changes), so the host's seat list and Bo's box said "away" until the next
    # action while its status line said "Bo (green) is back." (a browser test caught it, under
    # load: the guest's later messages used to come soon enough to draw it again)
    net, yusuf, bo = _match_of_three()
    host = net.host
    drawn_with: list[list[str]] = []
    host.on_change = lambda what: drawn_with.append(list(host.here_shown))
    net.cut("p2")
    assert drawn_with[-1] == ["yellow"]
    net.now += 5000
    del drawn_with[:]
    net.host.connect("p2")
    net.links.add("p2")
    bo.connect()  # Bo's hello, alone: nothing else of Bo's comes after it
    hello = [(peer, text) for to, peer, text in net.queue if to == "host"]
    net.queue.clear()
    assert len(hello) == 1 and host.receive(*hello[0], net.now)
    assert sorted(host.here_shown) == ["green", "yellow"]
    assert drawn_with and sorted(drawn_with[-1]) == ["green", "yellow"], drawn_with


def test_a_hostile_hosts_messages_never_break_the_guests_table_or_misname_the_away(
        online: Any) -> None:
    # a bounded, seeded fuzz of what a hostile host may send a guest during a match, between
    # the moves of a real one: lobbies (seats of any kind, here or not, odd names), presence
    # of any seats, refusals of any code, reveals said dropped, and at the end forged moves at
    # any version. The page's code never raises (the room would keep it as "could not
    # check"), and the status line never calls the host's own seat (Hana, red) or the guest's
    # own (Yusuf, yellow) away: only Bo (green) plays online elsewhere. It failed before
    # GuestRoom.online_seats ("Hana (red) is away (disconnected) …" after a lobby)
    rnd = random.Random(66)
    odd_names = ["", "\u202e", "a" * 40, "\u0000x", "<b>x</b>", "Bo and Al", "\ud800", " "]
    colours = ["red", "green", "yellow", "blue"]
    accepted = 0
    for _game in range(4):
        net, yusuf, bo = _match_of_three()
        page_of(online, yusuf, "guest")
        for step in range(120):
            net.now += rnd.choice((20, 100, 1500))
            if net.host.table.over:
                break
            if rnd.random() < 0.5:  # the match goes on
                net.play_one(rnd)
                net.pump()
                continue
            # (a forged move is a problem the status line then keeps saying: the last steps)
            kind = rnd.choice(("lobby", "presence", "refused", "dropped")
                              + (("action",) if step >= 100 else ()))
            fields: dict[str, Any]
            if kind == "lobby":
                rows = [{"seat": s, "kind": rnd.choice(("online", "person", "computer")),
                         "name": rnd.choice(odd_names), "taken": rnd.random() < 0.5,
                         "here": rnd.random() < 0.5}
                        for s in rnd.sample(colours, rnd.randrange(5))]
                fields = {"rules": "courtyard", "options": {}, "timer": False, "seats": rows,
                          "started": True, "you": "yellow"}  # (another is a problem)
            elif kind == "presence":
                fields = {"connected": rnd.sample(colours, rnd.randrange(5))}
            elif kind == "refused":
                fields = {"code": rnd.choice(("stale-action", "illegal", "too-many", "x")),
                          "message": rnd.choice(odd_names)}
            elif kind == "action":
                view = yusuf.table
                fields = {"version": yusuf.first + view.version + rnd.choice((0, 0, 1, -1, 5)),
                          "actor": rnd.choice(colours), "left": None,
                          "action": rnd.choice(({"type": "roll"}, {"type": "move", "token": 0},
                                                {"type": "timeout"}))}
            else:
                fields = {"roll": rnd.randrange(-3, 50)}
            text = protocol.encode(kind, net.host.peers["p1"].counter.next(), **fields)
            accepted += yusuf.receive(text, net.now)
            yusuf.alive(net.now)
            line = _status_line(online, yusuf, "guest")
            assert "Hana" not in line and "Yusuf" not in line, line
            assert not any("could not check" in n for n in yusuf.notices), yusuf.notices
    assert accepted > 50  # (the fuzz reached the page, not only the protocol's checks)


def test_a_quit_the_host_never_answers_is_called_a_quit() -> None:
    # the chase called every action but a roll "your move": a guest that left with its seat
    # was told "The host has not answered your move for 10 seconds"
    from app.room import ANSWER_MS

    net, guest = two_seats()
    guest.alive(net.now)
    guest.act(Action("quit", seat="yellow"))
    guest.alive(net.now)
    net.queue.clear()  # the host's page never takes it up
    for _ in range(2):
        net.now += ANSWER_MS
        guest.alive(net.now)
    assert guest.to_show == ("The host has not answered your quit for 10 seconds: asked it "
                             "for the game again.")


def test_a_roll_pressed_before_a_frozen_page_s_first_tick_is_not_chased_at_once() -> None:
    # the chase was timed from the last moment the page ran before the press: a page frozen a
    # minute (a phone locked), its roll pressed before its clock's first tick, asked for the
    # record at that tick, a moment after the roll went, and said "not answered for 10
    # seconds" 5 s later
    from app.room import ANSWER_MS

    net, guest = two_seats()
    rnd = random.Random(23)
    _to_yusufs_roll(net, guest, rnd)
    guest.alive(net.now)
    net.now += 60_000  # frozen
    guest.act(Action("roll"))
    net.queue.clear()  # (the host is slow to take it up)
    net.now += 250
    guest.alive(net.now)
    assert not net.queue  # no resync a quarter of a second after the roll
    net.now += ANSWER_MS
    guest.alive(net.now)
    assert [kind for to, _, text in net.queue for kind in re.findall(r'"type":"(\w+)"', text)
            ] == ["resync"]
    assert guest.to_show is None
