"""How long a durable write of one game event takes (WAL, synchronous=FULL).

Input handling waits for exactly this when a throw commits, so it bounds the
delay between the last flap of a closure and the box showing it.

    .venv/bin/python benchmarks/store.py [events]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from shutbox_hw.game.model.events import GameStarted, Rolled, ThrowCommitted, TurnStarted
from shutbox_hw.rules import build_rules
from shutbox_hw.store import Store


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        store.record(GameStarted(players=("P1",), rules=build_rules("klappenspiel").as_dict(),
                                 dice="software"))
        store.record(TurnStarted(seat=0, player="P1", round=1))
        times = []
        for throw in range(1, count + 1):
            for event in (Rolled(seat=0, player="P1", dice=(3, 4), round=1, throw=throw),
                          ThrowCommitted(seat=0, player="P1", dice=(3, 4), closed=(7,),
                                         open=(1,), round=1, throw=throw)):
                start = time.perf_counter()
                store.record(event)
                times.append(time.perf_counter() - start)
        store.close()
    print(f"durable event write: median {statistics.median(times) * 1000:.2f} ms, "
          f"90th percentile {sorted(times)[int(len(times) * 0.9)] * 1000:.2f} ms "
          f"({len(times)} writes, this machine's disk)")


if __name__ == "__main__":
    main()
