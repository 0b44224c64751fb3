"""What the box must refuse, and how it refuses, under systemd (issue 19): an upgrade
whose new version refuses the config leaves the old one playing; a pin the kernel
holds stops the unit once, with its one-line reason, and no restart loop.

Called by the full rehearsal (``full.py``) on its installed gpio-9 box.
"""

from __future__ import annotations

import fcntl
import os
import struct
import time
from pathlib import Path
from typing import Any

from devices import sh

UNIT = "shutbox-hw"
VENV_LINK = Path("/opt/shutbox-hw/.venv")     # install.sh's link to the version in use
REFUSING = Path(os.environ.get("RH_REFUSING", "/nonexistent"))   # version 9.9.9 (rehearse)
BOOT_CONFIG = Path("/boot/firmware/config.txt")
RESTART_SEC = 5                                # the unit's RestartSec=
ROLL, NEXT = 23, 24
# <linux/gpio.h>: _IOWR(0xB4, 0x07, struct gpio_v2_line_request), 592 bytes
GET_LINE, REQUEST_SIZE, FLAG_INPUT = 0xC250B407, 592, 1 << 2
CONSUMER_AT, FLAGS_AT, NUM_LINES_AT, FD_AT = 256, 288, 560, 588


def refused_upgrade(r: Any) -> None:
    """Version 9.9.9 (built by rehearse from the checkout with ROLL's BCM 23 kept
    back) refuses the config: install.sh says why and exits 2, nothing is switched,
    the running version is not even restarted and the game goes on."""
    name = "refused-upgrade-leaves-the-old-version-playing"
    if not REFUSING.is_dir():
        r.report.check(name, False, f"no {REFUSING} (rehearse builds it)")
        return
    link, pid = os.readlink(VENV_LINK), r.prop("MainPID")
    out = sh(str(REFUSING / "src/systemd/install.sh"), "--wheels", str(REFUSING / "wheels"),
             "--skip-system-packages", timeout=600, check=False)
    text = (out.stdout + out.stderr).strip()
    (Path(os.environ["RH_RUN"]) / "install-refused.log").write_text(text + "\n")
    # the game goes on: flap 5 shut, and ROLL takes it
    from full import GPIO9_FLAPS
    r.pull(GPIO9_FLAPS[5], "down")
    time.sleep(0.5)
    mark = r.journal.mark()
    at = r.press(ROLL)
    ev = r.event_after(mark, "throw_committed", at)
    kept = sorted(p.name for p in (VENV_LINK.parent / "versions").iterdir())
    said = [line for line in text.splitlines() if "kept back by 9.9.9" in line]
    r.check(name, lambda: (
        out.returncode == 2 and any("roll: BCM 23 is kept back by 9.9.9" in s for s in said)
        and "keeps running, nothing changed" in text and os.readlink(VENV_LINK) == link
        and r.prop("MainPID") == pid and r.running()
        and not any(v.startswith("9.9.9") for v in kept)
        and ev is not None and ev.get("closed") == [5],
        f"exit {out.returncode}; said {(said or ['nothing of BCM 23'])[0][:90]!r}; "
        f"{VENV_LINK} -> {os.readlink(VENV_LINK)} (was {link}); pid {r.prop('MainPID')} "
        f"(was {pid}); versions {kept}; next throw {ev and ev.get('closed')}"))


def hold_line(chip: str, line: int) -> int:
    """Request ``line`` of ``chip`` as an input (as a kernel driver would hold it);
    the request's fd, which holds it until closed."""
    req = bytearray(REQUEST_SIZE)
    struct.pack_into("<I", req, 0, line)
    req[CONSUMER_AT:CONSUMER_AT + 12] = b"kernel-held\0"
    struct.pack_into("<Q", req, FLAGS_AT, FLAG_INPUT)
    struct.pack_into("<I", req, NUM_LINES_AT, 1)
    fd = os.open(chip, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, GET_LINE, req)
    finally:
        os.close(fd)
    return struct.unpack_from("<i", req, FD_AT)[0]


def fails_once(r: Any, name: str, reason: str) -> None:
    """Start the unit: it must fail at once with exit 2, say ``reason`` in one journal
    line and in ``systemctl status``, and not be started again."""
    sh("systemctl", "reset-failed", UNIT, check=False)
    mark = r.journal.mark()
    rc = sh("systemctl", "start", UNIT, timeout=120, check=False).returncode
    said = r.journal.wait(mark, lambda e: reason in e.message, 30)
    time.sleep(RESTART_SEC + 4)              # a restart would have come by now
    starts = [e for e in r.journal.since(mark) if e.message.startswith("Starting ")]
    status = sh("systemctl", "status", "--no-pager", "-n", "6", UNIT, check=False).stdout
    state = (r.prop("ActiveState"), r.prop("Result"), r.prop("ExecMainStatus"), r.prop("NRestarts"))
    r.check(name, lambda: (
        rc != 0 and said is not None and state == ("failed", "exit-code", "2", "0")
        and len(starts) == 1 and reason in status,
        f"systemctl start exit {rc}; "
        f"{said.message[:110] if said else 'no line with ' + repr(reason)}; "
        f"{'/'.join(state[:2])}, status {state[2]}, restarts {state[3]}, {len(starts)} start(s); "
        f"systemctl status names it: {reason in status}"))


def kernel_pins(r: Any) -> None:
    """A pin the kernel holds: as config.txt gives it (the daemon reads its overlays
    before claiming a pin) and as the chip's line is held (lgpio's "GPIO busy")."""
    sh("systemctl", "stop", UNIT, timeout=60, check=False)
    before = BOOT_CONFIG.read_text() if BOOT_CONFIG.exists() else None
    BOOT_CONFIG.parent.mkdir(parents=True, exist_ok=True)
    BOOT_CONFIG.write_text((before or "") + "\n[all]\ndtoverlay=gpio-shutdown,gpio_pin=23\n")
    try:
        fails_once(r, "kernel-pin-in-config-txt-fails-once-with-its-reason",
                   "GPIO 23 is used by the kernel (dtoverlay=gpio-shutdown,gpio_pin=23")
    finally:
        if before is None:
            BOOT_CONFIG.unlink()
        else:
            BOOT_CONFIG.write_text(before)
    fd = hold_line(r.sim.dev, NEXT)
    try:
        fails_once(r, "held-pin-fails-once-with-its-reason", "cannot claim the box's pins")
    finally:
        os.close(fd)
    sh("systemctl", "reset-failed", UNIT, check=False)
    rc, took = r.start_timed()
    r.reapply_pulls()
    r.check("unit-starts-again-once-the-pins-are-free", lambda: (
        rc == 0 and r.running(), f"READY after {took:.1f} s" if rc == 0 else f"exit {rc}"))
    sh("systemctl", "stop", UNIT, timeout=60, check=False)
