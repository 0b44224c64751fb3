"""The OLED over luma: frames go out on a sender thread, never on the input path.

A full SSD1306/SH1106 frame is 1 KiB on I2C: ~93 ms at the Pi's default
100 kHz, ~23 ms at 400 kHz (docs/hardware-facts.md). The daemon's loop also reads the
flaps, so :meth:`OledDisplay.show` only records the *desired* state (frame,
contrast, on/off) and a sender thread brings the device there: a newer
frame replaces a pending one, a frame equal to the last one sent is not
sent again. Idle time (on the caller's clock, so the virtual clock works)
dims the panel and then blanks it, because OLEDs burn in. A display that is
missing or fails on the bus is dropped and looked for again every
``retry_ms``; the box plays on without it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from luma.core.error import Error as LumaError
from PIL import Image

from .config import HardwareConfig

WIDTH, HEIGHT = 128, 64
DEVICE_ERRORS = (OSError, LumaError)  # luma turns errno 121/5 into DeviceNotFoundError


class OledDisplay:
    """The :class:`~shutbox_hw.hal.ports.Display` port over any luma device.

    ``device_factory`` makes the device (and may raise OSError or a luma
    error when it is absent); it is called on the sender thread, since
    opening an SSD1306 already writes its init sequence on the bus.
    """

    def __init__(self, device_factory: Callable[[], Any], *, idle_dim_ms: int = 60_000,
                 idle_off_ms: int = 600_000, contrast: int = 207, dim_contrast: int = 16,
                 retry_ms: int = 10_000, width: int = WIDTH, height: int = HEIGHT) -> None:
        self.width, self.height = width, height
        self._factory = device_factory
        self._idle_dim_ms, self._idle_off_ms = idle_dim_ms, idle_off_ms
        self._contrast, self._dim_contrast = contrast, dim_contrast
        self._retry_ms = retry_ms
        self._cond = threading.Condition()
        # desired state, written by the caller's thread
        self._frame: Image.Image | None = None
        self._frame_bytes: bytes | None = None
        self._want_contrast = contrast
        self._want_on = True
        self._dimmed = False
        self._want_device = True
        self._closing = False
        # applied state, written by the sender thread
        self._device: Any = None
        self._sent_bytes: bytes | None = None
        self._sent_contrast: int | None = None
        self._sent_on: bool | None = None
        self._busy = False
        self.last_error: str | None = None
        self.frames_sent = 0
        # the caller's clock
        self._last_activity_ms: int | None = None
        self._retry_at_ms: int | None = None
        self._thread = threading.Thread(target=self._run, name="oled-sender", daemon=True)
        self._thread.start()

    # -- the caller's side: never waits for the bus --------------------------------

    @property
    def connected(self) -> bool:
        with self._cond:
            return self._device is not None

    @property
    def mode(self) -> str:
        """"on", "dim" or "off" (screen saver), as last decided by the idle timers."""
        with self._cond:
            if not self._want_on:
                return "off"
            return "dim" if self._dimmed else "on"

    def show(self, image: Image.Image, now_ms: int) -> None:
        """Queue ``image`` (128x64); a changed frame also counts as activity."""
        if image.size != (self.width, self.height):
            raise ValueError(f"frame is {image.size}, the display is {self.width}x{self.height}")
        frame = image if image.mode == "1" else image.convert("1")
        data = frame.tobytes()
        with self._cond:
            if data != self._frame_bytes:
                self._frame, self._frame_bytes = frame.copy(), data
                self._wake(now_ms)
            self._update(now_ms)
            self._cond.notify_all()

    def wake(self, now_ms: int) -> None:
        """Activity without a new frame (a flap, a button): undo dimming, restart idle."""
        with self._cond:
            self._wake(now_ms)
            self._update(now_ms)
            self._cond.notify_all()

    def poll(self, now_ms: int) -> None:
        """Dim or blank after idle time; ask the sender to look for a lost display."""
        with self._cond:
            if self._last_activity_ms is None:
                self._last_activity_ms = now_ms
            self._update(now_ms)
            self._cond.notify_all()

    def next_deadline_ms(self) -> int | None:
        with self._cond:
            times = []
            if self._last_activity_ms is not None:
                if self._want_on and self._idle_dim_ms and not self._dimmed:
                    times.append(self._last_activity_ms + self._idle_dim_ms)
                if self._want_on and self._idle_off_ms:
                    times.append(self._last_activity_ms + self._idle_off_ms)
            if self._retry_at_ms is not None:
                times.append(self._retry_at_ms)
            return min(times) if times else None

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the sender has nothing left to do (tests, shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and not self._work_locked(),
                                       timeout)

    def close(self) -> None:
        """Stop the sender; blank the panel on the way out (burn-in)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout=5)
        device = self._device
        self._device = None
        if device is not None:
            try:
                device.cleanup()
            except DEVICE_ERRORS:
                pass

    def _wake(self, now_ms: int) -> None:
        self._last_activity_ms = now_ms
        self._want_on = True
        self._dimmed = False
        self._want_contrast = self._contrast

    def _update(self, now_ms: int) -> None:
        """Idle timers and the retry timer; called with the lock held."""
        if self._last_activity_ms is None:
            self._last_activity_ms = now_ms
        idle = now_ms - self._last_activity_ms
        if self._idle_off_ms and idle >= self._idle_off_ms:
            self._want_on = False
        elif self._idle_dim_ms and idle >= self._idle_dim_ms:
            self._dimmed = True
            self._want_contrast = self._dim_contrast
        if self._device is None and not self._want_device and not self._busy:
            if self._retry_at_ms is None:
                self._retry_at_ms = now_ms + self._retry_ms
            elif now_ms >= self._retry_at_ms:
                self._retry_at_ms = None
                self._want_device = True

    # -- the sender thread ---------------------------------------------------------

    def _work_locked(self) -> bool:
        if self._device is None:
            return self._want_device
        return (self._want_on != self._sent_on or self._want_contrast != self._sent_contrast
                or (self._frame_bytes is not None and self._frame_bytes != self._sent_bytes))

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closing or self._work_locked())
                if self._closing:
                    return
                self._busy = True
                device = self._device
                frame, data = self._frame, self._frame_bytes
                contrast, on = self._want_contrast, self._want_on
                sent_contrast, sent_on, sent_bytes = (self._sent_contrast, self._sent_on,
                                                      self._sent_bytes)
            try:
                if device is None:
                    device = self._factory()
                    sent_contrast = sent_on = sent_bytes = None
                if contrast != sent_contrast:
                    device.contrast(contrast)
                    sent_contrast = contrast
                if data is not None and data != sent_bytes:
                    device.display(frame)
                    sent_bytes = data
                    self.frames_sent += 1
                if on != sent_on:
                    (device.show if on else device.hide)()
                    sent_on = on
                error = None
            except DEVICE_ERRORS as exc:
                error = f"display: {exc}"
            except Exception as exc:  # noqa: BLE001 - the sender must outlive a driver bug
                error = f"display: {type(exc).__name__}: {exc}"
            with self._cond:
                self._busy = False
                if error is None:
                    self._device = device
                    self._sent_contrast, self._sent_on, self._sent_bytes = (
                        sent_contrast, sent_on, sent_bytes)
                else:
                    self.last_error = error
                    self._device = None
                    self._want_device = False  # poll() schedules the retry
                    self._sent_contrast = self._sent_on = self._sent_bytes = None
                self._cond.notify_all()


