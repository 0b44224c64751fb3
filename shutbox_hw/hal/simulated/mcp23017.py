"""A register-level MCP23017 model (BANK=0 map) for tests and the simulator.

Models what the driver relies on and what goes wrong on a real bus:

- the 22 registers with power-on values; IOCON answers at 0x0A and 0x0B;
- GPIO reads pin level XOR IPOL for inputs and OLAT for outputs; writing
  GPIO writes OLAT; INTF and INTCAP are read-only;
- a pin nobody drives reads high with its pull-up (GPPU) and low without
  (a real floating pin is undefined; low makes a lost pull-up visible as
  every open flap reading "shut");
- interrupts: on change (INTCON=0) or against DEFVAL (INTCON=1), only for
  GPINTEN pins; the first one latches INTF and INTCAP for the port, later
  changes are ignored until INTCAP or GPIO of that port is read;
- the INT output level (MIRROR, ODR, INTPOL) driven into gpiozero mock pins
  (open drain released = high, the Pi's pull-up);
- sequential register reads and writes (SEQOP=0 wraps after 0x15; SEQOP=1
  toggles within the A/B pair);
- ``absent`` (every transfer fails with errno 121), injected errno 121/5 at
  ``error_rate`` from a seeded ``random.Random`` (with ``lossy_reads`` a
  failing read still clears the interrupt, as a transfer that broke late
  would), and :meth:`brownout` (power-on reset);
- :meth:`unplug` / :meth:`plug`: the module off the bus and unpowered (INT
  released), then back with its power-on registers; :meth:`cut_int` /
  :meth:`mend_int`: the INT wire to the Pi broken (the Pi's pull-up holds it
  high) and mended.

BANK=1 is not modelled: setting it raises NotImplementedError.
"""

from __future__ import annotations

import errno
import os
import random
from typing import Any

from ..adapters.mcp23017 import (
    DEFVALA,
    GPINTENA,
    GPIOA,
    GPPUA,
    INTCAPA,
    INTCONA,
    INTFA,
    IOCON,
    IOCON_B,
    IOCON_BANK,
    IOCON_INTPOL,
    IOCON_MIRROR,
    IOCON_ODR,
    IOCON_SEQOP,
    IODIRA,
    IPOLA,
    OLATA,
    POWER_ON,
    REGISTER_COUNT,
)


