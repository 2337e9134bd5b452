"""An online room: the host's side and a guest's side of the game protocol, transport-free.

Host-authoritative star: every guest talks to the host only. The host's :class:`HostRoom` runs
the match (a :class:`~app.table.Table` whose online seats are ``remote`` agents), checks every
message, applies actions with the engine and broadcasts them; each guest's :class:`GuestRoom`
applies every broadcast action with its own engine and its own copy of the dice ledger, so a
forged or buggy host is caught, not followed. Both are plain objects: the transport hands them
text (``receive``) and they hand text back through the ``send`` function they were given, so
tests run whole matches in memory and the page runs the same code over WebRTC.

What happens, in order (docs/online.md, "The game protocol", has every message):

1. A guest connects and says ``hello`` with its device's secret for this room. The host answers
   with the ``lobby`` (the seats and who holds them), and a ``sync`` once the match runs. A
   secret that holds a seat gets that seat back: that is how a reload, a lost network or a
   reopened link put a player back in their seat.
2. The guest ``claim``s a free online seat with a name and the commitment of its dice chain, or
   ``watch``es.
3. When every online seat is taken the host starts: ``begin`` (the participants and their
   commitments), then roll 0, the match's seed, drawn like every die: ``open``, each
   participant's ``reveal``, ``settled``. Then a ``sync`` gives everyone the record.
4. Play: a seat's ``act`` (with the position id it acted on) is applied by the host's table or
   refused (``refused``, nothing changed); a chance action first opens the next roll and waits
   for the reveals (all of them, or ``REVEAL_TIMEOUT_MS``). The host broadcasts ``settled`` and
   ``action``; each guest checks and applies both and answers ``ack``.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ludo import (
    Action,
    IllegalAction,
    LudoError,
    apply,
    auto_action,
    chance_outcomes,
    is_chance,
    join_words,
    quote,
    rules_for,
    to_act,
)
from ludo.notation import Record, record_from_json, record_to_json
from net import protocol
from net.dice import (
    CHAIN_LENGTH,
    MAX_CHAINS,
    RENEW_MARGIN,
    Commitment,
    DiceError,
    DiceLedger,
    RevealCollector,
    SecretChain,
)
from net.protocol import Counter, Message, ProtocolError, clean_name, clean_text
from net.record import (
    SEED_RANGE,
    LedgerDice,
    RollNeeded,
    Throw,
    needs_chance,
    replay_verified,
    seed_of,
    throw_of,
)
from net.signalling import is_room_id

from .savegame import SaveError, Session, check_deadline, check_screen
from .table import COMPUTER_LEVELS, TABLE, Due, Table

HOST = "host"
"""The host's participant id in the dice (it contributes for its local and computer seats)."""
REVEAL_TIMEOUT_MS = 1500.0  # the host settles a roll without the reveals still missing then
QUEUE_LIMIT = 8  # actions held while a roll is being revealed, all seats together
QUEUE_PER_SEAT = 2  # of which one seat may hold at most this many (its quit always fits)
SYNC_INTERVAL_MS = 3000.0  # at most one sync per guest asking (resync, watch) in this time
GUEST_SYNC_GAP_MS = 1000.0  # a guest reads at most one sync a connection in this time
EARLY_TIMEOUT_MS = 5000.0  # a timeout this much before the guest's own deadline is flagged
# A guest's action that the host has neither played nor refused this long after it was sent
# (the connection up, the position unchanged) is chased: the guest asks for the record again,
# which answers it either way. A host answers in well under a second (a roll waits at most
# REVEAL_TIMEOUT_MS for reveals); one that said nothing left the guest's die "rolling", a
# press sending nothing, until a reconnect or the seat's timeout (30 s by default).
ANSWER_MS = 5000.0
# After this many chases of one action unanswered, the guest is told over the board.
CHASES_TOLD = 2
# A gap this long between two moments this page ran (a message, a tick of its clock) means it
# was suspended or throttled (a phone locked, a tab hidden): messages handled then, and within
# this long after, may be a backlog, and deadlines worked out from them are not evidence.
STALL_MS = 3000.0
NOTICE_GAP_MS = 1000.0  # at most one notice from the host's messages over the board this often
# Changes of who is connected that a guest's table shows (its status line, a live region) at
# once; then one each NOTICE_GAP_MS. A host's presence flapping, or a flaky link, had a screen
# reader say "Bo (green) is away ..." and "Connected to the host." dozens of times a second.
HERE_BURST = 3.0
# Seat changes (a claim or a watch that changes who holds what) one guest connection may make
# before the match at once; then one each SEAT_GAP_MS. Each one sends every guest the lobby
# (which each saves and draws) and tells the host's screen reader who took or left a seat: a
# guest taking turns claiming and watching sent 40 lobbies to each in a second.
SEAT_BURST = 3.0
SEAT_GAP_MS = 1000.0
MESSAGE_BURST = 200.0  # a guest's message budget: this many at once,
MESSAGE_RATE = 40.0 / 1000  # refilled at 40 a second (a person plays far slower)
# What a guest reads of its host's messages: MAX_HOST_BYTES at once (one message of the largest
# size), refilled over this long. Parsing is what costs: 4 MiB of small JSON objects held a
# guest's page 1.5 s in Chromium, so a host sending such messages without pause kept the page
# frozen, the person unable even to leave. A match's syncs are a few hundred kB, its actions
# far less: an honest host never comes near it. A message over the budget is left unread.
READ_REFILL_MS = 20_000.0
# And how many of them: HOST_MESSAGE_BURST at once, then HOST_MESSAGE_RATE, as the host reads
# its guests'. The read budget counts characters, so 500 small messages a second fit in it, and
# each was handled and drawn (on_change), each refused one (a malformed part, a repeated one)
# put a notice over the board and drew again. An honest host sends at most about 36 in any
# second of a match played at roomkit's brisk 100 ms an action (computers take 250 ms at the
# fastest pace). A message's other parts cost a PARTS_PER_MESSAGE-th of one each.
HOST_MESSAGE_BURST = MESSAGE_BURST
HOST_MESSAGE_RATE = MESSAGE_RATE
UNREAD_NOTICE_MS = 10_000.0  # messages left unread (either budget) are said at most this often
ASKED_ONLY_BYTES = 64 * 1024
"""A host's message longer than this is read only while a sync is asked for: only a sync (the
whole record) comes near it; a lobby or a begin is a few kB at most."""
UNASKED_SYNC = "A record the host sent unasked was ignored."
NOT_A_SYNC = "A long message from the host that is not a record was ignored."
# A message's parts after its first cost this much of the message budget each (HOST_MESSAGE_
# RATE), all paid at its first part: a host's 4 MiB message (257 parts) costs 17 messages, not
# 1 as before, when a host could send them without end for a message each. An honest host's
# largest sync fits in the budget many times over, and it sends a guest one at most every
# SYNC_INTERVAL_MS.
PARTS_PER_MESSAGE = 16
TOO_MUCH = ("The host sends more than this device can read: some of its messages are "
            "left unread.")
ONLINE = "online"  # a seat kind in the room's plan: open to a guest
# What a host's `refused` can answer, by the person's request it refuses (HostRoom's codes):
# a guest shows a refusal over the board only while such a request of its own awaits an
# answer, so a host cannot put words over the board (and to the screen reader) at will, nor
# a refusal of something this device did by itself (a reveal, a commit) read as a refused move
ANSWERS = {"act": frozenset({"not-seated", "not-started", "bad-action", "illegal"}),
           "claim": frozenset({"started", "not-online", "taken", "bad-commit"}),
           "watch": frozenset({"seated"})}
ANY_REQUEST = frozenset({"too-many", "stale", "not-hello", "bad-frame", "bad-json", "bad-schema",
                         "too-big", "unknown-type", "version"})  # any message's refusals

NOT_YOURS = "the host committed a chain for your seat that is not yours"
# ...said of a match that began after this device's saved room: the device that claimed the
# seat for a rematch (its page closing as it did, or another tab of this browser) may not
# have kept the new chain. Refused all the same: a host could have made the claim up.
LOST_CLAIM = (", or this device did not keep its claim of your seat for this match (a page "
              "closed as it claimed, or another tab): your seat cannot be played from here.")

SENT_PER_VERSION = 8  # a guest's own actions kept per position, to check what the host played
# A guest's chains offered in claims before a match begins, kept until it begins (the host may
# take any claim still on its way): a person presses seats far fewer times in one round trip,
# and the host takes at most SEAT_BURST changes at once.
MAX_OFFERED = 8

Send = Callable[[str, str], None]  # (peer id, text)


class Refused(Exception):
    """A message the rules of the room refuse; ``code`` is sent back with the reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def successor_refusal(ledger: DiceLedger, commitment: Commitment) -> str | None:
    """Why a participant's next chain may not be committed now, or None.

    Only a successor, only when it is needed, and only so many: every commitment goes into the
    record, which nobody may grow at will (it must still fit in a sync). The host holds its
    guests to this, and every guest holds the host to it (a host's commitments, accepted
    without it, cost a guest quadratic time and unbounded memory)."""
    who = commitment.participant
    left = ledger.links_left(who)
    if left >= 2 * RENEW_MARGIN:
        return (f"the chain of {who} still has {left} links: a successor is committed when "
                f"fewer than {2 * RENEW_MARGIN} are left")
    if commitment.start != ledger.next_roll + left:
        return ("a successor chain starts where the current one ends, "
                f"at roll {ledger.next_roll + left}")
    if commitment.length < 2 * RENEW_MARGIN:
        return f"a chain at least {2 * RENEW_MARGIN} links long"
    chains = sum(1 for e in ledger.events if "commit" in e and e["commit"]["participant"] == who)
    if chains >= MAX_CHAINS:
        return f"at most {MAX_CHAINS} chains per participant in a match"
    return None


def successor_rule(ledger: DiceLedger, commitment: Commitment) -> None:
    """The rules a live commitment is held to (:func:`successor_refusal`), for one read from
    a host's record (DiceLedger.replay calls it before each): DiceError when it breaks them.

    The match's first chains (before roll 0 is settled) are free. After that a chain is a
    successor, and the host's must start after the next roll: its own table commits the next
    chain while the current one still has links (``HostRoom.renew``), so a host chain from the
    next roll on was committed when that roll could have been asked for already, and this
    device may have reloaded since and not remember it (``asked_commitment``)."""
    if not ledger.rolls:
        return
    refusal = guest_commit_refusal(ledger, commitment)
    if refusal is not None:
        raise DiceError(refusal)


def guest_commit_refusal(ledger: DiceLedger, commitment: Commitment) -> str | None:
    """Why a guest refuses a commitment the host passes on (live or in a sync), or None."""
    return successor_refusal(ledger, commitment) or late_host_chain(ledger, commitment)


def late_host_chain(ledger: DiceLedger, commitment: Commitment) -> str | None:
    """Why a host's chain is refused for starting at (or before) the next roll, or None."""
    if commitment.participant == HOST and commitment.start <= ledger.next_roll:
        return (f"the host's chain from roll {commitment.start} was committed when its last "
                "chain had run out")
    return None


def asked_commitment(old: DiceLedger, new: DiceLedger) -> str | None:
    """Why ``new`` (a sync's ledger, ``old``'s events and more) is refused for a chain it
    commits for a roll this device was already asked for, or None.

    ``old.opened`` is the roll this device revealed for and has not seen settled (on_open): a
    commitment covering it that comes after ``old``'s events and before that roll's settling
    was made once the host had seen our reveal, so the host could have chosen the die with it.
    (A commitment after the settling cannot cover it: the ledger refuses that.)"""
    asked = old.opened
    if asked is None:
        return None
    for event in new.events[len(old.events):]:
        if "commit" not in event:
            return None  # roll `asked` is settled
        commit = event["commit"]
        if commit["start"] <= asked:
            return (f"a chain of {str(commit['participant'])[:16]} is committed for roll {asked} "
                    "after this device was asked for its reveal")
    return None


def secret_hash(secret: str) -> str:
    return hashlib.sha256(bytes.fromhex(secret)).hexdigest()


MAX_SAVED_LINKS = MAX_CHAINS * CHAIN_LENGTH
"""Links a saved room's chains hold in all at most: what a match's chains can need."""


def saved_chains(value: Any) -> list[SecretChain]:
    """A saved room's dice chains, read as hostile input: a list of at most ``MAX_CHAINS``
    chains (a device commits no more in a match) of at most ``MAX_SAVED_LINKS`` links in all,
    counted before any is built. Every link of a chain is hashed when it is read: 20 chains of
    65,536 links, 2.3 kB of storage, cost a page's boot 1.2 s and 90 MB, and the 4 MB a room
    may take would have held it for half an hour. DiceError otherwise."""
    if not isinstance(value, list):
        raise DiceError("chains: a list of chains")
    if len(value) > MAX_CHAINS:
        raise DiceError(f"chains: {len(value)}, at most {MAX_CHAINS} in a match")
    lengths = [c.get("length") if isinstance(c, dict) else None for c in value]
    if sum(n for n in lengths if type(n) is int and n > 0) > MAX_SAVED_LINKS:
        raise DiceError(f"chains: more than {MAX_SAVED_LINKS} links in all")
    return [SecretChain.from_json(c) for c in value]


def saved_room_id(data: Mapping[str, Any], key: str | None = None) -> str:
    """The room id of a saved room (read as hostile input): a room id, and the one of the
    storage key it was found under (``key``, when given); ValueError otherwise. A room whose
    id is anything else is damaged: its page would put it in the address and send it to the
    signalling helper, which refuses it (docs/online.md, "Saved rooms")."""
    room = data["room"]
    if not is_room_id(room):
        raise ValueError(f"room: not a room id ({str(room)[:30]!r})")
    if key is not None and room != key:
        raise ValueError("room: not the id it was saved under")
    return str(room)


def saved_room_refusal(data: Any, key: str) -> str | None:
    """Why a room saved under the room id ``key`` cannot be opened as it is, or None (its id
    only; the rest is checked when it is restored). The page drops such a room and opens Home,
    like a room it cannot read."""
    if not is_room_id(key):
        return "the saved room's key is not a room id"
    if not isinstance(data, dict):
        return "a saved room is a JSON object"
    try:
        saved_room_id(data, key)
    except (KeyError, ValueError) as exc:
        return f"the saved room is damaged ({exc})"
    return None


