"""What every answer gets, and what is refused before any page sees it.

A plain ASGI wrapper (streams pass untouched): the security headers on every
answer, the refusals of our own included; headers or a URL no page needs
(431, 414); and a ``Host`` no name of this box (421: a page of another site
that points its own name at the box's address, DNS rebinding, must not read
the pages; a ``Host`` that does not parse strictly as a name or an address and
a port is refused the same way). Any IP address is accepted as the host (a
rebinding needs a name),
so are ``localhost``, the box's host name (alone, ``.local`` and the usual
home-network suffixes), its full name, the name it listens on and the names
given with ``--host``.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Iterable, MutableMapping
from typing import Any

from starlette.responses import PlainTextResponse, Response

MAX_HEADER_BYTES = 8 * 1024
MAX_URL_BYTES = 2 * 1024
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'; "
                                 b"form-action 'self'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
log = logging.getLogger("shutbox_hw.web")
# what a home router or mDNS appends to a host name
LOCAL_SUFFIXES = ("", ".local", ".lan", ".home", ".home.arpa", ".internal", ".localdomain",
                  ".fritz.box")


def line(status: int, text: str) -> PlainTextResponse:
    """A one-line answer."""
    return PlainTextResponse(f"{status} {text}\n", status_code=status)


def box_names(listen_host: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names this box answers to (lower case, no trailing dot)."""
    own = {socket.gethostname().split(".")[0], "shutbox"}
    names = {n + suffix for n in own for suffix in LOCAL_SUFFIXES}
    names |= {"localhost", socket.getfqdn(), listen_host, *extra}
    return frozenset(n.lower().rstrip(".") for n in names if n)


def host_of(value: str) -> str | None:
    """The host part of a ``Host`` header (the port and an IPv6 address's brackets
    taken off), parsed strictly: None for anything else (``[::1].evil.example``,
    a port that is not a number, an IPv6 address without brackets)."""
    value = value.strip().lower()
    if value.startswith("["):
        inside, bracket, rest = value[1:].partition("]")
        if not bracket or (rest and not (rest[0] == ":" and _port(rest[1:]))):
            return None
        try:
            ipaddress.IPv6Address(inside)
        except ValueError:
            return None
        return inside
    host, sep, port = value.rpartition(":")
    if sep:
        if not _port(port) or ":" in host:
            return None
        value = host
    return value if value and all(c.isalnum() or c in "-._" for c in value) else None


def _port(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 5


def host_allowed(value: str, names: frozenset[str]) -> bool:
    host = host_of(value)
    if host is None:
        return False
    host = host.rstrip(".")
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return host in names


def _refusal(scope: dict[str, Any], names: frozenset[str]) -> Response | None:
    headers = scope.get("headers", ())
    if sum(len(k) + len(v) for k, v in headers) > MAX_HEADER_BYTES:
        return line(431, f"request headers larger than {MAX_HEADER_BYTES} bytes")
    if len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") > MAX_URL_BYTES:
        return line(414, f"URL longer than {MAX_URL_BYTES} bytes")
    host = next((v.decode("latin-1") for k, v in headers if k == b"host"), None)
    if host is not None and not host_allowed(host, names):
        shown = " ".join(host.split())[:60]
        return line(421, f"this box answers to its own names and addresses, not {shown!r}: "
                         f"open it by its address, or start the web with --host {shown}")
    return None


class _Headed:
    """The ASGI send of one answer, adding the security headers (and noting whether
    the answer has started)."""

    def __init__(self, send: Any) -> None:
        self.send, self.started = send, False

    async def __call__(self, message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            names = {k.lower() for k, _ in message.get("headers", [])}
            message["headers"] = list(message.get("headers", [])) + [
                (k, v) for k, v in SECURITY_HEADERS if k not in names]
        await self.send(message)


def secure(app: Any, names: frozenset[str]) -> Any:
    """``app`` behind the refusals above, every answer with the security headers; a
    failure before the answer started is our one-line 500 (uvicorn's own has none of
    the headers), the traceback in the journal."""
    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        headed = _Headed(send)
        refused = _refusal(scope, names)
        if refused is not None:
            await refused(scope, receive, headed)
            return
        try:
            await app(scope, receive, headed)
        except Exception:
            if headed.started:
                raise               # uvicorn closes the connection: the answer is cut short
            log.exception("%s %s failed", scope.get("method"), scope.get("path"))
            await line(500, "internal error (the box's journal has the details)")(
                scope, receive, headed)
    return wrapped
