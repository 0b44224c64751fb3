"""The box's event loop: hardware ports in, controller, effects out.

One loop serves the real box (monotonic clock, real adapters, systemd) and
the simulator (virtual clock, simulated adapters): only what is plugged into
:class:`Box` differs. The loop is single-threaded; adapters whose hardware
calls back on other threads only record edges there and wake the loop (see
:class:`~.hal.poll.Waker`), which otherwise sleeps until the earliest
deadline in the box's :class:`~.scheduler.Scheduler` (:attr:`Box.timers`):
every port registers its own there, and the daemon registers the
controller's next deadline, the disk's retry and the hints' next look after
each step.

Each input, and each piece of work a step leads to, waits in one queue
(:mod:`.steps`) and is handled in turn: nothing is handed back to the
controller while a step is being carried out or saved.

A step's events are written, held on a storage fault and reported by the
journal (:mod:`.journal`); tonight's figures, the audits, the high scores and
the roster are read back for the screens, and the box's picture written for
the TV, by the read model (:mod:`.read_model`). The loop only says when.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..base.events import (
    ButtonLevel,
    ButtonPressed,
    DiceRolled,
    Event,
    Figures,
    FlapChanged,
    InputFault,
    JoinCode,
    SeatClaim,
    ServiceRequested,
    Tick,
    TurnRated,
)
from ..base.i18n import set_language
from ..base.lifecycle import Closable
from ..base.scheduler import Scheduler
from ..config.config_file import Config
from ..config.settings import config_values, effective
from ..game.display.screens import Screen
from ..game.display.shown import shown
from ..game.machine.controller import Controller
from ..game.machine.effects import Effect
from ..game.model.events import AnyGameEvent, SettingChanged, TurnEnded
from ..game.referee.advice import Advisor
from ..game.referee.advice import ready as advice_ready
from ..hal.adapters.dice_source import DiceSource
from ..hal.contracts.clock import Clock
from ..hal.contracts.ports import Buttons, Display, FlapBank, Indicators
from ..skill.hints import advisor_for as solver_advisor
from ..store import Store
from ..store.disk.mounts import PART as FORGETS_PART
from ..store.disk.mounts import WORDS as FORGETS_WORDS
from ..store.disk.mounts import explain as advice_words
from .journal import STORE_RETRY_MS as STORE_RETRY_MS  # (sim/runner.py imports it from here)
from .journal import Journal
from .read_model import ReadModel
from .work import Carry, Queued, ReadFigures, Reconfigure, Roll, Step, WorkQueue

if TYPE_CHECKING:
    from ..claims.desk import Desk
    from ..claims.server import ClaimServer
    from ..skill.rater import RaterPort

log = logging.getLogger("shutbox_hw")
HINTS_LOOK_MS = 100   # while the hints' tables are solved off the loop, look this often


@dataclass
class Box(Closable):
    """What the daemon is wired to: the real box or the simulated one, with the
    scheduler its parts register their deadlines in."""
    flaps: FlapBank
    buttons: Buttons
    indicators: Indicators
    display: Display
    dice: DiceSource
    timers: Scheduler = field(default_factory=Scheduler)

    def _close(self) -> None:
        for part in (self.flaps, self.buttons, self.indicators, self.display, self.dice):
            try:
                part.close()
            except Exception:  # closing is best effort; the box is going down
                log.exception("closing %s", type(part).__name__)


class Daemon:
    """Runs one :class:`Controller` against one :class:`Box`."""

    def __init__(self, config: Config, box: Box, store: Store, clock: Clock, *,
                 advisor_for: Callable[[Config], Advisor | None] = solver_advisor,
                 on_event: Callable[[dict[str, Any]], None] | None = None,
                 render: Callable[[Any], Any] | None = None,
                 rater: RaterPort | None = None,
                 claims: ClaimServer | None = None) -> None:
        self.base_config = config          # the config file ...
        self.settings = store.settings()   # ... and the box's adjustments over it
        self.config = config               # the display was made with its contrast
        self.advisor_for = advisor_for
        self.box = box
        self.store = store
        self.clock = clock
        self.rater = rater   # the move accuracy, rated off the loop (skill/rater.py)
        if render is None:
            from ..render import render as render_screen
            render = render_screen
        self.render = render
        self.controller = Controller(self.config.rules, self.config.game)
        # the box's scheduler: the loop sleeps until its earliest deadline
        self.timers = box.timers
        self._timers = {name: self.timers.timer(name) for name in (
            "controller", "store retry", "hints")}
        self._configure()
        # the step's events written, held on a storage fault and reported (journal.py)
        self.journal = Journal(store, on_event)
        self.tally = self.journal.tally   # switch changes and faults for the audits
        # tonight's figures, the audits, the high scores and the roster read back for the
        # screens, and the box's picture written for the TV (read_model.py)
        self.reads = ReadModel(store)
        self._queue = WorkQueue()
        self._screen_due: tuple[Screen, int, bool] | None = None  # drawn as its step ends
        # the phones' join codes and claims (claims/desk.py), with a socket
        self.desk: Desk | None = None
        if claims is not None:
            from ..claims.desk import Desk
            self.desk = Desk(claims, self.timers.timer("join code"))

    def start(self) -> None:
        """Power on: resume the unfinished game, read the flaps, show the box.

        A store that opened degraded (a full disk) is a storage fault from the
        first frame; the box plays on and saves once the disk takes writes.
        """
        now = self.clock.now_ms()
        saved = self.store.unfinished_game()
        effects = self.controller.start(now, self.box.flaps.shut_mask(), saved)
        degraded = self.journal.opened(now)
        if degraded is not None:   # part of power on, as its first frame
            effects += self.controller.handle(degraded)
        forgets = getattr(self.store, "forgets", None)
        if forgets:   # the record on RAM: said from the start
            log.warning("storage: %s", advice_words(self.store.path, forgets))
            effects += self.controller.handle(InputFault(FORGETS_PART, FORGETS_WORDS, now))
        salvaged = getattr(self.store, "salvaged", None)
        if salvaged is not None:   # a damaged record moved aside at start: shown, counted
            self.tally.fault("storage")
            effects += self.controller.handle(InputFault("storage", salvaged.words(), now))
        self._queue.add(Queued(Carry(tuple(effects)), now))
        self._queue.add(Queued(ReadFigures(), now, activity=False))
        self._drain(now)
        self._phones(now)
        self._schedule()

    def feed(self, event: Event) -> None:
        """An input from the box: handled, with all the work it leads to."""
        if isinstance(event, InputFault) and not event.ok:
            self.tally.fault(event.source)
        self._queue.add(Queued(event, event.at_ms,
                               activity=not isinstance(event, (Tick, Figures, JoinCode))))
        self._drain(event.at_ms)

    def _drain(self, now: int) -> None:
        """Handle the queued work in order (:mod:`.steps`): each item is one step,
        and the work it leads to waits in the queue behind it."""
        for item in self._queue.drain(self._draw):
            self._carry_out(Step.of(self._effects_of(item)), item)
        self.box.dice.expect(self.controller.dice_wanted(), now)

    def _effects_of(self, item: Queued) -> list[Effect]:
        """What the controller answers to one queued item."""
        now, work = item.at_ms, item.work
        if isinstance(work, Carry):
            return list(work.effects)
        if isinstance(work, Reconfigure):
            self._adjusted(work.changes)
            return self.controller.refresh()
        if isinstance(work, ReadFigures):
            if work.settings:
                self.settings = self.store.settings()
                self._configure()
            # the high scores change with a game and with a player removed (whose
            # adjustments are read again), not with the menu opening or a reset
            figures = self.reads.figures(now, work.audits,
                                         scores=not work.audits or work.settings)
            out = self.controller.handle(figures) if figures is not None else []
            roster = self.reads.roster(now)
            return out + (self.controller.handle(roster) if roster is not None else [])
        if isinstance(work, Roll):
            faces = self.box.dice.roll(work.count)
            return [] if faces is None else self.controller.handle(DiceRolled(tuple(faces), now))
        return self.controller.handle(work)

    # ------------------------------------------------------------------ settings, figures

    def _configure(self) -> None:
        """Lay the box's adjustments over the config file and hand them to the
        controller (and the display its contrast)."""
        contrast = self.config.hardware.display.contrast
        self.config, _ = effective(self.base_config, self.settings)
        set_language(self.config.box.language)   # the next screen speaks it
        if self.config.hardware.display.contrast != contrast:
            self.box.display.set_contrast(self.config.hardware.display.contrast)
        advisor = self.advisor_for(self.config)
        self._advisor_pending = advisor is not None and not advice_ready(advisor)
        self.controller.configure(self.config.rules, self.config.game, advisor,
                                  config_values(self.config))

    def _adjusted(self, changes: tuple[SettingChanged, ...]) -> None:
        """Adjustments made on the menu: in force at once (and already on disk)."""
        for change in changes:
            if change.value is None:
                self.settings = {}
            else:
                self.settings[change.key] = (list(change.value) if isinstance(change.value, tuple)
                                             else change.value)
        self._configure()

    def step(self) -> None:
        """Poll every port once and hand what happened to the controller."""
        now = self.clock.now_ms()
        touched = False
        for event in [*self.box.flaps.poll(now), *self.box.buttons.poll(now)]:
            touched = touched or isinstance(event, (FlapChanged, ButtonPressed, ButtonLevel,
                                                    ServiceRequested))
            if isinstance(event, FlapChanged):
                self.tally.switch(f"flap {event.tile}")
            elif isinstance(event, ButtonPressed):
                self.tally.switch(event.button.upper())
            self.feed(event)
        if touched:
            self.box.display.wake(now)
        deadline = self.controller.next_deadline_ms()
        if deadline is not None and now >= deadline:
            self.feed(Tick(now))
        if self.journal.retry_due(now):
            self._queue.add(Queued(Carry(), now))  # the disk may take the unsaved events now
            self._drain(now)
        if self._advisor_pending and advice_ready(self.controller.advisor):
            self._advisor_pending = False   # solved on the worker: the hints now
            self._queue.add(Queued(Carry(tuple(self.controller.hints_ready())), now,
                                   activity=False))
            self._drain(now)
        elif self._advisor_pending and getattr(self.controller.advisor, "failed", None):
            self._advisor_pending = False   # logged; the hints stay "not ready"
        self._take_ratings(now)
        self.box.indicators.poll(now)
        for fault in self.box.display.poll(now):   # lost or back: shown like any fault
            self.feed(fault)
        for thrown in self.box.dice.poll(now):     # the module's throws and faults
            self.feed(thrown)
        # the MQTT publisher's own faults (network/hookup.py's Outbox), shown like any
        reports = getattr(self.store.outbox, "faults", None)
        for fault in reports(now) if reports is not None else ():
            self.feed(fault)
        backups = getattr(self.store, "backups", None)   # [backup]: a copy that failed
        for fault in backups.faults(now) if backups is not None else ():
            self.feed(fault)
        self._phones(now)
        self._schedule()

    def _take_ratings(self, now: int) -> None:
        """The turns the rater has rated: with ``[game] show_accuracy``, those of the game
        under way go to the controller (its turn-end screen shows them)."""
        if self.rater is None:
            return
        rated = [TurnRated(r.seat, r.round, r.tally.best, r.tally.moves, now)
                 for r in self.rater.reports() if r.game_id == self.store.game_id]
        if rated and self.config.game.show_accuracy:
            for event in rated:
                self._queue.add(Queued(event, now, activity=False))
            self._drain(now)

    def _phones(self, now: int) -> None:
        """A new join code when one is due, and the phones' claims, each a step of
        the one queue, answered with what the controller decided (claims/desk.py)."""
        if self.desk is None:
            return
        events, pending = self.desk.due(now, self.controller)
        waiting = iter(pending)
        for event in events:
            self.controller.last_claim = None
            self.feed(event)
            if isinstance(event, SeatClaim):
                self.desk.answer(next(waiting), self.controller.last_claim)
        self.desk.schedule(self.controller)

    def _schedule(self) -> None:
        """Register what the daemon's own parts next need the loop for: the
        controller's deadline (a pure query of the game), the disk's retry,
        the next look at the hints' solver."""
        timers = self._timers
        timers["controller"].at(self.controller.next_deadline_ms())
        timers["store retry"].at(self.journal.retry_at)
        timers["hints"].at(self.clock.now_ms() + HINTS_LOOK_MS if self._advisor_pending else None)

    def storage_problem(self) -> str:
        """What the disk said the last time it refused a write ("" if it did not)."""
        return self.journal.problem()

    @property
    def on_event(self) -> Callable[[dict[str, Any]], None] | None:
        """Called with each event as JSON once it is written (the simulator prints it)."""
        return self.journal.on_event

    @on_event.setter
    def on_event(self, report: Callable[[dict[str, Any]], None] | None) -> None:
        self.journal.on_event = report

    @property
    def unsaved(self) -> list[AnyGameEvent]:
        """The events the disk has not taken yet, in order (held by the journal)."""
        return self.journal.unsaved

    def _carry_out(self, step: Step, item: Queued) -> None:
        """One step's effects in :class:`~.steps.Step`'s order; what they lead to
        is queued behind it. The screen is drawn when the step is over."""
        now = item.at_ms
        if step.lights is not None:
            self.box.indicators.show(step.lights, now)
        # the disk's answer (a fault, a recovery) is said as part of this very step
        for said in self.journal.save(step.events, now):
            self._queue.add(Queued(said, now, item.activity, same_step=True))
        if self.rater is not None and any(isinstance(e, TurnEnded) for e in step.events):
            self.rater.wake()   # after the commit: the turn is in the record to be rated
        self.journal.write_counts()
        self.journal.report(step.events)
        if step.screen is not None:
            self._screen_due = (step.screen, now, item.activity)
        for work in step.leads_to(now):
            self._queue.add(work)

    def _draw(self) -> None:
        """The last screen of the step just over (the disk's answer to its write
        had its say first)."""
        if self._screen_due is not None:
            screen, now, activity = self._screen_due
            self._screen_due = None
            self.box.display.show(self.render(screen), now, activity)
        # the picture the box now shows, for the TV and Home Assistant (when it changed)
        self.reads.mirror(shown(self.controller.state, self.controller.shown))
