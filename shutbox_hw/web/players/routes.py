"""The players' routes: ``/players``, ``/players/<name>`` (with ``games.csv`` and
``games.json``) and ``/highscores``.

They read like every page (:meth:`~..app.Site.read`: a worker thread, its own
connection) and the downloads stream from a connection of their own, as the
exports do. A name in a URL is percent-encoded; one the roster does not have
(in any case, with or without its accents) is the design's missing page.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any, Protocol, TypeVar

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from ...base.i18n import N_, tr
from ...store.read import player_games
from ...store.read.highscores import accuracy_of, high_scores
from ...store.tables import player_stats
from ...store.tables.roster import find
from ..content.exports import csv_text
from ..content.reader import Reader, Unavailable
from ..gate.query import whole
from ..gate.refusals import Refused
from . import pages

SCHEMA = 7              # the first schema with players
PAGE = 50               # players, or a player's games, a page
MAX_PAGE = 10_000
T = TypeVar("T")


class Site(Protocol):
    """What these routes use of the app's :class:`~..app.Site` (written out here so
    they do not import the app that imports them)."""

    clock: Callable[[], float]

    async def read(self, work: Callable[[Reader], T]) -> T: ...
    async def _export_connection(self) -> Any: ...


def _number(request: Request, name: str, top: int) -> int | None:
    """A query parameter that must be a whole number 1..top (the pages' own rule)."""
    return whole(request, name, None, top)


def _db(reader: Reader) -> sqlite3.Connection:
    db = reader.connection()
    if reader.schema < SCHEMA:
        raise Unavailable(f"the record is of schema {reader.schema}: the players come with "
                          "the box's next start, which brings it up to date")
    return db


def _player(db: sqlite3.Connection, name: str) -> player_stats.PlayerStats:
    player = find(db, name)
    stats = player_stats.read(db, player.id) if player is not None else None
    if stats is None:
        raise Refused(404, N_("there is no player called {name}"), name=name[:40])
    return stats


class PlayerRoutes:
    def __init__(self, site: Site) -> None:
        self.site = site

    async def leaderboard(self, request: Request) -> Response:
        sort = request.query_params.get("sort", player_stats.DEFAULT_SORT)
        if sort not in player_stats.SORTS:
            raise Refused(400, N_("sort: expected one of {sorts}"),
                          sorts=", ".join(player_stats.SORTS))
        page = _number(request, "page", MAX_PAGE) or 1

        def work(reader: Reader) -> list[tuple[player_stats.PlayerStats, float | None]]:
            db = _db(reader)
            found = player_stats.leaderboard(db, sort, PAGE + 1, (page - 1) * PAGE)
            return [(p, accuracy_of(db, p.player_id)[0]) for p in found]
        found = await self.site.read(work)
        return HTMLResponse(pages.leaderboard_html(found[:PAGE], sort, page, len(found) > PAGE))

    async def player(self, request: Request) -> Response:
        name = request.path_params["name"]
        before = _number(request, "before", 2**63 - 1)

        def work(reader: Reader) -> tuple[Any, ...]:
            db = _db(reader)
            stats = _player(db, name)
            return (stats, accuracy_of(db, stats.player_id),
                    player_games.games_of(db, stats.player_id, PAGE + 1, before),
                    player_games.turn_scores(db, stats.player_id),
                    player_games.skill(db, stats.player_id))
        stats, accuracy, games, scores, skill = await self.site.read(work)
        links = []
        if before is not None:
            links.append('<a href="?">' + tr("newest") + "</a>")
        if len(games) > PAGE:
            links.append(f'<a href="?before={int(games[PAGE - 1]["game"])}">'
                         + tr("older") + "</a>")
        pager = f'<p class="note">{" · ".join(links)}</p>' if links else ""
        return HTMLResponse(pages.player_html(stats, accuracy, games[:PAGE], pager, scores,
                                              skill))

    async def _download(self, request: Request) -> tuple[player_stats.PlayerStats,
                                                         sqlite3.Connection]:
        name = request.path_params["name"]
        stats = await self.site.read(lambda r: _player(_db(r), name))
        return stats, await self.site._export_connection()

    async def games_csv(self, request: Request) -> Response:
        stats, db = await self._download(request)
        return _attachment(f"{_file_name(stats.name)}-games.csv", "text/csv; charset=utf-8",
                           _csv(db, stats.player_id))

    async def games_json(self, request: Request) -> Response:
        stats, db = await self._download(request)
        return _attachment(f"{_file_name(stats.name)}-games.json", "application/json",
                           _json(db, stats))

    async def high_scores(self, request: Request) -> Response:
        now = self.site.clock()
        tables = await self.site.read(lambda r: high_scores(_db(r), now))
        return HTMLResponse(pages.high_scores_html(tables))


def _csv(db: sqlite3.Connection, player_id: int) -> Iterator[str]:
    try:
        yield csv_text(player_games.FIELDS, ())
        for batch in player_games.all_games(db, player_id):
            yield csv_text(None, ([g[f] for f in player_games.FIELDS] for g in batch))
    finally:
        db.close()


def _json(db: sqlite3.Connection, stats: player_stats.PlayerStats) -> Iterator[str]:
    """``{"player": ..., "games": [...]}``, a batch of games at a time."""
    try:
        yield '{"player": ' + json.dumps(stats.name, ensure_ascii=False) + ', "games": ['
        first = True
        for batch in player_games.all_games(db, stats.player_id):
            yield ("" if first else ",") + ",".join(
                "\n" + json.dumps(g, ensure_ascii=False) for g in batch)
            first = False
        yield "\n]}\n"
    finally:
        db.close()


def _file_name(name: str) -> str:
    """A file name from a player's name: letters, digits and dashes only."""
    kept = "".join(c if c.isascii() and c.isalnum() else "-" for c in name).strip("-")
    return kept or "player"


def _attachment(name: str, media: str, chunks: Iterator[str]) -> Response:
    return StreamingResponse(chunks, media_type=media,
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})


def routes(site: Site) -> list[Route]:
    """The routes, the downloads before the page (a name may hold a slash)."""
    r = PlayerRoutes(site)
    return [Route("/players", r.leaderboard), Route("/highscores", r.high_scores),
            Route("/players/{name:path}/games.csv", r.games_csv),
            Route("/players/{name:path}/games.json", r.games_json),
            Route("/players/{name:path}", r.player)]