KEEP_SAVED_ROOMS = 8  # rooms a device keeps saved, the most recently saved ones


def saved_rooms_to_keep(order: Any, current: str, present: list[str],
                        keep: int = KEEP_SAVED_ROOMS) -> tuple[list[str], list[str]]:
    """Which saved rooms a device keeps when it saves ``current``, and which it forgets.

    A room is saved until its device leaves it, and a match that ends or is abandoned is
    rarely left by the button: a host's saved room (its record and dice chains, 120-190 kB
    after a whole match) stayed for good, one more per match, until the browser's storage
    (about 5 MB an origin) was full and the games could no longer be saved. So the device
    keeps the ``keep`` rooms saved most recently, ``current`` first.

    ``order``: the stored list of rooms, most recently saved first (read as hostile input:
    anything but a list of names is as if absent); ``present``: the rooms found in storage.
    Names are ``"<role>/<room id>"``. Rooms present but missing from ``order`` (saved by a
    version without the list) count as older than every listed one. Returns the new order
    and the rooms to forget."""
    listed = [name for name in order if isinstance(name, str)] if isinstance(order, list) \
        else []
    found = set(present)
    ranked = [current]
    for name in listed + sorted(present):
        if name in found and name not in ranked:
            ranked.append(name)
    return ranked[:keep], ranked[keep:]


def as_asked(before: Any, after: Any, played: Action, asked: list[dict[str, Any]]) -> bool:
    """Whether the host's ``played``, which took the position from ``before`` to ``after``,
    carries out one of the actions this device sent for its seat at ``before`` (``asked``),
    or needed nobody to ask: the seat's only decision, which the host's table plays by itself
    at the deadline when the seat's own page has not (Table.due). Compared by the position
    reached, so the same move written another way counts as asked (tokens are told apart by
    number: another token from the same square is another move). At a roll, the host supplies
    the die."""
    if is_chance(before):
        shape = {k: v for k, v in played.to_json().items() if k != "value"}
        return any({k: v for k, v in a.items() if k != "value"} == shape for a in asked)
    wanted = list(asked)
    auto = auto_action(before)
    if auto is not None:
        wanted.append(auto.to_json())
    rules = rules_for(before)
    for data in wanted:
        if data == played.to_json():
            return True
        try:
            if apply(before, rules.parse_action(data))[0] == after:
                return True
        except (LudoError, IllegalAction):
            continue
    return False


class FollowerTable(Table):
    """A guest's table: it applies what the host broadcasts and plays nothing by itself except
    the only move of its own seat (the auto-move a person gets at any table); the host runs the
    clock and the computers."""

    own: frozenset[str] = frozenset()

    def due(self, now: float, auto_delay: float = 0.0, pace: float = 0.0) -> Due | None:
        seat = self.seat_to_act
        if seat is None or seat not in self.own:
            return None
        auto = self.auto()
        return Due("auto", seat, self.changed_at + auto_delay, auto) if auto else None


# ---------------------------------------------------------------------------------------------
# The host


class Peer:
    """One guest connection as the host sees it."""

    def __init__(self, peer_id: str) -> None:
        self.id = peer_id
        self.counter = Counter()
        self.secret: str | None = None  # sha256 of the device's secret, after hello
        self.seat: str | None = None
        self.watching = False
        self.name = ""
        self.acked = -1  # the last position id this guest said it applied
        self.synced_at: float | None = None  # when it was last sent a sync it asked for
        self.wants_sync = False  # it asked again too soon: sent once the interval is over
        self.budget = MESSAGE_BURST  # messages it may still send now (see `HostRoom.receive`)
        self.budget_at: float | None = None
        self.throttled = False  # it was told it sends too much; further ones are dropped
        self.seat_budget = SEAT_BURST  # seat changes it may still make now (SEAT_GAP_MS)
        self.seat_budget_at: float | None = None
        # another connection said hello with this one's secret, and this one was told so
        # (``closed``): it is done, and what it sends is dropped unread (see `HostRoom.receive`)
        self.replaced = False

    def spend(self, now: float) -> bool:
        """Take one message from this guest's budget; False when it is used up."""
        if self.budget_at is not None and now > self.budget_at:
            self.budget = min(MESSAGE_BURST, self.budget + (now - self.budget_at) * MESSAGE_RATE)
        if self.budget_at is None or now > self.budget_at:
            self.budget_at = now
        if self.budget < 1:
            return False
        self.budget -= 1
        self.throttled = False
        return True

    def change_seat(self, now: float) -> None:
        """Take one seat change from this guest's budget (SEAT_BURST, then one each
        SEAT_GAP_MS); Refused, changing nothing, when it is used up."""
        if self.seat_budget_at is not None and now > self.seat_budget_at:
            self.seat_budget = min(SEAT_BURST, self.seat_budget
                                   + (now - self.seat_budget_at) / SEAT_GAP_MS)
        if self.seat_budget_at is None or now > self.seat_budget_at:
            self.seat_budget_at = now
        if self.seat_budget < 1:
            raise Refused("too-many", "seats change at most once a second: try again")
        self.seat_budget -= 1


class Holder(NamedTuple):
    """Who holds an online seat: the device's secret (hashed), its name, its dice commitment."""

    secret: str
    name: str
    commitment: Commitment


def _name(value: Any) -> str:
    """A saved name read as hostile: a text, kept by the network's name rule."""
    if not isinstance(value, str):
        raise ValueError(f"a name is a text, not {str(value)[:20]}")
    return clean_name(value)


def _flag(value: Any) -> bool:
    if type(value) is not bool:
        raise ValueError(f"timer: true or false, not {str(value)[:20]}")
    return value


def _turn_seconds(value: Any) -> float:
    """A saved clock length, read as hostile: 1 to 3600 seconds, like the protocol allows."""
    if type(value) not in (int, float) or not 1 <= value <= 3600:
        raise ValueError(f"turnSeconds: 1 to 3600, not {str(value)[:20]}")
    return float(value)


class ShownPresence:
    """Who is connected, as a table's status line and seat boxes say it (the line is a live
    region): it follows the room's word at once before a match, and during one within a
    budget of changes, HERE_BURST at once, then one each NOTICE_GAP_MS; a word held back is
    shown when due (the page's clock calls :meth:`follow` again). A peer flapping presence,
    or a flaky link, had a screen reader say "Bo (green) is away ..." and "Connected." dozens
    of times a second."""

    def __init__(self) -> None:
        self.seats: list[str] = []
        self.budget = HERE_BURST
        self.budget_at: float | None = None

    def follow(self, seats: list[str], now: float, limited: bool) -> bool:
        """Show ``seats`` if they differ and the budget allows (always when not
        ``limited``); True if what is shown changed."""
        if set(self.seats) == set(seats):  # (the same seats in another order: no change)
            return False
        if limited:
            if self.budget_at is not None and now > self.budget_at:
                self.budget = min(HERE_BURST,
                                  self.budget + (now - self.budget_at) / NOTICE_GAP_MS)
            if self.budget_at is None or now > self.budget_at:
                self.budget_at = now
            if self.budget < 1:
                return False
            self.budget -= 1
        self.seats = list(seats)
        return True


