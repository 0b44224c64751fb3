"""The join page's routes: ``GET`` the page, ``POST`` the claim (handed to the daemon
over the claims socket, in a worker thread, at most :data:`ASKS_AT_ONCE` at a time),
``GET .../asked/<ticket>`` what became of a claim the box asks its players about (a
second seat from one phone: the phone waits, looking again every
:data:`LOOK_AGAIN_S`), and the TV's QR code as SVG."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ...base.i18n import N_
from ...claims import client
from ...claims.desk import CODE_LENGTH, CODE_LETTERS, join_url
from ...players.names import MAX_NAME_CHARS, name_key, name_problem, tidy
from ...render import qr
from ...store.read.shown import read_shown
from ...store.tables.capability import Capability, offers
from ...store.tables.league import league_keys
from ...store.tables.roster import recent
from ..content.reader import Reader
from ..gate.forms import form_fields, same_site
from ..gate.limits import AddressLimit
from ..gate.refusals import Refused
from .league import LeagueJoin, in_league
from .page import (
    MAX_SECRET_CHARS,
    answer_page,
    asked_path,
    join_page,
    refusal_page,
    waiting_page,
)

log = logging.getLogger("shutbox_hw.web")

ASKS_AT_ONCE = 4           # claims handed to the daemon at a time (worker threads)
TRIES_PER_ADDRESS = 10     # POSTs from one address ...
TRIES_WINDOW_S = 60.0      # ... within this long; more are 429
MAX_FORM_BYTES = 8192      # a name of 500 characters still gets its reason, not a 413
RECENT_NAMES = 12          # the roster's names offered as buttons
LOOK_AGAIN_S = 2           # a phone waiting for the box's players looks again this often
CODE = re.compile(f"[{CODE_LETTERS}]{{{CODE_LENGTH}}}")
TICKET = re.compile("[A-Za-z0-9_-]{16}")      # claims/desk.py: new_ticket
NOT_ANSWERING = "the box is not answering"
CROSS_SITE = "this form was sent from another site: scan the box's code with your phone"
TOO_MANY = "too many tries from this phone: wait a minute and scan the box again"


class Join:
    """The join pages of one web process: the claims socket (None: seats from a phone
    are off), the pages' address for the QR code, the reads of the roster."""

    def __init__(self, claims_path: str | None, base: str | None,
                 read: Callable[[Callable[[Reader], Any]], Any],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.claims_path, self.base, self.read = claims_path, base, read
        self.limit = AddressLimit(TRIES_PER_ADDRESS, TRIES_WINDOW_S, clock)
        self.asks = anyio.CapacityLimiter(ASKS_AT_ONCE)
        self.league = LeagueJoin(claims_path, read, self._same_site, self.asks, clock)

    def routes(self) -> list[Route]:
        # the QR code holds the address in capitals (render/qr.py): both spellings
        return [Route(f"/{j}/{{code}}", self.page, methods=["GET"]) for j in ("join", "JOIN")] + \
            [Route(f"/{j}/{{code}}", self.claim, methods=["POST"]) for j in ("join", "JOIN")] + \
            [Route("/join/{code}/qr.svg", self.qr_svg),
             Route("/join/{code}/asked/{ticket}", self.asked, methods=["GET"])] + \
            self.league.routes(self._code)      # joining the league (league.py)

    @staticmethod
    def _code(request: Request) -> str:
        code = str(request.path_params["code"]).upper()
        if not CODE.fullmatch(code):
            raise Refused(404, N_("this is not the box's code: scan the box again"))
        return code

    def _on(self) -> str:
        if self.claims_path is None:
            raise Refused(404, N_("seats from a phone are off on this box"))
        return self.claims_path

    async def page(self, request: Request) -> Response:
        code = self._code(request)
        self._on()

        def work(reader: Reader) -> tuple[dict[str, Any] | None, list[str], bool]:
            db = reader.connection()
            picture = read_shown(db, reader.schema)
            names = [p.name for p in recent(db, RECENT_NAMES)] \
                if offers(reader.schema, Capability.PLAYERS) else []
            if offers(reader.schema, Capability.LEAGUE):   # claimed with a secret, typed
                league = league_keys(db)
                names = [n for n in names if name_key(n) not in league]
            return picture, names, in_league(reader)
        picture, names, league = await self.read(work)
        current = (picture or {}).get("join") or {}
        if picture is not None and picture.get("phase") != "idle":
            return HTMLResponse(refusal_page(code, "a game is under way: join the next one",
                                             again=False), status_code=409)
        if current and current.get("code") != code:
            return HTMLResponse(refusal_page(code, "this code has expired: scan the box again",
                                             again=False), status_code=410)
        return HTMLResponse(join_page(code, names, MAX_NAME_CHARS, league))

    async def claim(self, request: Request) -> Response:
        code = self._code(request)
        path = self._on()
        address = request.client.host if request.client else "?"
        if not self._same_site(request):
            return HTMLResponse(refusal_page(code, CROSS_SITE, again=False), status_code=403)
        if not self.limit.allow(address):
            return HTMLResponse(refusal_page(code, TOO_MANY, again=False), status_code=429)
        fields = await form_fields(request, MAX_FORM_BYTES)
        name = (fields.get("pick") or fields.get("name") or [""])[0]
        secret = (fields.get("secret") or [""])[0].strip()    # a league player's card code
        problem = name_problem(name)
        if problem is not None:
            return HTMLResponse(refusal_page(code, problem), status_code=400)
        return await self._answered(code, client.claim, path, tidy(name), code, address,
                                    secret[:MAX_SECRET_CHARS])

    async def asked(self, request: Request) -> Response:
        """What became of the claim the box asks its players about (the ticket its
        answer gave): still waiting, the seat, or why not."""
        code = self._code(request)
        path = self._on()
        ticket = str(request.path_params["ticket"])
        if not TICKET.fullmatch(ticket):
            raise Refused(404, N_("the box no longer knows this question: scan the box again"))
        return await self._answered(code, client.asked, path, ticket)

    async def _answered(self, code: str, ask: Callable[..., dict[str, Any]],
                        *args: Any) -> Response:
        """The daemon asked (in a worker thread) and its answer as the phone's page."""
        try:
            answer = await anyio.to_thread.run_sync(ask, *args, limiter=self.asks)
        except client.BoxNotAnswering as error:
            log.warning("a seat from a phone: %s", error)
            return HTMLResponse(refusal_page(code, NOT_ANSWERING), status_code=503)
        ticket = answer.get("asking")
        if not answer["ok"] and isinstance(ticket, str) and TICKET.fullmatch(ticket):
            reason = str(answer.get("reason") or "")
            return HTMLResponse(waiting_page(code, ticket, reason), status_code=202,
                                headers={"Refresh": f"{LOOK_AGAIN_S}; url="
                                         f"{asked_path(code, ticket)}"})
        if not answer["ok"]:
            reason = str(answer.get("reason") or "refused")
            return HTMLResponse(refusal_page(code, reason, again="scan" not in reason),
                                status_code=503 if reason == NOT_ANSWERING else 409)
        return HTMLResponse(answer_page(int(answer["seat"]), str(answer["player"]),
                                        [str(p) for p in answer.get("players", [])]))

    def _same_site(self, request: Request) -> bool:
        """The form came from the box's own page (its host, or the address phones
        are given): seats are not claimed with another site's visitors' phones."""
        return same_site(request, self.base)

    async def qr_svg(self, request: Request) -> Response:
        code = self._code(request)
        if self.base is None:
            raise Refused(404, N_("the pages have no address phones can reach"))
        return Response(qr.svg(join_url(self.base, code)), media_type="image/svg+xml")
