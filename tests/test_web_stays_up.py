"""The web process for a month of TVs (issue 30's web part, issue 29's point 2), on a real
uvicorn: it stops promptly with a TV connected; idle and half-sent connections do not
lock anybody out; a damaged row is reported, not a loop; a slow read freezes no stream;
the live summary is computed once per change however many TVs watch.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sqlite3
import threading
from pathlib import Path

import pytest
from loopback import wait_for
from web_server import CHECKOUT, InProcessServer, Stream, WebServer, need_web

from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script

SCRIPTS = CHECKOUT / "tests" / "scripts"


class Box:
    """seed 001's practice round, played a step at a time into ``db``."""

    def __init__(self, db: Path) -> None:
        config = load_config(preset="crafthouse-12")
        self.steps = load_script(str(SCRIPTS / "practice-001.txt"), config.rules.tiles)
        self.runner = SimRunner(config, db)
        self.done = 0

    def play(self, count: int = 1) -> None:
        for step in self.steps[self.done:self.done + count]:
            self.runner.run(step)
        self.done += count

    def move(self) -> None:
        """Play on to the next throw or flap closed (what the TV shows changes)."""
        while self.done < len(self.steps):
            self.play()
            if self.steps[self.done - 1].command.word in ("roll", "close"):
                return


@pytest.fixture
def box(tmp_path) -> Box:
    need_web()
    return Box(tmp_path / "box.db")


