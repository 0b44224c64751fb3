"""``shutbox-hw web`` as a real process over a database the simulator wrote.

The pages show the figures ``history`` and ``audit`` print; the backup is
behind the token; every bad request gets a one-line 4xx; a slow client holds
up nobody; the box plays on while the web process is hammered.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from forked import sb_run
from loopback import free_port, wait_for
from web_server import CHECKOUT, InProcessServer, WebServer, need_web

import shutbox_hw.web.content.exports as exports
from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script
from shutbox_hw.store.read.history import recent_games

SCRIPTS = CHECKOUT / "tests" / "scripts"
SB = [sys.executable, "-m", "shutbox_hw"]
TOKEN = "s3cret-Token-for-the-backup"


def sim(db: Path, script: str, *extra: str) -> list[dict]:
    out = sb_run(["sim", "--db", str(db), "--script", str(SCRIPTS / script),
                  *extra], timeout=120)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def cli(*args: str) -> str:
    out = sb_run([*args], timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """Two finished games and an unfinished one (seed 001's practice round)."""
    need_web()
    db = tmp_path_factory.mktemp("played") / "box.db"
    sim(db, "two-player-klappenspiel.txt")
    sim(db, "hints-klappenspiel.txt")
    sim(db, "practice-001.txt", "--rules", "crafthouse-12")
    return db


@pytest.fixture(scope="module")
def web(played, tmp_path_factory):
    folder = tmp_path_factory.mktemp("web")
    (folder / "token").write_text(TOKEN + "\n")
    (folder / "token").chmod(0o600)
    config = folder / "box.toml"
    config.write_text(f'[web]\ntoken_file = "{folder / "token"}"\n')
    server = WebServer(played, config)
    yield server
    log = server.stop()
    assert TOKEN not in log and "Traceback" not in log, log


def test_scorecards_and_history_are_the_figures_history_prints(played, web):
    games = json.loads(cli("history", "--db", str(played), "--json"))["games"]
    assert len(games) == 3
    for game in games:
        status, _, body = web.get(f"/game/{game['id']}.json")
        assert status == 200
        assert json.loads(body) == json.loads(cli("history", "--db", str(played), "--game",
                                                  str(game["id"]), "--json"))
        status, _, page = web.get(f"/game/{game['id']}")
        text = page.decode()
        # every round's figures of `history --game` are on the page, each in a cell of
        # its own under words (score, after doubling where anything was, total)
        card = json.loads(body)
        rows = [re.findall(r"<td>(.*?)</td>", row) for row in
                re.findall(r"<tr>(.*?)</tr>", text) if "<td>" in row]
        doubled = any(e["raw"] != e["final"] for r in card["rounds"]
                      for e in r["players"].values())
        assert ("<th>after doubling</th>" in text) == doubled
        assert "raw/fin" not in text and ("<th>score</th>" in text or not card["rounds"])
        for rnd, row in zip(card["rounds"], rows, strict=False):
            want = [str(rnd["round"])]
            for p in card["players"]:
                e = rnd["players"][p]
                want += [str(e["raw"]), *([str(e["final"])] if doubled else []),
                         str(e["total"])]
            assert row[:len(want)] == [w.replace("None", "\u2013") for w in want]
    status, _, page = web.get("/history")
    for game in games:
        assert f'href="/game/{game["id"]}"' in page.decode()
    status, headers, body = web.get("/export/games.csv")
    assert status == 200 and headers["content-type"].startswith("text/csv")
    lines = body.decode().splitlines()
    assert len(lines) == 1 + len(games) and lines[0].startswith("game,")
    status, _, body = web.get("/export/turns.csv")
    turns = sqlite3.connect(played).execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    assert len(body.decode().splitlines()) == 1 + turns


def test_exports_streamed_in_small_chunks_hold_every_row_once_in_order(played, monkeypatch):
    """Chunks of 2 turns and 1 game: the files are those of one read, row by row."""
    monkeypatch.setattr(exports, "BATCH", 2)
    monkeypatch.setattr(exports, "GAME_BATCH", 1)
    server = InProcessServer(played)
    try:
        turns = list(csv.reader(io.StringIO(server.get("/export/turns.csv")[2].decode())))
        games = list(csv.reader(io.StringIO(server.get("/export/games.csv")[2].decode())))
    finally:
        server.stop()
    db = sqlite3.connect(played)
    expected = db.execute("SELECT t.game_id, p.name, t.score FROM turns t JOIN players p ON"
                          " p.game_id = t.game_id AND p.seat = t.seat ORDER BY t.id").fetchall()
    assert turns[0][:3] == ["game", "round", "player"]
    assert [(int(r[0]), r[2], r[5]) for r in turns[1:]] == [
        (g, name, "" if score is None else str(score)) for g, name, score in expected]
    history = json.loads(cli("history", "--db", str(played), "--json"))["games"]
    assert [int(r[0]) for r in games[1:]] == [g["id"] for g in reversed(history)]
    assert [r[8] for r in games[1:]] == [";".join(f"{p}={t}" for p, t in g["totals"].items())
                                         for g in reversed(history)]


def test_audits_and_live_summary(played, web):
    audit = json.loads(cli("audit", "--db", str(played), "--json"))
    page = web.get("/audits")[2].decode()
    assert f"<td>Games finished</td><td>{audit['games']}</td>" in page
    for switch, count in audit["switches"].items():
        assert f"<td>{switch}</td><td>{count}</td>" in page
    finished = [g for g in recent_games(sqlite3.connect(played), 5)
                if g["finished"] or g["abandoned"]]
    assert json.loads(web.get("/live.json")[2])["last_result"]["id"] == finished[0]["id"]


def test_live_summary_is_the_game_as_its_events_tell_it(tmp_path):
    need_web()
    db = tmp_path / "box.db"
    events = sim(db, "practice-001.txt", "--rules", "crafthouse-12")
    server = WebServer(db)
    try:
        live = json.loads(server.get("/live.json")[2])
    finally:
        server.stop()
    ended = [e for e in events if e["event"] == "turn_ended"]
    rounds = [e for e in events if e["event"] == "round_ended"]
    # the script ends after round 1's last turn: the flaps still shut, round 2 next,
    # P1 to play it; the throw taken, so no dice (the box shows "? ?" then)
    assert live["playing"] and live["turn_over"] and live["player"] == "P1"
    assert live["round"] == len(rounds) + 1 and live["dice"] is None
    assert live["open"] == ended[-1]["open"] and live["last_result"] is None
    assert [t for t, s in enumerate(live["flaps"], 1) if s == "open"] == ended[-1]["open"]
    assert {p["name"]: p["total"] for p in live["players"]} == rounds[-1]["totals"]
    assert {p["name"]: p["round_score"] for p in live["players"]} == {"P1": None, "P2": None}
    assert live["title"] == "1-12 Race"


def test_history_is_paginated_from_the_newest_game(played, web):
    ids = [g["id"] for g in json.loads(cli("history", "--db", str(played), "--json"))["games"]]
    pages_seen, path = [], "/history?limit=1"
    for _ in range(len(ids) + 1):              # bounded: one page per game at most
        status, _, body = web.get(path.replace("&amp;", "&"))
        assert status == 200
        text = body.decode()
        pages_seen.append([int(n) for n in re.findall(r'href="/game/(\d+)"', text)])
        older = re.search(r'href="(\?limit=1&amp;before=\d+)">older<', text)
        if older is None:
            break
        path = "/history" + older.group(1)
    assert pages_seen == [[i] for i in ids]       # each game once, newest first
    assert "newest" in body.decode()              # and the way back from the last page
    full = web.get("/history?limit=50")[2].decode()
    assert [int(n) for n in re.findall(r'href="/game/(\d+)"', full)] == ids
    assert ">older<" not in full


def test_backup_needs_the_token_and_is_a_consistent_copy(played, web, tmp_path):
    assert web.get("/backup", "POST")[0] == 403
    assert web.get("/backup", "POST", b"token=wrong",
                   {"Content-Type": "application/x-www-form-urlencoded"})[0] == 403
    status, headers, body = web.get("/backup", "POST", b"x" * 5000)
    assert status == 413 and body.count(b"\n") == 1
    assert headers["x-frame-options"] == "DENY" and "content-security-policy" in headers
    status, headers, body = web.get("/backup", "POST", f"token={TOKEN}".encode(),
                                    {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200 and "attachment" in headers["content-disposition"]
    copy = tmp_path / "copy.db"
    copy.write_bytes(body)
    assert recent_games(sqlite3.connect(copy), 10) == recent_games(sqlite3.connect(played), 10)
    status, _, body2 = web.get("/backup", headers={"Authorization": f"Bearer {TOKEN}"},
                               method="POST")
    assert status == 200 and body2[:16] == b"SQLite format 3\x00"


def test_wrong_tokens_are_throttled_per_address(played, web):
    """Issue 43: a guest guessing the token gets TOKEN_TRIES tries, then waits; the
    right token from that address waits too, another address is served."""
    from shutbox_hw.web.app import TOKEN_TRIES
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for i in range(TOKEN_TRIES):
        assert web.get("/backup", "POST", f"token=guess{i}".encode(), form,
                       source="127.0.0.3")[0] == 403
    status, headers, body = web.get("/backup", "POST", f"token={TOKEN}".encode(), form,
                                    source="127.0.0.3")
    assert status == 429 and b"wrong tokens from this address" in body
    assert headers["x-frame-options"] == "DENY"
    assert web.get("/backup", headers={"Authorization": "Bearer x"}, method="POST",
                   source="127.0.0.3")[0] == 429
    assert web.get("/backup", "POST", f"token={TOKEN}".encode(), form,
                   source="127.0.0.4")[0] == 200


def test_the_address_limit_forgets_what_has_passed_and_stays_bounded():
    from shutbox_hw.web.gate.limits import AddressLimit
    now = [0.0]
    limit = AddressLimit(3, 60.0, lambda: now[0], max_addresses=100)
    assert [limit.allow("10.0.0.1") for _ in range(4)] == [True, True, True, False]
    for i in range(99):                         # 99 others within the window: all kept
        limit.allow(f"10.0.1.{i}")
    assert limit.full("10.0.0.1") and len(limit.tries) == 100
    for i in range(1000):                       # a flood of new addresses: bounded
        limit.allow(f"fd00::{i:x}")
    assert len(limit.tries) <= 100
    now[0] = 61.0                               # the window has passed: forgotten
    assert limit.allow("10.0.0.1") and len(limit.tries) == 1
    assert sum(len(t) for t in limit.tries.values()) == 1


def test_backup_is_off_without_a_token(played):
    server = WebServer(played)
    try:
        status, _, body = server.get("/backup", "POST", f"token={TOKEN}".encode())
        assert status == 404 and b"off" in body
        assert b"Backup is off" in server.get("/backup")[2]
    finally:
        server.stop()


def raw(port: int, data: bytes) -> bytes:
    """The answer to ``data`` (b"": the server refused it by resetting the connection,
    which is all a client still sending megabytes can be told)."""
    out = b""
    try:
        with socket.create_connection(("127.0.0.1", port), 10) as s:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            while chunk := s.recv(65536):
                out += chunk
    except OSError:   # reset, broken pipe, not connected: refused mid-send
        pass
    return out


BAD = [
    (b"GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n", 404),
    (b"GET /../../etc/passwd HTTP/1.1\r\nHost: localhost\r\n\r\n", 404),
    (b"GET /static/..%2f..%2fetc%2fpasswd HTTP/1.1\r\nHost: localhost\r\n\r\n", 404),
    (b"GET /game/abc HTTP/1.1\r\nHost: localhost\r\n\r\n", 404),
    (b"GET /game/99999999999999999999999 HTTP/1.1\r\nHost: localhost\r\n\r\n", 404),
    (b"GET /history?limit=-1 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    (b"GET /history?limit=99999 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    # a superscript two: str.isdigit() says yes, int() says no
    (b"GET /history?limit=%C2%B2 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    (b"GET /history?limit=%EF%BC%91 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),  # fullwidth 1
    (b"GET /history?before=0 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    (b"GET /tonight?before=%C2%B2 HTTP/1.1\r\nHost: localhost\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: rebound.example.com\r\n\r\n", 421),
    (b"DELETE / HTTP/1.1\r\nHost: localhost\r\n\r\n", 405),
    (b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 2_000_000 + b"\r\n\r\n", 400),
    (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", 414),
    (b"NOT HTTP AT ALL\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n", 400),
    (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(64), 400),   # a TLS hello
]


def test_bad_requests_get_a_one_line_4xx_and_the_box_plays_on(played, web, tmp_path):
    config = load_config(preset="crafthouse-12")
    steps = load_script(str(SCRIPTS / "practice-001.txt"), config.rules.tiles)
    quiet: list[dict] = []
    runner = SimRunner(config, tmp_path / "quiet.db", on_event=quiet.append)
    for step in steps:
        runner.run(step)
    # the same game while the web process is hammered, on the database it serves
    loud: list[dict] = []
    done = threading.Event()

    def play() -> None:
        r = SimRunner(config, tmp_path / "loud.db", on_event=loud.append)
        for step in steps:
            r.run(step)
        done.set()

    server = WebServer(tmp_path / "loud.db")
    try:
        player = threading.Thread(target=play)
        player.start()
        for request, status in BAD:
            answer = raw(server.port, request)
            if not answer and len(request) > 1_000_000:
                continue   # refused while it was still being sent
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(f"HTTP/1.1 {status} ".encode()), (request[:60], answer[:200])
            # the refusals of the server's own (413, 431, 400...) as well as the pages'
            assert b"x-frame-options: deny" in head.lower(), (request[:60], head)
            assert b"content-security-policy: " in head.lower(), (request[:60], head)
            assert body.count(b"\n") <= 1 and b"Traceback" not in body, body[:300]
            assert len(body) < 200
        player.join(60)
        assert done.is_set() and loud == quiet
        assert server.get("/live.json")[0] == 200
    finally:
        log = server.stop()
    assert "Traceback" not in log, log


def test_a_slow_client_holds_up_nobody(played, web):
    slow = socket.create_connection(("127.0.0.1", web.port), 10)
    try:
        slow.sendall(b"GET / HTTP/1.1\r\nHo")   # and then nothing more for a while
        started = time.monotonic()
        assert web.get("/live.json")[0] == 200
        assert time.monotonic() - started < 5
    finally:
        slow.close()


@pytest.mark.slow      # seconds of work: pytest -m 'not slow' leaves it out
def test_live_stream_sends_the_summary_and_each_change(tmp_path):
    need_web()
    db = tmp_path / "box.db"
    config = load_config(preset="crafthouse-12")
    steps = load_script(str(SCRIPTS / "practice-001.txt"), config.rules.tiles)
    runner = SimRunner(config, db)
    server = WebServer(db)
    seen: list[dict] = []
    try:
        with socket.create_connection(("127.0.0.1", server.port), 10) as s:
            s.sendall(b"GET /live/stream HTTP/1.1\r\nHost: localhost\r\n\r\n")
            s.settimeout(None)
            reader = s.makefile("rb")

            def listen() -> None:
                try:
                    for raw_line in reader:
                        if raw_line.startswith(b"data: "):
                            seen.append(json.loads(raw_line[6:]))
                except OSError:
                    pass   # the test is over and closed the stream
            threading.Thread(target=listen, daemon=True).start()
            deadline = time.monotonic() + 10
            while not seen and time.monotonic() < deadline:
                time.sleep(0.05)
            assert seen and not seen[0]["playing"] and seen[0]["last_result"] is None
            for step in steps[:8]:
                runner.run(step)
                time.sleep(0.4)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not (seen[-1].get("dice") and seen[-1][
                    "open"] != list(range(1, 13))):
                time.sleep(0.05)
    finally:
        server.stop()
    dice = [tuple(x["dice"]) for x in seen if x.get("dice")]
    assert seen[-1]["playing"] and seen[-1]["player"] == "P1"
    assert len(set(dice)) >= 2          # the dice changed on the stream, throw by throw
    assert 12 not in seen[-1]["open"]   # the first throw's flap, shut


GROUP = 64999   # a group of the test's own, as the drop-in's group shutbox


@pytest.mark.other_user
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the web process as another "
                    "user in a group of its own")
def test_web_as_another_user_with_group_read_only_follows_a_running_box(request, public_copy):
    """As installed by --web: the database and its directory group-readable (0640/0750),
    the web process another user in that group. It reads the running box's WAL and
    follows it; it cannot write (the files say so, and its connection is read-only).
    It runs from the public copy (tests/other_user.py): ``nobody`` cannot enter a checkout
    in a private folder."""
    need_web()
    public_copy.include("uvicorn", "starlette")
    base = Path(tempfile.mkdtemp(prefix="shutbox-web-user-", dir="/tmp"))
    base.chmod(0o755)   # pytest's own folders are root's alone
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    state = base / "state"
    state.mkdir(mode=0o750)
    os.chown(state, 0, GROUP)
    db = state / "box.db"
    config = load_config(preset="crafthouse-12")
    steps = load_script(str(SCRIPTS / "practice-001.txt"), config.rules.tiles)
    old = os.umask(0o027)
    try:
        runner = SimRunner(config, db)   # the box, running: WAL and -shm beside the file
        for step in steps[:4]:
            runner.run(step)
        for path in state.iterdir():
            os.chown(path, 0, GROUP)
    finally:
        os.umask(old)
    assert {oct(p.stat().st_mode & 0o777) for p in state.iterdir()} == {"0o640"}
    port = free_port()
    proc = subprocess.Popen(
        public_copy.command("web", "--db", str(db), "--listen", f"127.0.0.1:{port}",
                            groups=(GROUP,)),
        cwd="/", stderr=subprocess.PIPE, text=True,
        env=public_copy.env(PYTHONDONTWRITEBYTECODE="1"))
    server = WebServer.__new__(WebServer)
    server.port, server.proc = port, proc
    try:
        assert wait_for(lambda: _answers(server), 20), proc.stderr
        answer = server.get("/live.json")
        assert answer[0] == 200, (answer, server.stop())
        first = json.loads(answer[2])
        for step in steps[4:]:
            runner.run(step)
        last = json.loads(server.get("/live.json")[2])
        # round 1 over (P2 played last): P1 plays round 2 next, as the box shows
        assert first["open"] != last["open"] and (last["round"], last["player"]) == (2, "P1")
    finally:
        log = server.stop()
    assert "Traceback" not in log, log
    assert {oct(p.stat().st_mode & 0o777) for p in state.iterdir()} == {"0o640"}


def _answers(server: WebServer) -> bool:
    try:
        return server.get("/health")[0] == 200
    except OSError:
        return False
