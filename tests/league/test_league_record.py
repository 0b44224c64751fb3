"""The ingest's batched write against the one-message write it stands for, on a real
PostgreSQL (a cluster as nobody): the same outcomes, the same tables."""

from __future__ import annotations

import json

import pytest
from league_parts import Postgres, need_parts

from shutbox_hw.league.record import LEFT_OUT, write, write_batch
from shutbox_hw.league.schema import migrate
from shutbox_hw.store.tables.game_record import content

pytestmark = [pytest.mark.league, pytest.mark.other_user]


def game(box: str, game_id: int, winner: str = "Anna", ratings: int = 0) -> dict:
    return {"box": box, "epoch": "e1", "seq": game_id, "at": 1.5, "game": game_id,
            "rules": {"tiles": 9}, "dice": "software", "started_at": 1.0, "ended_at": 2.0,
            "state": "finished", "seats": [{"seat": 0, "name": "Anna"},
                                           {"seat": 1, "name": "Ben"}],
            "rounds": [], "turns": [], "result": {"winners": [winner], "abandoned": False},
            "ratings": [{"throw": n} for n in range(ratings)]}


def message(record: dict, topic_box: str | None = None) -> tuple[str, bytes]:
    return (f"shutbox/{topic_box or record['box']}/game", json.dumps(record).encode())


BATCH = [
    message(game("bar", 1)),                          # new
    message(game("bar", 1)),                          # the same again in the batch
    message(game("bar", 1, winner="Ben")),            # the same key, another game
    message(game("bar", 2, ratings=0)),               # held before the batch
    message(game("bar", 3, ratings=2)),               # held before, with fewer ratings
    message(game("pub", 1), topic_box="bar"),         # for another box
    ("shutbox/bar/game", b'{"box": "bar", "epo'),     # truncated
    message({**game("bar", 4), "state": "won"}),      # not a game message
    message(game("pub", 7)),                          # new, another box
    ("shutbox/pub/game", json.dumps(game("pub", 8)).encode("utf-16")),   # JSON in UTF-16
    ("shutbox/pub/game", b"\xef\xbb\xbf" + json.dumps(game("pub", 9)).encode()),  # a BOM
    message({**game("bar", 5), "turns": [{"n": 2**70}]}),   # an integer past 64 bits
    message({**game("bar", 6), "game": 2**70}),             # a game id past 64 bits
]
BEFORE = [message(game("bar", 2)), message(game("bar", 3))]


@pytest.fixture(scope="module")
def pg():
    need_parts()
    cluster = Postgres()
    try:
        cluster.start()
        for name in ("one", "batch"):
            cluster.query(f"CREATE DATABASE {name}")
        yield cluster
    finally:
        cluster.destroy()


def tables(conn) -> dict:
    return {t: conn.execute(f"SELECT {cols} FROM {t} ORDER BY {cols}").fetchall()
            for t, cols in (("games", "box, epoch, game, state, record, ratings"),
                            ("seats", "box, epoch, game, seat, name"),
                            ("epochs", "box, epoch, latest"), ("boxes", "box"),
                            ("set_aside", "topic, box, epoch, game, reason, payload"))}


def test_a_batch_writes_what_its_messages_one_by_one_would(pg):
    import psycopg
    results = {}
    for name in ("one", "batch"):
        with psycopg.connect(pg.dsn.replace("dbname=postgres", f"dbname={name}"),
                             autocommit=True) as conn:
            migrate(conn)
            with conn.transaction():
                for topic, payload in BEFORE:
                    write(conn, topic, payload)
            with conn.transaction():
                if name == "one":
                    outcomes = [write(conn, t, p) for t, p in BATCH]
                else:
                    outcomes = write_batch(conn, BATCH)
            results[name] = ([(o.kind, o.box, o.game) for o in outcomes], tables(conn))
    assert results["batch"] == results["one"]
    kinds = [k for k, _, _ in results["batch"][0]]
    assert kinds == ["stored", "duplicate", "differs", "duplicate", "ratings", "other box",
                     "unreadable", "unreadable", "stored", "stored", "stored", "stored",
                     "unreadable"]
    games = results["batch"][1]["games"]
    assert [(b, g, r["result"]["winners"], len(ra)) for b, _, g, _, r, ra in games] == [
        ("bar", 1, ["Anna"], 0), ("bar", 2, ["Anna"], 0), ("bar", 3, ["Anna"], 2),
        ("bar", 5, ["Anna"], 0), ("pub", 7, ["Anna"], 0), ("pub", 8, ["Anna"], 0),
        ("pub", 9, ["Anna"], 0)]
    assert games[3][4]["turns"] == [{"n": 2**70}]      # kept exactly, not as a float
    assert results["batch"][1]["epochs"] == [("bar", "e1", 5), ("pub", "e1", 9)]


def test_the_batch_leaves_out_what_content_leaves_out():
    """The batch drops LEFT_OUT from the message in SQL; content() is what the
    one-by-one write and the box compare: the same keys."""
    record = {**game("bar", 1, ratings=2), "extra": {"kept": True}}
    assert content(record) == {k: v for k, v in record.items() if k not in LEFT_OUT}
    assert set(record) - set(content(record)) == set(LEFT_OUT)


