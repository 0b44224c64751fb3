"""``shutbox-hw history``: recent games, or one game's full scorecard."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from ...base.errors import UserError, quoted, shown_path
from ...config.config_file import default_db_path, load_config
from ...game.display.text import signed
from ...store.read.history import card_layout, recent_games, scorecard
from ...store.read.readonly import connect_readonly
from ...store.tables.capability import Capability, offers
from ...store.tables.schema import SchemaError, not_a_regular_file, sqlite_problem, version_of
from ...words.record import count

LOCK_WAIT_S = 1.0   # a reader waits this long for a writer holding the file
MAX_ID = 2**63 - 1  # SQLite's largest integer


def _count(text: str) -> int:
    """A whole number SQLite can hold (a bigger one would be a traceback in the query)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_ID:
        raise argparse.ArgumentTypeError(f"expected a whole number 0..2**63-1, "
                                         f"got {quoted(text)}")
    return value


def _limit(text: str) -> int:
    """How many games to list: at least one (0 listed nothing and said "no games yet")."""
    value = _count(text)
    if value == 0:
        raise argparse.ArgumentTypeError("expected at least 1 game, got 0")
    return value


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("history", help="recent games and scorecards")
    p.add_argument("--db", metavar="PATH", help="the database (default: the box's)")
    p.add_argument("--config", metavar="FILE", help="take the database path from [storage]")
    p.add_argument("--game", type=_count, metavar="ID", help="the full scorecard of one game")
    p.add_argument("--limit", type=_limit, default=20,
                   help="how many recent games, 1 or more (default 20)")
    p.add_argument("--json", action="store_true", help="JSON on stdout")
    p.set_defaults(run=run)


def open_db(args: argparse.Namespace) -> tuple[sqlite3.Connection, int, Path]:
    """The database read-only and its schema version, or one line saying why not."""
    path = Path(args.db) if args.db else None
    if path is None and args.config:
        path = load_config(args.config).db
    path = path or default_db_path()
    name = shown_path(path)
    problem = not_a_regular_file(path)
    if problem:
        raise UserError(f"{name}: {problem}")
    if not path.exists():
        raise UserError(f"no game database at {name}")
    db, version = open_read_only(path)
    if not offers(version, Capability.GAMES):
        db.close()
        if path.stat().st_size == 0:
            raise UserError(f"{name} is an empty file, not a shutbox-hw database yet (the box,"
                            " or `shutbox-hw sim --db`, makes its database in it)")
        raise UserError(f"{name} is not a shutbox-hw database (it has no tables)")
    return db, version, path


def open_read_only(path: Path) -> tuple[sqlite3.Connection, int]:
    """The database at ``path`` opened read-only (never created, migrated or left with
    files of the caller's), and its schema version; one line saying why not."""
    name = shown_path(path)
    problem = not_a_regular_file(path)
    if problem:
        raise UserError(f"{name}: {problem}")
    if not os.access(path, os.R_OK):
        raise UserError(f"{name} cannot be read (permission denied)")
    try:
        db = connect_readonly(path, LOCK_WAIT_S)[0]
        version = version_of(db, path)
    except SchemaError as error:
        raise UserError(str(error)) from None
    except sqlite3.Error as error:
        raise UserError(f"{name} {sqlite_problem(error)}") from None
    return db, version


def _when(stamp: float | None, synced: bool | None) -> str:
    """A recorded time; '?' after it when nobody noted whether the clock was set."""
    if stamp is None:
        return "(clock not set)" if synced is False else "-"
    shown = time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))
    return shown + "?" if synced is None else shown


def _table(card: dict[str, Any]) -> list[str]:
    """The scorecard as aligned columns: raw/final/total per player (and balance and
    pot in a pool), each column as wide as its widest cell."""
    table = scorecard_cells(card)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = []
    for row in table:
        *left, shut = row
        cells = (c.rjust(w) for c, w in zip(left, widths, strict=False))
        lines.append("  ".join(cells) + "  " + shut)
    return [line.rstrip() for line in lines]


