"""Flaps, buttons and LEDs on the Pi's own pins, through gpiozero.

Works over any gpiozero pin factory (lgpio or RPi.GPIO on the box,
``MockFactory`` in tests and the simulator). Switches are wired to ground
with the Pi's pull-up: shut / pressed reads low. gpiozero's callbacks run on
its own threads (synchronously for the mock), so they only record
``(line, level, clock.now_ms())`` under a lock; debouncing happens in
``poll`` (see :mod:`.debounce`). ``bounce_time`` is never set: the mock
ignores it and the real backends disagree about it.

Every ``read_ms`` the levels are also read, so an edge the backend lost is
repaired. Starting a backend can fail in ways a person can fix (lgpio makes
a FIFO ``.lgd-nfy*`` in ``$LG_WD`` or the working directory when imported;
gpiozero reads the board's revision from ``/proc/device-tree`` or
``/proc/cpuinfo``; ``/dev/gpiochip*`` belongs to the gpio group):
:func:`make_pin_factory` says which, in one line.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from gpiozero import DigitalInputDevice, DigitalOutputDevice

from ..errors import UserError
from ..events import ButtonPressed, FlapChanged, InputFault
from .debounce import ButtonInputs, FlapInputs
from .ports import LedFrame, LedState

Pin = int | str


class Clock(Protocol):
    def now_ms(self) -> int: ...


PIN_FACTORIES = ("lgpio", "rpigpio", "mock")


def default_pin_factory() -> str:
    """gpiozero's own setting ``GPIOZERO_PIN_FACTORY`` if set, else lgpio."""
    return os.environ.get("GPIOZERO_PIN_FACTORY", "lgpio")


def make_pin_factory(name: str = "lgpio") -> Any:
    """The gpiozero pin factory called ``name``, ready to make pins.

    ``lgpio`` is the default because it works on every Pi including the Pi 5;
    ``rpigpio`` is for older boards; ``mock`` is gpiozero's simulated pins.
    Whatever stops a backend from starting (a missing library, a directory
    lgpio cannot write, a hidden ``/proc/cpuinfo``, a gpiochip the user may
    not open) is a setup mistake: one :class:`UserError` line naming the
    backend, the cause and the fix where it is known. The board is looked up
    here, not at the first pin, so that the line comes before anything starts.
    """
    if name == "mock":
        from gpiozero.pins.mock import MockFactory
        return MockFactory()
    if name == "lgpio":
        module, cls, lib = "gpiozero.pins.lgpio", "LGPIOFactory", "lgpio"
    elif name == "rpigpio":
        module, cls, lib = "gpiozero.pins.rpigpio", "RPiGPIOFactory", "RPi.GPIO"
    else:
        raise UserError(f"pin factory {name!r} is not one of {', '.join(PIN_FACTORIES)}")
    try:
        # lgpio does real work at import: it makes its notification FIFO, and its
        # C library reports a failure on fd 2 before Python raises
        with _c_stderr_kept_unless_failed():
            mod = __import__(module, fromlist=[cls])
        factory = getattr(mod, cls)()
        factory.board_info  # noqa: B018 - reads the board's revision now
    except Exception as exc:  # noqa: BLE001 - the backends raise many kinds
        raise UserError(f"pin factory {name!r}: {pin_factory_problem(lib, exc)}") from None
    return factory


@contextlib.contextmanager
def _c_stderr_kept_unless_failed() -> Iterator[None]:
    """Hold what C code writes to fd 2 meanwhile: passed on if the block succeeds,
    dropped if it raises (the one-line error then says it all)."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        ok = False
        try:
            yield
            ok = True
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            if ok:
                held.seek(0)
                text = held.read()
                if text:
                    os.write(2, text)


INSTALL_HINT = {
    "lgpio": "on Raspberry Pi OS: apt install python3-lgpio and a venv made with "
             "--system-site-packages, or pip install 'shutbox-hw[pi]'",
    "RPi.GPIO": "pip install 'shutbox-hw[pi]' (or use --pin-factory lgpio)",
}


def pin_factory_problem(lib: str, exc: BaseException) -> str:
    """Why a gpiozero backend could not start, and the fix, as one line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    filename = str(getattr(exc, "filename", "") or "")
    if isinstance(exc, ImportError):
        return f"the {lib} library is not installed ({text}); {INSTALL_HINT[lib]}"
    if ".lgd-nfy" in filename:
        # lgpio makes its FIFO in $LG_WD (it changes into it) or else the working directory
        where = os.environ.get("LG_WD") or os.getcwd()
        return (f"lgpio cannot create its notification FIFO (.lgd-nfy*) in {where} "
                f"({exc.strerror if isinstance(exc, OSError) else text}): set LG_WD to a "
                "writable directory, or start from a writable working directory "
                "(systemd: RuntimeDirectory= with Environment=LG_WD=/run/..., or "
                "WorkingDirectory=)")
    if type(exc).__name__ == "PinUnknownPi" or filename.startswith("/proc/"):
        return (f"cannot tell which board this is ({text}): gpiozero reads /proc/cpuinfo or "
                "/proc/device-tree; run on a Raspberry Pi, and under systemd do not hide "
                "them (no ProcSubset=pid)")
    if "SOC peripheral base address" in text:
        return f"{text}: RPi.GPIO does not run on a Pi 5; use --pin-factory lgpio"
    if "gpiochip" in text or "/dev/gpiomem" in text or "/dev/mem" in text:
        return f"{text}: {gpio_device_problem()}"
    return f"cannot start here: {type(exc).__name__}: {text}"


