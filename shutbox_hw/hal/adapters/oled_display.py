"""The OLED over luma: frames go out on a sender thread, never on the input path.

A full SSD1306/SH1106 frame is 1 KiB on I2C (luma sends all of it every
time): at 9 bits a byte ~93 ms at the Pi's default 100 kHz, ~23 ms at
400 kHz. The daemon's loop also reads the flaps, so :meth:`OledDisplay.show`
only records the *desired* state (frame, contrast, on/off) and a sender
thread brings the device there: a newer
frame replaces a pending one, a frame equal to the last one sent is not
sent again. The sender is woken only when the desired state differs from
what the panel shows (a poll that changes nothing leaves it asleep), and a
burst of frames is coalesced: a frame that comes while another is on the
wire waits until no newer one has come for ``coalesce_ms`` (at most as long
as a frame takes to send, and at most one more frame time), so the newest
frame wins and a burst of ten events costs two or three frames, not one per
wire time. Idle time (on the caller's clock, so the virtual clock works)
dims the panel and then blanks it, because OLEDs burn in; for the same
reason the picture moves by a pixel every ``shift_every_ms`` in a 2x2 orbit,
only into blank rows and columns so nothing lit is ever cut. A display that
is missing or fails on the bus is dropped and looked for again every
``retry_ms`` (its :class:`~.link.DeviceLink` holds the state and the one
schedule: the refresh while connected, the retry while not); the box plays
on without it, and ``poll`` reports it to the
game as an :class:`~shutbox_hw.base.events.InputFault` (source "display"), like
a lost expander, so the red light and the problem bar show it until it is
back; the sender calls ``wake`` when that happens, so a loop sleeping until
its next deadline polls at once. A transient bus error (errno 121, 5, 110,
or 11: the Pi 5's lost arbitration) is retried at once first. The display's
own deadlines (dimming, blanking, the retry, the refresh, the next orbit
step) are one timer in the box's scheduler, moved by both threads whenever
they change what it hangs on.

A panel can also lose its setup without a bus error: a supply dip or an ESD
hit resets an SSD1306/SH1106 that still acknowledges its address, back to
display off, charge pump off and another addressing mode (dark, or a garbled
frame). luma never reads the panel back, so the setup is sent again
blindly: every ``refresh_every_ms`` while the screen is on, on waking from
blank, and after any bus error (even one a retry got past), followed by the
contrast, the current frame and display-on. The replay leaves out the init's
display-off and its blank frame, so on a panel that was fine nothing changes
on the screen: no flicker.

The panel itself is :class:`~.luma_panel.LumaPanel`; the pixel shift is
:mod:`.burn_in`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from PIL import Image

from ...base.events import InputFault
from ...base.lifecycle import Closable
from ...base.scheduler import Scheduler
from ..contracts.i2c_retry import I2cRetry
from ..contracts.link import DeviceLink
from ..contracts.poll import Wake, no_wake
from .burn_in import ORBIT, shift_within_blank
from .luma_panel import DEVICE_ERRORS, HEIGHT, WIDTH, PanelDevice, transient_panel_error
from .panel_job import PanelJob

REFRESH_EVERY_MS = 60_000    # the panel's setup is sent again this often while on
SOURCE = "display"           # the name the game shows for the display's faults
BACK_MESSAGE = "answering again"


def fault_message(exc: BaseException | None) -> str:
    """Why the display is gone, short enough for the screen's problem bar."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 60 else text[:59] + "…"


