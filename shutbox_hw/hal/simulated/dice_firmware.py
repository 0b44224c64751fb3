"""What runs inside a simulated dice module: the firmware's logic in this
Python (:class:`ModelPico`, the default), or the firmware's own ``main.py``
under a real MicroPython (:class:`MicroPythonPico`, "firmware in the loop").

Both speak to :class:`~.dice_module.SimDiceModule` alike: run the loop for a
while with the button and tilt levels, serve a bus transfer, say whether
the ready line is low and the dice tumble. The button is GP20, the tilt
switch GP21 (``dice_config.py``); the MicroPython one reads them as pins.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...dice_firmware import dice_config, dice_core, dice_regs  # type: ignore[import-not-found]
from .pico_bridge import PicoProcess

FIRMWARES = ("model", "micropython")
# The fake Pico's clock starts 5 s before rp2's ticks wrap (2**30 ms, 12.4 days):
# every simulated game crosses the wrap, as a box left on for two weeks does.
START_MS = 2**30 - 5000


class ModelPico:
    """The firmware's hardware-free modules (``dice_core``) run in this process;
    the boot counter is kept here as ``dice_boot.py`` keeps it on the Pico."""

    def __init__(self, entropy: Callable[[int], bytes]) -> None:
        self.entropy = entropy
        self._boot = 0
        self.mem = bytearray(dice_regs.MEM_SIZE)
        self.core: dice_core.DiceCore | None = None

    def power_on(self, button_down: bool) -> None:
        self.mem = bytearray(dice_regs.MEM_SIZE)
        boot = dice_regs.next_boot(self._boot) if self._boot else 0
        self.core = dice_core.DiceCore(self.mem, self.entropy, boot, button_down)
        self._boot = self.mem[dice_regs.BOOT]

    def run(self, ms: int, button: bool, tilt: bool, step_ms: int) -> None:
        assert self.core is not None
        while ms > 0:
            step = min(step_ms, ms)
            self.core.tick(step, button, tilt)
            ms -= step

    def serve(self, button: bool, tilt: bool) -> None:
        """One pass right after a write (the loop sees it long before the next transfer)."""
        assert self.core is not None
        self.core.tick(0, button, tilt)

    def read(self, register: int, length: int) -> list[int]:
        size = len(self.mem)
        return [self.mem[(register + i) % size] for i in range(length)]

    def write(self, register: int, data: list[int]) -> None:
        size = len(self.mem)
        for i, value in enumerate(data):
            self.mem[(register + i) % size] = value & 0xFF

    @property
    def ready(self) -> bool:
        return self.core is not None and self.core.ready

    @property
    def tumbling(self) -> bool:
        return self.core is not None and self.core.tumble is not None

    @property
    def shake_edges(self) -> int:
        return self.core.shake.edges if self.core is not None else 0

    def registers(self) -> bytes:
        return bytes(self.mem)

    def queue(self, data: list[int]) -> None:
        """Entropy bytes are queued by the caller's own ``entropy``."""

    def stall(self, ms: int) -> None:
        """The loop hangs for ``ms``: past the watchdog's timeout the Pico restarts."""
        if ms > dice_config.WATCHDOG_MS:
            self.power_on(False)

    def usb(self, present: bool) -> None:
        raise ValueError("USB power (VBUS) needs the firmware in the loop: "
                         '[sim] dice_firmware = "micropython"')

    def close(self) -> None:
        pass


class MicroPythonPico:
    """``main.py`` itself under MicroPython (:class:`~.pico_bridge.PicoProcess`).
    The tilt switch's edges are counted here (the firmware keeps its count to
    itself) so the simulator knows when a shake may still end in a throw."""

    def __init__(self, *, seed: int = 1, flash: Path | None = None,
                 start_ms: int = START_MS) -> None:
        self.pico = PicoProcess(flash, seed=seed, start_ms=start_ms)
        self._levels = (False, False)
        self._tilt_quiet = 0
        self._tilt_edges = 0
        self._booted = False        # the process boots the firmware as it starts

    def power_on(self, button_down: bool) -> None:
        self._pins(button_down, self._levels[1])
        if self._booted:
            self.pico.power_cycle()
        self._booted = True
        self.pico.run(0)

    def _pins(self, button: bool, tilt: bool) -> None:
        if button != self._levels[0]:
            self.pico.set_input(dice_config.BUTTON_PIN, 0 if button else 1)
        if tilt != self._levels[1]:
            self.pico.set_input(dice_config.TILT_PIN, 0 if tilt else 1)
            self._tilt_edges += 1
            self._tilt_quiet = 0
        self._levels = (button, tilt)

    def run(self, ms: int, button: bool, tilt: bool, step_ms: int) -> None:
        self._pins(button, tilt)
        self.pico.run(ms)
        self._tilt_quiet += ms
        if self._tilt_quiet > dice_config.SHAKE_QUIET_MS + dice_config.TILT_SETTLE_MS:
            self._tilt_edges = 0

    def serve(self, button: bool, tilt: bool) -> None:
        self.run(0, button, tilt, 0)

    def read(self, register: int, length: int) -> list[int]:
        return self.pico.read(register, length)      # OSError while main.py is not running

    def write(self, register: int, data: list[int]) -> None:
        self.pico.write(register, data)

    @property
    def ready(self) -> bool:
        return self.pico.ready == 0

    @property
    def tumbling(self) -> bool:
        return bool(self.pico.status == dice_regs.STATUS_ROLLING)

    @property
    def shake_edges(self) -> int:
        return self._tilt_edges

    def registers(self) -> bytes:
        return self.pico.state().mem

    def queue(self, data: list[int]) -> None:
        self.pico.queue_entropy(data)

    def stall(self, ms: int) -> None:
        self.pico.hang(ms)
        self.pico.run(0)

    def usb(self, present: bool) -> None:
        """A USB cable in the Pico (VBUS, GP24): matters at its next power-up."""
        self.pico.set_input(dice_config.VBUS_PIN, 1 if present else 0)

    def close(self) -> None:
        self.pico.close()
