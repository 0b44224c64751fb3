"""The web app: Starlette routes over the read-only :class:`~.reader.Reader`.

No page writes anything. A bad request gets one line of text with a 4xx
status, never a traceback; a failure of our own is one line with 500 and the
traceback goes to the journal. The backup needs the token from ``[web]
token_file`` (off without one), sent as a form field or ``Authorization:
Bearer``, compared in constant time and never logged; the token never travels
in a URL (URLs end up in logs and browser history); :data:`TOKEN_TRIES` wrong
tokens from one address within :data:`TOKEN_WINDOW_S` and it waits (429).

Nothing reads the database on the event loop: pages read in worker threads
(:data:`PAGE_READS` at once, each thread its own connection), the live
summary is computed once per change by :class:`~.feed.LiveFeed` and shared by
every stream, and the exports stream from a cursor (:mod:`.exports`).
"""

from __future__ import annotations

import hmac
import logging
import sqlite3
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from ..base.errors import UserError
from ..base.i18n import DEFAULT as DEFAULT_LANGUAGE
from ..base.i18n import N_, tr
from ..base.textfile import os_problem
from ..store.disk.fault_log import recent_faults
from ..store.read.audit import audits
from ..store.read.history import DamagedGame, recent_games, scorecard
from ..store.read.readonly import connect_readonly
from ..store.tables.schema import sqlite_problem
from .content import exports, pages, views
from .content.assets import LIVE_JS, STYLE
from .content.feed import LiveFeed, Snapshot
from .content.language import BoxLanguage, speaking_pages
from .content.reader import LOCK_WAIT_S, Reader, Readers, Unavailable
from .gate.forms import form_fields
from .gate.guard import box_names, line, secure
from .gate.limits import AddressLimit
from .gate.query import whole as _whole
from .gate.refusals import Refused
from .join import Join
from .players.routes import routes as player_routes

log = logging.getLogger("shutbox_hw.web")

KEEPALIVE_S = 15.0       # a ping event, so proxies keep the stream open and the page knows
RETRY_MS = 2000          # the browser's reconnect delay after the stream ends
PAGE_READS = 4           # pages reading at once (worker threads); the rest wait their turn
MAX_FORM_BYTES = 1024    # the backup form holds one short token
TOKEN_TRIES = 5          # wrong tokens from one address ...
TOKEN_WINDOW_S = 300.0   # ... within this long; then 429 until the window has passed
MAX_LIMIT = 1000
MAX_GAME_ID = 2**63 - 1   # SQLite's largest integer
T = TypeVar("T")


def _limit(request: Request, default: int) -> int:
    limit = _whole(request, "limit", default, MAX_LIMIT)
    assert limit is not None
    return limit


