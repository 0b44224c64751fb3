"""The real daemon at every replay point of the crash check, cheaply: a zygote.

``shutbox-hw run`` as a new process costs seconds under QEMU, nearly all of it
importing Python. So :mod:`crash_replay` (the zygote) imports the package once
and, for each point, forks a child that runs the very entry systemd runs
(``shutbox_hw.commands.cli.main(["run", "--config", ...])``, the real pins through
lgpio on gpio-sim, the real store) on a copy of the point's database, with a
``NOTIFY_SOCKET`` of its own; the zygote waits for ``READY=1`` on it, then
stops the child with SIGTERM as systemd would. lgpio is never imported by the
zygote: its notification thread would not survive the fork, so each child
loads it itself.

gpio-sim keeps a line's level where its pull is, and a program asking for the
line with a pull-up (as the daemon does) sets that pull: a shut flap would read
open. A real switch to ground wins over the Pi's weak pull-up, so
:class:`LineWatch` follows the kernel's line-info watch on the flap lines and
puts a shut flap's pull back down each time the daemon requests or
reconfigures its line, before the daemon reads the levels (it reads them once
every line is claimed). The events the daemon shows at boot must equal those
of the simulated box booted on the same disk with the same flaps, which
would catch a flap read open.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import shutil
import signal
import socket
import struct
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from devices import GpioSim
from journal import parse_event

# <linux/gpio.h>: _IOWR(0xB4, 0x06, struct gpio_v2_line_info) and the event it queues
LINEINFO_WATCH = 0xC100B406
INFO_SIZE, CHANGED_SIZE = 256, 288
OFFSET_AT, TYPE_AT = 64, 264                 # gpio_v2_line_info.offset, ..._changed.event_type
REQUESTED, RELEASED, CONFIG = 1, 2, 3
READY_LIMIT_S = 60
STOP_LIMIT_S = 20


def preload() -> list[str]:
    """Import what ``shutbox-hw run`` imports, except lgpio; the modules still
    loaded by each child (should be lgpio's alone)."""
    import gpiozero  # noqa: F401
    import smbus2  # noqa: F401

    import shutbox_hw.commands.box.run  # noqa: F401
    import shutbox_hw.commands.cli  # noqa: F401
    import shutbox_hw.config.boot_config  # noqa: F401
    import shutbox_hw.config.config_file  # noqa: F401
    import shutbox_hw.daemon.daemon  # noqa: F401
    import shutbox_hw.hal.adapters.box  # noqa: F401
    import shutbox_hw.hal.adapters.display  # noqa: F401
    import shutbox_hw.hal.adapters.gpio  # noqa: F401
    import shutbox_hw.network.hookup  # noqa: F401
    import shutbox_hw.store.disk.lock  # noqa: F401
    if "lgpio" in sys.modules:
        raise RuntimeError("the zygote imported lgpio: its thread would not survive a fork")
    return ["lgpio"]


def changes(data: bytes) -> list[tuple[int, int]]:
    """(line offset, event type) of each ``gpio_v2_line_info_changed`` in ``data``."""
    return [(struct.unpack_from("<I", data, at + OFFSET_AT)[0],
             struct.unpack_from("<I", data, at + TYPE_AT)[0])
            for at in range(0, len(data) - CHANGED_SIZE + 1, CHANGED_SIZE)]


class LineWatch:
    """The kernel's line-info watch on some lines of a GPIO chip."""

    def __init__(self, dev: str, lines: list[int]) -> None:
        self.fd = os.open(dev, os.O_RDONLY | os.O_NONBLOCK)
        for line in lines:
            info = bytearray(INFO_SIZE)
            struct.pack_into("<I", info, OFFSET_AT, line)
            fcntl.ioctl(self.fd, LINEINFO_WATCH, info)

    def take(self) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        while True:
            try:
                data = os.read(self.fd, CHANGED_SIZE * 64)
            except BlockingIOError:
                return out
            out += changes(data)

    def close(self) -> None:
        os.close(self.fd)


class RealDaemon:
    """Boots ``shutbox-hw run`` on copies of replayed databases, one child a point."""

    def __init__(self, config: Path, work: Path, flap_lines: dict[int, int]) -> None:
        self.work = work
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        self.dbdir = work / "db"
        self.config = work / "run.toml"
        text, n = re.subn(r'(?m)^db = .*$', f'db = "{self.dbdir / "shutbox.db"}"',
                          config.read_text())
        if n != 1:
            raise RuntimeError(f"no single 'db =' line in {config}")
        self.config.write_text(text)
        self.flap_lines = flap_lines
        self.sim = GpioSim.existing()
        self.notify = work / "notify.sock"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.notify))
        self.sock.setblocking(False)
        self.watch = LineWatch(self.sim.dev, sorted(flap_lines.values()))
        self.repulls = 0
        preload()

    def close(self) -> None:
        self.watch.close()
        self.sock.close()

    def _drain(self) -> list[bytes]:
        out = []
        while True:
            try:
                out.append(self.sock.recv(4096))
            except BlockingIOError:
                return out

    def boot(self, found: Path, shut: tuple[int, ...]) -> dict[str, Any]:
        """The daemon on a copy of the database files in ``found`` with the flaps
        ``shut``: until READY=1, then SIGTERM. Its exit status, seconds to READY
        (None: never), the events it logged before READY and its complaints."""
        shutil.rmtree(self.dbdir, ignore_errors=True)
        shutil.copytree(found, self.dbdir)
        down = {self.flap_lines[t] for t in shut}
        for line in self.flap_lines.values():
            self.sim.pull(line, "down" if line in down else "up")
        self.watch.take()
        self._drain()
        log = self.work / "daemon.log"
        lg_wd = self.work / "lgpio"          # lgpio's FIFO: a folder for each child
        shutil.rmtree(lg_wd, ignore_errors=True)
        lg_wd.mkdir()
        sys.stdout.flush()
        sys.stderr.flush()
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            self._child(log, lg_wd)
        ready: float | None = None
        rc: int | None = None
        while ready is None and time.monotonic() - t0 < READY_LIMIT_S:
            readable, _, _ = select.select([self.watch.fd, self.sock], [], [], 0.05)
            for line, kind in self.watch.take():
                if line in down and kind in (REQUESTED, CONFIG):
                    self.sim.pull(line, "down")   # the switch still shorts it to ground
                    self.repulls += 1
            if any(b"READY=1" in d.split(b"\n") for d in self._drain()):
                ready = time.monotonic() - t0
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
                break
        if rc is None:
            rc = self._stop(pid)
        text = log.read_text(errors="replace")
        lines = text.splitlines()
        # "shutbox-hw running" is logged just after READY=1: the boot's events come before
        upto = next((i for i, line in enumerate(lines) if "shutbox-hw running:" in line),
                    len(lines))
        events = [e for e in (parse_event(line)[0] for line in lines[:upto]) if e is not None]
        complaints = [line for line in lines
                      if line.startswith(("ERROR", "CRITICAL", "Traceback", "shutbox-hw run"))]
        return {"rc": rc, "ready_s": ready, "events": events, "complaints": complaints,
                "db": self.dbdir / "shutbox.db"}

    def _stop(self, pid: int) -> int:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_LIMIT_S
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.02)
        os.kill(pid, signal.SIGKILL)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    def _child(self, log: Path, lg_wd: Path) -> None:
        """In the fork: the daemon's own entry, its output to ``log``; never returns."""
        rc = 70
        try:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
            self.sock.close()
            self.watch.close()
            os.environ["NOTIFY_SOCKET"] = str(self.notify)
            os.environ.pop("WATCHDOG_USEC", None)
            os.environ["LG_WD"] = str(lg_wd)
            from shutbox_hw.commands.cli import main
            rc = main(["run", "--config", str(self.config)])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - the log says what, the status that it failed
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
