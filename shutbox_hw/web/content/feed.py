"""The live summary, computed once per change in the record and shared by every TV.

One :class:`LiveFeed` per web process. While at least one stream is open, a
task looks at the database's version every :data:`POLL_S` (in the feed's own
worker thread, never on the event loop) and, when the box has committed
something or tonight's window has moved, computes the summary once; every
stream sends that same text. A summary that cannot be computed is sent as
what it is: ``unavailable`` (the database cannot be read now) or ``damaged``
(a row of the record cannot be read back: reported once in the journal, the
stream stays open and the page says so, like the scorecard's 409).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...network.live import Kept, join_shown, live
from ...players.display import hide_names
from ...store.tables.league_table import shown as league_shown
from ...store.tables.schema import sqlite_problem
from .reader import Reader, Unavailable
from .views import with_accuracy

log = logging.getLogger("shutbox_hw.web")

POLL_S = 0.25        # how often the feed looks at the database's version (1 s at most behind)
RECHECK_S = 60.0     # tonight's figures move with the clock: recomputed at least this often
FAILED_S = 5.0       # after a failure of the feed's own, the next try
# what reading a damaged row raises (bad JSON, a missing or mistyped field)
DAMAGE = (ValueError, TypeError, KeyError, IndexError, AttributeError)


@dataclass(frozen=True)
class Snapshot:
    """One state of the summary: ``kind`` is data, unavailable or damaged; ``text`` JSON."""
    kind: str
    text: str
    serial: int

    def event(self) -> str:
        """As a server-sent event."""
        if self.kind == "data":
            return f"data: {self.text}\n\n"
        return f"event: {self.kind}\ndata: {self.text}\n\n"

    def reason(self) -> str:
        """What an unavailable or damaged summary says (one line)."""
        return str(json.loads(self.text))


class LiveFeed:
    def __init__(self, db_path: Path, clock: Callable[[], float], public: bool = True) -> None:
        self.reader = Reader(db_path)           # used in the feed's thread only
        self.clock = clock
        self.public = public    # [players] public: false, the names as initials only
        self.latest: Snapshot | None = None
        self.stopping = False
        self.listeners = 0
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="shutbox-web-live")
        self._version: Any = object()
        # the summary computed again only when the record or tonight's window moved
        # (``live`` looked up at each computation)
        self._live = Kept(lambda db, now: live(db, now))
        self._at = float("-inf")
        self._reported: str | None = None
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # ----------------------------------------------------------- in the feed's thread

    def _check(self) -> bool:
        """Recompute if the record changed or the window moved; True if the summary did."""
        version, now = self.reader.version(), self.clock()
        if (self.latest is not None and version == self._version
                and now - self._at < RECHECK_S):
            return False
        self._version, self._at = version, now
        kind, text = self._summary(now)
        if self.latest is not None and (kind, text) == (self.latest.kind, self.latest.text):
            return False
        self.latest = Snapshot(kind, text, 1 + (self.latest.serial if self.latest else 0))
        return True

    def _summary(self, now: float) -> tuple[str, str]:
        try:
            db = self.reader.connection()
            summary = with_accuracy(db, self._live(db, now, self._version))
            summary["join"] = join_shown(db)    # the TV's QR code while the box is set up
            summary["league"] = league_shown(db)   # the league's last table (between games)
            return "data", json.dumps(summary if self.public else hide_names(summary))
        except Unavailable as error:
            return "unavailable", json.dumps(str(error))
        except sqlite3.Error as error:
            self.reader.close()
            return "unavailable", json.dumps(f"the database {sqlite_problem(error)}")
        except DAMAGE as error:
            reason = (f"the record has a damaged row ({type(error).__name__}: "
                      f"{' '.join(str(error).split())[:120]}); the live page waits for "
                      f"the next game")
            if reason != self._reported:      # once per damage, not once per reconnect
                log.warning("live summary: %s", reason)
                self._reported = reason
            return "damaged", json.dumps(reason)

    # ----------------------------------------------------------- on the event loop

    async def current(self) -> Snapshot:
        """The summary as it is now (one look at the version; computed only on a change)."""
        if await asyncio.get_running_loop().run_in_executor(self._thread, self._check):
            self._wake()
        assert self.latest is not None
        return self.latest

    async def follow(self, keepalive_s: float) -> AsyncIterator[Snapshot | None]:
        """The summary now and after every change; None after ``keepalive_s`` without one.
        Ends when the web process stops."""
        self.listeners += 1
        if self._task is None:
            self._task = asyncio.create_task(self._watch())
        try:
            sent = 0
            while not self.stopping:
                latest = self.latest
                if latest is None or latest.serial == sent:
                    changed = self._changed
                    try:
                        await asyncio.wait_for(changed.wait(), keepalive_s)
                    except TimeoutError:
                        yield None
                    continue
                sent = latest.serial
                yield latest
        finally:
            self.listeners -= 1

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        failed = ""
        try:
            while self.listeners and not self.stopping:
                try:
                    if await loop.run_in_executor(self._thread, self._check):
                        self._wake()
                except Exception as error:    # a fault of ours: the journal has it once
                    if repr(error) != failed:
                        log.exception("live summary failed; trying again every %g s",
                                      FAILED_S)
                        failed = repr(error)
                    await asyncio.sleep(FAILED_S)
                await asyncio.sleep(POLL_S)
        finally:
            self._task = None

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def stop(self) -> None:
        """The process is stopping: every stream ends now (call on the loop's thread)."""
        self.stopping = True
        self._wake()
