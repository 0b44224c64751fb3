"""The record's epoch (issue 40, item 2): made once per database, kept, carried.

A new database gets a new random epoch; opening it again keeps it; an old
database upgraded to schema 8 keeps its games and gets an epoch of its own.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

from shutbox_hw.store import Store
from shutbox_hw.store.tables.epoch import epoch_of

SCHEMA1_DB = Path(__file__).parent / "data" / "schema1.db"


def epoch(path: Path) -> str | None:
    con = sqlite3.connect(path)
    try:
        return epoch_of(con)
    finally:
        con.close()


def games(path: Path) -> list[tuple]:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT * FROM games ORDER BY id").fetchall()
    finally:
        con.close()


def test_a_new_database_gets_a_new_epoch_kept_across_opens(tmp_path):
    Store(tmp_path / "a.db").close()
    Store(tmp_path / "b.db").close()
    first = epoch(tmp_path / "a.db")
    assert first is not None and re.fullmatch(r"[0-9a-f]{16}", first)
    assert epoch(tmp_path / "b.db") not in (None, first)   # a replaced SD card: another epoch
    Store(tmp_path / "a.db").close()
    assert epoch(tmp_path / "a.db") == first


def test_an_upgraded_database_keeps_its_games_and_gets_an_epoch(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(SCHEMA1_DB, path)
    before = games(path)
    assert epoch(path) is None     # written before epochs existed
    Store(path).close()
    got = epoch(path)
    assert got is not None and re.fullmatch(r"[0-9a-f]{16}", got)
    # the games as they were, the columns later schemas added left at their defaults
    assert [row[:len(before[0])] for row in games(path)] == before
    Store(path).close()
    assert epoch(path) == got


def test_a_salvaged_record_keeps_its_epoch(tmp_path):
    """A damaged record recovered into a new file (store/disk/salvage.py) is the same record:
    the league knows its games by (box, epoch, game), so the epoch goes with them."""
    from shutbox_hw.store.disk.salvage import salvage
    path = tmp_path / "box.db"
    Store(path).close()
    before = epoch(path)
    result = salvage(path, "damaged (a test)", 1000.0)
    assert result.aside.exists() and epoch(path) == before
