"""A record damaged at start (issue 38): found, moved aside, what can be read saved.

A bad power cut or a worn SD card can leave the record damaged: a page of
garbage, a header no longer SQLite's. At every start, before the box opens
its record for writing, SQLite's ``PRAGMA quick_check`` looks at every page
(its cost at 100,000 games: ``benchmarks/record_check.py``; it runs once,
before the loop). A record that fails it is

- moved aside, never deleted: ``box.db`` becomes ``box.db.damaged-STAMP``
  (its ``-wal`` and ``-shm`` files with it, so its last writes stay readable);
- read table by table into a new record of this version's schema: each
  table's rows in rowid order up to the first damaged page, then from its end
  backwards to the same place (what lies on the damaged pages is lost); the
  figures kept up to date by each write (the audits', the players') are counted
  again from the games recovered;
- described for the publican in ``box.db.damaged-STAMP.txt``: how many games
  were recovered and which games could not be (with what is still known of
  them), and shown on the box ("record damaged: 1,234 of 1,240 games
  recovered").

SQLite's own ``.recover`` (the ``sqlite3`` shell) needs the ``sqlite_dbpage``
virtual table, which Debian 12's build (3.40.1) leaves out: ``.recover`` there
fails with ``no such table: sqlite_dbpage``, and Python's sqlite3 module, on
the same library, has it neither. The reading here therefore uses only the
sqlite3 module, through the damaged file's own b-trees.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..tables import figures, player_stats
from ..tables.schema import migrate
from .faults import BUSY_TIMEOUT_S, DAMAGED_WORDS, damaged

log = logging.getLogger("shutbox_hw")

# kept up to date by every write: counted again from what was recovered instead
DERIVED = frozenset(("audit_figures", "audit_best", "player_stats", "player_rules"))
PAGE_MIN = 512        # an SQLite file is whole pages of at least this size
BATCH = 1000          # rows written in one go
EXTEND_EVERY_S = 5    # while recovering, systemd is told this often ...
EXTEND_S = 30         # ... to wait this much longer for the start
# the rows of these name the games the record knew of (their ``game_id``)
GAME_REFERENCES = ("players", "rounds", "turns")


def quick_check(path: Path) -> str | None:
    """What SQLite's quick check finds wrong with the record (None: nothing, or no
    record yet, or a disk that will not let it be read now: the store's opening
    says so in its own words)."""
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size == 0:
        return None
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            row = db.execute("PRAGMA quick_check(1)").fetchone()
        finally:
            db.close()
    except sqlite3.Error as error:
        if size % PAGE_MIN:
            return None   # not whole pages: never an SQLite file (a wrong --db), refused by name
        return str(error) if damaged(error) else None
    return None if row is None or row[0] == "ok" else str(row[0])


@dataclass
class Salvage:
    """What became of a damaged record."""
    problem: str                 # SQLite's words for the damage
    aside: Path                  # where the damaged file is kept
    recovered: int = 0           # games recovered into the new record
    known: int = 0               # games the damaged record is known to have held
    lost: list[int] = field(default_factory=list)   # ids of the games not recovered
    rows: dict[str, int] = field(default_factory=dict)   # rows recovered per table
    players: dict[int, str] = field(default_factory=dict)  # a lost game's players, if known
    report: Path | None = None   # the list for the publican

    def words(self) -> str:
        """The box's line (the screen, the fault log, the audits' fault)."""
        if not self.known:
            return f"{DAMAGED_WORDS}: no games recovered"
        return f"{DAMAGED_WORDS}: {self.recovered:,} of {self.known:,} games recovered"


def move_aside(path: Path, now: float) -> Path:
    """``path`` and its ``-wal`` and ``-shm`` renamed to ``NAME.damaged-STAMP`` (never
    deleted; a second damage the same second gets ``-2``)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    aside, n = path.with_name(f"{path.name}.damaged-{stamp}"), 1
    while any(Path(f"{aside}{s}").exists() for s in ("", "-wal", "-shm", ".txt")):
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            source.rename(f"{aside}{suffix}")
    return aside


def salvage(path: Path, problem: str, now: float) -> Salvage:
    """Move the damaged record aside and recover what can be read into a new one at
    ``path``. Raises OSError or sqlite3.Error when even that cannot be done (a
    read-only card): the record is then left where it was."""
    aside = move_aside(path, now)
    result = Salvage(problem, aside)
    # built beside it and renamed into place when whole: a salvage cut short (the power,
    # systemd's start timeout) leaves no half record for the next start to take as sound
    building = path.with_name(f"{path.name}.salvaging")
    building.unlink(missing_ok=True)    # a copy cut short before: the damaged file has it all
    fresh = sqlite3.connect(building, isolation_level=None)
    try:
        migrate(fresh, building)
        try:
            source = sqlite3.connect(f"file:{aside}?mode=ro", uri=True, isolation_level=None)
        except sqlite3.Error:
            source = None
        seen: set[int] = set()
        if source is not None:
            try:
                _copy(source, fresh, result, seen)
            finally:
                source.close()
        fresh.execute("BEGIN IMMEDIATE")
        figures.rebuild(fresh)
        player_stats.rebuild(fresh)
        fresh.execute("COMMIT")
        games = {g for g, in fresh.execute("SELECT id FROM games")}
        result.recovered = len(games)
        result.known = max(seen | games, default=0)
        # game ids are given in turn: one missing below the highest known was lost
        result.lost = sorted(set(range(1, result.known + 1)) - games)
        result.players = {int(g): str(names) for g, names in fresh.execute(
            "SELECT game_id, group_concat(name, ', ') FROM (SELECT game_id, name FROM players"
            " WHERE game_id NOT IN (SELECT id FROM games) ORDER BY game_id, seat)"
            " GROUP BY game_id")}
    finally:
        fresh.close()
    os.replace(building, path)
    result.report = _write_report(path, result, now)
    log.error("storage: %s: %s; the damaged file kept as %s, the list in %s",
              path, result.words(), aside, result.report)
    return result


