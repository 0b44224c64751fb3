"""Flaps, buttons and LEDs on MCP23017 expanders.

:class:`ExpanderPins`: up to 14 switches (flaps, ROLL, NEXT) on one chip, an
edge source for :class:`~.switches.Switches`, with its open-drain INT line
on a Pi pin watched through gpiozero (falling edge). The gpiozero callback
notes the time and hands the read to a :class:`Reader`: on the box a thread
of its own (:class:`ThreadReader`) that reads the chip at once, so a loop
blocked on a disk sync or a bus shared with the display never reads it late;
without one the loop reads it at its next poll. Every read fetches all 22
registers in one transfer, which both acknowledges the interrupt and shows
whether the configuration survived: after a brownout the chip is
reconfigured before its pins are trusted (without pull-ups every open switch
would read shut). A full read also runs every ``read_ms`` (default 250) in
case an interrupt was missed.

No invented and no lost presses: INTCAP holds the port as it was at the
first change since the last read, not for how long (datasheet DS20001952
§3.6). So a read is decided from INTCAP and GPIO together with their times:
a captured level that GPIO still shows lasted from the interrupt to the read;
one that GPIO no longer shows lasted less than the time between them, which
the debouncer can judge only when that is under ``debounce_ms``; read later,
it is a glitch of unknown length, never a press. A broken INT wire (INTF set
at a periodic read while the line is not active) or none at all makes the
chip polled every ``debounce_ms / 2`` instead, so that presses are still
seen by their level.
Bus errors are retried by the driver; a chip that stays silent is reported
once as an :class:`~shutbox_hw.base.events.InputFault` (on the flap view) and
retried every ``retry_ms`` while the box keeps running on the last known
state: its :class:`~.link.DeviceLink` holds the state and the one schedule
(the periodic read while it answers, the retry while it does not). Its edges
go through the same debounce logic as GPIO.

:class:`ExpanderLamps`: per-flap LEDs on a second chip (0x21..0x27) and
optionally the status pair on GPA7/GPB7 of the input chip.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from gpiozero import DigitalInputDevice

from ...base.events import InputFault
from ...base.lifecycle import Closable
from ...base.scheduler import Scheduler
from ..contracts.clock import Clock
from ..contracts.config import HardwareConfig
from ..contracts.i2c_bus import I2cBus
from ..contracts.link import DeviceLink
from ..contracts.poll import Wake, no_wake
from .gpio import PiPin
from .lights import Lamp
from .mcp23017 import Mcp23017, Mcp23017Error, Snapshot
from .switches import Edge, Line

log = logging.getLogger("shutbox_hw")

BROWNOUT_MESSAGE = "registers were reset (brownout?)"
RECONFIGURED_MESSAGE = "reconfigured after reset"
BACK_MESSAGE = "answering again"


class Reader(Protocol):
    """Who reads the chip when INT falls: ``request(job)`` runs ``job`` soon, off the loop."""

    def request(self, job: Callable[[], None]) -> None: ...

    def close(self) -> None: ...


class ThreadReader:
    """The box's reader: a thread that runs the latest job as soon as it is asked."""

    def __init__(self, name: str = "expander-reader") -> None:
        self._job: Callable[[], None] | None = None
        self._asked = threading.Event()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def request(self, job: Callable[[], None]) -> None:
        self._job = job
        self._asked.set()

    def _run(self) -> None:
        while True:
            self._asked.wait()
            self._asked.clear()
            if self._closing:
                return
            job = self._job
            if job is not None:
                try:
                    job()
                except Exception:  # noqa: BLE001 - the reader must outlive a driver bug
                    log.exception("expander read")

    def close(self) -> None:
        self._closing = True
        self._asked.set()
        self._thread.join(timeout=2)


