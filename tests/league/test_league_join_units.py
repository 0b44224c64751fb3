"""Issue 41, item 1: joining the league from a box's join page, without the league's
servers: the request the web makes, the daemon's checks and the outbox row, what the
phone's page reads back from the record, the league's reading of the request, and the
brokers' ACLs as docs/network/league.md writes them. Through the real parts:
test_league_join.py."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest
from league_parts import CHECKOUT, box_user, bridge_lines

from shutbox_hw.claims.league_join import (
    ASKED,
    OFF,
    TAKEN,
    TOPIC,
    WAITING_MAX,
    LeagueJoins,
    join_state,
    make_request,
)
from shutbox_hw.league.players import JoinError, join_box, join_topic, parse_join
from shutbox_hw.network.league_roster import take
from shutbox_hw.network.publisher import topics
from shutbox_hw.players.league_secret import CODE_LENGTH, CODE_LETTERS, Entry, verify
from shutbox_hw.store import Store


@pytest.fixture
def record(tmp_path: Path):
    Store(tmp_path / "box.db").close()
    db = sqlite3.connect(tmp_path / "box.db", isolation_level=None)
    try:
        yield tmp_path / "box.db", db
    finally:
        db.close()


def outbox(db: sqlite3.Connection) -> list[dict]:
    return [json.loads(e) for e, in db.execute(
        "SELECT event FROM outbox WHERE topic = ? ORDER BY seq", (TOPIC,))]


def roster_message(player: int, name: str, salt: bytes, digest: bytes) -> bytes:
    return json.dumps(Entry(player, name, salt, digest).as_json()).encode()


def test_the_request_carries_the_hash_of_the_secret_and_never_the_secret():
    made = make_request("  Bea ")
    assert len(made.code) == CODE_LENGTH and set(made.code) <= set(CODE_LETTERS)
    text = json.dumps(made.request)
    assert made.code not in text
    req = made.request
    assert req["name"] == "Bea" and req["kdf"] == "scrypt"
    salt, digest = bytes.fromhex(req["salt"]), bytes.fromhex(req["hash"])
    # the hash computed here, independently, from what the request says
    assert hashlib.scrypt(made.code.encode(), salt=salt, n=req["n"], r=req["r"], p=req["p"],
                          dklen=32) == digest
    assert req["request"] == hashlib.sha256(salt + digest).hexdigest()[:16]
    assert verify(Entry(1, "Bea", salt, digest, req["n"], req["r"], req["p"]), made.code)


def test_the_box_queues_a_request_and_refuses_a_name_taken_or_asked_for(record):
    path, db = record
    joins = LeagueJoins(path, offered=True, clock=lambda: 1000.0)
    bea = make_request("Bea")
    assert joins(bea.request) == {"ok": True, "request": bea.request["request"], "name": "Bea"}
    row, = outbox(db)
    assert row == bea.request and bea.code not in json.dumps(row)
    # another phone, the same name (compared as the roster compares names): refused
    assert joins(make_request("BEA").request) == {"ok": False,
                                                  "reason": ASKED.format(name="BEA")}
    # a league player's name: refused with the league's spelling
    take(db, "shutbox/league/roster/7", roster_message(7, "Anna", b"s" * 16, b"h" * 32), 1.0)
    assert joins(make_request("anna").request) == {"ok": False,
                                                   "reason": TAKEN.format(name="Anna")}
    assert joins(make_request("P2").request)["reason"] == "P2 is a seat's label: choose a name"
    assert "control characters" in joins(make_request("Bo\x1bb").request)["reason"]
    # a request whose id is not its hash's, or that is not one at all
    forged = {**make_request("Cy").request, "request": "0" * 16}
    for junk in (forged, {"name": "Cy"}, "Cy", None, {**make_request("Cy").request, "n": 2 ** 20}):
        assert joins(junk) == {"ok": False, "reason": "not understood: the league request"}
    assert len(outbox(db)) == 1
    assert LeagueJoins(path, offered=False)(make_request("Dee").request) == {
        "ok": False, "reason": OFF}


def test_no_more_than_so_many_requests_wait_for_a_pub_offline(record):
    path, db = record
    joins = LeagueJoins(path, offered=True)
    names = [f"Player{i}" for i in range(WAITING_MAX)]
    assert all(joins(make_request(n).request)["ok"] for n in names)
    assert joins(make_request("OneMore").request)["reason"].startswith("too many requests")
    assert len(outbox(db)) == WAITING_MAX


def test_the_phone_reads_what_became_of_its_request_from_the_record(record):
    path, db = record
    joins = LeagueJoins(path, offered=True)
    bea, cy = make_request("Bea"), make_request("Cy")
    for made in (bea, cy):
        assert joins(made.request)["ok"]
    rid = bea.request["request"]
    assert join_state(db, rid, "Bea").state == "waiting"       # in the outbox
    db.execute("DELETE FROM outbox")                           # the broker took them
    assert join_state(db, rid, "Bea").state == "sent"
    salt, digest = bytes.fromhex(bea.request["salt"]), bytes.fromhex(bea.request["hash"])
    take(db, "shutbox/league/roster/3", roster_message(3, "Bea", salt, digest), 2.0)
    assert (join_state(db, rid, "bea").state, join_state(db, rid, "bea").name) == ("joined", "Bea")
    # Cy was taken at the league first: the roster's Cy has another hash
    take(db, "shutbox/league/roster/4", roster_message(4, "CY", b"x" * 16, b"y" * 32), 2.0)
    assert (join_state(db, cy.request["request"], "Cy").state,
            join_state(db, cy.request["request"], "Cy").name) == ("taken", "CY")


def test_the_league_reads_a_box_s_request_and_refuses_what_is_not_one():
    made = make_request("Bea")
    envelope = {"box": "a1", "epoch": "e", "seq": 9, "at": 1.0, **made.request}
    req = parse_join("shutbox/a1/league/join", json.dumps(envelope))
    assert (req.box, req.name, req.request) == ("a1", "Bea", made.request["request"])
    assert req.hash.hex() == made.request["hash"] and req.salt.hex() == made.request["salt"]
    for change, words in (({"request": "XYZ"}, "hexadecimal"), ({"name": "P1"}, "seat's label"),
                          ({"name": "A" * 17}, "at most 16"), ({"n": 2 ** 20}, "more than a box"),
                          ({"box": "b1"}, "not its topic's"), ({"hash": "00"}, "wrong size")):
        with pytest.raises(JoinError, match=words):
            parse_join("shutbox/a1/league/join", json.dumps({**envelope, **change}))
    with pytest.raises(JoinError, match="not a join topic"):
        parse_join("shutbox/a1/game", json.dumps(envelope))
    assert join_box("shutbox/a1/league/join") == "a1"
    for topic in ("shutbox/a1/game", "shutbox//league/join", "shutbox/a1/league/join/x"):
        assert join_box(topic) is None


def test_the_box_publishes_on_the_topic_the_league_reads():
    assert topics("a1")["league_join"] == join_topic("a1") == "shutbox/a1/league/join"


def _block(text: str, first: str) -> list[str]:
    """The lines of a text block of the docs from ``first`` to the next blank line."""
    lines = text.splitlines()
    start = lines.index(first)
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return [line for line in lines[start + 1:end] if not line.startswith("#")]


def test_the_documented_acls_and_bridge_are_the_ones_the_tests_run():
    docs = (CHECKOUT / "docs/network/league.md").read_text()
    pub_acl = docs.split("# /etc/mosquitto/league.acl on the pub's broker", 1)[1]
    assert _block(pub_acl, "user a1") == box_user("a1")
    assert "topic write shutbox/a1/league/join" in box_user("a1")
    central = docs.split("# /etc/mosquitto/league.acl\n", 1)[1]
    league = _block(central, "user league")
    setup = (CHECKOUT / "tests/league/league_setup.py").read_text()
    assert league == re.findall(r'"(topic (?:read|write) shutbox/[^"]+)"',
                                setup.split("LEAGUE_USER: (LEAGUE_PASSWORD,", 1)[1]
                                .split(")}", 1)[0])
    assert "topic read shutbox/+/league/join" in league
    bridge = [line for line in bridge_lines("pubA", _NoBroker(), "pw", ["a1"]).splitlines()
              if line.startswith("topic ")]
    documented = [line for line in docs.split("# /etc/mosquitto/conf.d/bridge.conf", 1)[1]
                  .split("```", 1)[0].splitlines() if line.startswith("topic ")]
    assert documented == bridge


class _NoBroker:
    port, ca = 1, None


def test_the_join_code_goes_with_league_web_only_and_is_typed_on_a_phone():
    from cli_inprocess import run_cli
    out = run_cli("league", "status", "--dsn", "host=/nowhere", "--join-code", "CROWN26",
                  cwd=CHECKOUT)
    assert out.returncode == 2 and "--join-code go(es) with league web, not status" in out.stderr
    for bad in ("abc", "CROWN 26", "x" * 41, "CRÖWN26"):
        out = run_cli("league", "web", "--dsn", "host=/nowhere", "--join-code", bad,
                      cwd=CHECKOUT)
        assert out.returncode == 2 and "--join-code: 4 to 40 letters or digits" in out.stderr
        assert "Traceback" not in out.stderr


# ---------------------------------------------------------------- the box's join pages


class JoinPages:
    """The box's real web app (German) on the real server in a thread, its claims socket
    answered by a ClaimServer with the daemon's join handler (no box loop: a request to
    join never reaches it)."""

    def __init__(self, db: Path, sock: Path) -> None:
        import threading

        from loopback import free_port

        from shutbox_hw.claims.server import ClaimServer
        from shutbox_hw.commands.serve.web import listening_socket, make_server
        from shutbox_hw.web.app import make_app
        self.claims = ClaimServer(str(sock), lambda: None, lambda: 0,
                                  join=LeagueJoins(db, offered=True))
        self.claims.start()
        self.port = free_port()
        listener = listening_socket("127.0.0.1", self.port)
        self.server = make_server(make_app(db, None, language="de", claims_path=str(sock)))
        self.thread = threading.Thread(target=self.server.run,
                                       kwargs={"sockets": [listener]}, daemon=True)
        self.thread.start()

    def get(self, path: str, form: dict[str, str] | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        import http.client
        from urllib.parse import urlencode
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            body = None if form is None else urlencode(form).encode()
            conn.request("GET" if form is None else "POST", path, body=body, headers={
                "Accept": "text/html",        # a phone's browser: the pages' design
                **({"Content-Type": "application/x-www-form-urlencoded"} if form else {}),
                **(headers or {})})
            answer = conn.getresponse()
            return (answer.status, {k.lower(): v for k, v in answer.getheaders()},
                    answer.read().decode())
        finally:
            conn.close()

    def close(self) -> None:
        self.server.handle_exit(15, None)
        self.thread.join(30)
        self.claims.close()


@pytest.fixture
def pages(record):
    pytest.importorskip("uvicorn")
    from claims_box import short_folder
    from loopback import wait_for
    path, db = record
    with short_folder() as folder:
        web = JoinPages(path, folder / "claims.sock")
        try:
            assert wait_for(lambda: _answers(web), 20)
            yield web, db
        finally:
            web.close()


def _answers(web: JoinPages) -> bool:
    try:
        return web.get("/health")[0] == 200
    except OSError:
        return False


CODE = "K7M2QD"


def test_the_join_pages_offer_joining_only_on_a_league_s_box_and_speak_german(pages):
    web, db = pages
    status, _, page = web.get(f"/join/{CODE}/league")
    assert status == 404 and "An dieser Box kann man der Liga nicht beitreten" in page
    assert "/league" not in web.get(f"/join/{CODE}")[2]
    take(db, "shutbox/league/roster/7", roster_message(7, "Anna", b"s" * 16, b"h" * 32), 1.0)
    assert f'href="/join/{CODE}/league"' in web.get(f"/join/{CODE}")[2]
    assert "Noch nicht in der Liga? Tritt ihr bei" in web.get(f"/join/{CODE}")[2]
    status, _, page = web.get(f"/join/{CODE}/league")
    assert status == 200 and "Der Liga beitreten" in page
    # a league player's name, another site's form, a name the box refuses
    status, _, page = web.get(f"/join/{CODE}/league", {"name": "anna"})
    assert status == 409 and "Den Namen Anna gibt es in der Liga schon" in page
    assert "Nicht beigetreten" in page
    status, _, page = web.get(f"/join/{CODE}/league", {"name": "Bea"},
                              {"Sec-Fetch-Site": "cross-site"})
    assert status == 403 and outbox(db) == []
    status, _, page = web.get(f"/join/{CODE}/league", {"name": "B" * 30})
    assert status == 400 and "höchstens 16 Zeichen" in page
    # Bea: the secret once, in German, and the request waiting in the outbox
    status, headers, page = web.get(f"/join/{CODE}/league", {"name": "Bea"})
    assert status == 200 and "Dein Geheimcode für die Liga, Bea" in page
    assert "no-store" in headers["cache-control"]
    secret = re.search(r'data-field="secret">([^<]+)<', page).group(1)
    row, = outbox(db)
    assert secret.replace("-", "") not in json.dumps(row) and row["name"] == "Bea"
    link = re.search(r'href="(/league-join/[0-9a-f]{16}\?name=Bea)"', page).group(1)
    assert link.split("/")[2].split("?")[0] == row["request"]
    status, headers, page = web.get(link)
    assert status == 202 and "Wartet aufs Senden" in page and "refresh" in headers
    assert secret not in page
    assert web.get("/league-join/nothex?name=Bea")[0] == 404
    assert web.get("/league-join/" + "a" * 16 + "?name=" + "B" * 30)[0] == 404


def test_the_web_unit_passes_the_join_code_only_when_league_env_sets_it():
    import shlex
    import subprocess
    unit = (CHECKOUT / "systemd/league/shutbox-league-web.service").read_text()
    line = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    shell, flag, script = shlex.split(line[len("ExecStart="):])
    assert (shell, flag) == ("/bin/sh", "-c")
    script = script.replace("$$", "$")          # as systemd passes it to the shell
    script = script.replace("exec /opt/shutbox-league/.venv/bin/shutbox-hw", "printf '%s\\n'")
    env = {"PATH": "/usr/bin:/bin", "LEAGUE_DSN": "dbname=league",
           "LEAGUE_WEB_LISTEN": "127.0.0.1:8090", "LEAGUE_WEB_HOSTS": "a.example"}
    head = ["league", "web", "--dsn", "dbname=league", "--listen", "127.0.0.1:8090",
            "--host", "a.example"]
    for code, tail in (("CROWN26", ["--join-code", "CROWN26"]), ("", []), (None, [])):
        run = subprocess.run([shell, flag, script], capture_output=True, text=True,
                             env={**env, **({} if code is None else
                                            {"LEAGUE_WEB_JOIN_CODE": code})}, timeout=10)
        assert run.stdout.splitlines() == head + tail, (code, run.stdout, run.stderr)


def test_without_a_join_code_the_league_s_pages_have_no_join_form():
    pytest.importorskip("uvicorn")
    import http.client
    import threading

    from loopback import free_port, wait_for

    from shutbox_hw.commands.serve.league_web import make_app
    from shutbox_hw.commands.serve.web import listening_socket, make_server
    port = free_port()
    listener = listening_socket("127.0.0.1", port)
    server = make_server(make_app("host=/nowhere", frozenset({"127.0.0.1"})))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()

    def ask(method: str) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request(method, "/join", body=b"name=Bea&code=X" if method == "POST" else None,
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
            answer = conn.getresponse()
            return answer.status, answer.read().decode()
        finally:
            conn.close()
    try:
        assert wait_for(lambda: _asks(ask), 20)
        for method in ("GET", "POST"):
            assert ask(method) == (404, "404 joining the league here is off: ask the "
                                        "organiser\n")
    finally:
        server.handle_exit(15, None)
        thread.join(30)


def _asks(ask) -> bool:
    try:
        ask("GET")
        return True
    except OSError:
        return False
