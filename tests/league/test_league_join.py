"""Issue 41, item 1's joining, through the real parts (PostgreSQL, the central broker
on TLS, pub A's broker bridged to it, two ingests, box a1 with its claims socket and
publisher, the real ``shutbox-hw web`` and ``shutbox-hw league web`` processes):

- a player joins from the league's own page (``league web --join-code``), sees the
  secret once (its personal QR code reads back as the secret), and claims a seat at a
  box with it; a taken name, a wrong join code and a form from another site are
  refused with their reasons;
- a phone at box a1 joins from the box's join page: the league makes the player, the
  box's roster gets them, the phone's page says joined, a claim with the secret
  works and a wrong one is refused; a league player's name is refused at once;
- pub A's broker away: the request waits in the outbox and the page says so; it is
  sent when the broker is back; a name the organiser gave someone else meanwhile is
  refused with its reason, another request of the evening joins."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import pytest
import zxingcpp
from claims_box import short_folder
from forked import PIPE, STDOUT, Forked, sb_run
from league_parts import CHECKOUT
from league_setup import league_fixture  # noqa: F401 (the fixture "league")
from loopback import free_port, wait_for
from PIL import Image, ImageDraw
from test_league_players import box, claim, league_cli, roster_held
from web_server import WebServer, need_web

from shutbox_hw.claims.league import WRONG_SECRET
from shutbox_hw.claims.league_join import make_request
from shutbox_hw.league.players import take_join
from shutbox_hw.players.league_secret import CODE_LENGTH

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.broker]

FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def qr_text(html: str) -> str:
    """The QR code of the page read back (its SVG's squares drawn, then zxing-cpp)."""
    path = re.search(r'<div class="qr" data-field="qr"><svg [^>]*viewBox="0 0 (\d+) \d+"'
                     r'.*?<path d="([^"]+)"', html)
    assert path is not None, html[:500]
    n, scale = int(path.group(1)), 8
    image = Image.new("L", (n * scale, n * scale), 255)
    draw = ImageDraw.Draw(image)
    for x, y in re.findall(r"M(\d+) (\d+)h1v1h-1z", path.group(2)):
        draw.rectangle((int(x) * scale, int(y) * scale, (int(x) + 1) * scale - 1,
                        (int(y) + 1) * scale - 1), fill=0)
    found = zxingcpp.read_barcodes(image)
    assert len(found) == 1
    return str(found[0].text)


def secret_of(html: str) -> str:
    found = re.search(r'<p class="secret" data-field="secret">([^<]+)</p>', html)
    assert found is not None, html[:800]
    secret = unescape(found.group(1))
    assert len(secret.replace("-", "")) == CODE_LENGTH
    assert qr_text(html) == secret          # the personal QR code holds the secret
    return secret


def http(base: str, path: str, form: dict[str, str] | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, str]:
    data = None if form is None else urlencode(form).encode()
    request = urllib.request.Request(base + path, data=data,
                                     headers={**(FORM if form else {}), **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_a_player_joins_from_the_league_s_page_and_claims_a_seat_at_a_box(league, tmp_path):
    need_web()
    pg = league.pg
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    web = Forked(["league", "web", "--dsn", pg.dsn, "--listen", f"127.0.0.1:{port}",
                  "--join-code", "CROWN26"], cwd=CHECKOUT, stdout=PIPE, stderr=STDOUT)
    try:
        assert wait_for(lambda: web.poll() is not None or _up(base), 30)
        assert web.poll() is None
        assert 'href="/join"' in http(base, "/players")[1]
        status, form = http(base, "/join")
        assert status == 200 and 'name="code"' in form and 'name="name"' in form
        status, page = http(base, "/join", {"name": "Anna", "code": "crown26"})
        assert status == 200, page
        secret = secret_of(page)
        assert "this page shows it once" in page
        # the league keeps no secret: no column of the row holds it in any form
        row, = pg.query("SELECT * FROM league_players")
        assert not any(secret.replace("-", "") in str(v) or secret in str(v) for v in row)
        # a taken name (compared without case), a wrong join code, another site's form
        status, page = http(base, "/join", {"name": "ANNA", "code": "CROWN26"})
        assert status == 409 and "The league has a player called Anna already" in page
        status, page = http(base, "/join", {"name": "P3", "code": "CROWN26"})
        assert status == 409 and "P3 is a seat&#x27;s label, not a player&#x27;s name" in page
        status, page = http(base, "/join", {"name": "Bob", "code": "PUB"})
        assert status == 403 and "That is not the league's join code" in page
        status, page = http(base, "/join", {"name": "Bob", "code": "CROWN26"},
                            {"Sec-Fetch-Site": "cross-site"})
        assert status == 403 and "another site" in page
        assert pg.query("SELECT name FROM league_players") == [("Anna",)]
    finally:
        web.terminate()
        out = web.communicate(timeout=10)[0]
    assert secret not in out and secret.replace("-", "") not in out   # not in its log
    # a box's request that comes twice makes one player; another's for the name is refused
    import psycopg
    made = make_request("Bob")
    message = json.dumps({"box": "a1", **made.request}).encode()
    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        first = take_join(conn, "shutbox/a1/league/join", message)
        again = take_join(conn, "shutbox/a1/league/join", message)
        other = take_join(conn, "shutbox/b1/league/join",
                          json.dumps({"box": "b1", **make_request("BOB").request}).encode())
        junk = take_join(conn, "shutbox/b1/league/join", b'{"request": "x"}')
    assert first.startswith("box a1: Bob joined the league (id 2, request ")
    assert again.endswith(", asked again") and made.code not in first + again
    assert other.endswith("refused, the league has a player called Bob already")
    assert junk.startswith("a join request on shutbox/b1/league/join was dropped: ")
    assert pg.query("SELECT name FROM league_players ORDER BY id") == [("Anna",), ("Bob",)]
    # without --join-code the league's pages have no join form
    off = sb_run(["league", "web", "--dsn", pg.dsn, "--join-code", "x"], timeout=60)
    assert off.returncode == 2 and "--join-code: 4 to 40 letters or digits" in off.stderr

    db = league.db("a1")
    db.parent.mkdir(parents=True, exist_ok=True)
    with short_folder() as folder:
        sock = folder / "claims.sock"
        with box(league.configs["a1"], db, sock) as runner:
            assert wait_for(lambda: roster_held(db) == [(1, "Anna"), (2, "Bob")], 60), \
                league.logs()
            assert claim(runner, sock, "Anna", "WRONGCODE2") == {
                "ok": False, "reason": WRONG_SECRET.format(name="Anna")}
            seated = claim(runner, sock, "anna", secret.lower())
            assert seated["ok"] and seated["player"] == "Anna", seated
            seated = claim(runner, sock, "Bob", made.code)     # the box-made secret
            assert seated["ok"] and seated["player"] == "Bob", seated


def _up(base: str) -> bool:
    try:
        return http(base, "/")[0] == 200
    except OSError:
        return False


def web_config(config: Path, sock: Path, folder: Path) -> Path:
    """The box's configuration with its claims socket (the web finds the daemon there)."""
    path = folder / "web.toml"
    path.write_text(config.read_text() + f'claims_socket = "{sock}"\n')
    return path


def join(web: WebServer, runner, name: str) -> tuple[int, str]:
    code = runner.daemon.controller.state.join.code.code
    status, _, body = web.get(f"/join/{code}/league", "POST", urlencode({"name": name}).encode(),
                              FORM)
    return status, body.decode()


def look(web: WebServer, link: str) -> tuple[int, str]:
    status, _, body = web.get(unescape(link))
    return status, body.decode()


def status_link(page: str) -> str:
    found = re.search(r'href="(/league-join/[0-9a-f]{16}\?name=[^"]+)"', page)
    assert found is not None, page[:800]
    return found.group(1)


def test_a_phone_joins_from_a_box_s_join_page_online_and_offline(league, tmp_path):
    need_web()
    pg = league.pg
    added = league_cli("players", "add", "--dsn", pg.dsn, "Anna")   # the league's first
    assert added.returncode == 0, added.stderr
    db = league.db("a1")
    db.parent.mkdir(parents=True, exist_ok=True)
    with short_folder() as folder:
        sock = folder / "claims.sock"
        config = web_config(league.configs["a1"], sock, tmp_path)
        with box(config, db, sock) as runner:
            assert wait_for(lambda: roster_held(db) == [(1, "Anna")], 60), league.logs()
            web = WebServer(db, config)
            try:
                code = runner.daemon.controller.state.join.code.code
                status, _, body = web.get(f"/join/{code}")
                assert status == 200 and f'href="/join/{code}/league"' in body.decode()
                status, _, body = web.get(f"/join/{code}/league")
                assert status == 200 and 'name="name"' in body.decode()

                # a league player's name: refused at once, as the league spells it
                status, page = join(web, runner, "ANNA")
                assert status == 409 and "The league has a player called Anna already" in page
                # Bea joins: her secret shown once, the league asked through the outbox
                status, page = join(web, runner, "Bea")
                assert status == 200, page
                bea, bea_link = secret_of(page), status_link(page)
                assert wait_for(lambda: look(web, bea_link)[0] == 200, 90), league.logs()
                assert 'data-state="joined"' in look(web, bea_link)[1]
                assert [n for n, in pg.query("SELECT name FROM league_players ORDER BY id")] \
                    == ["Anna", "Bea"]
                row, = pg.query("SELECT * FROM league_players WHERE name = 'Bea'")
                assert not any(bea.replace("-", "") in str(v) for v in row)
                assert claim(runner, sock, "Bea", "WRONGCODE2") == {
                    "ok": False, "reason": WRONG_SECRET.format(name="Bea")}
                seated = claim(runner, sock, "bea", bea)
                assert seated["ok"] and seated["player"] == "Bea", seated

                # the pub's broker away: the requests wait in the box's outbox
                league.pubs["pubA"].kill()
                status, page = join(web, runner, "Dee")
                assert status == 200, page
                dee, dee_link = secret_of(page), status_link(page)
                status, page = join(web, runner, "Eve")
                eve, eve_link = secret_of(page), status_link(page)
                status, page = join(web, runner, "Fay")      # five requests from one phone
                assert status == 200, page
                fay_link = status_link(page)
                status, page = join(web, runner, "Gil")      # and no more for a while
                assert status == 429 and "Too many requests to join from this phone" in page
                status, page = look(web, dee_link)
                assert status == 202 and 'data-state="waiting"' in page
                assert "Waiting to be sent" in page
                # meanwhile the organiser gives the name Dee to someone else
                other = league_cli("players", "add", "--dsn", pg.dsn, "Dee")
                assert other.returncode == 0, other.stderr
                league.pubs["pubA"].start()
                assert wait_for(lambda: look(web, eve_link)[0] == 200, 120), league.logs()
                assert wait_for(lambda: look(web, dee_link)[0] == 409, 60), league.logs()
                assert "The league has a player called Dee already" in look(web, dee_link)[1]
                assert wait_for(lambda: look(web, fay_link)[0] == 200, 60), league.logs()
                assert sorted(n for n, in pg.query("SELECT name FROM league_players")) == [
                    "Anna", "Bea", "Dee", "Eve", "Fay"]
                assert claim(runner, sock, "Dee", dee)["reason"] == \
                    WRONG_SECRET.format(name="Dee")       # the phone's secret is not Dee's
                seated = claim(runner, sock, "Eve", eve)
                assert seated["ok"] and seated["player"] == "Eve", seated
            finally:
                log = web.stop()
            for secret in (bea, dee, eve):      # never in the web's log
                assert secret not in log and secret.replace("-", "") not in log
