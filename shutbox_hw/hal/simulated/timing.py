"""What I/O costs in time on the simulated box: I2C wire time and disk syncs.

The simulator's clock is virtual; without costs an I2C transfer, an fsync and
a frame take no time, and the loop never sees anything late. Here:

- :func:`i2c_transfer_us`: a transfer's wire time at the bus clock, counted in
  bits as a controller clocks them: START, the address byte and every data
  byte with its ACK bit (9 bits each), a repeated START and the address
  again before the bytes of a read, STOP; a device may stretch the clock
  (``stretch_us`` per byte it sends or takes).
- :class:`BusTimeline`: transfers on one bus happen one at a time. A transfer
  made by someone who waits for it (the loop, the expander's reader) starts
  when the transfer on the wire ends and pushes the queued ones back; a
  frame queued by the display's sender occupies the bus transfer by
  transfer without anyone waiting for it (the kernel's adapter lock works
  between transfers, not between frames).
- :class:`DiskProfile`: the latency of each sync (an SQLite commit with
  ``synchronous=FULL``): ``fast`` (none), ``sd-card`` (5-20 ms, and a 200 ms
  stall every few hundred syncs, as SD cards do when they erase), ``stall
  MS`` (every sync takes MS ms).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

DEFAULT_BUS_HZ = 100_000      # the Pi's I2C clock unless i2c_arm_baudrate says otherwise
MIN_BUS_HZ, MAX_BUS_HZ = 10_000, 1_000_000
BYTE_BITS = 9                 # eight data bits and the ACK
START_STOP_BITS = 2           # START (or a repeated START) and STOP, about a bit time each


def i2c_transfer_us(hz: int, written: int, read: int = 0, stretch_us: float = 0.0) -> int:
    """Wire time of one transfer: ``written`` bytes after the address (register
    and data), then, for a read, a repeated START, the address and ``read`` bytes."""
    bits = START_STOP_BITS + BYTE_BITS * (1 + written)
    if read:
        bits += 1 + BYTE_BITS * (1 + read)
    return round(bits * 1_000_000 / hz + stretch_us * (written + read))


class BusTimeline:
    """The transfers of one I2C bus in virtual microseconds, one at a time."""

    def __init__(self) -> None:
        self._queued: list[list[int]] = []   # [start, end] of transfers nobody waits for
        self._until = 0                      # when the last waited-for transfer ends
        self.busy_us = 0                     # wire time used so far

    def take(self, at_us: int, cost_us: int) -> tuple[int, int]:
        """A transfer asked for at ``at_us`` by someone who waits for it: its
        (start, end). It starts after the transfer on the wire at that moment
        (and after earlier waited-for ones); queued transfers not yet begun
        move back behind it."""
        start = self.free_at(at_us)
        end = start + cost_us
        later = [seg for seg in self._queued if seg[0] >= start]
        if later and later[0][0] < end:
            shift = end - later[0][0]
            for seg in later:
                seg[0] += shift
                seg[1] += shift
        self._until = end
        self.busy_us += cost_us
        return start, end

    def queue(self, at_us: int, costs: list[int]) -> int:
        """Transfers one after another from ``at_us`` that nobody waits for (a
        frame on the display's sender thread); returns when the last one ends."""
        self._drop(at_us)
        t = max(at_us, self._until, self._queued[-1][1] if self._queued else 0)
        for cost in costs:
            self._queued.append([t, t + cost])
            t += cost
            self.busy_us += cost
        return t

    def free_at(self, at_us: int) -> int:
        """When a transfer asked for at ``at_us`` could start."""
        self._drop(at_us)
        start = max(at_us, self._until)
        for seg in self._queued:     # the one on the wire then (the next ones wait)
            if seg[0] <= start < seg[1]:
                return seg[1]
        return start

    def _drop(self, at_us: int) -> None:
        while self._queued and self._queued[0][1] <= at_us:
            self._queued.pop(0)


SD_CARD_MS = (5, 20)          # a sync on an SD card
SD_STALL_MS = 200             # ... and now and then one that waits for an erase
SD_STALL_EVERY = (200, 400)   # syncs between two stalls


@dataclass(frozen=True)
class DiskProfile:
    """``fast``, ``sd-card`` or ``stall`` (every sync ``stall_ms``)."""
    name: str = "fast"
    stall_ms: int = 0

    def __str__(self) -> str:
        return f"stall {self.stall_ms}" if self.name == "stall" else self.name


class SyncLatency:
    """The latency of each sync under a profile, drawn from a seeded generator."""

    def __init__(self, profile: DiskProfile = DiskProfile(), rng: random.Random | None = None
                 ) -> None:
        self.rng = rng or random.Random(0)
        self.profile = profile
        self._until_stall = 0
        self.set(profile)

    def set(self, profile: DiskProfile) -> None:
        self.profile = profile
        self._until_stall = self.rng.randint(*SD_STALL_EVERY)

    def next_ms(self) -> int:
        """The next sync's latency in whole milliseconds."""
        if self.profile.name == "stall":
            return self.profile.stall_ms
        if self.profile.name != "sd-card":
            return 0
        self._until_stall -= 1
        if self._until_stall <= 0:
            self._until_stall = self.rng.randint(*SD_STALL_EVERY)
            return SD_STALL_MS
        return self.rng.randint(*SD_CARD_MS)
