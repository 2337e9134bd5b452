"""Serve Courtyard Ludo: `python -m server [--root DIR] [--host H] [--port P]`.

HOST and PORT come from the environment (default 127.0.0.1:8000); PORT=0 picks a free port, and
the log line gives the one actually bound, which is how tests and the benchmark find it.
LUDO_ROOT (or --root) selects the directory to serve, e.g. `dist` after `make dist`.
The signalling helper for online rooms is served at /signal beside the files; `--signal-only`
serves it alone (server/signal.py, docs/online.md).

A HOST other than this machine's own loopback (127.0.0.1, ::1, localhost) makes the game
reachable from other machines, which is said on start-up. Anything that keeps the server from
starting (a PORT that is no port, a port in use, a host that does not resolve) ends it with one
line on stderr and exit status 2 (bad setting) or 1 (could not listen), never a traceback.

Serving a checkout (py/ beside the page) whose py.zip does not hold today's py/ (an edit since
the last `make serve`, or never built) says so on start-up: the page would run the modules
packed last, or not start at all (tools/build_pybundle.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import ipaddress
import logging
import os
import socket
import sys
from pathlib import Path

from aiohttp import web

from server import signal as signalling
from server.app import AddressError, bind_address, default_root, make_app, parse_port
from server.gate import PAGE_CONNECTIONS, AddressGate

PROG = "python -m server"
# Seconds a connection may stay open without sending a whole request: before its first one (a
# WebSocket's upgrade included) and between requests. aiohttp's own default is 3630: a client
# that opened connections and sent nothing, or a request's headers a byte at a time, held each
# connection (a file descriptor) for an hour, and the helper counts an address's connections
# only once their WebSocket opens. A connection whose WebSocket is open is the helper's to time
# (a join within 10 s, then the room's idle timeout), not this one's.
REQUEST_WAIT_S = 15.0
STALE_MODULES = ("py.zip does not hold today's py/ modules: the page runs the ones packed last "
                 "(or none). Run `python3 tools/build_pybundle.py` (`make serve` does).")


def stale_modules(root: Path) -> bool:
    """Whether `root` is a checkout (py/ beside the page) whose py.zip is missing or does not
    hold today's py/ sources (build_pybundle.holds_sources)."""
    if not (root / "py" / "ludo").is_dir():
        return False  # e.g. dist/: what it holds is what it serves
    from tools import build_pybundle  # (only for a checkout, which has tools/)

    if not build_pybundle.mapped(root):
        return False
    try:
        return not build_pybundle.holds_sources(root)
    except build_pybundle.BundleError:  # a module missing: the build would say which
        return True


class ListenError(Exception):
    """The server could not listen; the message is one line for the person who started it."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options over HOST, PORT and LUDO_ROOT. Raises AddressError for a bad port."""
    parser = argparse.ArgumentParser(prog=PROG, description="Serve Courtyard Ludo.")
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="directory to serve (default: $LUDO_ROOT or the repository root)",
    )
    parser.add_argument("--host", default=None, help="default: $HOST or 127.0.0.1")
    parser.add_argument("--port", default=None, help="default: $PORT or 8000 (0: any free port)")
    parser.add_argument("--access-log", action="store_true", help="log every request")
    signalling.add_arguments(parser)
    args = parser.parse_args(argv)
    if args.root is None:
        args.root = Path(os.environ.get("LUDO_ROOT") or default_root())
    if args.host is None or args.port is None:
        host, port = bind_address()  # only read when needed: --port fixes a bad $PORT
        args.host = host if args.host is None else args.host
        args.port = port if args.port is None else args.port
    if isinstance(args.port, str):
        args.port = parse_port(args.port, "--port")
    return args


