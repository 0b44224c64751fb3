"""The web app: Starlette routes over the read-only :class:`~.reader.Reader`.

No page writes anything. A bad request gets one line of text with a 4xx
status, never a traceback; a failure of our own is one line with 500 and the
traceback goes to the journal. The backup needs the token from ``[web]
token_file`` (off without one), sent as a form field or ``Authorization:
Bearer``, compared in constant time and never logged; the token never travels
in a URL (URLs end up in logs and browser history).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from ..network.live import live
from ..store.audit import audits
from ..store.fault_log import recent_faults
from ..store.history import DamagedGame, recent_games, scorecard
from . import pages, views
from .assets import LIVE_JS, STYLE
from .reader import Reader, Unavailable

log = logging.getLogger("shutbox_hw.web")

POLL_S = 0.25            # how often the event stream looks at data_version (1 s at most behind)
KEEPALIVE_S = 15.0       # a comment line, so proxies and TVs keep the stream open
MAX_FORM_BYTES = 1024    # the backup form holds one short token
MAX_LIMIT = 1000
MAX_HEADER_BYTES = 8 * 1024
MAX_URL_BYTES = 2 * 1024
MAX_GAME_ID = 2**63 - 1   # SQLite's largest integer
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'; "
                                 b"form-action 'self'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def line(status: int, text: str) -> PlainTextResponse:
    """A one-line answer."""
    return PlainTextResponse(f"{status} {text}\n", status_code=status)


def _limit(request: Request, default: int) -> int:
    raw = request.query_params.get("limit")
    if raw is None:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        raise HTTPException(400, f"limit: expected a whole number 1..{MAX_LIMIT}")
    return int(raw)


class Site:
    """The app's state: the database reader and the backup token (None: backup off)."""

    def __init__(self, db_path: Path, token: str | None,
                 clock: Callable[[], float] = time.time) -> None:
        self.reader = Reader(db_path)
        self.token = None if token is None else token.encode()
        self.clock = clock

    # ------------------------------------------------------------------ pages

    async def live_page(self, request: Request) -> Response:
        return HTMLResponse(pages.live_page())

    async def live_json(self, request: Request) -> Response:
        return JSONResponse(self._live())

    def _live(self) -> dict[str, Any]:
        return live(self.reader.connection(), self.clock())

    async def stream(self, request: Request) -> Response:
        """Server-sent events: the live summary now, then after every change."""
        async def events() -> AsyncIterator[str]:
            seen: Any = object()
            quiet = 0.0
            while True:
                version = self.reader.version()
                if version != seen:
                    seen = version
                    try:
                        yield f"data: {json.dumps(self._live())}\n\n"
                    except Unavailable as error:
                        yield f"event: unavailable\ndata: {json.dumps(str(error))}\n\n"
                    quiet = 0.0
                elif quiet >= KEEPALIVE_S:
                    yield ": keepalive\n\n"
                    quiet = 0.0
                await asyncio.sleep(POLL_S)
                quiet += POLL_S
        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"X-Accel-Buffering": "no"})

    async def tonight(self, request: Request) -> Response:
        return HTMLResponse(views.tonight_html(self.reader.connection(), self.clock(),
                                               self.reader.schema))

    async def history(self, request: Request) -> Response:
        limit = _limit(request, 50)
        return HTMLResponse(views.history_html(self.reader.connection(), limit,
                                               min(limit * 4, MAX_LIMIT), self.reader.schema))

    def _card(self, request: Request) -> dict[str, Any]:
        game = request.path_params["game"]
        if game > MAX_GAME_ID:
            raise HTTPException(404, f"there is no game {str(game)[:20]}")
        try:
            card = scorecard(self.reader.connection(), game, self.reader.schema)
        except DamagedGame as error:
            raise HTTPException(409, str(error)) from None
        if card is None:
            raise HTTPException(404, f"there is no game {game}")
        return card

    async def game(self, request: Request) -> Response:
        return HTMLResponse(pages.scorecard_page(self._card(request)))

    async def game_json(self, request: Request) -> Response:
        return JSONResponse(self._card(request))   # exactly `history --game ID --json`

    async def audits_page(self, request: Request) -> Response:
        return HTMLResponse(pages.audits_page(audits(self.reader.connection(),
                                                     self.reader.schema)))

    async def faults(self, request: Request) -> Response:
        db = self.reader.connection()
        return HTMLResponse(pages.faults_page(audits(db, self.reader.schema),
                                              recent_faults(db, self.reader.schema)))

    async def export(self, request: Request) -> Response:
        return HTMLResponse(pages.layout("Export", pages.EXPORT))

    async def games_csv(self, request: Request) -> Response:
        games = recent_games(self.reader.connection(), 2**62, self.reader.schema)
        rows = [[g["id"], g["started_at"], g["ended_at"], g["preset"],
                 "finished" if g["finished"] else "abandoned" if g["abandoned"] else "playing",
                 g["rounds"], ";".join(g["players"]), ";".join(g["winners"]),
                 ";".join(f"{p}={t}" for p, t in g["totals"].items()),
                 sum(g["boxes_shut"].values())] for g in reversed(games)]
        return _csv("games.csv", pages.csv_text(
            ["game", "started_at", "ended_at", "rules", "state", "rounds", "players",
             "winners", "totals", "boxes_shut"], rows))

    async def turns_csv(self, request: Request) -> Response:
        rows = self.reader.connection().execute(
            "SELECT t.game_id, t.round, p.name, t.started_at, t.ended_at, t.score,"
            " t.final_score, t.shut, t.open_tiles FROM turns t JOIN players p"
            " ON p.game_id = t.game_id AND p.seat = t.seat ORDER BY t.id").fetchall()
        return _csv("turns.csv", pages.csv_text(
            ["game", "round", "player", "started_at", "ended_at", "score", "final_score",
             "shut", "open"], rows))

    # ------------------------------------------------------------------ backup

    async def backup_form(self, request: Request) -> Response:
        return HTMLResponse(pages.layout("Backup", pages.BACKUP_FORM if self.token
                                         else pages.BACKUP_OFF))

    async def backup(self, request: Request) -> Response:
        if self.token is None:
            raise HTTPException(404, "backup is off: no [web] token_file")
        given = await self._given_token(request)
        if given is None or not hmac.compare_digest(given, self.token):
            raise HTTPException(403, "wrong or missing token")
        folder = Path(tempfile.mkdtemp(prefix="shutbox-backup-"))
        target = folder / "shutbox.db"
        try:
            await asyncio.to_thread(self.reader.backup, target)
        except Exception:
            _remove(folder)
            raise
        name = time.strftime("shutbox-%Y%m%d-%H%M.db", time.localtime(self.clock()))
        return FileResponse(target, media_type="application/vnd.sqlite3", filename=name,
                            background=BackgroundTask(_remove, folder))

    async def _given_token(self, request: Request) -> bytes | None:
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            return header[7:].strip().encode()
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_FORM_BYTES):
            raise HTTPException(413, f"the form is larger than {MAX_FORM_BYTES} bytes")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                raise HTTPException(413, f"the form is larger than {MAX_FORM_BYTES} bytes")
        values = parse_qs(body.decode("utf-8", "replace"), max_num_fields=4)
        token = values.get("token", [""])[0].strip()
        return token.encode() if token else None


