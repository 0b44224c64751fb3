"""One pass of the OLED's sender thread: from the state the panel has to the state wanted.

:class:`~.oled_display.OledDisplay` takes a :class:`PanelJob` under its lock
(the device, the frame, contrast and on/off wanted, and what the panel was
last sent), runs it with the lock released, and records the outcome. The job
keeps what got through as it goes, so a bus error part way leaves an honest
record of what was sent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PIL import Image

from .luma_panel import PanelDevice
from .panel_pages import send_changed

Attempt = Callable[[Callable[[], Any]], Any]
"""Runs a bus operation with the retries for transient errors."""


@dataclass
class PanelJob:
    """The state wanted, the state the panel has, and what this pass did."""
    device: PanelDevice | None      # None: open the panel first (its whole init)
    frame: Image.Image | None
    data: bytes | None              # the frame's bytes
    contrast: int
    on: bool
    sent_contrast: int | None
    sent_on: bool | None
    sent_bytes: bytes | None
    refresh: bool                   # send the panel's setup again first
    refreshed: bool = False
    frame_s: float | None = None    # how long the frame took, if one was sent
    frame_done_at: float = 0.0      # time.monotonic() when it was

    def run(self, attempt: Attempt, factory: Callable[[], PanelDevice],
            refresh_panel: Callable[[], None] | None) -> None:
        """Open or refresh the panel, then contrast, frame and on/off as needed;
        raises a bus or driver error, with what got through recorded."""
        if self.device is None:
            self.device = attempt(factory)   # the whole init
            self.sent_contrast = self.sent_on = self.sent_bytes = None
        elif self.refresh and refresh_panel is not None:
            # the setup again, then contrast, frame and on/off as if never sent
            attempt(refresh_panel)
            self.sent_contrast = self.sent_on = self.sent_bytes = None
            self.refreshed = True
        device = self.device
        if self.contrast != self.sent_contrast:
            # also right after init: luma's ssd1306 init writes 0xCF
            attempt(lambda: device.contrast(self.contrast))
            self.sent_contrast = self.contrast
        if self.frame is not None and self.data is not None and self.data != self.sent_bytes:
            started = time.monotonic()
            frame, shown = self.frame, self.sent_bytes
            attempt(lambda: send_changed(device, frame, shown))
            self.sent_bytes = self.data
            self.frame_done_at = time.monotonic()
            self.frame_s = self.frame_done_at - started
        if self.on != self.sent_on:
            attempt(device.show if self.on else device.hide)
            self.sent_on = self.on
