"""``shutbox-hw audit``: games, boxes shut, scores, switch wear and faults.

Reads the database like ``history`` (read-only, one-line errors); imports no
hardware library.
"""

from __future__ import annotations

import argparse
import json
import sqlite3

from ..base.errors import UserError, shown_path
from ..store.audit import audits, format_lines
from ..store.schema import sqlite_problem
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
    if args.json:
        print(json.dumps(figures))
    else:
        print("\n".join(format_lines(figures)))
    return 0