def pin_claim_problem(exc: BaseException) -> str | None:
    """One line for a pin the backend would not give us (busy, not there), or None
    when ``exc`` is not that kind of error (a bug keeps its traceback)."""
    from gpiozero.exc import GPIOZeroError
    if not (isinstance(exc, GPIOZeroError) or type(exc).__module__ in ("lgpio", "RPi.GPIO")):
        return None
    text = " ".join(str(exc).split()) or type(exc).__name__
    return (f"cannot claim the box's pins ({text}): another program holds one (a second "
            "shutbox-hw: sudo systemctl stop shutbox-hw; or a kernel driver from a dtoverlay "
            "in config.txt)")


def gpio_device_problem(dev: str = "/dev") -> str:
    """What is wrong with the GPIO character devices, as far as can be seen."""
    chips = sorted(p for p in os.listdir(dev) if p.startswith("gpiochip")) \
        if os.path.isdir(dev) else []
    if not chips:
        return (f"no {dev}/gpiochip* here (not a Raspberry Pi, or the kernel has no GPIO "
                "character device)")
    denied = [c for c in chips if not os.access(os.path.join(dev, c), os.R_OK | os.W_OK)]
    if denied:
        return (f"no permission on {dev}/{denied[0]}: add the user to the gpio group "
                "(usermod -aG gpio USER, then log in again; systemd: "
                "SupplementaryGroups=gpio and DeviceAllow=char-gpiochip rw)")
    return f"{dev}/{chips[0]} is there and open to this user: is another program using the pins?"


