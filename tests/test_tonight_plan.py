"""Tonight's figures are read through the index on ``games.started_at``: no statement
the box runs for them walks every game or every turn (what it costs at 100,000 games
is what it costs at 100; benchmarks/lifetime.py has the figures)."""

import sqlite3

from shutbox_hw.store import Store
from shutbox_hw.store.read.audit import tonight


def test_tonight_reads_no_whole_table(tmp_path):
    db_path = tmp_path / "box.db"
    Store(db_path).close()
    db = sqlite3.connect(db_path)
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    tonight(db, 1_800_000_000.0)
    db.set_trace_callback(None)
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) >= 3          # the counts, the best turn, the clock of the games
    for sql in selects:
        plan = " / ".join(row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql))
        assert "SCAN games" not in plan and "SCAN turns" not in plan, (sql, plan)
