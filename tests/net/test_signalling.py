"""The page's side of signalling (py/net/signalling.py): where the helper is, and its messages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from net import signalling as sg

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"
PEER = "0123456789ab"


@pytest.mark.parametrize(
    ("page", "setting", "expected"),
    [
        ("http://127.0.0.1:8000/", None, "ws://127.0.0.1:8000/signal"),
        ("http://127.0.0.1:8000/index.html#room=abc", "", "ws://127.0.0.1:8000/signal"),
        ("https://ludo.example/app/index.html", None, "wss://ludo.example/signal"),
        ("https://ludo.example/app/", "wss://signal.example.org/signal",
         "wss://signal.example.org/signal"),
        ("https://ludo.example/", "https://signal.example.org", "wss://signal.example.org/signal"),
        ("https://ludo.example/", "https://signal.example.org:8443/rooms?x=1",
         "wss://signal.example.org:8443/rooms?x=1"),
        ("https://ludo.example/app/", "/helper", "wss://ludo.example/helper"),
        ("http://ludo.example/app/page.html", "../signal", "ws://ludo.example/signal"),
        ("https://ludo.example/", "  ws://localhost:8000/signal  ", "ws://localhost:8000/signal"),
        ("http://ludo.example/", "wss://s.example/signal#frag", "wss://s.example/signal"),
    ],
)
def test_signal_url(page: str, setting: str | None, expected: str) -> None:
    assert sg.signal_url(page, setting) == expected


@pytest.mark.parametrize(
    ("page", "setting", "problem"),
    [
        ("file:///home/me/index.html", None, "served over http"),
        ("https://ludo.example/", "ftp://x.example/signal", "must be a ws"),
        ("https://ludo.example/", "ws://signal.example.org/signal", "wss:// only"),
        ("https://ludo.example/", "javascript:alert(1)", "must be a ws"),
    ],
)
def test_signal_url_refuses_what_cannot_work(page: str, setting: str | None,
                                             problem: str) -> None:
    with pytest.raises(sg.SignallingError, match=problem):
        sg.signal_url(page, setting)


class FakeElement:
    def __init__(self, content: str | None) -> None:
        self.content = content

    def getAttribute(self, name: str) -> str | None:  # noqa: N802
        assert name == "content"
        return self.content


class FakeDocument:
    def __init__(self, element: FakeElement | None) -> None:
        self.element = element
        self.selectors: list[str] = []

    def querySelector(self, selector: str) -> FakeElement | None:  # noqa: N802
        self.selectors.append(selector)
        return self.element


def test_read_setting_from_the_meta_tag() -> None:
    document = FakeDocument(FakeElement("wss://s.example/signal"))
    assert sg.read_setting(document) == "wss://s.example/signal"
    assert document.selectors == ['meta[name="ludo-signal"]']
    assert sg.read_setting(FakeDocument(None)) is None
    assert sg.read_setting(FakeDocument(FakeElement(""))) is None


def test_room_ids_are_128_random_bits() -> None:
    ids = {sg.new_room_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(len(i) == 22 and sg.is_room_id(i) for i in ids)
    assert not sg.is_room_id("short") and not sg.is_room_id(None) and not sg.is_room_id("a" * 65)


def test_client_messages() -> None:
    assert json.loads(sg.join_message(ROOM)) == {"type": "join", "v": 1, "room": ROOM}
    assert json.loads(sg.join_message(ROOM, {"role": "host"}))["hello"] == {"role": "host"}
    assert json.loads(sg.relay_message("answer", PEER, {"sdp": "x"})) == {
        "type": "answer", "to": PEER, "data": {"sdp": "x"}}
    assert json.loads(sg.ping_message()) == {"type": "ping"}
    with pytest.raises(sg.SignallingError, match="room id"):
        sg.join_message("nope")
    with pytest.raises(sg.SignallingError, match="hello"):
        sg.join_message(ROOM, ["x"])  # type: ignore[arg-type]
    with pytest.raises(sg.SignallingError, match="relays offer, answer and candidate"):
        sg.relay_message("move", PEER, {})
    with pytest.raises(sg.SignallingError, match="peer id"):
        sg.relay_message("offer", "x", {})
    with pytest.raises(ValueError):
        sg.relay_message("offer", PEER, float("nan"))


GOOD_SERVER_MESSAGES: list[dict[str, Any]] = [
    {"type": "welcome", "v": 1, "peer": PEER, "peers": [{"peer": "ba9876543210", "hello": {}}],
     "iceServers": [], "limits": {}},
    {"type": "peer-joined", "peer": PEER, "hello": {"role": "guest"}},
    {"type": "peer-left", "peer": PEER},
    {"type": "offer", "from": PEER, "data": {"sdp": "x"}},
    {"type": "candidate", "from": PEER, "data": None},
    {"type": "pong"},
    {"type": "error", "code": "room-full", "message": "full"},
]


@pytest.mark.parametrize("message", GOOD_SERVER_MESSAGES, ids=lambda m: m["type"])
def test_server_messages_accepted(message: dict[str, Any]) -> None:
    assert sg.parse_server_message(json.dumps(message)) == message


@pytest.mark.parametrize(
    "text",
    [
        "{",
        "[]",
        '{"type": "move"}',
        '{"type": "pong", "extra": 1}',
        '{"type": "welcome", "v": 2, "peer": "0123456789ab", "peers": [], "iceServers": [],'
        ' "limits": {}}',
        '{"type": "welcome", "v": 1, "peer": "x", "peers": [], "iceServers": [], "limits": {}}',
        '{"type": "welcome", "v": 1, "peer": "0123456789ab", "peers": [{"peer": "0123456789ab"}],'
        ' "iceServers": [], "limits": {}}',
        '{"type": "welcome", "v": 1, "peer": "0123456789ab", "peers": [], "iceServers": {},'
        ' "limits": {}}',
        '{"type": "peer-joined", "peer": "0123456789ab", "hello": 3}',
        '{"type": "peer-left", "peer": 7}',
        '{"type": "offer", "from": "../../x", "data": {}}',
        '{"type": "offer", "to": "0123456789ab", "data": {}}',
        '{"type": "error", "code": 1, "message": "x"}',
        "[" * 5000 + "]" * 5000,
        '{"type": []}',  # a type that cannot be looked up: refused, not a TypeError
        '{"type": {"a": 1}}',
        '{"type": ["welcome"]}',
        '{"type": null}',
    ],
)
def test_server_messages_refused(text: str) -> None:
    with pytest.raises(sg.SignallingError):
        sg.parse_server_message(text)


def test_a_deep_or_huge_helper_message_is_refused_before_parsing() -> None:
    # a hostile helper must not overflow the page's stack (Pyodide's is small) nor make it
    # parse megabytes
    from net.signalling import SignallingError, parse_server_message
    for text in ("[" * 20_000 + "]" * 20_000, '{"type": "' + "x" * 70_000 + '"}',
                 '"' + '\\"' * 40_000 + '"'):
        with pytest.raises(SignallingError, match="too long or too deeply nested"):
            parse_server_message(text)
