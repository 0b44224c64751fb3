"""The simulated person at the box: flaps moved and buttons pressed through the
simulated switches (which bounce, like real ones), then watched until the box took them.

:class:`Person` knows what a person standing at the box can know (:mod:`.observed`:
its screen, the events it printed, the record on disk) and how many times the power
went (the runner's count); it lets time pass on :class:`~.clock.VirtualTime`. A press
the box did not take is pressed again, as a player would; after a power cut the
flaps of a throw the box had not saved are shut again (:meth:`Person.put_right`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.events import ButtonPressed, FlapChanged, ServiceRequested
from ..config.config_file import Config
from ..game.display.screens import PlayScreen
from ..hal.contracts.debounce import SERVICE_HOLD_MS
from .box import Seen, SimulatedBox
from .clock import VirtualTime
from .observed import record
from .script import ScriptError

PRESS_MS = 80       # a short press of a button
SETTLE_MARGIN_MS = 10
SHAKE_EDGES = 8         # tilt switch flips in one shake of the dice module
SHAKE_EDGE_MS = 60
MODULE_WAIT_MS = 5000   # at most this long for the module's throw to arrive
AWAIT_STEP_MS = 10  # how often the waiting person looks again
PRESS_TRIES = 5     # a press the box does not take is pressed again, this often at most


class Person:
    """Acts on ``sim`` as a person would, time passing on ``time``; ``power_cuts``
    counts the power cuts so far (a press that met one is judged by what the box shows)."""

    def __init__(self, sim: SimulatedBox, time: VirtualTime, config: Config, db_path: Path,
                 power_cuts: Callable[[], int]) -> None:
        self.sim = sim
        self.time = time
        self.config = config
        self.db_path = db_path
        self._power_cuts = power_cuts

    def _advance(self, ms: int) -> None:
        self.time.advance(ms)

    def _now(self) -> int:
        return self.time.now_ms()

    def _settle_after(self, last_edge_ms: int) -> None:
        self._advance(last_edge_ms - self._now() + self.sim.debounce_ms + SETTLE_MARGIN_MS)

    def _await(self, seen: Callable[[Seen], bool]) -> None:
        """Wait, as a person watching the box would, until the box took the input
        (it may see it late: a periodic read when INT is dead, a chip back on the
        bus), giving up after ``_patience_ms``."""
        start = len(self.sim.seen)
        limit = self._now() + self._patience_ms()
        while not any(seen(e) for e in self.sim.seen[start:]) and self._now() < limit:
            self._advance(min(AWAIT_STEP_MS, limit - self._now()))

    def _patience_ms(self) -> int:
        hw = self.config.hardware
        return 2 * hw.read_interval_ms + hw.debounce_ms + SETTLE_MARGIN_MS

    # ------------------------------------------------------------------ what the person sees

    def phase_now(self) -> str:
        """Where the box is, by its screen (:attr:`.observed.Observed.phase`)."""
        return self.sim.view.phase

    def shows(self) -> list[Any]:
        """What the box shows that a press could change, as the person sees it:
        the phase on its screen, and how far its record (the events it printed,
        as they are on disk) goes. Plain JSON values: the world file keeps it."""
        return [self.sim.view.phase, *record(self.db_path)]

    # ------------------------------------------------------------------ the flaps and buttons

    def flap(self, tile: int, shut: bool) -> None:
        start = len(self.sim.seen)
        moved = self.sim.is_shut(tile) != shut
        self._settle_after(self.sim.move_flap(tile, shut, self._now()))
        if moved and not any(isinstance(e, FlapChanged) and e.tile == tile
                             for e in self.sim.seen[start:]):
            self._await(lambda e: isinstance(e, FlapChanged) and e.tile == tile)

    def press(self, button: str, long: bool = False) -> None:
        """Press and release a button; pressed again (up to ``PRESS_TRIES`` times)
        when the box did not take it, as a player would (an expander that lost
        its configuration cannot see a press until it is repaired)."""
        switch = self.sim.button_switch(button)
        hold = self.sim.hold_ms + 50 if long else PRESS_MS

        def taken(e: Seen) -> bool:
            # a long press the box saw only in part (an expander repaired while
            # it was held) came out short: hold it again
            return isinstance(e, ButtonPressed) and e.button == button and e.long == long

        for _ in range(PRESS_TRIES):
            start = len(self.sim.seen)
            cuts, before = self._power_cuts(), self.shows()
            dice = list(self.sim.dice.pending)
            last = switch.set(True, self._now())
            self._advance(last - self._now() + hold)
            self._settle_after(switch.set(False, self._now()))
            if self._power_cuts() != cuts and before[0] == "idle":
                return   # the number of players went with the power: start_game again
            if self._power_cuts() != cuts:
                # the power went while the box worked on the press: if the box
                # does not show what it did, it is undone; the same throw again
                if before[0] == "confirm" and self.phase_now() == "play":
                    self.press("next", long=True)   # "New game?" is not kept: ask again
                    continue
                if self.shows() != before:
                    return
                self.sim.dice.pending.clear()
                self.sim.dice.pending.extend(dice)
                continue
            if not any(taken(e) for e in self.sim.seen[start:]):
                self._await(taken)
            if any(taken(e) for e in self.sim.seen[start:]):
                return

    def hold_both(self) -> None:
        """ROLL and NEXT pressed together and held a little over the 5 s the
        operator menu asks for, then released."""
        switches = [self.sim.button_switch(b) for b in ("roll", "next")]
        last = max(switch.set(True, self._now()) for switch in switches)
        self._advance(last - self._now() + SERVICE_HOLD_MS + PRESS_MS)
        self._settle_after(max(switch.set(False, self._now()) for switch in switches))

    def service(self) -> None:
        """The service button inside the box pressed briefly and let go; waited
        on, like a button, until the box took the press."""
        switch = self.sim.button_switch("service")
        start = len(self.sim.seen)
        last = switch.set(True, self._now())
        self._advance(last - self._now() + PRESS_MS)
        self._settle_after(switch.set(False, self._now()))
        if not any(isinstance(e, ServiceRequested) for e in self.sim.seen[start:]):
            self._await(lambda e: isinstance(e, ServiceRequested))

    def put_right(self) -> None:
        """After a power cut: flaps shut for the throw whose closure the box had
        not yet taken were never saved; the box asks for them to be lifted, and
        the person shuts them again."""
        view = self.sim.view
        if not isinstance(view.screen, PlayScreen) or view.screen.dice is None:
            return     # no throw under way whose dice are shown
        again = [t for t in view.blinking() if self.sim.is_shut(t)]   # "lift" them
        for tile in again:
            self.flap(tile, False)
        for tile in again:
            self.flap(tile, True)

    def start_game(self, players: int) -> None:
        """As if chosen with NEXT and started with ROLL (ending a game first)."""
        if self.phase_now() in ("play", "confirm"):
            if self.phase_now() == "play":
                self.press("next", long=True)
            self.press("roll")
        if self.phase_now() == "over":
            self.press("roll")
        for _ in range(PRESS_TRIES):
            for _ in range(8):
                if self.sim.view.player_count == players:
                    break
                self.press("next")
            self.press("roll")
            if self.phase_now() != "idle":
                return   # else the power went before the game was saved: choose again

    # ------------------------------------------------------------------ the dice

    def shake(self, line: int = 0) -> None:
        """Shake the dice module: its tilt switch flips, then rests; it throws."""
        module = self.sim.playing_module
        if module is None:
            raise ScriptError(f"line {line}: shake: there is no dice module "
                              '(needs [game] dice = "module" and [hardware.dice])')
        for _ in range(SHAKE_EDGES):
            module.sync()
            module.tilt_closed = not module.tilt_closed
            self._advance(SHAKE_EDGE_MS)
        self.await_module()

    def await_module(self) -> None:
        """Let a throw of the dice module tumble and reach the daemon (as a person
        waits for the dice to stop before touching a flap)."""
        module = self.sim.playing_module
        if module is None or module.absent:
            return
        for _ in range(MODULE_WAIT_MS // 50):
            module.sync()
            if not module.tumbling and not module.ready_active \
                    and not module.shake_pending():
                break
            self._advance(50)

    def throw_next(self, faces: tuple[int, ...]) -> None:
        """``dice``: the next throw's faces (the dice module's, when it plays)."""
        module = self.sim.playing_module
        if module is not None and not module.absent:
            module.next_faces(*faces)
        else:
            self.sim.dice.queue(faces)

    # ------------------------------------------------------------------ the contacts

    def bounce(self, tile: int, edges: int) -> None:
        self._settle_after(self.sim.bounce(tile, edges, self._now()))

    def contact(self, name: int | str, ms: int, *, bounce: bool) -> None:
        """``glitch`` / ``press``: the contact changes for ``ms`` and returns;
        cleanly, or bouncing like a real switch. Not pressed again."""
        switch = self.sim.input_switch(name)
        level = self.sim.is_shut(name) if isinstance(name, int) else False
        now = self._now()
        world = self.time.world
        if bounce:
            switch.set(not level, now)
            last = switch.set(level, now + ms)
        else:
            world.at(now, lambda: switch.setter(not level))
            world.at(now + ms, lambda: switch.setter(level))
            last = now + ms
        self._settle_after(last)
