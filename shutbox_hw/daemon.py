"""The box's event loop: hardware ports in, controller, effects out.

One loop serves the real box (monotonic clock, real adapters, systemd) and
the simulator (virtual clock, simulated adapters): only what is plugged into
:class:`Box` differs. The loop is single-threaded; adapters whose hardware
calls back on other threads only record edges there.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .config import Config
from .events import ButtonPressed, DiceRolled, Event, FlapChanged, InputFault, Tick
from .game.advice import Advisor
from .game.controller import Controller
from .game.effects import Effect, Emit, Lights, RollDice, Show
from .game.events import AnyGameEvent
from .hal.clock import Clock
from .hal.dice_source import DiceSource
from .hal.poll import earliest
from .hal.ports import Buttons, Display, FlapBank, Indicators
from .store import Store

log = logging.getLogger("shutbox_hw")


@dataclass
class Box:
    """What the daemon is wired to: the real box or the simulated one."""
    flaps: FlapBank
    buttons: Buttons
    indicators: Indicators
    display: Display
    dice: DiceSource

    def close(self) -> None:
        for part in (self.flaps, self.buttons, self.indicators, self.display, self.dice):
            try:
                part.close()
            except Exception:  # closing is best effort; the box is going down
                log.exception("closing %s", type(part).__name__)


class Daemon:
    """Runs one :class:`Controller` against one :class:`Box`."""

    def __init__(self, config: Config, box: Box, store: Store, clock: Clock, *,
                 advisor: Advisor | None = None,
                 on_event: Callable[[dict[str, Any]], None] | None = None,
                 render: Callable[[Any], Any] | None = None) -> None:
        self.config = config
        self.box = box
        self.store = store
        self.clock = clock
        self.on_event = on_event
        if render is None:
            from .render import render as render_screen
            render = render_screen
        self.render = render
        self.controller = Controller(config.rules, config.game, advisor=advisor)

    def start(self) -> None:
        """Power on: resume the unfinished game, read the flaps, show the box."""
        now = self.clock.now_ms()
        saved = self.store.unfinished_game()
        self._apply(self.controller.start(now, self.box.flaps.shut_mask(), saved), now)
        self.box.dice.expect(self.controller.dice_wanted(), now)

    def feed(self, event: Event) -> None:
        self._apply(self.controller.handle(event), event.at_ms)
        self.box.dice.expect(self.controller.dice_wanted(), event.at_ms)

    def step(self) -> None:
        """Poll every port once and hand what happened to the controller."""
        now = self.clock.now_ms()
        touched = False
        for event in [*self.box.flaps.poll(now), *self.box.buttons.poll(now)]:
            touched = touched or isinstance(event, (FlapChanged, ButtonPressed))
            self.feed(event)
        if touched:
            self.box.display.wake(now)
        deadline = self.controller.next_deadline_ms()
        if deadline is not None and now >= deadline:
            self.feed(Tick(now))
        self.box.indicators.poll(now)
        for fault in self.box.display.poll(now):   # lost or back: shown like any fault
            self.feed(fault)
        for thrown in self.box.dice.poll(now):     # the module's throws and faults
            self.feed(thrown)

    def next_deadline_ms(self) -> int | None:
        return earliest((*(port.next_deadline_ms() for port in (
            self.box.flaps, self.box.buttons, self.box.indicators, self.box.display,
            self.box.dice)),
            self.controller.next_deadline_ms()))

    def _apply(self, effects: list[Effect], now: int) -> None:
        # durable first: a commit is on disk before the box shows it; dice
        # last, since their faces start a new round of effects
        for effect in effects:
            if isinstance(effect, Emit):
                self._record(effect.event, now)
        for effect in effects:
            if isinstance(effect, Lights):
                self.box.indicators.show(effect.leds, now)
            elif isinstance(effect, Show):
                self.box.display.show(self.render(effect.screen), now)
        for effect in effects:
            if isinstance(effect, RollDice):
                faces = self.box.dice.roll(effect.count)
                if faces is not None:
                    self.feed(DiceRolled(tuple(faces), now))

    def _record(self, event: AnyGameEvent, now: int) -> None:
        data = event.as_json()
        try:
            self.store.record(event)
        except Exception as error:  # a full disk must not stop the game
            log.error("could not store %s: %s", event.name, error)
            self._apply(self.controller.handle(
                InputFault("storage", f"cannot save: {error}"[:60], now)), now)
        log.info("%s", json.dumps(data))  # one JSON object a line: the journal is greppable
        if self.on_event is not None:
            self.on_event(data)
