"""A guest on the pub's Wi-Fi against the real ``shutbox-hw web`` (issue 43): floods of
half-sent connections from many loopback addresses (127.0.0.x) leave the TV that
follows the event stream following, and a new TV and a phone served; every refusal
carries the pages' security headers; forwarded headers are believed from nobody
unless a proxy is configured.

Bounded: at most 350 sockets, each closed by the server within its head's time."""

from __future__ import annotations

import socket

import pytest
from loopback import wait_for
from test_web_stays_up import Served, _answer, _fresh, box  # noqa: F401  (the fixtures)
from web_server import Stream

from shutbox_hw.web.app import TOKEN_TRIES
from shutbox_hw.web.gate.protocol import MAX_CONNECTIONS, PER_CLIENT


@pytest.fixture
def served(box):  # noqa: F811
    opened = Served(box.runner.db_path)
    yield opened
    opened.close()


def _flood(served: Served, port: int, addresses: int, each: int) -> list[socket.socket]:
    """``each`` connections from each of ``addresses`` loopback addresses, every one
    stopping half-way through its request's head."""
    socks = []
    for a in range(addresses):
        for _ in range(each):
            sock = served.socket_from(f"127.0.0.{10 + a}", port)
            try:
                sock.sendall(b"GET /live.json HTTP/1.1\r\nHo")
            except OSError:
                pass                       # refused and closed already
            socks.append(sock)
    return socks


def _served_alongside(served: Served, server, game, tv: Stream) -> None:
    """The TV that follows keeps following, a new TV and a phone are served."""
    phone = server.get("/", headers={"Accept": "text/html"}, source="127.0.0.200")
    assert phone[0] == 200, phone
    # a phone opening the join page gets the page's own answer (a game is under way)
    status, _, page = server.get("/join/K7M2QD", source="127.0.0.201")
    assert status == 409 and b"Join the game" in page and b"under way" in page, (status, page)
    new_tv = served.stream(server.port)
    assert wait_for(lambda: new_tv.data(), 10)
    seen = len(tv.data())
    game.move()
    assert wait_for(lambda: _fresh(tv, server, seen), 10)
    assert wait_for(lambda: new_tv.data()[-1] == tv.data()[-1], 10)
    assert not tv.ended.is_set() and not new_tv.ended.is_set()


def test_17_addresses_with_16_half_sent_connections_each_lock_out_nobody(box, served):  # noqa: F811
    box.play(2)
    server = served.web()
    tv = served.stream(server.port)
    assert wait_for(lambda: tv.data(), 10)
    guests = _flood(served, server.port, 17, 16)
    _served_alongside(served, server, box, tv)
    answers = [_answer(sock) for sock in guests]          # each closed within the head's time
    assert all(a.startswith((b"HTTP/1.1 503 ", b"HTTP/1.1 408 ")) for a in answers), answers
    assert all(b"x-frame-options: DENY" in a and b"content-security-policy" in a
               for a in answers)
    # each address held at most its share; the rest were refused at once
    assert sum(a.startswith(b"HTTP/1.1 408 ") for a in answers) <= 17 * PER_CLIENT
    assert sum(b"connections open already" in a for a in answers) >= 17 * (16 - PER_CLIENT)


def test_a_full_server_drops_the_oldest_half_sent_head_for_a_new_tv(box, served):  # noqa: F811
    box.play(2)
    server = served.web()
    tv = served.stream(server.port)
    assert wait_for(lambda: tv.data(), 10)
    count = MAX_CONNECTIONS // PER_CLIENT + 8          # more addresses than fit: 348 sockets
    guests = _flood(served, server.port, count, PER_CLIENT)
    _served_alongside(served, server, box, tv)
    answers = [_answer(sock) for sock in guests]
    busy = [i for i, a in enumerate(answers) if b"the box is busy" in a]
    # the server was full: half-sent heads made room, the first (oldest) ones first
    assert len(busy) >= len(guests) - MAX_CONNECTIONS
    assert busy[:5] == list(range(5)), busy[:20]
    assert all(a.startswith((b"HTTP/1.1 503 ", b"HTTP/1.1 408 ")) and b"x-frame-options: DENY"
               in a for a in answers)


TOKEN = "a-token-of-twenty-chars"


def _with_backup(served: Served, folder, extra: str = ""):
    """A web process with the backup on (and ``extra`` in its [web] table)."""
    token = folder / "token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    config = folder / "web.toml"
    config.write_text(f'[web]\ntoken_file = "{token}"\n{extra}')
    return served.web(config)


def test_forwarded_headers_are_believed_from_nobody_without_a_proxy(box, served,  # noqa: F811
                                                                   tmp_path):
    """uvicorn would believe X-Forwarded-For from the loopback: a guest there (or behind
    a proxy nobody configured) could be any address to the pages' limits."""
    box.play(1)
    server = _with_backup(served, tmp_path)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    answers = [server.get("/backup", "POST", b"token=guess", {**form, "X-Forwarded-For":
                                                              f"10.9.{i}.1"},
                          source="127.0.0.77")[0] for i in range(TOKEN_TRIES + 2)]
    assert answers == [403] * TOKEN_TRIES + [429, 429]   # one address, whatever it said


