"""Flaps, buttons and LEDs on the Pi's own pins, through gpiozero.

Works over any gpiozero pin factory (lgpio or RPi.GPIO on the box,
``MockFactory`` in tests and the simulator). Switches are wired to ground
with the Pi's pull-up: shut / pressed reads low. gpiozero's callbacks run on
its own threads (synchronously for the mock), so they only record
``(line, level, clock.now_ms())`` under a lock and then wake the daemon's
loop (see :class:`~.poll.Waker`); debouncing happens in ``poll`` (see
:mod:`.debounce`). ``bounce_time`` is never set: the mock
ignores it and the real backends disagree about it.

Every ``read_ms`` the levels are also read, so an edge the backend lost is
repaired. Starting a backend can fail in ways a person can fix (lgpio makes
a FIFO ``.lgd-nfy*`` in ``$LG_WD`` or the working directory when imported;
gpiozero reads the board's revision from ``/proc/device-tree`` or
``/proc/cpuinfo``; ``/dev/gpiochip*`` belongs to the gpio group):
:func:`make_pin_factory` says which, in one line.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any

from gpiozero import DigitalInputDevice, DigitalOutputDevice

from ...base.errors import UserError
from ...base.events import InputFault
from ...base.lifecycle import Closable
from ...base.scheduler import Scheduler
from ..contracts.clock import Clock
from ..contracts.config import HardwareConfig
from ..contracts.poll import Wake, no_wake
from .lights import Lamp
from .switches import Edge, Line

PiPin = int | str
"""A pin as gpiozero names it: a BCM number, or a name such as "GPIO17"."""


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
    if lib == "lgpio":
        private_lg_wd()
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


def private_lg_wd(environ: MutableMapping[str, str] = os.environ) -> str | None:
    """Give lgpio a folder of its own for its FIFO when ``LG_WD`` is not set.

    lgpio makes ``.lgd-nfy*`` in ``$LG_WD``, else in the working directory (and
    leaves it there): a command run by hand would litter the folder it was run
    from, or fail in one it cannot write. The folder is private (mode 0700) under
    ``$XDG_RUNTIME_DIR`` or the temporary directory, and removed at exit.
    Returns the folder made, or None when ``LG_WD`` was already set (systemd's
    unit sets it) or no folder could be made (lgpio then says so itself).
    """
    if environ.get("LG_WD"):
        return None
    runtime = environ.get("XDG_RUNTIME_DIR")
    base = runtime if runtime and os.access(runtime, os.W_OK | os.X_OK) else None
    try:
        folder = tempfile.mkdtemp(prefix="shutbox-hw-lgpio-", dir=base)
    except OSError:
        return None
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    environ["LG_WD"] = folder
    return folder


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
    "lgpio": "on the Pi: pip install 'shutbox-hw[pi]' (or apt install python3-lgpio, "
             "venv --system-site-packages)",
    "RPi.GPIO": "pip install 'shutbox-hw[pi]' (or use --pin-factory lgpio)",
}
NOT_A_PI = "on a PC: shutbox-hw sim"


def pin_factory_problem(lib: str, exc: BaseException) -> str:
    """Why a gpiozero backend could not start, and the fix, as one line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    filename = str(getattr(exc, "filename", "") or "")
    if isinstance(exc, ImportError):
        # the module's own "No module named ..." says nothing more; anything else does
        plain = getattr(exc, "name", None) == lib or text == f"No module named '{lib}'"
        why = "" if plain else f" ({text})"
        return f"the {lib} library is not installed{why}; {INSTALL_HINT[lib]}; {NOT_A_PI}"
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


PIN_LIBRARIES = ("gpiozero.pins", "lgpio", "RPi", "rpi_lgpio")


def raised_in_pin_library(exc: BaseException) -> bool:
    """True when ``exc`` came out of a pin backend's code (gpiozero's pin classes,
    lgpio, RPi.GPIO): whatever it is, it is about the pins, not a bug of ours."""
    if type(exc).__module__.startswith(PIN_LIBRARIES):
        return True
    tb = exc.__traceback__
    while tb is not None:
        if str(tb.tb_frame.f_globals.get("__name__", "")).startswith(PIN_LIBRARIES):
            return True
        tb = tb.tb_next
    return False


def pin_claim_problem(exc: BaseException) -> str | None:
    """One line for a pin the backend would not give us (busy, not there, or a
    backend that cannot watch pins here), or None when ``exc`` is not that kind
    of error (a bug keeps its traceback)."""
    from gpiozero.exc import GPIOZeroError
    if not (isinstance(exc, GPIOZeroError) or raised_in_pin_library(exc)):
        return None
    text = " ".join(str(exc).split()) or type(exc).__name__
    if "edge detection" in text:
        # RPi.GPIO 0.7 watches edges through /sys/class/gpio (export), which the unit's
        # ProtectKernelTunables=yes makes read-only and newer kernels number differently
        return (f"RPi.GPIO cannot watch the box's pins here ({text}): it needs the old "
                "/sys/class/gpio interface; use --pin-factory lgpio (the default)")
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


