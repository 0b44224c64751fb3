"""The simulated box's disk: it can fill up, and the power can go mid-write.

The database is a real SQLite file; what is simulated is only *when* the
disk refuses a write (``disk-full`` / ``disk-ok``) and *when* the power goes
(``cut-after-writes N``). Both act through the store's two hooks, so the
daemon sees exactly what a full disk or a pulled plug gives it: SQLite's
"database or disk is full" on commit, or a connection that never commits.
Each sync also takes the time its :class:`~..hal.simulated.timing.DiskProfile`
draws (``disk fast|sd-card|stall MS``): the loop's virtual clock moves on by
it, while switches and the expander's reader go on in the world.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...hal.simulated.timing import DiskProfile, SyncLatency
from ...store import Store


class PowerCut(BaseException):
    """The plug was pulled: nothing after this point of the daemon runs.

    A BaseException, so no ``except Exception`` in the daemon can swallow it.
    ``committed``: the events of a commit the cut came right after (on disk,
    never reported by the daemon).
    """

    def __init__(self, committed: Sequence[Any] | None = None) -> None:
        super().__init__()
        self.committed = list(committed or ())


def disk_full_error() -> sqlite3.OperationalError:
    error = sqlite3.OperationalError("database or disk is full")
    error.sqlite_errorcode = sqlite3.SQLITE_FULL
    error.sqlite_errorname = "SQLITE_FULL"
    return error


class SimDisk:
    """Counts the daemon's writes and refuses them while full."""

    def __init__(self, world: Any = None, rng: random.Random | None = None) -> None:
        self.world = world
        self.latency = SyncLatency(DiskProfile(), rng or random.Random(0))
        self.syncs = 0
        self.full = False
        self.writes = 0                      # every event written and every commit
        self.cut_at: int | None = None       # the power goes right after this write

    def open_store(self, path: str | Path) -> Store:
        store = Store(path, check_write=self._check)
        store.on_write = self._wrote
        return store

    def cut_after(self, count: int) -> None:
        self.cut_at = self.writes + count

    def set_profile(self, profile: DiskProfile) -> None:
        self.latency.set(profile)

    def _check(self) -> None:
        """Before each commit (and the open for writing): the sync's time passes."""
        self.syncs += 1
        ms = self.latency.next_ms()
        if ms and self.world is not None:
            self.world.spend_ms(ms)
        if self.full:
            raise disk_full_error()

    def _wrote(self, committed: Sequence[Any] | None) -> None:
        self.writes += 1
        if self.cut_at is not None and self.writes >= self.cut_at:
            self.cut_at = None
            raise PowerCut(committed)
