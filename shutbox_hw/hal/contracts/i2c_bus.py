"""The narrow I2C contract: exactly the smbus2 calls the box's drivers make.

In the spirit of luma.core's serial interfaces (a device talks to a small
transport, not to a concrete bus), the MCP23017 and dice module drivers take
any object with these three methods: ``smbus2.SMBus`` on the box,
:class:`~.simulated.bus.SimBus` in the simulator, a fake in a test. The
parameters are positional-only, as the drivers call them, so a fake may name
them as it likes; smbus2's optional ``force`` argument is never passed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol


class I2cBus(Protocol):
    """Register reads and writes on one bus, addressed per call (7-bit addresses)."""

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int, /
                            ) -> list[int]:
        """``length`` bytes (at most 32) from ``register`` on, in one transfer."""
        ...

    def write_byte_data(self, i2c_addr: int, register: int, value: int, /) -> None:
        """One byte to ``register``."""
        ...

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int], /
                             ) -> None:
        """``data`` (at most 32 bytes) to ``register`` on, in one transfer."""
        ...


OpenBus = Callable[[int], I2cBus]
"""Opens I2C bus ``n`` (``/dev/i2c-n``): ``smbus2.SMBus`` itself on the box."""


# mypy checks that the box's bus keeps the contract (the simulator's bus is checked
# beside it, in simulated/bus.py: the contract imports no part of the box)
if TYPE_CHECKING:
    import smbus2

    def _the_box_bus(bus: smbus2.SMBus) -> I2cBus:
        return bus
