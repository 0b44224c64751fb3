"""The simulated box: the reference hardware as simulated pins, chips and panel.

Which hardware is simulated follows the config's ``[hardware]`` table, so
``sim --config hardware/mcp23017-12/shutbox.toml`` runs the real MCP23017
driver against the register-level model. The ports are built by the same
:func:`~shutbox_hw.hal.adapters.box.build_ports` the real box uses.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from gpiozero.pins.mock import MockFactory, MockPin
from PIL import Image

from ..base.events import ButtonPressed, Event, FlapChanged, ServiceRequested
from ..base.leds import LedFrame
from ..config.config_file import Config
from ..daemon.daemon import Box
from ..hal.adapters.box import Ports, build_module, build_ports
from ..hal.adapters.dice_source import DiceSource
from ..hal.adapters.display import NullDisplay, make_display
from ..hal.contracts.config import ExpanderPin, HardwareConfig, Pin
from ..hal.contracts.ports import Indicators
from ..hal.simulated.bus import SimBus
from ..hal.simulated.dice_module import SimDiceModule
from ..hal.simulated.mcp23017 import SimMcp23017
from ..hal.simulated.reader import WorldReader
from ..hal.simulated.world import SimSwitch, SimWorld, expander_pin_setter
from .observed import Observed
from .parts.recent import Recent, recent_states
from .parts.recorded_panel import AckingChip, PanelRecorder, SyncedDisplay

Seen = FlapChanged | ButtonPressed | ServiceRequested
"""An input the daemon got that the simulated person watches for."""


@dataclass(frozen=True)
class Lamps:
    """Which LEDs are lit at this moment."""
    flaps: tuple[bool, ...]
    green: bool
    red: bool


BOUNCE_WINDOW_MS = 10   # ``bounce``: every edge within this


def has_int_line(hw: HardwareConfig) -> bool:
    """Whether the build has an expander INT line for ``cut-int`` to break."""
    return hw.backend == "mcp23017" and hw.mcp23017 is not None


def device_problem(hw: HardwareConfig, device: int | str) -> str | None:
    """Why ``unplug``/``plug`` cannot act on ``device`` in this build (None: it can)."""
    if device == "dice":
        return None if hw.dice is not None else "no dice module in this config ([hardware.dice])"
    if device == "display":
        return "no display in this config" if hw.display.driver == "none" else None
    expander = hw.mcp23017 if hw.backend == "mcp23017" else None
    if expander is None or device not in (expander.address, expander.led_address):
        return f"no MCP23017 at 0x{device:02x} in this config"
    return None


class WiredPin(MockPin):  # type: ignore[misc]   # gpiozero has no type hints
    """A mock pin with a switch to ground: the pull-up cannot lift a closed switch
    (gpiozero's mock would drive the pin high when a new device sets its pull).
    Its ``states`` keep only the newest changes (gpiozero's keep every one)."""

    grounded = False
    states: Any    # gpiozero's PinState entries (the package has no type hints)

    def clear_states(self) -> None:
        super().clear_states()
        self.states = recent_states(self.states[0])

    def drive_high(self) -> None:
        if not self.grounded:
            super().drive_high()


def wired_pin_setter(pin: WiredPin) -> Callable[[bool], None]:
    def set_closed(closed: bool) -> None:
        pin.grounded = closed
        pin.drive_low() if closed else pin.drive_high()
    return set_closed


E = TypeVar("E", covariant=True)


class Polled(Protocol[E]):
    """A port the daemon polls (the flaps, the buttons)."""

    def poll(self, now_ms: int) -> Sequence[E]: ...


class Watched(Generic[E]):
    """A flap bank or the buttons, as the daemon sees them, keeping every change
    and press they report: the simulated person waits for the box to take an
    input, and tests count what reached the game."""

    def __init__(self, port: Polled[E], seen: Recent[Seen]) -> None:
        self._port = port
        self._seen = seen

    def poll(self, now_ms: int) -> Sequence[E]:
        events = self._port.poll(now_ms)
        self._seen.extend(e for e in events
                          if isinstance(e, (FlapChanged, ButtonPressed, ServiceRequested)))
        return events

    def __getattr__(self, name: str) -> Any:
        return getattr(self._port, name)


class Lit:
    """The lights, keeping the frame they were last sent for the person to see."""

    def __init__(self, indicators: Indicators, view: Observed) -> None:
        self._indicators = indicators
        self._view = view

    def show(self, frame: LedFrame, now_ms: int) -> None:
        self._view.lit(frame)
        self._indicators.show(frame, now_ms)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._indicators, name)


class QueuedDice(DiceSource):
    """``dice A B`` in a script queues a throw; without one, seeded random faces."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.pending: deque[tuple[int, ...]] = deque()

    def queue(self, faces: tuple[int, ...]) -> None:
        self.pending.append(faces)

    def close(self) -> None:
        """Nothing: the script's queue of throws is no hardware, and it outlives
        the box's power (a power cut keeps the throws still to come)."""

    def roll(self, count: int) -> tuple[int, ...]:
        if self.pending:
            # a queued throw with the wrong number of dice is shown as it is:
            # the controller refuses it like a bad reading of the dice module
            return self.pending.popleft()
        return tuple(self.rng.randint(1, 6) for _ in range(count))


class SyncedDice(DiceSource):
    """The dice module's source, with the simulated Pico run up to now before
    each poll, so its ready line falls on time while the Pi leaves the bus alone."""

    def __init__(self, inner: DiceSource, module: SimDiceModule) -> None:
        self.inner = inner
        self.module = module

    def roll(self, count: int) -> tuple[int, ...] | None:
        return self.inner.roll(count)

    def expect(self, count: int | None, now_ms: int) -> None:
        self.inner.expect(count, now_ms)

    def poll(self, now_ms: int) -> list[Event]:
        self.module.sync()
        return self.inner.poll(now_ms)

    def _close(self) -> None:
        self.inner.close()


class SimulatedBox:
    def __init__(self, config: Config, *, seed: int = 0, frames_dir: Path | None = None) -> None:
        self.config = config
        hw = self.hw = config.hardware
        self.world = SimWorld()
        rng = random.Random(seed)
        self.dice = QueuedDice(random.Random(rng.random()))
        self.factory = MockFactory(pin_class=WiredPin)
        self.bus = SimBus(world=self.world, hz=hw.i2c_hz)
        self.chips: dict[int, SimMcp23017] = {}
        if hw.backend == "mcp23017" and hw.mcp23017 is not None:
            self.chips[hw.mcp23017.address] = SimMcp23017(
                int_pin=self.factory.pin(hw.mcp23017.int_pin))
            if hw.mcp23017.led_address is not None:
                self.chips[hw.mcp23017.led_address] = SimMcp23017()
            for address, chip in self.chips.items():
                self.bus.attach(address, chip)
        self.module: SimDiceModule | None = None
        if hw.dice is not None:     # on the bus for the self-test even with other dice
            ready = self.factory.pin(hw.dice.ready_pin) if hw.dice.ready_pin is not None else None
            self.module = SimDiceModule(clock=self.world.clock, ready_pin=ready,
                                        rng=random.Random(rng.random()),
                                        firmware=config.sim.dice_firmware)
            self.bus.attach(hw.dice.address, self.module)
        if hw.display.driver != "none" and hw.display.address not in self.bus.devices:
            self.bus.attach(hw.display.address, AckingChip())
        switch_rng = random.Random(rng.random())
        self.flaps = {tile: self._switch(pin, switch_rng)
                      for tile, pin in enumerate(hw.flaps, start=1)}
        self.buttons = {"roll": self._switch(hw.roll, switch_rng),
                        "next": self._switch(hw.next, switch_rng)}
        if hw.service is not None:   # the service button inside the box
            self.buttons["service"] = self._switch(hw.service, switch_rng)
        self.shut: set[int] = set()
        # every input the daemon got
        self.seen: Recent[Seen] = Recent()
        self.view = Observed()   # what a person sees: the events, the screen, the lights
        # drawn after the dice and switches, so their sequences are as before
        self.bus.rng = random.Random(rng.random())
        self.panel = PanelRecorder(frames_dir, bus=self.bus, address=hw.display.address,
                                   rng=random.Random(rng.random()), driver=hw.display.driver)
        self.bounce_rng = random.Random(rng.random())
        self.box = self._build()

    @property
    def playing_module(self) -> SimDiceModule | None:
        """The dice module when the game throws with it (``[game] dice = "module"``)."""
        return self.module if self.config.game.dice == "module" else None

    @property
    def debounce_ms(self) -> int:
        return self.hw.debounce_ms

    @property
    def hold_ms(self) -> int:
        return self.hw.hold_ms

    def _switch(self, pin: Pin, rng: random.Random) -> SimSwitch:
        if isinstance(pin, ExpanderPin):
            setter = expander_pin_setter(self.chips[pin.address], pin.index)
        else:
            setter = wired_pin_setter(self.factory.pin(pin))
        return SimSwitch(self.world, setter, rng=rng)

    def _build(self) -> Box:
        self.ports: Ports = build_ports(self.hw, self.world.clock, pin_factory=self.factory,
                                        bus=lambda number: self.bus, sleep=lambda s: None,
                                        reader=lambda bus, address: WorldReader(
                                            self.world, self.bus, address),
                                        timers=self.world.timers)
        display = SyncedDisplay(make_display(self.hw, device_factory=self.panel.open,
                                             timers=self.world.timers),
                                lambda: self.settle_display())
        dice: DiceSource = self.dice
        module = self.playing_module
        if module is not None and self.hw.dice is not None:
            dice = SyncedDice(build_module(self.hw.dice, self.world.clock,
                                           pin_factory=self.factory, bus=lambda n: self.bus,
                                           fallback=self.dice, timers=self.world.timers),
                              module)
        return Box(Watched(self.ports.flaps, self.seen), Watched(self.ports.buttons, self.seen),
                   Lit(self.ports.indicators, self.view), display, dice, self.world.timers)

    def power_cut(self) -> None:
        """The plug is pulled and put back: the Pi's pins are released, the
        chips lose their registers; flap positions and queued dice stay."""
        self.box.close()
        self.world.power_cut()      # the deadlines of the box's parts go with them
        for chip in self.chips.values():
            chip.brownout()
        if self.module is not None and not self.module.absent:
            self.module.plug()      # powered by the Pi: it boots again too
        self.box = self._build()

    # -- what a person touches and sees ---------------------------------------------

    def move_flap(self, tile: int, shut: bool, at_ms: int) -> int:
        """Shut or lift a flap by hand; returns when its switch stops bouncing."""
        (self.shut.add if shut else self.shut.discard)(tile)
        return self.flaps[tile].set(shut, at_ms)

    def button_switch(self, name: str) -> SimSwitch:
        """ROLL's, NEXT's or (if configured) the service button's switch."""
        return self.buttons[name]

    # -- hardware faults (script commands) ------------------------------------------

    def bounce(self, tile: int, edges: int, at_ms: int) -> int:
        """Flap ``tile``'s switch chatters: ``edges`` (even) edges within
        ``BOUNCE_WINDOW_MS``, ending where it was; returns the last edge's time."""
        switch = self.flaps[tile]
        level = tile in self.shut
        offsets = sorted(self.bounce_rng.randint(0, BOUNCE_WINDOW_MS) for _ in range(edges))
        def edge(closed: bool) -> Callable[[], None]:
            return lambda: switch.setter(closed)   # the wiring as it is at that moment

        for i, offset in enumerate(offsets):
            self.world.at(at_ms + offset, edge(level if i % 2 else not level))
        return at_ms + offsets[-1]

    def set_i2c_error_rate(self, rate: float) -> None:
        self.bus.error_rate = rate

    def brownout(self) -> None:
        """The supply dipped: every MCP23017 back at its power-on registers."""
        for chip in self.chips.values():
            chip.brownout()

    def set_plugged(self, device: int | str, plugged: bool) -> None:
        """``display`` or an expander address stops / starts answering."""
        if device == "display":
            (self.bus.plug if plugged else self.bus.unplug)(self.hw.display.address)
        elif device == "dice" and self.module is not None:
            self.module.plug() if plugged else self.module.unplug()
        elif isinstance(device, int) and device in self.chips:
            chip = self.chips[device]
            chip.plug() if plugged else chip.unplug()
        else:
            raise ValueError(f"no {device!r} in this simulated box")

    def set_int_cut(self, cut: bool) -> None:
        """The input expander's INT wire to the Pi breaks (or is mended)."""
        if not has_int_line(self.hw):
            raise ValueError("no expander INT line in this simulated box")
        assert self.hw.mcp23017 is not None
        chip = self.chips[self.hw.mcp23017.address]
        chip.cut_int() if cut else chip.mend_int()

    # -- wiring faults a builder makes (planted by the self-test's tests) --------------

    def input_switch(self, name: int | str) -> SimSwitch:
        """A flap's switch by tile number, a button's by "roll" / "next" / "service"."""
        return self._input(name)

    def _input(self, name: int | str) -> SimSwitch:
        """A flap's switch by tile number, a button's by "roll" / "next" / "service"."""
        return self.flaps[name] if isinstance(name, int) else self.buttons[name]

    def swap_inputs(self, a: int | str, b: int | str) -> None:
        """The wires of two switches swapped: moving ``a`` changes ``b``'s input."""
        sa, sb = self._input(a), self._input(b)
        sa.setter, sb.setter = sb.setter, sa.setter

    def short_inputs(self, a: int | str, b: int | str) -> None:
        """Two inputs' wires touch: either switch closed pulls both lines low."""
        sa, sb = self._input(a), self._input(b)
        set_a, set_b = sa.setter, sb.setter
        closed = [False, False]

        def joined(i: int) -> Callable[[bool], None]:
            def set_closed(value: bool) -> None:
                closed[i] = value
                set_a(any(closed))
                set_b(any(closed))
            return set_closed
        sa.setter, sb.setter = joined(0), joined(1)

    def stick_flap(self, tile: int) -> None:
        """The flap jammed shut (or its line shorted to ground): shut now and for good."""
        switch = self.flaps[tile]
        switch.setter(True)
        switch.setter = lambda closed: None
        self.shut.add(tile)

    def break_switch(self, name: int | str) -> None:
        """A broken switch or wire: moving it changes nothing on its input."""
        self._input(name).setter = lambda closed: None

    def settle_display(self) -> None:
        """Let the display's sender thread finish, so frames are deterministic."""
        display = getattr(self.box.display, "inner", self.box.display)
        if hasattr(display, "wait_idle"):
            display.wait_idle(5.0)

    def last_frame(self) -> Image.Image | None:
        if isinstance(getattr(self.box.display, "inner", None), NullDisplay) or not self.panel.on:
            return None
        image: Image.Image = self.panel.device.image
        return image

    def is_shut(self, tile: int) -> bool:
        return tile in self.shut

    def lamp_states(self) -> Lamps:
        """The LEDs as they are lit right now (blinking included), read off the pins."""
        def lit(pin: Pin | None) -> bool:
            if pin is None:
                return False
            if isinstance(pin, ExpanderPin):
                return bool(self.chips[pin.address].output_level(pin.index))
            return bool(self.factory.pin(pin).state)
        leds = self.hw.flap_leds
        flaps = tuple(lit(leds[t - 1]) if t <= len(leds) else False
                      for t in range(1, self.hw.tiles + 1))
        return Lamps(flaps=flaps, green=lit(self.hw.green_led), red=lit(self.hw.red_led))
