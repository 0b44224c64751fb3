"""A simulated dice module: the firmware's own logic (firmware/dice/) on the SimBus.

The firmware's hardware-free modules are the package
``shutbox_hw.dice_firmware`` (setup.py maps firmware/dice/ there), so the host
driver talks to exactly the code that runs on the Pico, installed or in a
checkout; there is no second copy of the logic. With ``firmware="micropython"``
the module is the firmware's own ``main.py`` under a real MicroPython
(:mod:`.dice_firmware`, :mod:`.pico_bridge`).

The bus side behaves like MicroPython's ``I2CTarget`` in memory mode: a
transfer starts at the register the Pi names and wraps at the end of the
16-byte memory. The Pico's main loop runs between transfers: every bus access
(and :meth:`SimDiceModule.advance`) first runs it up to the current time.

Test hooks: :meth:`next_faces`, :meth:`press`, :meth:`shake`, :meth:`stall`, :meth:`usb_power`,
:meth:`unplug` / :meth:`plug`, :meth:`corrupt_next_read`, :meth:`fail_next`.
"""

from __future__ import annotations

import errno
import os
import random
from collections import deque
from pathlib import Path
from typing import Any

from ...dice_firmware import dice_core, dice_faces, dice_regs  # type: ignore[import-not-found]
from ..contracts.clock import Clock
from .dice_firmware import FIRMWARES, MicroPythonPico, ModelPico

STEP_MS = 2          # the firmware's main loop period (dice_config.LOOP_MS)
FIRMWARE_DIR = Path(dice_core.__file__).parent   # firmware/dice/ in a checkout


def _bus_error(code: int = errno.EREMOTEIO) -> OSError:
    return OSError(code, os.strerror(code))


