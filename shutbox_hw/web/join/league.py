"""Joining the league from the box's join page (issue 41, item 1): a phone at the box.

``GET /join/<code>/league``: a field for the name (the join page links it when the box
holds the league's roster). ``POST`` the same: the web makes the secret and its hash
(claims/league_join.py: :func:`make_request`, in a worker thread), the daemon checks
the name and queues the request for the league in the outbox; the answer page shows
the secret this once, as text and as the player's personal QR code (:func:`card`),
and links ``GET /league-join/<request>?name=NAME``: what became of it, read from the
record (waiting to be sent, sent, joined, or refused because the name was taken),
looking again by itself until the league has answered.

Guarded as the claims are: the form only from the box's own pages (the join page's
same-site check), :data:`JOINS_PER_ADDRESS` a phone each
:data:`JOINS_WINDOW_S`, a small body, the name checked before anything is made; the
secret is never in a URL, a log line or the record (only its hash, in the outbox).
"""

from __future__ import annotations

import base64
import logging
import re
import time
from collections.abc import Callable
from html import escape
from typing import Any
from urllib.parse import quote

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from ...base.i18n import N_, tr
from ...claims import client
from ...claims.league_join import join_state, make_request
from ...players.league_secret import shown
from ...players.names import MAX_NAME_CHARS, name_problem, tidy
from ...render import qr
from ...store.read.shown import read_shown
from ...store.tables.capability import Capability, offers
from ...store.tables.league import league_keys
from ..content.reader import Reader
from ..gate.forms import form_fields
from ..gate.limits import AddressLimit
from ..gate.refusals import Refused
from .page import _page, refusal_page

log = logging.getLogger("shutbox_hw.web")

JOINS_PER_ADDRESS = 5        # requests to join from one phone (a friend or two) ...
JOINS_WINDOW_S = 600.0       # ... within this long; more are 429
MAX_FORM_BYTES = 2048
LOOK_AGAIN_S = 3             # the status page looks again this often while it waits
REQUEST = re.compile("[0-9a-f]{16}")
CROSS_SITE = "this form was sent from another site: scan the box's code with your phone"
TOO_MANY = N_("too many requests to join from this phone: wait ten minutes")


def in_league(reader: Reader) -> bool:
    """The box holds the league's roster (it is a box of a league)."""
    return offers(reader.schema, Capability.LEAGUE) and bool(league_keys(reader.connection()))


def card(code: str) -> str:
    """The secret as the player keeps it: the code in big letters, and their personal QR
    code of it (any phone's camera or photo app reads it back as text, to paste into a
    box's secret field: render/qr.py, the join page's own encoder), with a link that
    saves the picture (a data: URL: no server sees it)."""
    picture = qr.svg(shown(code))
    saved = base64.b64encode(picture.encode()).decode()
    save = tr("Save the picture")
    return (f'<p class="secret" data-field="secret">{escape(shown(code))}</p>'
            f'<div class="qr" data-field="qr">{picture}</div>'
            f'<p><a download="league-card.svg" href="data:image/svg+xml;base64,{saved}">'
            f"{escape(save)}</a></p>")


def form_page(code: str) -> str:
    heading, how = tr("Join the league"), tr(
        "Choose the name you play under at every box of the league. You get a secret "
        "that only you hold: with it you claim your seat; without it nobody can play "
        "under your name.")
    label, send = tr("Your name"), tr("Join")
    return _page(f"<h1>{heading}</h1><p>{how}</p>"
                 f'<form method="post" action="/join/{escape(code)}/league" class="new">'
                 f'<label for="name">{label}</label>'
                 f'<input id="name" name="name" maxlength="{MAX_NAME_CHARS}" required '
                 f'autocomplete="nickname" autocapitalize="words">'
                 f'<button class="take">{send}</button></form>')


def refused(code: str, reason: str, again: bool = True) -> str:
    """The join page's refusal, headed as a request to join (not a seat)."""
    return refusal_page(code, reason, again, heading=tr("Not joined"),
                        back=f"/join/{code}/league")


def status_path(request: str, name: str) -> str:
    return f"/league-join/{request}?name={quote(name, safe='')}"


def secret_page(name: str, code: str, request: str) -> str:
    heading = tr("Your league secret, {name}").format(name=name)
    keep = tr("Write it down or save the picture now: this page shows it once. The box "
              "keeps only a scrambled form of it, and nobody can show it to you again. "
              "At a box, type it (or paste it from the picture) with your name.")
    look = tr("See whether the league has you")
    return _page(f"<h1>{escape(heading)}</h1>{card(code)}<p>{keep}</p>"
                 f'<p><a href="{escape(status_path(request, name))}">{look}</a></p>')


