"""A simulated I2C bus offering the ``smbus2.SMBus`` methods the drivers use."""

from __future__ import annotations

import errno
import os
from typing import Protocol

I2C_BLOCK_MAX = 32   # smbus2 refuses longer block transfers


class SimDevice(Protocol):
    """What a simulated chip offers the bus: register reads and writes."""

    def i2c_read(self, register: int, length: int) -> list[int]: ...

    def i2c_write(self, register: int, data: list[int]) -> None: ...


def _absent() -> OSError:
    return OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))


class SimBus:
    """Devices attached by address; an address with nothing on it raises
    ``OSError(121)`` like a real bus where no chip acknowledges."""

    def __init__(self, bus: int | str | None = None, force: bool = False) -> None:
        self.bus = bus
        self.devices: dict[int, SimDevice] = {}
        self.transactions = 0

    def attach(self, address: int, device: SimDevice) -> None:
        self.devices[address] = device

    def _device(self, i2c_addr: int) -> SimDevice:
        self.transactions += 1
        try:
            return self.devices[i2c_addr]
        except KeyError:
            raise _absent() from None

    def write_quick(self, i2c_addr: int, force: bool | None = None) -> None:
        """Address only, no data (how i2cdetect probes); a chip marked ``absent``
        does not acknowledge either."""
        if getattr(self._device(i2c_addr), "absent", False):
            raise _absent()

    def read_byte_data(self, i2c_addr: int, register: int, force: bool | None = None) -> int:
        return self._device(i2c_addr).i2c_read(register, 1)[0]

    def write_byte_data(self, i2c_addr: int, register: int, value: int,
                        force: bool | None = None) -> None:
        self._device(i2c_addr).i2c_write(register, [value & 0xFF])

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int,
                            force: bool | None = None) -> list[int]:
        if length > I2C_BLOCK_MAX:
            raise ValueError(f"Desired block length over {I2C_BLOCK_MAX} bytes")
        return self._device(i2c_addr).i2c_read(register, length)

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int],
                             force: bool | None = None) -> None:
        if len(data) > I2C_BLOCK_MAX:
            raise ValueError(f"Data length cannot exceed {I2C_BLOCK_MAX} bytes")
        self._device(i2c_addr).i2c_write(register, [b & 0xFF for b in data])

    def close(self) -> None:
        pass

    def __enter__(self) -> SimBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