class OledDisplay(Closable):
    """The :class:`~shutbox_hw.hal.contracts.ports.Display` port over any luma device.

    ``device_factory`` makes the device (and may raise OSError or a luma
    error when it is absent); it is called on the sender thread, since
    opening an SSD1306 already writes its init sequence on the bus.
    ``wake`` is called on the sender thread when the display is lost or
    back, so that the loop's next :meth:`poll` reports it.
    ``coalesce_ms`` is real time on the sender thread (see the module).
    """

    def __init__(self, device_factory: Callable[[], PanelDevice], *, idle_dim_ms: int = 60_000,
                 idle_off_ms: int = 600_000, contrast: int = 0x7F, dim_contrast: int = 16,
                 retry_ms: int = 10_000, shift_every_ms: int = 0, width: int = WIDTH,
                 height: int = HEIGHT, attempts: int = 3,
                 sleep: Callable[[float], None] = time.sleep, wake: Wake = no_wake,
                 coalesce_ms: int = 10, refresh_every_ms: int = REFRESH_EVERY_MS,
                 timers: Scheduler | None = None) -> None:
        """Long only because it lists every field, grouped by the thread that writes it."""
        self.width, self.height = width, height
        self.timer = (Scheduler() if timers is None else timers).timer("display")
        self._factory = device_factory
        # only a factory that can replay the panel's setup (LumaPanel) is refreshed
        refresh = getattr(device_factory, "refresh", None)
        self._refresh_panel: Callable[[], None] | None = refresh if callable(refresh) else None
        self._refresh_every_ms = refresh_every_ms if self._refresh_panel else 0
        # connected: the refresh is due every refresh_every_ms (while on); lost: the retry
        self.link = DeviceLink(SOURCE, retry_ms=retry_ms,
                               check_ms=self._refresh_every_ms or None)
        self.link.clear()       # the sender's first try needs no timer
        self._reported_down = False    # the link as the game was last told
        self._refresh_due = False
        self._bus_error = False                    # sender thread: a retried error seen
        self.refreshes = 0
        self._wake_loop = wake
        self._coalesce_s = coalesce_ms / 1000
        self._shift_every_ms = shift_every_ms
        self._retry = I2cRetry(max(1, attempts), 0.001, sleep=sleep,
                               transient=transient_panel_error)
        self._idle_dim_ms, self._idle_off_ms = idle_dim_ms, idle_off_ms
        self._contrast, self._dim_contrast = contrast, dim_contrast
        self._cond = threading.Condition()
        # desired state, written by the caller's thread
        self._source: Image.Image | None = None     # the frame as rendered
        self._source_bytes: bytes | None = None
        self._source_version = 0
        self._shifted_for: tuple[int, tuple[int, int]] | None = None
        self.offset = (0, 0)                         # where the frame to send sits
        self._frame: Image.Image | None = None      # ... and moved by offset
        self._frame_bytes: bytes | None = None
        self._now: int | None = None
        self._want_contrast = contrast
        self._want_on = True
        self._dimmed = False
        self._want_device = True
        self._closing = False
        # applied state, written by the sender thread
        self._device: PanelDevice | None = None
        self._sent_bytes: bytes | None = None
        self._sent_contrast: int | None = None
        self._sent_on: bool | None = None
        self._busy = False
        # coalescing, in real time (time.monotonic) on both threads
        self._frame_at = 0.0            # when the newest frame was queued
        self._burst = False             # ... while the previous one was on the wire
        self._send_s = 0.0              # how long the last frame took to send
        self._sent_at = 0.0             # when it was done
        self.last_error: str | None = None
        self.frames_sent = 0
        # the caller's clock
        self._last_activity_ms: int | None = None
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

    def show(self, image: Image.Image, now_ms: int, activity: bool = True) -> None:
        """Queue ``image`` (128x64); a changed frame counts as activity unless the
        box changed it by itself (``activity`` False: the idle screen's pages)."""
        self._check_open()
        if image.size != (self.width, self.height):
            raise ValueError(f"frame is {image.size}, the display is {self.width}x{self.height}")
        frame = image if image.mode == "1" else image.convert("1")
        data = frame.tobytes()
        with self._cond:
            if data != self._source_bytes:
                self._source, self._source_bytes = frame.copy(), data
                self._source_version += 1
                self._frame_at = time.monotonic()
                self._burst = self._burst or self._busy
                if activity:
                    self._wake(now_ms)
            self._update(now_ms)
            self._notify_locked()
            self._schedule_locked()

    def set_contrast(self, contrast: int) -> None:
        """The brightness when not dimmed (the operator menu's adjustment)."""
        with self._cond:
            self._contrast = contrast
            self._dim_contrast = min(self._dim_contrast, contrast)
            if not self._dimmed:
                self._want_contrast = contrast
            self._notify_locked()

    def wake(self, now_ms: int) -> None:
        """Activity without a new frame (a flap, a button): undo dimming, restart idle."""
        with self._cond:
            self._wake(now_ms)
            self._update(now_ms)
            self._notify_locked()
            self._schedule_locked()

    def poll(self, now_ms: int) -> list[InputFault]:
        """Dim or blank after idle time; ask the sender to look for a lost display.
        Returns a fault when the display was lost, and its recovery when it is back."""
        self._check_open()
        with self._cond:
            if self._last_activity_ms is None:
                self._last_activity_ms = now_ms
            self._update(now_ms)
            self._notify_locked()
            self._schedule_locked()
            down, reason = self.link.down_now, self.link.reason
            was, self._reported_down = self._reported_down, down
        if down == was:
            return []
        if down:
            return [InputFault(SOURCE, reason, now_ms)]
        return [InputFault(SOURCE, BACK_MESSAGE, now_ms, ok=True)]

    def _schedule_locked(self) -> None:
        """Register the display's next deadline (with the lock held, after
        whatever changed it): dimming, blanking, the retry of a lost panel or
        the setup's refresh (only while the screen is on), the next step of
        the orbit."""
        times: list[int] = []
        if self._last_activity_ms is not None:
            if self._want_on and self._idle_dim_ms and not self._dimmed:
                times.append(self._last_activity_ms + self._idle_dim_ms)
            if self._want_on and self._idle_off_ms:
                times.append(self._last_activity_ms + self._idle_off_ms)
        if self.link.next_ms is not None and (self._want_on or not self.link.connected):
            times.append(self.link.next_ms)
        if (self._shift_every_ms and self._want_on and self._source is not None
                and self._now is not None):
            times.append((self._now // self._shift_every_ms + 1) * self._shift_every_ms)
        self.timer.at(min(times) if times else None)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until the sender has nothing left to do (tests, shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._busy and not self._work_locked(),
                                       timeout)

    def _close(self) -> None:
        """Stop the sender; blank the panel on the way out (burn-in)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout=5)
        self.timer.cancel()
        device = self._device
        self._device = None
        if device is not None:
            try:
                device.cleanup()
            except DEVICE_ERRORS:
                pass
        release = getattr(self._factory, "close", None)
        if release is not None:
            release()

    def _notify_locked(self) -> None:
        """Wake the sender only if it has something to do: the panel is idle
        most of the time, and a thread woken for nothing costs a wake-up."""
        if self._work_locked() and not self._busy:
            self._cond.notify_all()

    def _wake(self, now_ms: int) -> None:
        self._last_activity_ms = now_ms
        if not self._want_on and self._refresh_panel is not None:
            self._refresh_due = True    # the panel may have lost its setup while dark
        self._want_on = True
        self._dimmed = False
        self._want_contrast = self._contrast

    def _update(self, now_ms: int) -> None:
        """Idle timers, the retry timer and the burn-in orbit; called with the lock held."""
        self._now = now_ms
        if self._last_activity_ms is None:
            self._last_activity_ms = now_ms
        idle = now_ms - self._last_activity_ms
        if self._idle_off_ms and idle >= self._idle_off_ms:
            self._want_on = False
        elif self._idle_dim_ms and idle >= self._idle_dim_ms:
            self._dimmed = True
            self._want_contrast = self._dim_contrast
        retrying = self._device is None and not self._want_device and not self._busy
        refreshing = bool(self._refresh_every_ms and self._want_on and self._device is not None)
        if retrying or refreshing:
            if self.link.next_ms is None:
                self.link.wait(now_ms)
            elif self.link.due(now_ms):
                if retrying:
                    self.link.clear()           # the sender's try starts the next wait
                    self._want_device = True
                else:
                    self._refresh_due = True
                    self.link.wait(now_ms)
        self._shift(now_ms)

    def _shift(self, now_ms: int) -> None:
        """The frame to send: the rendered one, moved to this period's orbit position."""
        if self._source is None:
            return
        want = ORBIT[now_ms // self._shift_every_ms % len(ORBIT)] if self._shift_every_ms \
            else (0, 0)
        key = (self._source_version, want)
        if key == self._shifted_for:
            return
        if (not self._want_on and self._shifted_for is not None
                and self._shifted_for[0] == self._source_version):
            return   # blank: move it when it is shown again
        self._shifted_for = key
        self._frame, self.offset = shift_within_blank(self._source, want)
        self._frame_bytes = self._frame.tobytes()

    # -- the sender thread ---------------------------------------------------------

    def _attempt(self, op: Callable[[], Any]) -> Any:
        """``op``, tried again at once after a transient bus error (lost arbitration,
        a NAK in the middle of a frame), with a short growing pause."""
        return self._retry.run(op, on_retry=self._note_bus_error)

    def _note_bus_error(self, exc: BaseException) -> None:
        self._bus_error = True  # a byte may have been lost: replay the setup after

    def _work_locked(self) -> bool:
        if self._device is None:
            return self._want_device
        return (self._refresh_due or self._want_on != self._sent_on
                or self._want_contrast != self._sent_contrast
                or (self._frame_bytes is not None and self._frame_bytes != self._sent_bytes))

    def _hold_locked(self) -> None:
        """Coalesce a burst (with the lock held): a frame that came while the last
        one was on the wire waits until no newer frame has come for ``coalesce_ms``
        (at most the last send's time), and at the latest one frame time after
        the last send ended; the newest frame then goes out."""
        if not self._burst:
            return
        self._burst = False
        quiet = min(self._coalesce_s, self._send_s)
        latest = self._sent_at + self._send_s
        while not self._closing:
            left = min(self._frame_at + quiet, latest) - time.monotonic()
            if left <= 0:
                return
            self._cond.wait(left)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closing or self._work_locked())
                self._hold_locked()
                if self._closing:
                    return
                self._busy = True
                job = PanelJob(self._device, self._frame, self._frame_bytes,
                               self._want_contrast, self._want_on, self._sent_contrast,
                               self._sent_on, self._sent_bytes, self._refresh_due)
                self._refresh_due = False
            self._bus_error = False
            failure: BaseException | None = None
            error = None
            try:
                job.run(self._attempt, self._factory, self._refresh_panel)
            except DEVICE_ERRORS as exc:
                error, failure = f"display: {exc}", exc
            except Exception as exc:  # noqa: BLE001 - the sender must outlive a driver bug
                error, failure = f"display: {type(exc).__name__}: {exc}", exc
            if job.refreshed:
                self.refreshes += 1
            if job.frame_s is not None:
                self.frames_sent += 1
                self._sent_at, self._send_s = job.frame_done_at, job.frame_s
            if failure is not None:
                failed = getattr(self._factory, "failed", None)
                if failed is not None:
                    failed(failure)   # close what failed, keep what may work again
            with self._cond:
                news = self._settle_locked(job, failure, error)
                self._schedule_locked()
            if news:
                self._wake_loop()    # lost or back: the loop's poll reports it

    def _settle_locked(self, job: PanelJob, failure: BaseException | None,
                       error: str | None) -> bool:
        """Record how the send went (lock held); True when the link changed (news)."""
        if failure is None:
            self._device = job.device
            if self._bus_error and self._refresh_panel is not None:
                self._refresh_due = True
            news = not self.link.connected and self.link.up(self._now)
            self._sent_contrast, self._sent_on, self._sent_bytes = (
                job.sent_contrast, job.sent_on, job.sent_bytes)
        else:
            self.last_error = error
            # poll() starts the retry's wait; a new device gets the whole init
            news = self.link.down(fault_message(failure), None)
            self._device = None
            self._want_device = False
            self._sent_contrast = self._sent_on = self._sent_bytes = None
        self._busy = False
        self._cond.notify_all()
        return news
