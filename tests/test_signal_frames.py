"""The signalling helper reads only masked frames from a client (RFC 6455 section 5.1: "a server
MUST close the connection upon receiving a frame that is not masked", with 1002). aiohttp reads
unmasked frames as if they were masked, so server/signal.py checks the frame headers itself.
Driven over a raw socket, since every WebSocket client masks its frames."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import struct

import pytest

from tests.test_signal import ROOM_A, Harness, run_hub


def frame(payload: bytes, *, masked: bool, opcode: int = 0x1, fin: bool = True) -> bytes:
    head = bytes([(0x80 if fin else 0) | opcode])
    size = len(payload)
    mask_bit = 0x80 if masked else 0
    if size < 126:
        head += bytes([mask_bit | size])
    elif size < 1 << 16:
        head += bytes([mask_bit | 126]) + struct.pack("!H", size)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def join_text(room: str = ROOM_A) -> bytes:
    return json.dumps({"type": "join", "v": 1, "room": room,
                       "hello": {"role": "guest"}}).encode()


async def open_raw(h: Harness) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    """A socket to the helper and the handshake request (not sent yet)."""
    server = h.client.server
    reader, writer = await asyncio.open_connection(server.host, server.port)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET {h.hub.config.path} HTTP/1.1\r\nHost: {server.host}:{server.port}\r\n"
               f"Origin: {h.origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()
    return reader, writer, request


async def read_frames(reader: asyncio.StreamReader) -> list[tuple[int, bytes]]:
    """The server's frames (opcode, payload) after the 101 response, until it closes."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 101"), head
    frames: list[tuple[int, bytes]] = []
    while True:
        try:
            first = await asyncio.wait_for(reader.readexactly(2), 3)
        except (asyncio.IncompleteReadError, TimeoutError):  # closed, or left open
            return frames
        size = first[1] & 0x7F
        if size == 126:
            size = struct.unpack("!H", await reader.readexactly(2))[0]
        elif size == 127:
            size = struct.unpack("!Q", await reader.readexactly(8))[0]
        payload = await reader.readexactly(size)
        frames.append((first[0] & 0x0F, payload))
        if first[0] & 0x0F == 0x8:
            return frames


def close_code(frames: list[tuple[int, bytes]]) -> int | None:
    for opcode, payload in frames:
        if opcode == 0x8:
            return struct.unpack("!H", payload[:2])[0]
    return None


@pytest.mark.parametrize("with_handshake", [False, True], ids=["after", "with-handshake"])
def test_an_unmasked_client_frame_fails_the_connection_with_1002(with_handshake: bool) -> None:
    async def test(h: Harness) -> None:
        reader, writer, request = await open_raw(h)
        unmasked = frame(join_text(), masked=False)
        if with_handshake:  # in the same packet as the upgrade request
            writer.write(request + unmasked)
        else:
            writer.write(request)
            await writer.drain()
            await asyncio.sleep(0.05)
            writer.write(unmasked)
        await writer.drain()
        frames = await read_frames(reader)
        writer.close()
        texts = [json.loads(p) for op, p in frames if op == 0x1]
        assert not any(t.get("type") == "welcome" for t in texts), texts
        assert close_code(frames) == 1002, frames
        assert h.hub.store.room_count == 0

    run_hub(test)


def test_an_unmasked_frame_after_masked_ones_fails_the_connection() -> None:
    async def test(h: Harness) -> None:
        reader, writer, request = await open_raw(h)
        writer.write(request + frame(join_text(), masked=True))
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.write(frame(b'{"type":"ping"}', masked=False))
        await writer.drain()
        frames = await read_frames(reader)
        writer.close()
        texts = [json.loads(p) for op, p in frames if op == 0x1]
        assert [t["type"] for t in texts] == ["welcome"], texts  # no pong
        assert close_code(frames) == 1002, frames

    run_hub(test)


def test_masked_frames_split_anywhere_are_read() -> None:
    """The check follows frame boundaries across packets: headers and payloads cut byte by
    byte, a 126-length and a control frame among them."""
    async def test(h: Harness) -> None:
        reader, writer, request = await open_raw(h)
        data = (frame(join_text(), masked=True) + frame(b"", masked=True, opcode=0x9)
                + frame(json.dumps({"type": "ping", "pad": "x" * 300}).encode(), masked=True)
                + frame(b'{"type":"ping"}', masked=True))
        writer.write(request)
        for i in range(len(data)):
            writer.write(data[i:i + 1])
            await writer.drain()
        await asyncio.sleep(0.2)
        writer.write(frame(struct.pack("!H", 1000), masked=True, opcode=0x8))
        await writer.drain()
        frames = await read_frames(reader)
        writer.close()
        texts = [json.loads(p) for op, p in frames if op == 0x1]
        assert [t["type"] for t in texts] == ["welcome", "error", "pong"], texts
        assert (0xA, b"") in frames  # the ping's pong
        assert close_code(frames) == 1000, frames

    run_hub(test)