class Site:
    """The app's state: the readers, the live feed and the backup token (None: backup off)."""

    def __init__(self, db_path: Path, token: str | None,
                 clock: Callable[[], float] = time.time, public: bool = True) -> None:
        self.db_path = db_path
        self.readers = Readers(db_path)
        self.feed = LiveFeed(db_path, clock, public)   # the TV page's names: [players] public
        self.token = None if token is None else token.encode()
        self.clock = clock
        self.page_reads = anyio.CapacityLimiter(PAGE_READS)
        self.wrong_tokens = AddressLimit(TOKEN_TRIES, TOKEN_WINDOW_S)

    async def read(self, work: Callable[[Reader], T]) -> T:
        """``work(reader)`` in a worker thread, on that thread's own connection."""
        def run() -> T:
            reader = self.readers.here()
            try:
                return work(reader)
            except sqlite3.Error as error:   # the file damaged or replaced: opened afresh next
                reader.close()
                raise Unavailable(f"the database {sqlite_problem(error)}") from None
        return await anyio.to_thread.run_sync(run, limiter=self.page_reads)

    # ------------------------------------------------------------------ pages

    async def live_page(self, request: Request) -> Response:
        return HTMLResponse(pages.live_page())

    async def live_json(self, request: Request) -> Response:
        return _snapshot_answer(await self.feed.current())

    async def stream(self, request: Request) -> Response:
        """Server-sent events: the live summary now, then after every change; a ping when
        quiet; ends when the web process stops (the page reconnects)."""
        async def events() -> AsyncIterator[str]:
            yield f"retry: {RETRY_MS}\n\n"
            async for snapshot in self.feed.follow(KEEPALIVE_S):
                yield "event: ping\ndata: 1\n\n" if snapshot is None else snapshot.event()
        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    async def _games(self, request: Request, default: int
                     ) -> tuple[list[dict[str, Any]], int, bool]:
        """A page of games, newest first (``?limit=`` of them, older than game ``?before=``);
        the limit, and whether older games follow."""
        limit = _limit(request, default)
        before = _whole(request, "before", None, MAX_GAME_ID)

        def work(reader: Reader) -> list[dict[str, Any]]:
            db = reader.connection()
            return views.with_rules(db, recent_games(db, limit + 1, reader.schema, before))
        games = await self.read(work)
        return games[:limit], limit, len(games) > limit

    async def tonight(self, request: Request) -> Response:
        games, limit, more = await self._games(request, 50)
        now = self.clock()
        figures, ids = await self.read(lambda r: views.tonight_of(r.connection(), now))
        older = more and all(g["id"] in ids for g in games)
        return HTMLResponse(views.tonight_html(figures, ids, games,
                                               pages.pager(request, games, limit, older)))

    async def history(self, request: Request) -> Response:
        games, limit, more = await self._games(request, 50)
        return HTMLResponse(views.history_html(games, limit,
                                               pages.pager(request, games, limit, more)))

    async def _card(self, request: Request) -> dict[str, Any]:
        game = request.path_params["game"]
        if game > MAX_GAME_ID:
            raise Refused(404, N_("there is no game {game}"), game=str(game)[:20])
        try:
            card = await self.read(lambda r: scorecard(r.connection(), game, r.schema))
        except DamagedGame as error:      # said in the page's language to a person
            why = str(error).rpartition("(")[2].rstrip(")")
            raise Refused(409, N_("game {game} is damaged: its record cannot be read back"
                                  " ({why})"), game=game, why=why) from None
        if card is None:
            raise Refused(404, N_("there is no game {game}"), game=game)
        return card

    async def game(self, request: Request) -> Response:
        return HTMLResponse(pages.scorecard_page(await self._card(request)))

    async def game_json(self, request: Request) -> Response:
        return JSONResponse(await self._card(request))   # exactly `history --game ID --json`

    async def audits_page(self, request: Request) -> Response:
        return HTMLResponse(pages.audits_page(await self._audits()))

    async def faults(self, request: Request) -> Response:
        def work(reader: Reader) -> tuple[dict[str, Any], list[dict[str, Any]]]:
            db = reader.connection()
            return audits(db, reader.schema), recent_faults(db, reader.schema)
        return HTMLResponse(pages.faults_page(*await self.read(work)))

    async def _audits(self) -> dict[str, Any]:
        return await self.read(lambda r: audits(r.connection(), r.schema))

    async def export(self, request: Request) -> Response:
        return HTMLResponse(pages.layout(tr("Export"), pages.export_body()))

    async def games_csv(self, request: Request) -> Response:
        schema = (await self.read(lambda r: (r.connection(), r.schema)))[1]
        return _csv("games.csv", exports.games_csv(await self._export_connection(), schema))

    async def turns_csv(self, request: Request) -> Response:
        return _csv("turns.csv", exports.turns_csv(await self._export_connection()))

    async def _export_connection(self) -> Any:
        """A connection of the export's own (the pages' readers say first if it cannot be)."""
        await self.read(lambda r: r.connection())
        try:
            db, _ = await anyio.to_thread.run_sync(
                partial(connect_readonly, self.db_path, LOCK_WAIT_S), limiter=self.page_reads)
        except (sqlite3.Error, UserError) as error:
            raise Unavailable(_why(error)) from None
        return db

    # ------------------------------------------------------------------ backup

    async def backup_form(self, request: Request) -> Response:
        return HTMLResponse(pages.layout(tr("Backup"), pages.backup_body(bool(self.token))))

    async def backup(self, request: Request) -> Response:
        if self.token is None:
            raise Refused(404, N_("backup is off: no [web] token_file"))
        address = request.client.host if request.client else "?"
        if self.wrong_tokens.full(address):
            raise Refused(429, N_("{tries} wrong tokens from this address: wait {minutes}"
                                  " minutes"), tries=TOKEN_TRIES,
                          minutes=f"{TOKEN_WINDOW_S / 60:g}")
        given = await self._given_token(request)
        if given is None or not hmac.compare_digest(given, self.token):
            self.wrong_tokens.count(address)
            raise Refused(403, N_("wrong or missing token"))
        try:
            folder = Path(tempfile.mkdtemp(prefix="shutbox-backup-"))
        except OSError as error:
            raise Unavailable(f"the backup failed: {_why(error)}") from None
        target = folder / "shutbox.db"
        try:
            await anyio.to_thread.run_sync(self.readers.here().backup, target)
        except Exception as error:
            _remove(folder)
            if isinstance(error, OSError | sqlite3.Error | UserError):
                log.warning("backup failed: %s", error)
                raise Unavailable(f"the backup failed: {_why(error)}") from None
            raise
        name = time.strftime("shutbox-%Y%m%d-%H%M.db", time.localtime(self.clock()))
        return FileResponse(target, media_type="application/vnd.sqlite3", filename=name,
                            background=BackgroundTask(_remove, folder))

    async def _given_token(self, request: Request) -> bytes | None:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            return header[7:].strip().encode()
        values = await form_fields(request, MAX_FORM_BYTES)
        token = values.get("token", [""])[0].strip()
        return token.encode() if token else None


