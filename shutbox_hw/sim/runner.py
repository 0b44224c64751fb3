"""The simulated box on a virtual clock: the real daemon, simulated hardware.

:class:`SimRunner` boots a :class:`~shutbox_hw.daemon.Daemon` on a
:class:`~.box.SimulatedBox` and plays person: it moves flaps and presses
buttons through the simulated switches (which bounce, like real ones), lets
virtual time pass, and can cut the power. Both the scripted and the
interactive simulator drive this one class.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import Config
from ..daemon import Daemon
from ..store import Store
from .box import SimulatedBox
from .script import ScriptError, Step

PRESS_MS = 80       # a short press of a button
SETTLE_MARGIN_MS = 10
SHAKE_EDGES = 8         # tilt switch flips in one shake of the dice module
SHAKE_EDGE_MS = 60
MODULE_WAIT_MS = 5000   # at most this long for the module's throw to arrive


class SimRunner:
    def __init__(self, config: Config, db_path: Path, *, seed: int = 0,
                 on_event: Callable[[dict[str, Any]], None] | None = None,
                 frames_dir: Path | None = None, advisor: Any = None) -> None:
        self.config = config
        self.db_path = db_path
        self.on_event = on_event
        self.advisor = advisor
        self.sim = SimulatedBox(config, seed=seed, frames_dir=frames_dir)
        self.world = self.sim.world
        self._boot()

    # ------------------------------------------------------------------ power

    def _boot(self) -> None:
        self.daemon = Daemon(self.config, self.sim.box, Store(self.db_path), self.world.clock,
                             advisor=self.advisor, on_event=self.on_event)
        self.daemon.start()
        self.advance(0)

    def restart(self) -> None:
        """Cut the power: drop the daemon with no cleanup, boot a new one."""
        self.sim.power_cut()
        self._boot()

    # ------------------------------------------------------------------ time

    def advance(self, ms: int) -> None:
        """Let ``ms`` of virtual time pass, stopping wherever something is due."""
        target = self.world.now_ms() + max(0, ms)
        while True:
            self.daemon.step()
            now = self.world.now_ms()
            if now >= target:
                break
            stops = [t for t in (self.world.next_action_ms(), self.daemon.next_deadline_ms())
                     if t is not None and t > now]
            self.world.advance_to(min(min(stops, default=target), target))
        self.sim.settle_display()

    def _settle_after(self, last_edge_ms: int) -> None:
        self.advance(last_edge_ms - self.world.now_ms() + self.sim.debounce_ms + SETTLE_MARGIN_MS)

    # ------------------------------------------------------------------ the person

    def flap(self, tile: int, shut: bool) -> None:
        self._settle_after(self.sim.move_flap(tile, shut, self.world.now_ms()))

    def press(self, button: str, long: bool = False) -> None:
        switch = self.sim.button_switch(button)
        last = switch.set(True, self.world.now_ms())
        hold = self.sim.hold_ms + 50 if long else PRESS_MS
        self.advance(last - self.world.now_ms() + hold)
        self._settle_after(switch.set(False, self.world.now_ms()))

    def shake(self, line: int = 0) -> None:
        """Shake the dice module: its tilt switch flips, then rests; it throws."""
        module = self.sim.playing_module
        if module is None:
            raise ScriptError(f"line {line}: shake: there is no dice module "
                              '(needs [game] dice = "module" and [hardware.dice])')
        for _ in range(SHAKE_EDGES):
            module.sync()
            module.tilt_closed = not module.tilt_closed
            self.advance(SHAKE_EDGE_MS)
        self.await_module()

    def await_module(self) -> None:
        """Let a throw of the dice module tumble and reach the daemon (as a person
        waits for the dice to stop before touching a flap)."""
        module = self.sim.playing_module
        if module is None or module.absent:
            return
        for _ in range(MODULE_WAIT_MS // 50):
            module.sync()
            if module.core.tumble is None and not module.ready_active \
                    and not module.shake_pending():
                break
            self.advance(50)

    def start_game(self, players: int) -> None:
        """As if chosen with NEXT and started with ROLL (ending a game first)."""
        controller = self.daemon.controller
        if controller.phase in ("play", "confirm"):
            if controller.phase == "play":
                self.press("next", long=True)
            self.press("roll")
        if self.daemon.controller.phase == "over":
            self.press("roll")
        for _ in range(8):
            if self.daemon.controller.player_count == players:
                break
            self.press("next")
        self.press("roll")

    def run(self, step: Step) -> None:
        command, args = step.command, step.args
        if command == "start":
            self.start_game(int(args[0]))
        elif command == "dice" and self.sim.playing_module is not None and not self.sim.playing_module.absent:
            self.sim.playing_module.next_faces(*(int(a) for a in args))
        elif command == "dice":
            self.sim.dice.queue(tuple(int(a) for a in args))
        elif command in ("roll", "roll1"):
            self.press("roll", long=command == "roll1")
            self.await_module()
        elif command == "shake":
            self.shake(step.line)
        elif command in ("next", "hold-next"):
            self.press("next", long=command == "hold-next")
        elif command in ("close", "open"):
            for tile in args:
                self.flap(int(tile), command == "close")
        elif command == "wait":
            self.advance(round(float(args[0]) * 1000))
        elif command == "restart":
            self.restart()
