"""``shutbox-hw league web``: the league's own pages (issue 41, item 5), Starlette on
uvicorn behind the box web's gate (web/gate/: the security headers, the ``Host``
check, the guarded protocol's per-address connections and send timeout, an
:class:`AddressLimit` on the downloads), without the box's pages.

- ``/``: the seasons; ``/standings?season=S[&venue=V]``: a season's table, league-wide
  or one venue's (default: the season running today), the same rows as ``league
  standings --json`` (:func:`.tables.season_table`);
- ``/venues``, ``/players``: every venue and every league player;
- ``/players/<name>``: the player across every box: each season's row, their latest
  games; ``/players/<name>/games.csv`` and ``games.json``: all of them, streamed;
- ``/flags``: the games flagged as unlikely, the reason and the decision
  (league/trust.py; ``league flags`` decides);
- ``/join`` (only with ``--join-code CODE``): a form that makes a league player as
  ``league players add`` does, for whoever knows the organiser's join code, and
  shows the secret once (the card code and the player's personal QR code of it).
  Off by default: the pages face the internet, and every name taken there is a name
  a regular cannot have; the organiser who wants it gives the code out at the venues.
  Guarded: the form only from these pages (``Sec-Fetch-Site``/``Origin``), at most
  :data:`JOINS_PER_ADDRESS` players an address and :data:`JOINS_PER_HOUR` in all an
  hour, :data:`JOIN_TRIES` forms an address an hour, a small body; the secret is never
  in a URL or a log line.

Here, among the commands, because it is the one place that may lean on both the box
web's gate and the league (tests/test_layers.py: the web and the league are
independent surfaces); what the pages read is in league/ (views.py, tables.py).

Read-only but for the join form: each page's connection is opened with
``default_transaction_read_only`` on; the join form opens one of its own. Reads run
in worker threads (:data:`PAGE_READS` at once). English
only (the box's catalogue covers the box's pages, not these). Every page is one
column on a phone: the tables scroll sideways inside the page.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import hmac
import io
import json
import logging
import threading
from collections.abc import Callable, Iterator
from html import escape
from typing import Any, TypeVar
from urllib.parse import parse_qs, quote, urlencode

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from ...league.players import PlayerError, add_player
from ...league.rights import privacies
from ...league.standings import SeasonError
from ...league.tables import season_table
from ...league.trust import flags as kept_flags
from ...league.views import GAME_FIELDS, player_games, players, seasons, spellings, venues
from ...players.league_secret import shown
from ...players.names import MAX_NAME_CHARS, name_key
from ...render import qr
from ...web.gate.forms import same_site
from ...web.gate.guard import line, secure
from ...web.gate.limits import AddressLimit

log = logging.getLogger("shutbox_hw.league")
T = TypeVar("T")

PAGE_READS = 4            # pages reading at once (worker threads, a connection each)
RECENT = 50               # games on a player's page (the downloads have them all)
DOWNLOADS = 20            # downloads one address may start ...
DOWNLOADS_WINDOW_S = 60.0  # ... within this long; then 429
STATEMENT_TIMEOUT_MS = 30000
JOINS_PER_ADDRESS = 3      # players one address may make ...
JOINS_WINDOW_S = 3600.0    # ... within this long
JOINS_PER_HOUR = 60        # and all addresses together (a crowd cannot fill the roster)
JOIN_TRIES = 20            # forms one address may send within the hour, whatever became of them
JOIN_FORM_BYTES = 1024

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;padding:0 .8rem 2rem;color:#111;
background:#fafafa;line-height:1.4;font-size:1rem}
nav{display:flex;flex-wrap:wrap;gap:.3rem 1rem;padding:.7rem 0;border-bottom:1px solid #ccc}
nav a{font-weight:600}
h1{font-size:1.4rem;margin:.8rem 0}h2{font-size:1.15rem;margin:1.2rem 0 .4rem}
.wide{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}
table{border-collapse:collapse;min-width:100%}
th,td{padding:.35rem .5rem;border-bottom:1px solid #ddd;text-align:left;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.who{position:sticky;left:0;background:#fafafa}
.note{color:#555;font-size:.9rem}a{color:#0645ad}
.secret{font-family:monospace;font-size:2rem;letter-spacing:.1em;margin:.4rem 0}
.qr svg{width:14rem;max-width:100%;height:auto}
form label{display:block;margin:.6rem 0 .2rem}form input,form button{font:inherit;padding:.4rem}
@media (max-width:600px){body{font-size:.95rem}th,td{padding:.3rem .35rem}}
"""


