"""A focused MCP23017 driver on an smbus2-like bus (datasheet DS20001952).

Only what the box needs: inputs with pull-ups and interrupt-on-change on one
mirrored open-drain INT line, outputs through OLAT, a read of every register
in one transaction, and a check that the configuration is still there (a
brownout silently resets the chip to its power-on values). Pins are numbered
0..15: 0..7 = GPA0..GPA7, 8..15 = GPB0..GPB7. GPA7 and GPB7 are always
outputs: as inputs they can corrupt SDA (datasheet revision).

The bus is an :class:`~.i2c_bus.I2cBus` (``smbus2.SMBus`` or
:class:`~shutbox_hw.hal.simulated.SimBus`). Transient bus errors (errno 121, 5,
110, 11) are retried with a bounded backoff by :class:`~.i2c_retry.I2cRetry`;
the sleep is injectable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..contracts.i2c_bus import I2cBus
from ..contracts.i2c_retry import I2cRetry, transient_errno

# BANK=0 register map (IOCON also answers at 0x0B).
IODIRA, IODIRB = 0x00, 0x01
IPOLA, IPOLB = 0x02, 0x03
GPINTENA, GPINTENB = 0x04, 0x05
DEFVALA, DEFVALB = 0x06, 0x07
INTCONA, INTCONB = 0x08, 0x09
IOCON, IOCON_B = 0x0A, 0x0B
GPPUA, GPPUB = 0x0C, 0x0D
INTFA, INTFB = 0x0E, 0x0F
INTCAPA, INTCAPB = 0x10, 0x11
GPIOA, GPIOB = 0x12, 0x13
OLATA, OLATB = 0x14, 0x15
REGISTER_COUNT = 0x16

# IOCON bits
IOCON_BANK = 0x80
IOCON_MIRROR = 0x40
IOCON_SEQOP = 0x20
IOCON_DISSLW = 0x10
IOCON_HAEN = 0x08
IOCON_ODR = 0x04
IOCON_INTPOL = 0x02

POWER_ON = bytes([0xFF, 0xFF] + [0x00] * (REGISTER_COUNT - 2))
"""Register values after power-on or reset: IODIR all inputs, the rest zero."""

OUTPUT_ONLY = (1 << 7) | (1 << 15)
"""GPA7 and GPB7."""

PIN_NAMES = [f"GPA{i}" for i in range(8)] + [f"GPB{i}" for i in range(8)]

T = TypeVar("T")


class Mcp23017Error(Exception):
    """The chip did not answer, even after retries (absent, unpowered, bad wiring)."""

    def __init__(self, address: int, message: str) -> None:
        super().__init__(f"MCP23017 0x{address:02x}: {message}")
        self.address = address


@dataclass(frozen=True)
class Snapshot:
    """Every register, read in one go; port values are 16-bit (A low, B high)."""
    registers: bytes

    def word(self, reg_a: int) -> int:
        return self.registers[reg_a] | (self.registers[reg_a + 1] << 8)

    @property
    def intf(self) -> int:
        return self.word(INTFA)

    @property
    def intcap(self) -> int:
        return self.word(INTCAPA)

    @property
    def gpio(self) -> int:
        return self.word(GPIOA)


class Mcp23017:
    """One chip at ``address``: configure, read everything, write outputs, verify."""

    def __init__(self, bus: I2cBus, address: int = 0x20, *, attempts: int = 4,
                 backoff_s: float = 0.001, sleep: Callable[[float], None] = time.sleep) -> None:
        if not 0x20 <= address <= 0x27:
            raise ValueError(f"MCP23017 address 0x{address:02x} is outside 0x20..0x27")
        self.bus = bus
        self.address = address
        self._retry = I2cRetry(attempts, backoff_s, sleep=sleep)
        self.inputs = 0
        self.olat = 0

    @property
    def retries(self) -> int:
        """Transient errors survived, for the log and tests."""
        return self._retry.retries

    # -- configuration ---------------------------------------------------------

    def configure(self, inputs: int, olat: int | None = None) -> None:
        """Make ``inputs`` (a 16-bit mask) pulled-up inputs that interrupt on change,
        every other pin an output driven from ``olat``; one open-drain INT line."""
        if inputs & ~0xFFFF:
            raise ValueError("pin mask must fit in 16 bits")
        if inputs & OUTPUT_ONLY:
            bad = [PIN_NAMES[p] for p in (7, 15) if inputs & (1 << p)]
            raise ValueError(f"{' and '.join(bad)} must be outputs on the MCP23017")
        self.inputs = inputs
        if olat is not None:
            self.olat = olat & 0xFFFF
        regs = self.expected()
        # IOCON first: BANK=0 keeps this register map for everything after.
        self._write(IOCON, regs[IOCON])
        block = bytes(regs[r] for r in range(IODIRA, GPPUB + 1))
        self._write_block(IODIRA, block)
        self._write_block(OLATA, bytes([self.olat & 0xFF, self.olat >> 8]))
        self._read_block(INTCAPA, 4)   # clear any interrupt latched before now

    def expected(self) -> dict[int, int]:
        """The configuration registers as :meth:`configure` leaves them."""
        iocon = IOCON_MIRROR | IOCON_ODR
        lo, hi = self.inputs & 0xFF, self.inputs >> 8
        return {IODIRA: lo, IODIRB: hi, IPOLA: 0, IPOLB: 0, GPINTENA: lo, GPINTENB: hi,
                DEFVALA: 0, DEFVALB: 0, INTCONA: 0, INTCONB: 0, IOCON: iocon, IOCON_B: iocon,
                GPPUA: lo, GPPUB: hi}

    def configured(self, snap: Snapshot) -> bool:
        """Whether a snapshot still shows our configuration and outputs (False after a
        brownout: the registers are back at power-on values)."""
        ok = all(snap.registers[r] == v for r, v in self.expected().items())
        return ok and snap.word(OLATA) == self.olat

    # -- data ------------------------------------------------------------------

    def read_all(self) -> Snapshot:
        """All 22 registers in one transaction. Reading INTCAP and GPIO clears a
        pending interrupt, so this is also the interrupt acknowledge."""
        return Snapshot(bytes(self._read_block(0, REGISTER_COUNT)))

    def write_outputs(self, value: int, mask: int = 0xFFFF) -> None:
        """Set the output latches of the pins in ``mask`` (others kept)."""
        new = (self.olat & ~mask) | (value & mask)
        self._write_block(OLATA, bytes([new & 0xFF, (new >> 8) & 0xFF]))
        self.olat = new

    # -- bus with retries ------------------------------------------------------

    def _run(self, op: Callable[[], T]) -> T:
        """``op`` with retries; a failure that stays becomes :class:`Mcp23017Error`."""
        try:
            return self._retry.run(op)
        except OSError as exc:
            if not transient_errno(exc):
                raise Mcp23017Error(self.address, f"bus error: {exc}") from exc
            raise Mcp23017Error(self.address, f"no answer after {self._retry.attempts} "
                                f"attempts (errno {exc.errno})") from exc

    def _write(self, reg: int, value: int) -> None:
        self._run(lambda: self.bus.write_byte_data(self.address, reg, value))

    def _write_block(self, reg: int, data: bytes) -> None:
        self._run(lambda: self.bus.write_i2c_block_data(self.address, reg, list(data)))

    def _read_block(self, reg: int, length: int) -> list[int]:
        return self._run(lambda: self.bus.read_i2c_block_data(self.address, reg, length))
