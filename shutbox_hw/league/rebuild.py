"""``shutbox-hw league rebuild``: every rating and standing computed again from the
seasons and the games alone (:func:`.ratings.compute`), compared with what the league
kept (:func:`.ratings.read_kept`). It writes nothing: after a difference,
``shutbox-hw league ratings --dsn DSN`` makes the kept values the rebuilt ones.

A difference is one of: a value kept but not rebuilt (``extra``), rebuilt but not kept
(``missing``), or kept with another value (``differs``, per field). Numbers are compared
exactly: the kept ones are the same computation's, stored as double precision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .ratings import ALL_VENUES, Kept, compute, read_kept


@dataclass(frozen=True)
class Difference:
    table: str                    # ratings, standings, games
    season: str | None
    venue: str | None             # standings only (None: the whole league)
    player: str | None
    kind: str                     # missing, extra, differs
    field: str | None = None
    kept: Any = None
    rebuilt: Any = None

    def as_json(self) -> dict[str, Any]:
        return {"table": self.table, "season": self.season, "venue": self.venue,
                "player": self.player, "kind": self.kind, "field": self.field,
                "kept": self.kept, "rebuilt": self.rebuilt}

    def line(self) -> str:
        where = " ".join(part for part in (
            self.table, f"season {self.season!r}" if self.season is not None else "",
            f"venue {self.venue!r}" if self.venue is not None else "",
            f"player {self.player!r}" if self.player is not None else "") if part)
        if self.kind == "missing":
            return f"{where}: not kept (rebuilt: {self.rebuilt})"
        if self.kind == "extra":
            return f"{where}: kept, but the games give nothing (kept: {self.kept})"
        return f"{where}: {self.field} kept {self.kept}, rebuilt {self.rebuilt}"


def _compare(table: str, kept: dict[Any, dict[str, Any]], rebuilt: dict[Any, dict[str, Any]],
             where: Any) -> list[Difference]:
    found: list[Difference] = []
    for key in sorted(set(kept) | set(rebuilt)):
        season, venue, player = where(key)
        if key not in kept:
            found.append(Difference(table, season, venue, player, "missing",
                                    rebuilt=rebuilt[key]))
        elif key not in rebuilt:
            found.append(Difference(table, season, venue, player, "extra", kept=kept[key]))
        else:
            for name in sorted(set(kept[key]) | set(rebuilt[key])):
                a, b = kept[key].get(name), rebuilt[key].get(name)
                if a != b:
                    found.append(Difference(table, season, venue, player, "differs",
                                            name, a, b))
    return found


def differences(kept: Kept, rebuilt: Kept) -> list[Difference]:
    """What ``kept`` holds that ``rebuilt`` does not, and the reverse."""
    found = _compare("ratings", kept.ratings, rebuilt.ratings,
                     lambda key: (key[0], None, key[1]))
    found += _compare("standings", kept.standings, rebuilt.standings,
                      lambda key: (key[0], None if key[1] == ALL_VENUES else key[1], key[2]))
    found += _compare("luck", {k: {"luck": v[0], "turns": v[1]} for k, v in kept.luck.items()},
                      {k: {"luck": v[0], "turns": v[1]} for k, v in rebuilt.luck.items()},
                      lambda key: (None, None, f"{key[3]} (box {key[0]} epoch {key[1]} game"
                                   f" {key[2]})"))
    if kept.games != rebuilt.games:
        found.append(Difference("games", None, None, None, "differs", "finished games",
                                kept.games, rebuilt.games))
    return found


def rebuild(conn: Any) -> tuple[Kept, list[Difference]]:
    """The rebuilt values and how the kept ones differ (one snapshot for both reads)."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        rebuilt = compute(conn)
        kept = read_kept(conn)
    return rebuilt, differences(kept, rebuilt)
