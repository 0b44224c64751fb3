"""The live summary kept between changes (issue 39, network/live.py ``Kept``):
every read through a reader's ``Kept`` is the summary a fresh computation
gives at that instant, whatever happened since the last read: the box's own
writes, another connection's commit, the clock moving a game out of tonight's
window or back into it, the language, a reader changing its copy."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from pub_night import Night

from shutbox_hw.base.i18n import speaking
from shutbox_hw.network.live import Kept, live
from shutbox_hw.store.read.tonight import TONIGHT_S, WEEK_S


class KeptNight(Night):
    """A pub night whose TV is read, after every step, through two kept
    summaries (the box's connection, as the MQTT publisher reads it, and a
    read-only one, as the web reads it), each compared with a fresh one."""

    def __init__(self, seed: int, db: Path) -> None:
        self.path = db
        self.reader = None
        self.kept = {"box": Kept(), "web": Kept()}
        self.reads = 0
        self.steps_read = 0
        super().__init__(seed, db)
        self.reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def _surfaces(self) -> None:
        super()._surfaces()
        db = self.database()
        if db is None or self.reader is None:
            return
        self.steps_read += 1
        wall = self.wall()
        instants = [wall, wall]          # the same instant twice: kept, and still right
        if self.steps_read % 10 == 0:    # now and then, the clock across each game's edges
            starts = [s for s, in db.execute("SELECT started_at FROM games ORDER BY id")]
            for start in starts[-3:]:
                instants += [start + TONIGHT_S, start + TONIGHT_S + 0.5,
                             start + WEEK_S + 0.5]
            instants += [wall - 1, wall]   # and back (a clock set back)
        for name, con in (("box", db), ("web", self.reader)):
            for now in instants:
                self._compare(name, con, now)

    def _compare(self, name: str, con: sqlite3.Connection, now: float) -> None:
        self.reads += 1
        kept = self.kept[name](con, now)
        fresh = live(con, now)
        assert kept == fresh, f"{name} at {now}: kept {kept} but the record says {fresh}"
        kept["players"] = "changed by a reader"     # the next read is not this copy

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
        super().close()


def test_every_kept_read_is_the_fresh_summary_through_a_night(tmp_path):
    night = KeptNight(7, tmp_path / "night.db")
    try:
        for _ in range(3):
            night.match()
    finally:
        night.close()
    assert night.steps_read > 100
    box, web = night.kept["box"], night.kept["web"]
    # the box's connection writes the shown picture at every step: computed for each
    # step, and again only where the clock moved a game across a window's edge
    assert box.reads == web.reads == night.reads // 2
    assert night.steps_read <= box.computed < box.reads
    assert web.computed < web.reads


def _night(tmp_path: Path) -> tuple[Night, sqlite3.Connection]:
    night = Night(3, tmp_path / "box.db")
    night.match()
    db = night.database()
    assert db is not None
    return night, db


def test_a_write_by_another_connection_or_this_one_is_seen_at_once(tmp_path):
    night, db = _night(tmp_path)
    try:
        reader = sqlite3.connect(f"file:{tmp_path / 'box.db'}?mode=ro", uri=True)
        kept, now = Kept(), night.wall()
        first = kept(reader, now)
        assert kept(reader, now) == first and kept.computed == 1
        name = first["last_result"]["players"][0]
        # a name rewritten without an event (as ``forget`` does), by the box's connection
        db.execute("UPDATE players SET name = 'Zed' WHERE name = ?", (name,))
        db.commit()
        second = kept(reader, now)
        assert second == live(reader, now) != first and kept.computed == 2
        # and read by the writing connection itself (its own changes: total_changes)
        own = Kept()
        before = own(db, now)
        db.execute("UPDATE players SET name = 'Yve' WHERE name = 'Zed'")
        db.commit()
        after = own(db, now)
        assert after == live(db, now) != before and own.computed == 2
        reader.close()
    finally:
        night.close()


def test_the_clock_moves_tonight_without_a_write(tmp_path):
    night, db = _night(tmp_path)
    try:
        kept = Kept()
        start, = db.execute("SELECT MAX(started_at) FROM games").fetchone()
        inside = kept(db, start + TONIGHT_S - 1)
        outside = kept(db, start + TONIGHT_S + 1)
        assert inside["tonight"]["games"] >= 1 and outside["tonight"]["games"] == 0
        assert outside == live(db, start + TONIGHT_S + 1)
        assert kept(db, start + TONIGHT_S - 1) == inside     # the clock set back
        assert kept.computed == 3
    finally:
        night.close()


def test_the_language_is_part_of_what_is_kept(tmp_path):
    night, db = _night(tmp_path)
    try:
        kept, now = Kept(), night.wall() + TONIGHT_S / 2
        with speaking("de"):
            german = kept(db, now)
            assert german == live(db, now)
        english = kept(db, now)
        assert english == live(db, now)
        assert kept.computed == 2
    finally:
        night.close()
