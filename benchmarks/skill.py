"""The move accuracy validated by seeded bots, and what the rater costs.

Run: .venv/bin/python benchmarks/skill.py [--turns N] [--runs N]

1. The league (shutbox_hw/skill/league.py): the optimal, greedy (largest tile) and
   random bots each play N turns (default 5000) of the same seeded dice on every
   preset; per bot the moves, the share of best moves and the points lost a turn.
2. The rater's cost: milliseconds to rate one turn (median over the league's turns
   of the random bot), and the read API (player_accuracy, turn_accuracy) on a record
   of 100 and of 100,000 games of one player: medians of --runs and their ratio
   (flat reads: about 1).
The machine is shared, so the medians are the figures to quote.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from shutbox_hw.rules import build_rules
from shutbox_hw.skill.bots import RandomBot, play_turn
from shutbox_hw.skill.league import league
from shutbox_hw.store.tables.ratings import player_accuracy, turn_accuracy
from shutbox_hw.store.tables.schema import migrate
from shutbox_hw.strategy import solver_for
from shutbox_hw.strategy.rating import Rater

PRESETS = ("klappenspiel", "crafthouse-12", "pub")


def print_league(turns: int, cache: Path) -> None:
    print(f"league: {turns} turns a bot, the same seeded dice (seed 7)")
    print(f"{'preset':<14}{'bot':<9}{'moves':>8}{'best %':>9}{'lost/turn':>11}")
    for preset in PRESETS:
        rules = build_rules(preset)
        for s in league(rules, solver_for(rules, cache_dir=cache), turns, seed=7):
            print(f"{preset:<14}{s.bot:<9}{s.tally.moves:>8}{s.tally.percent or 0:>9.2f}"
                  f"{s.lost_per_turn:>11.3f}")
    print("lost: expected penalty points (pub: percentage points of the chance to shut)")


def rate_cost(cache: Path, turns: int = 2000) -> None:
    print("rating one turn (random bot's turns), median ms:")
    for preset in PRESETS:
        rules = build_rules(preset)
        rater = Rater(rules, solver_for(rules, cache_dir=cache))
        bot, dice = RandomBot(random.Random(1)), random.Random(2)
        plays = [play_turn(rules, bot, dice) for _ in range(turns)]
        times = []
        for throws in plays:
            start = time.perf_counter()
            rater.rate_turn(throws)
            times.append(time.perf_counter() - start)
        print(f"  {preset:<14}{1000 * statistics.median(times):8.3f} ms")


def _record(path: Path, games: int) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None)
    migrate(db, path)
    db.execute("BEGIN")
    db.execute("INSERT INTO roster (id, name, key, first_seen, last_seen)"
               " VALUES (1, 'Anna', 'anna', 0, 0)")
    db.executemany("INSERT INTO games (id, started_at, rules, dice_mode) VALUES (?, ?, '{}', 's')",
                   [(g, float(g)) for g in range(1, games + 1)])
    db.executemany("INSERT INTO turns (id, game_id, round, seat, started_at)"
                   " VALUES (?, ?, 1, 0, 0)",
                   [(g, g) for g in range(1, games + 1)])
    db.executemany("INSERT INTO turn_ratings VALUES (?, 'min-score', 4, 3, 1.5)",
                   [(g,) for g in range(1, games + 1)])
    db.executemany("INSERT INTO player_game_ratings VALUES (1, ?, 4, 3, 1.5)",
                   [(g,) for g in range(1, games + 1)])
    db.execute("INSERT INTO player_ratings VALUES (1, ?, ?, ?, ?)",
               (games, 4 * games, 3 * games, 1.5 * games))
    db.execute("COMMIT")
    return db


def read_cost(runs: int) -> None:
    print(f"reads, median of {runs} runs, microseconds:")
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        for games in (100, 100_000):
            db = _record(Path(tmp) / f"{games}.db", games)
            reads = {"player_accuracy": lambda db=db: player_accuracy(db, 1),
                     "turn_accuracy": lambda db=db, turn=games // 2: turn_accuracy(db, turn)}
            for name, read in reads.items():
                times = []
                for _ in range(runs):
                    start = time.perf_counter()
                    read()
                    times.append(time.perf_counter() - start)
                figures[name, games] = statistics.median(times) * 1e6
            db.close()
    for name in ("player_accuracy", "turn_accuracy"):
        small, big = figures[name, 100], figures[name, 100_000]
        print(f"  {name:<16} 100 games {small:8.1f}   100,000 games {big:8.1f}"
              f"   ratio {big / small:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=201)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print_league(args.turns, Path(tmp))
        rate_cost(Path(tmp))
    read_cost(args.runs)


if __name__ == "__main__":
    main()
