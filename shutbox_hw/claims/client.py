"""The web process's end of the claims socket: one line out, one line back.

Blocking and bounded (the web calls it in a worker thread): a daemon that is not
running, a socket nobody listens on, or a daemon that does not answer within
:data:`ASK_TIMEOUT_S` is :class:`BoxNotAnswering`, which the join page shows as
"the box is not answering" (503), never a traceback.
"""

from __future__ import annotations

import socket
import time
from typing import Any

from .server import ANSWER_TIMEOUT_S, TAKEN_WAIT_S
from .wire import WireError, encode, read_line

ASK_TIMEOUT_S = ANSWER_TIMEOUT_S + TAKEN_WAIT_S + 1.0   # the daemon's own bound, and a margin


class BoxNotAnswering(Exception):
    """The daemon could not be asked (message: why, for the journal)."""


def ask(path: str, message: dict[str, Any], timeout_s: float = ASK_TIMEOUT_S) -> dict[str, Any]:
    """Send ``message`` to the daemon listening on ``path``; its answer."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout_s)
        deadline = time.monotonic() + timeout_s
        try:
            _connect(sock, path, deadline)
            try:
                sock.sendall(encode(message))
            except BrokenPipeError:
                pass    # a busy daemon answers at once and closes: its line is still there
            answer = read_line(sock, timeout_s)
        except (OSError, WireError) as error:
            raise BoxNotAnswering(f"{path}: {error}") from None
    finally:
        sock.close()
    if not isinstance(answer.get("ok"), bool):
        raise BoxNotAnswering(f"{path}: an answer without ok")
    return answer


def _connect(sock: socket.socket, path: str, deadline: float) -> None:
    """Connect, waiting while the daemon's backlog is full (a crowd at once: a
    Unix socket with a timeout says EAGAIN then rather than waiting)."""
    while True:
        try:
            sock.connect(path)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.02)


def claim(path: str, name: str, code: str, phone: str | None = None,
          secret: str | None = None) -> dict[str, Any]:
    """A seat for ``name`` with ``code``; ``phone``: the address the claim came from
    (one seat a phone a game); ``secret``: a league player's (their card code)."""
    message = {"name": name, "code": code}
    if phone is not None:
        message["phone"] = phone
    if secret:
        message["secret"] = secret
    return ask(path, {"claim": message})


def asked(path: str, ticket: str) -> dict[str, Any]:
    """What became of the claim the box is (or was) asking its players about:
    ``{"ok": false, "asking": ticket, ...}`` while it asks, then the seat or why not."""
    return ask(path, {"asked": {"ticket": ticket}})


def league_join(path: str, request: dict[str, Any]) -> dict[str, Any]:
    """Ask the box to send ``request`` (claims/league_join.py: a name and the hash of
    the secret made for it) to the league: ``{"ok": true, "request", "name"}`` or why not."""
    return ask(path, {"league_join": request})


def say_web(path: str, url: str) -> None:
    """Tell the daemon the web pages run at ``url`` (the QR codes point there)."""
    ask(path, {"web": {"url": url}})