STATES = {
    "waiting": N_("waiting to be sent: the box has no connection to the league now, and "
                  "sends your request as soon as it has"),
    "sent": N_("sent: waiting for the league's answer"),
    "joined": N_("{name} is a league player: claim your seat at any box of the league "
                 "with your name and your secret"),
    "taken": N_("the league has a player called {name} already: your request was "
                "refused; scan the box again and choose another name"),
}


def state_page(state: str, name: str) -> str:
    heading = {"joined": tr("Joined"), "taken": tr("Not joined")}.get(
        state, tr("Waiting for the league"))
    text = tr(STATES[state]).format(name=name)
    return _page(f'<h1 data-state="{escape(state)}">{escape(heading)}</h1>'
                 f'<p class="reason">{escape(text[:1].upper() + text[1:])}.</p>')


class LeagueJoin:
    """The league's join pages of the box's web (``join``: the join pages' own parts)."""

    def __init__(self, claims_path: str | None,
                 read: Callable[[Callable[[Reader], Any]], Any],
                 same_site: Callable[[Request], bool], asks: anyio.CapacityLimiter,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.claims_path, self.read, self.same_site, self.asks = (claims_path, read,
                                                                  same_site, asks)
        self.limit = AddressLimit(JOINS_PER_ADDRESS, JOINS_WINDOW_S, clock)

    def routes(self, code_of: Callable[[Request], str]) -> list[Route]:
        self._code = code_of
        return [Route("/join/{code}/league", self.form, methods=["GET"]),
                Route("/join/{code}/league", self.send, methods=["POST"]),
                Route("/league-join/{request}", self.status, methods=["GET"])]

    def _on(self) -> str:
        if self.claims_path is None:
            raise Refused(404, N_("seats from a phone are off on this box"))
        return self.claims_path

    async def _current(self, code: str) -> None:
        """The page's code is the box's (or a game is under way), and the box is in a
        league."""
        def work(reader: Reader) -> tuple[dict[str, Any] | None, bool]:
            return read_shown(reader.connection(), reader.schema), in_league(reader)
        picture, league = await self.read(work)
        if not league:
            raise Refused(404, N_("joining the league is not offered on this box"))
        current = ((picture or {}).get("join") or {}).get("code")
        if current and current != code:
            raise Refused(410, N_("this code has expired: scan the box again"))

    async def form(self, request: Request) -> Response:
        code = self._code(request)
        self._on()
        await self._current(code)
        return HTMLResponse(form_page(code))

    async def send(self, request: Request) -> Response:
        code = self._code(request)
        path = self._on()
        address = request.client.host if request.client else "?"
        if not self.same_site(request):
            return HTMLResponse(refused(code, CROSS_SITE, again=False), status_code=403)
        if not self.limit.allow(address):
            return HTMLResponse(refused(code, TOO_MANY, again=False), status_code=429)
        await self._current(code)
        fields = await form_fields(request, MAX_FORM_BYTES, max_fields=2)
        name = (fields.get("name") or [""])[0]
        problem = name_problem(name)
        if problem is not None:
            return HTMLResponse(refused(code, problem), status_code=400)
        made = await anyio.to_thread.run_sync(make_request, tidy(name), limiter=self.asks)
        try:
            answer = await anyio.to_thread.run_sync(client.league_join, path, made.request,
                                                    limiter=self.asks)
        except client.BoxNotAnswering as error:
            log.warning("joining the league from a phone: %s", error)
            return HTMLResponse(refused(code, "the box is not answering"), status_code=503)
        if not answer.get("ok"):
            reason = str(answer.get("reason") or "refused")
            return HTMLResponse(refused(code, reason), status_code=409)
        return HTMLResponse(secret_page(str(answer["name"]), made.code, made.request["request"]),
                            headers={"cache-control": "no-store"})

    async def status(self, request: Request) -> Response:
        wanted = str(request.path_params["request"])
        name = request.query_params.get("name", "")
        if not REQUEST.fullmatch(wanted) or name_problem(name) is not None:
            raise Refused(404, N_("the box no longer knows this question: scan the box again"))
        now = await self.read(lambda reader: join_state(reader.connection(), wanted, name))
        page = state_page(now.state, now.name)
        if now.state in ("waiting", "sent"):
            return HTMLResponse(page, status_code=202, headers={
                "Refresh": f"{LOOK_AGAIN_S}; url={status_path(wanted, name)}"})
        return HTMLResponse(page, status_code=200 if now.state == "joined" else 409)

