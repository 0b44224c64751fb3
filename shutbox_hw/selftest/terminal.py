"""The self-test on the real box: a person at a terminal, real time, real pins."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from ..base.errors import UserError
from ..hal.adapters.box import Ports, build_ports
from ..hal.adapters.gpio import make_pin_factory, pin_claim_problem
from ..hal.contracts.clock import MonotonicClock
from ..hal.contracts.config import HardwareConfig
from . import Ask, Rig

POLL_MS = 10   # gpiozero records edges on its own threads; look at them this often

_CLEAR_LINE = "\r\x1b[K"


class TerminalPerson:
    """Prompts as lines; on a TTY the live flap/button state rewrites one line."""

    def __init__(self, stream: TextIO = sys.stdout) -> None:
        self.stream = stream
        self.live = stream.isatty()
        self._status_shown = False

    def say(self, text: str) -> None:
        if self._status_shown:
            self.stream.write(_CLEAR_LINE)
            self._status_shown = False
        print(text, file=self.stream, flush=True)

    def prompt(self, ask: Ask, now_ms: int) -> None:
        self.say(f"> {ask.text}")

    def status(self, text: str) -> None:
        if self.live:
            self.stream.write(f"{_CLEAR_LINE}  {text}")
            self.stream.flush()
            self._status_shown = True


def real_rig(hw: HardwareConfig, pin_factory: str = "lgpio") -> Rig:
    """The box's own pins and I2C buses (smbus2), on the monotonic clock."""
    factory = make_pin_factory(pin_factory)
    clock = MonotonicClock()
    built: list[Ports] = []

    def open_bus(number: int) -> Any:
        from smbus2 import SMBus
        return SMBus(number)

    def build() -> Ports:
        try:
            ports = build_ports(hw, clock, pin_factory=factory, bus=open_bus)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001 - gpiozero and lgpio raise many kinds
            raise UserError(pin_claim_problem(exc) or
                            f"cannot claim the box's pins ({exc}); if the box is running, "
                            "stop it first: sudo systemctl stop shutbox-hw") from None
        built.append(ports)
        return ports

    def wait(until_ms: int) -> None:
        time.sleep(max(0, min(until_ms - clock.now_ms(), POLL_MS)) / 1000)

    def close() -> None:
        for ports in built:
            for part in (ports.flaps, ports.buttons, ports.indicators):
                part.close()
        factory.close()

    return Rig(hw=hw, clock=clock, open_bus=open_bus, build_ports=build, wait=wait,
               close=close)
