"""The language a page speaks: the box's (its ``[box] language``, or the
operator menu's adjustment stored in the database), unless the browser's
``Accept-Language`` asks for another the box speaks. ``?lang=de`` chooses
one outright and is kept in a cookie (a TV's browser set to English can be
pinned to the box's language once). Every answer says which
(``Content-Language``, and ``Vary: Accept-Language, Cookie`` for caches);
the page itself declares it in ``<html lang>``."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import anyio.to_thread

from ...base.i18n import LANGUAGES, choose, speaking
from ...config.settings import read_settings

RECHECK_S = 30.0     # how often the box's stored adjustment is read again
COOKIE = "lang"


def _query_lang(query: bytes) -> str | None:
    values = parse_qs(query.decode("latin-1")).get("lang", [])
    return values[-1] if values and values[-1] in LANGUAGES else None


def _cookie_lang(header: bytes) -> str | None:
    for part in header.decode("latin-1").split(";"):
        name, _sep, value = part.strip().partition("=")
        if name == COOKIE and value in LANGUAGES:
            return value
    return None


class BoxLanguage:
    """The box's language as the web process sees it: the config file's,
    overlaid by the menu's adjustment, read again every :data:`RECHECK_S` in a
    worker thread (never on the event loop; a locked or unreadable database
    keeps the last value)."""

    def __init__(self, db_path: Path, configured: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.db_path, self.configured, self.clock = db_path, configured, clock
        self._value, self._read_at = configured, -RECHECK_S

    def _read(self) -> str:
        try:
            stored = read_settings(self.db_path).get("language")
        except (sqlite3.Error, OSError, ValueError):
            return self._value
        return stored if stored in LANGUAGES else self.configured

    async def __call__(self) -> str:
        now = self.clock()
        if now - self._read_at >= RECHECK_S:
            self._read_at = now
            self._value = await anyio.to_thread.run_sync(self._read)
        return self._value


def speaking_pages(app: Any, box_language: Callable[[], Awaitable[str]]) -> Any:
    """ASGI middleware: each request answered in its language."""
    async def middleware(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        pinned = _query_lang(scope.get("query_string", b""))
        kept = _cookie_lang(headers.get(b"cookie", b""))
        code = pinned or kept or choose(headers.get(b"accept-language", b"").decode("latin-1"),
                                        await box_language())

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"content-language", code.encode()),
                         (b"vary", b"Accept-Language, Cookie")]
                if pinned:
                    extra.append((b"set-cookie", f"{COOKIE}={pinned}; Path=/; Max-Age=31536000; "
                                                 "SameSite=Lax".encode()))
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        with speaking(code):
            await app(scope, receive, sending)
    return middleware
