"""The database's schema version: forward migrations, refusals, and the clock it trusts.

``data/schema1.db`` was written by shutbox-hw as released before the schema had
a version (commit 2eb7f12: ``sim --db`` of ``scripts/practice-001.txt`` on
crafthouse-12 single-round, then three throws of a second, unfinished game).

``data/schema9.db`` was written by shutbox-hw at schema 9 (commit 6140517: the simulated
box played ``scripts/two-player-klappenspiel.txt`` on klappenspiel threshold 10, then
``scripts/practice-001.txt`` on crafthouse-12, one flap rejected; then the league's
tombstone of player 9, who is nobody at this box, was taken by
``network/league_forget.py``, which then made ``league_forgotten`` itself at run time).
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.game.model.events import GameStarted
from shutbox_hw.store import Store, StoreError
from shutbox_hw.store.tables.schema import APP_ID, SCHEMA_1, VERSION, steps

SCHEMA1_DB = Path(__file__).parent / "data" / "schema1.db"
SCHEMA9_DB = Path(__file__).parent / "data" / "schema9.db"


def pragmas(path: Path) -> tuple[int, int]:
    con = sqlite3.connect(path)
    try:
        return (con.execute("PRAGMA application_id").fetchone()[0],
                con.execute("PRAGMA user_version").fetchone()[0])
    finally:
        con.close()


def layout(path: Path) -> list[tuple[str, list[tuple]]]:
    """Every table with its columns (name, type, notnull, default, pk)."""
    con = sqlite3.connect(path)
    try:
        tables = [t for t, in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [(t, [tuple(c[1:]) for c in con.execute(f"PRAGMA table_info({t})")])
                for t in tables]
    finally:
        con.close()


def history(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["history", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def old_db(tmp_path) -> Path:
    path = tmp_path / "box.db"
    shutil.copy(SCHEMA1_DB, path)
    return path


def test_the_fixture_is_an_unversioned_database(old_db):
    assert pragmas(old_db) == (0, 0)


def test_history_reads_an_old_database_without_changing_it(old_db, capsys):
    code, out, _ = history(capsys, "--db", str(old_db), "--json")
    assert code == 0
    games = json.loads(out)["games"]
    assert [g["id"] for g in games] == [2, 1]
    assert games[1]["winners"] == ["P2"] and games[1]["totals"] == {"P1": 4, "P2": 2}
    # nobody noted the clock then: the time is given, flagged as not known to be right
    assert games[1]["started_at"] > 0 and games[1]["clock_synced"] == {"started": None,
                                                                       "ended": None}
    code, out, _ = history(capsys, "--db", str(old_db))
    # its house rules named as the box named them (single-round over crafthouse-12)
    assert code == 0 and "#1 " in out and \
        "? House rules (12 tiles, any-sum, single-round) finished, 1 round;" in out
    assert pragmas(old_db) == (0, 0)


def test_an_old_database_migrates_and_its_game_resumes(old_db, capsys):
    before = history(capsys, "--db", str(old_db), "--json")[1]
    store = Store(old_db)
    assert pragmas(old_db) == (APP_ID, VERSION)
    saved = store.unfinished_game()
    assert saved is not None and saved.players == ("P1", "P2", "P3")
    assert saved.turn is not None and saved.turn.dice == (2, 3) and len(saved.turn.closed) == 1
    store.close()
    after = history(capsys, "--db", str(old_db), "--json")[1]
    assert json.loads(after) == json.loads(before)
    # the migrated layout is exactly a fresh database's
    fresh = old_db.parent / "fresh.db"
    Store(fresh).close()
    assert layout(old_db) == layout(fresh)
    # and opening again is a no-op
    Store(old_db).close()
    assert pragmas(old_db) == (APP_ID, VERSION)


def indexes(path: Path) -> list[tuple[str, str, str]]:
    """Every index made by a statement (SQLite's own for keys left out): name, table, SQL."""
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index'"
                           " AND sql IS NOT NULL ORDER BY name").fetchall()
    finally:
        con.close()


def fresh_record(tmp_path: Path) -> Path:
    path = tmp_path / "fresh.db"
    Store(path).close()
    return path


def forgotten(path: Path) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT player, fingerprint, games, applied_at"
                           " FROM league_forgotten").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("noted", [True, False], ids=["tombstone-applied", "no-tombstone"])
