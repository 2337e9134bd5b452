"""The game protocol's messages: versioned JSON over a data channel, checked field by field.

Every message is one JSON object ``{"v": 1, "seq": n, "type": ..., <fields>}``:

- ``v`` is the protocol version; a peer refuses any other.
- ``seq`` numbers the messages one sender sends on one connection, from 1, strictly rising; a
  receiver refuses a message whose ``seq`` is not above the last it accepted (a duplicate, a
  replay, or one that arrived out of order), and a refused message moves nothing, not even the
  count.
- ``type`` says which fields follow: exactly those (none missing, none extra, each of its type).

Guests send at most ``MAX_GUEST_BYTES``; the host's ``sync`` (the whole record) may be larger,
up to ``MAX_HOST_BYTES``, and travels in ``FRAME_BYTES`` parts (:func:`frames`,
:class:`Reassembler`) because a data channel's messages are best kept small. docs/online.md,
"The game protocol", lists every message and what a peer does with it.

Names follow one rule on both sides (:func:`clean_name`, at the end): a name the host sends (its
own seats', its guests', a restored room's) and a name a guest claims is kept as a name typed
at the setup form is: printable, no bidirectional controls nor other invisible format
characters, spaces collapsed, something visible in it (else it is no name), at most
``NAME_LENGTH`` whole characters (graphemes); and at most ``MAX_NAME`` code points, the most any
peer accepts in a message, so that a name of emoji sequences or stacked accents (6 family emoji
are 42 code points) never makes the host's lobby unreadable to every guest. Both cuts fall
between whole graphemes, so a cut name never ends in a dangling joiner or loses an accent.
(Kept here, not in app.setup: py/net checks what peers send with it, and the same text must
come out on the host and on every guest: the rule is idempotent.)
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ludo import LudoError
from ludo.geometry import COLOURS
from ludo.notation import load_json

VERSION = 1
MAX_GUEST_BYTES = 16 * 1024
MAX_HOST_BYTES = 4 * 1024 * 1024
FRAME_BYTES = 16 * 1024
MAX_NAME = 40
MAX_TEXT = 200
HEX64 = frozenset("0123456789abcdef")


class ProtocolError(ValueError):
    """A message that is not what the protocol allows; ``code`` says which kind of refusal."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Message(NamedTuple):
    type: str
    seq: int
    body: dict[str, Any]  # the fields after v, seq and type


# -- field checks ------------------------------------------------------------------------------

Check = Callable[[Any], bool]


def _int(low: int = 0, high: int = 2**53) -> Check:
    return lambda v: type(v) is int and low <= v <= high


def _str(most: int) -> Check:
    return lambda v: isinstance(v, str) and len(v) <= most