class Unavailable(Exception):
    """The league's database cannot be reached right now."""


def _connect(dsn: str) -> Any:
    import psycopg
    conn = psycopg.connect(dsn, connect_timeout=5, autocommit=True)
    conn.execute("SET default_transaction_read_only = on")
    conn.execute(f"SET statement_timeout = {STATEMENT_TIMEOUT_MS}")
    return conn


class Database:
    """A few read-only connections, each used by one worker thread at a time."""

    def __init__(self, dsn: str, size: int = PAGE_READS) -> None:
        self.dsn, self.size = dsn, size
        self.idle: list[Any] = []
        self.lock = threading.Lock()
        self.limiter = anyio.CapacityLimiter(size)

    def _take(self) -> Any:
        with self.lock:
            conn = self.idle.pop() if self.idle else None
        if conn is not None and not conn.closed:
            return conn
        return self.open()

    def open(self) -> Any:
        """A new read-only connection (:class:`Unavailable` when it cannot be had)."""
        import psycopg
        try:
            return _connect(self.dsn)
        except psycopg.OperationalError as error:
            log.warning("the league's database: %s", " ".join(str(error).split()))
            raise Unavailable from None

    def _give(self, conn: Any) -> None:
        with self.lock:
            if len(self.idle) < self.size and not conn.closed:
                self.idle.append(conn)
                return
        conn.close()

    def run(self, fn: Callable[[Any], T]) -> T:
        import psycopg
        conn = self._take()
        try:
            result = fn(conn)
        except psycopg.OperationalError as error:
            conn.close()
            log.warning("the league's database: %s", " ".join(str(error).split()))
            raise Unavailable from None
        except BaseException:
            conn.close()
            raise
        self._give(conn)
        return result

    async def read(self, fn: Callable[[Any], T]) -> T:
        return await anyio.to_thread.run_sync(self.run, fn, limiter=self.limiter)

    def close(self) -> None:
        with self.lock:
            for conn in self.idle:
                conn.close()
            self.idle.clear()


# ------------------------------------------------------------------------ HTML

def _cell(value: Any, field: str) -> str:
    if value is None:
        shown = "-"
    elif isinstance(value, bool):
        shown = "yes" if value else "no"
    elif isinstance(value, float):
        shown = f"{value:.2f}" if field not in ("accuracy", "band_accuracy") else f"{value:.1f}"
    elif isinstance(value, list):
        shown = ", ".join(map(str, value))
    else:
        shown = str(value)
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return (f'<td data-field="{escape(field)}"' + (' class="n"' if number else "")
            + f">{escape(shown)}</td>")


def player_url(name: str, tail: str = "") -> str:
    return "/players/" + quote(name, safe="") + tail


def standings_url(season: str, venue: str | None = None) -> str:
    query = {"season": season, **({"venue": venue} if venue is not None else {})}
    return "/standings?" + urlencode(query)


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str]],
          link: str | None = None) -> str:
    """An HTML table of ``rows``: ``columns`` (field, heading); ``link``: the field whose
    cell links to the player's page."""
    head = "".join(f'<th data-field="{escape(f)}"' + (' class="who"' if f == link else "")
                   + f">{escape(h)}</th>" for f, h in columns)
    body = []
    for row in rows:
        cells = []
        for f, _ in columns:
            cell = _cell(row.get(f), f)
            if f == link and row.get(f) is not None:
                cell = (f'<td data-field="{escape(f)}" class="who">'
                        f'<a href="{escape(player_url(row[f]))}">'
                        f"{escape(str(row[f]))}</a></td>")
            cells.append(cell)
        key = row.get("player")
        body.append((f'<tr data-player="{escape(str(key))}">' if key is not None else "<tr>")
                    + "".join(cells) + "</tr>")
    if not rows:
        return '<p class="note">Nothing here yet.</p>'
    return (f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>'
            f'{"".join(body)}</tbody></table></div>')


