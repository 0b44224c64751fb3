"""Seats from a phone, web -> daemon over the local socket: the daemon's real loop
(its Waker, its one work queue) answers each claim with what the controller
decided; and what brings the socket back after a month of faults.

No timed assertions: the waits are safety nets against a hang."""

from __future__ import annotations

import os
import socket
import stat
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from claims_box import RunningBox, short_folder

from shutbox_hw.claims import client, desk, server
from shutbox_hw.claims.server import ClaimServer, ClaimsUnavailable
from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.model import join
from shutbox_hw.hal.contracts.clock import MonotonicClock

WEB = "http://192.168.1.20:8080/"


@pytest.fixture
def short_dir():
    with short_folder() as folder:
        yield folder


@pytest.fixture
def running(tmp_path, short_dir):
    box = RunningBox(tmp_path, short_dir / "claims.sock")
    yield box
    box.close()


def test_a_claim_over_the_socket_takes_a_seat_and_the_box_shows_it(running):
    answer = client.claim(running.sock, "Anna", running.code())
    assert answer == {"ok": True, "seat": 0, "player": "Anna", "players": ["Anna", "P2"]}
    assert [e for e in running.events if e["event"] == "seat_claimed"] == [
        {"event": "seat_claimed", "seat": 0, "player": "Anna", "source": "phone",
         "players": ["Anna", "P2"]}]
    assert running.daemon.controller.screen().players == ("Anna", "P2")
    again = client.claim(running.sock, "anna", running.code())
    assert again == {"ok": False, "reason": "anna is already at the table"}


def test_a_wrong_code_and_a_bad_name_are_refused_in_words(running):
    assert client.claim(running.sock, "Anna", "NOPE99") == {"ok": False, "reason": join.WRONG}
    long = client.claim(running.sock, "x" * 500, running.code())
    assert not long["ok"] and "at most 16" in long["reason"]
    control = client.claim(running.sock, "Bo\x1b[2Jb", running.code())
    assert not control["ok"] and "control characters" in control["reason"]
    assert running.daemon.controller.screen().players == ("P1", "P2")


def test_the_socket_is_for_the_daemon_s_group_only(running):
    mode = os.stat(running.sock).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o660
    assert os.stat(running.sock).st_gid == os.getegid()


def test_200_claims_at_once_each_get_an_answer_and_the_box_plays_on(running):
    code = running.code()
    with ThreadPoolExecutor(64) as pool:
        answers = list(pool.map(lambda i: client.claim(running.sock, f"Player{i}", code),
                                range(200)))
    seated = [a for a in answers if a["ok"]]
    reasons = {a["reason"] for a in answers if not a["ok"]}
    # at most a window's worth reach the seats, eight seats at most, all different
    assert 1 <= len(seated) <= join.CLAIMS_PER_WINDOW
    assert len({a["seat"] for a in seated}) == len(seated)
    assert reasons <= {join.BUSY, server.BUSY, "every seat is taken (8 players)"}
    assert len(answers) == 200
    names = running.daemon.controller.screen().players
    assert set(names) == {a["player"] for a in seated} | {f"P{i}" for i in range(1, 3)
                                                         if len(seated) < i}
    # the loop still answers, and the peers' threads are all given back
    assert client.claim(running.sock, "Late", code)["ok"] in (True, False)
    assert running.server._peers.acquire(blocking=False)


def test_a_peer_that_never_sends_its_line_is_dropped_and_others_are_served(running):
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.connect(running.sock)
    try:
        answer = client.claim(running.sock, "Anna", running.code())   # not held up by it
        assert answer["ok"]
        silent.settimeout(10)
        line = silent.recv(1000)        # dropped after the read timeout, told why
        assert b"no whole line" in line
    finally:
        silent.close()


def test_a_line_that_is_not_the_protocol_is_answered_not_obeyed(running):
    for raw in (b"{not json\n", b"[1, 2]\n", b'{"claim": {"name": 5}}\n', b"x" * 5000):
        peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        peer.settimeout(10)
        peer.connect(running.sock)
        try:
            peer.sendall(raw)
            assert b'"ok":false' in peer.recv(1000)
        finally:
            peer.close()
    assert running.daemon.controller.screen().players == ("P1", "P2")