def test_a_schema_9_record_migrates_to_10_and_on_as_it_is(tmp_path, capsys, noted):
    """The real schema-9 record, with ``league_forgotten`` made at run time by a tombstone
    (and without: no tombstone ever came): schema 10 adds the index on the rejected flaps'
    turn and keeps the tombstones noted, the games read the same, the layout is a fresh
    record's, and opening again changes nothing."""
    path = tmp_path / "box.db"
    shutil.copy(SCHEMA9_DB, path)
    assert pragmas(path) == (APP_ID, 9)
    if not noted:
        con = sqlite3.connect(path)
        con.execute("DROP TABLE league_forgotten")
        con.commit()
        con.close()
    before = json.loads(history(capsys, "--db", str(path), "--json")[1])
    card = json.loads(history(capsys, "--db", str(path), "--game", "1", "--json")[1])
    noted_before = forgotten(path) if noted else []
    assert [stone[0] for stone in noted_before] == ([9] if noted else [])
    Store(path).close()
    # (on through schema 11: the TV's league table, empty: layout() below checks it)
    assert pragmas(path) == (APP_ID, VERSION) and VERSION >= 10
    assert forgotten(path) == noted_before
    assert ("rejected_flaps_turn", "rejected_flaps",
            "CREATE INDEX rejected_flaps_turn ON rejected_flaps (turn_id)") in indexes(path)
    assert json.loads(history(capsys, "--db", str(path), "--json")[1]) == before
    again = json.loads(history(capsys, "--db", str(path), "--game", "1", "--json")[1])
    assert again == card and card["rejected_flaps"] == 1
    fresh = fresh_record(tmp_path)
    assert layout(path) == layout(fresh) and indexes(path) == indexes(fresh)
    Store(path).close()
    assert pragmas(path) == (APP_ID, VERSION) and forgotten(path) == noted_before


@pytest.mark.parametrize("version", range(1, VERSION))
def test_a_record_of_every_earlier_schema_opens_and_migrates(tmp_path, capsys, version):
    """The released schema-1 record brought up to ``version`` by that version's own steps
    (and stamped as that version stamped it): the box opens it, migrates it to the newest
    schema, and its games read as they did."""
    path = tmp_path / "box.db"
    shutil.copy(SCHEMA1_DB, path)
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("BEGIN")
    steps(con, 1, version)
    con.execute("COMMIT")
    con.close()
    if version > 1:
        stamp(path, app_id=APP_ID, version=version)
    before = json.loads(history(capsys, "--db", str(path), "--json")[1])["games"]
    store = Store(path)
    assert store.unfinished_game() is not None   # the second game, three throws in
    store.close()
    assert pragmas(path) == (APP_ID, VERSION)
    after = json.loads(history(capsys, "--db", str(path), "--json")[1])["games"]
    assert [g["id"] for g in after] == [g["id"] for g in before] == [2, 1]
    assert after[1]["totals"] == before[1]["totals"] == {"P1": 4, "P2": 2}
    fresh = fresh_record(tmp_path)
    assert layout(path) == layout(fresh) and indexes(path) == indexes(fresh)


def test_a_hand_made_schema_1_database_migrates(tmp_path):
    path = tmp_path / "hand.db"
    con = sqlite3.connect(path)
    con.executescript(SCHEMA_1)
    con.execute("INSERT INTO games (started_at, rules, dice_mode) VALUES (1, '{}', 'software')")
    con.commit()
    con.close()
    store = Store(path)
    assert store.game_id == 1
    store.close()
    assert pragmas(path) == (APP_ID, VERSION)
    con = sqlite3.connect(path)
    assert con.execute("SELECT started_synced, ended_synced FROM games").fetchone() == (None, None)


def stamp(path: Path, *, app_id: int, version: int) -> None:
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA application_id = {app_id}")
    con.execute(f"PRAGMA user_version = {version}")
    con.close()


def test_a_newer_schema_is_refused_by_the_box_and_by_history(tmp_path, capsys):
    path = tmp_path / "new.db"
    Store(path).close()
    stamp(path, app_id=APP_ID, version=VERSION + 1)
    words = f"was written by a newer shutbox-hw (schema {VERSION + 1}); upgrade"
    with pytest.raises(StoreError, match=re.escape(words)):
        Store(path)
    code, _, err = history(capsys, "--db", str(path))
    assert code == 2 and words in err and len(err.splitlines()) == 1
    assert pragmas(path) == (APP_ID, VERSION + 1)  # left as it was