def test_a_message_read_by_orjson_is_what_json_reads(monkeypatch):
    """The batch reads a game message with orjson when it can (record._fast_game): the
    same game, outcome and set-aside row as json.loads alone gives, for every message
    of the batch above and for those where the two libraries part (integers past 64
    bits, NaN, a lone surrogate, a BOM, UTF-16, a number past float's range)."""
    from shutbox_hw.league import record as module
    assert module._orjson is not None       # the league extra brings it
    odd = [b'{"box": "bar", "epoch": "e1", "game": 1, "state": "finished", "seats": [],'
           b' "rounds": [], "turns": [' + text + b'], "result": {}}'
           for text in (b"NaN", b'"\\ud800"', b"1e400", str(2**64).encode(), b"-0.0")]
    odd += [json.dumps({**game("bar", 1), "seats": [{"seat": 2**64, "name": "A"}]}).encode(),
            json.dumps({**game("bar", 1), "ended_at": 2**70}).encode(),
            json.dumps({**game("bar", 1), "seq": 2**64}).encode()]
    messages = BATCH + BEFORE + [("shutbox/bar/game", payload) for payload in odd]
    fast = [module._classify(i, topic, payload) for i, (topic, payload) in enumerate(messages)]
    monkeypatch.setattr(module, "_orjson", None)
    slow = [module._classify(i, topic, payload) for i, (topic, payload) in enumerate(messages)]
    assert fast == slow
    assert sum(g is not None for g, _, _ in fast) == 19     # games; 4 refused


def test_a_league_name_the_box_did_not_verify_is_kept_aside_once_by_both_writes(pg):
    """Issue 41, item 1: Ben is a league player; Anna is not. The same outcomes and
    tables one by one and in a batch."""
    import psycopg

    from shutbox_hw.league.players import add_player

    def seats(mark: dict | None) -> list[dict]:
        ben = {"seat": 1, "name": "BEN"} | ({"league": mark} if mark else {})
        return [{"seat": 0, "name": "Anna"}, ben]
    results = {}
    for name in ("one2", "batch2"):
        pg.query(f"CREATE DATABASE {name}")
        with psycopg.connect(pg.dsn.replace("dbname=postgres", f"dbname={name}"),
                             autocommit=True) as conn:
            migrate(conn)
            ben = add_player(conn, "Ben").player
            batch = [
                message({**game("bar", 1), "seats": seats(None)}),          # not verified
                message({**game("bar", 1), "seats": seats(None)}),          # again
                message({**game("bar", 2), "seats": seats({"player": ben, "verified": True})}),
                message({**game("bar", 3), "seats": seats({"player": ben + 1,
                                                           "verified": True})}),  # another id
                message({**game("bar", 4), "seats": seats({"player": ben, "verified": 1})}),
                message({**game("bar", 5), "seats": [{"seat": 0, "name": "Anna"}]}),  # casual
            ]
            with conn.transaction():
                if name == "one2":
                    outcomes = [write(conn, t, p) for t, p in batch]
                else:
                    outcomes = write_batch(conn, batch)
            results[name] = ([(o.kind, o.game, o.reported) for o in outcomes], tables(conn))
    assert results["batch2"] == results["one2"]
    assert results["batch2"][0] == [("unverified", 1, True), ("unverified", 1, True),
                                    ("stored", 2, False), ("unverified", 3, True),
                                    ("unverified", 4, True), ("stored", 5, False)]
    held = results["batch2"][1]
    assert [g for _, _, g, *_ in held["games"]] == [2, 5]
    assert [(g, reason) for _, _, _, g, reason, _ in held["set_aside"]] == [
        (1, "unverified league name"), (3, "unverified league name"),
        (4, "unverified league name")]


def test_a_games_record_is_compressed_with_lz4(pg):
    """Schema 8: PostgreSQL compresses a game's record (and ratings) with lz4, the
    cheaper of its two methods, and gives the record back as it came."""
    import psycopg
    pg.query("CREATE DATABASE lz4")
    with psycopg.connect(pg.dsn.replace("dbname=postgres", "dbname=lz4"),
                         autocommit=True) as conn:
        migrate(conn)
        long = {**game("bar", 1, ratings=300), "turns": [{"seat": n % 2, "throw": [n, 6 - n % 6]}
                                                          for n in range(400)]}
        with conn.transaction():
            assert [o.kind for o in write_batch(conn, [message(long)])] == ["stored"]
        assert conn.execute("SELECT attname, attcompression FROM pg_attribute WHERE attrelid ="
                            " 'games'::regclass AND attname IN ('record', 'ratings')"
                            " ORDER BY attname").fetchall() == [("ratings", "l"), ("record", "l")]
        record, ratings, how, how_ratings = conn.execute(
            "SELECT record, ratings, pg_column_compression(record),"
            " pg_column_compression(ratings) FROM games").fetchone()
        assert (how, how_ratings) == ("lz4", "lz4")
        assert record == content(long) and ratings == long["ratings"]
