"""What the one projection of a game costs as the record grows (issue 39 item 4).

Every surface that tells a game (``history``, the scorecard, the TV's last result,
``/live.json``, Home Assistant, a player's page) takes it from
``store/read/game_summary.py``. This builds records of 1,000 and 100,000 games
the way ``benchmarks/lifetime.py`` does (the simulated box's real games copied with
shifted ids and times) and prints, on each, the median of ``REPEATS`` calls of:

- ``history_ms``: ``recent_games(db, 20)`` (the history page, ``history``);
- ``history_deep_ms``: the same, one page from the oldest games (``before``);
- ``scorecard_ms``: the newest game's ``scorecard``;
- ``live_ms``: a fresh ``live()`` (no :class:`Kept`: the web's first read);
- ``player_page_ms``: a regular's page of games (``player_games.games_of``, 20).

    .venv/bin/python benchmarks/projection.py [--sizes 1000,100000] [--keep DIR]

Run it with ``PYTHONPATH=<another checkout>`` to measure that checkout's code on the
same records (``--keep`` builds them once).
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

REPEATS = 15


def median_ms(call: Callable[[], Any]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 2)


def measure(path: Path) -> dict[str, float]:
    from shutbox_hw.network.live import live
    from shutbox_hw.store.read import player_games
    from shutbox_hw.store.read.history import recent_games, scorecard
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    newest, oldest = db.execute("SELECT MAX(id), MIN(id) FROM games").fetchone()
    regular, = db.execute("SELECT player_id FROM players WHERE player_id IS NOT NULL"
                          " GROUP BY player_id ORDER BY COUNT(*) DESC LIMIT 1").fetchone()
    now = db.execute("SELECT MAX(started_at) FROM games").fetchone()[0] + 60
    figures = {
        "history_ms": median_ms(lambda: recent_games(db, 20)),
        "history_deep_ms": median_ms(lambda: recent_games(db, 20, before=oldest + 21)),
        "scorecard_ms": median_ms(lambda: scorecard(db, newest)),
        "live_ms": median_ms(lambda: live(db, now)),
        "player_page_ms": median_ms(lambda: player_games.games_of(db, regular, 20)),
    }
    db.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--keep", type=Path, help="build the records here once, and reuse them")
    args = parser.parse_args()
    import shutbox_hw
    print(f"code: {Path(shutbox_hw.__file__).parent}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        seed = folder / "seed.db"
        if not seed.exists():
            lifetime.play_seed(seed)
        for size in (int(s) for s in args.sizes.split(",")):
            path = folder / f"games-{size}.db"
            if not path.exists():
                lifetime.build(path, size, seed)
            found = measure(path)
            print(f"{size} games: " + ", ".join(f"{k} {v}" for k, v in found.items()),
                  flush=True)


if __name__ == "__main__":
    main()