class HostRoom:
    """The host's room: the plan, the seats' holders, the match, the dice."""

    chain_length = CHAIN_LENGTH  # links per dice chain (tests make them short)

    def __init__(self, room: str, rules: str, seats: tuple[str, ...], kinds: Mapping[str, str],
                 names: Mapping[str, str], timer: bool, options: Mapping[str, Any],
                 turn_seconds: float, send: Send, chain: SecretChain | None = None,
                 match: str | None = None) -> None:
        # a game these rules can seat (NotationError else): a room restored from damaged
        # storage with a colour no rule set has, one seat, or options its rules do not offer
        # was opened and broke only when its match began, in a guest's reveal of roll 0
        rules_for(rules).new_game(tuple(seats), 0, options)
        self.room = room
        self.rules = rules
        self.seats = tuple(seats)
        for seat, kind in kinds.items():
            if seat not in self.seats or kind not in (ONLINE, "human", *COMPUTER_LEVELS):
                raise ValueError(f"seat {seat}: kind {quote(kind)}")
        self.kinds = {s: kinds.get(s, "human") for s in self.seats}
        # every name this room sends keeps the network's name rule (protocol.clean_name), or the
        # guests' checks would refuse the lobby that carries it
        self.names = {s: clean_name(n) for s, n in names.items()
                      if s in self.seats and clean_name(n)}
        self.timer = timer
        self.options = dict(options)
        self.turn_seconds = turn_seconds
        self.send_text = send
        self.chains = [chain or SecretChain.new(0, self.chain_length)]
        self.match = match or secrets.token_urlsafe(16)
        # The state id of this match's first position: 0 in the room's first match, and past
        # every state id of the match before in a rematch, so that a message meant for an old
        # match's position can never be read as one of this match's (docs/online.md, "Rematch")
        self.first = 0
        self.peers: dict[str, Peer] = {}
        self.presence = ShownPresence()  # connected_seats() as the table says it
        self.holders: dict[str, Holder] = {}
        # seats whose holders keep them in a rematch and must commit a chain for it: until
        # then the match cannot start (a chain of the old match has had its links revealed)
        self.renewing: set[str] = set()
        self.auto_start = False  # a rematch with every seat's player: it starts by itself
        # A guest has said hello to this room since this page opened it (see outdated_by)
        self.reached = False
        self.opened_at = 0.0
        self.round_trips: list[float] = []  # ms from broadcast to each guest's ack
        self.on_change: Callable[[str], None] = lambda what: None  # the page redraws
        self.forget_match()

    def forget_match(self) -> None:
        """No match under way: the room's state of one match, as a new room has it and as a
        rematch starts it again (one list, so that a rematch leaves nothing of the old one)."""
        self.table: Table | None = None
        self.ledger: DiceLedger | None = None
        self.dice: LedgerDice | None = None
        self.collector: RevealCollector | None = None
        self.pending: tuple[str, Action, int | None] | None = None  # the action awaiting a roll
        self.queue: list[tuple[str, Action, int | None]] = []
        self.sent_at: dict[int, float] = {}  # version -> when its action was broadcast
        self.throws: list[Throw] = []  # every chance value, for the Dice panel
        self.events: list[dict[str, Any]] = []  # what the last action applied caused
        self.turn_before: str | None = None  # whose turn it was when it was applied

    # -- reading ---------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self.ledger is not None

    def online_seats(self) -> list[str]:
        return [s for s in self.seats if self.kinds[s] == ONLINE]

    def participants(self) -> list[str]:
        return [HOST, *self.online_seats()]

    def connected_seats(self) -> list[str]:
        return [p.seat for p in self.peers.values() if p.seat is not None]

    @property
    def here_shown(self) -> list[str]:
        """The seats the host's table shows connected (:class:`ShownPresence`): a guest that
        drops and reconnects again and again changes it at most once a second."""
        return self.presence.seats

    def show_here(self, now: float) -> bool:
        """Bring ``here_shown`` up to :meth:`connected_seats` as the budget of changes allows
        (before the match: at once); True if it changed. The page's clock calls it too, for a
        change held back."""
        return self.presence.follow(self.connected_seats(), now, limited=self.started)

    def show_held_presence(self, now: float) -> None:
        """The page's clock ticks: a word on who is connected that was held back is shown
        now if due (drawn as any change of presence is)."""
        if self.show_here(now):
            self.on_change("presence")

    def ready(self) -> bool:
        """Every online seat is taken (in a rematch, with a chain for it): the host may
        start."""
        return all(s in self.holders and s not in self.renewing for s in self.online_seats())

    def name(self, seat: str) -> str:
        holder = self.holders.get(seat)
        return holder.name if holder and holder.name else self.names.get(seat, "")

    def players(self) -> dict[str, str]:
        """The table's agents: online seats are remote, computers their level, people human."""
        return {s: ("remote" if k == ONLINE else k) for s, k in self.kinds.items()
                if k != "human"}

    # -- sending ---------------------------------------------------------------------------

    def send(self, peer: Peer, kind: str, **fields: Any) -> None:
        text = protocol.encode(kind, peer.counter.next(), **fields)
        for part in protocol.frames(text):
            self.send_text(peer.id, part)

    def broadcast(self, kind: str, only: Callable[[Peer], bool] | None = None,
                  **fields: Any) -> None:
        for peer in list(self.peers.values()):
            if peer.secret is not None and (only is None or only(peer)):
                self.send(peer, kind, **fields)

    def lobby_fields(self, you: str | None = None) -> dict[str, Any]:
        here = set(self.connected_seats())
        rows = []
        for seat in self.seats:
            kind = self.kinds[seat]
            rows.append({"seat": seat, "kind": {"human": "person", ONLINE: ONLINE}.get(
                kind, "computer"), "name": self.name(seat), "taken": seat in self.holders,
                "here": seat in here})
        return {"rules": self.rules, "options": self.options, "timer": self.timer,
                "seats": rows, "started": self.started, "you": you}

    def send_lobby(self) -> None:
        for peer in list(self.peers.values()):
            if peer.secret is not None:
                self.send(peer, "lobby", **self.lobby_fields(peer.seat))
        self.on_change("lobby")

    def record_json(self) -> dict[str, Any]:
        assert self.table is not None and self.ledger is not None
        return record_to_json(self.table.record._replace(dice=self.ledger.to_json()))

    def clock_left(self, now: float) -> int | None:
        t = self.table
        if t is None or t.session.deadline is None or not t.session.timer:
            return None
        return max(0, min(10**7, round(t.session.deadline - now)))

    def send_sync(self, peer: Peer, now: float) -> None:
        if self.table is None:
            return
        self.send(peer, "sync", record=self.record_json(), names=dict(self.table.names),
                  players=self.players(), timer=self.timer,
                  turnSeconds=round(self.turn_seconds), left=self.clock_left(now),
                  you=peer.seat, connected=self.connected_seats(), first=self.first)

    # -- connections -----------------------------------------------------------------------

    def connect(self, peer_id: str) -> None:
        self.peers[peer_id] = Peer(peer_id)

    def disconnect(self, peer_id: str, now: float) -> None:
        peer = self.peers.pop(peer_id, None)
        if peer is None:
            return
        if peer.seat is not None:
            self.broadcast("presence", connected=self.connected_seats())
            if self.collector is not None and peer.seat in self.collector.waiting_for:
                self.collector.expected = self.collector.expected - {peer.seat}
                if self.collector.complete:
                    self.settle(now)
        self.show_here(now)
        self.on_change("presence")

    def receive(self, peer_id: str, text: Any, now: float) -> bool:
        """Handle one message from a guest; True if accepted. A refused message changes
        nothing (the guest is told why, unless it could not even be read)."""
        peer = self.peers.get(peer_id)
        if peer is None or peer.replaced:
            # (a replaced connection whose hello was heard again took its secret back, and each
            # hello brought a whole sync and a lobby to every guest: two connections taking
            # turns had the host send 80 syncs a second, the sync interval counting per
            # connection)
            return False
        if not peer.spend(now):  # a flood: told once, then dropped unread until it slows down
            if not peer.throttled:
                peer.throttled = True
                self.send(peer, "refused", code="too-many",
                          message="too many messages: the host drops them for a while")
            return False
        self.flush_syncs(now)
        try:
            message = protocol.decode(text, protocol.GUEST_MESSAGES, protocol.MAX_GUEST_BYTES)
        except ProtocolError as exc:
            self.refuse(peer, exc.code, str(exc))
            return False
        if not peer.counter.fresh(message.seq):
            self.refuse(peer, "stale", f"message {message.seq} was already received")
            return False
        if peer.secret is None and message.type != "hello":
            self.refuse(peer, "not-hello", "say hello first")
            return False
        try:
            handler = getattr(self, f"on_{message.type}")
            handler(peer, message, now)
        except Refused as exc:
            self.refuse(peer, exc.code, str(exc))
            return False
        finally:
            # a hello or claim seats its peer: connected. Shown only now, after the handler's
            # own changes were drawn, so drawn again: the table's seat list and boxes kept a
            # guest that said hello "away" until the next action, while its status line,
            # written later, said it was back
            if self.show_here(now):
                self.on_change("presence")
        peer.counter.accept(message.seq)
        return True

    def refuse(self, peer: Peer, code: str, text: str) -> None:
        if peer.secret is not None or code != "not-hello":
            self.send(peer, "refused", code=code[:32], message=text[:protocol.MAX_TEXT])

    # -- guest messages --------------------------------------------------------------------

    def on_hello(self, peer: Peer, message: Message, now: float) -> None:
        if peer.secret is not None:
            raise Refused("already", "hello was already said")
        secret = secret_hash(message.body["secret"])
        seat = next((s for s, h in self.holders.items() if h.secret == secret), None)
        for other in list(self.peers.values()):  # a reconnection replaces the old connection
            if other is not peer and other.secret == secret:
                other.seat = None
                self.send(other, "closed", reason="This seat was opened on another connection.")
                other.secret = None
                other.replaced = True
        peer.secret = secret
        peer.name = clean_name(message.body["name"])
        self.reached = True
        peer.seat = seat
        if self.first > 0 and (not self.started or seat is None):
            # a rematch: a seat's device commits a chain for it (it may have reloaded before
            # its claim came), and any device that still shows the old match moves on
            self.send(peer, "rematch", match=self.match, first=self.first)
        self.send_lobby()
        if self.started:
            self.send_sync(peer, now)
            peer.synced_at = now
            if seat is not None:
                self.broadcast("presence", connected=self.connected_seats())
                self.ask_late_comer(peer)
                self.resume(now)

    def ask_late_comer(self, peer: Peer) -> None:
        """A seat that connects while a roll is open is asked for its reveal too: a guest that
        gets a roll settled without it and was never asked takes it for a dropped reveal."""
        collector = self.collector
        if collector is None or self.table is None or peer.seat is None \
                or peer.seat in collector.reveals:
            return
        collector.expected = collector.expected | {peer.seat}
        self.send(peer, "open", roll=collector.roll, n=collector.n)

    def on_claim(self, peer: Peer, message: Message, now: float) -> None:
        seat = message.body["seat"]
        if self.started:
            raise Refused("started", "the match has started: seats can no longer be taken")
        if seat not in self.seats or self.kinds[seat] != ONLINE:
            raise Refused("not-online", f"{seat} is not an online seat")
        holder = self.holders.get(seat)
        if holder is not None and holder.secret != peer.secret:
            raise Refused("taken", f"{seat} is taken")
        try:
            commitment = Commitment.from_json(message.body["commit"])
        except DiceError as exc:
            raise Refused("bad-commit", str(exc)) from None
        if commitment.participant != seat or commitment.start != 0 \
                or commitment.length < 2 * RENEW_MARGIN:
            raise Refused("bad-commit", "a chain for this seat, from roll 0, "
                          f"at least {2 * RENEW_MARGIN} links long")
        name = clean_name(message.body["name"]) or seat.capitalize()
        assert peer.secret is not None
        same = Holder(peer.secret, name, commitment)
        if holder == same and peer.seat == seat and not peer.watching \
                and [s for s, h in self.holders.items() if h.secret == peer.secret] == [seat]:
            return  # the same claim again changes nothing: no lobby for all, nothing to save
        peer.change_seat(now)
        for other, h in list(self.holders.items()):  # one seat per device
            if h.secret == peer.secret and other != seat:
                del self.holders[other]
                # a seat given up is no seat to renew (a rematch's): nobody holds it now
                self.renewing.discard(other)
        self.holders[seat] = same
        self.renewing.discard(seat)
        peer.seat, peer.watching, peer.name = seat, False, name
        self.send_lobby()
        if self.auto_start and self.ready():
            self.start(now)

    def on_watch(self, peer: Peer, message: Message, now: float) -> None:
        changed = not peer.watching or peer.seat is not None
        if not self.started:
            if changed or any(h.secret == peer.secret for h in self.holders.values()):
                peer.change_seat(now)  # (before anything changes: a refusal changes nothing)
            for seat, h in list(self.holders.items()):
                if h.secret == peer.secret:
                    del self.holders[seat]
                    self.renewing.discard(seat)
                    self.auto_start = False  # a free seat: the host starts when it is taken
                    changed = True
            peer.seat = None
        elif peer.seat is not None:
            raise Refused("seated", "you hold a seat in this match")
        peer.watching = True
        if changed:  # watching again changes nothing: no lobby for all, nothing to save
            self.send_lobby()
        if self.started:
            self.sync_asked(peer, now)

    def on_act(self, peer: Peer, message: Message, now: float) -> None:
        if peer.seat is None:
            raise Refused("not-seated", "spectators watch; only seats act")
        if self.table is None:
            raise Refused("not-started", "the match has not started")
        if message.body["version"] < self.first:
            # meant for a position of a match before this one (a rematch): never applied here
            raise Refused("stale-action", f"stale action: position {message.body['version']} "
                          f"is of an earlier match; this match's positions start at "
                          f"{self.first}")
        try:
            action = self.table.rules.parse_action(message.body["action"])
        except LudoError as exc:
            raise Refused("bad-action", str(exc)) from None
        if action.value is not None and needs_chance(self.table.state, action):
            # refused before a roll is opened: settling it first would show the guest the die
            # it asked to choose, and then let it choose whether to roll it
            raise Refused("illegal", "the dice decide a roll's value, not the player")
        seen = None if action.type == "quit" else message.body["version"] - self.first
        if seen is not None and seen != self.table.version:
            # The guest acts on a position it has left behind: a message to it was lost. Its
            # own code tells it to ask for the record (a sync it did not ask for is refused).
            raise Refused("stale-action", "stale action: it was meant for position "
                          f"{seen + self.first}, the table is at "
                          f"{self.table.version + self.first}")
        try:
            self.submit(peer.seat, action, now, seen)
        except IllegalAction as exc:
            raise Refused("illegal", str(exc)) from None

    def on_reveal(self, peer: Peer, message: Message, now: float) -> None:
        roll = message.body["roll"]
        if peer.seat is None or self.ledger is None or peer.seat not in self.ledger.participants:
            raise Refused("not-participant", "only the seats' players reveal")
        collector = self.collector
        if collector is None or roll != collector.roll:
            if roll < self.ledger.next_roll:
                self.send(peer, "dropped", roll=roll)  # it came too late to be counted
                raise Refused("late", f"roll {roll} was settled before your reveal arrived")
            raise Refused("not-open", f"roll {roll} is not open")
        try:
            collector.add(peer.seat, bytes.fromhex(message.body["reveal"]))
        except DiceError as exc:
            raise Refused("bad-reveal", str(exc)) from None
        if collector.complete:
            self.settle(now)

    def on_commit(self, peer: Peer, message: Message, now: float) -> None:
        ledger = self.ledger
        if peer.seat is None or ledger is None or peer.seat not in ledger.participants:
            raise Refused("not-participant", "only the seats' players commit, during a match")
        seat = peer.seat
        try:
            commitment = Commitment.from_json(message.body["commit"])
            if commitment.participant != seat:
                raise DiceError("a commitment for your own seat only")
        except DiceError as exc:
            raise Refused("bad-commit", str(exc)) from None
        refusal = successor_refusal(ledger, commitment)
        if refusal is not None:
            raise Refused("bad-commit", refusal)
        try:
            ledger.commit(commitment)
        except DiceError as exc:
            raise Refused("bad-commit", str(exc)) from None
        self.broadcast("commit", commit=commitment.to_json())

    def on_ack(self, peer: Peer, message: Message, now: float) -> None:
        peer.acked = max(peer.acked, message.body["version"])
        sent = self.sent_at.get(message.body["version"])
        if sent is not None:
            self.round_trips.append(now - sent)
            del self.round_trips[:-200]

    def on_resync(self, peer: Peer, message: Message, now: float) -> None:
        self.sync_asked(peer, now)

    def sync_asked(self, peer: Peer, now: float) -> None:
        """A sync the guest asked for: at once, or (asked again within SYNC_INTERVAL_MS) when
        the interval is over (checked at each message the host receives or sends an action
        for): a sync is the whole record, so asking must not make the host send it at will."""
        if peer.synced_at is not None and now - peer.synced_at < SYNC_INTERVAL_MS:
            peer.wants_sync = True
            return
        peer.wants_sync = False
        peer.synced_at = now
        self.send_sync(peer, now)

    def flush_syncs(self, now: float) -> None:
        for peer in list(self.peers.values()):
            if peer.wants_sync and peer.secret is not None and peer.synced_at is not None \
                    and now - peer.synced_at >= SYNC_INTERVAL_MS:
                self.sync_asked(peer, now)

    # -- the match -------------------------------------------------------------------------

    def start(self, now: float) -> None:
        """Start the match: every participant's commitment, then roll 0 draws the seed."""
        if self.started:
            raise Refused("started", "the match has already started")
        if not self.ready():
            raise Refused("not-ready", "every online seat must be taken first")
        ledger = DiceLedger(self.match, self.participants())
        ledger.commit(self.chains[0].commitment(HOST))
        for seat in self.online_seats():
            ledger.commit(self.holders[seat].commitment)
        self.ledger = ledger
        self.dice = LedgerDice(ledger)
        self.broadcast("begin", match=self.match, participants=list(ledger.participants),
                       commits=[e["commit"] for e in ledger.events], first=self.first)
        self.send_lobby()
        self.open_roll(0, SEED_RANGE, now)

    def act(self, actor: str, action: Action, now: float) -> bool:
        """The host's own action (a local person, a computer, or the table's clock). False
        when it waits for a roll's reveals; IllegalAction when refused."""
        if self.table is None:
            raise IllegalAction("the match has not started")
        if actor in self.online_seats() and not self._due_for(actor, action, now):
            # its player acts from its own device, and only there
            raise IllegalAction(f"{actor} plays from its own device, not from the host's")
        return self.submit(actor, action, now, None)

    def _due_for(self, seat: str, action: Action, now: float) -> bool:
        """Whether the table itself plays ``action`` for an online seat now: the seat's only
        move, once its clock has run out (its page plays that move itself, but a guest that
        dropped after rolling never sends it; ``Table.due``). Without this the host's page
        was refused that move at the deadline and asked again at once, and the match stood
        still (found with hostile review 4's fixes)."""
        t = self.table
        due = t.due(now) if t is not None else None
        return due is not None and due.kind == "auto" and due.seat == seat \
            and due.at <= now and due.action == action

    def submit(self, actor: str, action: Action, now: float, seen: int | None) -> bool:
        t, dice = self.table, self.dice
        assert t is not None and dice is not None
        if self.collector is not None:
            if actor == TABLE:
                return False  # the clock waits for the roll; it is asked again after it
            self.check_authority(t, actor, action, seen)
            mine = [queued for a, queued, _ in self.queue if a == actor]
            # a seat's own quit always fits (one of it): leaving is never "busy"
            first_quit = action.type == "quit" and all(q.type != "quit" for q in mine)
            if not first_quit and (len(mine) >= QUEUE_PER_SEAT
                                   or len(self.queue) >= QUEUE_LIMIT):
                raise IllegalAction("busy: a roll is being revealed")
            self.queue.append((actor, action, seen))
            return False
        version, state = t.version, t.state
        try:
            self.events = t.submit(actor, action, now, seen)
            self.turn_before = to_act(state)
        except RollNeeded as need:
            self.pending = (actor, action, seen)
            self.open_roll(need.roll, need.n, now)
            return False
        roll = dice.confirm()
        if roll is not None:
            self.throws.append(throw_of(state, t.record.actions[-1], dice.ledger, roll))
        self.sent_at[self.first + version] = now
        self.broadcast("action", version=self.first + version, actor=actor,
                       action=t.record.actions[-1].to_json(), left=self.clock_left(now))
        self.flush_syncs(now)
        self.on_change("action")
        return True

    @staticmethod
    def check_authority(t: Table, actor: str, action: Action, seen: int | None) -> None:
        """What the table will check about who sends what, checked before an action waits in
        the queue (IllegalAction), so that nothing is queued that could only be refused."""
        if seen is not None and seen != t.version:
            raise IllegalAction(f"stale action: it was meant for position {seen}, "
                                f"the table is at {t.version}")
        if t.over:
            raise IllegalAction("the game is over")
        if action.type == "timeout":
            raise IllegalAction("only the table's clock plays a timeout")
        if action.type == "quit":
            if actor != action.seat:
                raise IllegalAction(f"{actor} cannot quit for {action.seat}")
        elif actor != t.seat_to_act:
            raise IllegalAction(f"it is {t.seat_to_act}'s turn, not {actor}'s")

    def refused_later(self, actor: str, exc: IllegalAction) -> None:
        """An action that waited for a roll and was refused when its turn came: its sender
        is told (a guest's seat), as it would have been at once."""
        for peer in list(self.peers.values()):
            if peer.seat == actor and peer.secret is not None:
                self.refuse(peer, "illegal", str(exc))

    def open_roll(self, roll: int, n: int, now: float) -> None:
        assert self.ledger is not None
        here = {p.seat for p in self.peers.values() if p.seat is not None}
        expected = [HOST, *(s for s in self.online_seats() if s in here)]
        collector = RevealCollector(self.ledger, n, expected)
        collector.add(HOST, self.reveal(roll))
        self.collector, self.opened_at = collector, now
        self.broadcast("open", only=lambda p: p.seat in here, roll=roll, n=n)
        if collector.complete:
            self.settle(now)

    def reveal(self, roll: int) -> bytes:
        chain = next(c for c in reversed(self.chains) if c.start <= roll)
        return chain.reveal(roll)

    def tick(self, now: float) -> None:
        """Settle an open roll whose reveals did not all come in time; send the syncs owed."""
        if self.collector is not None and now - self.opened_at >= REVEAL_TIMEOUT_MS:
            self.settle(now)
        self.flush_syncs(now)

    def sync_due(self) -> float | None:
        """When (epoch ms) a sync a guest asked for too soon is owed, if any: the page calls
        :meth:`tick` then (else it goes with the next message or action the host handles)."""
        # the same peers flush_syncs serves (a connection replaced by another holding its
        # secret is owed nothing): a time it would never clear would make the page spin
        owed = [p.synced_at + SYNC_INTERVAL_MS for p in self.peers.values()
                if p.wants_sync and p.secret is not None and p.synced_at is not None]
        return min(owed) if owed else None

    def reveal_due(self) -> float | None:
        """When (epoch ms) the open roll is settled without the missing reveals, if any."""
        return None if self.collector is None else self.opened_at + REVEAL_TIMEOUT_MS

    def settle(self, now: float) -> None:
        collector, ledger = self.collector, self.ledger
        assert collector is not None and ledger is not None
        settled = collector.settle()
        self.collector = None
        self.broadcast("settled", roll=settled.roll, n=settled.n,
                       reveals=[[p, r.hex()] for p, r in settled.contributions],
                       value=settled.value)
        self.renew(ledger)
        if settled.roll == 0:
            self.begin_table(now)
        pending, self.pending = self.pending, None
        if pending is not None:
            try:
                self.submit(*pending[:2], now, pending[2])
            except IllegalAction as exc:  # the roll stays settled; the next chance action takes it
                self.refused_later(pending[0], exc)
        while self.queue and self.collector is None:
            actor, action, seen = self.queue.pop(0)
            try:
                self.submit(actor, action, now, seen)
            except IllegalAction as exc:
                self.refused_later(actor, exc)
        self.on_change("settled")

    def renew(self, ledger: DiceLedger) -> None:
        """Commit the host's next chain before its current one runs out."""
        if ledger.links_left(HOST) < RENEW_MARGIN:
            chain = self.chains[-1].successor(self.chain_length)
            ledger.commit(chain.commitment(HOST))
            self.chains.append(chain)
            self.broadcast("commit", commit=chain.commitment(HOST).to_json())

    def begin_table(self, now: float) -> None:
        assert self.ledger is not None
        names = dict(self.names)
        names.update({s: h.name for s, h in self.holders.items()})
        self.table = Table.new(self.rules, self.seats, seed_of(self.ledger), now, names,
                               self.players(), self.timer, self.options, dice=self.dice,
                               turn_seconds=self.turn_seconds)
        for peer in list(self.peers.values()):
            if peer.secret is not None:
                self.send_sync(peer, now)

    def rematch(self, now: float) -> None:
        """Play again in this room, once the match is over: the host's choice only (no guest
        message leads here). The same seats and names; a seat whose player's device is not
        connected is freed for a friend with the link. Everything of the old match goes: a
        new match id, a new chain for every participant (the old ones' links were revealed,
        and the new match's dice are drawn from the new chains alone), a new record, and
        state ids past every one of the old match's. Each seat's device commits its new chain
        when told (``rematch``); the match starts by itself once all have, unless a seat was
        freed: then the host starts it from the room screen, as the first one."""
        t = self.table
        if t is None or not t.over:
            raise Refused("not-over", "a rematch starts once the match is over")
        if self.first + t.version + 1 > protocol.MAX_FIRST:  # (only from a damaged save)
            raise Refused("too-many", "this room has no state ids left for another match")
        here = {p.seat for p in self.peers.values() if p.seat is not None and p.secret}
        self.holders = {s: h for s, h in self.holders.items() if s in here}
        self.renewing = set(self.holders)
        self.auto_start = set(self.holders) == set(self.online_seats())
        self.first += t.version + 1
        old = self.match
        while self.match == old:
            self.match = secrets.token_urlsafe(16)
        self.chains = [SecretChain.new(0, self.chain_length)]
        self.forget_match()
        for peer in self.peers.values():
            peer.acked = -1
        self.broadcast("rematch", match=self.match, first=self.first)
        self.send_lobby()
        self.on_change("rematch")
        if self.auto_start and self.ready():  # (no online seat has a player to wait for)
            self.start(now)

    def close(self, reason: str) -> None:
        self.broadcast("closed", reason=reason)

    def outdated_by(self, data: Any) -> bool:
        """Whether this page takes ``data``, this room as another tab of this browser saved it
        after this page had read it (the tab this one took the table from, until it stepped
        aside), for its own: while no guest has said hello here. Until then that tab's links
        were the room's live ones, and its guests call this page only once those links have
        closed, after its last save: what it saved is newer than what this page read. A
        rematch's claims that it took, and the match it began with them, were lost else:
        this page waited for claims its guests had made, and they, holding the match's
        start, did not make them again (docs/online.md, "Rematch")."""
        return not self.reached

    # -- saving ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Everything needed to carry on after the host's page reloads (its chains' seeds too:
        keep it on the host's device only)."""
        data: dict[str, Any] = {
            "room": self.room, "match": self.match, "first": self.first,
            "renewing": sorted(self.renewing), "autoStart": self.auto_start,
            "rules": self.rules,
            "seats": list(self.seats), "kinds": self.kinds, "names": self.names,
            "timer": self.timer, "options": self.options, "turnSeconds": self.turn_seconds,
            "chains": [c.to_json() for c in self.chains],
            "holders": {s: {"secret": h.secret, "name": h.name,
                            "commit": h.commitment.to_json()} for s, h in self.holders.items()},
            "record": None, "deadline": None, "screen": "table",
        }
        if self.table is not None:
            data["record"] = self.record_json()
            data["deadline"] = self.table.session.deadline
            data["screen"] = self.table.session.screen
            data["names"] = dict(self.table.names)
        elif self.ledger is not None:
            data["dice"] = self.ledger.to_json()
        return data

    @classmethod
    def restore(cls, data: Any, send: Send, now: float, key: str | None = None) -> HostRoom:
        """The room from :meth:`to_json` (LudoError or DiceError if it does not verify);
        ``key``: the room id it was stored under, which its own must be."""
        try:
            return cls._restore(data, send, now, key)
        except (LudoError, DiceError):
            raise
        except Exception as exc:  # a boundary: a stored room is hostile input to its page
            raise DiceError(f"the saved room is damaged ({type(exc).__name__}: {exc})"
                            ) from None

    @classmethod
    def _restore(cls, data: Any, send: Send, now: float, key: str | None = None) -> HostRoom:
        if not isinstance(data, dict):
            raise DiceError("a saved room is a JSON object")
        try:
            room = cls(saved_room_id(data, key), data["rules"], tuple(data["seats"]), data["kinds"],
                       data["names"], _flag(data["timer"]), data["options"],
                       _turn_seconds(data["turnSeconds"]), send, None, data["match"])
            room.chains = saved_chains(data["chains"])
            if not room.chains:
                raise ValueError("chains: the host's own, at least one")
            for seat, h in data["holders"].items():
                if seat not in room.online_seats():
                    raise ValueError(f"holder of {str(seat)[:20]}, not an online seat")
                secret, name = h["secret"], h["name"]
                if not isinstance(secret, str) or len(secret) != 64 \
                        or set(secret) - set("0123456789abcdef"):
                    raise ValueError(f"holder of {seat}: secret")
                commitment = Commitment.from_json(h["commit"])
                if commitment.participant != seat or commitment.start != 0:
                    # as a claim is held to (on_claim): the seat's own chain, from roll 0
                    raise ValueError(f"holder of {seat}: a chain for this seat from roll 0")
                room.holders[seat] = Holder(secret, _name(name) or seat.capitalize(),
                                            commitment)
            names = {seat: _name(name) for seat, name in dict(data["names"]).items()
                     if seat in room.seats}
            # absent in rooms saved before rematches: the room's first match
            room.first = _state_id(data.get("first", 0))
            renewing = data.get("renewing", [])
            if not isinstance(renewing, list) or not set(renewing) <= set(room.holders):
                raise ValueError("renewing: seats held")
            room.renewing = set(renewing)
            room.auto_start = _flag(data.get("autoStart", False))
            # the match id goes to every guest (`begin`, `rematch`): a text the protocol carries
            if not isinstance(data["match"], str) or not 0 < len(data["match"]) <= 64:
                raise ValueError("match: an id of 1 to 64 characters")
        except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
            raise DiceError(f"the saved room is damaged ({exc})") from None
        if data.get("record") is not None:
            record = record_from_json(data["record"])
            ledger = DiceLedger.replay(record.dice)
            room.check_match(ledger, record)
            verified = replay_verified(record, ledger)
            try:
                deadline = check_deadline(data.get("deadline"))
                screen = check_screen(data.get("screen", "table"))
            except SaveError as exc:
                raise DiceError(f"the saved room is damaged ({exc})") from None
            session = Session(record._replace(dice=None), {s: n for s, n in names.items() if n},
                              room.players(),
                              room.timer, deadline, screen)
            room.table = Table.restore(session, verified.states, verified.events, now,
                                       room.turn_seconds)
            if ledger.room != room.match:
                # the match under way is the record's: another id would be told to a guest
                # that says hello as a rematch's, and a guest of the match refuses it
                raise DiceError("the saved room is damaged (match: not the record's)")
            room.ledger, room.dice = ledger, LedgerDice(ledger, verified.used)
            room.table.dice = room.dice
            room.throws = verified.throws
            room.fresh_clock_for_guest(now)
        elif data.get("dice") is not None:  # started, but roll 0 was not settled: open it again
            ledger = DiceLedger.replay(data["dice"])
            if ledger.room != room.match:  # resume's `begin` names both: one match
                raise DiceError("the saved room is damaged (match: not the dice's)")
            room.check_match(ledger)
            if ledger.rolls:  # the table begins as roll 0 is settled: its record is saved then
                raise DiceError("the saved room is damaged (dice: settled rolls, no record)")
            room.ledger, room.dice = ledger, LedgerDice(ledger)
        return room

    def check_match(self, ledger: DiceLedger, record: Record | None = None) -> None:
        """A saved match is this room's (DiceError else): its dice drawn by the host and the
        room's online seats, and its record a game of the room's rules, options and seats.
        Read without it, a saved room whose match was another's (its dice of other
        participants) was opened, every guest refused its syncs, and the host's page broke
        at the next roll it opened (a DiceError out of a guest's move)."""
        if ledger.participants != tuple(self.participants()):
            raise DiceError("the saved room is damaged (dice: not the room's participants)")
        if record is not None and (record.rules != self.rules
                                   or dict(record.options) != self.options
                                   or set(record.seats) != set(self.seats)):
            raise DiceError("the saved room is damaged (record: not the room's game)")

    def fresh_clock_for_guest(self, now: float) -> None:
        """After a restore: a guest on turn lost its connection when the host's page reloaded
        or another tab of the host's browser took the room, through no doing of its own, and
        needs time to call the host again; its clock starts afresh (never shorter than it
        was). A seat played at the host's device keeps its clock, so that reloading gains
        nobody time. (Booting a tab and calling back can take much of a turn on a slow
        device.)"""
        t = self.table
        if t is None or t.over or not t.session.timer or t.session.deadline is None:
            return
        if t.seat_to_act in self.online_seats():
            t.session.deadline = max(t.session.deadline, now + self.turn_seconds * 1000)

    def resume(self, now: float) -> None:
        """After a restore: draw the seed again if it was being drawn (once every online seat
        is back, so that nobody is left out of roll 0 by the host's reload)."""
        ledger = self.ledger
        if ledger is None or self.table is not None or self.collector is not None:
            return
        if set(self.online_seats()) <= set(self.connected_seats()):
            self.broadcast("begin", match=self.match, participants=list(ledger.participants),
                           commits=[e["commit"] for e in ledger.events if "commit" in e],
                           first=self.first)
            self.open_roll(0, SEED_RANGE, now)