class Served:
    """Web processes, streams and sockets a test opens; all closed after it, and no
    traceback in any web process's log."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.servers: list[WebServer] = []
        self.closers: list = []

    def web(self, config: Path | None = None) -> WebServer:
        self.servers.append(WebServer(self.db, config))
        return self.servers[-1]

    def stream(self, port: int) -> Stream:
        tv = Stream(port)
        self.closers.append(tv.close)
        return tv

    def socket_from(self, address: str, port: int) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", port), 10, source_address=(address, 0))
        sock.settimeout(30)
        self.closers.append(sock.close)
        return sock

    def close(self) -> None:
        for close in self.closers:
            close()
        for server in self.servers:
            log = server.stop()
            assert "Traceback" not in log, log


@pytest.fixture
def served(box) -> Served:
    opened = Served(box.runner.db_path)
    yield opened
    opened.close()


def _fresh(stream: Stream, server, seen: int) -> bool:
    """The stream has sent something new since ``seen`` data events, and it is what
    /live.json says now."""
    data = stream.data()
    return len(data) > seen and data[-1] == json.loads(server.get("/live.json")[2])


# ------------------------------------------------------------------ stopping (defect 7)

def test_sigterm_stops_the_web_promptly_while_a_tv_is_connected(box, served):
    box.play(2)
    server = served.web()
    tv = served.stream(server.port)
    assert wait_for(lambda: tv.data(), 10)
    server.proc.send_signal(signal.SIGTERM)
    # systemd's TimeoutStopSec for the unit is 10 s; the stream ends by itself first
    server.proc.wait(timeout=10)
    assert tv.ended.wait(5)
    log = server.stop()
    assert "timeout graceful shutdown exceeded" not in log, log   # ended, not cancelled


# ------------------------------------------------------------------ slow clients (defect 8)

def _answer(sock: socket.socket) -> bytes:
    """What the server sent before it closed (b"" if it closed without a word)."""
    got = b""
    try:
        while chunk := sock.recv(4096):
            got += chunk
    except OSError:
        pass
    return got


def test_64_idle_and_half_sent_connections_do_not_lock_out_the_tv(box, served):
    box.play(2)
    server = served.web()
    tv = served.stream(server.port)
    assert wait_for(lambda: tv.data(), 10)
    # one guest on the Wi-Fi: 32 connections that say nothing, 32 that stop half-way
    guest = [served.socket_from("127.0.0.2", server.port) for _ in range(64)]
    for sock in guest[1::2]:
        sock.sendall(b"GET / HTTP/1.1\r\nHo")
    # everybody else is still served at once, and the TV's stream follows the game
    status, headers, _ = server.get("/live.json")
    assert status == 200
    seen = len(tv.data())
    box.move()
    assert wait_for(lambda: _fresh(tv, server, seen), 10)
    # what the guest holds is bounded, and each of those is cut off after the head's
    # time; the rest were refused at once (503), all with the security headers
    answers = [_answer(sock) for sock in guest]
    refused = [a for a in answers if a.startswith(b"HTTP/1.1 503 ")]
    timed_out = [a for a in answers if a.startswith(b"HTTP/1.1 408 ")]
    assert len(refused) + len(timed_out) == 64, answers
    assert 0 < len(timed_out) <= 16 < len(refused)
    assert all(b"x-frame-options: DENY" in a and b"content-security-policy" in a
               for a in answers)
    assert not tv.ended.is_set()
    # and the guest may come back like anyone
    assert server.get("/health")[0] == 200


def test_a_request_head_sent_a_byte_at_a_time_is_cut_off(box, served):
    box.play(1)
    server = served.web()
    sock = served.socket_from("127.0.0.3", server.port)
    sock.sendall(b"GET / HTTP/1.1\r\n")
    cut = False
    for _ in range(60):                 # a header line every half second, for 30 s
        try:
            sock.sendall(b"X-a: b\r\n")
        except OSError:
            cut = True
            break
        if select.select([sock], [], [], 0.5)[0]:
            break                       # the server answered: it gave up on this head
    answer = _answer(sock)
    assert cut or answer, "the server kept a trickling head for 30 s"
    assert answer.startswith(b"HTTP/1.1 408 ") or not answer, answer


# ------------------------------------------------------------------ damaged rows (defect 9)

def test_a_row_the_summary_cannot_read_is_reported_once_and_the_streams_stay_open(
        box, monkeypatch, caplog):
    """Whatever row network/live.py cannot read back (it skips those it can), the web
    reports it: /live.json a one-line 409, every TV told (``damaged``) on a stream that
    stays open, the journal once, and the page on again once the record reads."""
    import shutbox_hw.web.content.feed as feed
    real, damaged = feed.live, threading.Event()
    damaged.set()

    def reading(db, now):
        if damaged.is_set():
            json.loads("[6,")           # what a throw row with bad JSON raises
        return real(db, now)
    monkeypatch.setattr(feed, "live", reading)
    box.play(4)
    server = InProcessServer(box.runner.db_path)
    tvs: list[Stream] = []
    try:
        status, headers, body = server.get("/live.json")
        assert status == 409, body
        assert body.count(b"\n") == 1 and b"damaged row" in body, body
        assert headers["x-frame-options"] == "DENY"
        # TVs that come and go (as a browser reconnecting would): each told, none broken
        for _ in range(3):
            tvs.append(Stream(server.port))
            assert wait_for(lambda: any(k == "damaged" for k, _ in tvs[-1].events), 10)
            assert b"200 OK" in tvs[-1].head
        damaged.clear()
        box.move()
        # the same streams carry on with the record
        assert wait_for(lambda: all(tv.data() for tv in tvs), 10)
        assert all(not tv.ended.is_set() for tv in tvs)
        assert server.get("/live.json")[0] == 200
    finally:
        for tv in tvs:
            tv.close()
        server.stop()
    said = [r for r in caplog.records if "damaged row" in r.getMessage()]
    assert len(said) == 1 and said[0].exc_info is None, said   # once, one line


def test_a_throw_row_with_bad_json_never_breaks_the_live_page(box, served):
    """The real damage in the real process: the summary skips the row or reports it (409),
    never a 500; the TVs' streams stay open; no traceback, at most one line of it."""
    box.play(4)
    con = sqlite3.connect(box.runner.db_path, isolation_level=None)
    served.closers.append(con.close)
    good = con.execute("SELECT id, dice FROM throws ORDER BY id DESC LIMIT 1").fetchone()
    con.execute("UPDATE throws SET dice = '[6,' WHERE id = ?", (good[0],))
    server = served.web()
    tvs = []
    for _ in range(3):
        status, _, body = server.get("/live.json")
        assert status in (200, 409), body
        assert status == 200 or body.count(b"\n") == 1, body
        tvs.append(served.stream(server.port))
        assert wait_for(lambda: tvs[-1].events, 10)
        assert b"200 OK" in tvs[-1].head
    con.execute("UPDATE throws SET dice = ? WHERE id = ?", (good[1], good[0]))
    assert wait_for(lambda: all(tv.data() for tv in tvs), 10)   # the record, on each
    assert all(not tv.ended.is_set() for tv in tvs)
    for tv in tvs:
        tv.close()
    assert server.stop().count("damaged row") <= 1


# ------------------------------------------------------------------ the loop (issue 29.2)