def scorecard_cells(card: dict[str, Any]) -> list[list[str]]:
    """The scorecard as rows of text cells: the head, the sub-head, one row per round
    (raw/final/total per player, and balance and pot in a pool; who shut the box
    last). ``history --game`` aligns them."""
    layout = card_layout(card)
    players, pool = list(layout.players), layout.pool
    head = ["round", *players, *(["pot"] if pool else []), "shut"]
    sub = ["", *(["raw/fin/tot" + ("/bal" if pool else "")] * len(players)),
           *([""] if pool else []), ""]
    rows = [head, sub]
    for row in layout.rows:
        cells = [str(row.round)]
        for cell in row.cells:
            parts = [_dash(cell.raw), _dash(cell.final), str(cell.total),
                     *([_dash(cell.balance)] if pool else [])]
            cells.append("/".join(parts))
        if pool:
            cells.append("-" if row.pot is None else row.pot)
        cells.append(", ".join(row.shut))
        rows.append(cells)
    return rows


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)


def _with_balance(name: str, balances: dict[str, int | None] | None) -> str:
    """A pool's winner with what they won ("P2 +4"); anyone else by name."""
    value = balances.get(name) if balances else None
    return name if value is None else f"{name} {signed(value)}"


def _accuracy_lines(card: dict[str, Any]) -> list[str]:
    """Each player's best moves, then every throw that was a choice: what was shut,
    the best closure (and number of dice) and the points lost."""
    accuracy = card["accuracy"]
    if not accuracy:
        return ["accuracy: not rated yet"]
    lines = ["accuracy: " + ", ".join(
        f"{name} {a['best']} of {a['moves']} best moves ({a['lost']:.2f} points lost)"
        for name, a in accuracy.items())]
    for throw in card["throws"]:
        if throw["best"] is None and throw["best_dice"] is None:
            continue
        dice = "+".join(str(d) for d in throw["dice"])
        shut = "+".join(str(t) for t in throw["closed"] or []) or "-"
        best = []
        if throw["best_dice"] is not None:
            best.append("1 die" if throw["best_dice"] == 1 else "2 dice")
        if throw["best"] is not None:
            best.append("shut " + "+".join(str(t) for t in throw["best"]))
        lines.append(f"  round {throw['round']} {throw['player']} throw {throw['throw']}:"
                     f" {dice}, shut {shut}; best {', '.join(best)}; lost {throw['loss']:.2f}")
    return lines


def run(args: argparse.Namespace) -> int:
    db, version, path = open_db(args)
    try:
        return _show(args, db, version)
    except sqlite3.Error as error:  # e.g. a damaged page met half-way
        raise UserError(f"{shown_path(path)} {sqlite_problem(error)}") from None
    finally:
        db.close()


def _show(args: argparse.Namespace, db: sqlite3.Connection, version: int) -> int:
    if args.game is not None:
        card = scorecard(db, args.game, version)
        if card is None:
            raise UserError(f"--game: there is no game {args.game}")
        if args.json:
            print(json.dumps(card))
            return 0
        print(f"game {card['id']}: {card['title']}, started "
              f"{_when(card['started_at'], card['clock_synced']['started'])}")
        print("\n".join(_table(card)))
        left = card["unfinished_round"]
        if left is not None:
            word = "stopped" if card["abandoned"] else "being played"
            print(f"round {left['round']} ({word}): " + ", ".join(
                f"{p} {'-' if v is None else v}" for p, v in left["scores"].items()))
        balances = card.get("balances")   # a pool: settled once it was stopped
        if balances is not None:
            print("balances: " + ", ".join(f"{p} {signed(b)}" for p, b in balances.items()))
        print("winners: " + (", ".join(_with_balance(w, balances) for w in card["winners"])
                             or "-"))
        print("\n".join(_accuracy_lines(card)))
        return 0
    games = recent_games(db, args.limit, version)
    if args.json:
        print(json.dumps({"games": games}))
        return 0
    if not games:
        print("no games yet")
    for g in games:
        if g["damaged"]:
            print(f"#{g['id']} damaged record (its rules cannot be read back)")
            continue
        if "balances" in g:     # a pool is played for money: the balances, not the scores
            totals = "balances " + ", ".join(f"{p} {signed(b)}" for p, b in g["balances"].items())
        else:
            totals = ", ".join(f"{p} {t}" for p, t in g["totals"].items())
        shut = sum(g["boxes_shut"].values())
        print(f"#{g['id']} {_when(g['started_at'], g['clock_synced']['started'])} "
              f"{g['title']} {g['state']}, {count(g['rounds'], '{n} round', '{n} rounds')};"
              f" {totals}; winners: {', '.join(g['winners']) or '-'};"
              f" {count(shut, '{n} box shut', '{n} boxes shut')}")
    return 0
