"""The box's kernel devices in the VM: a gpio-sim chip and an i2c-stub bus, and the checks' report.

Only the standard library: the full rehearsal runs this before the box (and its venv) exists.
"""

from __future__ import annotations

import ctypes
import fcntl
import glob
import os
import struct
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GPIO_SIM = Path("/sys/kernel/config/gpio-sim/pi")
LINES = 28                                  # BCM 0..27 as line offsets, like a Pi's header
STUB_CHIPS = (0x20, 0x21, 0x3C)             # two MCP23017s and the OLED


def sh(*cmd: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess:
    """Run a command with a bound on its time; its output is returned, not printed."""
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=check)


class Report:
    """``CHECK name: PASS|FAIL`` lines, figures, and the closing count, also in result.txt."""

    def __init__(self, run_dir: str) -> None:
        self.path = Path(run_dir) / "result.txt"
        (Path(run_dir) / "started").touch()    # the host's sign that the boot got this far
        self.passed = self.failed = 0
        self.t0 = time.monotonic()

    def line(self, text: str) -> None:
        print(text, flush=True)
        with self.path.open("a") as f:
            f.write(text + "\n")

    def note(self, text: str) -> None:
        print(f"[{time.monotonic() - self.t0:6.1f}s] {text}", flush=True)

    def check(self, name: str, ok: object, detail: str = "") -> bool:
        ok = bool(ok)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        self.line(f"CHECK {name}: {'PASS' if ok else 'FAIL'}" + (f" ({detail})" if detail else ""))
        return ok

    def attempt(self, name: str, fn: Callable[[], Any]) -> bool:
        """One check by a function that returns its result, or (result, detail); an
        exception fails it with its reason. Returns the result."""
        try:
            result = fn()
        except Exception as exc:  # noqa: BLE001 - reported on the check's line, never retried
            return self.check(name, False, f"{type(exc).__name__}: {exc}"[:300])
        if isinstance(result, tuple):
            return self.check(name, result[0], str(result[1]))
        return self.check(name, result)

    def figure(self, name: str, value: str) -> None:
        self.line(f"FIGURE {name}: {value}")

    def close(self) -> None:
        self.line(f"{self.passed} passed, {self.failed} failed")


class GpioSim:
    """A 28-line gpio-sim chip; ``pull(line, "down")`` closes a switch wired to GND."""

    def __init__(self) -> None:
        sh("modprobe", "gpio-sim")
        if not os.path.ismount("/sys/kernel/config"):
            sh("mount", "-t", "configfs", "none", "/sys/kernel/config")
        bank = GPIO_SIM / "bank0"
        bank.mkdir(parents=True)
        (bank / "num_lines").write_text(str(LINES))
        (bank / "label").write_text("pinctrl-bcm2711")
        (GPIO_SIM / "live").write_text("1")
        self._find()

    @classmethod
    def existing(cls) -> GpioSim:
        """The chip an earlier process made (the crash replay's zygote)."""
        sim = cls.__new__(cls)
        sim._find()
        return sim

    def _find(self) -> None:
        self.chip = (GPIO_SIM / "bank0" / "chip_name").read_text().strip()
        device = (GPIO_SIM / "dev_name").read_text().strip()
        self.sysfs = Path("/sys/devices/platform") / device / self.chip
        self.dev = f"/dev/{self.chip}"

    def pull(self, line: int, way: str) -> None:
        (self.sysfs / f"sim_gpio{line}" / "pull").write_text(f"pull-{way}")

    def value(self, line: int) -> int:
        return int((self.sysfs / f"sim_gpio{line}" / "value").read_text())


def load_i2c_stub() -> int:
    """i2c-dev and i2c-stub with the box's chips; the stub's bus number, found by its name."""
    sh("modprobe", "i2c-dev")
    sh("modprobe", "i2c-stub", "chip_addr=" + ",".join(f"0x{a:02x}" for a in STUB_CHIPS))
    for name in glob.glob("/sys/bus/i2c/devices/i2c-*/name"):
        if Path(name).read_text().startswith("SMBus stub"):
            return int(Path(name).parent.name.split("-")[1])
    raise RuntimeError("i2c-stub loaded but no bus named 'SMBus stub'")


class SMBus:
    """SMBus byte and I2C-block transfers through the i2c-dev ioctl (i2c-stub speaks only SMBus)."""

    I2C_SLAVE, I2C_SMBUS = 0x0703, 0x0720
    READ, WRITE = 1, 0
    BYTE_DATA, I2C_BLOCK_DATA = 2, 8

    def __init__(self, bus: int) -> None:
        self.fd = os.open(f"/dev/i2c-{bus}", os.O_RDWR)

    def close(self) -> None:
        os.close(self.fd)

    def _xfer(self, addr: int, rw: int, reg: int, size: int, data: bytearray) -> bytearray:
        fcntl.ioctl(self.fd, self.I2C_SLAVE, addr)
        buf = bytearray(data) + bytearray(34 - len(data))
        cbuf = (ctypes.c_uint8 * 34).from_buffer(buf)
        arg = struct.pack("@BBIP", rw, reg, size, ctypes.addressof(cbuf))
        fcntl.ioctl(self.fd, self.I2C_SMBUS, arg)
        return buf

    def read_byte(self, addr: int, reg: int) -> int:
        return self._xfer(addr, self.READ, reg, self.BYTE_DATA, bytearray(1))[0]

    def write_byte(self, addr: int, reg: int, value: int) -> None:
        self._xfer(addr, self.WRITE, reg, self.BYTE_DATA, bytearray([value]))

    def read_block(self, addr: int, reg: int, length: int) -> list[int]:
        buf = self._xfer(addr, self.READ, reg, self.I2C_BLOCK_DATA, bytearray([length]))
        return list(buf[1:1 + length])

    def write_block(self, addr: int, reg: int, values: list[int]) -> None:
        self._xfer(addr, self.WRITE, reg, self.I2C_BLOCK_DATA, bytearray([len(values), *values]))
