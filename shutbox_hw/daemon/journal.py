"""The daemon's journal: each step's game events written to the record, held on a
storage fault, tried again, and reported.

The loop (:mod:`.daemon`) hands it a step's events with :meth:`Journal.save`
and queues what it answers, the disk's fault or recovery, as part of that very
step (so the screen the step draws says it). The journal knows no queue, no
controller and no screen:

- every event is written after those still unsaved, all in one transaction,
  with the audit counts (:class:`~..store.read.audit.Tally`) when they ride;
- on a storage fault they all stay in memory, in order, with the time each
  happened (the outbox sends them with it); the first write that passes
  clears the fault, said once each way;
- while the fault lasts nothing is tried before :attr:`Journal.retry_at`
  (a locked database costs one bounded wait per try); the loop registers that
  deadline and, once it is past, sends an empty step to try again;
- a bug in the code that writes (not the disk) is never silent: it is shown as
  the software's fault, its events are dropped (retrying them would block every
  later write) and the next write that passes clears it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from ..base.events import InputFault
from ..game.model.events import AnyGameEvent, TurnEnded
from ..store import StorageFault, Store
from ..store.read.audit import Tally

log = logging.getLogger("shutbox_hw")
# while the disk refuses writes, they are tried again this often (and with the
# next step after that): a locked database costs one bounded wait per try
STORE_RETRY_MS = 1000
# a bug in the code that writes the record (not the disk): shown as the software's fault
BUG_PART = "software"
BUG_WORDS = "cannot save: program error"   # the journal has its traceback


class Journal:
    """The record's write side as the daemon's loop sees it (see the module)."""

    def __init__(self, store: Store,
                 on_event: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.store = store
        self.on_event = on_event   # each event reported as JSON (the simulator prints it)
        self.tally = Tally()   # switch changes and faults for the audits, written in batches
        self.unsaved: list[AnyGameEvent] = []   # events the disk has not taken yet, in order
        self.unsaved_at: list[float] = []       # when each happened (the store's clock)
        self.retry_at: int | None = None        # not tried again before (while held)
        self._fault: str | None = None          # what the box says is wrong with the disk
        self._bug_shown = False   # a bug in the write (not the disk) is on the box

    def opened(self, now: int) -> InputFault | None:
        """Power on: a store that opened degraded (a full disk) is a storage fault
        from the first frame; its events are held until the disk takes writes."""
        if self.store.fault is None:
            return None
        self.retry_at, self._fault = now + STORE_RETRY_MS, self.store.fault
        return cannot_save(self.store.fault, now)

    def problem(self) -> str:
        """What the disk said the last time it refused a write ("" if it did not)."""
        return self._fault or ""

    def retry_due(self, now: int) -> bool:
        """The disk may take the unsaved events now (their retry time is past)."""
        return self.retry_at is not None and now >= self.retry_at

    def save(self, events: tuple[AnyGameEvent, ...], now: int) -> list[InputFault]:
        """Write this step's events after those still unsaved, all in one go.

        Answers what the box must say as part of this step, in order: the disk
        refusing (once for the same problem), a bug in the write (once), or the
        bug's and then the disk's recovery when the write passed.
        """
        at = [self.store.now()] * len(events)
        if (self.unsaved or self._fault) and self.retry_at is not None and now < self.retry_at:
            self.unsaved += events  # not before the retry time: a lock waits each try
            self.unsaved_at += at
            return []
        batch, happened = self.unsaved + list(events), self.unsaved_at + at
        if not batch and self._fault is None:
            return []
        try:
            # the audit counts ride with a turn's end, a fault or when due, not with
            # every throw: their page in each throw's commit was a third of its frames
            rides = self.tally.due() or any(isinstance(e, TurnEnded) for e in batch) \
                or any(key.startswith("fault:") for key in self.tally.pending)
            self.store.record_all(batch, self.tally if rides else None, happened)
        except StorageFault as error:
            self.unsaved, self.unsaved_at = batch, happened
            self.retry_at = now + STORE_RETRY_MS
            log.error("could not save %d events: %s", len(batch), error)
            return self._refused(str(error), now)
        except Exception:  # a bug, not the disk: retrying would block every later write
            log.exception("could not save %s", [e.name for e in batch])
            self.unsaved, self.unsaved_at, self.retry_at = [], [], None
            if self._bug_shown:
                return []
            self._bug_shown = True   # never silent on the box, and never called the disk's
            return [InputFault(BUG_PART, BUG_WORDS, now)]
        self.unsaved, self.unsaved_at, self.retry_at = [], [], None
        said: list[InputFault] = []
        if self._bug_shown:
            self._bug_shown = False
            said.append(InputFault(BUG_PART, "saved", now, ok=True))
        if self._fault is not None:
            self._fault = None
            log.info("storage: saved again")
            said.append(InputFault("storage", "saved", now, ok=True))
        return said

    def _refused(self, problem: str, now: int) -> list[InputFault]:
        """The disk refused a write: said at once (once for the same problem)."""
        if problem == self._fault:
            return []
        self._fault = problem
        return [cannot_save(problem, now)]

    def write_counts(self) -> None:
        """The audit counts ride in the step's own transaction (:meth:`save`);
        a step that wrote no game event writes them only every FLUSH_EVERY
        changes: never a write of their own per switch edge."""
        if not self.tally.pending or self._fault is not None:
            return
        if self.tally.due():
            try:
                self.store.write_counts(self.tally)
            except StorageFault as error:  # kept in memory; the game's writes report the disk
                log.warning("audit counts not saved yet: %s", error)

    def report(self, events: tuple[AnyGameEvent, ...]) -> None:
        """Report the step's events, after their write: the systemd journal, one JSON
        object a line (greppable), and ``on_event`` (the simulator prints them)."""
        for event in events:
            data = event.as_json()
            log.info("%s", json.dumps(data))
            if self.on_event is not None:
                self.on_event(data)


def cannot_save(problem: str, now: int) -> InputFault:
    """The disk's fault as the box shows it."""
    return InputFault("storage", f"cannot save: {problem}", now)
