"""The simulated box on a virtual clock: the real daemon, simulated hardware.

:class:`SimRunner` boots a :class:`~shutbox_hw.daemon.daemon.Daemon` on a
:class:`~.box.SimulatedBox` and plays person: it moves flaps and presses
buttons through the simulated switches (which bounce, like real ones), lets
virtual time pass, and can cut the power. Both the scripted and the
interactive simulator drive this one class.

It wires what the daemon on a Pi wires (``commands/box/run.py``): a rater (``rater``)
and the phones' claims socket (``claims_path``); the sim command passes both when it
has a ``--db``, and a test that does not want one leaves it out.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from .. import render as render_package
from ..base.events import ButtonPressed, FlapChanged, ServiceRequested
from ..claims.league import Vetting
from ..claims.league_join import LeagueJoins
from ..claims.server import ClaimServer, ClaimsUnavailable
from ..config.config_file import Config
from ..daemon.daemon import STORE_RETRY_MS, Daemon
from ..game.display.screens import PlayScreen, Screen
from ..game.referee.advice import Advisor
from ..hal.contracts.debounce import SERVICE_HOLD_MS
from ..hal.contracts.poll import run_loop
from ..skill.hints import ready_advisor_for as solver_advisor
from ..skill.rater import RaterPort
from .box import Seen, SimulatedBox
from .observed import record
from .parts.disk import PowerCut, SimDisk
from .script import ScriptError
from .script_commands import Step
from .script_run import check_steps as check_steps
from .script_run import run_step

PRESS_MS = 80       # a short press of a button
SETTLE_MARGIN_MS = 10
SHAKE_EDGES = 8         # tilt switch flips in one shake of the dice module
SHAKE_EDGE_MS = 60
MODULE_WAIT_MS = 5000   # at most this long for the module's throw to arrive
AWAIT_STEP_MS = 10  # how often the waiting person looks again
FLUSH_TRIES = 5     # retry periods a script's end waits for the disk to take what is unsaved
PRESS_TRIES = 5     # a press the box does not take is pressed again, this often at most


class SimRunner:
    def __init__(self, config: Config, db_path: Path, *, seed: int = 0,
                 on_event: Callable[[dict[str, Any]], None] | None = None,
                 frames_dir: Path | None = None,
                 advisor_for: Callable[[Config], Advisor | None] = solver_advisor,
                 realtime: bool = False,
                 shut: tuple[int, ...] | list[int] = (),
                 outbox: Callable[[], None] | None = None,
                 rater: RaterPort | None = None,
                 claims_path: str | None = None) -> None:
        self.config = config
        self.rater = rater      # the move accuracy (skill/rater.py): None, no ratings
        self.outbox = outbox    # [network] mqtt: the store's outbox hook (network/hookup.py)
        self.realtime = realtime
        self._epoch: tuple[float, int] | None = None   # (monotonic s, virtual ms) paired
        self.db_path = db_path
        self.on_event = on_event
        self.advisor_for = advisor_for
        self.sim = SimulatedBox(config, seed=seed, frames_dir=frames_dir)
        self.sim.view.db = db_path
        self.world = self.sim.world
        self.disk = SimDisk(self.world, random.Random(seed))
        self.power_cuts = 0
        self._woken = threading.Event()   # a phone's claim (or the web) came: step now
        self.claims: ClaimServer | None = None
        self.claims_problem: str | None = None   # why the socket is off (None: it is not)
        if claims_path is not None:
            self._listen(claims_path)
        if shut:  # the flaps as a person left them before the power came
            for tile in shut:
                self.sim.shut.add(tile)
                self.sim.flaps[tile].setter(True)
            self.sim.power_cut()
        self._boot()

    # ------------------------------------------------------------------ the phones

    def _listen(self, path: str) -> None:
        """The phones' claims socket, on the virtual clock (the box plays on without
        it when it cannot be: :attr:`claims_problem` says why)."""
        server = ClaimServer(path, self.wake, self.world.now_ms,
                             self.config.network.web_url, vet=Vetting(self.db_path),
                             join=LeagueJoins(self.db_path,
                                              self.config.network.broker is not None))
        try:
            server.start()
        except ClaimsUnavailable as error:
            self.claims_problem = str(error)
            return
        self.claims = server

    def wake(self) -> None:
        """Another thread (the claims socket's) has something for the loop: with
        ``realtime`` the wait for the next deadline is cut short. Never blocks."""
        self._woken.set()

    def close(self) -> None:
        """The claims socket closed (its file removed); the rest is the caller's."""
        if self.claims is not None:
            self.claims.close()
            self.claims = None

    # ------------------------------------------------------------------ power

    def _boot(self) -> None:
        while True:
            try:
                store = self.disk.open_store(self.db_path)
                store.outbox = self.outbox
                self.daemon = Daemon(self.config, self.sim.box, store, self.world.clock,
                                     advisor_for=self.advisor_for, on_event=self._printed,
                                     render=self._render, rater=self.rater,
                                     claims=self.claims)
                self.daemon.start()
                break
            except PowerCut as cut:
                self._cut(cut)
        self.advance(0)

    def _printed(self, data: dict[str, Any]) -> None:
        """An event the box printed: the person sees it, and so does ``on_event``."""
        self.sim.view.event(data)
        if self.on_event is not None:
            self.on_event(data)

    def _render(self, screen: Screen) -> Image.Image:
        """The screen the daemon sends to the display: the person sees it."""
        self.sim.view.shown(screen)
        return render_package.render(screen)

    def restart(self) -> None:
        """Cut the power: drop the daemon with no cleanup, boot a new one."""
        self.sim.power_cut()
        self._boot()

    def _cut(self, cut: PowerCut) -> None:
        """The power went in the middle of the daemon's work (``cut-after-writes``).

        Its connection is closed only to release the lock this process holds:
        what it had not committed is gone, as after a real cut.
        """
        self.power_cuts += 1
        for event in cut.committed:  # on disk: the record has them
            self._printed(event.as_json())
        store = getattr(self, "daemon", None) and self.daemon.store
        if store is not None:
            store.close()
        self.sim.power_cut()

    # ------------------------------------------------------------------ time

    def advance(self, ms: int) -> None:
        """Let ``ms`` of virtual time pass, stopping wherever something is due."""
        target = self.world.now_ms() + max(0, ms)
        run_loop(self.world, self._step, self.world.timers, self._wait, until_ms=target)
        self.sim.settle_display()

    def _step(self, now: int) -> None:
        self._daemon_step()
        while (action := self.world.next_action_ms()) is not None and action <= now:
            # an edge due at this very millisecond: run it and poll again
            # now (the box's loop would see its interrupt at once)
            self.world.advance_to(now)
            self._daemon_step()

    def _daemon_step(self) -> None:
        """One poll of the daemon; a power cut (``cut-after-writes``) boots a new one."""
        try:
            self.daemon.step()
        except PowerCut as cut:
            self._cut(cut)
            self._boot()
            self.put_right()

    def _wait(self, stop_ms: int | None) -> None:
        assert stop_ms is not None   # advance always gives run_loop an end
        # a step may have moved time on itself (the person putting things right
        # after a power cut): never go back
        stop_ms = max(stop_ms, self.world.now_ms())
        self.world.advance_to(self._pace(stop_ms))

    def _pace(self, stop_ms: int) -> int:
        """``--realtime``: wait until the wall clock reaches virtual time ``stop_ms``, or
        until :meth:`wake` (a phone's claim): the virtual time the wait reached."""
        if not self.realtime:
            return stop_ms
        if self._epoch is None:
            self._epoch = (time.monotonic(), self.world.now_ms())
        wall, virtual = self._epoch
        delay = wall + (stop_ms - virtual) / 1000 - time.monotonic()
        if delay <= 0:
            return stop_ms
        if self.claims is None:   # nothing can wake it
            time.sleep(delay)
            return stop_ms
        if not self._woken.wait(delay):
            return stop_ms
        self._woken.clear()
        reached = virtual + int((time.monotonic() - wall) * 1000)
        return max(self.world.now_ms(), min(stop_ms, reached))

    def _settle_after(self, last_edge_ms: int) -> None:
        self.advance(last_edge_ms - self.world.now_ms() + self.sim.debounce_ms + SETTLE_MARGIN_MS)

    # ------------------------------------------------------------------ the person

    def _await(self, seen: Callable[[Seen], bool]) -> None:
        """Wait, as a person watching the box would, until the box took the input
        (it may see it late: a periodic read when INT is dead, a chip back on the
        bus), giving up after ``_patience_ms``."""
        start = len(self.sim.seen)
        limit = self.world.now_ms() + self._patience_ms()
        while not any(seen(e) for e in self.sim.seen[start:]) and self.world.now_ms() < limit:
            self.advance(min(AWAIT_STEP_MS, limit - self.world.now_ms()))

    def _patience_ms(self) -> int:
        hw = self.config.hardware
        return 2 * hw.read_interval_ms + hw.debounce_ms + SETTLE_MARGIN_MS

    def flap(self, tile: int, shut: bool) -> None:
        start = len(self.sim.seen)
        moved = self.sim.is_shut(tile) != shut
        self._settle_after(self.sim.move_flap(tile, shut, self.world.now_ms()))
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
            cuts, before = self.power_cuts, self.shows()
            dice = list(self.sim.dice.pending)
            last = switch.set(True, self.world.now_ms())
            self.advance(last - self.world.now_ms() + hold)
            self._settle_after(switch.set(False, self.world.now_ms()))
            if self.power_cuts != cuts and before[0] == "idle":
                return   # the number of players went with the power: start_game again
            if self.power_cuts != cuts:
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
        last = max(switch.set(True, self.world.now_ms()) for switch in switches)
        self.advance(last - self.world.now_ms() + SERVICE_HOLD_MS + PRESS_MS)
        self._settle_after(max(switch.set(False, self.world.now_ms()) for switch in switches))

    def service(self) -> None:
        """The service button inside the box pressed briefly and let go; waited
        on, like a button, until the box took the press."""
        switch = self.sim.button_switch("service")
        start = len(self.sim.seen)
        last = switch.set(True, self.world.now_ms())
        self.advance(last - self.world.now_ms() + PRESS_MS)
        self._settle_after(switch.set(False, self.world.now_ms()))
        if not any(isinstance(e, ServiceRequested) for e in self.sim.seen[start:]):
            self._await(lambda e: isinstance(e, ServiceRequested))

    def phase_now(self) -> str:
        """Where the box is, by its screen (:attr:`.observed.Observed.phase`)."""
        return self.sim.view.phase

    def shows(self) -> list[Any]:
        """What the box shows that a press could change, as the person sees it:
        the phase on its screen, and how far its record (the events it printed,
        as they are on disk) goes. Plain JSON values: the world file keeps it."""
        return [self.sim.view.phase, *record(self.db_path)]

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
            if not module.tumbling and not module.ready_active \
                    and not module.shake_pending():
                break
            self.advance(50)

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

    def let_ends_show(self) -> None:
        """At a script's end: let each step of a turn's end still queued be shown
        (so ``--frames`` holds them all)."""
        while self.daemon.controller.showing:
            self.advance(self.config.game.pause_ms)

    def finish(self) -> int:
        """At a script's end: every step of an end shown, and every event the disk
        refused for a moment (a lock, a full disk) tried again for up to
        ``FLUSH_TRIES`` retry periods, as the box would go on trying. Returns
        how many events the record keeps are still not saved (the caller says so)."""
        self.let_ends_show()
        for _ in range(FLUSH_TRIES):
            if not self.daemon.unsaved:
                break
            self.advance(STORE_RETRY_MS)
        from ..store.write.game_rows import NOT_STORED
        return sum(not isinstance(e, NOT_STORED) for e in self.daemon.unsaved)

    def bounce(self, tile: int, edges: int) -> None:
        self._settle_after(self.sim.bounce(tile, edges, self.world.now_ms()))

    def contact(self, name: int | str, ms: int, *, bounce: bool) -> None:
        """``glitch`` / ``press``: the contact changes for ``ms`` and returns;
        cleanly, or bouncing like a real switch. Not pressed again."""
        switch = self.sim.input_switch(name)
        level = self.sim.is_shut(name) if isinstance(name, int) else False
        now = self.world.now_ms()
        if bounce:
            switch.set(not level, now)
            last = switch.set(level, now + ms)
        else:
            self.world.at(now, lambda: switch.setter(not level))
            self.world.at(now + ms, lambda: switch.setter(level))
            last = now + ms
        self._settle_after(last)

    def run(self, step: Step) -> None:
        """Carry out one script line (:func:`.script_run.run_step`)."""
        run_step(self, step)

    def throw_next(self, faces: tuple[int, ...]) -> None:
        """``dice``: the next throw's faces (the dice module's, when it plays)."""
        module = self.sim.playing_module
        if module is not None and not module.absent:
            module.next_faces(*faces)
        else:
            self.sim.dice.queue(faces)
