"""``shutbox-hw audit``: games, boxes shut, scores, switch wear and faults.

Reads the database like ``history`` (read-only, one-line errors); imports no
hardware library. With ``--config`` naming a ``[backup] place``, it also says
how old the newest copy there is (the menu's "last backup" row; ``--json``:
``last_backup``, null without a place).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from ...base.errors import UserError, shown_path
from ...config.config_file import load_config
from ...store.disk.backup import newest, stamp
from ...store.read.audit import audits
from ...store.tables.schema import sqlite_problem
from ...words.audits import format_lines
from .history import open_db


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("audit", help="audits: games, boxes shut, best scores, switch wear")
    p.add_argument("--db", metavar="PATH", help="the database (default: the box's)")
    p.add_argument("--config", metavar="FILE", help="take the database path from [storage]")
    p.add_argument("--json", action="store_true", help="JSON on stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    db, version, path = open_db(args)
    try:
        figures = audits(db, version)
    except sqlite3.Error as error:
        raise UserError(f"{shown_path(path)} {sqlite_problem(error)}") from None
    finally:
        db.close()
    now = time.time()
    backup = last_backup(args.config, now)
    if args.json:
        print(json.dumps({**figures, "last_backup": backup}))
    else:   # with a place, the menu's "last backup" row under "storage"
        print("\n".join(format_lines({**figures, "last_backup": backup})))
    return 0


def last_backup(config: str | None, now: float) -> dict[str, Any] | None:
    """The newest ``[backup]`` copy: its place, when it was taken (ISO 8601, null: none
    there yet) and how many seconds ago; None when no config names a place."""
    place = load_config(config).backup.place if config else None
    if place is None:
        return None
    at = newest(Path(place).expanduser())
    return {"place": place, "at": stamp(at),
            "age_s": None if at is None else max(0, int(now - at))}
