"""Median time to render each screen kind (the OLED must never hold up input).

Run: .venv/bin/python benchmarks/render.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import time

from shutbox_hw.render import render
from shutbox_hw.render.samples import SAMPLES


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for name, screen in sorted(SAMPLES.items()):
        render(screen)                      # warm the glyph cache, as on the box
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            render(screen)
            times.append(time.perf_counter() - start)
        print(f"{name:20s} {statistics.median(times) * 1000:7.3f} ms")


if __name__ == "__main__":
    main()
