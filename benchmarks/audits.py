"""How long the daemon's reads of the record take on a busy box's database.

After each game the daemon reads tonight's figures for the idle screen; when
the operator menu opens it reads the audits (every game since the last
reset). Both run on the box's single loop, so they bound how long the box
is deaf to a press at those moments.

    .venv/bin/python benchmarks/audits.py [games]

Each game: 2 players, 3 rounds of one turn each, ended; written one game a
transaction.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from shutbox_hw.game.model.events import (
    AnyGameEvent,
    GameEnded,
    GameStarted,
    RoundEnded,
    TurnEnded,
    TurnStarted,
)
from shutbox_hw.rules import build_rules
from shutbox_hw.store import Store
from shutbox_hw.words.audits import audit_lines

PLAYERS = ("Anna", "Ben")
ROUNDS = 3


def one_game(number: int) -> list[AnyGameEvent]:
    events: list[AnyGameEvent] = [GameStarted(players=PLAYERS, dice="software",
                                              rules=build_rules("klappenspiel").as_dict())]
    totals = [0, 0]
    for rnd in range(1, ROUNDS + 1):
        scores = [(number + rnd) % 11, (number * 3 + rnd) % 13]
        for seat, player in enumerate(PLAYERS):
            events += [TurnStarted(seat=seat, player=player, round=rnd),
                       TurnEnded(seat=seat, player=player, score=scores[seat],
                                 open=(scores[seat],) if scores[seat] else (),
                                 shut=scores[seat] == 0, round=rnd)]
            totals[seat] += scores[seat]
        events.append(RoundEnded(players=PLAYERS, round=rnd, final=tuple(scores),
                                 raw=tuple(scores), totals=tuple(totals), out=(), shut=(),
                                 winners=(scores.index(min(scores)),)))
    events.append(GameEnded(players=PLAYERS, winners=(totals.index(min(totals)),),
                            totals=tuple(totals), rounds=ROUNDS))
    return events


def median_ms(action, runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        for number in range(games):
            store.record_all(one_game(number))
        tonight = median_ms(store.tonight)
        audits = median_ms(lambda: audit_lines(store.audit_figures()))
        store.close()
    print(f"{games} games: tonight's figures median {tonight:.1f} ms, "
          f"audit lines median {audits:.1f} ms (this machine)")


if __name__ == "__main__":
    main()
