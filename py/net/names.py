"""One rule for every name that crosses the network, on both sides.

A name the host sends (its own seats', its guests', a restored room's) and a name a guest claims
is kept as a name typed at the setup form is: printable, no bidirectional controls, spaces
collapsed, at most ``NAME_LENGTH`` whole characters (graphemes). The network adds one bound:
at most ``protocol.MAX_NAME`` code points, the most any peer accepts in a message, so that a
name of emoji sequences or stacked accents (6 family emoji are 42 code points) never makes the
host's lobby unreadable to every guest. Both cuts fall between whole graphemes: a cut name never
ends in a dangling joiner or loses an accent.

Kept here (not in app.setup) because py/net checks what peers send with it, and the same text
must come out on the host and on every guest (the rule is idempotent).
"""

from __future__ import annotations

import unicodedata

from .protocol import MAX_NAME

NAME_LENGTH = 20  # whole characters a name keeps, as at the setup form

_DROPPED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control characters, surrogates, private and unassigned code points, line breaks."""


def graphemes(text: str) -> list[str]:
    """``text`` split into user-perceived characters (close enough for names and notices).

    A base character keeps what joins it: combining marks, variation selectors, skin tones,
    tag characters, zero-width joiners and the character after one, and regional indicator
    pairs (flags)."""
    clusters: list[str] = []
    join_next = False
    for ch in text:
        code = ord(ch)
        joins = (unicodedata.combining(ch) or 0xFE00 <= code <= 0xFE0F
                 or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F
                 or code == 0x200D or unicodedata.category(ch) in ("Me", "Mn", "Mc"))
        flag_pair = (0x1F1E6 <= code <= 0x1F1FF and bool(clusters)
                     and len(clusters[-1]) == 1 and 0x1F1E6 <= ord(clusters[-1]) <= 0x1F1FF)
        if clusters and (joins or join_next or flag_pair):
            clusters[-1] += ch
        else:
            clusters.append(ch)
        join_next = code == 0x200D
    return clusters


def _printable(text: str) -> str:
    kept = "".join(" " if ch.isspace() else ch for ch in text  # a line break parts words
                   if ch.isspace() or unicodedata.category(ch) not in _DROPPED_CATEGORIES
                   and not 0x202A <= ord(ch) <= 0x202E and not 0x2066 <= ord(ch) <= 0x2069
                   and ch not in "\u200e\u200f\u061c")
    return " ".join(kept.split())


def cut(text: str, points: int, whole: int | None = None) -> str:
    """The longest start of ``text`` of whole graphemes: at most ``points`` code points (and
    ``whole`` graphemes, if given)."""
    kept: list[str] = []
    used = 0
    for cluster in graphemes(text):
        if (whole is not None and len(kept) >= whole) or used + len(cluster) > points:
            break
        kept.append(cluster)
        used += len(cluster)
    return "".join(kept)


def clean_name(text: str) -> str:
    """A name as the network keeps it (see the module's text); "" when nothing is left."""
    if not isinstance(text, str):
        return ""
    return cut(_printable(text), MAX_NAME, NAME_LENGTH).strip()


def clean_text(text: str, points: int) -> str:
    """A peer's words as shown (a refusal, a closing reason): printable like a name, at most
    ``points`` code points, cut between whole graphemes."""
    if not isinstance(text, str):
        return ""
    return cut(_printable(text), points).strip()
