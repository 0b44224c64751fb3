"""How long the debounce logic and the expander read take per call (medians).

Run: .venv/bin/python benchmarks/debounce.py
"""

from __future__ import annotations

import random
import statistics
import time

from shutbox_hw.hal.adapters.expander import ExpanderPins
from shutbox_hw.hal.adapters.switches import Switches
from shutbox_hw.hal.contracts.debounce import FlapInputs
from shutbox_hw.hal.simulated import SimBus, SimMcp23017, SimWorld


def median_us(fn, runs: int = 15) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        n = fn()
        times.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(times)


def edges_and_polls() -> int:
    """12 flaps, 2000 bouncing changes, a poll every millisecond."""
    rng = random.Random(1)
    flaps = FlapInputs(dict.fromkeys(range(1, 13), False))
    shut = dict.fromkeys(range(1, 13), False)
    t = 0
    for _ in range(2000):
        tile = rng.randint(1, 12)
        shut[tile] = not shut[tile]
        for k in range(5):
            flaps.edge(tile, shut[tile] if k % 2 == 0 else not shut[tile], t + k)
            flaps.poll(t + k)
        for now in range(t + 5, t + 30):
            flaps.poll(now)
        t += 30
    return 2000 * 30


def expander_reads() -> int:
    bus = SimBus(1)
    bus.attach(0x20, SimMcp23017())
    world = SimWorld()
    pins = ExpanderPins(bus, world.clock, {t: t - 1 for t in range(1, 8)}, read_ms=0)
    flaps = Switches([pins]).flaps
    for now in range(1000):
        flaps.poll(now)
    return 1000


if __name__ == "__main__":
    print(f"FlapInputs edge+poll, 12 flaps: median {median_us(edges_and_polls):.2f} us per poll")
    print(f"Expander flaps poll with a full register read (simulated bus): "
          f"median {median_us(expander_reads):.1f} us per poll")
