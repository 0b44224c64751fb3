"""The ports: what the daemon needs from the box's hardware, nothing more.

Like gpiozero's devices over pin factories, each port has a real adapter
(GPIO via gpiozero, MCP23017 via smbus2, luma.oled) and runs in tests and
the simulator over simulated pins and buses. Every port is polled from the
daemon's single loop with the current time; adapters whose hardware calls
back from other threads only record raw edges there, and do the work in
``poll``. Each part registers when a poll is next needed (debounce expiry,
hold time, blink phase, periodic read) in the box's
:class:`~shutbox_hw.base.scheduler.Scheduler`, so the loop can sleep until the
earliest, or the virtual clock jump straight there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PIL import Image

from ...base.events import ButtonEvent, FlapChanged, InputFault
from ...base.leds import LedFrame as LedFrame  # re-exported: the indicators' port speaks these
from ...base.leds import LedState as LedState


class FlapBank(Protocol):
    """The microswitches under the flaps (shut flap = switch closed, pulled low)."""

    tiles: int

    def shut_mask(self) -> int:
        """The debounced state now: bit t-1 set when flap t is shut."""

    def poll(self, now_ms: int) -> Sequence[FlapChanged | InputFault]:
        """Debounced changes (and faults) that are due by ``now_ms``, in order."""

    def close(self) -> None: ...


class Buttons(Protocol):
    """ROLL and NEXT: a short press on release, a long press once held long enough;
    the optional service button: a request for the operator menu."""

    def poll(self, now_ms: int) -> Sequence[ButtonEvent]: ...

    def close(self) -> None: ...


class Indicators(Protocol):
    """Per-flap LEDs (optional) and the green/red status pair."""

    def show(self, frame: LedFrame, now_ms: int) -> None:
        """Apply a new desired state (only what changed is written)."""

    def poll(self, now_ms: int) -> None:
        """Advance blinking."""

    def close(self) -> None: ...


class Display(Protocol):
    """The 128x64 OLED. ``show`` never blocks: frames go out on another thread,
    an unchanged frame is not sent again, and only the newest pending frame
    is kept."""

    width: int
    height: int

    def show(self, image: Image.Image, now_ms: int, activity: bool = True) -> None:
        """``activity`` False: a frame the box changed by itself (it does not
        undo dimming or the screen saver)."""

    def set_contrast(self, contrast: int) -> None: ...

    def wake(self, now_ms: int) -> None:
        """Someone touched the box: undo dimming or the screen saver."""

    def poll(self, now_ms: int) -> Sequence[InputFault]:
        """Dimming and the screen saver after idle time; retry a lost display.
        A display that is lost (or missing at start) is reported once as a
        fault, and once more (``ok``) when it is back."""

    def close(self) -> None: ...
