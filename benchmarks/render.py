"""Median time to render each screen kind (the OLED must never hold up input).

Run: .venv/bin/python benchmarks/render.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import time

from shutbox_hw.render import render
from shutbox_hw.render.samples import SAMPLES


def render_times(repeats: int) -> dict[str, list[float]]:
    """Seconds per render of each sample screen, ``repeats`` times each."""
    times: dict[str, list[float]] = {}
    for name, screen in sorted(SAMPLES.items()):
        render(screen)                      # warm the glyph cache, as on the box
        times[name] = []
        for _ in range(repeats):
            start = time.perf_counter()
            render(screen)
            times[name].append(time.perf_counter() - start)
    return times


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for name, times in render_times(repeats).items():
        print(f"{name:20s} {statistics.median(times) * 1000:7.3f} ms")


if __name__ == "__main__":
    main()
