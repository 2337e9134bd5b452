"""Limits in the page's WebRTC transport (app/browser/rtc.py), run on CPython with stand-ins for
the browser: the ping interval, and what one peer id may make the host do (net review,
findings 7 and 8)."""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

ROOM = "q2Vf0pX9cE7wR1sT4uY8zA"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def rtc(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """app.browser.rtc imported against stand-in pyscript modules, removed again after."""
    intervals: list[float] = []
    timers: list[Callable[..., Any]] = []

    def set_interval(fn: Callable[..., Any], ms: float) -> int:
        intervals.append(ms)
        return len(intervals)

    window = types.SimpleNamespace(
        location=types.SimpleNamespace(search=""),
        console=types.SimpleNamespace(warn=lambda text: None),
        setTimeout=lambda fn, ms: timers.append(fn),
        setInterval=set_interval,
        clearInterval=lambda handle: None,
    )
    pyscript = types.ModuleType("pyscript")
    pyscript.window = window  # type: ignore[attr-defined]
    pyscript.document = None  # type: ignore[attr-defined]
    ffi = types.ModuleType("pyscript.ffi")
    ffi.create_proxy = lambda fn: fn  # type: ignore[attr-defined]
    ffi.is_none = lambda v: v is None  # type: ignore[attr-defined]
    ffi.to_js = lambda v, **kw: v  # type: ignore[attr-defined]
    pyodide_ffi = types.ModuleType("pyodide.ffi")
    pyodide_ffi.create_once_callable = lambda fn: fn  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pyscript", pyscript)
    monkeypatch.setitem(sys.modules, "pyscript.ffi", ffi)
    monkeypatch.setitem(sys.modules, "pyodide", types.ModuleType("pyodide"))
    monkeypatch.setitem(sys.modules, "pyodide.ffi", pyodide_ffi)
    stand_in = ("app.browser.rtc", "app.browser.dom")
    for name in stand_in:
        sys.modules.pop(name, None)
    module = importlib.import_module("app.browser.rtc")
    module.intervals, module.timers = intervals, timers  # type: ignore[attr-defined]
    yield module
    for name in stand_in:
        sys.modules.pop(name, None)


# -- pings (finding 8) --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("idle_timeout", "ms"),
    [
        (600.0, 300_000),
        (600, 300_000),
        (601, 300_500),
        (86_400, 43_200_000),
        (5_000_000.0, 43_200_000),  # over setInterval's 2^31 - 1 ms: it would fire at once
        (10**400, 43_200_000),  # the page's JSON keeps it exact; float() could not take it
        (-(10**400), 5_000),
        (float("inf"), 43_200_000),
        (1, 5_000),
        (0, 5_000),
        (-3.5, 5_000),
        (None, 240_000),
        ("600", 240_000),
        (True, 240_000),
        (float("nan"), 240_000),
    ],
)
def test_the_ping_interval_is_half_the_idle_timeout_within_bounds(rtc: Any, idle_timeout: Any,
                                                                  ms: int) -> None:
    assert rtc.ping_interval_ms(idle_timeout) == ms
    assert 0 < rtc.ping_interval_ms(idle_timeout) <= 2**31 - 1


def test_a_welcome_with_a_huge_idle_timeout_starts_no_ping_flood(rtc: Any) -> None:
    signal = rtc.Signal("", ROOM, {"role": "guest"}, lambda m: None, lambda s: None)
    signal._message(types.SimpleNamespace(data=(
        '{"type":"welcome","v":1,"peer":"0123456789ab","peers":[],"iceServers":[],'
        '"limits":{"maxMessageBytes":16384,"roomCap":16,"idleTimeout":1' + "0" * 400 + '}}')))
    assert rtc.intervals == [43_200_000]
