"""The online room's markup: the lobby, the link's QR code, and the Dice panel.

Pure Python (tested in CPython), like :mod:`app.panel`: data in, HTML text out. The QR code is
drawn by ``segno`` (a pure-Python QR encoder, vendored for the page by tools/vendor.py), imported
only when a room is opened.

The Dice panel is the honest answer to "are the dice rigged?": every roll of an online match
is verified by every page (net/dice.py), and the panel shows, per seat, how often each face
came up and a chi-square test of those counts against a fair die.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ludo import RULESETS, join_words, name_of
from net.record import Throw

KIND_WORDS = {"online": "online", "person": "on the host's device", "computer": "computer"}


# The page's own query parameters a room's link passes on to its guests: the connection policy
# (``ice=relay``: a network that needs the TURN relay needs it on both ends). The rest are the
# host's own: ``turn_seconds``, ``auto_delay`` and ``pace_ms`` its test and benchmark settings,
# and ``sw=off`` its development switch, which on a guest's page would remove the game's
# offline copy from that device (a friend's link must not uninstall anything).
LINK_PARAMETERS = ("ice",)


def link_query(search: str) -> str:
    """The part of the page's query (``location.search``) a room link keeps: "" or "?a=b&..."."""
    kept = [pair for pair in search.removeprefix("?").split("&")
            if pair.split("=", 1)[0] in LINK_PARAMETERS]
    return "?" + "&".join(kept) if kept else ""


def qr_svg(text: str) -> str:
    """The QR code of ``text`` as inline SVG markup (scaled by CSS)."""
    import segno

    code = segno.make(text, error="m", micro=False)
    svg: str = code.svg_inline(scale=4, dark="#1d1b26", light="#ffffff", border=2,
                               svgclass="qr", omitsize=True)
    return svg


