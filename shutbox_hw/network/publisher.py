"""The MQTT publisher: the outbox sent to the broker in order, each row deleted
once the broker accepted it.

It runs on a thread of its own with its own SQLite connection and its own
select loop over the broker's socket and a wake pipe (the daemon's store
writes one byte after each commit that queued events: a few microseconds on
the box's loop, which never waits for the network). One connection at a time
is a :class:`~.session.Session` (a fresh client, a clean session): after a
drop, sending starts again from the oldest row still queued, so the broker may
see a message twice (same ``seq``) but never out of order, and nothing is
deleted before the broker has accepted it. The publisher and its sessions share
one :class:`~.link.Link` (the connection's settings, the thread's signals, how the
link stands) and never read each other.

The thread is supervised: whatever fails in it (a database locked at start, a
bug) is logged once, shown on the box as a fault of the part ``mqtt``
(:mod:`.health`), and the work starts again after a back-off. A broker that
cannot be reached for :data:`GRACE_S` is a fault too (not the second it takes
a broker to restart); a broker that refuses the box (credentials) or one of
its events (an ACL) is one at once. The back-off between attempts grows to
30 s and starts again only once the broker has accepted a connection (and
taken the event it refused, if it refused one).

Topics (``<box>``: ``[network] box``, default :func:`~shutbox_hw.config.network.default_box_id`):

- ``shutbox/<box>/event``: every event, QoS 1, ``{"box", "epoch", "seq", "at", "event", ...}``
  (``epoch``: the record's, :mod:`shutbox_hw.store.tables.epoch`);
- ``shutbox/<box>/state``: retained, the live summary (:mod:`.live`) with the
  ``seq`` of the last event it includes, the faults and the outbox; after each
  burst of events, and when its figures change with the clock (tonight's window);
- ``shutbox/<box>/status``: retained ``online`` (after the fresh state), and
  ``offline`` as the last will (or on a clean stop): plain words, Home
  Assistant's availability (the one message without the epoch);
- ``shutbox/<box>/game``: each ended game whole, QoS 1, for the league
  (:mod:`shutbox_hw.store.tables.game_record`), queued in the outbox with the events;
  the state's ``latest_game`` is the newest ended game's id, its ``last_backup``
  when the newest ``[backup]`` copy was taken (ISO 8601, null: none or off),
  published again when the worker takes one (:meth:`Publisher.follow_backups`);
- ``shutbox/<box>/resend`` (subscribed): the league asks for games again.
"""

from __future__ import annotations

import logging
import os
import secrets
import select
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..base.events import InputFault
from ..config.network import NetworkConfig
from ..store.tables.epoch import epoch_of
from ..store.tables.outbox import waiting
from .health import Health
from .link import Ending, Link
from .session import MAX_INCOMING, Session

if TYPE_CHECKING:
    from ..store.disk.backup import BackupWorker

log = logging.getLogger("shutbox_hw.mqtt")

BACKOFF_S = (1, 2, 5, 10, 30)   # between attempts to reach the broker, or to start again
BUSY_TIMEOUT_S = 5.0     # this thread may wait for the daemon's writes; the daemon not for it
GRACE_S = 60.0           # a broker away this long is a fault (a restart takes a second)
STOP_WAIT_S = 10.0       # stop() waits this long for the thread
STATE_REFRESH_S = 60.0   # the state looked at again this often (tonight's window moves)


def topics(box: str) -> dict[str, str]:
    base = f"shutbox/{box}"
    return {"event": f"{base}/event", "state": f"{base}/state", "status": f"{base}/status",
            "game": f"{base}/game", "resend": f"{base}/resend",
            "league_join": f"{base}/league/join"}     # a phone joining (claims/league_join.py)


class MqttMissing(Exception):
    """paho-mqtt is not installed (the ``mqtt`` extra)."""


def _paho() -> Any:
    try:
        import paho.mqtt.client as mqtt
    except ImportError:
        raise MqttMissing("[network] mqtt needs paho-mqtt: pip install 'shutbox-hw[mqtt]' "
                          "(events are queued meanwhile)") from None
    return mqtt


