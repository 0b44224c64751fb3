"""Removing a player (store/write/forget.py) and reading the roster, on records of
growing size: how long the removal holds the write lock, and the roster's
read (the daemon's, after every game), median of a few runs each.

    .venv/bin/python benchmarks/forget.py [--games 1000,10000,100000]

Each record: the given number of finished two-player games among 200 regulars
(the removed player in 1 game of 100), each game's round result and winners,
and 2,000 events waiting in the MQTT outbox (a broker away for an evening).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from shutbox_hw.store.tables.roster import recent
from shutbox_hw.store.write.forget import forget_player
from shutbox_hw.store.write.sqlite import Store

REGULARS = [f"Regular {i}" for i in range(200)]
HER = "Anna Lena"
RUNS = 5


def build(path: Path, games: int) -> None:
    Store(path, clock=lambda: 1.0).close()      # the schema, as the box makes it
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN")
    ids = {}
    for i, name in enumerate([*REGULARS, HER]):
        ids[name] = db.execute("INSERT INTO roster (name, key, first_seen, last_seen)"
                               " VALUES (?, ?, ?, ?)", (name, name.lower(), i, i)).lastrowid
    for g in range(1, games + 1):
        a = HER if g % 100 == 0 else REGULARS[g % 200]
        b = REGULARS[(g * 7 + 1) % 200]
        db.execute("INSERT INTO games (id, started_at, ended_at, rules, dice_mode, winners)"
                   " VALUES (?, ?, ?, '{\"preset\": \"klappenspiel\"}', 'software', ?)",
                   (g, g * 60.0, g * 60.0 + 50, json.dumps([a])))
        db.executemany("INSERT INTO players (game_id, seat, name, player_id) VALUES (?, ?, ?, ?)",
                       [(g, 0, a, ids[a]), (g, 1, b, ids[b])])
        db.execute("INSERT INTO rounds (game_id, number, ended_at, result) VALUES (?, 1, ?, ?)",
                   (g, g * 60.0 + 50, json.dumps({"event": "round_ended", "round": 1,
                                                   "totals": {a: 3, b: 9}, "winners": [a]})))
    for i in range(2000):
        name = HER if i % 50 == 0 else REGULARS[i % 200]
        db.execute("INSERT INTO outbox (at, event) VALUES (?, ?)",
                   (games * 60.0 + i, json.dumps({"event": "turn_started", "player": name,
                                                  "round": 1})))
    db.execute("COMMIT")
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default="1000,10000,100000")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    try:
        for games in (int(n) for n in args.games.split(",")):
            base = folder / f"base-{games}.db"
            build(base, games)
            removal, roster = [], []
            for run in range(RUNS):
                copy = folder / f"run-{run}.db"
                shutil.copy(base, copy)
                db = sqlite3.connect(copy, isolation_level=None)
                db.execute("PRAGMA foreign_keys=ON")
                start = time.perf_counter()
                recent(db)
                roster.append(time.perf_counter() - start)
                start = time.perf_counter()
                done = forget_player(db, HER, 0.0)
                removal.append(time.perf_counter() - start)
                db.close()
                copy.unlink()
            print(f"{games:>7} games ({done.games} hers): remove"
                  f" {statistics.median(removal) * 1000:8.1f} ms"
                  f"  roster read {statistics.median(roster) * 1000:6.2f} ms  (median of {RUNS})")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
