"""200 phones claiming a seat at once on the daemon's claims socket (issue 34).

The daemon's real loop on the real clock behind its socket (tests/claims_box.py),
64 threads sending the claims; prints, for each run, the time until every claim
had its answer and how many got each answer (8 seated, the rest told why).

    .venv/bin/python benchmarks/claims.py [--runs 3] [--claims 200]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from claims_box import RunningBox, short_folder  # noqa: E402

from shutbox_hw.claims import client  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--claims", type=int, default=200)
    args = parser.parse_args()
    took = []
    for run in range(args.runs):
        with short_folder() as folder:
            box = RunningBox(Path(tempfile.mkdtemp()), folder / "claims.sock")
            try:
                code = box.code()
                start = time.monotonic()
                with ThreadPoolExecutor(64) as pool:
                    names = [f"Player{i}" for i in range(args.claims)]
                    answers = list(pool.map(client.claim, [box.sock] * len(names), names,
                                            [code] * len(names)))
                took.append(time.monotonic() - start)
            finally:
                box.close()
        counted = collections.Counter("seated" if a["ok"] else a["reason"] for a in answers)
        print(f"run {run + 1}: {len(answers)} answered in {took[-1]:.2f} s: "
              + ", ".join(f"{n} {why}" for why, n in counted.most_common()))
    print(f"median {statistics.median(took):.2f} s for {args.claims} claims")


if __name__ == "__main__":
    main()
