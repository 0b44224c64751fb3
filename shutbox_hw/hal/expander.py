"""Flaps, buttons and LEDs on MCP23017 expanders.

:class:`ExpanderPins`: up to 14 switches (flaps, ROLL, NEXT) on one chip, an
edge source for :class:`~.switches.Switches`, with its open-drain INT line
on a Pi pin watched through gpiozero (falling edge). The gpiozero callback
only notes the time and wakes the daemon's loop (see :class:`~.poll.Waker`);
the registers are read in ``poll`` from that loop. Every read fetches all 22
registers in one transfer, which both acknowledges the interrupt and shows
whether the configuration survived: after a brownout the chip is
reconfigured before its pins are trusted (without pull-ups every open switch
would read shut). A full read also runs every ``read_ms`` (default 250) in
case an interrupt was missed; it also takes what INTF/INTCAP latched while
INT was not seen, so a short press is not lost when the INT wire is broken.
Bus errors are retried by the driver; a chip that stays silent is reported
once as an :class:`~shutbox_hw.events.InputFault` (on the flap view) and
retried every ``retry_ms`` while the box keeps running on the last known
state. Its edges go through the same debounce logic as GPIO.

:class:`ExpanderLamps`: per-flap LEDs on a second chip (0x21..0x27) and
optionally the status pair on GPA7/GPB7 of the input chip.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import DigitalInputDevice

from ..events import InputFault
from .clock import Clock
from .config import HardwareConfig
from .gpio import PiPin
from .lights import Lamp
from .mcp23017 import Mcp23017, Mcp23017Error, Snapshot
from .poll import Wake, no_wake
from .switches import Edge, Line

BROWNOUT_MESSAGE = "registers were reset (brownout?)"
RECONFIGURED_MESSAGE = "reconfigured after reset"
BACK_MESSAGE = "answering again"


class ExpanderPins:
    """Switches on the input chip, keyed by line: an :class:`~.switches.EdgeSource`."""

    def __init__(self, bus: Any, clock: Clock, lines: Mapping[Line, int], *,
                 int_pin: PiPin | None = None, address: int = 0x20,
                 debounce_ms: int = HardwareConfig.debounce_ms,
                 read_ms: int = HardwareConfig.read_interval_ms, retry_ms: int = 1000,
                 pin_factory: Any = None,
                 sleep: Callable[[float], None] = time.sleep, attempts: int = 4,
                 wake: Wake = no_wake) -> None:
        pins = list(lines.values())
        if len(set(pins)) != len(pins):
            raise ValueError("an expander pin is used twice")
        if any(not 0 <= p <= 15 for p in pins):
            raise ValueError("expander pins are 0..15 (GPA0..GPB7)")
        self.chip = Mcp23017(bus, address, sleep=sleep, attempts=attempts)
        self.source = f"MCP23017 0x{address:02x}"
        self.read_ms = read_ms
        self.retry_ms = retry_ms
        self._debounce_ms = debounce_ms
        self._word: int | None = None   # the levels the last read gave the debouncers
        self._changed = 0               # the lines whose level that read changed
        self._clock = clock
        self._lines = dict(lines)
        self._mask = sum(1 << p for p in pins)
        self._lock = threading.Lock()
        self._wake = wake
        self._int_at: int | None = None
        self._faults: list[InputFault] = []
        self._absent = False
        self._next_read = 0

        now = clock.now_ms()
        self._start: dict[Line, bool] = {line: False for line in lines}
        try:
            self.chip.configure(self._mask)
            snap = self.chip.read_all()
            self._start = {line: not (snap.gpio >> p & 1) for line, p in lines.items()}
            self._word = snap.gpio
            self._next_read = now + read_ms
        except Mcp23017Error as exc:
            self._lost(exc, now)

        self._int_device = None
        if int_pin is not None:
            # Open drain with the Pi's pull-up: active (low) = interrupt pending.
            self._int_device = DigitalInputDevice(int_pin, pull_up=True, pin_factory=pin_factory)
            self._int_device.when_activated = self._on_interrupt

    def levels(self) -> dict[Line, bool]:
        """As the first read showed them (all open when the chip did not answer)."""
        return dict(self._start)

    def _on_interrupt(self) -> None:
        """gpiozero thread: only note when and wake the loop; the read happens in poll."""
        with self._lock:
            if self._int_at is None:
                self._int_at = self._clock.now_ms()
        self._wake()

    def _take_interrupt(self) -> int | None:
        with self._lock:
            at, self._int_at = self._int_at, None
        return at

    def _lost(self, exc: Mcp23017Error, now: int) -> None:
        if not self._absent:
            self._absent = True
            self._faults.append(InputFault(self.source, str(exc).split(": ", 1)[-1], now))
        self._next_read = now + self.retry_ms

    def next_deadline_ms(self) -> int:
        """When the chip must next be read (now-ish if an interrupt is pending)."""
        with self._lock:
            int_at = self._int_at
        if int_at is not None and not self._absent:
            return min(int_at, self._next_read)
        return self._next_read

    def edges(self, now_ms: int | None = None) -> list[Edge]:
        """What the chip shows, if an interrupt is pending or a periodic read is
        due by ``now_ms``: a second call at the same time finds nothing due."""
        if now_ms is None:
            return []     # the INT callback only notes the time: nothing read yet
        with self._lock:
            pending = self._int_at is not None
        if now_ms < self._next_read and not (pending and not self._absent):
            return []
        int_at = self._take_interrupt()
        try:
            snap = self.chip.read_all()
            if not self.chip.configured(snap):
                if not self._absent:
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
        if self._absent:
            self._absent = False
            self._faults.append(InputFault(self.source, BACK_MESSAGE, now_ms, ok=True))
            stale = True   # a capture from before the outage is old news: GPIO only
        else:
            stale = False
        out: list[Edge] = []
        again = self._feed(snap, int_at, now_ms, stale, out)
        self._next_read = now_ms + (self._debounce_ms if again else self.read_ms)
        return out

    def _feed(self, snap: Snapshot, int_at: int | None, now_ms: int, stale: bool,
              out: list[Edge]) -> bool:
        """The edges a snapshot shows, onto ``out``; True when the chip should be read
        again after ``debounce_ms`` because it latched a change that is already over.

        INTF/INTCAP hold the port as it was at the first change since the last
        read, whether or not the Pi saw INT fall. Seen: the capture is the level
        at the interrupt, the GPIO the level now. Not seen (INT line broken or
        the edge lost): when it happened is unknown, so the captured level is
        taken as the level now and the chip is read again ``debounce_ms`` later;
        that way a press that is over by the time of the periodic read still
        lasts long enough to pass the debouncer (datasheet: INTCAP keeps the
        capture until INTCAP or GPIO is read).
        """
        ports = (0xFF if snap.intf & 0xFF else 0) | (0xFF00 if snap.intf & 0xFF00 else 0)
        over = 0
        if not ports or stale:
            self._levels(snap.gpio, 0xFFFF, now_ms, out)
        elif int_at is not None:
            self._levels(snap.intcap, ports, min(int_at, now_ms), out)
            self._levels(snap.gpio, 0xFFFF, now_ms, out)
        else:
            # A line that changed at the last read may still be bouncing: a capture
            # that differs on it is the bounce, not a second change.
            over = (snap.intcap ^ snap.gpio) & ports & self._mask & ~self._changed
            self._levels(snap.intcap, over, now_ms, out)
            self._levels(snap.gpio, 0xFFFF & ~over, now_ms, out)
        word = (snap.gpio & ~over) | (snap.intcap & over)
        self._changed = (word ^ self._word) & self._mask if self._word is not None else 0
        self._word = word
        return bool(over)

    def _levels(self, word: int, ports: int, at_ms: int, out: list[Edge]) -> None:
        for line, pin in self._lines.items():
            if ports >> pin & 1:
                out.append(Edge(line, not (word >> pin & 1), at_ms))  # closed reads low

    def take_faults(self) -> list[InputFault]:
        out, self._faults = self._faults, []
        return out

    def close(self) -> None:
        if self._int_device is not None:
            self._int_device.close()
            self._int_device = None


class ExpanderLamps:
    """Per-flap LEDs on an output chip, status LEDs on outputs of another chip
    (usually GPA7/GPB7 of the input chip): a :class:`~.lights.LampSink`.

    A chip that fails a write is marked dirty and written again after
    ``retry_ms``; the LED chip's configuration is re-checked every
    ``verify_ms`` (a brownout turns every pin back into an input).
    """

    def __init__(self, bus: Any, *, address: int | None = 0x21,
                 flap_pins: Mapping[int, int] | None = None, status: Mcp23017 | None = None,
                 green_pin: int | None = 7, red_pin: int | None = 15, verify_ms: int = 1000,
                 retry_ms: int = 1000,
                 sleep: Callable[[float], None] = time.sleep, attempts: int = 4) -> None:
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

    def write(self, levels: Mapping[Lamp, bool], now_ms: int) -> None:
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

    def next_deadline_ms(self) -> int | None:
        if self._retry_at is not None:
            return self._retry_at
        return self._next_verify if self.leds is not None else None

    def close(self) -> None:
        """Leave the lights off (best effort: the bus may be gone)."""
        try:
            if self.leds is not None and self._configured:
                self.leds.write_outputs(0)
            if self.status is not None and self._status_pins:
                self.status.write_outputs(0, sum(1 << p for p in self._status_pins.values()))
        except Mcp23017Error:
            pass