def foreign_tables(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE games (name TEXT, score INTEGER)")
    con.close()


def foreign_stamp(path: Path) -> None:
    Store(path).close()
    stamp(path, app_id=0x12345678, version=1)


def foreign_version_only(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.execute("PRAGMA user_version = 7")
    con.close()


@pytest.mark.parametrize("make", [foreign_tables, foreign_stamp, foreign_version_only])
def test_somebody_elses_database_is_refused_and_left_alone(tmp_path, capsys, make):
    path = tmp_path / "other.db"
    make(path)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="is not a shutbox-hw database"):
        Store(path)
    code, _, err = history(capsys, "--db", str(path))
    assert code == 2 and "is not a shutbox-hw database" in err
    assert path.read_bytes() == before


def test_an_empty_file_becomes_a_fresh_database_for_the_box_only(tmp_path, capsys):
    path = tmp_path / "empty.db"
    path.touch()
    code, _, err = history(capsys, "--db", str(path))
    assert code == 2 and "is an empty file, not a shutbox-hw database yet" in err
    Store(path).close()
    assert pragmas(path) == (APP_ID, VERSION)
    assert history(capsys, "--db", str(path))[1] == "no games yet\n"


# ---------------------------------------------------------------- no RTC


def play_two_games(tmp_path: Path) -> Path:
    """Game 1 before NTP (clock far in the future), game 2 after (clock correct, earlier)."""
    flag = tmp_path / "synchronized"
    db = tmp_path / "box.db"
    now = [2_000_000_000.0]
    store = Store(db, clock=lambda: now[0], sync_flag=flag)
    rules = {"preset": "klappenspiel", "match": "single-round"}
    store.record(GameStarted(players=("Ann",), rules=rules, dice="software"))
    now[0] = 1_700_000_000.0
    flag.touch()  # NTP has synchronised the clock (and set it back)
    # game 2 abandons game 1, which so ends while synchronised
    store.record(GameStarted(players=("Bob",), rules=rules, dice="software"))
    store.close()
    return db


def test_times_taken_before_the_clock_was_set_are_not_shown(tmp_path, capsys):
    db = play_two_games(tmp_path)
    code, out, _ = history(capsys, "--db", str(db), "--json")
    games = json.loads(out)["games"]
    assert [g["id"] for g in games] == [2, 1]  # by record, though game 1's clock is later
    newer, older = games
    assert older["started_at"] is None and older["clock_synced"]["started"] is False
    assert older["ended_at"] == 1_700_000_000.0 and older["clock_synced"]["ended"] is True
    assert newer["started_at"] == 1_700_000_000.0 and newer["clock_synced"]["started"] is True
    code, out, _ = history(capsys, "--db", str(db))
    lines = out.splitlines()
    assert lines[0].startswith("#2 ") and "(clock not set)" not in lines[0]
    assert lines[1].startswith("#1 (clock not set) ")
    code, out, _ = history(capsys, "--db", str(db), "--game", "1", "--json")
    card = json.loads(out)
    assert card["started_at"] is None and card["clock_synced"]["started"] is False
    code, out, _ = history(capsys, "--db", str(db), "--game", "1")
    assert out.splitlines()[0] == \
        "game 1: House rules (9 tiles, any-sum, single-round), started (clock not set)"


def test_the_synchronised_flag_is_read_at_each_write(tmp_path):
    flag = tmp_path / "synchronized"
    store = Store(tmp_path / "box.db", sync_flag=flag)
    assert not store.clock_synced()
    flag.touch()
    assert store.clock_synced()


# ---------------------------------------------------------------- damaged records


def damage_rules(db: Path, game_id: int, rules: str) -> None:
    con = sqlite3.connect(db)
    con.execute("UPDATE games SET rules = ? WHERE id = ?", (rules, game_id))
    con.commit()
    con.close()


@pytest.mark.parametrize("rules", ["{not json", "[1, 2]", '{"preset": "no-such-preset"}'])
def test_an_unfinished_game_that_cannot_be_read_back_is_abandoned(old_db, rules, capsys):
    damage_rules(old_db, 2, rules)
    store = Store(old_db)
    assert store.unfinished_game() is None and store.game_id is None
    store.close()
    con = sqlite3.connect(old_db)
    assert con.execute("SELECT abandoned, ended_at IS NOT NULL FROM games WHERE id = 2"
                       ).fetchone() == (1, 1)
    assert con.execute("SELECT COUNT(*) FROM throws").fetchone()[0] == 23  # nothing deleted


def test_history_lists_a_damaged_game_and_refuses_its_scorecard(old_db, capsys):
    damage_rules(old_db, 1, "{not json")
    code, out, _ = history(capsys, "--db", str(old_db))
    assert code == 0 and "#1 damaged record" in out and out.startswith("#2 ")
    code, out, err = history(capsys, "--db", str(old_db), "--game", "1")
    assert code == 2 and err == ("shutbox-hw history: game 1 is damaged: its record cannot be"
                                 " read back (JSONDecodeError)\n")


def test_history_opens_a_path_with_uri_characters(tmp_path, capsys):
    db = tmp_path / "odd #1 ?x=y %20.db"
    Store(db).close()
    code, out, err = history(capsys, "--db", str(db))
    assert (code, out, err) == (0, "no games yet\n", "")
    # the file itself was read, not a stray "odd " cut at the '#'
    assert all(p.name.startswith(db.name) for p in tmp_path.iterdir())
