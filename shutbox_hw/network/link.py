"""The box's link to its MQTT broker: what the publisher and each session share.

The publisher (:mod:`.publisher`) is the thread that keeps the link up: it owns the
wake pipe and the stop flag, opens one :class:`~.session.Session` after another, and
waits between attempts. A session is one connection over the link. Both hold one
:class:`Link` and neither reads the other: the link carries

- what a connection is made with: the paho-mqtt module, the broker, ``[network]``, the
  box's id, its client id (a suffix of its own each run), its topics, the protocol
  (MQTT 5 until the broker says it speaks only 3.1.1) and the record's epoch;
- the thread's signals as a session needs them: the wake pipe's read end, whether the
  publisher is stopping, and ``drained`` (set once nothing is queued or in flight);
- how the link stands: the problem (for the journal), the fault shown on the box once
  the broker has been away for ``grace_s`` (:mod:`.health`), the faults of the events
  sent (the retained state's), the counts (sent, resent, refused, roster entries not
  kept), the back-off's attempt, and the retained state's payload (:meth:`Link.state`);
- :class:`Ending`: how a session ended, which the publisher acts on.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import __version__
from ..config.network import Broker, NetworkConfig
from ..store.disk.backup import stamp
from ..store.tables.game_record import latest_ended
from .health import PART, Health

log = logging.getLogger("shutbox_hw.mqtt")

ACL_CAVEAT = ("the broker does not speak MQTT 5: using MQTT 3.1.1, where the broker's "
              "acknowledgement carries no reason (a message its ACL drops looks delivered: "
              "let the ACL allow shutbox/{box}/#)")


@dataclass(frozen=True)
class Ending:
    """How one session ended: whether the broker had accepted the connection, the
    ``(seq, reason)`` of an event it refused, the length of a packet from it that was
    cut off, and whether it asked for MQTT 3.1.1 (then the next connects at once)."""

    accepted: bool = False
    refused: tuple[int, str] | None = None
    too_big: int | None = None
    downgrade: bool = False


class Link:
    """The link of one publisher: see the module's text. ``wake_fd`` and ``stop`` are the
    publisher's wake pipe (its read end) and stop flag; ``wake_box`` wakes the box's loop
    when there is a fault to show or one is over."""

    def __init__(self, mqtt: Any, network: NetworkConfig, client_id: str,
                 topics: dict[str, str], *, wake_fd: int, stop: threading.Event,
                 clock: Callable[[], float], grace_s: float, refresh_s: float,
                 wake_box: Callable[[], None] | None = None) -> None:
        broker = network.broker
        assert broker is not None, "a publisher needs [network] mqtt"
        self.mqtt = mqtt                     # the paho-mqtt client module
        self.broker: Broker = broker
        self.network = network
        self.box = network.box_id
        self.client_id = client_id
        self.topics = topics
        self.epoch = ""                      # the record's (store/tables/epoch.py), read at start
        self.v5 = True                       # until the broker says it speaks only 3.1.1
        self.grace_s = grace_s
        self.refresh_s = refresh_s
        self.drained = threading.Event()
        self.health = Health()
        self.faults: dict[str, str] = {}     # device -> detail, from the events sent
        self.problem: str | None = None      # why the broker is not reached (for logs, tests)
        self.sent = 0                        # messages accepted since start
        self.resent = 0                      # games queued again on the league's request
        self.refused = 0                     # events the broker refused (they stay queued)
        self.roster_refused = 0              # league roster entries not kept
        self.attempt = 0                     # the back-off's step between connections
        # [backup]: when the newest copy was taken (None here: backups are off)
        self.last_backup: Callable[[], float | None] | None = None
        self._wake_fd = wake_fd
        self._stop = stop
        self._clock = clock
        self._wake_box = wake_box
        self._refused_seq: int | None = None
        self._down_since: float | None = None

    # ------------------------------------------------------------------ the thread's signals

    @property
    def wake_fd(self) -> int:
        return self._wake_fd

    def stopping(self) -> bool:
        return self._stop.is_set()

    def drain_pipe(self) -> None:
        try:
            while os.read(self._wake_fd, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def now(self) -> float:
        """The wall clock (the time a resent game is queued at)."""
        return self._clock()

    # ------------------------------------------------------------------ how it stands

    def say(self, text: str) -> None:
        """The problem now, logged when it is a new one."""
        if text != self.problem:
            log.warning("MQTT: %s", text)
        self.problem = text

    def problem_now(self, text: str) -> None:
        """A problem that is a fault at once (refused credentials, a secret file)."""
        self.say(text)
        self._tell_box(text)

    def unreachable(self, text: str) -> None:
        """The broker is away: a fault once it has been away for ``grace_s``."""
        self.say(text)
        now = time.monotonic()
        if self._down_since is None:
            self._down_since = now
        if now - self._down_since >= self.grace_s:
            self._tell_box(text)

    def _tell_box(self, text: str) -> None:
        if self.health.fault is None:
            self.health.bad(text)
            if self._wake_box is not None:
                self._wake_box()

    def speak_311(self) -> None:
        if self.v5:
            self.v5 = False
            log.warning("MQTT: %s", ACL_CAVEAT.format(box=self.box))

    def connected(self) -> None:
        """The broker accepted the connection."""
        if self.problem is not None:
            log.info("MQTT: connected to %s:%d (MQTT %s)", self.broker.host, self.broker.port,
                     "5" if self.v5 else "3.1.1")
        self.problem, self._down_since = None, None
        if self._refused_seq is None:
            self.attempt = 0

    def working(self) -> None:
        """A round of sending went through (the session, after each): the fault,
        if one was shown, is over unless the broker refused an event still queued."""
        if self._refused_seq is None:
            self._all_well()

    def _all_well(self) -> None:
        if self.health.fault is not None:
            self.health.good()
            if self._wake_box is not None:
                self._wake_box()

    def was_refused(self, seq: int, reason: str) -> None:
        """The broker refused event ``seq`` (its ACL, a quota): a fault until it takes it."""
        self.refused += 1
        self._refused_seq = seq
        self.problem_now(f"the broker refused event {seq} on {self.topics['event']} "
                         f"({reason}): it stays in the outbox")

    def acknowledged(self, seqs: list[int]) -> None:
        """Rows the broker accepted (and the session deleted)."""
        self.sent += len(seqs)
        if self._refused_seq is not None and seqs[-1] >= self._refused_seq:
            self._refused_seq, self.attempt = None, 0   # taken (or dropped by the limits)
            self._all_well()

    def roster_problem(self, text: str) -> None:
        """A league roster entry not kept (the league's to mend: logged, the box plays
        on with the roster it holds)."""
        self.roster_refused += 1
        log.warning("MQTT: %s", text)

    # ------------------------------------------------------------------ the retained state

    def note_event(self, event: str) -> None:
        """An event sent (or about to be): a fault or a recovery changes the state's faults."""
        if event.startswith('{"event":"fault"') or event.startswith('{"event":"recovered"'):
            try:
                data = json.loads(event)
                device = str(data["device"])
            except (ValueError, KeyError, TypeError):
                return
            if data["event"] == "fault":
                self.faults[device] = str(data.get("detail", ""))
            else:
                self.faults.pop(device, None)

    def state(self, db: sqlite3.Connection, live: Callable[[sqlite3.Connection, float],
                                                            dict[str, Any]],
              outbox: Callable[[sqlite3.Connection], dict[str, int]]) -> dict[str, Any] | None:
        """The retained state's payload (without its ``seq``), or None if the
        record cannot be read now (said once; the events go on)."""
        try:
            summary = live(db, self._clock())
            figures = outbox(db)
            latest = latest_ended(db)
        except (ValueError, TypeError, KeyError, IndexError) as error:
            self.say(f"the state cannot be read from the record ({error}): not published")
            return None
        faults = {**self.faults}
        if self.health.fault is not None:
            faults[PART] = self.health.fault
        listed = [{"device": d, "detail": t} for d, t in sorted(faults.items())]
        state = "fault" if listed else "playing" if summary["playing"] else "idle"
        best = summary["tonight"]["best"]
        return {"box": self.box, "epoch": self.epoch, "state": state, "faults": listed,
                "fault_parts": ", ".join(f["device"] for f in listed) or None,
                "games_tonight": summary["tonight"]["games"],
                "best_tonight": None if best is None else best["score"],
                "outbox": figures, "latest_game": latest, "version": __version__,
                "last_backup": stamp(self.last_backup() if self.last_backup else None),
                **summary}
