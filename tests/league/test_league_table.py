"""Issue 41, item 5 on the box, without the league's servers: the league's TV table is
validated like every incoming message, kept in the record (schema 10) through the
session, shown by the live summary between games, emptied of a player deleted at the
league, and cut by the league to a packet the box takes. Through the real parts, with
the truth module's table: tests/league_night/."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_league_tombstones import _Owner as TombstoneOwner

from shutbox_hw.league.rights import tombstone
from shutbox_hw.league.tables import MAX_TABLE as LEAGUE_MAX
from shutbox_hw.league.tables import box_table_topic, fitted
from shutbox_hw.network.league_forget import fingerprint
from shutbox_hw.network.league_forget import take as take_tombstone
from shutbox_hw.network.session import MAX_INCOMING, Session
from shutbox_hw.store import Store
from shutbox_hw.store.tables.league_table import MAX_TABLE, kept, shown, table_topic, take

ROWS = [{"rank": 1, "player": "Ben", "games": 7, "wins": 4, "points": 12},
        {"rank": 2, "player": "Anna", "games": 5, "wins": 2, "points": 6}]


def table(**changes: object) -> dict[str, object]:
    return {"v": 1, "season": "Winter", "venue": "Crown", "as_of": "2026-12-05T19:30:00Z",
            "table": ROWS, "top": ROWS[:1], **changes}


def payload(**changes: object) -> bytes:
    return json.dumps(table(**changes)).encode()


@pytest.fixture
def db(tmp_path: Path):
    Store(tmp_path / "box.db").close()
    con = sqlite3.connect(tmp_path / "box.db", isolation_level=None)
    try:
        yield con
    finally:
        con.close()


class _Owner(TombstoneOwner):
    box = "a1"                       # the session subscribes to this box's table


def test_the_box_keeps_its_own_table_and_the_tv_shows_it(db):
    owner = _Owner()
    session = Session(owner, db)      # type: ignore[arg-type]
    assert shown(db) is None                          # no table yet: the TV shows none
    # another box's table is not this one's (its bridge would not bring it; if it came)
    session._on_message(None, None, SimpleNamespace(topic=table_topic("a2"),
                                                    payload=payload(venue="Anchor")))
    assert kept(db) is None
    session._on_message(None, None, SimpleNamespace(topic=table_topic("a1"),
                                                    payload=payload()))
    assert shown(db) == {k: table()[k] for k in ("season", "venue", "as_of", "table", "top")}
    assert db.execute("SELECT received_at FROM league_table").fetchone() == (50.0,)
    assert owner.problems == []
    # kept in the record: another connection (the web process, a restarted box) reads it
    assert kept(sqlite3.connect(db.execute("PRAGMA database_list").fetchone()[2])) == table()
    # a season over with no season after it: the TV shows no table
    session._on_message(None, None, SimpleNamespace(topic=table_topic("a1"),
                                                    payload=payload(season=None, table=[],
                                                                    top=[])))
    assert kept(db) is not None and shown(db) is None
    # an empty retained message removes it
    session._on_message(None, None, SimpleNamespace(topic=table_topic("a1"), payload=b""))
    assert kept(db) is None


@pytest.mark.parametrize("bad, words", [
    (b"{", "not JSON"),
    (payload(v=2), "not a table of version 1"),
    (payload(season=7), "its season is not a name"),
    (payload(as_of=None), "no venue or no date"),
    (payload(table="Ben"), "its table is not a list of rows"),
    (payload(top=[{"rank": 1, "games": 1, "wins": 1, "points": 3}]), "has no player's name"),
    (payload(table=[{**ROWS[0], "points": True}]), "the row of 'Ben' in its table lacks"),
    (payload(table=[{**ROWS[0], "rank": "1"}]), "lacks a whole number of rank"),
    (payload(venue="x" * 5000), "longer than 4096 bytes"),
])
def test_a_table_the_box_must_not_take_is_refused_in_words_and_the_old_one_kept(
        db, bad, words):
    assert take(db, payload(), 1.0) is None
    problem = take(db, bad, 2.0)
    assert problem is not None and problem.startswith("the league's table was refused: ")
    assert words in problem, problem
    assert kept(db) == table()


def test_a_player_deleted_at_the_league_leaves_the_kept_table(db):
    assert take(db, payload(top=[ROWS[1], ROWS[0]]), 1.0) is None
    stone = json.dumps(tombstone(7, "Forgotten 7", fingerprint("ANNA"))).encode()
    assert take_tombstone(db, "shutbox/league/forget/7", stone, 2.0) is None
    left = shown(db)
    assert left is not None
    assert left["table"] == ROWS[:1] and left["top"] == ROWS[:1]


def test_the_league_cuts_a_long_table_to_a_packet_the_box_takes():
    rows = [{"rank": i + 1, "player": f"Bartholomew {i:04d}", "games": 999, "wins": 999,
             "points": 2997} for i in range(60)]
    whole = table(table=rows, top=rows[:40])
    text = fitted(whole)
    got = json.loads(text)
    assert len(text) <= LEAGUE_MAX <= MAX_TABLE
    assert len(text) + len(box_table_topic("x" * 64)) + 16 < MAX_INCOMING
    # its first rows, in order: the longer list cut first, one row at a time
    assert got["table"] == rows[:len(got["table"])] and got["top"] == rows[:len(got["top"])]
    assert abs(len(got["table"]) - len(got["top"])) <= 1
    longer = "table" if len(got["table"]) <= len(got["top"]) else "top"
    one_more = {**got, longer: rows[:len(got[longer]) + 1]}
    assert len(json.dumps(one_more, ensure_ascii=False, separators=(",", ":")).encode()) \
        > LEAGUE_MAX
    short = table()
    assert json.loads(fitted(short)) == short               # a short one is whole