# ---------------------------------------------------------------------------------------------
# A guest


class GuestRoom:
    """A guest's side: follows the host, checks everything it is sent, reveals its dice."""

    chain_length = CHAIN_LENGTH

    def __init__(self, room: str, secret: str, name: str, send: Callable[[str], None],
                 chains: list[SecretChain] | None = None) -> None:
        self.room = room
        self.secret = secret  # 64 hex digits, kept on this device for this room
        self.name = clean_name(name)
        self.send_text = send
        self.chains = list(chains or [])
        # The match our chains were first committed in: their links are never revealed in
        # another (a host that knows them from one match could pick the dice of the next).
        self.match: str | None = None
        # The state id of the match's first position (the host's ``first``): the state ids
        # this device sends and reads are the table's versions counted from it, so that a
        # message of a match before a rematch never matches a position of this one.
        self.first = 0
        self.counter = Counter()
        self.reassembler = protocol.Reassembler(protocol.MAX_HOST_BYTES)
        self.connected = False
        self.reached = False  # a hello went to the host since this page opened the room
        # This connection has given us the match (a begin or a sync): rolls settled since then
        # reached us as they happened, so one settled without asking us is a drop, not absence.
        self.following = False
        # The rematch (match id, first) this connection was told of and followed, until its
        # match begins: a host may announce one rematch per ended match, and each one makes
        # this device draw and commit a new chain (docs/online.md, "Rematch").
        self.rematch_told: tuple[str, int] | None = None
        # We asked for the whole record (hello, resync, watch) and it has not come yet. A sync
        # nobody asked for is refused before it is verified: verifying a record costs time
        # (0.6 s for a 4 MiB one), and a host must not be able to make us spend it at will.
        # Nor by making us ask (an action for a position we are not at makes us ask): we read
        # at most one sync a second on a connection (`synced_at`, GUEST_SYNC_GAP_MS); an honest
        # host sends at most one in 3 s (SYNC_INTERVAL_MS).
        self.sync_wanted = False
        self.synced_at: float | None = None
        self.lobby: dict[str, Any] | None = None
        # The seat this device holds: the one it claimed with its chains, once the host's lobby
        # said so. Only our own claim or watch changes it, never the host's `you` (a host that
        # could make us forget our seat could commit a chain of its own for it).
        self.seat: str | None = None
        self.asked: str | None = None  # a seat claimed, not yet confirmed by a lobby
        # The seat held, its chains and their match, before a claim of another seat that awaits
        # the host's answer: the host keeps that seat (with those chains) when it refuses the
        # claim, so they come back then. A guest that gave them up at once followed the match
        # as a spectator while the host played its seat, waiting for reveals that never came.
        self.unclaimed: tuple[str, list[SecretChain], str | None] | None = None
        # Every (seat, chain) this device offered the host before the match began (its claims,
        # and the seat it held when it pressed another), and whether it asked to watch: two
        # presses within one round trip race, and the host may take an earlier claim and
        # refuse a later one, or keep the seat held before. The host's lobby says where it
        # put us (`you`): followed only to a seat offered here, with the chains offered for
        # it, or to none after a watch (`follow_you`), so that a host cannot give us a seat
        # nor take ours away at will; the match's begin tells which chain it committed.
        self.offered: list[tuple[str, SecretChain]] = []
        self.watch_offered = False
        self.host_you: str | None = None  # the seat the host's last lobby gave us, before the start
        # (seat, claim, chains) this device stored at once at the host's word since its last
        # press (`store_seat`): a few at most, as the seats and chains it offered allow
        self.seats_stored: list[tuple[str | None, str | None, list[SecretChain]]] = []
        self.watching = False
        self.table: FollowerTable | None = None
        # Where this device's player was in the match, "table" or "home" (the page sets its
        # table's, Session.screen): kept with the room, as the host's is, so that a page that
        # opens again opens there (it followed the host's sync onto the table from Home)
        self.screen = "table"
        self.ledger: DiceLedger | None = None
        self.dice: LedgerDice | None = None
        self.turn_seconds = 30.0
        self.here: list[str] = []  # seats whose players are connected
        self.presence = ShownPresence()  # `here` as the table says it (rate-limited)
        self.revealed: set[int] = set()
        self.dropped: set[int] = set()  # rolls where our reveal was sent but not counted
        # version -> the actions we sent at that position (a move, then a quit, say); kept
        # until the host plays that position, to tell whether it played what we asked
        self.sent: dict[int, list[dict[str, Any]]] = {}
        # the person's requests sent on this connection and not yet answered ("act", "claim",
        # "watch"): a refusal is shown over the board only when it answers one (ANSWERS)
        self.awaiting: set[str] = set()
        # (position, action) of the person's last action sent, until the host's answer may
        # have been missed (a new connection, a sync, a refusal): the same again is not sent
        self.on_its_way: tuple[int, Any] | None = None
        # when `on_its_way` was sent, or last chased (the page's time), and how often it was
        # chased so far (ANSWER_MS)
        self.asked_at: float | None = None
        self.chases = 0
        self.notices: list[str] = []  # for the page: what the host refused or did wrong
        self.to_show: str | None = None  # the last notice the page shows over the board
        self.early_timeouts: dict[str, int] = {}  # seat -> timeouts the host played early
        self.quit_sent = False  # this device asked to leave with its seat (kept with the room)
        # our seat, when the host played its quit without this device asking: this device's
        # pages then say the host made the seat leave, not that its player left
        self.forced_quit: str | None = None
        # The turn clock as this device's own engine and clock have it (docs/online.md, "Early
        # timeouts"): the deadline (epoch ms) of the turn under way, from when this page
        # applied the action that started it (`own_from`), whatever the host's `left` says.
        self.own_deadline: float | None = None
        self.own_from: float | None = None
        # The room's clock as the first sync of the match gave it (match id, timer on,
        # turnSeconds), kept with the room: the host sets it once, and a host that could
        # switch it off or shorten it in a later sync would time seats out early unflagged.
        self.clock: tuple[str, bool, int] | None = None
        self.alive_at: float | None = None  # the last moment this page ran (see `alive`)
        self.shown_at: float | None = None  # when a notice last went over the board
        self.stalled_at: float | None = None  # when it last woke from a stall
        self.problem: str | None = None  # the host sent something that does not verify
        self.closed: str | None = None
        self.throws: list[Throw] = []
        self.events: list[dict[str, Any]] = []  # what the last action applied caused
        self.turn_before: str | None = None
        # When this device last heard from the host (the page's wall clock, epoch ms), saved
        # with the room: only the host's page runs the match and its clocks, so while it is
        # away the match waits, and the guest is told for how long (host_away).
        self.host_seen: float | None = None
        self.on_change: Callable[[str], None] = lambda what: None
        self.on_saved: Callable[[], None] = lambda: None  # chains or seat changed: store them
        # characters of the host's messages this page may still read now (READ_REFILL_MS)
        self.read_budget = float(protocol.MAX_HOST_BYTES)
        self.read_at: float | None = None
        # messages of the host's it may still read now (HOST_MESSAGE_RATE), and when it last
        # said it left some unread (UNREAD_NOTICE_MS)
        self.message_budget = HOST_MESSAGE_BURST
        self.message_at: float | None = None
        self.unread_told: float | None = None

    # -- the connection --------------------------------------------------------------------

    def send(self, kind: str, **fields: Any) -> None:
        self.send_text(protocol.encode(kind, self.counter.next(), **fields))

    def connect(self) -> None:
        """A new connection to the host: a fresh count, and hello."""
        self.counter = Counter()
        self.reassembler = protocol.Reassembler(protocol.MAX_HOST_BYTES)
        self.connected = True
        self.reached = True
        self.following = False
        self.rematch_told = None
        self.sync_wanted = True  # a match under way comes with the host's answer (or its begin)
        self.synced_at = None
        self.awaiting = set()  # what was asked on the old connection is answered there or not
        self.unclaimed = None
        self.on_its_way = None
        self.send("hello", name=self.name, secret=self.secret)

    def outdated_by(self, data: Any) -> bool:
        """Whether this page takes ``data``, this room as another tab of this browser saved it
        after this page had read it (the tab this one took the table from, until it stepped
        aside), for its own: while this page has not said hello to the host (that tab's
        connection was the live one: what it saved is newer), and after, when ``data`` is of
        a later match than this page's. That tab followed a rematch this page has not seen,
        and claimed this device's seat for it with a chain only that save holds; the host may
        have begun the match with it, which this page refused then as a claim it did not keep
        (docs/online.md, "Rematch")."""
        if not self.reached:
            return True
        try:
            return isinstance(data, dict) and _state_id(data.get("first", 0)) > self.first
        except ValueError:
            return False

    def disconnect(self, now: float | None = None) -> None:
        """The connection to the host was lost (at ``now``, when the page knows it)."""
        self.connected = False
        if now is not None:
            self.host_seen = now
        self.on_change("host-away")

    def host_away(self, now: float) -> float | None:
        """How long (ms) the host has been away from a running match, as this device saw it:
        since its connection was lost or last carried a message, across this page's reloads.
        None while connected, before the match or after it, or when the host was never seen."""
        if self.connected or self.host_seen is None:
            return None
        if self.table is None and self.match is None:  # before the match (a participant's
            return None  # device knows its match from storage before the host's sync)
        if self.table is not None and self.table.over:
            return None
        return max(0.0, now - self.host_seen)

    def alive(self, now: float, hidden: bool = False) -> None:
        """This page runs at ``now`` (every message, and every tick of the page's clock);
        ``hidden``: the page is not shown (its timers are throttled, it may be frozen). A gap
        over STALL_MS since the last moment, or a hidden page, is a stall: timeouts are then
        not flagged (see :meth:`early_timeout`)."""
        if hidden or (self.alive_at is not None and now - self.alive_at > STALL_MS):
            self.stalled_at = now
        self.alive_at = now if self.alive_at is None else max(self.alive_at, now)
        if self.show_here(now):
            self.on_change("presence")  # a word on who is connected held back, now due
        self.chase_answer(now)

    def unanswered(self) -> bool:
        """Whether this device's last action is still waiting for the host at the position it
        was sent at (neither played nor refused, nor answered by a sync)."""
        return self.connected and self.table is not None and self.on_its_way is not None \
            and self.on_its_way[0] == self.table.version

    def chase_answer(self, now: float) -> None:
        """Ask for the record when the host has left our action unanswered ANSWER_MS (again
        each ANSWER_MS: the host sends at most one sync a guest every SYNC_INTERVAL_MS); from
        the CHASES_TOLD-th time the player is told, once for that action."""
        if not self.unanswered():
            return
        if self.asked_at is None:  # sent since this page last ran: timed from now
            self.asked_at = now
        if now - self.asked_at < ANSWER_MS:
            return
        self.asked_at = now
        self.chases += 1
        self.ask_sync()
        if self.chases == CHASES_TOLD and self.on_its_way is not None:
            # (a quit is not a move: a guest that left with its seat was told "your move")
            what = {"roll": "roll", "quit": "quit"}.get(self.on_its_way[1].get("type"), "move")
            seconds = round(CHASES_TOLD * ANSWER_MS / 1000)
            self.notice(f"The host has not answered your {what} for {seconds} seconds: "
                        "asked it for the game again.")

    @property
    def here_shown(self) -> list[str]:
        """The seats the table shows connected (:class:`ShownPresence`)."""
        return self.presence.seats

    def show_here(self, now: float) -> bool:
        """Bring ``here_shown`` up to ``here`` as the budget of changes allows (before the
        match nothing shows it: it follows at once); True if it changed."""
        return self.presence.follow(self.here, now, limited=self.table is not None)

    def receive(self, text: Any, now: float) -> bool:
        """Handle one message (or part) from the host; True if a message was accepted."""
        self.host_seen = now
        parts = self.reassembler
        under_way = parts.under_way  # (``text`` is a later part of a message)
        if not under_way:
            self.alive(now)
            # a message of n parts costs 1 + (n - 1) / PARTS_PER_MESSAGE, paid at its first
            # part: its other parts are consumed as they come (kept, or skipped unread)
            if not self.may_take(now, 1 + (parts.parts_in(text) - 1) / PARTS_PER_MESSAGE):
                parts.drop(text)  # (and the rest of its message, unsaid)
                return False
        try:
            whole = parts.feed(text)
            if whole is not None and under_way:
                self.alive(now)  # (the last part of a message: the page runs now)
            if whole is None:
                if parts.keeping and parts.next == 1 and parts.least > ASKED_ONLY_BYTES:
                    # the first part of a long message: refused now if it would be once
                    # whole, and the rest of it skipped unread (each part of a 4 MiB sync
                    # nobody asked for was kept and joined, 257 of them, before it was)
                    if self.long_refusal(parts.first, parts.least, now):
                        parts.skip()
                return False
            if len(whole) > ASKED_ONLY_BYTES and self.long_refusal(whole, len(whole), now):
                return False
            if not self.may_read(len(whole), now):
                self.left_unread(now)
                return False
            message = protocol.decode(whole, protocol.HOST_MESSAGES, protocol.MAX_HOST_BYTES)
        except ProtocolError as exc:
            self.notice(f"A message from the host was refused ({exc}).")
            return False
        except Exception as exc:  # a boundary: nothing the host sends may break the page
            self.unhandled("a message", exc)
            return False
        if not self.counter.fresh(message.seq):
            self.notice("A repeated message from the host was ignored.")
            return False
        try:
            getattr(self, f"on_{message.type}")(message, now)
        except Refused as exc:
            # out of step is routine (a message lost or crossed): the record is asked for and
            # nothing is wrong, so the page is not told over the board
            self.notice(str(exc), shown=exc.code != "out-of-step")
            return False
        except Exception as exc:  # a boundary: nothing the host sends may break the page
            self.unhandled(f"its {message.type}", exc)
            return False
        self.counter.accept(message.seq)
        return True

    def long_refusal(self, start: str, size: int, now: float) -> bool:
        """Whether a host's message of ``size`` characters (over ASKED_ONLY_BYTES) that begins
        with ``start`` is refused unread, and said so: only a sync is that long, and one that
        this device did not ask for (or asked too recently), or a repeated one, would be
        refused by on_sync; nor is one read that the read budget cannot pay. Decided from a
        long message's first part (its head and, as every part but the last is full, its
        length within a part), before the rest is put together, and again once it is whole
        (one of 65-80 kB may not look long at its first part). Before, a maximal one (4 MiB
        of small JSON objects) was parsed first, which froze the page about 1.4 s in Chromium,
        and later still put together whole before it was refused."""
        declared = protocol.head(start)
        unread: str | None = None
        if declared is None or declared[1] != "sync":
            unread = NOT_A_SYNC
        elif not self.counter.fresh(declared[0]):
            unread = "A repeated message from the host was ignored."
        else:
            unread = self.sync_refusal(now)
        if unread is not None:
            self.notice(unread)
            return True
        if size > self.readable(now):
            self.left_unread(now)
            return True
        return False

    def may_take(self, now: float, cost: float = 1.0) -> bool:
        """Take ``cost`` (a message, or a part of one under way) from the message budget
        (HOST_MESSAGE_RATE); False, and said once per flood, when it cannot pay it."""
        if self.message_at is not None and now > self.message_at:
            self.message_budget = min(HOST_MESSAGE_BURST, self.message_budget
                                      + (now - self.message_at) * HOST_MESSAGE_RATE)
        if self.message_at is None or now > self.message_at:
            self.message_at = now
        if self.message_budget < cost:
            self.left_unread(now)
            return False
        self.message_budget -= cost
        return True

    def left_unread(self, now: float) -> None:
        """A message of the host's is left unread (too many, or too much): said at most once
        each UNREAD_NOTICE_MS, not for each (each notice is drawn, and a flood that the budget
        lets through a message at a time would say it between every two)."""
        if self.unread_told is None or not 0 <= now - self.unread_told < UNREAD_NOTICE_MS:
            self.unread_told = now
            self.notice(TOO_MUCH)

    def readable(self, now: float) -> float:
        """The characters the read budget can pay now (READ_REFILL_MS)."""
        full = float(protocol.MAX_HOST_BYTES)
        if self.read_at is not None and now > self.read_at:
            self.read_budget = min(full, self.read_budget
                                   + (now - self.read_at) * full / READ_REFILL_MS)
        if self.read_at is None or now > self.read_at:
            self.read_at = now
        return self.read_budget

    def may_read(self, size: int, now: float) -> bool:
        """Take ``size`` characters from the read budget (READ_REFILL_MS); False when the
        budget is short of them."""
        if size > self.readable(now):
            return False
        self.read_budget -= size
        return True

    def unhandled(self, what: str, exc: Exception) -> None:
        """A host's message that broke a check this code did not foresee: the host is not
        followed past it (a problem, as for anything that does not verify), and the page,
        which called :meth:`receive` from the data channel, carries on."""
        self.problem = clean_text(f"The host sent {what} this device could not check "
                                  f"({type(exc).__name__}: {exc}).", 300)
        self.notice(self.problem)

    def notice(self, text: str, shown: bool = True) -> None:
        """Something the host refused or did wrong; ``shown``: the page says it over the board
        (a dropped reveal, a move for this seat it did not make, a refusal of its own move).

        At most one a second goes over the board (and to the screen reader), by the page's
        time of the message that caused it: a host must not be able to flood the board or the
        announcer. The others are only kept in ``notices`` (a problem also stays in the page's
        status line)."""
        self.notices.append(text)
        del self.notices[:-20]
        now = self.alive_at
        if shown and now is not None:
            if self.shown_at is not None and 0 <= now - self.shown_at < NOTICE_GAP_MS:
                shown = False
            else:
                self.shown_at = now
        self.to_show = text if shown else None
        self.on_change("notice")

    # -- asking the host -------------------------------------------------------------------

    def claim(self, seat: str, name: str) -> None:
        chain = SecretChain.new(0, self.chain_length)
        if self.seat is not None:
            self.unclaimed = (self.seat, self.chains, self.match)
            self.offer_held()
        elif self.asked is None:
            self.unclaimed = None
        # (else a claim is on its way: the seat held before it is still the one kept for us)
        self.offer(seat, chain)
        self.chains, self.match = [chain], None
        # The seat held before (if any) was held with the chains just replaced: it is given up,
        # unless the host refuses this claim and keeps it for us (`unclaimed`, on_refused).
        self.seat, self.asked = None, seat
        self.quit_sent, self.forced_quit = False, None
        self.name = clean_name(name)
        self.seats_stored = []  # (what the host makes of this press is stored at once)
        self.on_saved()
        self.awaiting.add("claim")
        self.send("claim", seat=seat, name=self.name, commit=chain.commitment(seat).to_json())

    def watch(self) -> None:
        self.unclaimed = None  # (a seat given up, not exchanged)
        if not self.started:  # before the start the host frees our seat; after, it refuses
            self.offer_held()  # (the host keeps it if it refuses the watch: too many changes)
            self.watch_offered = True
            self.seat = self.asked = None
            self.seats_stored = []
            self.on_saved()
        self.sync_wanted = True
        self.awaiting.add("watch")
        self.send("watch")

    def offer(self, seat: str, chain: SecretChain) -> None:
        if not any(c is chain for _, c in self.offered):
            self.offered.append((seat, chain))
            del self.offered[:-MAX_OFFERED]

    def offer_held(self) -> None:
        """The seat held is one the host may keep for us (it refuses what we pressed next):
        offered with its chains, unless they belong to a match (a rematch's claim never brings
        back the old match's chains)."""
        if self.seat is not None and self.match is None:
            for chain in self.chains:
                self.offer(self.seat, chain)

    def follow_you(self, you: str | None) -> bool:
        """Before the match: take the seat the host says it holds for us, if we offered it
        (with every chain offered for it: its begin tells which one it committed), or none if
        we asked to watch. True if followed."""
        if you is None:
            if not self.watch_offered:
                return False
            self.seat = None
            return True
        chains = [c for s, c in self.offered if s == you]
        if not chains:
            return False
        if self.asked == you:
            self.asked, self.unclaimed = None, None
        self.seat, self.chains, self.match = you, chains, None
        return True

    def store_seat(self) -> None:
        """The host's word changed our seat or chains: stored at once (on_saved), unless this
        device stored this very seat, claim and chains at the host's word since its person's
        last press: that the page writes again within 250 ms (``on_change`` follows). A host
        switching `you` between two seats we offered had us store the room for each of its
        lobbies, 40 times a second; an honest one moves us to each state of a race once, as
        it answers our presses in order. (The states are few: a seat offered or none, with
        the chains offered for it, our claim answered or not.)"""
        state = (self.seat, self.asked, list(self.chains))
        if state in self.seats_stored:
            return
        self.seats_stored.append(state)
        self.on_saved()

    def keep_committed(self, ledger: DiceLedger) -> None:
        """The match began: of the chains offered for our seat, only the one the host committed
        stays (a reveal takes the last chain from roll 0; a page reloaded in the race kept
        them all), and nothing is offered any more."""
        if self.seat is not None:
            committed = ledger.commitment_for(self.seat, 0)
            self.chains = [c for c in self.chains
                           if c.start != 0 or c.commitment(self.seat) == committed]
        self.offered, self.watch_offered, self.host_you = [], False, None
        self.seats_stored = []

    @property
    def started(self) -> bool:
        return self.ledger is not None or bool(self.lobby and self.lobby["started"])

    def online_seats(self) -> list[str]:
        """The seats played online: in a match, its dice participants other than the host,
        fixed when it began (and checked against the lobby then); before, the lobby's. A
        lobby the host sends during the match changes nothing here: one listing the host's
        own seat as online made the guest's page call the host's player away."""
        if self.ledger is not None:
            return [p for p in self.ledger.participants if p != HOST]
        return [] if self.lobby is None else \
            [r["seat"] for r in self.lobby["seats"] if r["kind"] == ONLINE]

    def act(self, action: Action) -> None:
        if self.table is None:
            return
        if action.type == "quit" and action.seat == self.seat:
            self.quit_sent = True
            self.on_saved()
        asked = (self.table.version, action.to_json())
        if asked == self.on_its_way:
            # the same action again at the same position while the first is on its way (Enter
            # pressed twice, a double click): it could only be refused, and the host's
            # "stale action: it was meant for position 3, the table is at 4" went over the
            # board in red after a roll that had worked
            return
        self.on_its_way = asked
        # timed from this page's next moment (chase_answer), not its last: a page frozen a
        # minute, its roll pressed before its clock's first tick, was chased at that tick
        self.asked_at, self.chases = None, 0
        sent = self.sent.setdefault(self.table.version, [])
        sent.append(action.to_json())
        del sent[:-SENT_PER_VERSION]
        self.awaiting.add("act")
        self.send("act", version=self.first + self.table.version, action=action.to_json())

    def rolling_sent(self) -> bool:
        """Whether this device's roll at the table's position is on its way to the host, and
        held back if pressed again (``act``): the page shows the die rolling, not ready."""
        return self.table is not None and self.on_its_way is not None \
            and self.on_its_way[0] == self.table.version \
            and self.on_its_way[1].get("type") == "roll"

    # -- host messages ---------------------------------------------------------------------

    def on_lobby(self, message: Message, now: float) -> None:
        body, t = message.body, self.table
        # the match under way is the game the lobby shows: a host that sent its record before
        # its lobby must not show another game (or clock) on the room screen than it plays
        if t is not None and (body["rules"] != t.record.rules
                              or body["options"] != dict(t.record.options)):
            self.problem = (f"The host's lobby shows {_game_words(body['rules'], body['options'])}"
                            f", but the match under way is "
                            f"{_game_words(t.record.rules, t.record.options)}: it is refused.")
            raise Refused("bad-lobby", self.problem)
        if t is not None and self.clock is not None and body["timer"] != self.clock[1]:
            self.problem = (f"The host's lobby changes the room's turn clock (from "
                            f"{_clock_words(self.clock)} to {'a' if body['timer'] else 'no'} "
                            "clock): it is refused.")
            raise Refused("bad-lobby", self.problem)
        listed = [r["seat"] for r in body["seats"] if r["kind"] == ONLINE]
        if self.ledger is not None and listed != self.online_seats():
            # a match's online seats are its dice participants, fixed when it began; an honest
            # host's seat kinds never change (HostRoom.kinds), so a lobby listing others is a
            # forgery, refused here rather than by the next sync's "does not verify"
            self.problem = (f"The host's lobby says {_seats_words(listed)} played online, but "
                            f"in the match under way {_seats_words(self.online_seats())}: it "
                            "is refused.")
            raise Refused("bad-lobby", self.problem)
        you = message.body["you"]
        held = (self.seat, self.asked, list(self.chains))
        self.awaiting -= {"claim", "watch"}  # a lobby answers both
        if not self.started:
            self.host_you = you
        # before the start the host's `you` is followed only to a seat we offered, or to none
        # after a watch (follow_you); otherwise our seat is the one we claimed until we claim
        # another or watch, and `begin` is checked against it
        followed = not self.started and self.follow_you(you)
        if not followed and you is not None and you == self.asked:  # the host took our claim
            self.seat, self.asked, self.unclaimed = you, None, None
        elif not followed and you != self.seat and (self.started or message.body["started"]):
            self.problem = (f"The host says your seat is {you or 'none'}, but you claimed "
                            f"{self.seat or 'none'}: it is refused.")
            raise Refused("bad-lobby", self.problem)
        # a host's names are kept as a name typed here is: no control or bidi characters
        self.lobby = dict(message.body, seats=[dict(r, name=clean_name(r["name"]))
                                               for r in message.body["seats"]])
        self.here = [r["seat"] for r in message.body["seats"] if r["here"]]
        self.show_here(now)
        if (self.seat, self.asked, self.chains) != held:
            # stored at once only when our seat changed: the page writes the rest at most
            # every 250 ms, and a host sending lobbies without pause made it write the room
            # for each one
            self.store_seat()
        self.on_change("lobby")

    def check_participants(self, participants: tuple[str, ...],
                           online: list[str] | None = None) -> None:
        """The dice participants must be exactly the host and the room's online seats, in seat
        order, our own seat among them: a participant that is no seat would be a chain the host
        holds and counts at will, and a seat left out is never asked. The online seats are the
        lobby's (`begin` follows one); a `sync` names them too (its `players`), and both must
        agree when the guest has seen both."""
        lobby = None if self.lobby is None else \
            [r["seat"] for r in self.lobby["seats"] if r["kind"] == ONLINE]
        if online is None:
            if lobby is None:
                raise DiceError("the host started without showing the room's seats first")
            online = lobby
        elif lobby is not None and lobby != online:
            raise DiceError(f"the online seats are {', '.join(online) or 'none'} here, "
                            f"{', '.join(lobby) or 'none'} in the lobby")
        expected = (HOST, *online)
        if participants != expected:
            raise DiceError(f"the dice participants are {', '.join(participants)}; the room's "
                            f"are {', '.join(expected)}")
        if self.seat is not None and self.seat not in participants:
            raise DiceError(f"your seat {self.seat} is not among the dice participants")

    def on_rematch(self, message: Message, now: float) -> None:
        """The host plays again in this room (docs/online.md, "Rematch"): a new match, with
        state ids from ``first`` on. This device's seat commits a new chain for it (the old
        one's links were revealed); a spectator waits for the new match's start."""
        match, first = message.body["match"], message.body["first"]
        ledger, t = self.ledger, self.table
        # told on the connection that followed the match to its end: the host keeps our seat
        # for us (only a player not connected loses it), so it stays ours through the claim
        held = self.seat if self.following else None
        if ledger is not None and ledger.room == match and first == self.first:
            return  # the match under way here (told again at a reconnection)
        if first < self.first or (t is not None and first <= self.first + t.version):
            raise Refused("stale", f"a rematch from position {first}, which this device has "
                          "passed: it is ignored")
        if self.following and (t is None or not t.over):
            # a host must not start the match afresh (new dice) while it runs: only once over.
            # From its begin on, while its seed is drawn too (no table yet): a host that saw
            # our reveal for roll 0 could otherwise throw the match away until a seed suits it
            self.problem = "The host started another match before this one was over."
            raise Refused("bad-rematch", self.problem)
        if self.rematch_told == (match, first):
            return  # told again on this connection: our claim for it went out already
        if self.rematch_told is not None:
            # another rematch before the one announced began: each would have this device
            # draw a new chain (a host could keep it drawing, or throw away the seats' claims)
            self.problem = "The host started another rematch before the one it announced began."
            raise Refused("bad-rematch", self.problem)
        if ledger is not None and ledger.room == match or self.match == match:
            self.problem = "The host's rematch has the old match's id: it is refused."
            raise Refused("bad-rematch", self.problem)
        if first > self.first:  # a new match for this device: nothing of the old one stays
            unfinished = ledger is not None and (t is None or not t.over)
            self.first = first
            self.table = self.ledger = self.dice = None
            self.lobby, self.following, self.clock = None, False, None
            self.throws, self.revealed, self.dropped, self.sent = [], set(), set(), {}
            self.events, self.turn_before = [], None
            self.own_deadline = self.own_from = None
            self.quit_sent, self.forced_quit, self.early_timeouts = False, None, {}
            self.sync_wanted, self.synced_at = True, None  # the new match's record is read
            self.awaiting.discard("act")  # a move of the old match is answered by nobody now
            self.on_its_way = None
            self.on_saved()
            if unfinished:
                # back after being away (a match this device follows is refused above): the
                # old match may have ended meanwhile, or the host dropped it; said, not hidden
                self.notice("The host started a new match in this room; the one this device "
                            "last saw had not ended.")
        self.rematch_told = (match, first)
        seat = self.seat or self.asked
        if seat is not None:
            self.claim(seat, self.name)  # a new chain, for this match only
            self.unclaimed = None  # (the old match's chains never serve again)
        if held is not None:
            # (not merely asked: a host that left our claim unanswered and began with a chain
            # of its own for our seat would play it, this device watching, none the wiser)
            self.seat, self.asked = held, None
            self.on_saved()
        self.on_change("rematch")

    def on_begin(self, message: Message, now: float) -> None:
        match = message.body["match"]
        if message.body["first"] != self.first:
            self.problem = (f"The host's start counts positions from {message.body['first']}, "
                            f"this room's match from {self.first}: it is refused.")
            raise Refused("bad-begin", self.problem)
        try:
            ledger = DiceLedger(match, message.body["participants"])
            self.check_participants(ledger.participants)
            for data in message.body["commits"]:
                ledger.commit(self.checked_commitment(Commitment.from_json(data), match))
            if self.seat is not None and ledger.commitment_for(self.seat, 0) is None:
                raise DiceError(f"no chain of yours is committed for {self.seat}")
        except DiceError as exc:
            self.problem = f"The host's start does not verify: {exc}"
            raise Refused("bad-begin", self.problem) from None
        old = self.ledger
        if old is None:
            self.keep_committed(ledger)
        if old is not None and (old.room != match or old.rolls or old.events != ledger.events):
            # Only the same start again (a host that reloaded while the seed was drawn).
            self.problem = "The host started the match again, or another one, in this room."
            raise Refused("bad-begin", self.problem)
        if old is not None and old.opened is not None:
            ledger.open(old.opened)  # roll 0, which we revealed for: no chain may cover it now
        self.ledger, self.dice, self.table = ledger, LedgerDice(ledger), None
        self.revealed, self.dropped = set(), set()
        self.bind(ledger)
        self.following, self.rematch_told = True, None
        self.on_change("begin")

    def checked_commitment(self, commitment: Commitment, match: str) -> Commitment:
        """Our own seat's commitments must be our chains' (else the host plays our dice), and
        chains of this match (else the host knows links we revealed in another)."""
        if commitment.participant == self.seat and self.seat is not None:
            if not any(c.commitment(self.seat) == commitment for c in self.chains):
                raise DiceError(NOT_YOURS)
            if self.match is not None and self.match != match:
                raise DiceError("the host committed your chain from another match")
        return commitment

    def bind(self, ledger: DiceLedger) -> None:
        """Our chains now belong to this match (if we are one of its participants)."""
        if self.match is None and self.seat is not None and self.seat in ledger.participants:
            self.match = ledger.room
            self.on_saved()

    def on_open(self, message: Message, now: float) -> None:
        roll, n = message.body["roll"], message.body["n"]
        ledger, seat = self.ledger, self.seat
        if ledger is None or seat is None or seat not in ledger.participants:
            raise Refused("not-participant", "the host asked a reveal of a non-participant")
        if roll > ledger.next_roll:  # an earlier roll's settling was lost on the way
            self.ask_sync()
            raise Refused("out-of-step", f"the host asked for roll {roll} while this device "
                          f"waits for roll {ledger.next_roll}: asking the host for the record")
        if roll != ledger.next_roll:
            raise Refused("bad-open", f"the host asked for roll {roll} out of turn")
        if self.match != ledger.room:
            raise Refused("bad-open", "our dice chains belong to another match")
        # Reveal only for the roll the position needs now: a reveal gives away every earlier
        # link, and the host must not learn a die before the position needs it.
        if roll == 0:
            wanted = n == SEED_RANGE and self.table is None
        else:
            t, dice = self.table, self.dice
            wanted = t is not None and dice is not None and is_chance(t.state) \
                and dice.next_roll == roll and n == len(chance_outcomes(t.state))
        if not wanted:
            raise Refused("bad-open", f"the host asked for roll {roll} when no die is due")
        chain = next((c for c in reversed(self.chains) if c.start <= roll), None)
        if chain is None:
            raise Refused("no-chain", "no chain for this roll")
        try:
            reveal = chain.reveal(roll)
        except DiceError as exc:
            raise Refused("no-chain", str(exc)) from None
        # From now on no chain may be committed for this roll, the host's included: the host
        # sees our reveal before it settles, and a chain of its own committed after that would
        # let it try links until the die is the one it wants. The record has no trace of when
        # a roll was asked for, so only this device can hold the host to it (on_commit, and
        # on_sync through `asked_commitment`).
        ledger.open(roll)
        self.revealed.add(roll)
        self.send("reveal", roll=roll, reveal=reveal.hex())

    def on_settled(self, message: Message, now: float) -> None:
        ledger = self.ledger
        if ledger is None:
            raise Refused("not-started", "a roll before the match began")
        body = message.body
        if body["roll"] != ledger.next_roll:
            # A later roll: the message settling the one before was lost on the way (a relay
            # restarting); an earlier one: a repeat of what a sync already brought. Neither is
            # a die that fails to verify (the record, asked for now, is verified whole).
            self.ask_sync()
            raise Refused("out-of-step", f"roll {body['roll']} came while this device waits "
                          f"for roll {ledger.next_roll}: asking the host for the record")
        try:
            pairs = [(p, bytes.fromhex(r)) for p, r in body["reveals"]]
            settled = ledger.preview(body["roll"], body["n"], pairs)
            if settled.value != body["value"]:
                raise DiceError(f"the reveals give {settled.value}, the host says "
                                f"{body['value']}")
            if HOST not in settled.contributors:
                # the host reveals at once when it opens a roll: it is never late to itself,
                # and leaving its own reveal out after seeing ours would be a choice of value
                raise DiceError(f"roll {settled.roll} was settled without the host's reveal")
            ledger.settle(body["roll"], body["n"], pairs)
        except DiceError as exc:
            self.problem = f"A die from the host does not verify: {exc}"
            raise Refused("bad-roll", self.problem) from None
        if self.seat in settled.missing and settled.roll in self.revealed:
            self.dropped.add(settled.roll)
            self.notice(f"Your reveal for roll {settled.roll} was not counted.")
        elif self.seat in settled.missing and self.seat in ledger.participants \
                and self.following:
            # We are seated and connected, and this connection gave us the match before (so the
            # host had us here when it opened the roll), yet the host settled it without asking
            # us: as good as dropping our reveal, and shown the same way.
            self.dropped.add(settled.roll)
            self.notice(f"The host settled roll {settled.roll} without asking for your reveal.")
        self.renew(ledger)
        self.on_change("settled")

    def renew(self, ledger: DiceLedger) -> None:
        seat = self.seat
        if seat is None or seat not in ledger.participants or not self.chains:
            return
        if ledger.links_left(seat) < RENEW_MARGIN and self.chains[-1].end <= ledger.next_roll \
                + ledger.links_left(seat):
            chain = self.chains[-1].successor(self.chain_length)
            self.chains.append(chain)
            self.on_saved()
            # the host's broadcast of it puts it into our ledger, in the host's order
            self.send("commit", commit=chain.commitment(seat).to_json())

    def on_commit(self, message: Message, now: float) -> None:
        if self.ledger is None:
            raise Refused("not-started", "a commitment before the match began")
        try:
            commitment = self.checked_commitment(Commitment.from_json(message.body["commit"]),
                                                 self.ledger.room)
            refusal = guest_commit_refusal(self.ledger, commitment)
            if refusal is not None:
                raise DiceError(refusal)
            self.ledger.commit(commitment)
        except DiceError as exc:
            raise Refused("bad-commit", str(exc)) from None

    def sync_refusal(self, now: float) -> str | None:
        """Why a sync would not be read now (not asked for, or too soon after the last one),
        or None."""
        if not self.sync_wanted:
            return UNASKED_SYNC
        if self.synced_at is not None and now - self.synced_at < GUEST_SYNC_GAP_MS:
            # still wanted: the next one, a second on, is read
            return "A record the host sent too soon after the last one was ignored."
        return None

    def on_sync(self, message: Message, now: float) -> None:
        refusal = self.sync_refusal(now)
        if refusal is not None:
            raise Refused("unasked-sync" if refusal == UNASKED_SYNC else "sync-too-soon",
                          refusal)
        self.sync_wanted = False
        self.synced_at = now
        body = message.body
        try:
            record = record_from_json(body["record"])
            if record.dice is None:
                raise DiceError("the record has no dice")
            lobby = self.lobby
            if lobby is not None and (record.rules != lobby["rules"]
                                      or dict(record.options) != lobby["options"]):
                # the room's game is the one its lobby showed when the seat was taken: a host
                # must not show one (Classic, no teams) and play another (Courtyard, teams)
                played = _game_words(record.rules, record.options)
                shown = _game_words(lobby["rules"], lobby["options"])
                raise DiceError(f"the record is a match of {played}, the room's lobby showed "
                                f"{shown}")
            ledger = DiceLedger.replay(record.dice, successor_rule)
            players = body["players"]
            self.check_participants(ledger.participants, [
                s for s in record.seats if players.get(s) == "remote"])
            for event in ledger.events:
                if "commit" in event:
                    self.checked_commitment(Commitment.from_json(event["commit"]), ledger.room)
            if self.seat is not None and ledger.commitment_for(self.seat, 0) is None:
                raise DiceError(f"no chain of yours is committed for {self.seat}")
            lone = next((r.roll for r in ledger.rolls if HOST not in r.contributors), None)
            if lone is not None:
                raise DiceError(f"roll {lone} was settled without the host's reveal")
            verified = replay_verified(record, ledger)
        except (LudoError, DiceError) as exc:
            self.problem = f"The host's record does not verify: {exc}"
            if str(exc) == NOT_YOURS and body["first"] > self.first:
                # a match whose start this device never saw (its saved room is of a match
                # before): its own claim for it may have gone out and not been kept here
                self.problem += LOST_CLAIM
            raise Refused("bad-sync", self.problem) from None
        if body["first"] != self.first:
            self.problem = (f"The host's record counts positions from {body['first']}, this "
                            f"room's match from {self.first}: it is refused.")
            raise Refused("bad-sync", self.problem)
        if body["you"] != self.seat:
            self.problem = (f"The host's record says your seat is {body['you'] or 'none'}, "
                            f"but you claimed {self.seat or 'none'}: it is refused.")
            raise Refused("bad-sync", self.problem)
        old, old_ledger = self.table, self.ledger
        same = old_ledger is not None and old_ledger.room == ledger.room \
            and old_ledger.participants == ledger.participants
        if old_ledger is not None and not same:
            self.problem = "The host sent another match than the one under way in this room."
            raise Refused("bad-sync", self.problem)
        if old is not None and (len(record.actions) < old.version
                                or record.actions[:old.version] != old.record.actions):
            self.problem = "The host's record rewrites or takes back moves already played."
            raise Refused("bad-sync", self.problem)
        if old_ledger is not None and ledger.events[:len(old_ledger.events)] != old_ledger.events:
            self.problem = "The host's record rewrites or takes back dice already settled."
            raise Refused("bad-sync", self.problem)
        if old_ledger is not None and (late := asked_commitment(old_ledger, ledger)):
            self.problem = f"The host's record does not verify: {late}"
            raise Refused("bad-sync", self.problem)
        if old_ledger is not None and old_ledger.opened == ledger.next_roll:
            ledger.open(ledger.next_roll)  # still open: we revealed for it (see on_open)
        clock = (ledger.room, body["timer"], body["turnSeconds"])
        kept = self.clock if self.clock is not None and self.clock[0] == ledger.room else None
        lobby_timer = None if self.lobby is None else self.lobby["timer"]
        was: tuple[Any, ...] | None = None  # the clock this sync would change
        if kept is not None and kept != clock:
            was = kept
        elif lobby_timer not in (None, body["timer"]):
            was = (ledger.room, lobby_timer, body["turnSeconds"])
        if was is not None:
            self.problem = (f"The host's record changes the room's turn clock (from "
                            f"{_clock_words(was)} to {_clock_words(clock)}): it is refused.")
            raise Refused("bad-sync", self.problem)
        if self.clock != clock:
            self.clock = clock
            self.on_saved()
        seat = self.seat
        seats = record.seats
        host_players = {s: k for s, k in body["players"].items() if s in seats}
        players = {s: (k if k in COMPUTER_LEVELS else "remote") for s, k in host_players.items()}
        players.update({s: "remote" for s in seats if s not in host_players})
        if seat in seats:
            players.pop(seat, None)  # our own seat: a person at this device
        names = {s: clean_name(n) for s, n in body["names"].items()
                 if s in seats and isinstance(n, str) and clean_name(n)}
        left = body["left"]
        session = Session(record._replace(dice=None), names, players, body["timer"],
                          None if left is None else now + left, self.page_screen())
        # the start of the turn under way was not seen here: the host's word is all there is
        self.own_deadline, self.own_from = session.deadline, now
        self.turn_seconds = float(body["turnSeconds"])
        table = FollowerTable.restore(session, verified.states, verified.events, now,
                                      self.turn_seconds)
        assert isinstance(table, FollowerTable)
        table.own = frozenset({seat}) if seat else frozenset()
        self.dice = LedgerDice(ledger, verified.used)
        table.dice = self.dice
        self.table, self.ledger = table, ledger
        # what we sent at positions the record has played is settled by the record (entries
        # at its own position stay: the host may still play an action it queued there)
        self.sent = {v: a for v, a in self.sent.items() if v >= table.version}
        if old_ledger is None:  # (a match whose begin this connection did not bring)
            self.keep_committed(ledger)
        self.bind(ledger)
        self.throws = verified.throws
        self.here = list(body["connected"])
        self.show_here(now)
        unasked, uncounted = [], []
        if same and old_ledger is not None and seat in ledger.participants:
            # rolls settled since our last ledger and sent in a sync instead of `settled` are
            # checked as `settled` would be: our reveal sent but not counted was dropped; and
            # while we followed the host on this connection, a roll never asked of us too
            new = ledger.rolls[len(old_ledger.rolls):]
            uncounted = [r.roll for r in new if seat in r.missing and r.roll in self.revealed]
            if self.following:
                unasked = [r.roll for r in new
                           if seat in r.missing and r.roll not in self.revealed]
        counted = {r.roll for r in ledger.rolls if seat in r.contributors}
        self.revealed = (self.revealed | counted) if same else counted
        self.following, self.rematch_told = True, None
        for roll in uncounted:
            self.dropped.add(roll)
            self.notice(f"Your reveal for roll {roll} was not counted.")
        for roll in unasked:
            self.dropped.add(roll)
            self.notice(f"The host settled roll {roll} without asking for your reveal.")
        # a problem found earlier stays: a record that verifies now does not undo a die or a
        # move that did not (it is the player's evidence), so the page keeps saying it
        self.awaiting.discard("watch")  # a watch after the start is answered so
        self.on_its_way = None  # (an action the host did not play can be sent again)
        self.on_change("sync")

    def ask_sync(self) -> None:
        """Ask the host for the whole record (we are out of step with it)."""
        self.sync_wanted = True
        self.send("resync")

    def on_action(self, message: Message, now: float) -> None:
        t, dice = self.table, self.dice
        if t is None or dice is None:
            self.ask_sync()
            return
        version = message.body["version"] - self.first
        if version < 0:  # a position of the match before a rematch
            raise Refused("stale", f"an action for position {message.body['version']}, of an "
                          f"earlier match (this one's start at {self.first}): it is ignored")
        if version != t.version:
            self.ask_sync()
            raise Refused("out-of-step", f"an action for position {version + self.first}, "
                          f"this table is at {t.version + self.first}: asking the host for "
                          "the record")
        actor, state = message.body["actor"], t.state
        shown, timed_out = t.session.deadline, to_act(state)
        deadline, deadline_from = self.own_deadline, self.own_from
        t.session.deadline = None  # the table sets it again when this action starts a clock
        try:
            action = t.rules.parse_action(message.body["action"])
            self.events = t.submit(actor, action, now, seen=version)
            self.turn_before = to_act(state)
        except RollNeeded as need:
            # the message settling this die was lost on the way: out of step, not a bad move
            # (the record, asked for now, is verified whole, its dice included)
            t.session.deadline = shown
            self.ask_sync()
            raise Refused("out-of-step", f"the die for roll {need.roll} has not reached this "
                          "device: asking the host for the record") from None
        except (LudoError, IllegalAction) as exc:
            t.session.deadline = shown
            self.problem = f"The host sent a move the rules refuse: {exc}"
            raise Refused("bad-action", self.problem) from None
        if t.session.deadline is not None:  # a new turn, or an extra roll: a fresh clock
            self.own_deadline, self.own_from = t.session.deadline, now
        elif t.over:
            self.own_deadline = self.own_from = None
        roll = dice.confirm()
        if roll is not None:
            self.throws.append(throw_of(state, t.record.actions[-1], dice.ledger, roll))
        mine = self.sent.pop(version, None)
        if actor == self.seat:
            self.awaiting.discard("act")  # our move, applied
        if action.type == "quit" and self.seat is not None and action.seat == self.seat:
            if not self.quit_sent:
                # leaving is the player's own decision, sent from this device only (the host
                # queues a quit, so it may land at a later position than it was sent at)
                self.forced_quit = self.seat
                self.problem = (f"The host made your seat, {t.name(self.seat)}, leave the "
                                "match: you did not ask to leave from this device.")
                self.notice(self.problem)
        elif actor == self.seat and action.type != "timeout" \
                and not as_asked(state, t.state, t.record.actions[-1], mine or []):
            # a move for our seat we did not send, or another one than we sent (the host's
            # table plays our seat's only decision at the deadline, and may: not flagged)
            if mine is None:
                self.notice("The host played a move for your seat that you did not make.")
            else:
                played = " ".join(t.told) or "another move"
                self.notice("The host played a move for your seat other than the one you "
                            f"made: {played}")
        self.sent = {v: a for v, a in self.sent.items() if v > version}
        if action.type == "timeout" and timed_out is not None:
            self.early_timeout(t, timed_out, deadline, deadline_from, now)
        left = message.body["left"]
        told = None if left is None else now + left
        own = self.own_deadline
        if t.session.timer and own is not None and (told is None
                                                    or told < own - EARLY_TIMEOUT_MS):
            # the host says there is no clock, or far less time than this turn's clock has
            # left by the rules and this device's clock: the page shows the rules' clock (a
            # timeout before it is flagged all the same, whatever the host said)
            told = own
        t.session.deadline = told
        self.send("ack", version=self.first + version)
        self.on_change("action")

    def early_timeout(self, t: FollowerTable, seat: str, deadline: float | None,
                      deadline_from: float | None, now: float) -> None:
        """Flag the host's timeout of ``seat`` if it came more than EARLY_TIMEOUT_MS before
        the turn's deadline as this device worked it out (from when it applied the action
        that started the turn: never from the host's `left`, which a host could set to 0).

        Not flagged when this page stalled (it was hidden, or did not run for STALL_MS) from
        just before that action to now: a page that wakes handles a backlog at once, and the
        start of a turn and its timeout, sent 30 s apart, reach it in the same moment."""
        if not t.session.timer or deadline is None or deadline_from is None \
                or now >= deadline - EARLY_TIMEOUT_MS:
            return
        if self.stalled_at is not None and self.stalled_at >= deadline_from - STALL_MS:
            return
        # the clock is the host's: a timeout well before the deadline is the host's doing
        # (network delay shifts it by far less), and five eliminate a seat
        self.early_timeouts[seat] = self.early_timeouts.get(seat, 0) + 1
        self.notice(f"By this device's clock, the host timed {t.name(seat)} out "
                    f"{round((deadline - now) / 1000)} s before the clock ran out.")

    def on_dropped(self, message: Message, now: float) -> None:
        roll = message.body["roll"]
        ledger = self.ledger
        if ledger is not None and 0 <= roll < len(ledger.rolls) \
                and self.seat in ledger.rolls[roll].contributors:
            return  # the ledger counts it: a host saying otherwise is not believed
        if roll not in self.revealed:
            # a roll this device never revealed for (a spectator never reveals): nothing of
            # ours was dropped, and the host's word for it is not shown
            return
        self.dropped.add(roll)
        self.notice(f"Your reveal for roll {roll} arrived too late to be counted.")

    def on_presence(self, message: Message, now: float) -> None:
        here = list(message.body["connected"])
        if here != self.here:  # (the same again changes nothing: nothing to save or draw)
            self.here = here
            self.show_here(now)
            self.on_change("presence")

    def on_refused(self, message: Message, now: float) -> None:
        # the host's words, as in `closed`: cleaned (no controls, nothing that reverses the
        # page's own text), kept short, and isolated so that right-to-left words stay theirs
        words = clean_text(message.body["message"], 120) or "no reason given"
        code = message.body["code"]
        self.on_its_way = None
        if code == "stale-action":
            # our move was meant for a position the host has left: we missed a message, and
            # the record brings us up to date (the host sends it at most every few seconds)
            self.awaiting.discard("act")
            self.ask_sync()
            self.notice(f"The host refused: \u2068{words}\u2069", shown=False)
            return
        # shown only as the answer to a request of ours still awaiting one (each is answered
        # once); any other is kept among the notices (a host's words, or a refusal of what
        # this device sent by itself, are not said over the board as if a move were refused)
        answered = next((kind for kind in sorted(self.awaiting)
                         if code in ANSWERS[kind] or code in ANY_REQUEST), None)
        if answered is not None:
            self.awaiting.discard(answered)
        if answered == "claim" and self.unclaimed is not None:
            # the host keeps the seat we held, with its chains: ours again
            (self.seat, self.chains, self.match), self.asked = self.unclaimed, None
            self.unclaimed = None
            self.on_saved()
        if not self.started and self.host_you != self.seat and self.follow_you(self.host_you):
            # a refusal changes nothing: the host holds for us what its last lobby said (a
            # press answered before this one by a lobby no longer "awaits" an answer)
            self.store_seat()
        self.notice(f"The host refused: \u2068{words}\u2069", shown=answered is not None)

    def on_closed(self, message: Message, now: float) -> None:
        # the host's words, said as the host's: they stand in the page's status line, so they
        # are cleaned (no controls that reverse the page's own text) and kept short
        self.closed = "From the host: " + (clean_text(message.body["reason"], 120)
                                           or "the room is closed.")
        self.on_change("closed")

    # -- saving ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """What this device keeps for the room: its secret, name, chains and seat."""
        return {"room": self.room, "secret": self.secret, "name": self.name,
                "chains": [c.to_json() for c in self.chains], "seat": self.seat,
                "asked": self.asked, "match": self.match, "first": self.first,
                "hostSeen": self.host_seen,
                "quitSent": self.quit_sent, "forcedQuit": self.forced_quit,
                "earlyTimeouts": self.early_timeouts, "screen": self.page_screen(),
                "clock": None if self.clock is None else {
                    "match": self.clock[0], "timer": self.clock[1],
                    "turnSeconds": self.clock[2]}}

    def page_screen(self) -> str:
        """Where this device's player is in the match: its table's, else as kept."""
        return self.table.session.screen if self.table is not None else self.screen

    @classmethod
    def restore(cls, data: Any, send: Callable[[str], None],
                key: str | None = None) -> GuestRoom:
        """The room from :meth:`to_json` (DiceError if it is damaged); ``key``: the room id
        it was stored under, which its own must be."""
        if not isinstance(data, dict):
            raise DiceError("a saved room is a JSON object")
        try:
            secret = data["secret"]
            bytes.fromhex(secret)
            if len(secret) != 64:
                raise ValueError("secret")
            room = cls(saved_room_id(data, key), secret, clean_name(str(data["name"])), send,
                       saved_chains(data["chains"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise DiceError(f"the saved room is damaged ({exc})") from None
        seat = data.get("seat")
        room.seat = seat if isinstance(seat, str) else None
        asked = data.get("asked")  # absent in rooms saved before a claim was kept apart
        room.asked = asked if isinstance(asked, str) else None
        match = data.get("match")  # absent in rooms saved before chains were bound to a match
        room.match = match if isinstance(match, str) else None
        try:  # absent in rooms saved before rematches; any other is the host's match's
            room.first = _state_id(data.get("first", 0))  # (a room that half-works else)
        except ValueError as exc:
            raise DiceError(f"the saved room is damaged ({exc})") from None
        seen = data.get("hostSeen")  # absent in rooms saved before it was kept
        room.host_seen = _finite_float(seen)
        # absent in rooms saved before they were kept (read as hostile: else as absent)
        room.quit_sent = data.get("quitSent") is True
        forced = data.get("forcedQuit")
        room.forced_quit = forced if isinstance(forced, str) and forced == room.seat else None
        if room.forced_quit is not None:
            room.problem = ("The host made your seat leave the match: you did not ask to "
                            "leave from this device.")
        room.clock = _saved_clock(data.get("clock"))  # absent in rooms saved before it was
        room.screen = "home" if data.get("screen") == "home" else "table"  # (likewise)
        early = data.get("earlyTimeouts")
        if isinstance(early, dict):
            room.early_timeouts = {s: n for s, n in list(early.items())[:8]
                                   if isinstance(s, str) and len(s) <= 16
                                   and type(n) is int and 0 < n <= 10**6}
        return room


def _seats_words(seats: list[str]) -> str:
    """Seats as a sentence's subject: "green and yellow are", "no seat is"."""
    if not seats:
        return "no seat is"
    return f"{join_words(seats)} {'is' if len(seats) == 1 else 'are'}"


def _game_words(rules: Any, options: Mapping[str, Any] | tuple[tuple[str, Any], ...]) -> str:
    """A rule set and its options in a problem's words (the host's text: cleaned, short)."""
    shown = ", ".join(f"{k}: {str(v)[:20]}" for k, v in list(dict(options).items())[:4])
    words = clean_text(str(rules), 32) + (f" ({shown})" if shown else "")
    return clean_text(words, 80)


def _clock_words(clock: tuple[Any, ...]) -> str:
    return f"{clock[2]} s a turn" if clock[1] is True else "no clock"


def _saved_clock(value: Any) -> tuple[str, bool, int] | None:
    """A stored room clock read as hostile input: as a sync carries it, else None."""
    if not isinstance(value, dict) or set(value) != {"match", "timer", "turnSeconds"}:
        return None
    match, timer, seconds = value["match"], value["timer"], value["turnSeconds"]
    if not isinstance(match, str) or len(match) > 64 or type(timer) is not bool \
            or type(seconds) is not int or not 1 <= seconds <= 3600:
        return None
    return match, timer, seconds


def _state_id(value: Any) -> int:
    """A stored state id read as hostile input: a whole number as the protocol carries it."""
    if type(value) is not int or not 0 <= value <= protocol.MAX_FIRST:
        raise ValueError(f"first: a state id, not {str(value)[:20]}")
    return value


def _finite_float(value: Any) -> float | None:
    """A stored number read as hostile input: a finite float, else None (a bool, a text, an
    integer too large for a float, an infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def new_secret() -> str:
    """A device's secret for one room: 256 random bits as hex."""
    return secrets.token_hex(32)
