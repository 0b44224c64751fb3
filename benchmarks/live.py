"""The live summary (network/live.py) per step of a pub night: how often it is
computed and what one computation costs.

Plays the pub night of ``tests/pub_night.py`` (its players, its record on a
RAM disk when there is one) and measures two things:

- ``witness``: the night's own check after every step, a fresh ``live()`` on the
  box's connection (what the pub night test pays): calls, calls per step, and
  the median and total time of one call;
- ``readers``: after every step, ``READERS`` reads of the summary at the same
  instant, as the box's readers make them (the MQTT state after the step's
  events, the web feed's look, the periodic refresh): each a fresh ``live()``
  (``fresh``), or all through one ``Kept`` (``kept``: computed once per change
  of the record); computations per step and the median time per step.

    .venv/bin/python benchmarks/live.py                # 3 nights of 4 matches
    .venv/bin/python benchmarks/live.py --nights 5 --json
    .venv/bin/python benchmarks/live.py --profile --nights 5   # live()'s share under cProfile

Against another checkout (the "before" of a change), run it with that
checkout first on the path: ``PYTHONPATH=/path/to/it .venv/bin/python
benchmarks/live.py`` (a checkout without ``Kept`` reports ``kept`` as null).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pub_night import Night  # noqa: E402

from shutbox_hw.network import live as live_module  # noqa: E402

READERS = 3


class Measured(Night):
    """The pub night with its fresh check timed, and the readers' reads after each step."""

    way = "fresh"

    def __init__(self, seed: int, db: Path) -> None:
        self.call_s: list[float] = []
        self.step_s: list[float] = []
        self.computed = 0
        self.kept = getattr(live_module, "Kept", None)
        self.reader = self.kept() if self.kept is not None and self.way == "kept" else None
        super().__init__(seed, db)

    def _surfaces(self) -> None:
        db = self.database()
        if db is None:
            return
        start = time.perf_counter()
        super()._surfaces()
        self.call_s.append(time.perf_counter() - start)
        now = self.wall()
        start = time.perf_counter()
        if self.reader is not None:
            before = self.reader.computed
            for _ in range(READERS):
                self.reader(db, now)
            self.computed += self.reader.computed - before
        else:
            for _ in range(READERS):
                live_module.live(db, now)
            self.computed += READERS
        self.step_s.append(time.perf_counter() - start)


class MeasuredKept(Measured):
    way = "kept"


def night(box: type[Measured], nights: int, work: str) -> dict[str, float] | None:
    calls: list[float] = []
    steps: list[float] = []
    computed = 0
    for n in range(nights):
        played = box(n, Path(work) / f"{box.way}-{n}.db")
        if box.way == "kept" and played.reader is None:
            played.close()
            return None
        try:
            for _ in range(4):
                played.match()
        finally:
            played.close()
        calls += played.call_s
        steps += played.step_s
        computed += played.computed
    return {"steps": len(steps), "witness_calls": len(calls),
            "witness_calls_per_step": round(len(calls) / len(steps), 2),
            "witness_median_us": round(statistics.median(calls) * 1e6),
            "witness_total_s": round(sum(calls), 2),
            "readers_per_step": READERS,
            "readers_computed_per_step": round(computed / len(steps), 2),
            "readers_median_us_per_step": round(statistics.median(steps) * 1e6)}


def profile(nights: int, scratch: str | None) -> None:
    """The pub night as it is, under cProfile: who calls live() and what it costs."""
    import cProfile
    import pstats
    profiler = cProfile.Profile()
    with tempfile.TemporaryDirectory(dir=scratch) as work:
        profiler.enable()
        for n in range(nights):
            played = Night(n, Path(work) / f"profile-{n}.db")
            try:
                for _ in range(4):
                    played.match()
            finally:
                played.close()
        profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt     # type: ignore[attr-defined]
    for (path, _line, name), (_cc, calls, _tt, cumulative, callers) in \
            stats.stats.items():  # type: ignore[attr-defined]
        if name == "live" and path == live_module.__file__:
            by = ", ".join(f"{caller[2]} ({Path(caller[0]).name}) {figures[1]}"
                           for caller, figures in callers.items())
            print(f"live(): {calls} calls, {cumulative:.2f} of {total:.2f} s; called by {by}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", action="store_true",
                        help="the night's fresh check under cProfile: live()'s calls and "
                             "its share of the whole")
    args = parser.parse_args()
    scratch = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    if args.profile:
        profile(args.nights, scratch)
        return
    with tempfile.TemporaryDirectory(dir=scratch) as work:
        figures = {"checkout": str(Path(live_module.__file__).parents[2]),
                   "fresh": night(Measured, args.nights, work),
                   "kept": night(MeasuredKept, args.nights, work)}
    if args.json:
        print(json.dumps(figures))
        return
    print(f"checkout {figures['checkout']}, {args.nights} nights of 4 matches")
    for way in ("fresh", "kept"):
        found = figures[way]
        if not isinstance(found, dict):
            print(f"{way}: not in this checkout")
            continue
        print(f"{way}: " + ", ".join(f"{k} {v}" for k, v in found.items()))



if __name__ == "__main__":
    main()
