"""The few browser helpers every browser-side module shares (the only other place,
with controller, form, storage and pwa, that imports js/pyscript)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyscript import document, window
from pyscript.ffi import create_proxy, is_none, to_js

_proxies: list[Any] = []  # event handlers stay alive for the page's life


def el(element_id: str) -> Any:
    """The element with this id."""
    return document.getElementById(element_id)


def set_text(element_id: str, text: str) -> None:
    """Write a live region's text only when it changed: the same words written again are a
    change to the page, and a screen reader may say them again (after every move online)."""
    element = el(element_id)
    if element.textContent != text:
        element.textContent = text


def js(value: Any) -> Any:
    """A Python value as a JavaScript one (dicts become plain objects)."""
    return to_js(value, dict_converter=window.Object.fromEntries)


FAULT_BANNER = "fault-banner"
FAULTS_LOGGED = 10
_faults = 0


def report_fault(exc: BaseException) -> None:
    """An error the page's own code did not expect: the whole traceback goes to the console
    (for whoever reports the bug, and for the tests, which fail on any console error), and the
    player sees one calm line with a Reload button instead of PyScript's traceback boxes over
    the page. The game itself is saved after every action, so a reload goes on from there."""
    import traceback

    global _faults
    _faults += 1
    if _faults <= FAULTS_LOGGED:  # a fault in a timer would repeat several times a second
        window.console.error("Courtyard Ludo: unexpected error\n"
                             + "".join(traceback.format_exception(exc)))
    banner = document.getElementById(FAULT_BANNER)
    if not is_none(banner):
        banner.hidden = False


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` for a JavaScript caller (an event, a timer, a connection's callback): what it
    raises is reported by :func:`report_fault`, not thrown into the browser."""

    def run(*args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001 - the boundary between the page and Python
            report_fault(exc)
            return None

    return run


def watch_faults() -> None:
    """Report what a task of the event loop raised as every other unexpected error (Pyodide's
    loop would print it, and PyScript shows each line of it over the page), and wire the
    banner's Reload button."""
    import asyncio

    def handler(_loop: Any, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        report_fault(exc if isinstance(exc, BaseException)
                     else RuntimeError(str(context.get("message", "an asyncio task failed"))))

    asyncio.get_event_loop().set_exception_handler(handler)
    on(el("btn-fault-reload"), "click", lambda _e: window.location.reload())


def on(target: Any, event: str, handler: Any) -> None:
    """Listen to ``event`` on ``target`` for the page's life."""
    proxy = create_proxy(guarded(handler))
    _proxies.append(proxy)
    target.addEventListener(event, proxy)


def keep(fn: Any) -> Any:
    """A JavaScript function for ``fn`` that stays alive for the page's life."""
    proxy = create_proxy(guarded(fn))
    _proxies.append(proxy)
    return proxy


class Timeout:
    """One ``setTimeout`` whose JavaScript callback is freed once it has run or been
    cancelled. (A callback kept for the page's life, as :func:`keep` does, for every timer
    and every slice of a computer's search held each closure, and the positions in it, until
    the page closed: memory grew with every game played.)"""

    __slots__ = ("handle", "proxy")
    proxy: Any
    handle: Any

    def __init__(self, fn: Callable[[], None], delay_ms: float) -> None:
        from pyodide.ffi import create_once_callable

        def fire(*_: Any) -> None:
            self.proxy = None  # a once-callable frees itself after this call
            guarded(fn)()

        self.proxy = create_once_callable(fire)
        self.handle = window.setTimeout(self.proxy, max(0.0, delay_ms))

    def cancel(self) -> None:
        """Stop the timer if it has not run yet, and free its callback."""
        if self.proxy is not None:
            window.clearTimeout(self.handle)
            self.proxy.destroy()
            self.proxy = None


def kept_callbacks() -> int:
    """How many callbacks are kept for the page's life (a test hook reads it: it must not
    grow with play)."""
    return len(_proxies)


def later(fn: Callable[[], None]) -> None:
    """Run ``fn`` in a task of its own, after the events and timers already queued: work
    split this way never adds up to one long task that freezes the page."""
    from pyodide.ffi import create_once_callable

    window.setTimeout(create_once_callable(lambda *_: guarded(fn)()), 0)


def now_ms() -> float:
    """The wall clock in epoch milliseconds (what the turn clock's deadlines use)."""
    return float(window.Date.now())


def query_param(name: str) -> str | None:
    value = window.URLSearchParams.new(window.location.search).get(name)
    return None if is_none(value) else str(value)


def number_param(name: str, default: float, low: float, high: float) -> float:
    """A numeric URL parameter within [low, high]; anything else (NaN, text) is the default."""
    raw = query_param(name)
    try:
        value = float(raw) if raw is not None else default
    except ValueError:
        return default
    if value != value or value in (float("inf"), float("-inf")):  # NaN or infinite
        return default
    return min(max(value, low), high)


def text_of(value: Any) -> str | None:
    """A JavaScript string (or null) as Python text."""
    return None if is_none(value) else str(value)


def expose_hooks(**readers: Any) -> None:
    """Read-only hooks for automated tests: ``window.ludo.<name>(...)`` returns JSON-ready
    text."""
    hooks = window.Object.new()
    for name, read in readers.items():
        def call(*args: Any, read: Any = read) -> str:
            value = read(*args)
            return value if isinstance(value, str) else str(window.JSON.stringify(js(value)))
        setattr(hooks, name, keep(call))
    window.ludo = hooks


def download(filename: str, text: str, mime: str = "application/json") -> None:
    """Offer ``text`` to the player as a file: a blob URL behind an anchor with ``download``
    (no request leaves the page, so it works offline too)."""
    blob = window.Blob.new(js([text]), js({"type": mime}))
    url = window.URL.createObjectURL(blob)
    anchor = document.createElement("a")
    anchor.href = url
    anchor.download = filename
    anchor.hidden = True
    document.body.appendChild(anchor)
    anchor.click()
    anchor.remove()
    # the browser has read the blob once the click is handled; free it soon after
    Timeout(lambda: window.URL.revokeObjectURL(url), 10_000)

