"""The real panel under luma: one serial interface, one device, its init replayed.

:class:`LumaPanel` makes the real device: luma's ``i2c()`` opens an SMBus
file descriptor each time it is built, and every luma device registers an
exit hook that keeps it (with its 8192-entry pixel maps) alive for good, so the
serial interface is opened once and the device built once; a retry replays
the device's init sequence on the same descriptor. :meth:`LumaPanel.refresh`
sends that setup again without its display-off (see
:class:`~.oled_display.OledDisplay` for when).
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from luma.core.error import DeviceNotFoundError
from luma.core.error import Error as LumaError
from PIL import Image

from ..contracts.i2c_retry import transient_errno

DISPLAY_OFF = 0xAE           # the first byte of every luma init (SSD1306/SH1106 "display off")
WIDTH, HEIGHT = 128, 64
DEVICE_ERRORS = (OSError, LumaError)  # luma turns errno 121/5 into DeviceNotFoundError


class PanelSerial(Protocol):
    """luma's serial interface, the narrow transport a luma device talks to:
    ``luma.core.interface.serial.i2c`` on the box, the simulated panel in tests."""

    def command(self, *cmd: int) -> None: ...

    def data(self, data: Iterable[int], /) -> None: ...

    def cleanup(self) -> None: ...


class PanelDevice(Protocol):
    """What :class:`~.oled_display.OledDisplay` asks of a panel: a luma device
    (``ssd1306``, ``sh1106``, luma's ``dummy``) or the simulator's recorder.
    A device that also takes ``command``/``data`` gets page updates
    (:mod:`.panel_pages`)."""

    def display(self, image: Image.Image, /) -> None: ...

    def contrast(self, level: int, /) -> None: ...

    def show(self) -> None: ...

    def hide(self) -> None: ...

    def cleanup(self) -> None: ...


def transient_panel_error(exc: BaseException) -> bool:
    """A bus error worth trying again at once (luma reports 121/5 as DeviceNotFoundError)."""
    return isinstance(exc, DeviceNotFoundError) or transient_errno(exc)


def no_answer(exc: BaseException) -> bool:
    """The panel did not answer, but the bus itself is fine (keep its descriptor)."""
    return transient_panel_error(exc) or isinstance(exc, OSError) and exc.errno == errno.ENXIO


class _SerialProxy:
    """What a luma device talks to: records while the device is being built (so
    building it never touches the bus), then forwards to the open interface."""

    def __init__(self) -> None:
        self.target: PanelSerial | None = None
        self.recording: list[tuple[str, Any]] | None = None

    def command(self, *cmd: int) -> None:
        if self.recording is not None:
            self.recording.append(("command", cmd))
        elif self.target is None:
            raise OSError(errno.EBADF, "the display's bus is closed")
        else:
            self.target.command(*cmd)

    def data(self, data: Iterable[int], /) -> None:
        if self.recording is not None:
            self.recording.append(("data", list(data)))
        elif self.target is None:
            raise OSError(errno.EBADF, "the display's bus is closed")
        else:
            self.target.data(data)

    def cleanup(self) -> None:
        """luma's exit hook ends here: the bus is :meth:`LumaPanel.close`'s to close."""


class LumaPanel:
    """The device factory for a real panel (the ``device_factory`` of :class:`OledDisplay`).

    The serial interface is opened on the first attempt and kept while the
    panel merely does not answer (121, 5, 110, 11, ENXIO); any other failure
    closes it and the next attempt opens it anew. The luma device is built
    once, over a recorder; each attempt replays its init sequence.
    """

    def __init__(self, chip: Callable[..., PanelDevice],
                 open_serial: Callable[[], PanelSerial], *, rotation: int = 0) -> None:
        self._chip = chip
        self._open_serial = open_serial
        self._rotation = rotation
        self._serial: PanelSerial | None = None
        self._proxy = _SerialProxy()
        self._device: PanelDevice | None = None
        self._init: list[tuple[str, Any]] = []
        self.serials_opened = 0

    def __call__(self) -> PanelDevice:
        if self._serial is None:
            self._serial = self._open_serial()
            self.serials_opened += 1
        if self._device is None:
            self._proxy.recording = []
            try:
                self._device = self._chip(self._proxy, width=WIDTH, height=HEIGHT,
                                          rotate=self._rotation)
                self._init = self._proxy.recording
            finally:
                self._proxy.recording = None
        self._proxy.target = self._serial
        for kind, payload in self._init:
            if kind == "command":
                self._serial.command(*payload)
            else:
                self._serial.data(payload)
        return self._device

    def refresh(self) -> None:
        """Send the init's setup commands again on the open interface, without
        the display-off they start with: a panel that kept its setup shows no
        change, one that was reset gets its charge pump, addressing mode and
        geometry back. The caller then sends contrast, frame and display-on."""
        if self._serial is None or not self._init:
            raise OSError(errno.EBADF, "the display's bus is closed")
        kind, setup = self._init[0]    # luma's first command(): display off + setup
        if kind == "command" and setup[:1] == (DISPLAY_OFF,):
            setup = setup[1:]
        self._serial.command(*setup)

    def failed(self, exc: BaseException) -> None:
        if not no_answer(exc):
            self.close()

    def close(self) -> None:
        serial, self._serial = self._serial, None
        self._proxy.target = None
        if serial is not None:
            try:
                serial.cleanup()
            except DEVICE_ERRORS:
                pass



def luma_panel(driver: str, port: int, address: int, rotation: int = 0) -> LumaPanel:
    """The real panel on I2C bus ``port`` (its own bus or the expander's)."""
    # imported here: a box with driver = "none" never needs luma.oled
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306, ssd1309
    chip = {"ssd1306": ssd1306, "ssd1309": ssd1309, "sh1106": sh1106}[driver]
    return LumaPanel(chip, lambda: i2c(port=port, address=address), rotation=rotation)