def regularized_gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the upper tail: a series below a + 1, a continued fraction
    above it (the usual split; both converge fast there)."""
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(500):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def chi_square_p(counts: Sequence[int]) -> float | None:
    """The p-value of ``counts`` (one per equally likely outcome) under a fair die: the chance
    that a fair die gives counts at least this uneven. None with fewer than 2 outcomes or no
    throws."""
    total = sum(counts)
    k = len(counts)
    if k < 2 or total == 0:
        return None
    expected = total / k
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    return regularized_gamma_q((k - 1) / 2, statistic / 2)


def _label(value: Any) -> str:
    return str(value)


def dice_panel_html(throws: Sequence[Throw], seats: Sequence[str], names: Mapping[str, str],
                    dropped: Sequence[int] = (), recent: int = 12,
                    early: Mapping[str, int] | None = None) -> str:
    """Per seat: throws of each face, and the chi-square p-value; then the latest rolls, each
    "verified ✓", with whoever's reveal was not counted. ``early``: a guest's count, per
    seat, of the host's timeouts that came well before the turn's clock ran out (as this
    device saw them: GuestRoom.early_timeouts), said first."""
    flagged = ""
    if early:
        per_seat = ", ".join(f"<bdi>{escape(name_of(seat, names))}</bdi> {count}"
                             for seat, count in early.items())
        flagged = (f"<p class='early-timeouts'>Timeouts the host played more than 5 s before "
                   f"the clock ran out, by this device's clock: {per_seat}.</p>")
    if not throws:
        return flagged + '<p class="muted">No dice thrown yet. Every roll will be checked ' \
            'here.</p>'
    faces: tuple[Any, ...] = ()
    for throw in throws:
        if len(throw.faces) > len(faces):
            faces = throw.faces
    head = "".join(f"<th scope='col'>{escape(_label(f))}</th>" for f in faces)
    rows = []
    for seat in (*seats, None):
        mine = [t for t in throws if seat is None or t.seat == seat]
        if not mine and seat is not None:
            continue
        counts = [sum(1 for t in mine if t.value == f) for f in faces]
        p = chi_square_p(counts)
        who = "All seats" if seat is None else escape(name_of(seat, names))
        cells = "".join(f"<td>{c}</td>" for c in counts)
        fair = "—" if p is None else f"{p:.2f}"
        rows.append(f"<tr{' class=total' if seat is None else ''}><th scope='row'><bdi>{who}"
                    f"</bdi></th>{cells}<td>{len(mine)}</td><td>{fair}</td></tr>")
    table = (f"<table class='dice-counts'><caption>Throws per face, and the chance that a fair "
             f"die is this uneven (p)</caption><thead><tr><th scope='col'>Seat</th>{head}"
             f"<th scope='col'>Throws</th><th scope='col'>p</th></tr></thead>"
             f"<tbody>{''.join(rows)}</tbody></table>")
    lost = set(dropped)
    items = []
    for throw in list(throws)[-recent:][::-1]:
        note = ""
        if throw.missing:
            who = ", ".join(f"<bdi>{escape(name_of(p, names))}</bdi>" for p in throw.missing)
            note = f" (without {who})"
        if throw.roll in lost:
            note += " — your reveal was not counted"
        items.append(f"<li data-roll='{throw.roll}'>Roll {throw.roll}: "
                     f"<bdi>{escape(name_of(throw.seat, names))}</bdi> threw "
                     f"<strong>{escape(_label(throw.value))}</strong> "
                     f"<span class='verified'>verified ✓</span>{note}</li>")
    return (f"{flagged}{table}<p class='muted'>A p below 0.01 over many throws would be a sign of "
            f"unfair dice; any p is possible for a few throws.</p>"
            f"<ol class='plain dice-rolls' aria-label='Latest rolls'>{''.join(items)}</ol>")


def game_line(lobby: Mapping[str, Any]) -> str:
    """Which game the room plays, for the room screen: a friend who opens the link sees what
    they are joining ("Gilgiti, 4 players, Teams: Red + Yellow vs Green + Blue.")."""
    rules = RULESETS.get(str(lobby.get("rules")))
    seats = len(lobby.get("seats") or ())
    if rules is None:
        return ""
    options = lobby.get("options") or {}
    chosen = [option.label for option in rules.options
              if seats in option.players and options.get(option.name) is True]
    return ", ".join([f"Game: {rules.title}", f"{seats} players", *chosen]) + "."


def online_seats(lobby: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(the online seats, those of them taken) in the lobby's seat order."""
    online = [row["seat"] for row in lobby["seats"] if row["kind"] == "online"]
    taken = [row["seat"] for row in lobby["seats"] if row["kind"] == "online" and row["taken"]]
    return online, taken


def lobby_hint(lobby: Mapping[str, Any], host: bool, you: str | None, watching: bool) -> str:
    """What to do next on the room screen before the match, once every online seat is taken
    too (the hint said "when every seat is taken" after every seat was)."""
    online, taken = online_seats(lobby)
    full = len(taken) == len(online)
    if host:
        return ("Every online seat is taken: start the match." if full else
                "Send the link to your friends. Start the match when every online seat is "
                "taken.")
    if you is not None:
        return ("You have a seat. Every seat is taken: the host starts the match." if full
                else "You have a seat. The host starts the match when every seat is taken.")
    if watching:
        return "You are watching."
    if full:
        return "Every seat is taken: you can watch the match."
    return "Pick a free seat and enter your name, or watch."


def left_hint(word: str | None, over: bool = False) -> str:
    """The room screen's words, during the match, for a guest whose seat is out of it
    (``word``: the table's, "quit" or "eliminated"; None: still in it, nothing to say). The
    screen still read "Join the online room" with the seat listed as "(here)", as if the
    player who quit could take part again. Once the match is ``over`` the guest still holds
    the seat, and a rematch the host starts while the guest is here gives it back to them
    (``Room.rematch`` keeps every connected holder): "not play in it again" read as if they
    were out of the room for good."""
    if word is None:
        return ""
    why = "You quit this match" if word == "quit" else \
        "Your seat was removed from this match after five timeouts"
    if over:
        return (f"{why}, which is over now. If the host starts a rematch while you are here, "
                "you play in it.")
    return f"{why}: you can watch it at the table, but not play in it again."


