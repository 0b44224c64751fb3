"""Each player's kept statistics and the high scores equal a recount of the rows
(issue 34, points 3 and 5; costs flat: issue 29).

Random games (the audits' recount test's: hypothesis, power cuts in the middle
of a step, resets of the audits, games left unfinished and stopped) written step
by step through the store; after them the kept figures equal
:mod:`player_truth`'s plain Python over games, seats and turns, and so does the
migration's backfill of the same record.
"""

from __future__ import annotations

import sqlite3
import tempfile
from dataclasses import asdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from player_truth import high_scores as true_high_scores
from player_truth import truth
from test_figures_recount import game, games_st, incident_st, play

from shutbox_hw.store import Store
from shutbox_hw.store.read.highscores import TOP, high_scores
from shutbox_hw.store.tables import player_stats
from shutbox_hw.store.tables.player_stats import leaderboard, rebuild
from shutbox_hw.store.tables.roster import find


def kept(db: sqlite3.Connection) -> dict[str, dict]:
    """The kept figures in :func:`player_truth.truth`'s shape."""
    out = {}
    for p in leaderboard(db, "name", limit=1000):
        figures = {k: v for k, v in asdict(p).items()
                   if k in ("games", "wins", "turns", "score_sum", "boxes_shut", "best_turn",
                            "streak", "best_streak")}
        figures["rules"] = {preset: asdict(r) for preset, r in p.rules.items()}
        out[p.name] = figures
    return out


def check(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        expected = truth(db)
        assert kept(db) == expected
        tables = {(t.period, t.kind): list(t.entries) for t in high_scores(db, 0.0)}
        for kind, entries in true_high_scores(db, None, TOP).items():
            assert tables[("all_time", kind)] == entries
            assert tables[("week", kind)] == entries    # every game is after 0 - 7 days
        db.execute("BEGIN")
        rebuild(db)                                     # the migration's backfill
        assert kept(db) == expected
        db.execute("ROLLBACK")
    finally:
        db.close()


@pytest.mark.slow      # seconds of work: pytest -m 'not slow' leaves it out
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(games_st, st.lists(incident_st, max_size=4)), min_size=1,
                max_size=7))
def test_kept_statistics_equal_a_recount(plan):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "box.db"
        play(path, plan)
        check(path)


def test_a_run_of_wins_and_the_best_turn_by_hand(tmp_path):
    """Anna wins, wins, loses, wins (seat 0 wins each game the plan lets it): her run
    is 1 now, 2 at best; her best turn 3; Ben's turns average (8 + 0 + 4 + 9) / 4."""
    path = tmp_path / "box.db"
    store = Store(path)
    for names_first, scores in ((True, [[3, 8]]), (True, [[5, 0]]), (False, [[6, 4]]),
                                (True, [[4, 9]])):
        steps = game(2, [scores[0] if names_first else scores[0][::-1]], "pub", "ended")
        if not names_first:     # Ben sits first (and wins)
            steps = [[_swapped(e) for e in step] for step in steps]
        for step in steps:
            store.record_all(step)
    db = store.db
    anna = player_stats.read(db, find(db, "anna").id)
    ben = player_stats.read(db, find(db, "BEN").id)
    store.close()
    assert (anna.games, anna.wins, anna.streak, anna.best_streak, anna.best_turn,
            anna.best_game) == (4, 3, 1, 2, 3, 1)
    assert (ben.games, ben.wins, ben.streak, ben.best_streak, ben.boxes_shut) == (4, 1, 0, 1, 1)
    assert ben.average == 5.2 and ben.win_rate == 25.0
    assert ben.rules["pub"].games == 4 and ben.rules["pub"].turns == 4


def _swapped(event):
    """The same event with the two seats' names the other way round."""
    from dataclasses import replace
    if hasattr(event, "players"):
        return replace(event, players=tuple(reversed(event.players)))
    if hasattr(event, "player"):
        return replace(event, player={"Anna": "Ben", "Ben": "Anna"}[event.player])
    return event


def test_removing_a_player_removes_their_statistics(tmp_path):
    """ON DELETE CASCADE: the daemon's connection has foreign keys on."""
    path = tmp_path / "box.db"
    store = Store(path)
    for step in game(2, [[3, 8]], "pub", "ended"):
        store.record_all(step)
    db = store.db
    anna = find(db, "Anna").id
    assert db.execute("PRAGMA foreign_keys").fetchone() == (1,)
    with db:
        db.execute("UPDATE players SET player_id = NULL WHERE player_id = ?", (anna,))
        db.execute("DELETE FROM roster WHERE id = ?", (anna,))
    left = {r for r, in db.execute("SELECT player_id FROM player_stats UNION"
                                   " SELECT player_id FROM player_rules")}
    store.close()
    assert left == {find_id(path, "Ben")}


def find_id(path: Path, name: str) -> int:
    db = sqlite3.connect(path)
    try:
        return find(db, name).id
    finally:
        db.close()
