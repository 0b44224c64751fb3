"""An independent recount of the audits from a database's rows (for the tests).

Written apart from the store on purpose: plain Python over every row, the
audits' rules as ``shutbox-hw audit`` documents them (games since the last
reset; a game counts as played once ended and not abandoned; every ended,
scored turn of those games counts, abandoned games' turns too; the best
turns lowest score first, then the oldest game, then the oldest turn).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any


def _preset(rules: str) -> str:
    try:
        table = json.loads(rules)
    except ValueError:
        return "?"
    return str(table.get("preset")) if isinstance(table, dict) else "?"


def recount(path: Path) -> dict[str, Any]:
    """The audits' game figures counted from the rows, in the keys ``audit --json`` has."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        since = 0
        for key, count in db.execute("SELECT key, count FROM counters"):
            if key == "since:game":
                since = count
        games = {gid: (rules, ended, abandoned) for gid, rules, ended, abandoned in
                 db.execute("SELECT id, rules, ended_at, abandoned FROM games")
                 if gid > since}
        names = {(gid, seat): name for gid, seat, name in
                 db.execute("SELECT game_id, seat, name FROM players")}
        per_rules: dict[str, list[int]] = {}   # preset: [games, turns, score sum]
        for rules, ended, abandoned in games.values():
            row = per_rules.setdefault(_preset(rules), [0, 0, 0])
            row[0] += ended is not None and not abandoned
        rounds = sum(1 for gid, in db.execute("SELECT game_id FROM rounds") if gid in games)
        shut = 0
        best = []
        for tid, gid, seat, ended, score, was_shut in db.execute(
                "SELECT id, game_id, seat, ended_at, score, shut FROM turns"):
            if gid not in games or ended is None or score is None or (gid, seat) not in names:
                continue
            row = per_rules[_preset(games[gid][0])]
            row[1] += 1
            row[2] += score
            shut += bool(was_shut)
            best.append((score, gid, tid, names[gid, seat]))
        best.sort()
    finally:
        db.close()
    return {
        "since_game": since,
        "games": sum(r[0] for r in per_rules.values()),
        "rounds": rounds, "boxes_shut": shut,
        "average_score": {p: round(r[2] / r[1], 1) for p, r in sorted(per_rules.items())
                          if r[1]},
        "games_per_rules": {p: r[0] for p, r in sorted(per_rules.items())},
        "best": [(score, name, gid) for score, gid, _tid, name in best[:5]],
    }


def shown(audits: dict[str, Any]) -> dict[str, Any]:
    """The same keys out of the store's audits (the best turns as (score, name, game))."""
    keys = ("since_game", "games", "rounds", "boxes_shut", "average_score", "games_per_rules")
    return {**{k: audits[k] for k in keys},
            "best": [(b["score"], b["name"], b["game"]) for b in audits["best"]]}
