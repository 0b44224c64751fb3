"""A season's table as the league shows it (issue 41, item 5): the one function behind
``shutbox-hw league standings --json`` and the league's pages (``league web``), so the
two never disagree.

:func:`season_table` finds the season (by name, else the one running ``today``), draws
its standings from the games (:func:`.standings.standings`, league-wide or one venue's)
and puts the season's kept ratings, bands and luck beside each ranked player
(:func:`.ratings.season_ratings`; every field ``None`` while none is kept). Each row ends with
``season``: the season's name.

The boxes' TVs show the same table between games (issue 41, item 5): :func:`box_tables`
makes, for each box the league knows, its venue's table and the league's top players of
the season running today, and :class:`TablePublisher` (run by every ingest, beside the
roster's) publishes each retained on ``shutbox/league/table/<box>``, where the box keeps
it (store/tables/league_table.py) so that its TV shows it with the pub's internet down.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

from ..players.names import name_key
from .ratings import FIELDS, season_ratings
from .rights import privacies, shown_rows
from .standings import Season, SeasonError, find_season, season_games, standings

log = logging.getLogger("shutbox_hw.league")


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


# ---------------------------------------------------------------- the boxes' TV tables

BOX_TABLE = "shutbox/league/table"   # + "/<box>": that box's venue's table, retained
VENUE_ROWS = 8            # the venue's table on the TV: its first rows
TOP_ROWS = 5              # the league's top players beside it
# bytes: the message with its topic (a box's id: 64 characters at most) and MQTT's
# header under the 4 KB a box takes in one packet
MAX_TABLE = 3900
TV_FIELDS = ("rank", "player", "games", "wins", "points")
TABLE_LOOK_S = 5.0        # the tables looked at (published if they changed) at most this often


def box_table_topic(box: str) -> str:
    return f"{BOX_TABLE}/{box}"


def _tv_rows(rows: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    return [{k: row[k] for k in TV_FIELDS} for row in rows[:count]]


def fitted(payload: dict[str, Any], limit: int = MAX_TABLE) -> bytes:
    """The message as JSON, its tables' last rows left off until it fits ``limit`` bytes
    (the box refuses a longer packet unread: a venue of long names loses its tail)."""
    payload = {**payload, "table": list(payload["table"]), "top": list(payload["top"])}
    while True:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
        if len(text) <= limit or not (payload["table"] or payload["top"]):
            return text
        longer = "table" if len(payload["table"]) >= len(payload["top"]) else "top"
        payload[longer] = payload[longer][:-1]


def box_tables(conn: Any, today: dt.date, as_of: dt.datetime) -> dict[str, dict[str, Any]]:
    """box -> what its TV shows between games: the season running ``today`` (as
    :func:`season_table` finds it), its venue's table (a box without a venue is a venue
    of its own, as the standings count it) and the league's top players, both as
    ``league standings`` ranks them, the public's view (privacy honoured), and
    ``as_of``. No season: ``season`` null and no rows (the TV shows no table)."""
    boxes = {str(b): str(v) for b, v in conn.execute(
        "SELECT box, coalesce(venue, box) FROM boxes ORDER BY box")}
    stamp = as_of.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        season = find_season(conn, None, today)
    except SeasonError:
        return {box: {"v": 1, "season": None, "venue": venue, "as_of": stamp,
                      "table": [], "top": []} for box, venue in boxes.items()}
    games = season_games(conn, season)
    private = privacies(conn)
    top = _tv_rows(shown_rows(standings(games, season, None), private), TOP_ROWS)
    by_venue: dict[str, list[dict[str, Any]]] = {}
    for venue in sorted(set(boxes.values())):
        by_venue[venue] = _tv_rows(shown_rows(standings(games, season, venue), private),
                                   VENUE_ROWS)
    return {box: {"v": 1, "season": season.name, "venue": venue, "as_of": stamp,
                  "table": by_venue[venue], "top": top} for box, venue in boxes.items()}


class TablePublisher:
    """Each box's TV table on the league's broker, retained on
    ``shutbox/league/table/<box>`` (:func:`box_tables`): when the ingest connects, and
    when the standings may have changed (games stored, the kept values refreshed, a
    player's privacy, a box's venue, the seasons, the date), at most every
    :data:`TABLE_LOOK_S`: each box's message then carries the time of that look
    (``as_of``), so a TV says how fresh its table is."""

    def __init__(self, every_s: float = TABLE_LOOK_S) -> None:
        self.every_s = every_s
        self._mark: tuple[Any, ...] | None = None
        self._client: Any = None
        self._next = 0.0

    def connected(self, client: Any) -> None:
        self._client, self._mark = client, None

    def tick(self, conn: Any, now: float) -> int:
        if self._client is None or now < self._next:
            return 0
        self._next = now + self.every_s
        today = dt.datetime.now(dt.UTC)
        mark = (*conn.execute(
            "SELECT (SELECT count(*) FROM games), (SELECT max(refreshed_at) FROM kept_state),"
            " (SELECT string_agg(key || privacy, ',' ORDER BY key) FROM league_players),"
            " (SELECT string_agg(box || ':' || coalesce(venue, ''), ',' ORDER BY box)"
            " FROM boxes), (SELECT md5(string_agg(s::text, ',' ORDER BY s.name))"
            " FROM seasons s)").fetchone(), today.date())
        if mark == self._mark:
            return 0
        sent = 0
        for box, payload in box_tables(conn, today.date(), today).items():
            self._client.publish(box_table_topic(box), fitted(payload), qos=1, retain=True)
            sent += 1
        self._mark = mark
        if sent:
            log.info("league ingest: published the boxes' tables (%d box(es))", sent)
        return sent
