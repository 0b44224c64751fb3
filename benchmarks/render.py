"""Median time to render each screen kind (the OLED must never hold up input).

Run: .venv/bin/python benchmarks/render.py [repeats]

The last line is the CPU (user + system of this process) per render, over every sample
screen ``repeats`` times: the figure to compare where the machine is shared (the wall
medians above it move with the load).
"""

from __future__ import annotations

import os
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


def cpu_per_render(repeats: int) -> float:
    """CPU seconds per render, every sample screen ``repeats`` times (caches warm)."""
    screens = [SAMPLES[name] for name in sorted(SAMPLES)]
    for screen in screens:
        render(screen)
    start = os.times()
    for _ in range(repeats):
        for screen in screens:
            render(screen)
    end = os.times()
    return (end.user + end.system - start.user - start.system) / (repeats * len(screens))


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for name, times in render_times(repeats).items():
        print(f"{name:20s} {statistics.median(times) * 1000:7.3f} ms")
    print(f"{'all, CPU per render':20s} {cpu_per_render(repeats) * 1e6:7.0f} us")


if __name__ == "__main__":
    main()