def seat_news(before: Mapping[str, str], lobby: Mapping[str, Any]) -> list[str]:
    """What the host is told as friends take seats or give them back (its screen reader
    heard nothing): ``before`` is the holders' names by seat at the last telling."""
    told = []
    for row in lobby["seats"]:
        if row["kind"] == "online" and row["taken"] and row["seat"] not in before:
            told.append(f"{row['name']} ({row['seat']}) took a seat.")
        elif row["kind"] == "online" and not row["taken"] and row["seat"] in before:
            told.append(f"{before[row['seat']]} ({row['seat']}) left their seat.")
    online, taken = online_seats(lobby)
    if told and len(taken) == len(online):
        told.append("Every online seat is taken: you can start the match.")
    return told


def lobby_html(lobby: Mapping[str, Any], names: Mapping[str, str], host: bool,
               you: str | None, connected: Sequence[str] = (),
               out: Mapping[str, str] | None = None) -> str:
    """The room's seats: who holds each, who is here (``connected``: the room's latest word
    on it, which a guest hears in ``presence`` after the lobby); a guest's buttons to take a
    free one. ``out``: the seats no longer in the match under way, with the word the table
    uses ("quit", "eliminated"): such a seat is said to be out, not "here", whoever holds it
    (seed 000, rule 11: "You cannot rejoin as an active player")."""
    out = out or {}
    rows = []
    for row in lobby["seats"]:
        seat, kind = row["seat"], row["kind"]
        name = row["name"] or names.get(seat, "")
        gone = f" <span class='muted'>· {escape(out[seat])}</span>" if seat in out else ""
        if kind == "online":
            if row["taken"] and seat in out:
                who = f"<bdi>{escape(name)}</bdi>{gone}"
            elif row["taken"]:
                status = "connected" if seat in connected else "away"
                who = f"<bdi>{escape(name)}</bdi> <span class='muted'>({status})</span>"
            else:
                who = "<span class='muted'>waiting for a friend</span>"
        else:
            who = f"<bdi>{escape(name or seat.capitalize())}</bdi> <span class='muted'>" \
                  f"({KIND_WORDS.get(kind, kind)})</span>{gone}"
        button = ""
        if not host and kind == "online" and not lobby["started"] and (
                not row["taken"] or seat == you):
            label = "Your seat" if seat == you else "Take this seat"
            button = (f"<button type='button' class='take' data-seat='{escape(seat)}'"
                      f"{' disabled' if seat == you else ''}>{label}</button>")
        mine = " mine" if seat == you else ""
        rows.append(f"<li class='room-seat{mine}' data-seat='{escape(seat)}'>"
                    f"<span class='swatch {escape(seat)}' aria-hidden='true'>"
                    f"{escape(seat[:1].upper())}</span><span class='who'>"
                    f"{escape(seat.capitalize())}: {who}</span>{button}</li>")
    return f"<ul class='room-seats plain'>{''.join(rows)}</ul>"


# -- how a match ends or waits, in words every page of the room shows -----------------------


def ended_by_leaving(table: Any, forced: str | None = None) -> str | None:
    """The notice for a match that a player's leaving ended for everybody, else None.

    Rule-neutral: a rule set whose ``leave.ends_match`` is true ends the match at a ``quit``
    with no winner; the seat that left is the record's last action. Every page of the room
    (the one that left, the host, the guests, the spectators) shows these same words, except
    the page of ``forced``: this device's own seat, whose quit the host played without this
    device asking (GuestRoom.forced_quit). That page says what happened to it.
    """
    seat = table.left_by()
    if seat is None:
        return None
    if seat == forced:
        return (f"The host ended the match by making your seat, {table.name(seat)}, leave: "
                "you did not ask to leave.")
    return f"{table.name(seat)} left the game: the match has ended."