def display_url(host: str, port: int) -> str:
    if host in ("0.0.0.0", "::", ""):  # listening everywhere: this machine reaches it locally
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def is_local_only(host: str) -> bool:
    """Whether listening on `host` keeps the server to this machine (a loopback address)."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # another name: it may well resolve to a network interface


def listen_error(host: str, port: int, error: OSError) -> ListenError:
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    if isinstance(error, socket.gaierror):
        return ListenError(
            f"cannot listen on HOST={host!r}: the name does not resolve ({error.strerror})"
        )
    if error.errno == errno.EADDRINUSE:
        return ListenError(
            f"port {port} on {host} is already in use: stop what is using it, or set PORT to"
            " another port (PORT=0 picks a free one)"
        )
    if error.errno == errno.EADDRNOTAVAIL:
        return ListenError(f"cannot listen on {where}: {host} is not an address of this machine")
    if error.errno == errno.EACCES:
        return ListenError(
            f"cannot listen on {where}: permission denied (ports below 1024 need root)"
        )
    return ListenError(f"cannot listen on {where}: {error.strerror or error}")


async def serve(
    root: Path,
    host: str,
    port: int,
    access_log: bool = False,
    app: web.Application | None = None,
    note: str = "",
    signal_only: bool = False,
    address_limit: int | None = None,
) -> None:
    """Serve until interrupted; the first line printed gives the address (tests read it).
    ``signal_only``: the line says that only the signalling helper is there (it said that
    the game was being served, from a root it does not serve). ``address_limit``: TCP
    connections one client address may hold at once (server/gate.py); None, no such count."""
    app = make_app(root) if app is None else app  # an Application with no keys is falsy
    runner = web.AppRunner(
        app,
        access_log=logging.getLogger("aiohttp.access") if access_log else None,
        keepalive_timeout=REQUEST_WAIT_S,
    )
    await runner.setup()
    listener: asyncio.Server | None = None
    try:
        # The listener is made here rather than by a web.TCPSite so that each accepted
        # connection passes the gate first; runner.server is aiohttp's protocol factory.
        factory = runner.server if address_limit is None else (
            AddressGate(address_limit).factory(runner.server))
        assert factory is not None
        try:
            listener = await asyncio.get_running_loop().create_server(factory, host, port)
        except OSError as error:
            raise listen_error(host, port, error) from None
        bound_port = listener.sockets[0].getsockname()[1]
        where = display_url(host, bound_port)
        print(
            f"Courtyard Ludo's signalling helper (no game files) is being served at {where}"
            if signal_only else
            f"Courtyard Ludo is being served at {where} (root: {root})",
            flush=True,
        )
        if not is_local_only(host):
            print(
                f"Note: HOST={host} makes the game reachable from other machines on your network;"
                " HOST=127.0.0.1 keeps it on this one.",
                flush=True,
            )
        if note:
            print(note, flush=True)
        await asyncio.Event().wait()
    finally:
        if listener is not None:
            listener.close()
        await runner.cleanup()


def address_limit(config: signalling.SignalConfig) -> int | None:
    """TCP connections one client address may hold at once: its WebSockets (the helper counts
    them, `address_connections`) and as many again for pages and requests in progress. None
    behind a proxy (`forwarded_for`), where every connection comes from the proxy."""
    if config.forwarded_for:
        return None
    return config.address_connections + PAGE_CONNECTIONS


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except AddressError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    try:
        root = args.root.resolve()
        is_dir = root.is_dir()
    except (OSError, RuntimeError):  # a name too long, a symlink loop
        is_dir = False
        root = args.root
    if not is_dir:
        print(f"{PROG}: {str(root)[:200]!s} is not a directory", file=sys.stderr)
        return 2
    try:
        config = signalling.config_from_args(args)
        redis = signalling.redis_settings_from_args(args)
    except ValueError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    app = signalling.build_app(root, config, args.signal_only, redis=redis)
    if not args.signal_only and stale_modules(root):
        print(f"{PROG}: warning: {STALE_MODULES}", file=sys.stderr, flush=True)
    if args.access_log:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(
                serve(root, args.host, args.port, args.access_log, app,
                      signalling.describe(config, args.signal_only, redis), args.signal_only,
                      address_limit(config))
            )
    except ListenError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
