"""A simulated I2C bus offering the ``smbus2.SMBus`` methods the drivers use.

Faults a real bus has, injected where the host's drivers see them as the
``OSError`` smbus2 raises:

- an address nothing acknowledges (nothing attached, or :meth:`SimBus.unplug`):
  errno 121 (EREMOTEIO) on every transfer;
- ``error_rate``: each transfer fails with probability ``error_rate`` with
  errno 121 (no acknowledge), 5 (EIO) or 11 (EAGAIN: the Pi 5 lost
  arbitration), drawn from the bus's seeded ``random.Random``. A 121 or 11
  fails before the chip sees anything; a read failing with 5 broke after the
  chip sent its bytes, so reading GPIO or INTCAP still cleared its interrupt.

With a ``world`` (a :class:`~.world.SimWorld`) every transfer also takes its
wire time at ``hz`` (:mod:`.timing`), one transfer at a time on the bus's
:class:`~.timing.BusTimeline`: the loop's clock moves on by the wait and the
transfer, so what a real loop would see late, the simulated loop sees late.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from .timing import DEFAULT_BUS_HZ, BusTimeline, i2c_transfer_us

I2C_BLOCK_MAX = 32   # smbus2 refuses longer block transfers
FAULT_ERRNOS = (errno.EREMOTEIO, errno.EIO, errno.EAGAIN)


class SimDevice(Protocol):
    """What a simulated chip offers the bus: register reads and writes."""

    def i2c_read(self, register: int, length: int) -> list[int]: ...

    def i2c_write(self, register: int, data: list[int]) -> None: ...


def _absent() -> OSError:
    return OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))


class SimBus:
    """Devices attached by address; an address with nothing on it raises
    ``OSError(121)`` like a real bus where no chip acknowledges."""

    def __init__(self, bus: int | str | None = None, force: bool = False, *,
                 error_rate: float = 0.0, rng: random.Random | None = None,
                 world: Any = None, hz: int = DEFAULT_BUS_HZ) -> None:
        self.bus = bus
        self.world = world
        self.hz = hz
        self.timeline = BusTimeline()
        self.stretch_us: dict[int, float] = {}   # per address: clock stretch per byte
        self._prepaid = 0
        self.devices: dict[int, SimDevice] = {}
        self.unplugged: set[int] = set()
        self.error_rate = error_rate
        self.rng = rng or random.Random(0)
        self.transactions = 0
        self.errors_injected = 0

    def cost_us(self, i2c_addr: int, written: int, read: int = 0) -> int:
        return i2c_transfer_us(self.hz, written, read, self.stretch_us.get(i2c_addr, 0.0))

    def _charge(self, i2c_addr: int, written: int, read: int = 0) -> None:
        """The caller waits for the bus and the transfer (virtual time)."""
        if self.world is None or self._prepaid:
            return
        _, end = self.timeline.take(self.world.now_us(), self.cost_us(i2c_addr, written, read))
        self.world.spend_until_us(end)

    def reserve(self, i2c_addr: int, written: int, read: int = 0) -> int:
        """Book a transfer asked for now without holding up the clock (a thread
        of the box's own, such as the expander's reader); returns when it starts
        (virtual microseconds). Make it inside :meth:`prepaid`."""
        if self.world is None:
            return 0
        start, _ = self.timeline.take(self.world.now_us(), self.cost_us(i2c_addr, written, read))
        return start

    @contextlib.contextmanager
    def prepaid(self) -> Iterator[None]:
        """Transfers booked with :meth:`reserve`: no second charge."""
        self._prepaid += 1
        try:
            yield
        finally:
            self._prepaid -= 1

    def attach(self, address: int, device: SimDevice) -> None:
        self.devices[address] = device

    def unplug(self, address: int) -> None:
        """The device at ``address`` stops acknowledging (a loose cable)."""
        self.unplugged.add(address)

    def plug(self, address: int) -> None:
        self.unplugged.discard(address)

    def injected_failure(self) -> OSError | None:
        """The error this transfer meets at ``error_rate``, if any (seeded)."""
        if not self.error_rate or self.rng.random() >= self.error_rate:
            return None
        self.errors_injected += 1
        code = self.rng.choice(FAULT_ERRNOS)
        return OSError(code, os.strerror(code))

    def _device(self, i2c_addr: int) -> SimDevice:
        self.transactions += 1
        if i2c_addr in self.unplugged or i2c_addr not in self.devices:
            raise _absent()
        return self.devices[i2c_addr]

    def _read(self, i2c_addr: int, register: int, length: int) -> list[int]:
        device = self._device(i2c_addr)
        failure = self.injected_failure()
        if failure is not None and failure.errno != errno.EIO:
            raise failure       # no acknowledge, lost arbitration: the chip saw nothing
        data = device.i2c_read(register, length)
        if failure is not None:
            raise failure       # broke after the chip sent its bytes
        return data

    def write_quick(self, i2c_addr: int, force: bool | None = None) -> None:
        """Address only, no data (how i2cdetect probes); a chip marked ``absent``
        does not acknowledge either."""
        self._charge(i2c_addr, 0)
        device = self._device(i2c_addr)
        failure = self.injected_failure()
        if failure is not None:
            raise failure
        if getattr(device, "absent", False):
            raise _absent()

    def read_byte_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int:
        self._charge(i2c_addr, 1, 1)
        return self._read(i2c_addr, register, 1)[0]

    def write_byte_data(self, i2c_addr: int, register: int, value: int,
                        force: bool | None = None) -> None:
        self._write(i2c_addr, register, [value & 0xFF])

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int,
                            force: bool | None = None) -> list[int]:
        if length > I2C_BLOCK_MAX:
            raise ValueError(f"Desired block length over {I2C_BLOCK_MAX} bytes")
        self._charge(i2c_addr, 1, length)
        return self._read(i2c_addr, register, length)

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int],
                             force: bool | None = None) -> None:
        if len(data) > I2C_BLOCK_MAX:
            raise ValueError(f"Data length cannot exceed {I2C_BLOCK_MAX} bytes")
        self._write(i2c_addr, register, [b & 0xFF for b in data])

    def _write(self, i2c_addr: int, register: int, data: list[int]) -> None:
        self._charge(i2c_addr, 1 + len(data))
        device = self._device(i2c_addr)
        failure = self.injected_failure()
        if failure is not None:
            raise failure   # a write that failed is not trusted to have landed
        device.i2c_write(register, data)

    def close(self) -> None:
        pass

    def __enter__(self) -> SimBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if TYPE_CHECKING:   # mypy checks that the simulated bus keeps the drivers' I2C contract
    from ..contracts.i2c_bus import I2cBus

    def _keeps_the_contract(bus: SimBus) -> I2cBus:
        return bus
