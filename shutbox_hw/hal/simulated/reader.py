"""The expander's reader thread in the simulated world.

On the box a thread reads the MCP23017 as soon as INT falls
(:class:`~shutbox_hw.hal.adapters.expander.ThreadReader`), whatever the loop is doing.
Here that thread is an action on the world's time line: asked at the
interrupt, it books the read on the bus (after the transfer on the wire,
such as a page of a frame) and reads when the bus gives it its turn, even
while the loop waits for a disk sync.
"""

from __future__ import annotations

from collections.abc import Callable

from ..adapters.mcp23017 import REGISTER_COUNT
from .bus import SimBus
from .world import SimWorld


class WorldReader:
    """A :class:`~shutbox_hw.hal.adapters.expander.Reader` on the simulated world."""

    def __init__(self, world: SimWorld, bus: SimBus, address: int) -> None:
        self.world = world
        self.bus = bus
        self.address = address
        self._booked = False
        self.reads = 0

    def request(self, job: Callable[[], None]) -> None:
        if self._booked:
            return          # the read already booked takes this interrupt too
        self._booked = True
        start_us = self.bus.reserve(self.address, 1, REGISTER_COUNT)

        def run() -> None:
            self._booked = False
            self.reads += 1
            with self.bus.prepaid():
                job()
        self.world.at(start_us // 1000, run)

    def close(self) -> None:
        pass
