"""The claims socket's protocol: one JSON object on one line in, one line out.

In: ``{"claim": {"name": "Anna", "code": "K7M2QD", "phone": "192.168.1.31"}}`` (a
seat for the game being set up; ``phone``, optional: the address the web heard
it from, one seat each a game; ``secret``, optional: a league player's card code)
or ``{"web": {"url": "http://192.168.1.20:8080/"}}`` (the web pages are running at
that address: the QR codes point there), or ``{"asked": {"ticket": "..."}}`` (what
became of a claim the box asked its players about), or ``{"league_join": {...}}`` (a
phone's request to join the league: claims/league_join.py, answered ``{"ok": true,
"request", "name"}`` or with the reason). Out: ``{"ok": true, "seat": 0,
"player": "Anna", "players": ["Anna", "P2"]}`` or ``{"ok": false, "reason": "..."}``,
the reason a sentence for the phone; a second claim from one phone is answered
``{"ok": false, "asking": "<ticket>", "reason": "..."}`` while the box asks its
players (the same answer to ``asked`` until they have answered). A line is at
most :data:`MAX_LINE` bytes and :data:`MAX_BRACKETS` brackets (never parsed past
that: no recursion).
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

MAX_LINE = 2048      # a claim is a name of 16 characters and a code: a longer line is wrong
MAX_BRACKETS = 64    # a message nests two deep: more brackets than this are not the protocol
READ_TIMEOUT_S = 2.0  # a peer that does not send its whole line within this is dropped


class WireError(Exception):
    """A line that is not the protocol (message: what is wrong, one line)."""


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"


def read_line(sock: socket.socket, timeout_s: float = READ_TIMEOUT_S) -> dict[str, Any]:
    """One line from ``sock``, parsed: a JSON object within ``timeout_s`` in all
    (WireError otherwise: too long, cut short, not JSON, too slow)."""
    deadline = time.monotonic() + timeout_s
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise WireError(f"no whole line within {timeout_s:g} s")
        sock.settimeout(left)
        try:
            chunk = sock.recv(MAX_LINE + 1 - len(data))
        except TimeoutError:
            raise WireError(f"no whole line within {timeout_s:g} s") from None
        if not chunk:
            raise WireError("the line was cut short")
        data += chunk
        if len(data) > MAX_LINE and b"\n" not in data:
            raise WireError(f"a line longer than {MAX_LINE} bytes")
    line = data.split(b"\n", 1)[0]
    if line.count(b"[") + line.count(b"{") > MAX_BRACKETS:
        raise WireError(f"more than {MAX_BRACKETS} brackets")   # never parsed: no recursion
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WireError("not a JSON line") from None
    if not isinstance(message, dict):
        raise WireError("not a JSON object")
    return message


def refused(reason: str) -> dict[str, Any]:
    return {"ok": False, "reason": reason}