class SimDiceModule:
    """One module; attach it to a :class:`~.bus.SimBus` at 0x42.

    ``clock`` (``now_ms()``, e.g. the sim's VirtualClock) makes the module keep
    pace with the daemon; without one, time moves only by :meth:`advance`.
    ``ready_pin`` (a gpiozero mock pin) is driven like the open-drain line:
    low while a result waits, high (the Pi's pull-up) otherwise.
    """

    def __init__(self, *, clock: Clock | None = None, ready_pin: Any = None,
                 rng: random.Random | None = None, firmware: str = "model") -> None:
        if firmware not in FIRMWARES:
            raise ValueError(f"dice firmware: {firmware!r} is not one of {', '.join(FIRMWARES)}")
        self.regmap = dice_regs
        self.faces = dice_faces
        self.clock = clock
        self.ready_pin = ready_pin
        self.rng = rng or random.Random(0)
        self.absent = False
        self.button_down = False
        self.tilt_closed = False
        self._queued: deque[int] = deque()    # entropy bytes to hand out first
        self._corrupt: list[tuple[int, int]] = []   # (register, xor) for the next read
        self._failures: deque[int] = deque()  # errnos for the next transfers
        self._last_ms = clock.now_ms() if clock else 0
        self.pico: ModelPico | MicroPythonPico = (
            ModelPico(self._entropy) if firmware == "model"
            else MicroPythonPico(seed=self.rng.randrange(1, 2**31)))
        self.firmware = firmware
        self.power_on()

    # -- the module's life -----------------------------------------------------

    def power_on(self) -> None:
        """A fresh boot: new memory, BOOT counted on (drawn at the first), SEQ back to 0."""
        self.pico.power_on(self.button_down)
        self._drive_ready()

    def close(self) -> None:
        """End the MicroPython process, if there is one."""
        self.pico.close()

    @property
    def mem(self) -> bytes:
        """The module's registers now (as the Pico's memory holds them)."""
        return self.pico.registers()

    @property
    def tumbling(self) -> bool:
        return self.pico.tumbling

    def unplug(self) -> None:
        """Cable out: no acknowledge on the bus, the ready line floats high."""
        self.absent = True
        self._drive_ready()

    def plug(self) -> None:
        """Cable back in: the Pico boots again."""
        self.absent = False
        if self.clock is not None:
            self._last_ms = self.clock.now_ms()
        self.power_on()

    # -- time ------------------------------------------------------------------

    def advance(self, ms: int, step_ms: int = STEP_MS) -> None:
        """Run the Pico's main loop for ``ms`` in passes of ``step_ms`` (no clock:
        the only way time moves)."""
        if self.absent:
            return
        if ms > 0:
            self.pico.run(ms, self.button_down, self.tilt_closed, step_ms)
        self._drive_ready()

    def sync(self) -> None:
        """Run the module up to the clock's now. Bus transfers do this by
        themselves; the simulator calls it every tick so that the ready line
        falls on time while the Pi leaves the bus alone."""
        if self.clock is None:
            return
        now = self.clock.now_ms()
        elapsed, self._last_ms = now - self._last_ms, now
        self.advance(elapsed)

    def settle(self, limit_ms: int = 5000) -> None:
        """Run (without a clock) until no throw is tumbling."""
        while self.pico.tumbling and limit_ms > 0:
            self.advance(20, step_ms=20)    # a tumble frame lasts 40 ms or more
            limit_ms -= 20

    # -- test hooks ------------------------------------------------------------

    def next_faces(self, *faces: int) -> None:
        """Make the next throw show ``faces``: queue bytes that the firmware's
        own sampler turns into them (a rejected byte first, so the rejection
        path runs too)."""
        for face in faces:
            if not 1 <= face <= 6:
                raise ValueError(f"a die shows 1..6, not {face}")
            byte = next(b for b in range(256) if self.faces.face_from_byte(b) == face)
            pair = [255, byte + 6 * self.rng.randrange(42)]
            if self.firmware == "model":
                self._queued.extend(pair)
            else:
                self.pico.queue(pair)

    def press(self, hold_ms: int = 100) -> None:
        """Press and release the module's own button (a throw starts on release).
        This and :meth:`shake` run the module's time themselves; with a clock,
        set ``button_down`` / ``tilt_closed`` and let the clock run instead."""
        self.button_down = True
        self.advance(hold_ms)
        self.button_down = False
        self.advance(50)

    def shake(self, edges: int = 8, every_ms: int = 60) -> None:
        """Shake the module: the tilt switch flips ``edges`` times, then rests
        long enough for the firmware to call it stopped."""
        for _ in range(edges):
            self.tilt_closed = not self.tilt_closed
            self.advance(every_ms)
        self.advance(500)

    def stall(self, ms: int) -> None:
        """The firmware's loop hangs for ``ms`` (past 2 s the watchdog resets the Pico)."""
        self.sync()
        self.pico.stall(ms)
        self._drive_ready()

    def usb_power(self, present: bool) -> None:
        """A USB cable plugged into the module (firmware in the loop only)."""
        self.pico.usb(present)

    def corrupt_next_read(self, register: int, xor: int = 0x01) -> None:
        """Flip bits of ``register`` in the next read that covers it (a glitch on
        the wire; the memory itself stays right)."""
        self._corrupt.append((register, xor))

    def fail_next(self, *codes: int) -> None:
        """The next transfers fail with these errnos (121, 5, 110, 11...); a 0
        lets that transfer through."""
        self._failures.extend(codes)

    def shake_pending(self) -> bool:
        """The tilt switch has moved and the module has not yet decided (a
        shake that may still stop and throw)."""
        return bool(self.pico.shake_edges)

    @property
    def ready_active(self) -> bool:
        """The ready line is pulled low."""
        return not self.absent and self.pico.ready

    # -- the bus side ----------------------------------------------------------

    def i2c_read(self, register: int, length: int) -> list[int]:
        self._transfer()
        size = self.regmap.MEM_SIZE
        out = []
        for i, value in enumerate(self.pico.read(register, length)):
            reg = (register + i) % size
            for j, (target, xor) in enumerate(self._corrupt):
                if target == reg:
                    value ^= xor
                    del self._corrupt[j]
                    break
            out.append(value)
        return out

    def i2c_write(self, register: int, data: list[int]) -> None:
        self._transfer()
        self.pico.write(register, data)
        # the main loop sees the write on its next pass, long before the Pi's next transfer
        self.pico.serve(self.button_down, self.tilt_closed)
        self._drive_ready()

    def _transfer(self) -> None:
        if self.absent:
            raise _bus_error()
        self.sync()
        if self._failures:
            code = self._failures.popleft()
            if code:
                raise _bus_error(code)

    # -- internals -------------------------------------------------------------

    def _entropy(self, n: int) -> bytes:
        out = bytearray()
        for _ in range(n):
            out.append(self._queued.popleft() if self._queued else self.rng.randrange(256))
        return bytes(out)

    def _drive_ready(self) -> None:
        pin = self.ready_pin
        if pin is None:
            return
        high = not self.ready_active
        if high != bool(pin.state):
            pin.drive_high() if high else pin.drive_low()
