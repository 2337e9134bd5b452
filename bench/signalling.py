"""Signalling helper benchmark: many concurrent WebSocket peers on one helper, on loopback.

    python3 bench/signalling.py [--peers 1000] [--room-size 4] [--rate 2] [--seconds 10]
                            [--burst 5]
    python3 bench/signalling.py --instances 3 [--peers 3000] [--rate 1] [--no-baseline] ...

Starts `python -m server --signal-only` on 127.0.0.1 (a free port) in a child process, connects
`--peers` WebSocket clients from this process and joins them to rooms of `--room-size`, then:

- memory: the helper's resident set size before the peers and with all of them joined, per peer;
- steady relays: for `--seconds`, every peer sends an offer to the next peer of its room `--rate`
  times a second (at random phases, so the load is even); the latency of each relay is the time
  from just before the sender's send to the receiver's read, both in this process, so it is an
  upper bound that includes this process's own scheduling;
- a burst: every peer sends `--burst` offers at once, the worst case of a room's start;
- the helper's CPU time during the steady phase (per relay too: a figure that other work on the
  machine does not inflate, unlike the latencies), and its log lines (JSON, one per event).

With `--instances N` (2 to 4, issue 15) it starts a `redis-server` (Debian's, on a free loopback
port, no persistence) and N helpers sharing it (REDIS_URL), and connects peer i to instance
i mod N, so that every room of 4 spans the instances and every relay crosses Redis. It reports
the CPU of each instance and of Redis, and the commands Redis processed per second (INFO's
total_commands_processed, which counts the commands a script runs too: a relay is an EVALSHA
running HGET and PUBLISH, 3; a room's touch every 5 s per instance, a heartbeat every 2.5 s).
Then, unless `--no-baseline`, it runs the same load on one instance without Redis.

Everything is loopback, bounded in count (at most 5000 peers) and in time (an overall limit
stops the run), and the helper is stopped at the end. The goal for issue 14 is a steady p99
below 20 ms with 1000 peers in rooms of 4.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import secrets  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Any  # noqa: E402

import aiohttp  # noqa: E402

sys.path.insert(0, str(ROOT))  # the server package (server.testing's RedisServer)

MAX_PEERS = 5000
MAX_SECONDS = 60.0


@dataclass
class Client:
    ws: aiohttp.ClientWebSocketResponse
    room: str
    peer: str = ""
    target: str = ""  # the next peer of the room, to which it sends
    received: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class Run:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"steady": [], "burst": []})
    phase: str = "steady"
    sent: dict[str, int] = field(default_factory=lambda: {"steady": 0, "burst": 0})
    client_cpu: float = 0.0  # this process's CPU seconds in the steady phase


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def start_helper(log_file: Path, redis_url: str | None = None) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, HOST="127.0.0.1", PORT="0", PYTHONUNBUFFERED="1")
    env.pop("REDIS_URL", None)
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    proc = subprocess.Popen(
        # every client here has one address: let it fill a room of up to 16
        [sys.executable, "-m", "server", "--signal-only", "--peers-per-address", "16"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log_file.open("w"), text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    for line in proc.stdout:
        match = re.search(r"being served at (http://\S+)", line)
        if match:
            return proc, match.group(1)
        if time.monotonic() > deadline:
            break
    proc.kill()
    raise RuntimeError("the helper did not start")


async def reader(client: Client, run: Run) -> None:
    async for msg in client.ws:
        if msg.type is not aiohttp.WSMsgType.TEXT:
            break
        message = json.loads(msg.data)
        if message["type"] == "offer":
            client.received += 1
            run.latencies[message["data"]["phase"]].append(
                time.perf_counter() - message["data"]["t"])
        elif message["type"] == "error":
            client.errors.append(message["code"])


async def send(client: Client, run: Run, phase: str) -> None:
    run.sent[phase] += 1
    await client.ws.send_str(json.dumps(
        {"type": "offer", "to": client.target, "data": {"phase": phase, "t": time.perf_counter()}}
    ))


async def steady_sender(client: Client, run: Run, rate: float, seconds: float) -> None:
    interval = 1.0 / rate
    start = time.monotonic() + random.random() * interval
    count = int(seconds * rate)
    for i in range(count):
        delay = start + i * interval - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        await send(client, run, "steady")


@dataclass
class Cluster:
    """The helpers under test (one, or several sharing a Redis)."""

    procs: list[subprocess.Popen[str]]
    urls: list[str]
    log_files: list[Path]
    redis: Any = None  # server.testing.RedisServer

    def redis_commands(self) -> int:
        if self.redis is None:
            return 0
        import redis

        client = redis.Redis(port=self.redis.port)
        try:
            return int(client.info("stats")["total_commands_processed"])
        finally:
            client.close()


async def bench(args: argparse.Namespace, instances: int) -> None:
    from server.testing import RedisServer

    with tempfile.TemporaryDirectory() as tmp:
        redis_server = RedisServer() if instances > 1 else None
        cluster = Cluster([], [], [], redis_server)
        try:
            if redis_server is not None:
                redis_server.start()
            for i in range(instances):
                log_file = Path(tmp) / f"helper{i}.log"
                proc, url = start_helper(log_file, redis_server.url if redis_server else None)
                cluster.procs.append(proc)
                cluster.urls.append(url)
                cluster.log_files.append(log_file)
            await measure(args, cluster)
        finally:
            for proc in cluster.procs:
                proc.terminate()
            for proc in cluster.procs:
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if redis_server is not None:
                redis_server.stop()


async def measure(args: argparse.Namespace, cluster: Cluster) -> None:
    procs, n = cluster.procs, len(cluster.procs)
    rooms = [secrets.token_urlsafe(16) for _ in range(-(-args.peers // args.room_size))]
    await asyncio.sleep(0.5)  # let the helpers settle before the idle memory reading
    rss_idle = sum(rss_kib(p.pid) for p in procs)
    run = Run()
    connector = aiohttp.TCPConnector(limit=0)  # the default pool would stop at 100 sockets
    async with aiohttp.ClientSession(connector=connector) as session:
        gate = asyncio.Semaphore(64)  # below the listen backlog

        async def connect(i: int) -> Client:
            url = cluster.urls[i % n]  # a room's peers on different instances
            async with gate:
                ws = await session.ws_connect(url + "signal",
                                              headers={"Origin": url.rstrip("/")},
                                              max_msg_size=0)
                client = Client(ws, rooms[i // args.room_size])
                await ws.send_str(json.dumps({"type": "join", "v": 1, "room": client.room}))
                welcome = json.loads((await ws.receive()).data)
                client.peer = welcome["peer"]
                return client

        t0 = time.perf_counter()
        clients = await asyncio.gather(*(connect(i) for i in range(args.peers)))
        joined_in = time.perf_counter() - t0
        by_room: dict[str, list[Client]] = {}
        for c in clients:
            by_room.setdefault(c.room, []).append(c)
        for members in by_room.values():
            for j, c in enumerate(members):
                c.target = members[(j + 1) % len(members)].peer
        readers = [asyncio.create_task(reader(c, run)) for c in clients]
        # The measuring side's own garbage collector must not add its pauses to the figures:
        # what is set up stays out of the collector's way (the helper's is left alone).
        gc.collect()
        gc.freeze()
        await asyncio.sleep(1.0)  # join notices delivered, memory settled
        rss_joined = sum(rss_kib(p.pid) for p in procs)

        redis_pid = cluster.redis.pid if cluster.redis is not None else None
        cpu0 = [cpu_seconds(p.pid) for p in procs]
        redis_cpu0 = cpu_seconds(redis_pid) if redis_pid else 0.0
        commands0 = cluster.redis_commands()
        w0, own0 = time.perf_counter(), time.process_time()
        await asyncio.gather(*(steady_sender(c, run, args.rate, args.seconds) for c in clients
                               if c.target != c.peer))
        await drain(run, "steady")
        steady_wall = time.perf_counter() - w0
        steady_cpus = [cpu_seconds(p.pid) - c for p, c in zip(procs, cpu0, strict=True)]
        redis_cpu = cpu_seconds(redis_pid) - redis_cpu0 if redis_pid else 0.0
        commands = cluster.redis_commands() - commands0
        run.client_cpu = time.process_time() - own0
        rss_after = sum(rss_kib(p.pid) for p in procs)

        run.phase = "burst"
        b0 = time.perf_counter()
        await asyncio.gather(*(send(c, run, "burst") for c in clients if c.target != c.peer
                               for _ in range(args.burst)))
        await drain(run, "burst")
        burst_wall = time.perf_counter() - b0

        for c in clients:
            await c.ws.close()
        await asyncio.gather(*readers, return_exceptions=True)

    errors = [e for c in clients for e in c.errors]
    await asyncio.sleep(0.5)
    log_lines = [line for f in cluster.log_files for line in f.read_text().splitlines()]
    events = [json.loads(line) for line in log_lines if line.startswith("{")]
    report(args, len(by_room), joined_in, rss_idle, rss_joined, rss_after, run, steady_wall,
           steady_cpus, burst_wall, errors, events, log_lines, redis_cpu, commands)


async def drain(run: Run, phase: str, limit: float = 20.0) -> None:
    """Wait until every message of the phase arrived (or the limit: then some were lost)."""
    deadline = time.monotonic() + limit
    while len(run.latencies[phase]) < run.sent[phase] and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


def describe(values: list[float]) -> str:
    if not values:
        return "nothing measured"
    ms = [v * 1000 for v in values]
    return (f"p50 {statistics.median(ms):.2f} ms, p90 {percentile(ms, 0.9):.2f} ms, "
            f"p99 {percentile(ms, 0.99):.2f} ms, max {max(ms):.2f} ms")


def report(args: argparse.Namespace, rooms: int, joined_in: float, rss_idle: int,
           rss_joined: int, rss_after: int, run: Run, steady_wall: float,
           steady_cpus: list[float], burst_wall: float, errors: list[str], events: list[dict],
           log_lines: list[str], redis_cpu: float, commands: int) -> None:
    n = len(steady_cpus)
    where = "one helper, no Redis" if n == 1 else f"{n} helpers sharing one Redis"
    print(f"signalling helper ({where}): {args.peers} peers in {rooms} rooms of "
          f"{args.room_size}, loopback, aiohttp {aiohttp.__version__}, Python "
          f"{sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the end")
    steady_cpu = sum(steady_cpus)
    print(f"  connect + join: {joined_in:.2f} s ({args.peers / joined_in:.0f} peers/s)")
    per_peer = (rss_joined - rss_idle) / args.peers
    print(f"  helper memory (all instances): {rss_idle / 1024:.1f} MiB idle, "
          f"{rss_joined / 1024:.1f} MiB with "
          f"the peers joined: {per_peer:.1f} KiB per peer ({rss_after / 1024:.1f} MiB after "
          "the steady phase)")
    steady, burst = run.latencies["steady"], run.latencies["burst"]
    print(f"  steady: {len(steady)} of {run.sent['steady']} relays in {steady_wall:.1f} s "
          f"({len(steady) / steady_wall:.0f}/s, {args.rate:g} per peer per s): {describe(steady)}; "
          f"helper CPU {100 * steady_cpu / steady_wall:.0f}% of a core, "
          f"{1e6 * steady_cpu / max(1, len(steady)):.0f} us per relay; this process (the "
          f"clients) {100 * run.client_cpu / steady_wall:.0f}%")
    if n > 1:
        print("  CPU per instance: " + ", ".join(
            f"{100 * c / steady_wall:.0f}%" for c in steady_cpus)
            + f" of a core ({args.peers // n} peers each); redis-server "
            f"{100 * redis_cpu / steady_wall:.0f}%, {commands / steady_wall:.0f} commands/s "
            f"({commands / max(1, len(steady)):.2f} per relay)")
    print(f"  burst: {len(burst)} of {run.sent['burst']} relays sent at once, all through in "
          f"{burst_wall * 1000:.0f} ms: {describe(burst)}")
    kinds: dict[str, int] = {}
    for e in events:
        kinds[e["event"]] = kinds.get(e["event"], 0) + 1
    print(f"  errors to clients: {len(errors)}; helper log: {len(log_lines)} lines "
          f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
    for e in events:
        if e["event"] in ("redis-down", "internal-error"):
            print(f"  {e['event']}: {e.get('error')}")
    if errors:
        codes: dict[str, int] = {}
        for code in errors:
            codes[code] = codes.get(code, 0) + 1
        print("  error codes: " + ", ".join(f"{k} {v}" for k, v in sorted(codes.items())))
    p99 = percentile(steady, 0.99) * 1000 if steady else float("inf")
    verdict = "met" if p99 < 20 and len(steady) == run.sent["steady"] else "NOT met"
    print(f"  goal (steady p99 < 20 ms, nothing lost): {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", type=int, default=1000)
    parser.add_argument("--room-size", type=int, default=4)
    parser.add_argument("--rate", type=float, default=2.0, help="offers per peer per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="steady phase length")
    parser.add_argument("--burst", type=int, default=5, help="offers per peer in the burst")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--instances", type=int, default=1,
                        help="helpers sharing one redis-server (1: one helper, no Redis)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="with --instances > 1, skip the run on one helper without Redis")
    args = parser.parse_args(argv)
    if not 1 <= args.instances <= 4:
        parser.error("--instances is 1..4")
    if not 2 <= args.peers <= MAX_PEERS or not 2 <= args.room_size <= 16:
        parser.error(f"--peers is 2..{MAX_PEERS} and --room-size 2..16")
    if not 0 < args.seconds <= MAX_SECONDS or not 0 < args.rate <= 15 or not 0 <= args.burst <= 50:
        parser.error(f"--seconds is up to {MAX_SECONDS}, --rate up to 15 (the helper allows 20 "
                     "a second), --burst up to 50")
    random.seed(args.seed)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, 2 * args.peers + 256)
    if soft < wanted:  # the helper inherits it: one socket per peer on each side
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    overall = 60 + args.seconds + args.peers / 20
    runs = [args.instances] if args.instances == 1 or args.no_baseline else [args.instances, 1]
    for instances in runs:
        try:
            asyncio.run(asyncio.wait_for(bench(args, instances), overall))
        except TimeoutError:
            print(f"stopped after the overall limit of {overall:.0f} s", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
