"""Whole games through ``python -m ludo stdio``, driven as an outside integrator drives it (a
printout, never an assertion).

    PYTHONPATH=py .venv/bin/python bench/outside_stdio.py              # 1000 games of each rule set
    PYTHONPATH=py .venv/bin/python bench/outside_stdio.py --games 50 --rules gilgiti

One ``stdio`` process per rule set, spoken to only through its standard input and output, one
JSON request a line and one answer a line (docs/notation.md, "Playing from another program"):
``new`` (2, 3 and 4 players in turn; Gilgiti's 4-player games every other time in teams), then
for every decision ``apply`` with the previous answer given whole as the position and an action
chosen among its ``distinct`` -- at random, except one seat a game whose moves the computer
player chooses (``bot``, ``--level``, default easy) -- and every ``--legal-every``-th step a
``legal`` request. Rolls are ``{"type": "roll"}``: the values come from the position's dice.

Every answer is checked: its ``id`` is the request's, it is no ``{"error": ...}``, it has the
command's members, ``distinct`` is part of ``legal``, a running game has something to choose
and a finished one nothing, ``legal`` agrees with the answer before it, ``bot``'s action is
legal; once over, the game's record (``new``'s, with every action appended) is replayed by the
engine in this process and must end in the answer's final position. A count of each kind of
fault is printed, with the first of each.

Prints one JSON line per rule set and one for all: games, requests (by command), seconds,
requests per second, mean actions a game, faults.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))

from ludo.notation import position_from_json, record_from_json, replay  # noqa: E402

RULE_SETS = ("courtyard", "classic", "royal", "gilgiti")
MAX_STEPS = 20_000  # a game longer than this counts as a fault (the engine's cap is far above)


class Gone(Exception):
    """The stdio process ended, or answered with something that is not one JSON line."""


class Session:
    """One ``python -m ludo stdio`` process and the requests sent to it."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT / "py")}
        self.proc = subprocess.Popen([sys.executable, "-m", "ludo", "stdio"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        self.sent = 0
        self.by_command: Counter[str] = Counter()

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request (with a fresh id) and read its one answer line."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.sent += 1
        self.by_command[request["command"]] += 1
        line = json.dumps({**request, "id": self.sent}, separators=(",", ":")).encode()
        try:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise Gone("stdio closed its input") from None
        reply_line = self.proc.stdout.readline()
        if not reply_line.endswith(b"\n"):
            raise Gone(f"stdio ended (answer {reply_line[:80]!r})")
        try:
            reply = json.loads(reply_line)
        except ValueError:
            raise Gone(f"not JSON: {reply_line[:80]!r}") from None
        if not isinstance(reply, dict):
            raise Gone(f"not an object: {reply_line[:80]!r}")
        return reply

    def close(self) -> tuple[int, bytes]:
        """End the session (its input closed): exit status and anything on stderr."""
        try:
            _out, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _out, err = self.proc.communicate()
        return self.proc.returncode, err


class Faults:
    """Counts of each kind of fault, with the first example of each."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.first: dict[str, str] = {}

    def add(self, kind: str, detail: str) -> None:
        self.counts[kind] += 1
        self.first.setdefault(kind, detail[:300])


def _checked(faults: Faults, reply: dict[str, Any], sent_id: int, command: str,
             members: tuple[str, ...]) -> bool:
    """Whether ``reply`` is a proper answer to request ``sent_id`` (faults counted if not)."""
    if reply.get("id") != sent_id:
        faults.add("wrong_id", f"sent {sent_id}, got {reply.get('id')!r}")
        return False
    if "error" in reply:
        faults.add(f"error_{command}", reply["error"])
        return False
    missing = [m for m in members if m not in reply]
    if reply.get("command") != command or missing:
        faults.add(f"malformed_{command}", f"command {reply.get('command')!r}, missing {missing}")
        return False
    return True


def _choices_ok(faults: Faults, answer: dict[str, Any]) -> bool:
    """``distinct`` part of ``legal``; something to choose while the game runs, nothing after."""
    legal, distinct = answer["legal"], answer["distinct"]
    if any(action not in legal for action in distinct):
        faults.add("distinct_not_legal", json.dumps(distinct)[:200])
        return False
    over = answer["position"]["phase"] == "over"
    if over != (not distinct):
        faults.add("choices_vs_phase", f"phase {answer['position']['phase']}, "
                   f"{len(distinct)} distinct")
        return False
    return True


def play_game(session: Session, faults: Faults, rules: str, game: int, seed: int,
              level: str, legal_every: int) -> int:
    """One whole game; returns its number of actions (-1 if it broke off)."""
    chooser = random.Random(seed * 7919 + game)
    players = (2, 3, 4)[game % 3]
    request: dict[str, Any] = {"command": "new", "rules": rules, "players": players,
                               "seed": seed * 100_003 + game}
    if rules == "gilgiti" and players == 4 and game % 2:
        request["options"] = {"teams": True}
    step = session.ask(request)
    if not _checked(faults, step, session.sent, "new",
                    ("position", "legal", "distinct", "record")):
        return -1
    record = step["record"]
    bot_seat = step["position"]["seats"][game % players]
    actions = 0
    while step["position"]["phase"] != "over":
        if not _choices_ok(faults, step):
            return -1
        if actions >= MAX_STEPS:
            faults.add("endless_game", f"{rules} game {game}: {actions} actions")
            return -1
        if legal_every and actions % legal_every == legal_every - 1:
            told = session.ask({"command": "legal", "position": step})
            if not _checked(faults, told, session.sent, "legal", ("legal", "distinct", "turn")):
                return -1
            if told["legal"] != step["legal"] or told["distinct"] != step["distinct"]:
                faults.add("legal_disagrees", f"{rules} game {game} action {actions}")
        distinct = step["distinct"]
        if step["position"].get("turn") == bot_seat and distinct != [{"type": "roll"}]:
            chosen = session.ask({"command": "bot", "position": step, "level": level,
                                  "seed": game})
            if not _checked(faults, chosen, session.sent, "bot", ("action", "level")):
                return -1
            action = chosen["action"]
            if action not in step["legal"]:
                faults.add("bot_not_legal", f"{rules} game {game}: {json.dumps(action)}")
        else:
            action = chooser.choice(distinct)
        step = session.ask({"command": "apply", "position": step, "action": action})
        if not _checked(faults, step, session.sent, "apply",
                        ("events", "position", "legal", "distinct")):
            return -1
        record["actions"].append(action)
        actions += 1
    if not _choices_ok(faults, step):
        return -1
    try:  # the engine in this process replays the record to the answer's final position
        if replay(record_from_json(record))[-1] != position_from_json(step["position"]):
            faults.add("replay_differs", f"{rules} game {game}")
    except ValueError as exc:
        faults.add("replay_refused", f"{rules} game {game}: {exc}")
    return actions


def run_rules(rules: str, games: int, seed: int, level: str, legal_every: int
              ) -> dict[str, Any]:
    """Every game of one rule set through one stdio process; its summary line."""
    faults = Faults()
    session = Session()
    lengths: list[int] = []
    started = time.perf_counter()
    try:
        for game in range(games):
            actions = play_game(session, faults, rules, game, seed, level, legal_every)
            if actions >= 0:
                lengths.append(actions)
    except Gone as exc:
        faults.add("process_gone", str(exc))
    elapsed = time.perf_counter() - started
    status, err = session.close()
    if status != 0 or err:
        faults.add("exit", f"status {status}, stderr {err[:200]!r}")
    return {
        "rules": rules,
        "games": games,
        "games_finished": len(lengths),
        "requests": session.sent,
        "by_command": dict(session.by_command),
        "seconds": round(elapsed, 1),
        "requests_per_second": round(session.sent / elapsed, 1) if elapsed > 0 else None,
        "mean_actions": round(sum(lengths) / len(lengths), 1) if lengths else None,
        "faults": dict(faults.counts),
        "first_faults": faults.first,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games of each rule set")
    parser.add_argument("--rules", default=",".join(RULE_SETS),
                        help="comma-separated rule sets (default all four)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", choices=("easy", "medium", "hard"), default="easy",
                        help="the computer player asked with bot for one seat a game")
    parser.add_argument("--legal-every", type=int, default=10,
                        help="a legal request every N actions (0: none)")
    args = parser.parse_args()
    lines = []
    for rules in args.rules.split(","):
        line = run_rules(rules.strip(), args.games, args.seed, args.level, args.legal_every)
        print(json.dumps(line), flush=True)
        lines.append(line)
    seconds = sum(line["seconds"] for line in lines)
    requests = sum(line["requests"] for line in lines)
    faults: Counter[str] = Counter()
    for line in lines:
        faults.update(line["faults"])
    print(json.dumps({"rules": "all", "games": sum(line["games"] for line in lines),
                      "games_finished": sum(line["games_finished"] for line in lines),
                      "requests": requests, "seconds": round(seconds, 1),
                      "requests_per_second": round(requests / seconds, 1) if seconds else None,
                      "faults": dict(faults)}))


if __name__ == "__main__":
    main()