def page(title: str, body: str, status: int = 200,
         headers: dict[str, str] | None = None) -> HTMLResponse:
    return HTMLResponse(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{escape(title)} · the league</title><link rel="stylesheet" href="/style.css">'
        '</head><body><nav><a href="/">Seasons</a><a href="/venues">Venues</a>'
        '<a href="/players">Players</a><a href="/flags">Flags</a></nav>'
        f"<h1>{escape(title)}</h1>{body}</body></html>", status_code=status, headers=headers)


STANDINGS_COLUMNS = [("rank", "Rank"), ("player", "Player"), ("games", "Games"),
                     ("wins", "Wins"), ("points", "Points"), ("turn_score", "Turn score"),
                     ("boxes_shut", "Boxes shut"), ("accuracy", "Accuracy %"),
                     ("rated", "Rated moves"), ("band", "Band"), ("rating", "Rating"),
                     ("luck", "Luck"), ("luck_turns", "Luck turns")]
GAME_COLUMNS = [("ended_at", "Ended (UTC)"), ("venue", "Venue"), ("box", "Box"),
                ("game", "Game"), ("state", "State"), ("rules", "Rules"), ("dice", "Dice"),
                ("players", "Players"), ("won", "Won"), ("points", "Points"),
                ("turn_score", "Turn score"), ("boxes_shut", "Boxes shut"),
                ("rated", "Rated moves"), ("best", "Best moves"), ("luck", "Luck"),
                ("excluded", "Excluded")]


def _season_line(s: Any) -> str:
    return (f"{s.starts} to {s.ends}; rules {', '.join(s.rules) or 'any'}; venues "
            f"{', '.join(s.venues) or 'any'}; ranked from {s.min_games} game(s)"
            + ("; only games with software or module dice" if s.checked_dice else ""))


# ------------------------------------------------------------------------ the app

def _csv_line(values: list[Any]) -> str:
    out = io.StringIO()
    csv.writer(out).writerow(["" if v is None else "; ".join(map(str, v))
                              if isinstance(v, list) else v for v in values])
    return out.getvalue()


def _file_name(name: str) -> str:
    kept = "".join(c if c.isascii() and c.isalnum() else "-" for c in name).strip("-")
    return kept or "player"


