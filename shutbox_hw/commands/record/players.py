"""``shutbox-hw players``: each player's statistics, or one player's.

Reads the database like ``history`` and ``audit`` (read-only, one-line errors;
``--db`` or the config's ``[storage]``): the figures the box keeps for every
player (:mod:`~shutbox_hw.store.tables.player_stats`), never a count of their games.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys

from ...base.errors import UserError, quoted, shown_path
from ...store.disk.faults import BUSY_TIMEOUT_S
from ...store.read.highscores import accuracy_of
from ...store.tables import player_stats
from ...store.tables.roster import find
from ...store.tables.schema import sqlite_problem
from .history import open_db

PAGE = 500          # players read at a time
SCHEMA = 7          # the first schema with players


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("players", help="each player's games, wins, scores and accuracy")
    p.add_argument("--db", metavar="PATH", help="the database (default: the box's)")
    p.add_argument("--config", metavar="FILE", help="take the database path from [storage]")
    p.add_argument("--name", metavar="NAME", help="one player (case and accents do not matter)")
    p.add_argument("--json", action="store_true", help="JSON on stdout")
    p.add_argument("--remove", metavar="NAME",
                   help="remove a player from the roster and anonymise their games")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.remove is not None:
        return remove(args)
    db, version, path = open_db(args)
    try:
        if version < SCHEMA:
            raise UserError(f"{shown_path(path)} was written before the box kept players "
                            f"(schema {version}); the box's next start brings it up to date")
        if args.name is not None:
            player = find(db, args.name)
            if player is None:
                print(f"shutbox-hw players: no player called {quoted(args.name)} in "
                      f"{shown_path(path)}", file=sys.stderr)
                return 1
            stats = player_stats.read(db, player.id)
            assert stats is not None
            found = [stats]
        else:
            found = _everyone(db)
        rows = [player_stats.as_json(s, *accuracy_of(db, s.player_id)) for s in found]
    except sqlite3.Error as error:
        raise UserError(f"{shown_path(path)} {sqlite_problem(error)}") from None
    finally:
        db.close()
    if args.json:
        print(json.dumps(rows[0] if args.name is not None else rows, ensure_ascii=False))
    else:
        print("\n".join(lines(rows)) if rows else "no players yet: seats named in a game "
              "become players")
    return 0


def _everyone(db: sqlite3.Connection) -> list[player_stats.PlayerStats]:
    """Every player, the most wins first (read a page at a time)."""
    found: list[player_stats.PlayerStats] = []
    while page := player_stats.leaderboard(db, "wins", PAGE, len(found)):
        found += page
        if len(page) < PAGE:
            break
    return found


HEAD = ("player", "games", "wins", "win %", "avg turn", "best turn", "boxes shut",
        "run of wins", "best moves %")


def lines(rows: list[dict[str, object]]) -> list[str]:
    """The players as a table in columns (``-`` where there is nothing yet)."""
    def cell(value: object) -> str:
        return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
    table = [list(HEAD)] + [
        [str(r["name"]), *(cell(r[k]) for k in ("games", "wins", "win_rate", "average_score",
                                                "best_turn", "boxes_shut")),
         f"{r['streak']} (best {r['best_streak']})", cell(r["accuracy"])] for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(HEAD))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                      for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in table]




def remove(args: argparse.Namespace) -> int:
    """``--remove NAME``: the operator menu's "remove a player" from the command line,
    beside the running box or not (store/write/forget.py: one transaction that waits
    for the box's own writes; removing cascades into the tables kept per player)."""
    import time

    from ...store.write.forget import forget_player
    reader, version, path = open_db(args)    # the same checks and words as the reads
    reader.close()
    if version < SCHEMA:
        raise UserError(f"{shown_path(path)} was written before the box kept players "
                        f"(schema {version}); the box's next start brings it up to date")
    try:
        db = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        try:
            db.execute("PRAGMA foreign_keys=ON")   # the per-player tables go with the player
            gone = forget_player(db, args.remove, time.time())
        finally:
            db.close()
    except sqlite3.Error as error:
        raise UserError(f"{shown_path(path)} {sqlite_problem(error)}") from None
    print(f"removed {gone.name}: {gone.games} {'game' if gone.games == 1 else 'games'} "
          "anonymised (their seats now show the seat's label)")
    return 0