def _copy(source: sqlite3.Connection, fresh: sqlite3.Connection, result: Salvage,
          seen: set[int]) -> None:
    """Every table of the new record's schema, from the damaged one, column by column."""
    busy = _Busy()
    tables = [t for t, in fresh.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " ORDER BY rowid")]
    fresh.execute("BEGIN IMMEDIATE")
    for table in tables:
        if table in DERIVED:
            continue
        columns = _columns(fresh, table) & _columns(source, table)
        if not columns:
            continue
        names = sorted(columns)
        # the record keeps its epoch (store/tables/epoch.py): the league knows its games by it
        verb = "INSERT OR REPLACE" if table == "record" else "INSERT OR IGNORE"
        insert = (f"{verb} INTO {table} ({', '.join(names)})"
                  f" VALUES ({', '.join('?' * len(names))})")
        key = names.index("id") if table == "games" and "id" in names else \
            names.index("game_id") if table in GAME_REFERENCES and "game_id" in names else None
        count, batch = 0, []
        for row in _rows(source, table, names):
            batch.append(row)
            if key is not None:
                seen.add(int(row[key]))
            if len(batch) == BATCH:
                fresh.executemany(insert, batch)
                count, batch = count + len(batch), []
                busy.still()
        fresh.executemany(insert, batch)
        result.rows[table] = count + len(batch)
    fresh.execute("COMMIT")


class _Busy:
    """Tells systemd the start is still under way (a salvage of 100,000 games takes
    tens of seconds on a Pi: past the unit's start timeout); nothing outside systemd."""

    def __init__(self) -> None:
        from ...base.sdnotify import Notifier
        self.notifier = Notifier()
        self.next = time.monotonic()

    def still(self) -> None:
        if time.monotonic() >= self.next:
            self.next = time.monotonic() + EXTEND_EVERY_S
            self.notifier.send(f"EXTEND_TIMEOUT_USEC={EXTEND_S * 1_000_000}\n"
                               "STATUS=recovering a damaged record")


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    try:
        return {c for _, c, *_ in db.execute(f"PRAGMA table_info({table})")}
    except sqlite3.Error:
        return set()


def _rows(source: sqlite3.Connection, table: str, names: list[str]) -> Iterator[tuple[Any, ...]]:
    """The table's rows in rowid order up to a damaged page, then from the end back to it.

    The sqlite3 module steps to the next row as it hands one over, so a damaged page
    breaks off a scan one row early: from there the rows are taken one query each
    (``LIMIT 1`` stops before the next page).
    """
    select = f"SELECT rowid, {', '.join(names)} FROM {table}"
    state = {"whole": False}
    low: int | None = None
    for rowid, row in _scan(source, select, ">", None, state):
        low = rowid
        yield row
    if state["whole"]:
        return
    for _rowid, row in _scan(source, select, "<", low, state):
        yield row


def _scan(source: sqlite3.Connection, select: str, way: str, floor: int | None,
          state: dict[str, bool]) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """``(rowid, row)`` going up (``way`` ">") or down ("<", never down to ``floor``)
    until a damaged page; ``state["whole"]``: the scan reached the table's end."""
    order = "ORDER BY rowid" if way == ">" else "ORDER BY rowid DESC"
    last: int | None = None
    state["whole"] = False
    try:
        for rowid, *row in source.execute(f"{select} {order}"):
            if floor is not None and rowid <= floor:
                return
            last = rowid
            yield rowid, tuple(row)
        state["whole"] = True
        return
    except sqlite3.Error:
        pass
    while True:
        where, args = ("", ()) if last is None else (f"WHERE rowid {way} ?", (last,))
        try:
            found = source.execute(f"{select} {where} {order} LIMIT 1", args).fetchone()
        except sqlite3.Error:
            return
        if found is None or floor is not None and found[0] <= floor:
            return
        last = int(found[0])
        yield last, tuple(found[1:])


def _write_report(path: Path, result: Salvage, now: float) -> Path | None:
    """The list for the publican beside the damaged file (None if it cannot be written)."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(now))
    lines = [
        f"shutbox-hw: the record {path} was damaged ({result.problem}).",
        f"Found at the box's start on {when}; the damaged file is kept as {result.aside}",
        "(with its -wal and -shm files where there were any): nothing was deleted.",
        "",
        f"{result.words()} into a new {path.name}.",
    ]
    if result.lost:
        lines += ["", "Games that could not be saved (their number in the record):",
                  _ranges(result.lost)]
        named = [f"  game {g}: {result.players[g]}" for g in result.lost if g in result.players]
        if named:
            lines += ["Of these, the players are still known for:", *named]
    else:
        lines += ["", "Every game the record is known to have held was recovered."]
    lines += ["", "Rows recovered per table:"]
    lines += [f"  {table}: {count}" for table, count in result.rows.items()]
    report = Path(f"{result.aside}.txt")
    try:
        report.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.chmod(report, 0o644)
    except OSError:
        return None
    return report


def _ranges(ids: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    parts: list[str] = []
    start = prev = ids[0]
    for n in [*ids[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)