def away_words(ms: float) -> str:
    """How long, in a player's words: 10-second steps under two minutes (a status read out
    by screen readers changes at most every 10 s), then minutes, then hours and minutes."""
    seconds = max(0, int(ms // 1000))
    if seconds < 10:
        return "a few seconds"
    if seconds < 120:
        minutes, rest = divmod(seconds // 10 * 10, 60)
        parts = ([f"{minutes} min"] if minutes else []) + ([f"{rest} s"] if rest else [])
        return " ".join(parts)
    if seconds < 3600:
        return f"{seconds // 60} min"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def host_away_text(ms: float) -> str:
    """A guest's status while the host's page, which runs the match and every seat's clock,
    is away: the match waits for it (docs/online.md, "Leaving")."""
    return f"The host has been away {away_words(ms)}: the match goes on when they return."


# A tab that stepped aside from its room (another tab of this browser took the table): what
# the tab that plays does with the room now, and what this tab's Play here does
# (docs/online.md, "The game opened again in a second tab of the same browser")
ASIDE_SAME = ("This room is open in another tab of this browser. Play here brings it back to "
              "this tab.")
# Its room screen, whose buttons would act on a room it no longer plays (a host's Start the
# match or Rematch, a guest's seats): disabled, and why; and what its Leave does
ASIDE_HINT = ("This tab does not play now: nothing in this room can be started or changed "
              "from it. Leave the room leaves it in this tab only.")
# Its banner once it has left the room that way: the tab that plays keeps what it plays
LEFT_ASIDE = ("You left the room in this tab only; another tab of this browser plays now. "
              "Play here plays in this tab what that tab plays.")


def aside_text(same: bool, kept: bool, other: bool) -> str:
    """The status of a tab that stepped aside from its room. ``same``: the tab that plays has
    this room open (the session names it); ``kept``: this device still keeps the room (a
    match under way is kept when a page lets go of it, a lobby or an ended match is not);
    ``other``: the tab that plays has another room open. Play here brings a kept room back to
    this tab; a room no longer kept cannot come back, and Play here takes what the other tab
    has (its room, or this device's own game) instead. Before, every case said "This room is
    open in another tab of this browser.", which was false once that tab had opened another
    room or a game of its own."""
    if same:
        return ASIDE_SAME
    if kept:
        now = "has another online room open now" if other else "plays now, not this room"
        return f"Another tab of this browser {now}. Play here brings this room back to this tab."
    then = ("Play here opens that tab's room in this tab." if other
            else "Play here plays this device's own game in this tab.")
    return ("Another tab of this browser has left this room, which this device no longer "
            f"keeps. {then}")


def away_seats(active: Sequence[str], online: Sequence[str], here: Sequence[str],
               own: str | None) -> list[str]:
    """The seats still in the match (``active``, in play order) whose player plays online and
    is not connected now (``here``: the room's latest word on it), other than this device's
    own (``own``). Rule-neutral: a seat is away or not whatever the game; the host's and every
    guest's page mark the same seats (the host's status line alone said "Away: …", and a
    guest saw a friend's turns time out with no word why)."""
    return [seat for seat in active if seat in online and seat not in here and seat != own]


def away_text(names: Sequence[str]) -> str:
    """The status line's words for the seats ``away_seats`` gives, by their names ("Bo
    (green)"): who is away, and what that means for the match (their clock runs, so their
    turns time out); "" when nobody is."""
    if not names:
        return ""
    who, verb = join_words(names), "is" if len(names) == 1 else "are"
    return f"{who} {verb} away (disconnected): the clock runs on their turns."


def back_text(names: Sequence[str]) -> str:
    """The status line's words for seats ``away_seats`` gave that are connected again ("Bo
    (green)"): who is back, a whole sentence a screen reader reads once; "" when nobody is."""
    return f"{join_words(names)} {'is' if len(names) == 1 else 'are'} back." if names else ""
