"""The roster in the record: each player once, seen first and last (schema 7)."""

from __future__ import annotations

import sqlite3

from shutbox_hw.game.model.events import GameStarted
from shutbox_hw.rules import DEFAULT_PRESET, build_rules
from shutbox_hw.store.tables import roster
from shutbox_hw.store.tables.schema import MIGRATIONS, SCHEMA_1, migrate
from shutbox_hw.store.write.sqlite import Store


def _start(store, *names):
    store.record(GameStarted(players=names, rules=build_rules(DEFAULT_PRESET).as_dict(),
                             dice="software"))


def test_a_game_s_names_become_players_once_whatever_their_case(tmp_path):
    now = [1000.0]
    store = Store(tmp_path / "box.db", clock=lambda: now[0])
    try:
        _start(store, "Anna", "P2", "Zoë")
        now[0] = 2000.0
        _start(store, "anna", "ZOE", "Ben")
        db = store.db
        players = {p.name: p for p in roster.recent(db)}
        assert sorted(players) == ["Ben", "ZOE", "anna"]   # shown as last typed; P2 is nobody
        assert (players["anna"].first_seen, players["anna"].last_seen) == (1000.0, 2000.0)
        seats = db.execute("SELECT game_id, seat, name, player_id FROM players"
                           " ORDER BY game_id, seat").fetchall()
        assert [s[3] is None for s in seats] == [False, True, False, False, False, False]
        assert seats[0][3] == seats[3][3] and seats[2][3] == seats[4][3]
        assert roster.find(db, "Anne") is None and roster.find(db, "ÄNNA").name == "anna"
        assert [p.name for p in roster.recent(db, 2)][0] in ("Ben", "ZOE", "anna")
    finally:
        store.close()


def test_the_migration_builds_the_roster_from_the_games_already_played(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path, isolation_level=None)
    for table in filter(str.strip, SCHEMA_1.split(";")):
        db.execute(table)
    for step in range(1, 6):
        for statement in MIGRATIONS[step]:
            statement(db) if callable(statement) else db.execute(statement)
    db.execute("PRAGMA application_id = 0x53425857")
    db.execute("PRAGMA user_version = 6")
    for gid, at, names in [(1, 10.0, ["Anna", "P2"]), (2, 20.0, ["ANNA", "Ben"]),
                           (3, 30.0, ["Ben", "Zoë"])]:
        db.execute("INSERT INTO games (id, started_at, rules, dice_mode) VALUES (?, ?, '{}', 's')",
                   (gid, at))
        db.executemany("INSERT INTO players VALUES (?, ?, ?)",
                       [(gid, seat, n) for seat, n in enumerate(names)])
    assert migrate(db, path) == 6
    got = {p.name: (p.first_seen, p.last_seen) for p in roster.recent(db)}
    assert got == {"ANNA": (10.0, 20.0), "Ben": (20.0, 30.0), "Zoë": (30.0, 30.0)}
    ids = dict(db.execute("SELECT name, player_id FROM players WHERE game_id = 1"))
    assert ids["P2"] is None and ids["Anna"] == roster.find(db, "anna").id
    db.close()