def _csv(name: str, chunks: Iterator[str]) -> Response:
    return StreamingResponse(_closing(chunks), media_type="text/csv; charset=utf-8",
                             headers={"Content-Disposition": f'attachment; filename="{name}"'})


async def _closing(chunks: Iterator[str]) -> AsyncIterator[str]:
    """An export's chunks, each read in a worker thread; the export closed (its read
    transaction ended) the moment the answer ends, sent or dropped (a client gone, or
    one that stopped reading: web/gate/protocol.py SEND_TIMEOUT_S), not whenever the
    garbage collector comes."""
    try:
        while (chunk := await anyio.to_thread.run_sync(next, chunks, None)) is not None:
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(close)


def _snapshot_answer(snapshot: Snapshot) -> Response:
    """/live.json: the summary, or 503 (cannot be read now) / 409 (a damaged row)."""
    if snapshot.kind == "data":
        return Response(snapshot.text, media_type="application/json")
    return line(503 if snapshot.kind == "unavailable" else 409, snapshot.reason())


def _why(error: Exception) -> str:
    if isinstance(error, sqlite3.Error):
        return f"the database {sqlite_problem(error)}"
    if isinstance(error, OSError):
        return os_problem(error, "backup copy")
    return str(error)


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink(missing_ok=True)
    folder.rmdir()


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    detail = error.detail if isinstance(error.detail, str) else ""
    refused = error if isinstance(error, Refused) else None
    if error.status_code == 404 and detail in ("", "Not Found"):
        refused = Refused(404, N_("not found"))
    if error.status_code == 405:
        refused = Refused(405, N_("method {method} not allowed here"), method=request.method)
    if refused is not None:
        detail = str(refused.detail)
    if _wants_page(request):     # a person: the page's design, in the page's language
        said = refused.said() if refused is not None else detail
        return HTMLResponse(pages.error_page(error.status_code, " ".join(said.split())[:200]),
                            status_code=error.status_code)
    return line(error.status_code, " ".join(detail.split())[:200])


