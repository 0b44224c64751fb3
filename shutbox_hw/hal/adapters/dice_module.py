"""The host side of the electronic dice module (a Pico at 0x42; see firmware/dice/).

The module serves 16 registers (map in firmware/dice/README.md; the numbers
and the CRC come from the firmware itself, see below). The Pi
writes COUNT (dice for the next throw) and REQUEST (throw now), reads all
16 registers in one transfer, and writes ACK with the sequence number it
consumed, which releases the module's ready line.

What a read must pass before its throw is used:

- the identity (magic ``SD``, register map version 1): anything else at the
  address is "not the dice module";
- a CRC-8 (SMBus PEC polynomial 0x07) over every register the module writes
  (identity, STATUS, ERROR, BOOT, SEQ, RCOUNT, FACE1, FACE2, SOURCE): a
  mismatch is a corrupted or torn read and is read again;
- a (BOOT, SEQ) pair not seen before: a result is never used twice, and one
  that was waiting before :meth:`DiceModule.find` is acknowledged, not used
  (it may be a throw the daemon already took before it restarted).

Every read starts at register 0 (the protocol's read-from-0 rule,
firmware/dice/README.md): STATUS then comes before the result, and the
module writes STATUS after the result, so a READY read has a whole result.

Transient bus errors (errno 121, 5, 110, 11) and CRC mismatches are retried
``attempts`` times with a doubling backoff; after that the module counts as
missing and :class:`DiceModuleMissing` says why. :meth:`DiceModule.find`
brings it back.

:class:`DiceLink` is the daemon's view on its own clock: polling on the
ready line or every ``poll_ms``, ``lost`` / ``recovered`` events, the dice
count kept across a module's reboot, ROLL that says whether the module
throws or the daemon must roll software dice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ...base.scheduler import Scheduler
from ...dice_firmware import dice_regs as regs  # type: ignore[import-not-found]
from ..contracts.config import DICE_ADDRESSES
from ..contracts.i2c_bus import I2cBus
from ..contracts.i2c_retry import I2cRetry, transient_errno
from ..contracts.link import DeviceLink

DEFAULT_ADDRESS = 0x42

# The register map and the CRC are the firmware's own (firmware/dice/dice_regs.py,
# packaged as shutbox_hw.dice_firmware): one definition for both ends of the wire.
MAGIC, FW_MAJOR, MAX_DICE = regs.MAGIC, regs.FW_MAJOR, regs.MAX_DICE
STATUS, ERROR, COUNT, REQUEST, ACK = regs.STATUS, regs.ERROR, regs.COUNT, regs.REQUEST, regs.ACK
BOOT, SEQ, RCOUNT, FACE1, FACE2 = regs.BOOT, regs.SEQ, regs.RCOUNT, regs.FACE1, regs.FACE2
SOURCE, CRC, REGISTER_COUNT = regs.SOURCE, regs.CRC, regs.MEM_SIZE
STATUS_IDLE, STATUS_ROLLING = regs.STATUS_IDLE, regs.STATUS_ROLLING
STATUS_READY, STATUS_ERROR = regs.STATUS_READY, regs.STATUS_ERROR
REQUEST_ROLL = regs.REQUEST_ROLL
SOURCES = {regs.SOURCE_BUTTON: "button", regs.SOURCE_SHAKE: "shake",
           regs.SOURCE_REQUEST: "request"}

T = TypeVar("T")


def crc8(data: bytes | list[int]) -> int:
    """CRC-8/SMBUS: polynomial 0x07, initial 0, no reflection, no final XOR."""
    return int(regs.crc8(data))


def crc_registers(data: bytes | list[int]) -> int:
    """What the CRC register must hold for the registers ``data``: the CRC-8 over
    every register the module writes (not COUNT, REQUEST, ACK)."""
    return int(regs.crc_registers(data))


def _checked_count(count: int) -> int:
    if not 1 <= count <= MAX_DICE:
        raise ValueError(f"the module throws 1 or 2 dice, not {count}")
    return count


class DiceModuleMissing(Exception):
    """The module is not there or stopped answering: fall back to software dice
    and call :meth:`DiceModule.find` now and then."""

    def __init__(self, address: int, message: str) -> None:
        super().__init__(f"dice module 0x{address:02x}: {message}")
        self.address = address


class _Garbled(Exception):
    """A read that arrived but failed its checks (retried like a bus error)."""


@dataclass(frozen=True)
class Throw:
    """One result of the module: ``faces`` has one or two values 1..6."""
    faces: tuple[int, ...]
    source: str          # "button", "shake" (thrown on the module) or "request" (the Pi asked)
    seq: int
    boot: int


@dataclass(frozen=True)
class ModuleState:
    """One checked read of every register."""
    status: int
    error: int
    count: int
    boot: int
    seq: int
    throw: Throw | None      # the result in the registers (None before the first)


class DiceModule:
    """The module at ``address`` on an smbus2-compatible ``bus``.

    ``ready`` (optional) returns True while the module pulls its ready line
    low; with it, :meth:`poll` skips the bus while the line is high unless
    ``force`` is given.
    """

    def __init__(self, bus: I2cBus, address: int = DEFAULT_ADDRESS, *,
                 ready: Callable[[], bool] | None = None, attempts: int = 4,
                 backoff_s: float = 0.001, sleep: Callable[[float], None] = time.sleep) -> None:
        if address not in DICE_ADDRESSES:
            raise ValueError(f"I2C address 0x{address:02x} is outside 0x08..0x77")
        self.bus = bus
        self.address = address
        self.ready = ready
        # a garbled read (CRC, identity) is tried again like a bus error
        self._retry = I2cRetry(attempts, backoff_s, sleep=sleep, transient=lambda exc: (
            isinstance(exc, _Garbled) or transient_errno(exc)))
        self.present = False
        self.problem = ""       # why it counts as missing, for the log and the screen
        self.count: int | None = None    # the dice count last set, written again after a reboot
        self.boot: int | None = None     # BOOT of the module as last read
        self.last: tuple[int, int] | None = None    # (boot, seq) of the last result taken
        self.crc_errors = 0     # corrupted reads caught
        self.stale = 0          # results seen again and ignored
        self.restarts = 0       # times the module was found booted again

    @property
    def retries(self) -> int:
        """Failed transfers and bad reads survived."""
        return self._retry.retries

    # -- finding it ------------------------------------------------------------

    def find(self) -> bool:
        """Look for the module; True if it answers as the dice module. A result
        already waiting is acknowledged and never returned."""
        try:
            state = self.read_state()
            self._sync_count(state)
        except DiceModuleMissing:
            return False
        if state.seq:
            self.last = (state.boot, state.seq)
            if state.status == STATUS_READY:
                self._ack(state.seq)
        else:
            self.last = None
        return True

    # -- asking for throws -------------------------------------------------------

    def set_count(self, count: int) -> None:
        """The number of dice (1 or 2) for the next throw, on the module's
        button or by :meth:`request_roll`; write it whenever the rules decide."""
        self.count = _checked_count(count)
        self._guard(lambda: self.bus.write_byte_data(self.address, COUNT, count))

    def request_roll(self, count: int | None = None) -> None:
        """Throw now (the box's ROLL); with ``count`` set the number of dice first.
        The result arrives later through :meth:`poll` (after the animation)."""
        if count is not None:
            self.set_count(count)
        self._guard(lambda: self.bus.write_byte_data(self.address, REQUEST, REQUEST_ROLL))

    # -- results ---------------------------------------------------------------

    def poll(self, force: bool = False) -> Throw | None:
        """A new throw, or None. Acknowledges what it returns, so the same
        result never comes back; raises :class:`DiceModuleMissing`."""
        if self.ready is not None and not force and not self.ready():
            return None
        state = self.read_state()
        self._sync_count(state)
        throw = state.throw
        if state.status != STATUS_READY or throw is None:
            return None
        key = (throw.boot, throw.seq)
        if key == self.last:
            self.stale += 1
            self._ack(throw.seq)      # already taken: just release the line
            return None
        self.last = key
        self._ack(throw.seq)
        return throw

    def read_state(self) -> ModuleState:
        """Every register in one checked read (identity, CRC), retried."""
        return self._guard(self._read_checked)

    # -- internals -------------------------------------------------------------

    def _read_checked(self) -> ModuleState:
        regs = bytes(self.bus.read_i2c_block_data(self.address, 0, REGISTER_COUNT))
        if len(regs) != REGISTER_COUNT:
            raise _Garbled(f"short read ({len(regs)} bytes)")
        if regs[0:2] != MAGIC or regs[2] != FW_MAJOR:
            raise _Garbled(f"not the dice module (identity {regs[0:3].hex()}, "
                           f"this box speaks register map {FW_MAJOR})")
        if crc_registers(regs) != regs[CRC]:
            self.crc_errors += 1
            raise _Garbled("CRC mismatch")
        throw = None
        seq = regs[SEQ]
        if seq:
            faces = tuple(regs[FACE1:FACE1 + regs[RCOUNT]])
            if not 1 <= len(faces) <= MAX_DICE or not all(1 <= f <= 6 for f in faces):
                raise _Garbled(f"impossible result {regs[RCOUNT:FACE2 + 1].hex()}")
            throw = Throw(faces=faces, source=SOURCES.get(regs[SOURCE], "unknown"),
                          seq=seq, boot=regs[BOOT])
        return ModuleState(status=regs[STATUS], error=regs[ERROR], count=regs[COUNT],
                           boot=regs[BOOT], seq=seq, throw=throw)

    def _sync_count(self, state: ModuleState) -> None:
        """Give the module the count the rules set if it holds another: it booted
        again (a brownout, a replug: back to two dice) or was away when it was set."""
        if state.boot != self.boot:
            if self.boot is not None:
                self.restarts += 1
            self.boot = state.boot
        if self.count is not None and state.count != self.count:
            self.set_count(self.count)

    def _ack(self, seq: int) -> None:
        try:
            self._guard(lambda: self.bus.write_byte_data(self.address, ACK, seq))
        except DiceModuleMissing:
            pass    # the result is good; the next poll finds out what happened

    def _guard(self, op: Callable[[], T]) -> T:
        """Run ``op`` with retries; any final failure marks the module missing."""
        try:
            result = self._retry.run(op)
        except (OSError, _Garbled) as exc:
            attempts = self._retry.attempts
            if isinstance(exc, _Garbled):
                self.problem = f"{exc} after {attempts} attempts"
            elif transient_errno(exc):
                self.problem = f"no answer after {attempts} attempts (errno {exc.errno})"
            else:
                self.problem = f"bus error: {exc}"
            self.present = False
            raise DiceModuleMissing(self.address, self.problem) from exc
        self.present = True
        return result


@dataclass(frozen=True)
class LinkEvent:
    """What :class:`DiceLink` has to tell the daemon."""
    kind: str                  # "throw", "lost" or "recovered"
    throw: Throw | None = None
    reason: str = ""


class DiceLink:
    """The module as the daemon sees it, on the daemon's clock.

    Call :meth:`tick` from the loop (and at once when the ready line falls):
    it polls on the ready line, or every ``poll_ms`` without one (also a
    liveness check), and while the module is lost it looks for it every
    ``retry_ms`` (one :class:`~.link.DeviceLink` schedule, a timer in the
    box's scheduler). ``lost`` means: roll software dice; ``recovered``: the
    module throws again. ROLL goes through :meth:`request_roll`.
    """

    def __init__(self, module: DiceModule, *, poll_ms: int = 250, retry_ms: int = 2000,
                 timers: Scheduler | None = None) -> None:
        self.module = module
        self.link = DeviceLink(f"dice module 0x{module.address:02x}", retry_ms=retry_ms,
                               check_ms=poll_ms, meanwhile="ROLL uses software dice",
                               timer=(Scheduler() if timers is None else timers).timer(
                                   "dice module"))

    @property
    def online(self) -> bool:
        return self.link.connected

    def start(self, now_ms: int) -> list[LinkEvent]:
        """Look for the module once at boot; ``lost`` if it is not there."""
        if self.module.find():
            self.link.up(now_ms)
            return []
        return self._lose(now_ms)

    def set_count(self, count: int, now_ms: int) -> list[LinkEvent]:
        """The dice count for the next throw (kept and written again after a
        reboot or a replug of the module)."""
        self.module.count = _checked_count(count)
        if not self.online:
            return []
        try:
            self.module.set_count(count)
        except DiceModuleMissing:
            return self._lose(now_ms)
        return []

    def request_roll(self, count: int, now_ms: int) -> tuple[bool, list[LinkEvent]]:
        """ROLL: True if the module throws (the result comes from :meth:`tick`),
        False if the daemon must roll software dice itself."""
        if not self.online:
            self.module.count = _checked_count(count)
            return False, []
        try:
            self.module.request_roll(count)
        except DiceModuleMissing:
            return False, self._lose(now_ms)
        return True, []

    def tick(self, now_ms: int) -> list[LinkEvent]:
        due = self.link.due(now_ms)
        if not self.online:
            if not due:
                return []
            if not self.module.find():
                self._lose(now_ms)
                return []
            return [LinkEvent("recovered")] if self.link.up(now_ms) else []
        if not due and self.module.ready is None:
            return []
        try:
            throw = self.module.poll(force=due)
        except DiceModuleMissing:
            return self._lose(now_ms)
        if due:
            self.link.up(now_ms)
        return [LinkEvent("throw", throw=throw)] if throw else []

    def _lose(self, now_ms: int) -> list[LinkEvent]:
        reason = self.module.problem or "no answer"
        if not self.link.down(reason, now_ms):
            return []
        return [LinkEvent("lost", reason=f"{self.link.name}: {reason}")]