class SimMcp23017:
    """One simulated chip; attach it to a :class:`~.bus.SimBus` at its address."""

    def __init__(self, *, int_pin: Any = None, intb_pin: Any = None, error_rate: float = 0.0,
                 rng: random.Random | None = None, errnos: tuple[int, ...] = (121, 5),
                 lossy_reads: bool = False) -> None:
        self.regs = bytearray(POWER_ON)
        self.driven: list[bool | None] = [None] * 16   # external level, None = not driven
        self.int_pin = int_pin       # INTA (carries both ports with MIRROR)
        self.intb_pin = intb_pin
        self.error_rate = error_rate
        self.rng = rng or random.Random(0)
        self.errnos = errnos
        self.lossy_reads = lossy_reads
        self.absent = False          # no answer on the bus (INT still driven)
        self.unpowered = False       # unplugged: no answer and INT released
        self.int_cut = False
        self.errors_injected = 0
        self._pointer = 0
        self._prev = self._levels()
        self._drive_int()

    # -- the outside world -----------------------------------------------------

    def set_input(self, pin: int, level: bool | None) -> None:
        """Drive external pin 0..15 high (True), low (False) or let go (None)."""
        self.driven[pin] = level
        self._update()

    def pin_level(self, pin: int) -> bool:
        """The electrical level on an input pin."""
        if self.driven[pin] is not None:
            return bool(self.driven[pin])
        return bool(self._word(GPPUA) >> pin & 1)

    def output_level(self, pin: int) -> bool | None:
        """What the chip drives on ``pin`` (None: it is an input)."""
        if self._word(IODIRA) >> pin & 1:
            return None
        return bool(self._word(OLATA) >> pin & 1)

    def brownout(self) -> None:
        """Power dipped: every register back to its power-on value."""
        self.regs[:] = POWER_ON
        self._prev = self._levels()
        self._drive_int()

    def unplug(self) -> None:
        """Off the bus and without power: no answer, INT released."""
        self.absent = self.unpowered = True
        self._drive_int()

    def plug(self) -> None:
        """Back on the bus: powered up again, so every register at its power-on value."""
        self.absent = self.unpowered = False
        self.brownout()

    def cut_int(self) -> None:
        """The INT wire is broken: the Pi's pull-up holds its pin high."""
        self.int_cut = True
        self._drive_int()

    def mend_int(self) -> None:
        self.int_cut = False
        self._drive_int()

    def int_active(self) -> tuple[bool, bool]:
        return self.regs[INTFA] != 0, self.regs[INTFA + 1] != 0

    # -- the bus side ----------------------------------------------------------

    def i2c_read(self, register: int, length: int) -> list[int]:
        failure = self._failure()
        if failure and not self.lossy_reads:
            raise failure
        self._pointer = register
        out = []
        for _ in range(length):
            out.append(self._read_reg(self._pointer))
            self._pointer = self._next(self._pointer)
        self._update()
        if failure:
            raise failure
        return out

    def i2c_write(self, register: int, data: list[int]) -> None:
        failure = self._failure()
        if failure:
            raise failure
        self._pointer = register
        for value in data:
            self._write_reg(self._pointer, value)
            self._pointer = self._next(self._pointer)
        self._update()

    # -- internals -------------------------------------------------------------

    def _failure(self) -> OSError | None:
        if self.absent:
            return OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
        if self.error_rate and self.rng.random() < self.error_rate:
            self.errors_injected += 1
            code = self.rng.choice(self.errnos)
            return OSError(code, os.strerror(code))
        return None

    def _next(self, reg: int) -> int:
        if self.regs[IOCON] & IOCON_SEQOP:
            return reg ^ 1
        return (reg + 1) % REGISTER_COUNT

    def _word(self, reg_a: int) -> int:
        return self.regs[reg_a] | (self.regs[reg_a + 1] << 8)

    def _levels(self) -> int:
        return sum(1 << p for p in range(16) if self.pin_level(p))

    def _port_value(self, port: int) -> int:
        """GPIO as read: inputs are level XOR IPOL, outputs read back OLAT."""
        shift = 8 * port
        levels = (self._levels() >> shift) & 0xFF
        iodir = self.regs[IODIRA + port]
        inputs = (levels ^ self.regs[IPOLA + port]) & iodir
        return inputs | (self.regs[OLATA + port] & ~iodir & 0xFF)

    def _read_reg(self, reg: int) -> int:
        if reg in (GPIOA, GPIOA + 1):
            port = reg - GPIOA
            value = self._port_value(port)
            self.regs[INTFA + port] = 0
            return value
        if reg in (INTCAPA, INTCAPA + 1):
            self.regs[INTFA + reg - INTCAPA] = 0
            return self.regs[reg]
        if reg == IOCON_B:
            return self.regs[IOCON]
        return self.regs[reg]

    def _write_reg(self, reg: int, value: int) -> None:
        if reg in (IOCON, IOCON_B):
            if value & IOCON_BANK:
                raise NotImplementedError("IOCON.BANK=1 is not modelled")
            self.regs[IOCON] = self.regs[IOCON_B] = value
        elif reg in (GPIOA, GPIOA + 1):
            self.regs[OLATA + reg - GPIOA] = value
        elif reg in (INTFA, INTFA + 1, INTCAPA, INTCAPA + 1):
            pass   # read-only
        else:
            self.regs[reg] = value

    def _update(self) -> None:
        """Latch interrupts for what changed since the last look, then drive INT."""
        levels = self._levels()
        changed = levels ^ self._prev
        self._prev = levels
        for port in (0, 1):
            if self.regs[INTFA + port]:
                continue      # still latched: later changes wait for a read
            shift = 8 * port
            lv = (levels >> shift) & 0xFF
            on_change = (changed >> shift) & 0xFF & ~self.regs[INTCONA + port]
            vs_defval = (lv ^ self.regs[DEFVALA + port]) & self.regs[INTCONA + port]
            cause = (on_change | vs_defval) & self.regs[GPINTENA + port] & self.regs[IODIRA + port]
            if cause:
                self.regs[INTFA + port] = cause & 0xFF
                self.regs[INTCAPA + port] = self._port_value(port)
        self._drive_int()

    def _drive_int(self) -> None:
        a, b = self.int_active()
        iocon = self.regs[IOCON]
        if iocon & IOCON_MIRROR:
            a = b = a or b
        for pin, active in ((self.int_pin, a), (self.intb_pin, b)):
            if pin is None:
                continue
            if self.unpowered or self.int_cut:
                high = True                 # nothing drives the Pi's pin: pulled up
            elif iocon & IOCON_ODR:
                high = not active           # open drain: released = pulled up
            else:
                high = active == bool(iocon & IOCON_INTPOL)
            if high != bool(pin.state):
                pin.drive_high() if high else pin.drive_low()