def test_the_frame_check_follows_any_stream_cut_anywhere() -> None:
    """MaskedFramesOnly on its own: random frames of every length class, cut at random; an
    unmasked one is found where it starts, never before, and nothing of it reaches aiohttp's
    reader but perhaps its first byte."""
    from server.signal import MaskedFramesOnly

    class Inner:
        def __init__(self) -> None:
            self.fed = 0

        def feed_data(self, data: bytes) -> tuple[bool, bytes]:
            self.fed += len(data)
            return False, b""

    class Queue:
        def __init__(self) -> None:
            self.exc: BaseException | None = None

        def set_exception(self, exc: BaseException) -> None:
            self.exc = exc

    rng = random.Random(6455)
    for _ in range(300):
        frames = [frame(b"x" * rng.choice([0, 5, 125, 126, 300, 65535, 65536, 70000]),
                        masked=True, opcode=rng.choice([0x1, 0x2, 0x9, 0xA]))
                  for _ in range(rng.randint(1, 6))]
        bad_at = rng.randrange(len(frames) + 1)  # == len(frames): none unmasked
        if bad_at < len(frames):
            frames.insert(bad_at, frame(b"y" * rng.choice([0, 3, 200]), masked=False))
        stream = b"".join(frames)
        clean = len(b"".join(frames[:bad_at]))
        inner, queue = Inner(), Queue()
        check = MaskedFramesOnly(inner, queue)
        at = 0
        while at < len(stream) and not check.failed:
            step = rng.choice([1, 2, 3, 7, 14, 100, 5000, 80000])
            check.feed_data(stream[at:at + step])
            at += step
        assert check.failed == (bad_at < len(frames))
        if check.failed:
            # (its first byte may have gone on alone: the mask bit is in the second)
            assert inner.fed <= clean + 1 and clean < at and queue.exc is not None
        else:
            assert inner.fed == len(stream) and queue.exc is None


def test_websocket_pings_are_answered_from_the_message_budget() -> None:
    """A WebSocket ping frame costs a token of the peer's bucket, as the page's own `ping`
    message does (browsers send no ping frames): 200,000 of them were each answered, with the
    connection kept open (1.5 s of the helper's CPU per 1.2 MB sent)."""
    async def test(h: Harness) -> None:
        reader, writer, request = await open_raw(h)
        writer.write(request + frame(join_text(), masked=True)
                     + frame(b"hi", masked=True, opcode=0x9) * 2000)
        await writer.drain()
        frames = await read_frames(reader)
        writer.close()
        pongs = [p for op, p in frames if op == 0xA]
        assert 0 < len(pongs) <= h.hub.config.rate_burst and set(pongs) == {b"hi"}, len(pongs)
        assert close_code(frames) == 4003, frames  # CLOSE_MISBEHAVING

    run_hub(test)


def test_the_heartbeat_still_finds_dead_connections_and_spares_live_ones() -> None:
    """With ping frames answered by the helper itself (autoping off), its own heartbeat pings
    still keep a client that answers them and close one that does not."""
    async def test(h: Harness) -> None:
        live = await h.join(ROOM_A, {"role": "host"})
        texts: list[dict[str, object]] = []

        async def keep_reading() -> None:  # (aiohttp's client answers pings as it reads)
            async for msg in live.ws:
                texts.append(json.loads(msg.data))

        reading = asyncio.ensure_future(keep_reading())
        reader, writer, request = await open_raw(h)  # this one reads but never answers
        writer.write(request + frame(join_text(), masked=True))
        await writer.drain()
        frames = await read_frames(reader)  # until the helper closes it
        writer.close()
        assert any(op == 0x9 for op, _ in frames), frames  # it was pinged
        assert reader.at_eof(), frames  # (closed without a close frame: aiohttp's way)
        assert not live.ws.closed
        await live.send({"type": "ping"})
        await asyncio.sleep(0.3)
        assert texts[-1] == {"type": "pong"}, texts
        reading.cancel()

    run_hub(test, heartbeat=0.4)


def test_an_aiohttp_without_the_reader_hook_serves_unchecked_rather_than_failing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The check reaches into aiohttp's request handler; another aiohttp than the pinned one
    # may name its parts otherwise. Then every connection still opens (the frames unchecked,
    # said once on stderr): an AttributeError there failed every WebSocket of the helper.
    from aiohttp import web

    from server import signal as sig

    started = []
    monkeypatch.setattr(web.WebSocketResponse, "_post_start",
                        lambda self, request, protocol, writer: started.append(request))

    class Request:
        protocol = object()  # no _message_tail, no _payload_parser

    sig._warn_unchecked_frames.cache_clear()
    ws = sig.ClientWebSocket()
    for _ in range(2):
        ws._post_start(Request(), None, None)
    assert len(started) == 2
    assert capsys.readouterr().err.count("unmasked client frames are not refused") == 1