def _csv(name: str, text: str) -> Response:
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink(missing_ok=True)
    folder.rmdir()


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    detail = error.detail if isinstance(error.detail, str) else ""
    if error.status_code == 404 and detail in ("", "Not Found"):
        detail = "not found"
    if error.status_code == 405:
        detail = f"method {request.method} not allowed here"
    detail = " ".join(detail.split())[:200]
    if _wants_page(request):
        return HTMLResponse(pages.error_page(error.status_code, detail),
                            status_code=error.status_code)
    return line(error.status_code, detail)


def _wants_page(request: Request) -> bool:
    """A browser asking for a page (not the JSON, the CSV or a script) gets the
    answer in the pages' design; anything else the one line."""
    path = request.url.path
    return request.method == "GET" and "text/html" in request.headers.get("accept", "") \
        and not path.endswith((".json", ".csv", ".js", ".css")) and "/stream" not in path


async def _unavailable(request: Request, error: Exception) -> Response:
    return line(503, " ".join(str(error).split())[:200])


async def _crash(request: Request, error: Exception) -> Response:
    log.error("%s %s failed", request.method, request.url.path, exc_info=error)
    return line(500, "internal error (the box's journal has the details)")


def _static(text: str, media: str) -> Callable[[Request], Awaitable[Response]]:
    async def serve(request: Request) -> Response:
        return Response(text, media_type=media, headers={"Cache-Control": "max-age=300"})
    return serve


def _too_big(scope: dict[str, Any]) -> Response | None:
    """Headers or a URL no page of ours needs: refused before any route sees them."""
    if sum(len(k) + len(v) for k, v in scope.get("headers", ())) > MAX_HEADER_BYTES:
        return line(431, f"request headers larger than {MAX_HEADER_BYTES} bytes")
    if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > MAX_URL_BYTES:
        return line(414, f"URL longer than {MAX_URL_BYTES} bytes")
    return None


def secure(app: Any) -> Any:
    """Adds the security headers to every answer (a plain ASGI wrapper: streams untouched)."""
    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        too_big = _too_big(scope)
        if too_big is not None:
            await too_big(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in SECURITY_HEADERS if k not in names]
            await send(message)
        await app(scope, receive, send_with_headers)
    return wrapped


def make_app(db_path: Path, token: str | None, clock: Callable[[], float] = time.time) -> Any:
    site = Site(db_path, token, clock)
    routes = [
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
    ]
    app = Starlette(routes=routes, exception_handlers={
        HTTPException: _http_error, Unavailable: _unavailable, Exception: _crash})
    return secure(app)
