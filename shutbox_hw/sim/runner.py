"""The simulated box on a virtual clock: the real daemon, simulated hardware.

:class:`SimRunner` boots a :class:`~shutbox_hw.daemon.daemon.Daemon` on a
:class:`~.box.SimulatedBox`, can cut the power and boot it again, and wires the
simulator's parts around it: the virtual time (:mod:`.clock`), the simulated person
who moves flaps and presses buttons (:mod:`.person`) and a script's lines carried
out on them (:mod:`.script_run`). Both the scripted and the interactive simulator
drive this one class; its person's acts are offered here too (``runner.press``).

It wires what the daemon on a Pi wires (``commands/box/run.py``): a rater (``rater``)
and the phones' claims socket (``claims_path``); the sim command passes both when it
has a ``--db``, and a test that does not want one leaves it out.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

from .. import render as render_package
from ..claims.league import Vetting
from ..claims.league_join import LeagueJoins
from ..claims.server import ClaimServer, ClaimsUnavailable
from ..config.config_file import Config
from ..daemon.daemon import STORE_RETRY_MS, Daemon
from ..game.display.screens import Screen
from ..game.referee.advice import Advisor
from ..skill.hints import ready_advisor_for as solver_advisor
from ..skill.rater import RaterPort
from .box import SimulatedBox
from .clock import VirtualTime
from .parts.disk import PowerCut, SimDisk
from .person import Person
from .script_commands import Step
from .script_run import check_steps as check_steps
from .script_run import run_step

FLUSH_TRIES = 5     # retry periods a script's end waits for the disk to take what is unsaved


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
        self.db_path = db_path
        self.on_event = on_event
        self.advisor_for = advisor_for
        self.sim = SimulatedBox(config, seed=seed, frames_dir=frames_dir)
        self.sim.view.db = db_path
        self.world = self.sim.world
        self.disk = SimDisk(self.world, random.Random(seed))
        self.power_cuts = 0
        # the display's settling looked up at each call, not bound now: a test swaps it
        self.time = VirtualTime(self.world, self._daemon_step, lambda: self.sim.settle_display(),
                                realtime=realtime, wakeable=lambda: self.claims is not None)
        self.person = Person(self.sim, self.time, config, db_path, lambda: self.power_cuts)
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
        self.time.wake()

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

    def _daemon_step(self) -> None:
        """One poll of the daemon (the virtual time's step); a power cut
        (``cut-after-writes``) boots a new one, and the person puts right what
        the box lost."""
        try:
            self.daemon.step()
        except PowerCut as cut:
            self._cut(cut)
            self._boot()
            self.person.put_right()

    # ------------------------------------------------------------------ a script's end

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

    def run(self, step: Step) -> None:
        """Carry out one script line (:func:`.script_run.run_step`)."""
        run_step(self, step)

    # ------------------------------------------------------------------ the person's acts
    # (the interactive simulator, the world file and the tests ask the runner)

    def advance(self, ms: int) -> None:
        """Let ``ms`` of virtual time pass (:meth:`.clock.VirtualTime.advance`)."""
        self.time.advance(ms)

    def flap(self, tile: int, shut: bool) -> None:
        self.person.flap(tile, shut)

    def press(self, button: str, long: bool = False) -> None:
        self.person.press(button, long=long)

    def hold_both(self) -> None:
        self.person.hold_both()

    def service(self) -> None:
        self.person.service()

    def start_game(self, players: int) -> None:
        self.person.start_game(players)

    def put_right(self) -> None:
        self.person.put_right()

    def shake(self, line: int = 0) -> None:
        self.person.shake(line)

    def await_module(self) -> None:
        self.person.await_module()

    def throw_next(self, faces: tuple[int, ...]) -> None:
        self.person.throw_next(faces)

    def bounce(self, tile: int, edges: int) -> None:
        self.person.bounce(tile, edges)

    def contact(self, name: int | str, ms: int, *, bounce: bool) -> None:
        self.person.contact(name, ms, bounce=bounce)

    def phase_now(self) -> str:
        return self.person.phase_now()

    def shows(self) -> list[Any]:
        return self.person.shows()
