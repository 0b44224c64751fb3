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
from .disk import PowerCut, SimDisk
from .script import Step

PRESS_MS = 80       # a short press of a button
SETTLE_MARGIN_MS = 10


class SimRunner:
    def __init__(self, config: Config, db_path: Path, *, seed: int = 0,
                 on_event: Callable[[dict[str, Any]], None] | None = None,
                 frames_dir: Path | None = None, advisor: Any = None,
                 shut: tuple[int, ...] | list[int] = ()) -> None:
        self.config = config
        self.db_path = db_path
        self.on_event = on_event
        self.advisor = advisor
        self.sim = SimulatedBox(config, seed=seed, frames_dir=frames_dir)
        self.world = self.sim.world
        self.disk = SimDisk()
        self.power_cuts = 0
        if shut:  # the flaps as a person left them before the power came
            for tile in shut:
                self.sim.shut.add(tile)
                self.sim.flaps[tile].setter(True)
            self.sim.power_cut()
        self._boot()

    # ------------------------------------------------------------------ power

    def _boot(self) -> None:
        while True:
            try:
                self.daemon = Daemon(self.config, self.sim.box,
                                     self.disk.open_store(self.db_path), self.world.clock,
                                     advisor=self.advisor, on_event=self.on_event)
                self.daemon.start()
                break
            except PowerCut:
                self._cut()
        self.advance(0)

    def restart(self) -> None:
        """Cut the power: drop the daemon with no cleanup, boot a new one."""
        self.sim.power_cut()
        self._boot()

    def _cut(self) -> None:
        """The power went in the middle of the daemon's work (``cut-after-writes``).

        Its connection is closed only to release the lock this process holds:
        what it had not committed is gone, as after a real cut.
        """
        self.power_cuts += 1
        store = getattr(self, "daemon", None) and self.daemon.store
        if store is not None:
            store.close()
        self.sim.power_cut()

    # ------------------------------------------------------------------ time

    def advance(self, ms: int) -> None:
        """Let ``ms`` of virtual time pass, stopping wherever something is due."""
        target = self.world.now_ms() + max(0, ms)
        while True:
            try:
                self.daemon.step()
            except PowerCut:
                self._cut()
                self._boot()
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
        elif command == "dice":
            self.sim.dice.queue(tuple(int(a) for a in args))
        elif command in ("roll", "roll1"):
            self.press("roll", long=command == "roll1")
        elif command in ("next", "hold-next"):
            self.press("next", long=command == "hold-next")
        elif command in ("close", "open"):
            for tile in args:
                self.flap(int(tile), command == "close")
        elif command == "wait":
            self.advance(round(float(args[0]) * 1000))
        elif command == "restart":
            self.restart()
        elif command == "cut-after-writes":
            self.disk.cut_after(int(args[0]))
        elif command == "disk-full":
            self.disk.full = True
        elif command == "disk-ok":
            self.disk.full = False
