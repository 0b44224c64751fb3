"""How long a box takes to verify a league player's secret (issue 41, item 1).

The box verifies a claim of a league name with scrypt against the roster entry
(shutbox_hw/players/league_secret.py: n 2**11, r 8, p 1, 2 MiB), on the claims
socket's peer thread. Run it on the box's own computer (a Pi Zero is the
slowest the box supports): the target is well under a second.

    .venv/bin/python benchmarks/league_secret.py [--tries N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from shutbox_hw.players.league_secret import N, P, R, make_entry, verify


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=20)
    args = parser.parse_args()
    entry = make_entry(1, "Anna", "K7M2QDX4PA")
    times = []
    for i in range(args.tries):
        start = time.perf_counter()
        ok = verify(entry, "K7M2QDX4PA" if i % 2 else "K7M2QDX4PB")
        times.append(time.perf_counter() - start)
        assert ok == bool(i % 2)
    times.sort()
    print(f"scrypt n={N} r={R} p={P} ({128 * N * R // 2**20} MiB): verify median "
          f"{statistics.median(times) * 1000:.1f} ms, slowest {times[-1] * 1000:.1f} ms "
          f"over {args.tries} tries (target: well under 1000 ms on a Pi Zero)")


if __name__ == "__main__":
    main()