def _hex64(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and set(v) <= HEX64


def _obj(v: Any) -> bool:
    return isinstance(v, dict)


def _opt(check: Check) -> Check:
    return lambda v: v is None or check(v)


def _seat(v: Any) -> bool:
    # a colour of the board (every rule set seats the same four): a hostile host's lobby listed
    # "ß" or "é" as seats on the room screen before a guest's match checks refused it
    return isinstance(v, str) and v in COLOURS


def _seat_rows(v: Any) -> bool:
    """A lobby's seats: at most one row per colour."""
    return _list_of(_seat_row, len(COLOURS))(v) and len({row["seat"] for row in v}) == len(v)


def _list_of(check: Check, most: int) -> Check:
    return lambda v: isinstance(v, list) and len(v) <= most and all(check(x) for x in v)


def _commitment(v: Any) -> bool:
    return isinstance(v, dict) and set(v) == {"participant", "head", "start", "length"} \
        and _str(16)(v["participant"]) and _hex64(v["head"]) \
        and _int()(v["start"]) and _int(1, 2**20)(v["length"])


def _seat_row(v: Any) -> bool:
    return isinstance(v, dict) and set(v) == {"seat", "kind", "name", "taken", "here"} \
        and _seat(v["seat"]) and v["kind"] in ("online", "person", "computer") \
        and _str(MAX_NAME)(v["name"]) and isinstance(v["taken"], bool) \
        and isinstance(v["here"], bool)


def _reveal_pair(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and _str(16)(v[0]) and _hex64(v[1])


_ACTION = _obj  # the rule set's parse_action checks its fields (the table does, on submit)
# The most a match's first state id may be (docs/online.md, "Rematch"): its positions' ids,
# first + version, stay under the 2**53 that every state id is checked against, and a room
# keeps (and restores) any first it was sent or reached.
MAX_FIRST = 2**52
_FIRST = _int(0, MAX_FIRST)
_LEFT = _opt(_int(0, 10**7))  # the clock: milliseconds left, or null

# Messages a guest sends to the host.
GUEST_MESSAGES: dict[str, dict[str, Check]] = {
    "hello": {"name": _str(MAX_NAME), "secret": _hex64},
    "claim": {"seat": _seat, "name": _str(MAX_NAME), "commit": _commitment},
    "watch": {},
    "act": {"version": _int(), "action": _ACTION},
    "reveal": {"roll": _int(), "reveal": _hex64},
    "commit": {"commit": _commitment},
    "ack": {"version": _int()},
    "resync": {},
}

# Messages the host sends to a guest.
HOST_MESSAGES: dict[str, dict[str, Check]] = {
    "lobby": {"rules": _str(32), "options": _obj, "timer": lambda v: isinstance(v, bool),
              "seats": _seat_rows, "started": lambda v: isinstance(v, bool),
              "you": _opt(_seat)},
    "begin": {"match": _str(64), "participants": _list_of(_str(16), 9),
              "commits": _list_of(_commitment, 9), "first": _FIRST},
    "sync": {"record": _obj, "names": _obj, "players": _obj, "timer": lambda v: isinstance(
        v, bool), "turnSeconds": _int(1, 3600), "left": _LEFT, "you": _opt(_seat),
        "connected": _list_of(_seat, 8), "first": _FIRST},
    "rematch": {"match": _str(64), "first": _FIRST},
    "open": {"roll": _int(), "n": _int(1, 2**32)},
    "settled": {"roll": _int(), "n": _int(1, 2**32), "reveals": _list_of(_reveal_pair, 9),
                "value": _int(0, 2**32)},
    "commit": {"commit": _commitment},
    "action": {"version": _int(), "actor": _str(16), "action": _ACTION, "left": _LEFT},
    "dropped": {"roll": _int()},
    "presence": {"connected": _list_of(_seat, 8)},
    "refused": {"code": _str(32), "message": _str(MAX_TEXT)},
    "closed": {"reason": _str(MAX_TEXT)},
}

# Fields a message may leave out, and what they are then: the state id of a match's first
# position (``first``), 0 in a room's first match, came with rematches (docs/online.md,
# "Rematch"); a peer that sends the first match without it is read as before.
DEFAULTS: dict[str, dict[str, Any]] = {"begin": {"first": 0}, "sync": {"first": 0}}


def encode(kind: str, seq: int, **fields: Any) -> str:
    """A message as JSON text (its fields are not checked here: the receiver checks)."""
    return json.dumps({"v": VERSION, "seq": seq, "type": kind, **fields},
                      separators=(",", ":"), allow_nan=False)


def decode(text: Any, schema: dict[str, dict[str, Check]], max_bytes: int) -> Message:
    """Parse and check one message against ``schema`` (GUEST_MESSAGES or HOST_MESSAGES).

    ProtocolError, with a code: ``too-big``, ``bad-json``, ``version``, ``bad-schema``,
    ``unknown-type``."""
    if not isinstance(text, str):
        raise ProtocolError("bad-json", "a message is JSON text")
    if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise ProtocolError("too-big", f"a message of at most {max_bytes} bytes")
    try:
        data = load_json(text, "message", max_bytes)
    except LudoError as exc:
        raise ProtocolError("bad-json", str(exc)) from None
    if not isinstance(data, dict):
        raise ProtocolError("bad-schema", "a message is a JSON object")
    if data.get("v") != VERSION or type(data.get("v")) is not int:
        raise ProtocolError("version", f"protocol version {VERSION} expected")
    seq = data.get("seq")
    if type(seq) is not int or not 1 <= seq <= 2**53:
        raise ProtocolError("bad-schema", "seq is a whole number from 1")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in schema:
        raise ProtocolError("unknown-type", "an unknown message type")
    fields = schema[kind]
    body = {k: v for k, v in data.items() if k not in ("v", "seq", "type")}
    for name, value in DEFAULTS.get(kind, {}).items():
        body.setdefault(name, value)
    if set(body) != set(fields):
        raise ProtocolError("bad-schema", f"{kind}: the fields are "
                            f"{', '.join(sorted(fields)) or 'none'}")
    for name, check in fields.items():
        if not check(body[name]):
            raise ProtocolError("bad-schema", f"{kind}: {name} is not valid")
    return Message(kind, seq, body)


class Counter:
    """Sequence numbers of one connection: what we send, and the last we accepted."""

    def __init__(self) -> None:
        self.sent = 0
        self.accepted = 0

    def next(self) -> int:
        self.sent += 1
        return self.sent

    def fresh(self, seq: int) -> bool:
        """Whether a message numbered ``seq`` may be accepted (it does not accept it)."""
        return seq > self.accepted

    def accept(self, seq: int) -> None:
        self.accepted = seq


# -- framing: a long message in parts ---------------------------------------------------------

FRAME_PREFIX = "~"  # a part; every whole message starts with "{"


def frames(text: str, size: int = FRAME_BYTES) -> list[str]:
    """``text`` as one message if it is short, else as parts ``~i/n:`` + a slice."""
    if len(text) <= size:
        return [text]
    chunk = size - 32
    parts = [text[i:i + chunk] for i in range(0, len(text), chunk)]
    return [f"{FRAME_PREFIX}{i}/{len(parts)}:{part}" for i, part in enumerate(parts)]


class Reassembler:
    """Puts parts back together (they arrive in order on a reliable, ordered channel).

    Returns whole messages; parts out of order, over ``max_bytes`` in all, empty, more of
    them than a message of ``max_bytes`` needs (in parts of ``size``, as :func:`frames` cuts
    them), cut otherwise than :func:`frames` cuts them (every part but the last holds
    ``size - 32`` characters), or malformed drop the message being assembled (ProtocolError).

    Since every part but the last is full, a message's first part tells how long the whole
    will be, within one part (:attr:`least`), and how it begins (:attr:`first`): the reader
    may decide then not to read it, and :meth:`skip` the rest of it without keeping it."""

    def __init__(self, max_bytes: int, size: int = FRAME_BYTES) -> None:
        self.max_bytes = max_bytes
        self.chunk = size - 32  # the characters of every part but a message's last
        self.max_parts = -(-max_bytes // self.chunk)  # 257 for a host's 4 MiB
        self.parts: list[str] = []
        self.size = 0
        self.expected = 0  # the parts of the message under way (0: none)
        self.next = 0  # the index of its next part
        self.keeping = True  # its parts are kept (else skipped: consumed unread)
        self.first = ""  # the start of its first part (HEAD characters)

    @property
    def under_way(self) -> bool:
        """Whether some parts of a message came, and not yet its last."""
        return self.expected > 0

    @property
    def least(self) -> int:
        """The fewest characters the message under way can have, all its parts come."""
        return (self.expected - 1) * self.chunk + 1 if self.expected else 0

    def parts_in(self, text: Any) -> int:
        """The parts of the message ``text`` begins: its count if it is the first part of one
        (as :meth:`feed` would take it), else 1 (a whole message, or a part to refuse)."""
        if not isinstance(text, str) or not text.startswith(FRAME_PREFIX + "0/"):
            return 1
        colon = text.find(":", 3, 18)
        count = text[3:max(colon, 3)]
        n = int(count) if _digits(count) else 1
        return n if 1 < n <= self.max_parts else 1

    def skip(self) -> None:
        """Drop what is kept of the message under way, and consume the rest of its parts
        unread (each still checked to be its next part: one out of order is refused)."""
        self.parts, self.size, self.keeping = [], 0, False

    def drop(self, text: Any) -> None:
        """Consume ``text`` unread, and the rest of its message if it is a part: refused
        parts are not said (the reader did not read them)."""
        try:
            self.feed(text, keep=False)
        except ProtocolError:
            pass

    def feed(self, text: Any, keep: bool = True) -> str | None:
        """The whole message once ``text`` completes one, else None (a part kept, or skipped:
        ``keep`` False skips the message ``text`` begins or continues)."""
        if not isinstance(text, str):
            raise ProtocolError("bad-json", "a message is text")
        if not self.keeping and self.expected:  # a skipped message's next part, at a glance
            tag = f"{FRAME_PREFIX}{self.next}/{self.expected}:"
            length = len(text) - len(tag)
            if text.startswith(tag) and (length == self.chunk or (
                    self.next == self.expected - 1 and 0 < length < self.chunk)):
                self.next += 1
                if self.next == self.expected:
                    self._reset()
                return None
        if not text.startswith(FRAME_PREFIX):
            if self.expected:
                self._reset()
                raise ProtocolError("bad-frame", "a message arrived in the middle of parts")
            return text
        # (the head is read in place: a skipped part is never copied)
        colon = text.find(":", 1, 18)
        index, slash, count = text[1:max(colon, 1)].partition("/")
        if colon < 0 or not slash or not _digits(index) or not _digits(count):
            self._reset()
            raise ProtocolError("bad-frame", "a malformed part")
        i, n = int(index), int(count)
        if i != self.next or (self.expected and n != self.expected) or not 1 < n or i >= n:
            self._reset()
            raise ProtocolError("bad-frame", "a part out of order")
        length = len(text) - colon - 1
        if n > self.max_parts or not length:
            # an honest sender never cuts a message into more parts than its largest needs,
            # nor sends an empty one: each would be kept, and cost this side memory
            self._reset()
            raise ProtocolError("bad-frame", f"a message of at most {self.max_parts} parts, "
                                "none empty")
        if length > self.chunk or (i < n - 1 and length != self.chunk):
            # frames() fills every part but the last: so the first tells the whole's length
            self._reset()
            raise ProtocolError("bad-frame", f"parts of {self.chunk} characters, but the last")
        if self.size + length > self.max_bytes:
            self._reset()
            raise ProtocolError("too-big", f"a message of at most {self.max_bytes} bytes")
        if i == 0:
            self.expected, self.keeping, self.first = n, True, text[colon + 1:colon + 1 + HEAD]
        if not keep:
            self.skip()
        self.next = i + 1
        if self.keeping:
            self.parts.append(text[colon + 1:])
            self.size += length
        if self.next < n:
            return None
        whole = "".join(self.parts) if self.keeping else None
        self._reset()
        return whole

    def _reset(self) -> None:
        self.parts, self.size, self.expected, self.next = [], 0, 0, 0
        self.keeping, self.first = True, ""


HEAD = 64
"""Characters of a long message's start a reader sees at its first part (:func:`head`)."""

_HEAD = re.compile(r'\{"v":([0-9]{1,16}),"seq":([0-9]{1,16}),"type":"([a-z]{1,16})"[,}]')


def head(text: str) -> tuple[int, str] | None:
    """The ``seq`` and ``type`` a message's text begins with, if it begins as :func:`encode`
    writes every message (``{"v":1,"seq":n,"type":"t",``), else None. A reader may refuse a
    long message by its head before it has it all (docs/online.md, "The game protocol")."""
    found = _HEAD.match(text)
    if found is None or found[1] != str(VERSION):
        return None
    return int(found[2]), found[3]


def _digits(text: str) -> bool:
    # (str.isdigit takes "²", which int() refuses: a host's "~²/2:x" broke the guest's check)
    return 0 < len(text) <= 8 and text.isascii() and text.isdigit()


# ---------------------------------------------------------------------------------------------
# Names

NAME_LENGTH = 20  # whole characters a name keeps, as at the setup form

_DROPPED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control characters, surrogates, private and unassigned code points, line breaks."""


def graphemes(text: str) -> list[str]:
    """``text`` split into user-perceived characters (close enough for names and notices).

    A base character keeps what joins it: combining marks, variation selectors, skin tones,
    tag characters, zero-width joiners and the character after one, and regional indicator
    pairs (flags)."""
    return list(_clusters(text))


def _clusters(text: str) -> Iterator[str]:
    """:func:`graphemes` one at a time, in time linear in the length of ``text`` however
    long a cluster is (a host's 4 MB name of joiners is one cluster: growing it one code
    point at a time, as a string, took time quadratic in its length), so that a caller that
    wants only the first few stops early."""
    start = 0
    join_next = False
    flag_open = False  # the cluster so far is one regional indicator, waiting for its pair
    for i, ch in enumerate(text):
        code = ord(ch)
        joins = (unicodedata.combining(ch) or 0xFE00 <= code <= 0xFE0F
                 or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F
                 or code == 0x200D or unicodedata.category(ch) in ("Me", "Mn", "Mc"))
        indicator = 0x1F1E6 <= code <= 0x1F1FF
        if i > 0 and (joins or join_next or (indicator and flag_open)):
            flag_open = False
        else:
            if i > 0:
                yield text[start:i]
            start = i
            flag_open = indicator
        join_next = code == 0x200D
    if text:
        yield text[start:]


_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols drawn as nothing (Hangul fillers, the blank Braille pattern)."""


def _shown(ch: str) -> bool:
    """Whether a character is kept in a name or a peer's words: not a control, surrogate,
    private, unassigned or line break; no bidirectional control; and no other format character
    (zero-width space, word joiner, soft hyphen, byte order mark, ...), which shows nothing,
    except the joiners writing needs: the zero-width (non-)joiner, and tag characters (the
    flags of England, Scotland, Wales)."""
    category = unicodedata.category(ch)
    if category in _DROPPED_CATEGORIES or ch in _BLANK_LETTERS:
        return False
    if category == "Cf":
        return ch in "\u200c\u200d" or _is_tag(ch)
    return True


def _is_tag(ch: str) -> bool:
    """A tag character (U+E0020..U+E007F): the letters of a subdivision's flag after 🏴."""
    return 0xE0020 <= ord(ch) <= 0xE007F


_BLACK_FLAG = "\U0001F3F4"  # tag characters after it spell a subdivision's flag


def _printable(text: str) -> str:
    kept = "".join(" " if ch.isspace() else ch for ch in text  # a line break parts words
                   if ch.isspace() or _shown(ch))
    if any(_is_tag(ch) for ch in kept):  # tags only in a flag, else unseen
        kept = "".join(c if c.startswith(_BLACK_FLAG) else
                       "".join(ch for ch in c if not _is_tag(ch))
                       for c in graphemes(kept))
    return " ".join(kept.split())


def _visible(text: str) -> bool:
    """Whether ``text`` shows anything: a letter, number, punctuation or symbol."""
    return any(unicodedata.category(ch)[0] in "LNPS" for ch in text)


def cut(text: str, points: int, whole: int | None = None) -> str:
    """The longest start of ``text`` of whole graphemes: at most ``points`` code points (and
    ``whole`` graphemes, if given)."""
    kept: list[str] = []
    used = 0
    for cluster in _clusters(text):
        if (whole is not None and len(kept) >= whole) or used + len(cluster) > points:
            break
        kept.append(cluster)
        used += len(cluster)
    return "".join(kept)


MAX_READ = 1024
"""Code points of a name or a peer's words read at most (whole graphemes): what is kept is far
shorter (``MAX_NAME``, a notice's few hundred), and a peer's text may be megabytes (a host's
sync carries the names in an object of any size): reading all of it, character by character,
cost seconds."""


def _head(text: str, most: int) -> str:
    """The start of ``text`` of whole graphemes within ``most`` code points (all of it when it
    is no longer). The grapheme that the limit cuts is left out whole: a name of one grapheme
    longer than any name may be is no name, as :func:`cut` has it."""
    if len(text) <= most:
        return text
    clusters = graphemes(text[:most + 1])
    return "".join(clusters[:-1])


def clean_name(text: str) -> str:
    """A name as the network keeps it (see the module's text); "" when nothing is left."""
    if not isinstance(text, str):
        return ""
    # (a joiner at either end joins nothing: "Greeny" + U+200D would pass for "Greeny")
    name = cut(_printable(_head(text, MAX_READ)), MAX_NAME, NAME_LENGTH).strip(" \u200c\u200d")
    return name if _visible(name) else ""  # a name nobody can see is no name


def clean_text(text: str, points: int) -> str:
    """A peer's words as shown (a refusal, a closing reason): printable like a name, at most
    ``points`` code points, cut between whole graphemes."""
    if not isinstance(text, str):
        return ""
    return cut(_printable(_head(text, max(MAX_READ, 4 * points))), points).strip()