def test_deeply_nested_brackets_are_refused_in_words_not_a_traceback(running, caplog):
    for raw in (b"[" * 2001 + b"\n", b'{"a":' * 400 + b"\n", b"{" * 2047 + b"\n"):
        peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        peer.settimeout(10)
        peer.connect(running.sock)
        try:
            peer.sendall(raw)
            answer = peer.recv(1000)
        finally:
            peer.close()
        assert answer.startswith(b'{"ok":false,"reason":"not understood') and b"brackets" in answer
    assert "Traceback" not in caplog.text and "failed" not in caplog.text
    assert client.claim(running.sock, "Anna", running.code())["ok"]      # still serving


def test_one_phone_address_takes_one_seat_over_the_socket(running):
    code = running.code()
    assert client.claim(running.sock, "Anna", code, "192.168.1.31")["seat"] == 0
    second = client.claim(running.sock, "Bob", code, "192.168.1.31")
    ticket = second["asking"]                    # put to the box: the phone waits
    assert second == {"ok": False, "asking": ticket,
                      "reason": join.ASKING.format(name="Bob")}
    assert client.asked(running.sock, ticket) == second
    assert client.claim(running.sock, "Cleo", code, "192.168.1.32")["seat"] == 1
    assert running.daemon.controller.screen().question == "Same phone: seat Bob?"
    running.press("next")                        # the box's players say no
    for _ in range(1000):
        if "asking" not in client.asked(running.sock, ticket):
            break
        threading.Event().wait(0.01)
    assert client.asked(running.sock, ticket) == {"ok": False, "reason": join.DECLINED}
    assert client.asked(running.sock, "x" * 16) == {"ok": False,
                                                    "reason": server.UNKNOWN_TICKET}
    assert client.asked(running.sock, "x" * 65)["reason"].startswith("not understood")
    assert running.daemon.controller.screen().players == ("Anna", "Cleo")


def test_the_web_saying_where_it_runs_puts_the_qr_code_on_the_setup_screen(running):
    assert running.daemon.controller.screen().join is None      # no web heard of yet
    client.say_web(running.sock, WEB)
    running.waker.wake()
    for _ in range(1000):       # the loop's next step hands the address on
        if running.daemon.controller.screen().join is not None:
            break
        threading.Event().wait(0.01)
    assert running.daemon.controller.screen().join == f"{WEB}join/{running.code()}"


def test_where_web_url_is_set_the_address_said_over_the_socket_is_not_taken(tmp_path,
                                                                             short_dir):
    box = RunningBox(tmp_path, short_dir / "claims.sock",
                     'web_url = "https://scores.example.org/box/"\n')
    try:
        assert box.server.fixed_url == "https://scores.example.org/box/"
        client.say_web(box.sock, "http://evil.example/")       # anyone in the group
        box.waker.wake()
        for _ in range(1000):
            if box.daemon.controller.screen().join is not None:
                break
            threading.Event().wait(0.01)
        assert box.daemon.controller.screen().join == \
            f"https://scores.example.org/box/join/{box.code()}"
    finally:
        box.close()


def test_a_daemon_that_is_not_running_is_not_answering(short_dir):
    with pytest.raises(client.BoxNotAnswering):
        client.claim(str(short_dir / "claims.sock"), "Anna", "K7M2QD")


def test_a_socket_file_left_by_a_crash_is_replaced(short_dir):
    path = str(short_dir / "claims.sock")
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)
    dead.close()                     # the file stays, nobody listens: as after a crash
    with pytest.raises(client.BoxNotAnswering):
        client.claim(path, "Anna", "K7M2QD")
    first = ClaimServer(path, lambda: None, MonotonicClock().now_ms)
    first.start()
    try:
        assert client.ask(path, {"web": {"url": WEB}}) == {"ok": True}
        second = ClaimServer(path, lambda: None, MonotonicClock().now_ms)
        with pytest.raises(ClaimsUnavailable, match="another process listens"):
            second.start()               # a live one is left alone
    finally:
        first.close()
    assert not os.path.exists(path)      # closed: its file goes with it


