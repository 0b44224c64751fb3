"""Two ingests writing batches that touch the same boxes in opposite orders (a game of
one box and the retained state of the other) on a real PostgreSQL: each batch is
held at a barrier after its first upsert of ``boxes``, the interleaving that made
PostgreSQL answer "deadlock detected" when each batch locked its boxes and epochs
as it met them. Now every batch locks them all first, in one order: the second
waits for the first, and both batches commit."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

import pytest
from league_parts import Postgres, need_parts

from shutbox_hw.league.ingest import Ingest, Options
from shutbox_hw.league.schema import migrate

pytestmark = [pytest.mark.league, pytest.mark.other_user]


@dataclass
class Message:
    topic: str
    payload: bytes
    qos: int = 0
    mid: int = 0


def game(box: str, game_id: int) -> Message:
    record = {"box": box, "epoch": "e1", "seq": game_id, "at": 1.5, "game": game_id,
              "rules": {"tiles": 9}, "dice": "software", "started_at": 1.0,
              "ended_at": 2.0, "state": "finished",
              "seats": [{"seat": 0, "name": "Anna"}, {"seat": 1, "name": "Ben"}],
              "rounds": [], "turns": [], "result": {"winners": ["Anna"], "abandoned": False},
              "ratings": []}
    return Message(f"shutbox/{box}/game", json.dumps(record).encode())


def state(box: str, latest: int) -> Message:
    return Message(f"shutbox/{box}/state",
                   json.dumps({"box": box, "epoch": "e1", "latest_game": latest}).encode())


class HeldAfterBoxes:
    """A connection that waits at ``barrier`` once, after its first upsert of boxes.

    The barrier's timeout only ends the wait when the other batch cannot come to it
    (it waits for this one's locks): then this one goes on alone."""

    def __init__(self, conn: Any, barrier: threading.Barrier) -> None:
        self._conn = conn
        self._barrier = barrier
        self._held = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def execute(self, sql: str, *args: Any, **kwargs: Any) -> Any:
        result = self._conn.execute(sql, *args, **kwargs)
        if not self._held and sql.startswith("INSERT INTO boxes"):
            self._held = True
            try:
                self._barrier.wait(timeout=5)
            except threading.BrokenBarrierError:
                pass
        return result


@pytest.fixture
def pg():
    need_parts()
    cluster = Postgres()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.destroy()


def test_two_ingests_on_the_same_boxes_in_opposite_orders_do_not_deadlock(pg):
    import psycopg
    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        migrate(conn)
        # both boxes known, with their first games: every batch below updates rows
        conn.execute("INSERT INTO boxes (box) VALUES ('a1'), ('b1')")
        conn.execute("INSERT INTO epochs (box, epoch, latest) VALUES ('a1', 'e1', 1),"
                     " ('b1', 'e1', 1)")
    barrier = threading.Barrier(2)
    batches = {"one": [game("a1", 2), state("b1", 2)],
               "two": [game("b1", 2), state("a1", 2)]}
    errors: dict[str, BaseException] = {}
    ingests = {}

    def run(name: str) -> None:
        ingest = Ingest(Options(dsn=pg.dsn, mqtt="mqtt://localhost"))
        ingests[name] = ingest
        ingest._client = object()            # nothing to acknowledge: QoS 0
        ingest._conn = HeldAfterBoxes(psycopg.connect(pg.dsn, autocommit=True), barrier)
        try:
            ingest._write([(0, m) for m in batches[name]])
        except BaseException as error:       # the thread's error, for the assertion
            errors[name] = error
        finally:
            ingest._conn.close()

    threads = [threading.Thread(target=run, args=(name,)) for name in batches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    deadlocks = {n: e for n, e in errors.items()
                 if isinstance(e, psycopg.errors.DeadlockDetected)}
    assert not deadlocks, deadlocks
    assert not errors, errors
    assert {n: i.counts for n, i in ingests.items()} == {"one": {"stored": 1},
                                                         "two": {"stored": 1}}
    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        assert conn.execute("SELECT box, game FROM games ORDER BY box, game").fetchall() == [
            ("a1", 2), ("b1", 2)]
        assert conn.execute("SELECT box, epoch, latest FROM epochs ORDER BY box").fetchall() \
            == [("a1", "e1", 2), ("b1", "e1", 2)]
