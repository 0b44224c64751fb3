"""Small helpers for the tests that run real servers on loopback (broker, web)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(condition: Callable[[], object], seconds: float, step: float = 0.02) -> bool:
    """Polls ``condition`` until it is true or ``seconds`` have passed; its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())
