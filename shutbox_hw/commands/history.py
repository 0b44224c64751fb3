"""``shutbox-hw history``: recent games, or one game's full scorecard."""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path

from ..config import default_db_path, load_config
from ..errors import UserError
from ..store.history import recent_games, scorecard


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("history", help="recent games and scorecards")
    p.add_argument("--db", metavar="PATH", help="the database (default: the box's)")
    p.add_argument("--config", metavar="FILE", help="take the database path from [storage]")
    p.add_argument("--game", type=int, metavar="ID", help="the full scorecard of one game")
    p.add_argument("--limit", type=int, default=20, help="how many recent games (default 20)")
    p.add_argument("--json", action="store_true", help="JSON on stdout")
    p.set_defaults(run=run)


def _open(args: argparse.Namespace) -> sqlite3.Connection:
    path = Path(args.db) if args.db else None
    if path is None and args.config:
        path = load_config(args.config).db
    path = path or default_db_path()
    if not path.is_file():
        raise UserError(f"no game database at {path}")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        db.execute("SELECT id FROM games LIMIT 1")
    except sqlite3.Error as error:
        raise UserError(f"{path} is not a shutbox-hw database ({error})") from None
    return db


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp)) if stamp else "-"


def run(args: argparse.Namespace) -> int:
    db = _open(args)
    if args.game is not None:
        card = scorecard(db, args.game)
        if card is None:
            raise UserError(f"--game: there is no game {args.game}")
        if args.json:
            print(json.dumps(card))
            return 0
        players = card["players"]
        print(f"game {card['id']} ({card['rules'].get('preset')}), {_when(card['started_at'])}")
        print("round  " + "  ".join(f"{p[:8]:>8} raw/fin/tot" for p in players) + "  shut")
        for rnd in card["rounds"]:
            cells = []
            for p in players:
                e = rnd["players"][p]
                raw = "-" if e["raw"] is None else e["raw"]
                fin = "-" if e["final"] is None else e["final"]
                cells.append(f"{raw:>8}/{fin:>3}/{e['total']:>3}")
            print(f"{rnd['round']:>5}  " + "  ".join(cells) + "  " + ", ".join(rnd["shut"]))
        print("winners: " + (", ".join(card["winners"]) or "-"))
        return 0
    games = recent_games(db, args.limit)
    if args.json:
        print(json.dumps({"games": games}))
        return 0
    if not games:
        print("no games yet")
    for g in games:
        state = "abandoned" if g["abandoned"] else ("finished" if g["finished"] else "playing")
        totals = ", ".join(f"{p} {t}" for p, t in g["totals"].items())
        shut = sum(g["boxes_shut"].values())
        print(f"#{g['id']} {_when(g['started_at'])} {g['preset']} {state}, {g['rounds']} rounds;"
              f" {totals}; winners: {', '.join(g['winners']) or '-'}; boxes shut: {shut}")
    return 0