def test_a_proxy_is_configured_by_its_address(tmp_path):
    from shutbox_hw.base.errors import UserError
    from shutbox_hw.config.config_file import load_config
    good = tmp_path / "good.toml"
    good.write_text('[web]\nproxies = "127.0.0.1, 192.168.1.0/24"\n')
    assert load_config(good).web.proxy_list == ["127.0.0.1", "192.168.1.0/24"]
    assert load_config().web.proxy_list == []
    bad = tmp_path / "bad.toml"
    bad.write_text('[web]\nproxies = "*"\n')
    with pytest.raises(UserError, match="proxies"):
        load_config(bad)


def test_an_export_left_unread_is_dropped_and_its_read_transaction_ends(tmp_path, monkeypatch):
    """Issue 43, 4: a client that starts /export/turns.csv and stops reading held a read
    transaction open for as long as it waited (the WAL could not be checkpointed).
    The real app on the real server in a thread, the send timeout made 3 s."""
    import sqlite3
    import sys

    from web_server import CHECKOUT, InProcessServer, need_web

    import shutbox_hw.web.gate.protocol as protocol
    need_web()
    sys.path.insert(0, str(CHECKOUT / "benchmarks"))
    from web_export import build  # the benchmark's big record: one game copied
    db = tmp_path / "big.db"
    build(db, 120_000)                     # about 7 MB of CSV: more than the sockets hold
    writer = sqlite3.connect(db, isolation_level=None, timeout=0.5)
    writer.execute("PRAGMA journal_mode=WAL")      # as the box keeps it
    monkeypatch.setattr(protocol, "SEND_TIMEOUT_S", 3.0)
    server = InProcessServer(db)
    reader = socket.socket()
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        reader.connect(("127.0.0.1", server.port))
        reader.sendall(b"GET /export/turns.csv HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert reader.recv(4096).startswith(b"HTTP/1.1 200 ")   # then it reads no more

        def checkpointed() -> bool:
            writer.execute("UPDATE games SET ended_at = ended_at WHERE id = 1")  # a frame
            busy, _, _ = writer.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            return busy == 0
        # the export's transaction holds the WAL (its query may start just after the
        # head is sent: on a loaded machine the first try came before it)
        assert wait_for(lambda: not checkpointed(), 2.5), "the export never held the WAL"
        assert wait_for(checkpointed, 20), "the export still holds its read transaction"
        reader.settimeout(20)
        try:
            while reader.recv(65536):      # what was in the buffers, then the end
                pass
        except ConnectionResetError:
            pass                           # aborted: a reset is the end as well
        assert server.get("/health")[0] == 200
    finally:
        reader.close()
        writer.close()
        server.stop()


def test_a_weak_or_readable_token_leaves_the_backup_off_and_says_why(box, served,  # noqa: F811
                                                                      tmp_path):
    """At start, as check-config: the pages serve on, the backup waits for a good token."""
    box.play(1)
    token = tmp_path / "token"
    config = tmp_path / "web.toml"
    config.write_text(f'[web]\ntoken_file = "{token}"\n')
    for text, mode, words in (("x", 0o600, "at least 16"),
                              (TOKEN, 0o644, "read by everyone")):
        token.write_text(text + "\n")
        token.chmod(mode)
        server = served.web(config)
        status, _, body = server.get("/backup", "POST", f"token={text}".encode(),
                                     {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 404 and b"off" in body
        assert server.get("/live.json")[0] == 200
        served.servers.remove(server)
        log = server.stop()
        assert words in log, log
        assert len(text) == 1 or text not in log          # the token is never written out


def test_a_failure_before_any_page_is_a_500_with_the_security_headers(box, monkeypatch):  # noqa: F811
    """uvicorn's own 500 (the app failed before it answered) carries none of the pages'
    headers: ours does, and says where the details are."""
    from web_server import InProcessServer

    import shutbox_hw.web.content.language as language

    async def broken(self) -> str:
        raise RuntimeError("the language could not be chosen")
    box.play(1)
    server = InProcessServer(box.runner.db_path)
    monkeypatch.setattr(language.BoxLanguage, "__call__", broken)
    try:
        status, headers, body = server.get("/live.json")
        assert status == 500 and b"journal" in body and body.count(b"\n") == 1
        assert headers["x-frame-options"] == "DENY" and "content-security-policy" in headers
        assert server.get("/health", headers={"Accept-Language": "de"})[0] == 500
    finally:
        server.stop()


def test_behind_a_configured_proxy_the_forwarded_address_is_the_one_counted(box, served,  # noqa: F811
                                                                             tmp_path):
    """``[web] proxies``: the proxy's own address is spared the per-address connection
    limit (every guest comes through it), the pages' limits count the forwarded one."""
    box.play(1)
    server = _with_backup(served, tmp_path, 'proxies = "127.0.0.88"\n')
    held = [served.socket_from("127.0.0.88", server.port) for _ in range(PER_CLIENT + 4)]
    assert server.get("/health", source="127.0.0.88")[0] == 200     # not refused at once
    form = {"Content-Type": "application/x-www-form-urlencoded"}

    def backup(token_text: str, guest: str) -> int:
        return server.get("/backup", "POST", f"token={token_text}".encode(),
                          {**form, "X-Forwarded-For": guest}, source="127.0.0.88")[0]
    assert [backup("guess", "192.168.1.31") for _ in range(TOKEN_TRIES + 1)] == \
        [403] * TOKEN_TRIES + [429]
    assert backup(TOKEN, "192.168.1.32") == 200   # another guest
    for sock in held:
        sock.close()
