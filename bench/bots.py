"""Hard bot decision time on a few stored positions (a printout, never an assertion).

    python bench/bots.py

Each position is a move decision with several choices, most after a six (so
the search also looks through the extra roll).  For every position it prints
the chosen move and the median and worst time of a full (blocking) decision
over several runs, plus the longest slice of the incremental form -- the time
the page would be blocked at once.  Budget (issue 5): <= 300 ms per Hard
decision in Pyodide, about 1.2-1.6x slower than CPython, so aim for <= 150 ms
here; a slice must stay well under 50 ms.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "py"))

from ludo.bots import choose_action, think  # noqa: E402
from ludo.notation import parse_position  # noqa: E402

POSITIONS = [
    '{"format":"courtyard-ludo/position","version":2,"rules":"courtyard","seats":["red","green","yellow","blue"],"turn":"yellow","phase":"move","die":6,"sixes":1,"tokens":{"red":["yard","yard",18,2],"green":[47,17,32,"yard"],"yellow":[21,"yard",44,48],"blue":[20,14,39,1]},"unlocked":["yellow","blue"],"timeouts":{"red":0,"green":0,"yellow":0,"blue":0},"out":{},"winner":null,"rng":"865691719cbbdbdf"}',  # noqa: E501
    '{"format":"courtyard-ludo/position","version":2,"rules":"courtyard","seats":["red","green","yellow","blue"],"turn":"yellow","phase":"move","die":6,"sixes":1,"tokens":{"red":["yard",13,44,"yard"],"green":[26,"yard",35,13],"yellow":["yard",15,37,7],"blue":[39,"yard",3,"yard"]},"unlocked":["red","green","yellow","blue"],"timeouts":{"red":0,"green":0,"yellow":0,"blue":0},"out":{},"winner":null,"rng":"865691719cbbdbfb"}',  # noqa: E501
    '{"format":"courtyard-ludo/position","version":2,"rules":"courtyard","seats":["red","green","yellow","blue"],"turn":"red","phase":"move","die":1,"sixes":0,"tokens":{"red":[0,41,8,"yard"],"green":[31,13,25,31],"yellow":[38,16,"yellow-lane-5",49],"blue":[39,17,9,51]},"unlocked":["red","green","yellow"],"timeouts":{"red":0,"green":0,"yellow":0,"blue":0},"out":{},"winner":null,"rng":"e2ac13ef8e8d8d25"}',  # noqa: E501
    '{"format":"courtyard-ludo/position","version":2,"rules":"classic","seats":["red","green","yellow","blue"],"turn":"blue","phase":"move","die":6,"sixes":1,"tokens":{"red":[31,"yard","yard",21],"green":["yard","yard",35,49],"yellow":["home",27,48,39],"blue":[4,"yard",30,25]},"unlocked":["red","green","yellow","blue"],"timeouts":{"red":0,"green":0,"yellow":0,"blue":0},"out":{},"winner":null,"rng":"ff34785799e5cbe6"}',  # noqa: E501
    '{"format":"courtyard-ludo/position","version":2,"rules":"classic","seats":["red","green","yellow","blue"],"turn":"yellow","phase":"move","die":6,"sixes":1,"tokens":{"red":["yard",12,32,33],"green":["yard","yard",24,13],"yellow":[45,3,"yard",42],"blue":["yard","yard",30,8]},"unlocked":["red","green","yellow","blue"],"timeouts":{"red":0,"green":0,"yellow":0,"blue":0},"out":{},"winner":null,"rng":"44749a360f4311fa"}',  # noqa: E501
    '{"format":"courtyard-ludo/position","version":2,"rules":"classic","seats":["red","green","yellow","blue"],"turn":"red","phase":"move","die":2,"sixes":0,"tokens":{"red":["yard",5,"red-lane-2",48],"green":[35,"yard","yard","green-lane-4"],"yellow":[3,28,"yard","yard"],"blue":[51,"yard",29,"blue-lane-5"]},"unlocked":["red","green","yellow","blue"],"timeouts":{"red":0,"green":0,"yellow":0,"blue":0},"out":{},"winner":null,"rng":"bd52811c0c6d01cc"}',  # noqa: E501
]

RUNS = 15


def longest_slice(state) -> tuple[float, int]:
    gen = think(state, "hard", 0)
    longest = 0.0
    slices = 0
    while True:
        started = time.perf_counter()
        try:
            next(gen)
        except StopIteration:
            return max(longest, time.perf_counter() - started), slices + 1
        longest = max(longest, time.perf_counter() - started)
        slices += 1


def main() -> None:
    runtime = "Pyodide" if sys.platform == "emscripten" else "CPython"
    print(f"Hard decision time, {runtime} (Python {sys.version.split()[0]}), "
          f"{RUNS} runs per position")
    print(f"{'#':>2} {'rules':10} {'die':>3} {'move':>5} {'median ms':>10} {'max ms':>8} "
          f"{'slices':>6} {'longest slice ms':>16}")
    worst = 0.0
    for i, text in enumerate(POSITIONS):
        state = parse_position(text)
        times = []
        action = None
        for _ in range(RUNS):
            started = time.perf_counter()
            action = choose_action(state, "hard", 0)
            times.append(time.perf_counter() - started)
        slice_s, slices = longest_slice(state)
        worst = max(worst, max(times))
        print(f"{i:>2} {state.rules:10} {state.die:>3} {action.token:>5} "
              f"{1000 * statistics.median(times):>10.2f} {1000 * max(times):>8.2f} "
              f"{slices:>6} {1000 * slice_s:>16.2f}")
    print(f"worst decision: {1000 * worst:.2f} ms (budget 150 ms CPython / 300 ms Pyodide)")


if __name__ == "__main__":
    main()
