"""The crash rehearsal's self-check only: every ``PRAGMA synchronous=...`` made OFF.

Installed by ``crash.py`` (PYTHONPATH in a drop-in only that check writes), so
that the replay must find shown throws lost, or it proves nothing. Statements
through a connection and through its cursors are both caught
(``tests/vm/test_crash_parts.py`` checks it on the real store).
"""
import re
import sqlite3
import sys

_connect = sqlite3.connect
_LEVEL = re.compile(r"\s*PRAGMA\s+synchronous\s*=\s*\w+\s*;?\s*$", re.IGNORECASE)


def _off(sql):
    if isinstance(sql, str) and _LEVEL.match(sql) and not sql.upper().rstrip("; ").endswith("OFF"):
        print("crash rehearsal: synchronous forced OFF", file=sys.stderr, flush=True)
        return "PRAGMA synchronous=OFF"
    return sql


class _OffCursor(sqlite3.Cursor):
    def execute(self, sql, *args):
        return super().execute(_off(sql), *args)


class _Off(sqlite3.Connection):
    def execute(self, sql, *args):
        return super().execute(_off(sql), *args)

    def cursor(self, factory=_OffCursor):
        return super().cursor(factory)


def connect(*args, **kwargs):
    kwargs.setdefault("factory", _Off)
    return _connect(*args, **kwargs)


sqlite3.connect = connect
