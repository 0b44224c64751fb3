"""CPU per step of the pub night (tests/pub_night.py): what the suite's longest test pays,
and what the box pays for each step's mirror of its screen (store/read/shown.py).

Plays ``--nights`` nights of ``tests/pub_night.py`` (4 matches each, seeds 0.., the record on
a RAM disk when there is one) ``--repeat`` times and prints the CPU seconds (user and system,
this process) of each repeat, their median, and the steps; then times the mirror alone:
``publish`` and ``read_shown`` of one picture, ``--calls`` times each (CPU microseconds per
call, median of the repeats).

    .venv/bin/python benchmarks/pub_night_cpu.py
    .venv/bin/python benchmarks/pub_night_cpu.py --nights 10 --repeat 5 --json

Against another checkout (the "before" of a change), put it first on the path and name its
tests: ``PYTHONPATH=/path/to/it .venv/bin/python benchmarks/pub_night_cpu.py --tests
/path/to/it/tests``.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def nights(count: int, work: Path) -> tuple[float, int]:
    from pub_night import play_night
    start = _cpu()
    steps = 0
    for n in range(count):
        steps += play_night(n, work / f"night-{n}-{time.monotonic_ns()}.db", 4).steps
    return _cpu() - start, steps


def mirror(calls: int, work: Path) -> tuple[float, float]:
    """CPU microseconds per publish and per read_shown of one picture."""
    from shutbox_hw.store import Store
    from shutbox_hw.store.read.shown import publish, read_shown, withdraw
    store = Store(work / f"mirror-{time.monotonic_ns()}.db")
    picture = {"phase": "play", "player": "Anna", "round": 2, "dice": [3, 4],
               "flaps": ["open", "shut", "pending"] * 3, "reasons": {}, "problem": None}
    try:
        start = _cpu()
        for _ in range(calls):
            publish(store, picture)
        wrote = _cpu() - start
        db = store.db
        assert isinstance(db, sqlite3.Connection)
        start = _cpu()
        for _ in range(calls):
            read_shown(db)
        read = _cpu() - start
        withdraw(store.path)
    finally:
        store.close()
    return wrote / calls * 1e6, read / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--tests", default=str(Path(__file__).resolve().parent.parent / "tests"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, args.tests)
    scratch = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    runs, steps, writes, reads = [], 0, [], []
    with tempfile.TemporaryDirectory(dir=scratch) as work:
        for _ in range(args.repeat):
            cpu, steps = nights(args.nights, Path(work))
            runs.append(cpu)
            wrote, read = mirror(args.calls, Path(work))
            writes.append(wrote)
            reads.append(read)
    figures = {"nights": args.nights, "steps": steps, "night_cpu_s": [round(r, 2) for r in runs],
               "night_cpu_s_median": round(statistics.median(runs), 2),
               "cpu_us_per_step": round(statistics.median(runs) / max(1, steps) * 1e6),
               "publish_cpu_us": round(statistics.median(writes), 1),
               "read_shown_cpu_us": round(statistics.median(reads), 1)}
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:20} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