class EdgeRecorder:
    """Raw edges from gpiozero's threads, kept until the daemon loop takes them."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._edges: list[tuple[Hashable, bool, int]] = []

    def callback(self, key: Hashable, level: bool) -> Callable[[], None]:
        """A gpiozero ``when_*`` handler that records ``level`` for ``key``."""
        def record() -> None:
            with self._lock:
                self._edges.append((key, level, self._clock.now_ms()))
        return record

    def take(self) -> list[tuple[Hashable, bool, int]]:
        with self._lock:
            edges, self._edges = self._edges, []
        return edges


class _GpioSwitches:
    """Switches to ground on Pi pins, keyed by tile or button name.

    gpiozero's callbacks only record edges; ``poll`` hands them to the pure
    debounce logic (:mod:`.debounce`) that the subclass chose. Every
    ``read_ms`` ``poll`` also reads every pin's level, as the expander does: a
    level that differs from the last edge seen is an edge the backend lost,
    and goes through the same debouncer (a level equal to it changes nothing).
    """

    def __init__(self, pins: Mapping[Hashable, Pin], clock: Clock, pin_factory: Any,
                 read_ms: int = 250) -> None:
        if read_ms <= 0:
            raise ValueError("read_ms must be positive")
        self._recorder = EdgeRecorder(clock)
        self._devices: dict[Hashable, DigitalInputDevice] = {}
        self.read_ms = read_ms
        self._next_read: int | None = None
        try:
            for key, pin in pins.items():
                dev = DigitalInputDevice(pin, pull_up=True, pin_factory=pin_factory)
                dev.when_activated = self._recorder.callback(key, True)
                dev.when_deactivated = self._recorder.callback(key, False)
                self._devices[key] = dev
        except Exception:
            self.close()
            raise

    def _levels(self) -> dict[Hashable, bool]:
        """Closed (True) or open, as the pins read now."""
        return {key: bool(dev.is_active) for key, dev in self._devices.items()}

    def _feed(self) -> None:
        for key, level, at in self._recorder.take():
            self._logic.edge(key, level, at)

    def _read_levels(self, now_ms: int) -> None:
        """The periodic read: after the recorded edges, so it only adds what they lack."""
        if self._next_read is None:
            self._next_read = now_ms + self.read_ms
        if now_ms < self._next_read:
            return
        for key, level in self._levels().items():
            self._logic.edge(key, level, now_ms)
        self._next_read = now_ms + self.read_ms

    def poll(self, now_ms: int) -> Sequence[FlapChanged | ButtonPressed | InputFault]:
        self._feed()
        self._read_levels(now_ms)
        return self._logic.poll(now_ms)

    def next_deadline_ms(self) -> int | None:
        self._feed()
        times = [t for t in (self._logic.next_deadline_ms(), self._next_read) if t is not None]
        return min(times, default=None)

    def close(self) -> None:
        for dev in self._devices.values():
            dev.close()
        self._devices.clear()


class GpioFlapBank(_GpioSwitches):
    """The flap switches on Pi pins (a :class:`~.ports.FlapBank`)."""

    def __init__(self, tile_pins: Mapping[int, Pin], clock: Clock, *, debounce_ms: int = 20,
                 chatter_ms: int = 1000, read_ms: int = 250, pin_factory: Any = None) -> None:
        super().__init__(tile_pins, clock, pin_factory, read_ms)
        self.tiles = max(tile_pins, default=0)
        self._logic = FlapInputs(self._levels(), debounce_ms=debounce_ms,
                                 chatter_ms=chatter_ms)

    def shut_mask(self) -> int:
        return self._logic.shut_mask()


class GpioButtons(_GpioSwitches):
    """ROLL and NEXT on Pi pins (a :class:`~.ports.Buttons`)."""

    def __init__(self, roll_pin: Pin, next_pin: Pin, clock: Clock, *, hold_ms: int = 800,
                 debounce_ms: int = 20, chatter_ms: int = 1000, read_ms: int = 250,
                 pin_factory: Any = None) -> None:
        super().__init__({"roll": roll_pin, "next": next_pin}, clock, pin_factory, read_ms)
        self._logic = ButtonInputs(self._levels(), hold_ms=hold_ms, debounce_ms=debounce_ms,
                                   chatter_ms=chatter_ms)


def blink_level(state: LedState, now_ms: int, blink_ms: int) -> bool:
    """Whether an LED is lit at ``now_ms``. Blinking LEDs share one phase,
    counted from time 0, so they flash together and tests can predict them."""
    if state == "blink":
        return (now_ms // blink_ms) % 2 == 0
    return state == "on"


def frame_levels(frame: LedFrame, now_ms: int, blink_ms: int) -> dict[Hashable, bool]:
    """Every light's level at ``now_ms``: keys are tile numbers, "green", "red"."""
    levels: dict[Hashable, bool] = {tile: blink_level(s, now_ms, blink_ms)
                                    for tile, s in enumerate(frame.flaps, start=1)}
    levels["green"] = blink_level(frame.green, now_ms, blink_ms)
    levels["red"] = blink_level(frame.red, now_ms, blink_ms)
    return levels


def next_blink_ms(frame: LedFrame | None, now_ms: int, blink_ms: int) -> int | None:
    """The next phase change if anything blinks."""
    if frame is None or "blink" not in (*frame.flaps, frame.green, frame.red):
        return None
    return (now_ms // blink_ms + 1) * blink_ms


class GpioIndicators:
    """Flap LEDs and the status pair on Pi pins (an :class:`~.ports.Indicators`).

    Blinking is worked out from ``now_ms`` in ``poll``, not by gpiozero's
    background blink thread, so it follows a virtual clock exactly.
    A pin is written only when its level changes.
    """

    def __init__(self, flap_pins: Mapping[int, Pin], green_pin: Pin | None, red_pin: Pin | None,
                 *, blink_ms: int = 400, pin_factory: Any = None) -> None:
        if blink_ms <= 0:
            raise ValueError("blink_ms must be positive")
        self.blink_ms = blink_ms
        pins: dict[Hashable, Pin] = dict(flap_pins)
        if green_pin is not None:
            pins["green"] = green_pin
        if red_pin is not None:
            pins["red"] = red_pin
        self._leds: dict[Hashable, DigitalOutputDevice] = {}
        try:
            for key, pin in pins.items():
                self._leds[key] = DigitalOutputDevice(pin, initial_value=False,
                                                      pin_factory=pin_factory)
        except Exception:
            self.close()
            raise
        self._lit = {key: False for key in self._leds}
        self._frame: LedFrame | None = None
        self._now = 0

    def show(self, frame: LedFrame, now_ms: int) -> None:
        self._frame = frame
        self.poll(now_ms)

    def poll(self, now_ms: int) -> None:
        self._now = now_ms
        if self._frame is None:
            return
        levels = frame_levels(self._frame, now_ms, self.blink_ms)
        for key, led in self._leds.items():
            level = levels.get(key, False)
            if level != self._lit[key]:
                led.value = level
                self._lit[key] = level

    def next_deadline_ms(self) -> int | None:
        return next_blink_ms(self._frame, self._now, self.blink_ms)

    def close(self) -> None:
        for led in self._leds.values():
            led.close()
        self._leds.clear()