def _wants_page(request: Request) -> bool:
    """A browser asking for a page (not the JSON, the CSV or a script) gets the
    answer in the pages' design; anything else the one line."""
    path = request.url.path
    return request.method == "GET" and "text/html" in request.headers.get("accept", "") \
        and not path.endswith((".json", ".csv", ".js", ".css")) and "/stream" not in path


async def _unavailable(request: Request, error: Exception) -> Response:
    detail = " ".join(str(error).split())[:200]
    if _wants_page(request):     # e.g. before the box made its database: in the design
        return HTMLResponse(pages.unavailable_page(detail), status_code=503)
    return line(503, detail)


CRASHED = N_("internal error (the box's journal has the details)")


async def _crash(request: Request, error: Exception) -> Response:
    log.error("%s %s failed", request.method, request.url.path, exc_info=error)
    if _wants_page(request):     # a person: the design and the page's language
        return HTMLResponse(pages.error_page(500, tr(CRASHED)), status_code=500)
    return line(500, CRASHED)


def _static(text: str, media: str) -> Callable[[Request], Awaitable[Response]]:
    async def serve(request: Request) -> Response:
        return Response(text, media_type=media, headers={"Cache-Control": "max-age=300"})
    return serve


def make_app(db_path: Path, token: str | None, clock: Callable[[], float] = time.time,
             names: frozenset[str] | None = None, language: str = DEFAULT_LANGUAGE,
             public: bool = True, claims_path: str | None = None,
             join_base: str | None = None) -> Web:
    """The web app (``names``: the host names it answers to, see :mod:`.guard`;
    ``language``: the config file's, see :mod:`.language`; ``public``: ``[players]
    public``, false for initials only on the TV page and the live feed;
    ``claims_path``: the daemon's claims socket, None: no seats from a phone;
    ``join_base``: the pages' address in the QR codes, see :mod:`.join`)."""
    site = Site(db_path, token, clock, public)
    return Web(site, names if names is not None else box_names(""),
               BoxLanguage(db_path, language), Join(claims_path, join_base, site.read))


class Web:
    """The ASGI app, and what the server calls when it stops (:meth:`stop`)."""

    def __init__(self, site: Site, names: frozenset[str],
                 language: Callable[[], Awaitable[str]], join: Join | None = None) -> None:
        self.site = site
        # the refusals and the security headers outermost: whatever fails inside,
        # choosing the language included, is answered with them
        self.app = secure(speaking_pages(_starlette(site, join), language), names)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)

    def stop(self) -> None:
        """Every event stream ends (on the loop's thread)."""
        self.site.feed.stop()


def _starlette(site: Site, join: Join | None = None) -> Starlette:
    routes = [*(join.routes() if join is not None else ()),
        Route("/", site.live_page), Route("/live.json", site.live_json),
        Route("/live/stream", site.stream),
        Route("/tonight", site.tonight), Route("/history", site.history),
        Route("/game/{game:int}", site.game), Route("/game/{game:int}.json", site.game_json),
        Route("/audits", site.audits_page), Route("/faults", site.faults),
        Route("/export", site.export), Route("/export/games.csv", site.games_csv),
        Route("/export/turns.csv", site.turns_csv),
        Route("/backup", site.backup_form, methods=["GET"]),
        Route("/backup", site.backup, methods=["POST"]),
        Route("/static/style.css", _static(STYLE, "text/css")),
        Route("/static/live.js", _static(LIVE_JS, "text/javascript")),
        Route("/health", _static("ok\n", "text/plain")),
        *player_routes(site),
    ]
    return Starlette(routes=routes, exception_handlers={
        HTTPException: _http_error, Unavailable: _unavailable, Exception: _crash})
