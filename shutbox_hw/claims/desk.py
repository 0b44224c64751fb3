"""The daemon's phone desk: join codes made, claims handed to the controller.

An adapter (``secrets``, the box's clock): whenever the box is being set up
(the controller's phase is idle) and the code it holds is spent (a game started
with it) or has expired, a new one is made, valid :data:`CODE_TTL_MS`, with the
web pages' address for the QR code (None while the web has not said within
:data:`WEB_FRESH_MS` that it runs: no QR). So a code is made at start, when a
game has ended and the box is set up again, and when the last one expired. The
claims the socket's peers sent are turned into
:class:`~shutbox_hw.base.events.SeatClaim` events at the loop's time.

A second claim from one phone is put to the box's players (game/model/join.py):
the phone is answered at once that it waits, with a ticket (``secrets``: only that
phone's page knows it) it asks again with; once the question is answered or has
lapsed, the outcome is kept under that ticket (:meth:`ClaimServer.remember`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from ..base.events import JoinCode, SeatClaim
from ..base.scheduler import Timer
from ..game.machine.controller import Controller
from ..game.model.events import SeatClaimed
from ..game.model.join import Asking
from .server import ClaimServer, Pending
from .wire import refused

CODE_TTL_MS = 5 * 60_000      # a code joins for five minutes, then the box shows a new one
WEB_FRESH_MS = 75_000         # the web says it runs every 30 s (web/join/address.py)
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"   # no 0/O, 1/I: a code read out loud
CODE_LENGTH = 6               # 32**6: a billion codes, and 8 guesses in 10 s at most
TICKET_BYTES = 12             # a question's ticket: 16 characters of base64url


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def join_url(base: str, code: str) -> str:
    """The join page for ``code`` under the web's address ``base``."""
    return f"{base.rstrip('/')}/join/{code}"


class Desk:
    """What the daemon's loop asks at each step (:meth:`due`), and the answer it
    hands back to a phone once the controller has decided (:meth:`answer`)."""

    def __init__(self, server: ClaimServer, timer: Timer,
                 make_code: Callable[[], str] = new_code) -> None:
        self.server = server
        self.timer = timer
        self.make_code = make_code
        self.asking: str | None = None      # the ticket of the question on the box

    def due(self, now: int, controller: Controller) -> tuple[list[JoinCode | SeatClaim],
                                                             list[Pending]]:
        """A new join code when one is due (first), then the claims waiting."""
        events: list[JoinCode | SeatClaim] = []
        settled = controller.state.join.take_settled()
        if settled is not None and self.asking is not None:
            self.server.remember(self.asking, _reply(settled))
            self.asking = None
        code = controller.state.join.code
        url_base = self.server.web_url(now, WEB_FRESH_MS)
        if controller.phase == "idle":
            if code is None or now >= code.until_ms:
                text = self.make_code()
                events.append(JoinCode(text, now + CODE_TTL_MS, now,
                                       url_base and join_url(url_base, text)))
            elif (code.url is None) != (url_base is None):   # the web came or went
                events.append(JoinCode(code.code, code.until_ms, now,
                                       url_base and join_url(url_base, code.code)))
        pending = self.server.take()
        events += [SeatClaim(p.name, "phone", now, p.code, p.phone) for p in pending]
        return events, pending

    def schedule(self, controller: Controller) -> None:
        """The loop's next look: when the code expires, while the box is set up (the web
        saying where it runs wakes the loop itself: claims/server.py); and the socket
        told the current code."""
        code = controller.state.join.code
        self.timer.at(code.until_ms if controller.phase == "idle" and code is not None
                      else None)
        # the code a claim must bear: the socket checks a league player's secret only then
        self.server.say_code(code.code if controller.phase == "idle" and code is not None
                             else None)

    def answer(self, pending: Pending, decided: SeatClaimed | str | None) -> None:
        if isinstance(decided, Asking):
            ticket = self.asking = new_ticket()
            waiting = {**refused(str(decided)), "asking": ticket}
            self.server.remember(ticket, waiting)
            pending.reply(waiting)
        else:
            pending.reply(_reply(decided))


def new_ticket() -> str:
    return secrets.token_urlsafe(TICKET_BYTES)


def _reply(decided: SeatClaimed | str | None) -> dict[str, Any]:
    if isinstance(decided, SeatClaimed):
        return {"ok": True, "seat": decided.seat, "player": decided.player,
                "players": list(decided.players)}
    return refused(decided or "the box did not decide")
