"""Issue 41, item 6 on the box, without the league's servers: a tombstone (a player
deleted at the league) is validated like every incoming message, applied with the box's
own removal once, left for later while the player sits in the game under way, and kept
for a retry by the session. Through the real parts: test_league_rights.py."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from shutbox_hw.league.rights import fingerprint as league_fingerprint
from shutbox_hw.league.rights import forget_topic, tombstone
from shutbox_hw.network.league_forget import (
    FORGET_FILTER,
    MAX_TOMBSTONE,
    fingerprint,
    forget_player_id,
    take,
)
from shutbox_hw.network.league_roster import take as take_roster
from shutbox_hw.network.session import MAX_INCOMING, Session
from shutbox_hw.players.league_secret import make_entry
from shutbox_hw.store import Store

TOPIC = "shutbox/league/forget/7"


def stone(**changes: object) -> bytes:
    return json.dumps({**tombstone(7, "Forgotten 7", fingerprint("Anna")),
                       **changes}).encode()


@pytest.fixture
def record(tmp_path: Path):
    """A record with Anna (league player 7, seat 0) and Bob in ended game 1, her roster
    entry and her verified claim."""
    Store(tmp_path / "box.db").close()
    db = sqlite3.connect(tmp_path / "box.db", isolation_level=None)
    db.execute("INSERT INTO roster (id, name, key, first_seen, last_seen) VALUES"
               " (1, 'Anna', 'anna', 1, 1), (2, 'Bob', 'bob', 1, 1)")
    db.execute("INSERT INTO games (id, started_at, ended_at, rules, dice_mode, winners)"
               " VALUES (1, 1, 2, '{}', 'software', '[\"Anna\"]')")
    db.execute("INSERT INTO players (game_id, seat, name, player_id) VALUES"
               " (1, 0, 'Anna', 1), (1, 1, 'Bob', 2)")
    entry = make_entry(7, "Anna", "K7M2QDX4PA")
    assert take_roster(db, "shutbox/league/roster/7", json.dumps(entry.as_json()).encode(),
                       1.0) is None
    db.execute("INSERT INTO league_claims (game, key, player, at) VALUES (1, 'anna', 7, 1)")
    try:
        yield db
    finally:
        db.close()


def noted(db: sqlite3.Connection) -> list[tuple[object, ...]]:
    """The tombstones the box applied (the table is made with the first)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'league_forgotten'").fetchone():
        return db.execute("SELECT player, games FROM league_forgotten").fetchall()
    return []


def names(db: sqlite3.Connection) -> list[tuple[object, ...]]:
    return db.execute("SELECT game_id, seat, name FROM players ORDER BY game_id, seat"
                      ).fetchall()


def test_the_fingerprint_is_the_league_s_and_a_sha256_of_the_folded_name():
    by_hand = hashlib.sha256(b"shutbox-forget\x00anna").hexdigest()
    assert fingerprint("Anna") == fingerprint(" ÁNNA ") == league_fingerprint("anna") == by_hand
    assert fingerprint("Anne") != by_hand


def test_only_a_tombstone_topic_names_a_player():
    assert FORGET_FILTER == "shutbox/league/forget/+" and forget_topic(7) == TOPIC
    assert forget_player_id(TOPIC) == 7
    for topic in ("shutbox/league/forget/07", "shutbox/league/forget/", "shutbox/a1/resend",
                  "shutbox/league/roster/7", "shutbox/league/forget/7/x",
                  "shutbox/league/forget/1234567890"):
        assert forget_player_id(topic) is None, topic


def test_a_tombstone_removes_the_player_once(record):
    db = record
    assert take(db, TOPIC, stone(), 10.0) is None
    assert names(db) == [(1, 0, "P1"), (1, 1, "Bob")]
    assert db.execute("SELECT winners FROM games").fetchone() == ('["P1"]',)
    assert db.execute("SELECT name FROM roster").fetchall() == [("Bob",)]
    assert db.execute("SELECT count(*) FROM league_roster").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM league_claims").fetchone() == (0,)
    assert db.execute("SELECT player, games, applied_at FROM league_forgotten").fetchall() \
        == [(7, 1, 10.0)]
    # a guest takes the name at this box afterwards: the same tombstone again (the
    # retained message at every connection) leaves them be
    db.execute("INSERT INTO roster (name, key, first_seen, last_seen) VALUES"
               " ('Anna', 'anna', 20, 20)")
    db.execute("INSERT INTO games (id, started_at, ended_at, rules, dice_mode) VALUES"
               " (2, 20, 21, '{}', 'software')")
    db.execute("INSERT INTO players (game_id, seat, name) VALUES (2, 0, 'Anna')")
    assert take(db, TOPIC, stone(), 30.0) is None
    assert names(db)[-1] == (2, 0, "Anna")
    assert db.execute("SELECT player, games, applied_at FROM league_forgotten").fetchall() \
        == [(7, 1, 10.0)]


