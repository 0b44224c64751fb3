"""The simulated OLED: the panel that keeps every frame, and what stands for it on the bus.

:class:`PanelRecorder` is the luma device the real display driver draws on
(its RAM modelled by :class:`~shutbox_hw.hal.simulated.panel.SimPanel`, its
transfers charged to the simulated bus); :class:`SyncedDisplay` waits for the
driver's sender thread so frames reach the bus at the virtual time they were
made; :class:`AckingChip` answers the panel's address on the bus.
"""

from __future__ import annotations

import errno
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from ...base.events import InputFault
from ...hal.adapters.display import dummy_device
from ...hal.adapters.panel_pages import page_bytes
from ...hal.simulated.bus import FAULT_ERRNOS, SimBus
from ...hal.simulated.panel import SimPanel, frame_transfers, queue_frame


class SyncedDisplay:
    """The display with its sender thread waited for after every call that may
    give it work: its frames then take the bus at the virtual time they were
    made, the same in every run."""

    def __init__(self, inner: Any, settle: Callable[[], None]) -> None:
        self.inner = inner
        self._settle = settle

    def _settled(self, result: Any = None) -> Any:
        self._settle()
        return result

    def show(self, image: Image.Image, now_ms: int, activity: bool = True) -> None:
        self._settled(self.inner.show(image, now_ms, activity))

    def set_contrast(self, contrast: int) -> None:
        self._settled(self.inner.set_contrast(contrast))

    def wake(self, now_ms: int) -> None:
        self._settled(self.inner.wake(now_ms))

    def poll(self, now_ms: int) -> list[InputFault]:
        faults: list[InputFault] = self.inner.poll(now_ms)
        self._settle()
        return faults

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class PanelRecorder:
    """A luma dummy panel that also keeps every frame it was sent (``--frames``).

    Every call is an I2C transfer to ``address`` on ``bus``: it fails as the
    bus says (unplugged, ``fault i2c``), with its own seeded draws since it
    runs on the display's sender thread.
    """

    def __init__(self, frames_dir: Path | None, *, bus: SimBus | None = None,
                 address: int = 0x3C, rng: random.Random | None = None,
                 driver: str = "ssd1306") -> None:
        self.device = dummy_device()
        self.driver = driver
        self.model = SimPanel(driver)   # the panel's RAM, as the bytes sent leave it
        self.frames_dir = frames_dir
        self.bus = bus
        self.address = address
        self.rng = rng or random.Random(0)
        self.count = 0
        self.on = True

    def transfer(self) -> None:
        """Raise what the bus does to a transfer to the panel now."""
        if self.bus is None:
            return
        if self.address in self.bus.unplugged:
            raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
        if self.bus.error_rate and self.rng.random() < self.bus.error_rate:
            code = self.rng.choice(FAULT_ERRNOS)
            raise OSError(code, os.strerror(code))

    def open(self) -> PanelRecorder:
        """The device factory: opening a panel sends its init sequence."""
        self.transfer()
        return self

    def display(self, image: Image.Image) -> None:
        """A whole frame, as luma sends it."""
        self.transfer()
        if self.bus is not None:     # the frame's wire time, one transfer after another
            queue_frame(self.bus, self.address, frame_transfers(self.driver))
        self.model.load(page_bytes(self.device.preprocess(image)))
        self.frame_sent(image)

    def preprocess(self, image: Image.Image) -> Image.Image:
        done: Image.Image = self.device.preprocess(image)
        return done

    def command(self, *cmds: int) -> None:
        """Commands (one transfer): here the write position of a page update."""
        self.transfer()
        if self.bus is not None:
            queue_frame(self.bus, self.address, [1 + len(cmds)])
        self.model.command(*cmds)

    def data(self, values: list[int]) -> None:
        self.transfer()
        if self.bus is not None:
            queue_frame(self.bus, self.address, [1 + len(values)])
        self.model.data(values)

    def frame_sent(self, image: Image.Image) -> None:
        """The frame is on the panel (whole or page by page): keep it."""
        self.device.display(image)
        self.count += 1
        if self.frames_dir is not None:
            image.convert("1").save(self.frames_dir / f"frame-{self.count:05d}.png")

    def contrast(self, level: int) -> None:
        self.transfer()
        self.device.contrast(level)

    def show(self) -> None:
        self.transfer()
        self.on = True

    def hide(self) -> None:
        self.transfer()
        self.on = False

    def cleanup(self) -> None:
        pass


class AckingChip:
    """Something on the simulated bus that acknowledges its address (the OLED
    panel's I2C side), so probing the display's address finds it; the frames
    themselves go to luma's dummy device."""

    def i2c_read(self, register: int, length: int) -> list[int]:
        return [0] * length

    def i2c_write(self, register: int, data: list[int]) -> None:
        pass