class ExpanderPins(Closable):
    """Switches on the input chip, keyed by line: an :class:`~.switches.EdgeSource`."""

    def __init__(self, bus: I2cBus, clock: Clock, lines: Mapping[Line, int], *,
                 int_pin: PiPin | None = None, address: int = 0x20,
                 debounce_ms: int = HardwareConfig.debounce_ms,
                 read_ms: int = HardwareConfig.read_interval_ms, retry_ms: int = 1000,
                 pin_factory: Any = None,
                 sleep: Callable[[float], None] = time.sleep, attempts: int = 4,
                 wake: Wake = no_wake, reader: Reader | None = None,
                 timers: Scheduler | None = None) -> None:
        pins = list(lines.values())
        if len(set(pins)) != len(pins):
            raise ValueError("an expander pin is used twice")
        if any(not 0 <= p <= 15 for p in pins):
            raise ValueError("expander pins are 0..15 (GPA0..GPB7)")
        self.chip = Mcp23017(bus, address, sleep=sleep, attempts=attempts)
        self.source = f"MCP23017 0x{address:02x}"
        self.read_ms = read_ms
        self.retry_ms = retry_ms
        self.poll_ms = max(1, debounce_ms // 2)   # with INT dead or not wired
        self._debounce_ms = debounce_ms
        self._clock = clock
        self._lines = dict(lines)
        self._mask = sum(1 << p for p in pins)
        self._lock = threading.RLock()   # the chip: the reader's thread and the loop's
        self._wake = wake
        self._reader = reader
        self._int_at: int | None = None
        self._read_at: int | None = None   # the last read that gave the debouncers levels
        self._faults: list[InputFault] = []
        self._edges: list[Edge] = []       # read by the reader, not yet taken by the loop
        self.link = DeviceLink(self.source, retry_ms=retry_ms)
        self._int_dead = int_pin is None
        self.glitches = 0   # captured levels gone by a late read: not reported
        # when the chip must next be read: an edge the reader found, an interrupt the
        # loop is to read, the periodic read or a retry
        self.timer = (Scheduler() if timers is None else timers).timer("expander pins")

        now = clock.now_ms()
        self._start: dict[Line, bool] = {line: False for line in lines}
        try:
            self.chip.configure(self._mask)
            snap = self.chip.read_all()
            self._start = {line: not (snap.gpio >> p & 1) for line, p in lines.items()}
            self._read_at = now
            self.link.up(now, self._interval())
        except Mcp23017Error as exc:
            self._lost(exc, now)
        self._schedule()

        self._int_device = None
        if int_pin is not None:
            # Open drain with the Pi's pull-up: active (low) = interrupt pending.
            self._int_device = DigitalInputDevice(int_pin, pull_up=True, pin_factory=pin_factory)
            self._int_device.when_activated = self._on_interrupt

    def levels(self) -> dict[Line, bool]:
        """As the first read showed them (all open when the chip did not answer)."""
        return dict(self._start)

    def _interval(self) -> int:
        return self.poll_ms if self._int_dead else self.read_ms

    def _on_interrupt(self) -> None:
        """gpiozero thread: note when, then read at once (the reader) or wake the loop."""
        with self._lock:
            if self._int_at is None:
                self._int_at = self._clock.now_ms()
            if self._int_dead:
                self._int_dead = False
                log.info("%s: INT line working again", self.source)
            self._schedule()
        if self._reader is not None:
            self._reader.request(self._read_for_interrupt)
        else:
            self._wake()

    def _read_for_interrupt(self) -> None:
        """The reader: the chip read as INT fell; the edges wait for the loop."""
        with self._lock:
            if self._int_at is None or self.link.down_now:
                return
            self._edges += self._read(self._clock.now_ms())
            self._schedule()
        self._wake()

    def _lost(self, exc: Mcp23017Error, now: int) -> None:
        if self.link.down(str(exc).split(": ", 1)[-1], now):
            self._faults.append(InputFault(self.source, self.link.reason, now))

    def known_until(self, now_ms: int) -> int:
        """Up to when the lines' levels are known: an interrupt not yet read may
        hold a change from its time on (the debouncers wait for it); polled
        with INT dead, only up to the last read."""
        with self._lock:
            if self._int_at is not None and not self.link.down_now:
                return min(self._int_at, now_ms)
            if self._int_dead and not self.link.down_now and self._read_at is not None:
                return min(self._read_at, now_ms)
            return now_ms

    def _schedule(self) -> None:
        """Register when the chip must next be read (now-ish if an interrupt is
        pending, else the link's check or retry); with the lock held, after
        whatever changed it."""
        if self._edges:
            self.timer.at(min(e.at_ms for e in self._edges))
            return
        int_at = self._int_at if self._reader is None else None
        due = self.link.next_ms
        if int_at is not None and not self.link.down_now:
            self.timer.at(int_at if due is None else min(int_at, due))
        else:
            self.timer.at(due)

    def edges(self, now_ms: int | None = None) -> list[Edge]:
        """What the reader found, then what the chip shows if a read is due by
        ``now_ms`` (an interrupt the loop is to read, or a periodic read): a
        second call at the same time finds nothing due."""
        self._check_open()
        with self._lock:
            out, self._edges = self._edges, []
            pending = self._int_at is not None and self._reader is None
            if now_ms is not None and (self.link.due(now_ms)
                                       or (pending and not self.link.down_now)):
                out += self._read(now_ms)
            self._schedule()
            return out

    def _read(self, now_ms: int) -> list[Edge]:
        """Read every register (with the lock held) and decide what they show."""
        int_at, self._int_at = self._int_at, None
        try:
            snap = self.chip.read_all()
            # the registers are as they were when the bus let the read through, which
            # may be after a wait behind another transfer: that is the read's time
            now_ms = max(now_ms, self._clock.now_ms())
            if int_at is None and self._int_at is not None:
                # INT fell while the registers were on the wire: this read answers it
                int_at, self._int_at = self._int_at, None
            if not self.chip.configured(snap):
                if not self.link.down_now:
                    self._faults.append(InputFault(self.source, BROWNOUT_MESSAGE, now_ms))
                    self._faults.append(InputFault(self.source, RECONFIGURED_MESSAGE, now_ms,
                                                   ok=True))
                self.chip.configure(self._mask)
                snap = self.chip.read_all()
                int_at = None     # what was latched before the reset means nothing now
        except Mcp23017Error as exc:
            # The interrupt stays latched in the chip, but its capture is old news
            # by the time the chip answers again: the next read uses GPIO only.
            self._lost(exc, now_ms)
            return []
        stale = self.link.down_now  # a capture from before an outage is old news: GPIO only
        if int_at is None and snap.intf and not self._int_dead and self._int_device is not None \
                and not self._int_device.is_active:
            self._int_dead = True     # latched, yet INT is not low: the wire is broken
            log.warning("%s: INT line dead, polling every %d ms", self.source, self.poll_ms)
        if self.link.up(now_ms, self._interval()):
            self._faults.append(InputFault(self.source, BACK_MESSAGE, now_ms, ok=True))
        out: list[Edge] = []
        self._feed(snap, int_at, now_ms, stale, out)
        self._read_at = now_ms
        return out

    def _feed(self, snap: Snapshot, int_at: int | None, now_ms: int, stale: bool,
              out: list[Edge]) -> None:
        """The edges a snapshot shows, onto ``out``.

        INTF/INTCAP hold the port as it was at the first change since the last
        read. Seen (``int_at``): the capture is the level at the interrupt,
        GPIO the level now. A captured level GPIO still shows is fed at the
        interrupt; one GPIO no longer shows lasted less than ``now - int_at``:
        fed only when that is under ``debounce_ms`` (the debouncer then drops
        it as a glitch), else dropped as a glitch of unknown length. Not seen
        (a periodic read, or polling with INT dead): GPIO alone, now.
        """
        ports = (0xFF if snap.intf & 0xFF else 0) | (0xFF00 if snap.intf & 0xFF00 else 0)
        captured = ports & self._mask if not stale else 0
        gone = (snap.intcap ^ snap.gpio) & captured
        if int_at is None:
            self.glitches += bin(gone).count("1")
        else:
            at = min(int_at, now_ms)
            if now_ms - at >= self._debounce_ms:
                self.glitches += bin(gone).count("1")
                captured &= ~gone
            self._levels(snap.intcap, captured, at, out)
        self._levels(snap.gpio, 0xFFFF, now_ms, out)

    def _levels(self, word: int, ports: int, at_ms: int, out: list[Edge]) -> None:
        for line, pin in self._lines.items():
            if ports >> pin & 1:
                out.append(Edge(line, not (word >> pin & 1), at_ms))  # closed reads low

    def take_faults(self) -> list[InputFault]:
        with self._lock:
            out, self._faults = self._faults, []
        return out

    def _close(self) -> None:
        if self._int_device is not None:
            self._int_device.close()
            self._int_device = None
        if self._reader is not None:
            self._reader.close()
        self.timer.cancel()


class ExpanderLamps(Closable):
    """Per-flap LEDs on an output chip, status LEDs on outputs of another chip
    (usually GPA7/GPB7 of the input chip): a :class:`~.lights.LampSink`.

    A chip that fails a write is marked dirty and written again after
    ``retry_ms``; the LED chip's configuration is re-checked every
    ``verify_ms`` (a brownout turns every pin back into an input).
    """

    def __init__(self, bus: I2cBus, *, address: int | None = 0x21,
                 flap_pins: Mapping[int, int] | None = None, status: Mcp23017 | None = None,
                 green_pin: int | None = 7, red_pin: int | None = 15, verify_ms: int = 1000,
                 retry_ms: int = 1000,
                 sleep: Callable[[float], None] = time.sleep, attempts: int = 4,
                 timers: Scheduler | None = None) -> None:
        self.verify_ms = verify_ms
        self.retry_ms = retry_ms
        self._flap_pins = dict(flap_pins or {})
        if self._flap_pins and address is None:
            raise ValueError("flap LEDs need the LED chip's address")
        self.leds = (Mcp23017(bus, address, sleep=sleep, attempts=attempts)
                     if address is not None and self._flap_pins else None)
        if self.leds is not None and status is not None and self.leds.address == status.address:
            raise ValueError("the LED chip must not be the input chip")
        self.status = status
        self._status_pins: dict[str, int] = {}
        if status is not None:
            for name, pin in (("green", green_pin), ("red", red_pin)):
                if pin is not None:
                    if status.inputs >> pin & 1:
                        raise ValueError(f"status LED pin {pin} is an input on the chip")
                    self._status_pins[name] = pin
        self._written: dict[str, int | None] = {"leds": None, "status": None}
        self._retry_at: int | None = None
        self._next_verify = 0
        self._configured = False
        # when the lamps need ``write`` though nothing changed: a retry, the next check
        self.timer = (Scheduler() if timers is None else timers).timer("expander lamps")
        self._schedule()

    def write(self, levels: Mapping[Lamp, bool], now_ms: int) -> None:
        self._check_open()
        if self._retry_at is not None and now_ms < self._retry_at:
            return
        self._retry_at = None
        leds = sum(1 << p for t, p in self._flap_pins.items() if levels.get(t, False))
        status = sum(1 << p for n, p in self._status_pins.items() if levels.get(n, False))
        try:
            if self.leds is not None:
                if not self._configured or now_ms >= self._next_verify:
                    if not self._configured or not self.leds.configured(self.leds.read_all()):
                        self.leds.configure(0, olat=leds)
                        self._written["leds"] = leds
                        self._configured = True
                    self._next_verify = now_ms + self.verify_ms
                if self._written["leds"] != leds:
                    self.leds.write_outputs(leds)
                    self._written["leds"] = leds
            if self.status is not None and self._status_pins and self._written["status"] != status:
                mask = sum(1 << p for p in self._status_pins.values())
                self.status.write_outputs(status, mask)
                self._written["status"] = status
        except Mcp23017Error:
            self._retry_at = now_ms + self.retry_ms
        self._schedule()

    def _schedule(self) -> None:
        if self._retry_at is not None:
            self.timer.at(self._retry_at)
        else:
            self.timer.at(self._next_verify if self.leds is not None else None)

    def _close(self) -> None:
        """Leave the lights off (best effort: the bus may be gone)."""
        self.timer.cancel()
        try:
            if self.leds is not None and self._configured:
                self.leds.write_outputs(0)
            if self.status is not None and self._status_pins:
                self.status.write_outputs(0, sum(1 << p for p in self._status_pins.values()))
        except Mcp23017Error:
            pass
