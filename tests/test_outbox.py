"""The MQTT outbox for a broker away for months (issue 29, point 3): a cap and an
age limit (the oldest dropped and counted), the backlog and the dropped count
where the publican looks, acknowledged rows deleted a batch per transaction,
and a file that gives back what a sent backlog used."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from mqtt_broker import Broker, Consumer, dedup, need_broker

from shutbox_hw.config.config_file import load_config
from shutbox_hw.config.network import NetworkConfig
from shutbox_hw.network.hookup import Outbox
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script
from shutbox_hw.store import Store
from shutbox_hw.store.read.audit import audits
from shutbox_hw.store.tables.outbox import (
    DROPPED,
    TRIM_EVERY,
    Limits,
    make_shrinkable,
    outbox_figures,
    queue,
    sent,
    shrink,
    trim,
    waiting,
)
from shutbox_hw.words.audits import audit_lines

CHECKOUT = Path(__file__).resolve().parent.parent
PRACTICE = CHECKOUT / "tests" / "scripts" / "practice-001.txt"


class _Event:
    def __init__(self, n: int) -> None:
        self.n = n

    def as_json(self) -> dict:
        return {"event": "rolled", "player": "P1", "dice": [1 + self.n % 6], "round": 1,
                "throw": self.n, "pad": "x" * 100}


def _store(db: Path) -> tuple[Store, sqlite3.Connection]:
    store = Store(db)
    assert store.db is not None
    return store, store.db


def _queue(conn: sqlite3.Connection, first: int, count: int, at: float,
           limits: Limits | None = None) -> int:
    conn.execute("BEGIN IMMEDIATE")
    dropped = queue(conn, [_Event(first + i) for i in range(count)], at, limits or Limits())
    conn.execute("COMMIT")
    return dropped


def _throws(conn: sqlite3.Connection) -> list[int]:
    return [json.loads(e)["throw"] for e, in conn.execute("SELECT event FROM outbox ORDER BY seq")]


def test_past_outbox_max_the_oldest_are_dropped_and_counted(tmp_path):
    store, conn = _store(tmp_path / "box.db")
    limits = Limits(max_rows=300, max_age_s=10**9)
    dropped = sum(_queue(conn, 10 * step, 10, 1000.0 + step, limits) for step in range(100))
    # looked at once every TRIM_EVERY events: the cap holds within that many
    kept = waiting(conn)
    assert 300 <= kept < 300 + TRIM_EVERY + 10 and dropped == 1000 - kept
    assert _throws(conn) == list(range(1000 - kept, 1000))   # the newest kept, in order
    conn.execute("BEGIN IMMEDIATE")
    dropped += trim(conn, 2000.0, limits)
    conn.execute("COMMIT")
    assert dropped == 700 and waiting(conn) == 300
    assert _throws(conn) == list(range(700, 1000))
    assert outbox_figures(conn) == {"queued": 300, "dropped": 700}
    count, = conn.execute("SELECT count FROM counters WHERE key = ?", (DROPPED,)).fetchone()
    assert count == 700                                     # persisted: the counter row
    store.close()


def test_past_the_age_limit_the_oldest_are_dropped_from_the_head(tmp_path):
    store, conn = _store(tmp_path / "box.db")
    day = 86400.0
    limits = Limits(max_rows=10**6, max_age_s=31 * day)
    _queue(conn, 0, 50, 0.0, limits)              # a broker away since then
    _queue(conn, 50, 50, 20 * day, limits)
    assert waiting(conn) == 100
    _queue(conn, 100, 1, 40 * day, limits)
    conn.execute("BEGIN IMMEDIATE")
    assert trim(conn, 40 * day, limits) == 50              # the first day's are 40 days old
    conn.execute("COMMIT")
    assert _throws(conn) == list(range(50, 101))
    assert outbox_figures(conn)["dropped"] == 50
    store.close()


def test_the_store_trims_with_the_configs_limits(tmp_path, monkeypatch):
    """``[network] outbox_max`` reaches the store through its outbox hook."""
    from shutbox_hw.store.tables import outbox
    monkeypatch.setattr(outbox, "TRIM_EVERY", 8)
    config = load_config(rule_overrides=None, preset="crafthouse-12")
    db = tmp_path / "box.db"
    runner = SimRunner(config, db, outbox=Outbox(Limits(max_rows=20, max_age_s=10**9)))
    for step in load_script(str(PRACTICE), config.rules.tiles):
        runner.run(step)
    runner.finish()
    runner.daemon.store.close()
    conn = sqlite3.connect(db)
    figures = outbox_figures(conn)
    newest, = conn.execute("SELECT MAX(seq) FROM outbox").fetchone()
    assert 20 <= figures["queued"] < 20 + 8 + 5 and figures["dropped"] == newest - figures[
        "queued"] > 0
    conn.close()


def test_the_limits_are_config_keys_with_a_months_default():
    assert NetworkConfig().outbox_max == 50 * 60 * 31 + 7_000 == 100_000
    assert NetworkConfig().outbox_max_days == 31
    config_problems: list[str] = []
    from shutbox_hw.config.network import parse_network
    parse_network({"mqtt": "mqtt://h", "outbox_max": 5, "outbox_max_days": 0}, config_problems)
    assert any("outbox_max:" in p and "100.." in p for p in config_problems)
    assert any("outbox_max_days:" in p for p in config_problems)


def test_audit_json_menu_and_the_store_function_show_the_backlog(tmp_path):
    db = tmp_path / "box.db"
    store, conn = _store(db)
    _queue(conn, 0, 70, 1.0, Limits(max_rows=25, max_age_s=10**12))   # past TRIM_EVERY
    store.close()
    out = run_cli("audit", "--db", db, "--json", cwd=CHECKOUT)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["outbox"] == {"queued": 25, "dropped": 45}
    reader = sqlite3.connect(db)
    lines = audit_lines(audits(reader))
    at = lines.index("outbox queued\t25")
    assert lines[at + 1] == "outbox dropped\t45"
    assert audits(reader)["outbox"] == outbox_figures(reader)
    reader.close()
    text = run_cli("audit", "--db", db, cwd=CHECKOUT).stdout
    assert "outbox queued" in text and "outbox dropped" in text


def test_an_old_database_shows_an_empty_outbox(tmp_path):
    conn = sqlite3.connect(":memory:")
    assert outbox_figures(conn) == {"queued": 0, "dropped": 0}


def test_acknowledged_rows_are_deleted_in_one_transaction_per_batch(tmp_path):
    """``with db:`` on an ``isolation_level=None`` connection opens no transaction:
    each DELETE was a commit (a WAL frame and a sync) of its own."""
    db = tmp_path / "box.db"
    store, conn = _store(db)
    _queue(conn, 0, 20, 1.0)
    store.close()
    publisher_side = sqlite3.connect(db, isolation_level=None)
    said: list[str] = []
    publisher_side.set_trace_callback(said.append)
    sent(publisher_side, list(range(1, 21)))
    publisher_side.set_trace_callback(None)
    assert [s for s in said if s in ("BEGIN IMMEDIATE", "COMMIT")] == ["BEGIN IMMEDIATE",
                                                                       "COMMIT"]
    assert sum(s.startswith("DELETE") for s in said) == 20
    assert waiting(publisher_side) == 0
    publisher_side.close()


def test_an_existing_database_is_made_incremental_once_and_gives_pages_back(tmp_path):
    db = tmp_path / "box.db"
    store, _ = _store(db)
    store.close()
    old = sqlite3.connect(db, isolation_level=None)
    old.execute("PRAGMA auto_vacuum=NONE")
    old.execute("VACUUM")                       # as every database written before
    assert old.execute("PRAGMA auto_vacuum").fetchone() == (0,)
    old.close()
    store, conn = _store(db)                    # the store's open switches it
    assert conn.execute("PRAGMA auto_vacuum").fetchone() == (2,)
    assert make_shrinkable(conn)                # and only once
    for block in range(20):
        _queue(conn, block * 1000, 1000, 1.0)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    full, = conn.execute("PRAGMA page_count").fetchone()
    sent(conn, [s for s, in conn.execute("SELECT seq FROM outbox")])
    assert shrink(conn) > 0
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    after, = conn.execute("PRAGMA page_count").fetchone()
    assert after < full / 4, (full, after)
    assert db.stat().st_size == after * conn.execute("PRAGMA page_size").fetchone()[0]
    store.close()


@pytest.mark.broker
@pytest.mark.slow      # seconds of work: pytest -m 'not slow' leaves it out
def test_the_publisher_shrinks_the_file_after_a_backlog(tmp_path):
    need_broker()
    broker = Broker(tmp_path / "broker")
    broker.start()
    consumer = Consumer(broker)
    db = tmp_path / "box.db"
    store, conn = _store(db)
    for block in range(10):
        _queue(conn, block * 1000, 1000, 1.0)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    full, = conn.execute("PRAGMA page_count").fetchone()
    store.close()
    from shutbox_hw.network.publisher import Publisher
    publisher = Publisher(db, NetworkConfig(mqtt=broker.url, box="pub1")).start()
    try:
        assert consumer.wait(lambda: len(dedup(consumer.events())) == 10_000, 180)
        left = publisher.stop(drain_s=10)
    finally:
        consumer.close()
        broker.kill()
    assert left == 0
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages, = reader.execute("PRAGMA page_count").fetchone()
    free, = reader.execute("PRAGMA freelist_count").fetchone()
    reader.close()
    assert pages - free < full / 4 and free < 256, (full, pages, free)   # what is left