class NullDisplay:
    """``driver = "none"``: the box without a screen; same port, does nothing."""

    width, height = WIDTH, HEIGHT
    connected = False

    def show(self, image: Image.Image, now_ms: int) -> None:
        pass

    def wake(self, now_ms: int) -> None:
        pass

    def poll(self, now_ms: int) -> None:
        pass

    def next_deadline_ms(self) -> int | None:
        return None

    def close(self) -> None:
        pass


class GatedDevice:
    """Wraps a luma device: records every call and can hold ``display`` on an Event.

    The simulator and tests use it to play a slow bus (``gate`` cleared
    until the test sets it) and to see exactly what reached the panel.
    """

    def __init__(self, device: Any, gate: threading.Event | None = None) -> None:
        self.device = device
        self.gate = gate
        self.calls: list[tuple[str, Any]] = []
        self.entered = threading.Event()  # set when display() is waiting on the gate
        self.fail_next: OSError | None = None

    def _call(self, name: str, arg: Any = None) -> None:
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        self.calls.append((name, arg))

    def display(self, image: Image.Image) -> None:
        self.entered.set()
        if self.gate is not None:
            self.gate.wait()
        self._call("display", image.tobytes())
        self.device.display(image)

    def contrast(self, level: int) -> None:
        self._call("contrast", level)
        self.device.contrast(level)

    def show(self) -> None:
        self._call("show")
        self.device.show()

    def hide(self) -> None:
        self._call("hide")
        self.device.hide()

    def cleanup(self) -> None:
        self.calls.append(("cleanup", None))

    def frames(self) -> list[bytes]:
        return [arg for name, arg in self.calls if name == "display"]


def dummy_device(rotation: int = 0) -> Any:
    """luma's in-memory device; ``.image`` holds the last frame (simulator, tests)."""
    from luma.core.device import dummy
    return dummy(width=WIDTH, height=HEIGHT, rotate=rotation, mode="1")


def make_display(hw: HardwareConfig, *, device_factory: Callable[[], Any] | None = None
                 ) -> OledDisplay | NullDisplay:
    """The display the config asks for; ``device_factory`` swaps in a dummy for the sim."""
    cfg = hw.display
    if cfg.driver == "none":
        return NullDisplay()

    def real_device() -> Any:
        # imported here: a box with driver = "none" never needs luma.oled
        from luma.core.interface.serial import i2c
        from luma.oled.device import sh1106, ssd1306
        chip = {"ssd1306": ssd1306, "sh1106": sh1106}[cfg.driver]
        return chip(i2c(port=cfg.port, address=cfg.address), width=WIDTH, height=HEIGHT,
                    rotate=cfg.rotation)

    # rotation 1 and 3 turn the panel on its side: the renderer draws 64x128
    width, height = (HEIGHT, WIDTH) if cfg.rotation % 2 else (WIDTH, HEIGHT)
    return OledDisplay(device_factory or real_device, width=width, height=height,
                       idle_dim_ms=cfg.dim_after_s * 1000,
                       idle_off_ms=cfg.off_after_s * 1000, contrast=cfg.contrast,
                       dim_contrast=cfg.dim_contrast, retry_ms=cfg.retry_s * 1000)
