"""``shutbox-hw web`` as a real process on a free loopback port, for the tests; the same app
on the same uvicorn server in a thread of the test (to slow down or count what it calls);
and an event-stream client that keeps every event it gets."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from forked import PIPE, Forked
from loopback import free_port

CHECKOUT = Path(__file__).resolve().parent.parent


def need_web() -> None:
    pytest.importorskip("starlette", reason="starlette (the web extra) is not installed")
    pytest.importorskip("uvicorn", reason="uvicorn (the web extra) is not installed")


class Client:
    """Plain requests to a web process on 127.0.0.1:``port``."""
    port: int

    def wait_until_up(self, died: Any = lambda: None) -> None:
        end = time.monotonic() + 20
        while time.monotonic() < end:
            try:
                if self.get("/health")[0] == 200:
                    return
            except OSError:
                said = died()
                if said is not None:
                    raise RuntimeError(said) from None
                time.sleep(0.1)
        raise RuntimeError("shutbox-hw web did not answer")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, method: str = "GET", body: bytes | None = None,
            headers: dict[str, str] | None = None, timeout: float = 10,
            source: str | None = None) -> tuple[int, dict[str, str], bytes]:
        """``source``: the loopback address to send from (127.0.0.x: another phone)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout,
                                          source_address=(source, 0) if source else None)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    response.read())
        finally:
            conn.close()



class WebServer(Client):
    def __init__(self, db: Path, config: Path | None = None, port: int | None = None) -> None:
        self.port = port or free_port()
        args = ["web", "--db", str(db), "--listen", f"127.0.0.1:{self.port}"]
        if config is not None:
            args += ["--config", str(config)]
        # a real process, forked from the warm interpreter (tests/forked.py)
        self.proc = Forked(args, cwd=CHECKOUT, stdout=PIPE, stderr=PIPE)
        self.wait_until_up(self._died)

    def _died(self) -> str | None:
        if self.proc.poll() is None:
            return None
        return self.proc.output()[1]

    def stop(self) -> str:
        """Stops it (once); its stderr (the log)."""
        if getattr(self, "log", None) is None:
            self.proc.terminate()
            try:
                _, err = self.proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                _, err = self.proc.communicate()
            self.log: str | None = err
        return self.log or ""


class InProcessServer(Client):
    """The real app (``make_app``) on the real server (``make_server``), in a thread."""

    def __init__(self, db: Path) -> None:
        from shutbox_hw.commands.serve.web import listening_socket, make_server
        from shutbox_hw.web.app import make_app
        self.port = free_port()
        sock = listening_socket("127.0.0.1", self.port)
        self.app = make_app(db, None)
        self.server = make_server(self.app)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       daemon=True)
        self.thread.start()
        self.wait_until_up()

    def stop(self) -> None:
        self.server.handle_exit(15, None)   # as SIGTERM does
        self.thread.join(30)


class Stream:
    """``GET /live/stream`` on a raw socket; every event kept as (event type, data)."""

    def __init__(self, port: int, host: str = "localhost") -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), 10)
        self.sock.sendall(f"GET /live/stream HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        self.sock.settimeout(None)
        self.head = b""
        self.events: list[tuple[str, str]] = []
        self.ended = threading.Event()
        threading.Thread(target=self._listen, daemon=True).start()

    def _listen(self) -> None:
        kind = "message"
        try:
            for raw in self.sock.makefile("rb"):
                text = raw.rstrip(b"\r\n").decode("utf-8", "replace")
                if not self.events and text.startswith("HTTP/"):
                    self.head = raw
                if text.startswith("event: "):
                    kind = text[7:]
                elif text.startswith("data: "):
                    self.events.append((kind, text[6:]))
                    kind = "message"
        except OSError:
            pass               # the test closed it
        self.ended.set()

    def data(self) -> list[dict[str, Any]]:
        return [json.loads(d) for k, d in list(self.events) if k == "message"]

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