def test_a_tombstone_for_nobody_here_is_noted_and_changes_nothing_else(record):
    db = record
    other = json.dumps(tombstone(9, "Forgotten 9", fingerprint("Zoe"))).encode()
    assert take(db, "shutbox/league/forget/9", other, 10.0) is None
    assert names(db) == [(1, 0, "Anna"), (1, 1, "Bob")]
    assert db.execute("SELECT player, games FROM league_forgotten").fetchall() == [(9, 0)]
    assert take(db, "shutbox/league/forget/9", b"", 11.0) is None     # cleared: nothing


@pytest.mark.parametrize("payload, words", [
    (b"x" * (MAX_TOMBSTONE + 1), "longer than 4096 bytes"),
    (b"{not json", "not JSON"),
    (stone(v=2), "not a tombstone of version 1"),
    (stone(player=8), "it names player 8, its topic 7"),
    (stone(fingerprint="ab" * 31), "fingerprint is not 64 hex digits"),
    (stone(fingerprint="AB" * 32), "fingerprint is not 64 hex digits"),
    (stone(pseudonym="Gone\x1b[2J"), "its pseudonym is not a name"),
    (stone(pseudonym="x" * 40), "its pseudonym is not a name: a name has at most 16"),
    (stone(pseudonym=7), "its pseudonym is not a name"),
])
def test_a_tombstone_the_box_must_not_take_is_refused_in_words(record, payload, words):
    db = record
    problem = take(db, TOPIC, payload, 10.0)
    assert problem is not None and "was refused" in problem and words in problem, problem
    assert names(db) == [(1, 0, "Anna"), (1, 1, "Bob")]
    assert noted(db) == []


def test_a_tombstone_fits_in_a_packet_the_box_takes():
    longest = json.dumps(tombstone(2 ** 31 - 1, "Forgotten " + "9" * 6, "a" * 64)).encode()
    assert len(longest) + len(forget_topic(2 ** 31 - 1)) + 16 < MAX_INCOMING
    assert MAX_TOMBSTONE <= MAX_INCOMING


class _Owner:
    topics = {"resend": "shutbox/a1/resend"}
    epoch = "e1"

    def __init__(self) -> None:
        self.problems: list[str] = []

    def roster_problem(self, text: str) -> None:
        self.problems.append(text)

    def now(self) -> float:
        return 50.0


def test_a_player_in_the_game_under_way_is_removed_by_the_session_after_it(record):
    db = record
    db.execute("INSERT INTO games (id, started_at, rules, dice_mode) VALUES"
               " (2, 40, '{}', 'software')")
    db.execute("INSERT INTO players (game_id, seat, name, player_id) VALUES (2, 1, 'Anna', 1)")
    owner = _Owner()
    session = Session(owner, db)      # type: ignore[arg-type]
    session._on_message(None, None, SimpleNamespace(topic=TOPIC, payload=stone()))
    assert "not removed yet" in owner.problems[-1] and "game under way" in owner.problems[-1]
    assert names(db)[0] == (1, 0, "Anna") and not session.lost
    assert noted(db) == []
    session._retry_tombstones()       # tried again: still playing
    assert names(db)[-1] == (2, 1, "Anna")
    db.execute("UPDATE games SET ended_at = 45 WHERE id = 2")
    session._next_tombstones = 0.0     # (the session tries every 5 s)
    session._retry_tombstones()
    assert names(db) == [(1, 0, "P1"), (1, 1, "Bob"), (2, 1, "P2")]
    assert db.execute("SELECT player, games FROM league_forgotten").fetchall() == [(7, 2)]
    assert session._tombstones == {}
    # an old retained copy of her roster entry (a pub's broker cut off from the league
    # when she was deleted keeps it) is not taken again: league ids are never reused
    entry = json.dumps(make_entry(7, "Anna", "K7M2QDX4PA").as_json()).encode()
    session._on_message(None, None, SimpleNamespace(topic="shutbox/league/roster/7",
                                                    payload=entry))
    assert db.execute("SELECT count(*) FROM league_roster").fetchone() == (0,)
    session._on_message(None, None, SimpleNamespace(topic="shutbox/league/roster/8",
                                                    payload=entry.replace(b'"player": 7',
                                                                          b'"player": 8')))
    assert db.execute("SELECT player FROM league_roster").fetchall() == [(8,)]
    # a refused tombstone is said and not retried
    session._on_message(None, None, SimpleNamespace(topic="shutbox/league/forget/8",
                                                    payload=b"{"))
    assert "was refused: not JSON" in owner.problems[-1] and session._tombstones == {}