class LeagueApp:
    """The ASGI app (``stop``: nothing streams for ever here, so nothing to end)."""

    def __init__(self, dsn: str, names: frozenset[str],
                 today: Callable[[], dt.date] = lambda: dt.datetime.now(dt.UTC).date(),
                 join_code: str | None = None) -> None:
        self.dsn = dsn
        self.join_code = join_code          # None: no join form
        self.joins = AddressLimit(JOINS_PER_ADDRESS, JOINS_WINDOW_S)
        self.joins_all = AddressLimit(JOINS_PER_HOUR, 3600.0)
        self.join_tries = AddressLimit(JOIN_TRIES, JOINS_WINDOW_S)
        self.db = Database(dsn)
        self.today = today
        self.downloads = AddressLimit(DOWNLOADS, DOWNLOADS_WINDOW_S)
        app = Starlette(routes=[
            Route("/", self.home), Route("/style.css", self.style),
            Route("/standings", self.standings), Route("/venues", self.venues),
            Route("/players", self.players), Route("/flags", self.flags),
            Route("/join", self.join_form, methods=["GET"]),
            Route("/join", self.join, methods=["POST"]),
            Route("/players/{name:path}/games.csv", self.games_csv),
            Route("/players/{name:path}/games.json", self.games_json),
            Route("/players/{name:path}", self.player)],
            exception_handlers={HTTPException: self.refused, Unavailable: self.unavailable})
        self.asgi = secure(app, names)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.asgi(scope, receive, send)

    def stop(self) -> None:
        self.db.close()

    async def refused(self, request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return line(error.status_code, error.detail)

    async def unavailable(self, request: Request, error: Exception) -> Response:
        return line(503, "the league's database cannot be reached right now: try again "
                         "in a moment")

    async def style(self, request: Request) -> Response:
        return PlainTextResponse(STYLE, media_type="text/css",
                                 headers={"cache-control": "max-age=3600"})

    async def home(self, request: Request) -> Response:
        found = await self.db.read(seasons)
        items = "".join(
            f'<li><a href="{escape(standings_url(s.name))}">{escape(s.name)}</a>'
            f'<br><span class="note">{escape(_season_line(s))}</span></li>' for s in found)
        return page("Seasons", f"<ul>{items}</ul>" if found else
                    '<p class="note">No season yet (shutbox-hw league season makes one).</p>')

    async def standings(self, request: Request) -> Response:
        name = request.query_params.get("season")
        venue = request.query_params.get("venue")
        if venue is not None and not venue.strip():
            raise HTTPException(400, "venue: empty")

        def read(conn: Any) -> tuple[Any, list[dict[str, Any]], list[str]]:
            season, rows = season_table(conn, name, venue.strip() if venue else None,
                                        self.today())
            where = [v for v, in conn.execute(     # the venues with a table kept
                "SELECT DISTINCT venue FROM kept_standings WHERE season = %s"
                " AND venue <> '' ORDER BY venue", (season.name,))]
            return season, rows, where
        try:
            season, rows, where = await self.db.read(read)
        except SeasonError as error:
            raise HTTPException(404, str(error)) from None
        links = " · ".join(
            ([f'<a href="{escape(standings_url(season.name))}">the whole league</a>']
             if venue else []) + [f'<a href="{escape(standings_url(season.name, v))}">'
                                  f"{escape(v)}</a>" for v in where if v != venue])
        title = f"{season.name}" + (f" at {venue.strip()}" if venue else "")
        return page(title, f'<p class="note">{escape(_season_line(season))}</p>'
                    + (f'<p>Venues: {links}</p>' if links else "")
                    + table(rows, STANDINGS_COLUMNS, link="player")
                    + '<p class="note">Points: 3 for a win alone, 1 for a shared win. '
                      "Luck: points of score the dice gave (+) or took (-).</p>")

    async def venues(self, request: Request) -> Response:
        rows = await self.db.read(venues)
        return page("Venues", table(rows, [("venue", "Venue"), ("boxes", "Boxes"),
                                           ("games", "Finished games"),
                                           ("last", "Last game (UTC)")]))

    async def players(self, request: Request) -> Response:
        rows = await self.db.read(players)
        joining = ('<p><a href="/join">Join the league</a></p>' if self.join_code is not None
                   else "")
        return page("Players", joining + table(rows, [("player", "Player"), ("games", "Games"),
                                            ("venues", "Venues"), ("boxes", "Boxes"),
                                            ("last", "Last game (UTC)")], link="player"))

    async def flags(self, request: Request) -> Response:
        rows = await self.db.read(kept_flags)
        for row in rows:
            row["games"] = [f"{g['box']}/{g['game']}" for g in row["games"]]
            row["decision"] = row["decision"] or "undecided"
        reasons = "".join(f'<p id="flag-{int(row["id"])}" data-field="reason"><b>#{int(row["id"])}'
                          f' {escape(row["kind"])}</b>: {escape(row["reason"])}</p>'
                          for row in rows)
        return page("Flags", '<p class="note">Games the league finds unlikely; the '
                    "operator decides with shutbox-hw league flags --clear ID or --exclude "
                    "ID (excluded games count in no season).</p>"
                    + table(rows, [("id", "ID"), ("kind", "Kind"), ("decision", "Decision"),
                                   ("season", "Season"), ("player", "Player"),
                                   ("games", "Games"), ("found_at", "Found (UTC)")])
                    + (f"<h2>Why</h2>{reasons}" if rows else ""))

    async def _who(self, request: Request) -> tuple[str, list[str]]:
        name = request.path_params["name"]
        key, names = await self.db.read(lambda conn: spellings(conn, name))
        if names and key in await self.db.read(privacies):
            names = []     # kept off the public pages, or initials only (league/rights.py)
        if not names:
            raise HTTPException(404, f"no league player named {name[:60]!r}")
        return key, names

    async def player(self, request: Request) -> Response:
        key, names = await self._who(request)

        def read(conn: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                     dict[str, Any] | None]:
            mine: list[dict[str, Any]] = []
            for season in seasons(conn):     # the player's row of each season's table
                _, rows = season_table(conn, season.name, None, self.today())
                mine += [row for row in rows if name_key(row["player"]) == key]
            recent = [g for batch in player_games(conn, key, names, RECENT) for g in batch]
            return mine, recent, next((p for p in players(conn) if p["key"] == key), None)
        mine, recent, summary = await self.db.read(read)
        shown = summary["player"] if summary else names[0]
        totals = (f'<p data-field="summary">{summary["games"]} finished game(s) at '
                  f'{len(summary["venues"])} venue(s): {escape(", ".join(summary["venues"]))}'
                  "</p>") if summary else ""
        downloads = (f'<p>All games: <a href="{escape(player_url(shown, "/games.csv"))}">'
                     f'CSV</a> · <a href="{escape(player_url(shown, "/games.json"))}">JSON'
                     "</a></p>")
        return page(shown, totals + downloads + "<h2>Seasons</h2>"
                    + table(mine, [("season", "Season"), *STANDINGS_COLUMNS[:1],
                                   *STANDINGS_COLUMNS[2:]])
                    + f"<h2>Latest games (up to {RECENT})</h2>" + table(recent, GAME_COLUMNS))

    def _limited(self, request: Request) -> None:
        address = request.client.host if request.client else "?"
        if not self.downloads.allow(address):
            raise HTTPException(429, f"at most {DOWNLOADS} downloads a minute from one "
                                     "address: try again in a minute")

    async def _own_connection(self) -> Any:
        """A connection of a download's own (its read may outlast a page's), opened
        before the answer starts: a database away is a 503, not a cut-off file."""
        return await anyio.to_thread.run_sync(self.db.open, limiter=self.db.limiter)

    @staticmethod
    def _stream(conn: Any, key: str, names: list[str],
                make: Callable[[dict[str, Any]], str], head: str, tail: str,
                joiner: str) -> Iterator[str]:
        """The player's games, a batch at a time, from ``conn`` (closed at the end, or
        when the client goes: the guarded protocol drops a client that takes nothing
        for its send timeout)."""
        try:
            yield head
            first = True
            for batch in player_games(conn, key, names):
                yield ("" if first else joiner) + joiner.join(make(g) for g in batch)
                first = False
            yield tail
        finally:
            conn.close()

    async def games_csv(self, request: Request) -> Response:
        key, names = await self._who(request)
        self._limited(request)
        chunks = self._stream(await self._own_connection(), key, names,
                              lambda g: _csv_line([g[f] for f in GAME_FIELDS]),
                              _csv_line(list(GAME_FIELDS)), "", "")
        return StreamingResponse(chunks, media_type="text/csv; charset=utf-8", headers={
            "content-disposition": f'attachment; filename="{_file_name(names[0])}-games.csv"'})

    async def games_json(self, request: Request) -> Response:
        key, names = await self._who(request)
        self._limited(request)
        head = '{"player": ' + json.dumps(key, ensure_ascii=False) + ', "names": ' \
            + json.dumps(names, ensure_ascii=False) + ', "games": ['
        chunks = self._stream(await self._own_connection(), key, names,
                              lambda g: "\n" + json.dumps(g, ensure_ascii=False),
                              head, "\n]}\n", ",")
        return StreamingResponse(chunks, media_type="application/json", headers={
            "content-disposition": f'attachment; filename="{_file_name(names[0])}-games.json"'})


    # ------------------------------------------------------------------ joining

    def _join_on(self) -> str:
        if self.join_code is None:
            raise HTTPException(404, "joining the league here is off: ask the organiser")
        return self.join_code

    async def join_form(self, request: Request) -> Response:
        self._join_on()
        return page("Join the league", join_form())

    async def join(self, request: Request) -> Response:
        wanted = self._join_on()
        if not same_site(request):
            raise HTTPException(403, "this form was sent from another site: open the "
                                     "league's join page itself")
        address = request.client.host if request.client else "?"
        if not self.join_tries.allow(address) or self.joins.full(address) \
                or self.joins_all.full(""):
            raise HTTPException(429, "too many players joined from here within the hour: "
                                     "try again later")
        fields = await _form(request)
        name = (fields.get("name") or [""])[0]
        code = (fields.get("code") or [""])[0]
        if not hmac.compare_digest(_tidy_code(code).encode(), _tidy_code(wanted).encode()):
            self.joins.count(address)      # a wrong join code costs a try
            return page("Not joined", "<p>That is not the league's join code: ask the "
                        "organiser for it.</p>" + join_form(name), 403)
        try:
            added = await anyio.to_thread.run_sync(self._add, name,
                                                   limiter=self.db.limiter)
        except PlayerError as error:
            said = str(error).removeprefix("NAME: ")
            said = said[:1].upper() + said[1:]
            return page("Not joined", f'<p class="reason">{escape(said)}.</p>'
                        + join_form(name), 409)
        self.joins.count(address)
        self.joins_all.count("")
        log.info("league web: %s joined the league (id %d)", added.name, added.player)
        return page(f"Welcome to the league, {added.name}", secret_card(added.code),
                    headers={"cache-control": "no-store"})

    def _add(self, name: str) -> Any:
        import psycopg
        try:
            conn = psycopg.connect(self.dsn, connect_timeout=5, autocommit=True)
        except psycopg.OperationalError as error:
            log.warning("the league's database: %s", " ".join(str(error).split()))
            raise Unavailable from None
        try:
            return add_player(conn, name)
        except psycopg.errors.UniqueViolation:    # another request for the name, just then
            raise PlayerError("the league has a player by that name already") from None
        except psycopg.OperationalError as error:
            log.warning("the league's database: %s", " ".join(str(error).split()))
            raise Unavailable from None
        finally:
            conn.close()


def _tidy_code(text: str) -> str:
    return "".join(text.split()).upper()


async def _form(request: Request) -> dict[str, list[str]]:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > JOIN_FORM_BYTES):
        raise HTTPException(413, f"the form is larger than {JOIN_FORM_BYTES} bytes")
    body = b""
    try:
        with anyio.fail_after(10):
            async for chunk in request.stream():
                body += chunk
                if len(body) > JOIN_FORM_BYTES:
                    raise HTTPException(413, f"the form is larger than {JOIN_FORM_BYTES} bytes")
    except TimeoutError:
        raise HTTPException(408, "the form did not arrive within 10 s") from None
    try:
        return parse_qs(body.decode("utf-8", "replace"), max_num_fields=3)
    except ValueError:
        raise HTTPException(400, "a form of at most 3 fields") from None


