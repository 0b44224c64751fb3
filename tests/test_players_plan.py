"""What the box's loop and the players' pages read for the statistics and the high
scores goes through indexes: no statement walks every game, seat, turn or throw
(what it costs at 100,000 games is what it costs at 100; benchmarks/lifetime.py has
the figures). Every statement is traced and its plan read with EXPLAIN QUERY PLAN."""

from __future__ import annotations

import sqlite3

from test_figures_recount import game

from shutbox_hw.store import Store
from shutbox_hw.store.read import player_games
from shutbox_hw.store.read.highscores import accuracy_of, high_scores
from shutbox_hw.store.tables import player_stats
from shutbox_hw.store.tables.roster import find

# tables (and their aliases) a plan may SCAN: the roster and the players' small tables,
# a CTE of one player's last games, json_each over one game's winners
SMALL = {"roster", "r", "player_stats", "s", "player_ratings", "last", "w"}


def _scans(db: sqlite3.Connection, statements: list[str]) -> list[tuple[str, str]]:
    bad = []
    for sql in statements:
        if not sql.lstrip().upper().startswith(("SELECT", "WITH", "INSERT", "UPDATE", "DELETE")):
            continue
        for row in db.execute("EXPLAIN QUERY PLAN " + sql):
            words = row[3].split()
            if words[:1] == ["SCAN"] and words[1] not in SMALL:
                bad.append((sql, row[3]))
    return bad


def test_the_loop_and_the_pages_scan_no_game_turn_or_throw(tmp_path):
    path = tmp_path / "box.db"
    statements: list[str] = []
    store = Store(path, clock=lambda: 1_800_000_000.0)
    for spec in ((2, [[0, 7]], "klappenspiel", "ended"), (3, [[3, 4, 5]], "pub", "ended")):
        for step in game(*spec):
            store.record_all(step)
    store.db.set_trace_callback(statements.append)       # the loop: a game written, read
    for step in game(2, [[5, 4], [1, 0]], "pub", "ended"):
        store.record_all(step)
    store.high_scores()
    store.db.set_trace_callback(None)
    mine = [s for s in statements if "player_" in s or "FROM games g" in s]
    assert any("player_stats" in s for s in mine) and any("player_rules" in s for s in mine)
    assert _scans(store.db, mine) == []
    store.close()

    db = sqlite3.connect(path)
    statements.clear()
    db.set_trace_callback(statements.append)             # the pages and the command
    anna = find(db, "Anna").id
    high_scores(db, 1_800_000_000.0)
    for sort in player_stats.SORTS:
        player_stats.leaderboard(db, sort, 51, 0)
    player_stats.read(db, anna)
    accuracy_of(db, anna)
    player_games.games_of(db, anna, 51)
    player_games.games_of(db, anna, 51, before=3)
    player_games.turn_scores(db, anna)
    player_games.skill(db, anna)
    db.set_trace_callback(None)
    assert len(statements) >= 20
    assert _scans(db, statements) == []
    db.close()