class Publisher:
    """Sends the outbox of the database at ``db_path`` to the broker of ``network``:
    the thread that keeps the :class:`~.link.Link` up, one session after another."""

    def __init__(self, db_path: str | Path, network: NetworkConfig,
                 clock: Callable[[], float] = time.time, *, grace_s: float = GRACE_S,
                 refresh_s: float = STATE_REFRESH_S,
                 wake_box: Callable[[], None] | None = None) -> None:
        mqtt = _paho()
        assert network.broker is not None, "a publisher needs [network] mqtt"
        box = network.box_id
        self.db_path = Path(db_path)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._closed = False
        self._pipe_lock = threading.Lock()
        # a suffix of its own each run: two processes never take each other's session
        self.link = Link(mqtt, network, f"shutbox-{box}-{secrets.token_hex(4)}", topics(box),
                         wake_fd=self._wake_r, stop=self._stop, clock=clock, grace_s=grace_s,
                         refresh_s=refresh_s, wake_box=wake_box)
        self._thread = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self.restarts = 0                    # times the supervisor started the work again
        self._crash: str | None = None       # the last failure logged with its traceback

    # ------------------------------------------------------------------ what the link says

    @property
    def problem(self) -> str | None:
        """Why the broker is not reached (for logs, tests); None: it is."""
        return self.link.problem

    @property
    def sent(self) -> int:
        """Messages the broker accepted since start."""
        return self.link.sent

    @property
    def resent(self) -> int:
        """Games queued again on the league's request."""
        return self.link.resent

    @property
    def refused(self) -> int:
        """Events the broker refused (they stay queued)."""
        return self.link.refused

    @property
    def roster_refused(self) -> int:
        """League roster entries not kept."""
        return self.link.roster_refused

    @property
    def epoch(self) -> str:
        """The record's epoch, on every message (read once the store made it)."""
        return self.link.epoch

    @property
    def faults(self) -> dict[str, str]:
        """The box's faults the events sent say (device -> detail)."""
        return self.link.faults

    @property
    def v5(self) -> bool:
        return self.link.v5

    @property
    def client_id(self) -> str:
        return self.link.client_id

    @property
    def mqtt(self) -> Any:
        return self.link.mqtt

    @property
    def health(self) -> Health:
        return self.link.health

    @property
    def wake_fd(self) -> int:
        return self._wake_r

    def drain_pipe(self) -> None:
        self.link.drain_pipe()

    def state(self, db: sqlite3.Connection, live: Callable[[sqlite3.Connection, float],
                                                            dict[str, Any]],
              outbox: Callable[[sqlite3.Connection], dict[str, int]]) -> dict[str, Any] | None:
        """The retained state's payload (:meth:`.link.Link.state`)."""
        return self.link.state(db, live, outbox)

    # ------------------------------------------------------------------ the loop's side

    def start(self) -> Publisher:
        self._thread.start()
        return self

    def wake(self) -> None:
        """New rows are queued (called on the daemon's thread: one non-blocking write)."""
        with self._pipe_lock:
            if self._closed:
                return   # its pipe is gone (and the number may belong to another file now)
            try:
                os.write(self._wake_w, b"\0")
            except (BlockingIOError, OSError):
                pass  # the pipe is full: the thread is awake anyway

    def reports(self, now_ms: int) -> list[InputFault]:
        """The publisher's faults and recoveries since the last look (the box's loop)."""
        return self.link.health.take(now_ms)

    def follow_backups(self, worker: BackupWorker) -> None:
        """The state carries the newest copy's time, and is looked at again (published
        if it changed) each time ``worker`` takes one: no loop of its own."""
        self.link.last_backup = lambda: worker.last
        worker.on_copy = self.wake

    def stop(self, drain_s: float = 0.0) -> int:
        """Stop, after up to ``drain_s`` seconds for the queue to empty; how many wait still."""
        if drain_s > 0 and self._thread.is_alive():
            self.link.drained.clear()
            self.wake()
            self.link.drained.wait(drain_s)
        self._stop.set()
        self.wake()
        self._thread.join(STOP_WAIT_S)
        if not self._thread.is_alive():   # never close the pipe under a running select:
            self._close_pipe()            # a thread still busy closes it as it ends
        return self._waiting_now()

    def _close_pipe(self) -> None:
        with self._pipe_lock:
            if not self._closed:
                self._closed = True
                for fd in (self._wake_r, self._wake_w):
                    os.close(fd)

    def _waiting_now(self) -> int:
        try:
            db = sqlite3.connect(self.db_path, timeout=BUSY_TIMEOUT_S)
            try:
                return waiting(db)
            finally:
                db.close()
        except sqlite3.Error:
            return -1

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        """The supervisor: the work, started again after any failure."""
        try:
            self._supervise()
        finally:
            if self._stop.is_set():
                self._close_pipe()

    def _supervise(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                self._work()
                return
            except Exception as error:   # whatever it is, the box plays on and we retry
                text = f"the publisher failed ({type(error).__name__}: {error}); it starts again"
                if text != self._crash:     # the same failure again: not logged again
                    log.exception("MQTT: %s", text)
                self._crash = self.link.problem = text
                self.link.health.bad(text)
                self.restarts += 1
                self._sleep(BACKOFF_S[min(failures, len(BACKOFF_S) - 1)])
                failures += 1

    def _work(self) -> None:
        db = sqlite3.connect(self.db_path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                             check_same_thread=True)
        try:
            # deletes need no fsync of their own: a lost delete only sends a row twice
            db.execute("PRAGMA synchronous=NORMAL")
            self._await_outbox(db)
            while not self._stop.is_set():
                session = Session(self.link, db)
                try:
                    if session.connect():
                        session.serve()
                finally:
                    ending = session.close()
                self._ended(ending)
                if self._stop.is_set():
                    break
                if ending.downgrade:
                    continue   # at once, in 3.1.1
                self._sleep(BACKOFF_S[min(self.link.attempt, len(BACKOFF_S) - 1)])
                self.link.attempt += 1
        finally:
            db.close()

    def _ended(self, ending: Ending) -> None:
        """What a session's end means for the link (the fault, the journal)."""
        if ending.too_big is not None:
            self.link.problem_now(f"the broker sent a packet of {ending.too_big} bytes "
                                  f"(the box takes {MAX_INCOMING} at most): cut off, and "
                                  f"connected again in a while")
        elif ending.refused is not None:
            self.link.was_refused(*ending.refused)
        elif ending.accepted and not self._stop.is_set():
            self.link.unreachable("the broker closed the connection")

    def _await_outbox(self, db: sqlite3.Connection) -> None:
        """Wait for the store to have made the outbox and the record's epoch (it
        opens, and migrates, after us)."""
        while not self._stop.is_set():
            epoch = epoch_of(db)
            if epoch is not None:
                self.link.epoch = epoch
                return
            select.select([self._wake_r], [], [], 1.0)
            self.link.drain_pipe()

    def _sleep(self, seconds: float) -> None:
        """Wait, cut short by a stop (not by new rows: the broker is away)."""
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            select.select([self._wake_r], [], [], max(0.0, end - time.monotonic()))
            self.link.drain_pipe()
