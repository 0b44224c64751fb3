"""systemd's notify protocol: READY=1, the watchdog, a status line.

A datagram to ``$NOTIFY_SOCKET`` (abstract when it starts with ``@``);
outside systemd there is no socket and every call does nothing.
"""

from __future__ import annotations

import os
import socket

from ..base.scheduler import Scheduler


class Notifier:
    """The daemon's line to systemd; its watchdog ping is a timer in ``timers``
    (the box's scheduler), so the loop wakes for it."""

    def __init__(self, environ: dict[str, str] | None = None,
                 timers: Scheduler | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):
            address = "\0" + address[1:]
        self.address = address or None
        usec = env.get("WATCHDOG_USEC", "")
        # ping at under half the watchdog interval, as systemd recommends
        self.watchdog_interval_ms = int(usec) // 2000 - 100 if usec.isdigit() else None
        self._last_ping: int | None = None
        self.timer = (Scheduler() if timers is None else timers).timer("watchdog")

    def send(self, message: str) -> bool:
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self.address)
                sock.sendall(message.encode())
            return True
        except OSError:
            return False

    def ready(self, status: str = "") -> None:
        self.send("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def watchdog(self, now_ms: int) -> None:
        """Ping when due; call from the main loop so a hung loop is noticed."""
        if self.watchdog_interval_ms is None:
            return
        if self._last_ping is None or now_ms - self._last_ping >= self.watchdog_interval_ms:
            self.send("WATCHDOG=1")
            self._last_ping = now_ms
            self.timer.at(now_ms + self.watchdog_interval_ms)

    def stopping(self) -> None:
        self.send("STOPPING=1")
