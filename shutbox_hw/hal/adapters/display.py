"""The display port's makers: the OLED the config asks for, or none.

:class:`~.oled_display.OledDisplay` is the OLED (frames on a sender thread,
idle dimming, burn-in care, a lost panel looked for again);
:class:`~.luma_panel.LumaPanel` the real panel under luma; :class:`NullDisplay`
the box without a screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image

from ...base.events import InputFault
from ...base.lifecycle import Closable
from ...base.scheduler import Scheduler
from ..contracts.config import HardwareConfig
from ..contracts.poll import Wake, no_wake
from .luma_panel import HEIGHT, WIDTH, luma_panel
from .oled_display import OledDisplay

__all__ = ["NullDisplay", "OledDisplay", "dummy_device", "make_display"]


class NullDisplay(Closable):
    """``driver = "none"``: the box without a screen; same port, does nothing."""

    width, height = WIDTH, HEIGHT
    connected = False

    def show(self, image: Image.Image, now_ms: int, activity: bool = True) -> None:
        pass

    def set_contrast(self, contrast: int) -> None:
        pass

    def wake(self, now_ms: int) -> None:
        pass

    def poll(self, now_ms: int) -> list[InputFault]:
        self._check_open()
        return []


def dummy_device(rotation: int = 0) -> Any:
    """luma's in-memory device; ``.image`` holds the last frame (simulator, tests)."""
    from luma.core.device import dummy
    return dummy(width=WIDTH, height=HEIGHT, rotate=rotation, mode="1")


def make_display(hw: HardwareConfig, *, device_factory: Callable[[], Any] | None = None,
                 wake: Wake = no_wake,
                 timers: Scheduler | None = None) -> OledDisplay | NullDisplay:
    """The display the config asks for; ``device_factory`` swaps in a dummy for the sim;
    ``wake`` wakes the loop when the display is lost or back (see :class:`OledDisplay`);
    ``timers``: the box's scheduler, where the display registers its deadlines."""
    cfg = hw.display
    if cfg.driver == "none":
        return NullDisplay()

    if device_factory is None:
        device_factory = luma_panel(cfg.driver, cfg.port, cfg.address, cfg.rotation)
    # the config allows rotation 0 or 2 only: the screens are drawn 128x64
    return OledDisplay(device_factory,
                       idle_dim_ms=cfg.dim_after_s * 1000,
                       idle_off_ms=cfg.off_after_s * 1000, contrast=cfg.contrast,
                       dim_contrast=cfg.dim_contrast, retry_ms=cfg.retry_s * 1000,
                       shift_every_ms=cfg.shift_every_s * 1000, wake=wake, timers=timers)
