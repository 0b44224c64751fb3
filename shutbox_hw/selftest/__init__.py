"""``shutbox-hw selftest``: check a box's wiring with a person at the flaps.

Why: a builder who swaps two flap wires, shorts two inputs or forgets
``dtparam=i2c_arm=on`` gets a box that scores the wrong moves. The self-test
finds each of these before the first game, through the same ports the
daemon uses (:func:`~shutbox_hw.hal.adapters.box.build_ports` and their ``poll``), so
what it sees is what the game will see: debounced changes, not raw pins.

Two things are injected so one code path serves the box and the tests:

- the :class:`Person` at the box, asked to shut and lift flaps, press
  buttons and look at LEDs (a terminal on the box, :class:`~.sim.SimPerson`
  on the simulated box);
- the :class:`Rig`: the config, the clock, how to open an I2C bus, how to
  build the ports and how to let time pass (real sleeping, or the simulated
  box's virtual clock).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from ..base.events import ButtonEvent, ButtonLevel, FlapChanged, InputFault, ServiceRequested
from ..base.leds import LedFrame, LedState
from ..hal.adapters.box import Ports
from ..hal.contracts.clock import Clock
from ..hal.contracts.config import ExpanderPin, HardwareConfig, Pin
from ..hal.contracts.i2c_retry import I2cRetry
from ..hal.contracts.poll import poll_all, run_loop

Line = tuple[str, int | str]
"""An input as the config names it: ``("flap", 3)`` or ``("button", "roll")``."""

TIMEOUT_MS = 20_000     # a person gets this long for each step
LED_MS = 1_000          # each LED stays lit this long
QUIET_MS = 200          # after a first change, lines shorted to it change within this


@dataclass(frozen=True)
class Ask:
    """One request to the person. ``text`` is what a person reads; ``action`` and
    ``target`` let a simulated person act without parsing it."""
    action: Literal["shut", "lift", "press", "look"]
    target: int | str   # a tile; "roll"/"next"/"dice"; for look a tile, "green" or "red"
    text: str


class Person(Protocol):
    def prompt(self, ask: Ask, now_ms: int) -> None:
        """Ask for something; returns at once (the answer is what the inputs do)."""

    def status(self, text: str) -> None:
        """The live state of flaps and buttons while waiting (may be ignored)."""


@dataclass
class Rig:
    """What the self-test runs on: the real box or the simulated one."""
    hw: HardwareConfig
    clock: Clock
    open_bus: Callable[[int], Any]      # an smbus2.SMBus-like bus by number (for probing)
    build_ports: Callable[[], Ports]
    wait: Callable[[int], None]         # let time pass towards this time; may return early
    close: Callable[[], None] = lambda: None


def pin_text(pin: Pin) -> str:
    """A pin as it is written in the [hardware] table."""
    return f'"{pin.name}"' if isinstance(pin, ExpanderPin) else str(pin)


def _pin_label(pin: Pin) -> str:
    return pin.name if isinstance(pin, ExpanderPin) else f"BCM {pin}"


class SelfTest:
    """Runs every check in order; :meth:`run` returns the exit status (0 or 1)."""

    def __init__(self, rig: Rig, person: Person, out: Callable[[str], None] = print, *,
                 timeout_ms: int = TIMEOUT_MS, led_ms: int = LED_MS,
                 record: Path | None = None, mountinfo: str | None = None) -> None:
        self.rig = rig
        self.record = record          # the box's record: is its folder on RAM?
        self.mountinfo = mountinfo    # the mounts' text (None: this process's own)
        self.hw = rig.hw
        self.person = person
        self.out = out
        self.timeout_ms = timeout_ms
        self.led_ms = led_ms
        self.faults: list[str] = []
        self.ports: Ports | None = None
        self._changes: list[Line] = []
        self._last_button = "none"

    # -- reporting -------------------------------------------------------------------

    def fault(self, text: str) -> None:
        """Say it now; count it once (a short shows up again at its second flap)."""
        self.out(f"FAULT {text}")
        if text not in self.faults:
            self.faults.append(text)

    def line_name(self, line: Line) -> str:
        kind, name = line
        if kind == "flap":
            assert isinstance(name, int)
            return f"flap {name} ({_pin_label(self.hw.flaps[name - 1])})"
        pin = self.hw.roll if name == "roll" else self.hw.next
        return f"{str(name).upper()} ({_pin_label(pin)})"

    # -- the run ---------------------------------------------------------------------

    def run(self) -> int:
        inputs_ok = self.check_i2c()
        if not inputs_ok:
            self.out("flap, button and LED checks skipped: the input expander does not answer")
        else:
            self.ports = self.rig.build_ports()
            self._pump(self.rig.clock.now_ms() + self.hw.debounce_ms + self.hw.read_interval_ms)
            stuck = self.check_shut_at_start()
            self.check_leds()
            self.check_flaps(stuck)
            self.check_buttons()
        if self.dice_found:
            self.check_dice()
        self.check_storage()
        if self.faults:
            self.out(f"selftest: {len(self.faults)} fault(s):")
            for text in self.faults:
                self.out(f"  - {text}")
            return 1
        self.out("selftest: every check passed")
        return 0

    # -- the record's folder -----------------------------------------------------------

    def check_storage(self) -> None:
        """Whether the record would survive a power-off (store/disk/mounts.py)."""
        if self.record is None:
            return
        from ..store.disk.mounts import advice
        problem = advice(self.record, self.mountinfo)
        if problem is None:
            self.out(f"storage: the record {self.record} is kept on a disk: ok")
        else:
            self.fault(f"storage: {problem}")

    # -- 1. I2C devices --------------------------------------------------------------

    def i2c_devices(self) -> list[tuple[str, int, int]]:
        """(what, bus, address) of every configured I2C device."""
        devices = []
        expander = self.hw.mcp23017
        if self.hw.backend == "mcp23017" and expander is not None:
            devices.append(("MCP23017 (flaps, buttons)", expander.bus, expander.address))
            if expander.led_address is not None:
                devices.append(("MCP23017 (flap LEDs)", expander.bus, expander.led_address))
        display = self.hw.display
        if display.driver != "none":
            devices.append((f"{display.driver} display", display.port, display.address))
        if self.hw.dice is not None:
            devices.append(("dice module", self.hw.dice.bus, self.hw.dice.address))
        return devices

    def check_i2c(self) -> bool:
        """Probe each device with a quick write (as i2cdetect does); False when the
        input expander is missing, since nothing else can then be checked."""
        inputs_ok = True
        self.dice_found = False
        buses: dict[int, Any] = {}
        for what, number, address in self.i2c_devices():
            where = f"0x{address:02X} on bus {number}"
            try:
                if number not in buses:
                    buses[number] = self.rig.open_bus(number)
                _probe(buses[number], address)
                self.out(f"I2C {what} at {where}: ok")
                self.dice_found = self.dice_found or what == "dice module"
                continue
            except FileNotFoundError:
                self.fault(f"I2C {what}: no bus {number} (/dev/i2c-{number} is missing): "
                           f"enable it with {self.hw.bus_setting(number)[1]}")
            except PermissionError:
                self.fault(f"I2C {what}: no permission for /dev/i2c-{number}: "
                           "add the user to the i2c group")
            except OSError:
                name, line = self.hw.bus_setting(number)
                self.fault(f"I2C {what}: no answer at {where}: check wiring and {name} ({line})")
            if what.startswith("MCP23017 (flaps"):
                inputs_ok = False
        for bus in buses.values():
            bus.close()
        return inputs_ok

    # -- the dice module -------------------------------------------------------------

    def check_dice(self) -> None:
        """Find the module (identity, CRC), ask it for a throw as ROLL does, then ask
        the person to throw on the module's own button; the ready line is not checked."""
        from ..hal.adapters.dice_module import DiceModule, DiceModuleMissing
        dice = self.hw.dice
        assert dice is not None
        module = DiceModule(self.rig.open_bus(dice.bus), dice.address)
        if not module.find():
            self.fault(f"dice module: {module.problem or 'not found'}")
            return
        try:
            module.request_roll(2)
            throw = self._await_throw(module, self.rig.clock.now_ms() + 3000)
            if throw is None:
                self.fault("dice module: asked for a throw, none came within 3 s")
                return
            self.out(f"dice module: threw {' '.join(map(str, throw.faces))} on request: ok")
            self.person.prompt(Ask("press", "dice", "throw on the dice module: press its "
                                   "button or shake it"), self.rig.clock.now_ms())
            throw = self._await_throw(module, self.rig.clock.now_ms() + self.timeout_ms)
            if throw is None:
                self.fault("dice module: no throw from its button or tilt switch: check them")
            else:
                self.out(f"dice module: threw {' '.join(map(str, throw.faces))} by "
                         f"{throw.source}: ok")
        except DiceModuleMissing as error:
            self.fault(f"dice module: {error}")

    def _await_throw(self, module: Any, until_ms: int) -> Any:
        while True:
            throw = module.poll(force=True)
            now = self.rig.clock.now_ms()
            if throw is not None or now >= until_ms:
                return throw
            self.rig.wait(min(until_ms, now + 50))

    # -- the event pump --------------------------------------------------------------

    def _pump(self, until_ms: int, done: Callable[[], bool] = lambda: False) -> None:
        """Poll the ports until ``done()`` or ``until_ms``, recording changed lines."""
        assert self.ports is not None
        ports = (self.ports.flaps, self.ports.buttons, self.ports.indicators)

        def step(now: int) -> None:
            for event in poll_all(ports, now):
                self._note(event)

        run_loop(self.rig.clock, step, self.ports.timers,
                 lambda t: self.rig.wait(until_ms if t is None else t), until_ms, done)

    def _note(self, event: FlapChanged | ButtonEvent) -> None:
        if isinstance(event, ButtonLevel):   # the press that follows is what is checked
            return
        if isinstance(event, ServiceRequested):   # the service button: not a checked line
            self._last_button = "SERVICE"
            self.person.status(self.live_state())
            return
        if isinstance(event, InputFault):
            if event.ok:
                self.out(f"{event.source}: {event.message}")
            else:
                self.fault(f"{event.source}: {event.message}")
            return
        if isinstance(event, FlapChanged):
            self._changes.append(("flap", event.tile))
        else:
            self._changes.append(("button", event.button))
            self._last_button = event.button.upper() + (" (long)" if event.long else "")
        self.person.status(self.live_state())

    def live_state(self) -> str:
        assert self.ports is not None
        mask = self.ports.flaps.shut_mask()
        shut = " ".join(str(t) for t in range(1, self.hw.tiles + 1) if mask >> (t - 1) & 1)
        return f"flaps shut: {shut or 'none'}; last button: {self._last_button}"

    def _watch(self, ask: Ask) -> set[Line]:
        """Ask, then collect every line that changes, until quiet after the first."""
        self._changes.clear()
        now = self.rig.clock.now_ms()
        self.person.prompt(ask, now)
        self._pump(now + self.timeout_ms, lambda: bool(self._changes))
        if self._changes:
            self._pump(self.rig.clock.now_ms() + self.hw.debounce_ms + QUIET_MS)
        return set(self._changes)

    # -- 2. flaps shut at start ------------------------------------------------------

    def check_shut_at_start(self) -> set[int]:
        assert self.ports is not None
        mask = self.ports.flaps.shut_mask()
        stuck = {t for t in range(1, self.hw.tiles + 1) if mask >> (t - 1) & 1}
        for tile in sorted(stuck):
            self.fault(f"flap {tile} reads shut: open it, or check for a short to ground")
        if not stuck:
            self.out("flaps at start: all open")
        return stuck

    # -- 3. LEDs -----------------------------------------------------------------

    def check_leds(self) -> None:
        """Each LED alone for ``led_ms``; only a person can tell whether it lit."""
        assert self.ports is not None
        tiles = self.hw.tiles
        lamps: list[tuple[int | str, str]] = []
        if self.hw.flap_leds:
            lamps += [(t, f"the LED of flap {t}") for t in range(1, tiles + 1)]
        for name, pin in (("green", self.hw.green_led), ("red", self.hw.red_led)):
            if pin is not None:
                lamps.append((name, f"the {name} LED"))
        for target, what in lamps:
            flaps: tuple[LedState, ...] = tuple("on" if t == target else "off"
                                                for t in range(1, tiles + 1))
            frame = LedFrame(flaps=flaps,
                             green="on" if target == "green" else "off",
                             red="on" if target == "red" else "off")
            now = self.rig.clock.now_ms()
            self.ports.indicators.show(frame, now)
            self.person.prompt(Ask("look", target, f"{what} is lit now (and no other)"), now)
            self._pump(now + self.led_ms)
        off: LedState = "off"
        self.ports.indicators.show(LedFrame(flaps=(off,) * tiles), self.rig.clock.now_ms())

    # -- 4. guided wiring check ------------------------------------------------------

    def check_flaps(self, stuck: set[int]) -> None:
        seen: dict[int, set[Line]] = {}
        for tile in range(1, self.hw.tiles + 1):
            if tile in stuck:
                self.out(f"flap {tile}: skipped (it reads shut)")
                continue
            seen[tile] = self._watch(Ask("shut", tile, f"shut flap {tile}"))
            if seen[tile]:
                seen[tile] |= self._watch(Ask("lift", tile, f"now lift flap {tile}"))
            else:
                self.person.prompt(Ask("lift", tile, f"lift flap {tile} again"),
                                   self.rig.clock.now_ms())
                self._pump(self.rig.clock.now_ms() + QUIET_MS)
            self._judge(("flap", tile), seen[tile])
        self._corrected({t: seen.get(t, set()) for t in range(1, self.hw.tiles + 1)})

    def check_buttons(self) -> None:
        seen: dict[Line, set[Line]] = {}
        for name in ("roll", "next"):
            asked: Line = ("button", name)
            seen[asked] = self._watch(Ask("press", name, f"press {name.upper()} and let go"))
            self._judge(asked, seen[asked])
        if all(len(lines) == 1 for lines in seen.values()):
            got = {asked[1]: next(iter(lines)) for asked, lines in seen.items()}
            if (sorted(got.values()) == sorted(seen) and
                    any(line != ("button", name) for name, line in got.items())):
                pins = {"roll": self.hw.roll, "next": self.hw.next}
                self.out("corrected [hardware] lines (paste into the config):")
                for button, line in got.items():
                    self.out(f"{button} = {pin_text(pins[str(line[1])])}")

    def _judge(self, asked: Line, lines: set[Line]) -> None:
        """Right after a step: ok, silent, shorted to another input, or swapped.
        A short shows the same pair for both flaps: one fault line for both."""
        what = self.line_name(asked)
        if lines == {asked}:
            self.out(f"{what}: ok")
        elif not lines:
            self.fault(f"{what}: nothing changed within {self.timeout_ms / 1000:g} s: "
                       "broken switch or wire")
        elif len(lines) > 1:
            names = " and ".join(self.line_name(line) for line in sorted(lines, key=str))
            self.fault(f"{names} change together: a short between their wires")
        else:
            (other,) = lines
            self.fault(f"{what}: the input of {self.line_name(other)} changed instead: "
                       "wires swapped")

    def _corrected(self, seen: dict[int, set[Line]]) -> None:
        """Print ``flaps = [...]`` when wires are swapped: each flap moved exactly
        one flap input, all different, some not the configured one."""
        if not any(len(lines) == 1 and lines != {("flap", t)} for t, lines in seen.items()):
            return
        moved = [next(iter(lines)) if len(lines) == 1 else None
                 for _, lines in sorted(seen.items())]
        if (None in moved or any(line[0] != "flap" for line in moved if line)
                or len(set(moved)) != len(moved)):
            self.out("no corrected flaps map: fix the other faults first, then run again")
            return
        pins = [pin_text(self.hw.flaps[int(line[1]) - 1]) for line in moved if line]
        self.out("corrected [hardware] line (paste into the config):")
        self.out(f"flaps = [{', '.join(pins)}]")


def _probe(bus: Any, address: int, attempts: int = 3) -> None:
    """A quick write to ``address``; a transient error (121, 5, 110, or 11: the Pi 5's
    lost arbitration) is tried again, as the driver does, before it counts as no answer."""
    I2cRetry(attempts).run(lambda: bus.write_quick(address))