def join_form(name: str = "") -> str:
    return ('<p>Choose the name you play under at every box of the league (at most '
            f'{MAX_NAME_CHARS} characters). You get a secret that only you hold: with it '
            "you claim your seat at any box; without it nobody can play under your name."
            '</p><form method="post" action="/join"><label for="name">Your name</label>'
            f'<input id="name" name="name" maxlength="{MAX_NAME_CHARS}" required '
            f'value="{escape(name)}" autocomplete="nickname">'
            '<label for="code">The league\'s join code (from the organiser)</label>'
            '<input id="code" name="code" required autocomplete="off" spellcheck="false">'
            ' <button>Join</button></form>')


def secret_card(code: str) -> str:
    """The secret, shown once: the card code, the personal QR code of it (any phone's
    camera or photo app reads it back as text to paste at a box), a link saving it."""
    picture = qr.svg(shown(code))
    saved = base64.b64encode(picture.encode()).decode()
    return (f'<p>Your secret:</p><p class="secret" data-field="secret">{escape(shown(code))}'
            f'</p><div class="qr" data-field="qr">{picture}</div>'
            f'<p><a download="league-card.svg" href="data:image/svg+xml;base64,{saved}">'
            "Save the picture</a></p><p>Write it down or save the picture now: this page "
            "shows it once. The league keeps only a scrambled form of it, and nobody can "
            "show it to you again (a lost secret: the organiser makes you a new one). At a "
            "box of the league, scan the box's code with your phone, type your name and "
            "this secret (or paste it from the picture), and you have your seat.</p>")


def make_app(dsn: str, names: frozenset[str], join_code: str | None = None) -> LeagueApp:
    return LeagueApp(dsn, names, join_code=join_code)
