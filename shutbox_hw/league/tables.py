"""A season's table as the league shows it (issue 41, item 5): the one function behind
``shutbox-hw league standings --json`` and the league's pages (``league web``), so the
two never disagree.

:func:`season_table` finds the season (by name, else the one running ``today``), draws
its standings from the games (:func:`.standings.standings`, league-wide or one venue's)
and puts the season's kept ratings, bands and luck beside each ranked player
(:func:`.ratings.season_ratings`; every field ``None`` while none is kept). Each row ends with
``season``: the season's name.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..players.names import name_key
from .ratings import FIELDS, season_ratings
from .rights import privacies, shown_rows
from .standings import Season, find_season, season_games, standings


def season_table(conn: Any, season_name: str | None, venue: str | None,
                 today: dt.date) -> tuple[Season, list[dict[str, Any]]]:
    """The season and its ranked players, best first (``venue``: that venue's table)."""
    season = find_season(conn, season_name, today)
    rows = standings(season_games(conn, season), season, venue)
    rated = season_ratings(conn, season.name)
    for row in rows:
        row.update(rated.get(name_key(row["player"])) or dict.fromkeys(FIELDS))
        row["season"] = season.name
    # a player's privacy (league/rights.py): hidden left out, the others' ranks kept
    return season, shown_rows(rows, privacies(conn))