def test_a_slow_audits_read_does_not_freeze_a_connected_stream(box, monkeypatch):
    """/audits made as slow as the test wants (it waits in its read until released): while
    it waits, a TV's stream still shows each throw."""
    import shutbox_hw.web.app as web_app
    entered, release = threading.Event(), threading.Event()
    real = web_app.audits

    def slow_audits(*args, **kwargs):
        entered.set()
        release.wait(60)
        return real(*args, **kwargs)
    monkeypatch.setattr(web_app, "audits", slow_audits)
    box.play(2)
    server = InProcessServer(box.runner.db_path)
    tv = Stream(server.port)
    answers: list[int] = []
    try:
        assert wait_for(lambda: tv.data(), 10)
        reader = threading.Thread(
            target=lambda: answers.append(server.get("/audits", timeout=90)[0]))
        reader.start()
        assert entered.wait(10)
        for _ in range(3):
            seen = len(tv.data())
            box.move()
            assert wait_for(lambda seen=seen: _fresh(tv, server, seen), 10)
        assert not answers                   # the slow read was still going on
        release.set()
        reader.join(30)
        assert answers == [200]
    finally:
        release.set()
        tv.close()
        server.stop()


def test_the_live_summary_is_computed_once_per_change_for_all_tvs(box, monkeypatch):
    import shutbox_hw.web.content.feed as feed
    versions: list[int] = []
    real = feed.live

    def counted(db, now):
        summary = real(db, now)
        versions.append(db.execute("PRAGMA data_version").fetchone()[0])
        return summary
    monkeypatch.setattr(feed, "live", counted)
    box.play(1)
    server = InProcessServer(box.runner.db_path)
    tvs = [Stream(server.port) for _ in range(8)]
    try:
        assert wait_for(lambda: all(tv.data() for tv in tvs), 10)
        for _ in range(5):
            seen = len(tvs[0].data())
            box.move()
            assert wait_for(lambda seen=seen: all(_fresh(tv, server, seen) for tv in tvs), 10)
        # every TV got the same summaries, each computed once for its version of the record
        assert all(tv.data() == tvs[0].data() for tv in tvs)
        assert len(tvs[0].data()) >= 5
        assert len(versions) == len(set(versions)), versions
    finally:
        for tv in tvs:
            tv.close()
        server.stop()


# ------------------------------------------------------------------ smaller (defect 10)

def test_a_failed_backup_is_503_with_the_reason(box, served, tmp_path):
    box.play(2)
    (tmp_path / "token").write_text("t0ken-for-the-test\n")
    (tmp_path / "token").chmod(0o600)
    config = tmp_path / "box.toml"
    config.write_text(f'[web]\ntoken_file = "{tmp_path / "token"}"\n')
    server = served.web(config)
    assert server.get("/live.json")[0] == 200
    # the SD card's file is damaged after the web has opened it
    damaged = tmp_path / "damaged"
    damaged.write_bytes(b"not a database at all " * 200)
    os.replace(damaged, box.runner.db_path)
    status, headers, body = server.get("/backup", "POST", b"token=t0ken-for-the-test",
                                       {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 503, body
    assert body.startswith(b"503 the backup failed: the database") and \
        body.count(b"\n") == 1, body
    assert headers["x-frame-options"] == "DENY"
    # the pages say the same, one line each, until the file is a database again
    for path in ("/history", "/audits", "/game/1"):
        status, _, body = server.get(path)
        assert status == 503 and body.count(b"\n") == 1, (path, body)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "[::1]", "192.168.1.20:8080",
                                  f"{socket.gethostname()}.local", "shutbox.local:8080",
                                  socket.gethostname()])
def test_the_box_answers_to_its_own_names_and_addresses(box, served, host):
    box.play(1)
    assert served.web().get("/live.json", headers={"Host": host})[0] == 200


@pytest.mark.parametrize("host", ["[::1].evil.example", "[::1]:8080.evil.example",
                                  "[::1]evil.example", "127.0.0.1:8080:80", "[evil.example]",
                                  "127.0.0.1:80x", "::1", "evil.example/127.0.0.1"])
def test_a_host_that_does_not_parse_strictly_is_refused(box, served, host):
    """Issue 43: ``[::1].evil.example`` is a name of another site, not the loopback."""
    status, headers, body = served.web().get("/live.json", headers={"Host": host})
    assert status == 421 and body.count(b"\n") == 1, body
    assert headers["x-frame-options"] == "DENY"


def test_a_foreign_host_name_is_refused_against_dns_rebinding(box, served):
    box.play(1)
    server = served.web()
    for path in ("/live.json", "/history", "/export/turns.csv", "/live/stream"):
        status, headers, body = server.get(path, headers={"Host": "evil.example:8080"})
        assert status == 421, (path, body)
        assert body.count(b"\n") == 1 and b"evil.example" in body
        assert headers["x-frame-options"] == "DENY"