def test_a_file_that_is_not_a_socket_is_left_alone_and_said(short_dir):
    path = short_dir / "claims.sock"
    path.write_text("notes")
    with pytest.raises(ClaimsUnavailable, match="not a socket: remove it"):
        ClaimServer(str(path), lambda: None, MonotonicClock().now_ms).start()
    assert path.read_text() == "notes"


def test_codes_are_random_in_the_alphabet_and_the_url_is_the_join_page():
    codes = {desk.new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(c) == desk.CODE_LENGTH and set(c) <= set(desk.CODE_LETTERS) for c in codes)
    assert desk.join_url("http://box.local:8080/", "K7M2QD") == \
        "http://box.local:8080/join/K7M2QD"


def test_the_socket_s_path_is_a_config_key_checked_like_the_others(tmp_path, monkeypatch):
    from shutbox_hw.config.config_file import check_config
    conf = tmp_path / "box.toml"
    conf.write_text('[network]\nclaims_socket = "claims.sock"\n')
    [problem] = check_config(conf)
    assert "claims_socket" in problem and "absolute path" in problem
    conf.write_text('[network]\nclaims_socket = ""\n')
    assert check_config(conf) == [] and load_config(conf).network.claims_path is None   # off
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    assert load_config().network.claims_path == "/run/shutbox-hw/claims.sock"
    monkeypatch.setenv("RUNTIME_DIRECTORY", "/run/box")      # what systemd gives the daemon
    assert load_config().network.claims_path == "/run/box/claims.sock"


def test_the_units_let_the_web_reach_the_socket_and_nobody_else():
    from test_systemd_unit import last, parse
    systemd = Path(__file__).resolve().parent.parent / "systemd"
    box = parse((systemd / "shutbox-hw.service").read_text())
    web = parse((systemd / "shutbox-hw-web.service").read_text())
    dropin = parse((systemd / "shutbox-hw-web.conf").read_text())
    # the default path is in the box's own runtime directory, which only its group enters
    assert f"/run/{last(box, 'Service', 'RuntimeDirectory')}/claims.sock" == \
        "/run/shutbox-hw/claims.sock"
    assert last(dropin, "Service", "RuntimeDirectoryMode") == "0750"
    assert last(box, "Service", "Group") in last(web, "Service", "SupplementaryGroups").split()
    assert "AF_UNIX" in last(box, "Service", "RestrictAddressFamilies").split()
    assert "AF_UNIX" in last(web, "Service", "RestrictAddressFamilies").split()


LISTENER = """
import os, resource, sys, threading, time
from shutbox_hw.claims.server import ClaimServer
server = ClaimServer(sys.argv[1], lambda: None, lambda: int(time.monotonic() * 1000))
server.start()
room = len(os.listdir("/proc/self/fd")) + 3     # three peers at most, then EMFILE
resource.setrlimit(resource.RLIMIT_NOFILE, (room, room))
print("ready", flush=True)
sys.stdin.read()                                  # until the test is done
server.close()
"""


def test_out_of_descriptors_the_listener_waits_and_serves_again(short_dir):
    """A real EMFILE: the listener's process may hold only a few descriptors; a crowd of
    peers that never send their line uses them up; once they are dropped, it serves."""
    import subprocess
    import sys
    path = str(short_dir / "claims.sock")
    child = subprocess.Popen([sys.executable, "-c", LISTENER, path], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        silent = []
        for _ in range(8):                       # more than it has room for
            peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            peer.connect(path)                   # the kernel's backlog takes them all
            silent.append(peer)
        answered = None
        for _ in range(100):                     # the silent ones are dropped after 2 s
            try:
                answered = client.ask(path, {"web": {"url": WEB}}, timeout_s=10)
                break
            except client.BoxNotAnswering:
                threading.Event().wait(0.2)
        assert answered == {"ok": True}
        for peer in silent:
            peer.close()
        assert child.poll() is None              # it never died
    finally:
        child.stdin.close()
        child.wait(20)
    assert "Too many open files" in child.stderr.read()
