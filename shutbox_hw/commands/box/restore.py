"""``shutbox-hw restore FILE``: bring a box back from a copy of its record.

The copy is checked first (an SQLite file, shutbox-hw's, not damaged, not of
a newer schema: each refused with one line); the box must be stopped (its
database lock is taken for the time of the restore). The current record is
moved aside, never deleted; an older schema is brought forward at the box's
next start, as after an upgrade.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from ...base.errors import UserError, shown_path
from ...config.config_file import default_db_path, load_config


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("restore", help="bring the box's record back from a copy "
                                       "(the box stopped)")
    p.add_argument("file", metavar="FILE", help="the copy ([backup] place, or the web's download)")
    p.add_argument("--db", metavar="PATH", help="the record to replace (default: the box's)")
    p.add_argument("--config", metavar="FILE", help="take the record's path from [storage]")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ...store.disk.backup import restore
    from ...store.disk.lock import DatabaseLock
    path = Path(args.db) if args.db else None
    if path is None and args.config:
        path = load_config(args.config).db
    db = path or default_db_path()
    file = Path(args.file)
    if file.exists() and db.exists() and file.resolve() == db.resolve():
        raise UserError(f"{shown_path(file)} is the record itself: name a copy")
    lock = DatabaseLock(db)
    lock.acquire()     # the box running on it: refused ("stop that one first")
    try:
        aside, version, games = restore(file, db, time.time())
    finally:
        lock.release()
    print(f"restored {shown_path(db)} from {shown_path(file)}: {games} game(s), schema {version}")
    if aside is not None:
        print(f"the record it replaced is kept as {shown_path(aside)}")
    print("start the box again: sudo systemctl start shutbox-hw")
    return 0
