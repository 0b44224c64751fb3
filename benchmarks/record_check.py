"""What the record's check at start costs, and the salvage of a damaged record (issue 38).

Before the box opens its record for writing it runs SQLite's ``PRAGMA
quick_check`` (store/disk/salvage.py): once per start, before the loop, never on it.
This prints what that costs on records of 1,000 to 100,000 games (built as
``lifetime.py`` builds them: real played games copied with shifted ids), with
the full ``integrity_check`` beside it for comparison, the store's whole
opening, and on a copy with one page of the throws overwritten with garbage:
the salvage (check, move aside, recovery table by table, figures counted
again) and what it recovered.

    .venv/bin/python benchmarks/record_check.py [--sizes 1000,10000,100000]

Each time is the median of 3 runs, in this process (the file in the page
cache, as at a restart of the service; a cold boot reads it from the card
first, see benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from lifetime import build, play_seed  # noqa: E402

from shutbox_hw.store import Store  # noqa: E402
from shutbox_hw.store.disk.salvage import quick_check  # noqa: E402

RUNS = 3


def median_s(action: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pragma(path: Path, name: str) -> None:
    db = sqlite3.connect(path)
    try:
        assert db.execute(f"PRAGMA {name}").fetchone() == ("ok",)
    finally:
        db.close()


def damage(source: Path, target: Path) -> None:
    """A copy with one page of the throws' table (its middle leaf) overwritten."""
    shutil.copy(source, target)
    db = sqlite3.connect(target)
    page_size, = db.execute("PRAGMA page_size").fetchone()
    # the page that holds the middle throw: found through dbstat where the build has it,
    # else a page three quarters into the file (the throws are the biggest table)
    try:
        pages = [p for p, in db.execute("SELECT pageno FROM dbstat WHERE name = 'throws'"
                                        " AND pagetype = 'leaf' ORDER BY pageno")]
        page = pages[len(pages) // 2]
    except sqlite3.Error:
        page = target.stat().st_size // page_size * 3 // 4
    db.close()
    with open(target, "r+b") as out:
        out.seek((page - 1) * page_size)
        out.write(b"\xa5" * page_size)


def measure(path: Path, work: Path) -> dict[str, object]:
    figures: dict[str, object] = {"db_mb": round(path.stat().st_size / 1e6, 1)}
    figures["quick_check_s"] = round(median_s(lambda: quick_check(path)), 3)
    figures["integrity_check_s"] = round(median_s(lambda: pragma(path, "integrity_check")), 3)
    figures["store_open_s"] = round(median_s(lambda: Store(path).close()), 3)
    times, result = [], None
    for run in range(RUNS):
        broken = work / f"broken-{run}.db"
        damage(path, broken)
        start = time.perf_counter()
        store = Store(broken)
        times.append(time.perf_counter() - start)
        result = store.salvaged
        store.close()
    figures["salvage_s"] = round(statistics.median(times), 3)
    if result is not None:
        figures["salvaged"] = result.words()
        db = sqlite3.connect(path)
        try:
            before = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                      for t in result.rows}
        finally:
            db.close()
        figures["rows_lost"] = {t: before[t] - n for t, n in result.rows.items()
                                if before[t] != n}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="record-check-"))
    try:
        seed = work / "seed.db"
        play_seed(seed)
        out = {}
        for games in sizes:
            path = work / f"games-{games}.db"
            build(path, games, seed)
            out[games] = measure(path, work)
            print(games, json.dumps(out[games]), file=sys.stderr, flush=True)
        print(json.dumps(out, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
