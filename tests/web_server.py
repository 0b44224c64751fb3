"""``shutbox-hw web`` as a real process on a free loopback port, for the tests."""

from __future__ import annotations

import http.client
import subprocess
import sys
import time
from pathlib import Path

import pytest
from loopback import free_port

CHECKOUT = Path(__file__).resolve().parent.parent


def need_web() -> None:
    pytest.importorskip("starlette", reason="starlette (the web extra) is not installed")
    pytest.importorskip("uvicorn", reason="uvicorn (the web extra) is not installed")


class WebServer:
    def __init__(self, db: Path, config: Path | None = None) -> None:
        self.port = free_port()
        args = [sys.executable, "-m", "shutbox_hw.cli", "web", "--db", str(db),
                "--listen", f"127.0.0.1:{self.port}"]
        if config is not None:
            args += ["--config", str(config)]
        self.proc = subprocess.Popen(args, cwd=CHECKOUT, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 20
        while time.monotonic() < end:
            try:
                if self.get("/health")[0] == 200:
                    return
            except OSError:
                if self.proc.poll() is not None:
                    said = self.proc.stderr.read() if self.proc.stderr else ""
                    raise RuntimeError(said) from None
                time.sleep(0.1)
        raise RuntimeError("shutbox-hw web did not answer")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, method: str = "GET", body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    response.read())
        finally:
            conn.close()

    def stop(self) -> str:
        """Stops it; its stderr (the log)."""
        self.proc.terminate()
        try:
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err
