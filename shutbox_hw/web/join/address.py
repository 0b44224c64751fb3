"""Where phones find the join page, and the web telling the box so.

:func:`web_base`: ``[network] web_url`` when set, else ``http://<the box's address
on the LAN>:<port>/``. :class:`Announcer` says it to the daemon every
:data:`ANNOUNCE_S` over the claims socket; a daemon that has not heard it for a
while shows no QR code (the web is not running).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import threading

from ...claims import client

log = logging.getLogger("shutbox_hw.web")

ANNOUNCE_S = 30.0          # the web tells the daemon where it runs this often


def web_base(web_url: str | None, host: str, port: int) -> str | None:
    """Where phones find the pages: ``web_url``, else this machine's address on the LAN
    (the one its default route leaves by: no packet is sent) and ``port``; None when
    the pages are on the loopback only or the box has no network."""
    if web_url:
        return web_url if web_url.endswith("/") else web_url + "/"
    address: str | None = host
    if host in ("0.0.0.0", "::", ""):
        address = lan_address(socket.AF_INET6 if host == "::" else socket.AF_INET)
    if address is None:
        return None
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        ip = None
    if ip is not None and (ip.is_loopback or ip.is_unspecified):
        return None
    shown = f"[{address}]" if ip is not None and ip.version == 6 else address
    return f"http://{shown}/" if port == 80 else f"http://{shown}:{port}/"


def lan_address(family: int = socket.AF_INET) -> str | None:
    """The source address of this machine's default route (None: no network)."""
    probe = socket.socket(family, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 9) if family == socket.AF_INET else ("fd00::1", 9))
        address: str = probe.getsockname()[0]
    except OSError:
        return None
    finally:
        probe.close()
    return address


class Announcer:
    """A thread telling the daemon, every :data:`ANNOUNCE_S`, where the pages run."""

    def __init__(self, path: str, base: str, every_s: float = ANNOUNCE_S) -> None:
        self.path, self.base, self.every_s = path, base, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="shutbox-web-announce",
                                        daemon=True)
        self._said: bool | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            try:
                client.say_web(self.path, self.base)
                heard = True
            except client.BoxNotAnswering as error:
                heard = False
                if self._said is not False:
                    log.info("the box is not answering on its claims socket (%s): "
                             "no QR codes until it does", error)
            if heard and self._said is not True:
                log.info("phones join at %sjoin/...", self.base)
            self._said = heard
            if self._stop.wait(self.every_s):
                return
