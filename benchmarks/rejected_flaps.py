"""The reads that join the rejected flaps by their turn, before and after schema 10's
index on ``rejected_flaps(turn_id)`` (issue 39 item 5).

Builds a record of ``--games`` games the way ``benchmarks/lifetime.py`` does (the
simulated box's real games copied with shifted ids and times; its seed has one
rejected flap in every two games), then measures on it, first as schema 9 left it
(the index dropped) and then with the index made as the migration makes it, the
median of ``REPEATS`` calls of:

- ``scorecard_ms``: the newest ended game's ``scorecard`` that has a refused flap
  (``history --game``, the web's scorecard: its count of refused flaps);
- ``scorecard_old_ms``: the same for the oldest such game;
- ``count_ms``: that count's query alone, for the newest;
- ``game_record_ms``: the newest's ``game_record``, the league's message built on the
  box in the transaction of every game's end whenever it publishes to MQTT (its refused
  flaps, turn by turn);

with ``EXPLAIN QUERY PLAN``'s line for ``rejected_flaps`` in each, and how long the
index took to make (the migration's step 9 -> 10 on that record, once).

    .venv/bin/python benchmarks/rejected_flaps.py [--games 100000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lifetime  # noqa: E402  (this folder's own: the records are built its way)

REPEATS = 21
INDEX = "rejected_flaps_turn"
# the scorecard's count (store/read/history.py), written again here for its plan and time
COUNT = ("SELECT COUNT(*) FROM rejected_flaps r JOIN turns t ON t.id = r.turn_id"
         " WHERE t.game_id = ?")


def median_ms(call: Callable[[], Any]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 3)


def plan(db: sqlite3.Connection, sql: str, *args: Any) -> str:
    """The plan's steps for the rejected flaps (``r``)."""
    rows = db.execute(f"EXPLAIN QUERY PLAN {sql}", args).fetchall()
    return "; ".join(str(row[-1]) for row in rows if " r" in f" {row[-1]}")


def measure(db: sqlite3.Connection) -> dict[str, Any]:
    from shutbox_hw.store.read.history import scorecard
    from shutbox_hw.store.tables.game_record import game_record
    # the newest and the oldest ended game with a refused flap (the seed's finished one)
    newest, oldest = db.execute(
        "SELECT MAX(t.game_id), MIN(t.game_id) FROM rejected_flaps r JOIN turns t"
        " ON t.id = r.turn_id JOIN games g ON g.id = t.game_id"
        " WHERE g.ended_at IS NOT NULL").fetchone()
    card, record = scorecard(db, newest), game_record(db, newest)
    assert card is not None and record is not None
    return {
        "scorecard_ms": median_ms(lambda: scorecard(db, newest)),
        "scorecard_old_ms": median_ms(lambda: scorecard(db, oldest)),
        "count_ms": median_ms(lambda: db.execute(COUNT, (newest,)).fetchone()),
        "game_record_ms": median_ms(lambda: game_record(db, newest)),
        "refused": (card["rejected_flaps"],
                    sum(len(turn["rejected"]) for turn in record["turns"])),
        "plan": plan(db, COUNT, newest),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build the record here once, and reuse it")
    args = parser.parse_args()
    from shutbox_hw.store.tables.schema import MIGRATIONS, VERSION
    step = next(s for s in MIGRATIONS[9] if isinstance(s, str) and INDEX in s)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        seed = folder / "seed.db"
        if not seed.exists():
            lifetime.play_seed(seed)
        path = folder / f"games-{args.games}-schema{VERSION}.db"
        if not path.exists():
            lifetime.build(path, args.games, seed)
        db = sqlite3.connect(path, isolation_level=None)
        refused, = db.execute("SELECT COUNT(*) FROM rejected_flaps").fetchone()
        print(f"{args.games} games, {refused} rejected flaps", flush=True)
        db.execute(f"DROP INDEX IF EXISTS {INDEX}")    # as schema 9 left the record
        before = measure(db)
        print(f"schema 9 (no index): {before}", flush=True)
        start = time.perf_counter()
        db.execute(step)
        made = time.perf_counter() - start
        after = measure(db)
        print(f"schema 10 (index): {after}", flush=True)
        print(f"index made in {made * 1000:.0f} ms", flush=True)
        db.close()


if __name__ == "__main__":
    main()