class StampedInput(DigitalInputDevice):  # type: ignore[misc]  # gpiozero has no types
    """A gpiozero input that keeps the ``ticks`` of the change it is firing for:
    with lgpio the kernel's timestamp of the edge (gpiozero hands it on in
    seconds of ``CLOCK_MONOTONIC``, the clock of ``time.monotonic_ns``)."""

    ticks: float | None = None

    def _fire_events(self, ticks: Any, new_active: Any) -> None:
        self.ticks = ticks
        super()._fire_events(ticks, new_active)


def kernel_ms(ticks: float) -> int:
    """gpiozero's ticks (seconds on the monotonic clock) in the box clock's milliseconds."""
    return int(ticks * 1000)


class PiPins(Closable):
    """Switches to ground on the Pi's own pins: an :class:`~.switches.EdgeSource`.

    gpiozero's callbacks only record ``(line, level, time)`` under a lock, from
    its own threads, then call ``wake`` so that a sleeping loop looks at them
    now; :meth:`edges` hands them over. The time is the edge's own: with
    ``kernel_ticks`` (the box, on the monotonic clock) the kernel's timestamp
    that lgpio hands to the callback, so a callback that runs late (a busy
    thread, the GIL) neither stretches nor squeezes a bounce; without (the
    simulator's virtual clock) the clock when the callback runs. Every
    ``read_ms`` it also reads every pin's level, as the expander does: a level
    that differs from the last edge seen is an edge the backend lost, and goes
    through the same debouncer (a level equal to it changes nothing).

    Its timer in ``timers`` says when :meth:`edges` is next needed: at once
    when an edge was recorded (the callback registers it, as it wakes the
    loop), else at the next periodic read.
    """

    def __init__(self, pins: Mapping[Line, PiPin], clock: Clock, pin_factory: Any = None,
                 read_ms: int = HardwareConfig.read_interval_ms, wake: Wake = no_wake,
                 kernel_ticks: bool = False, timers: Scheduler | None = None) -> None:
        if read_ms <= 0:
            raise ValueError("read_ms must be positive")
        self._clock = clock
        self._wake = wake
        self._kernel_ticks = kernel_ticks
        self._lock = threading.Lock()
        self._recorded: list[Edge] = []
        self._devices: dict[Line, StampedInput] = {}
        self.read_ms = read_ms
        self._next_read: int | None = None
        self.timer = (Scheduler() if timers is None else timers).timer("pi pins")
        try:
            for line, pin in pins.items():
                dev = StampedInput(pin, pull_up=True, pin_factory=pin_factory)
                dev.when_activated = self._recorder(line, True, dev)
                dev.when_deactivated = self._recorder(line, False, dev)
                self._devices[line] = dev
        except Exception:
            self.close()
            raise

    def _recorder(self, line: Line, closed: bool, dev: StampedInput) -> Callable[[], None]:
        """A gpiozero ``when_*`` handler (its thread): note the edge and when, then
        wake the loop (after recording, so the step it wakes finds the edge)."""
        def record() -> None:
            now = self._clock.now_ms()
            at = now
            if self._kernel_ticks and dev.ticks is not None:
                at = min(now, kernel_ms(dev.ticks))   # never ahead of the loop's clock
            with self._lock:
                self._recorded.append(Edge(line, closed, at))
                self.timer.at(self._recorded[0].at_ms)
            self._wake()
        return record

    def levels(self) -> dict[Line, bool]:
        """Closed (True) or open, as the pins read now."""
        return {line: bool(dev.is_active) for line, dev in self._devices.items()}

    def edges(self, now_ms: int | None = None) -> list[Edge]:
        self._check_open()
        with self._lock:
            out, self._recorded = self._recorded, []
        if now_ms is not None:
            # the periodic read: after the recorded edges, so it only adds what they lack
            if self._next_read is None:
                self._next_read = now_ms + self.read_ms
            if now_ms >= self._next_read:
                out += [Edge(line, level, now_ms) for line, level in self.levels().items()]
                self._next_read = now_ms + self.read_ms
        with self._lock:
            self.timer.at(self._recorded[0].at_ms if self._recorded else self._next_read)
        return out

    def take_faults(self) -> list[InputFault]:
        return []

    def _close(self) -> None:
        for dev in self._devices.values():
            dev.close()
        self._devices.clear()
        self.timer.cancel()


class PiLamps(Closable):
    """LEDs on the Pi's own pins: a :class:`~.lights.LampSink`.

    A pin is written only when its level changes.
    """

    def __init__(self, pins: Mapping[Lamp, PiPin], pin_factory: Any = None) -> None:
        self._leds: dict[Lamp, DigitalOutputDevice] = {}
        try:
            for lamp, pin in pins.items():
                self._leds[lamp] = DigitalOutputDevice(pin, initial_value=False,
                                                       pin_factory=pin_factory)
        except Exception:
            self.close()
            raise
        self._lit = {lamp: False for lamp in self._leds}

    def write(self, levels: Mapping[Lamp, bool], now_ms: int) -> None:
        self._check_open()
        for lamp, led in self._leds.items():
            level = levels.get(lamp, False)
            if level != self._lit[lamp]:
                led.value = level
                self._lit[lamp] = level

    def _close(self) -> None:
        for led in self._leds.values():
            led.close()
        self._leds.clear()
