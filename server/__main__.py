"""Serve Courtyard Ludo: `python -m server [--root DIR] [--host H] [--port P]`.

HOST and PORT come from the environment (default 127.0.0.1:8000); PORT=0 picks a free port, and
the log line gives the one actually bound, which is how tests and the benchmark find it.
LUDO_ROOT (or --root) selects the directory to serve, e.g. `dist` after `make dist`.
The signalling helper for online rooms is served at /signal beside the files; `--signal-only`
serves it alone (server/signal.py, docs/online.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from pathlib import Path

from aiohttp import web

from server import signal as signalling
from server.app import bind_address, default_root, make_app


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    host, port = bind_address()
    parser = argparse.ArgumentParser(prog="python -m server", description="Serve Courtyard Ludo.")
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(os.environ.get("LUDO_ROOT") or default_root()),
        help="directory to serve (default: $LUDO_ROOT or the repository root)",
    )
    parser.add_argument("--host", default=host, help="default: $HOST or 127.0.0.1")
    parser.add_argument("--port", type=int, default=port, help="default: $PORT or 8000")
    parser.add_argument("--access-log", action="store_true", help="log every request")
    signalling.add_arguments(parser)
    return parser.parse_args(argv)


def display_url(host: str, port: int) -> str:
    if host in ("0.0.0.0", "::", ""):  # listening everywhere: this machine reaches it locally
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


async def serve(
    root: Path, host: str, port: int, access_log: bool = False, app: web.Application | None = None
) -> None:
    app = make_app(root) if app is None else app  # an Application with no keys is falsy
    runner = web.AppRunner(
        app, access_log=logging.getLogger("aiohttp.access") if access_log else None
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound_port = runner.addresses[0][1]
    print(
        f"Courtyard Ludo is being served at {display_url(host, bound_port)} (root: {root})",
        flush=True,
    )
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    root = args.root.resolve()
    if not root.is_dir():
        print(f"python -m server: {root} is not a directory", file=sys.stderr)
        return 2
    try:
        config = signalling.config_from_args(args)
    except ValueError as exc:
        print(f"python -m server: {exc}", file=sys.stderr)
        return 2
    app = signalling.build_app(root, config, args.signal_only)
    print(signalling.describe(config, args.signal_only), flush=True)
    if args.access_log:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(root, args.host, args.port, args.access_log, app))
    return 0


if __name__ == "__main__":
    sys.exit(main())
