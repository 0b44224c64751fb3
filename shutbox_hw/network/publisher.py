"""The MQTT publisher: the outbox sent to the broker in order, each row deleted on PUBACK.

It runs on a thread of its own with its own SQLite connection and its own
select loop over the broker's socket and a wake pipe (the daemon's store
writes one byte after each commit that queued events: a few microseconds on
the box's loop, which never waits for the network). paho-mqtt is driven
through ``loop_read``/``loop_write``/``loop_misc`` so that nothing else runs
a thread. Each connection is a fresh client with a clean session: after a
drop, sending starts again from the oldest row still queued, so the broker may
see a message twice (same ``seq``) but never out of order, and nothing is
deleted before the broker has acknowledged it.

Topics (``<box>``: ``[network] box``, default the host name):

- ``shutbox/<box>/event``: every event, QoS 1, ``{"box", "seq", "at", "event", ...}``;
- ``shutbox/<box>/state``: retained, the live summary (:mod:`.live`) with the
  ``seq`` of the last event it includes, after each burst of events;
- ``shutbox/<box>/status``: retained ``online``, and ``offline`` as the last
  will (or on a clean stop).
"""

from __future__ import annotations

import json
import logging
import os
import select
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..netconfig import NetworkConfig, read_secret
from ..store.outbox import oldest, sent, waiting
from .discovery import discovery_messages
from .live import live

log = logging.getLogger("shutbox_hw.mqtt")

WINDOW = 20              # messages in flight at once (paho's own default)
KEEPALIVE_S = 30
BACKOFF_S = (1, 2, 5, 10, 30)   # between attempts to reach the broker
BUSY_TIMEOUT_S = 5.0     # this thread may wait for the daemon's writes; the daemon not for it


def topics(box: str) -> dict[str, str]:
    base = f"shutbox/{box}"
    return {"event": f"{base}/event", "state": f"{base}/state", "status": f"{base}/status"}


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
    """Sends the outbox of the database at ``db_path`` to the broker of ``network``."""

    def __init__(self, db_path: str | Path, network: NetworkConfig,
                 clock: Callable[[], float] = time.time) -> None:
        self._mqtt = _paho()
        broker = network.broker
        assert broker is not None, "a publisher needs [network] mqtt"
        self.broker = broker
        self.network = network
        self.box = network.box_id
        self.topics = topics(self.box)
        self.db_path = Path(db_path)
        self._clock = clock
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._closed = False
        self._drained = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self.faults: dict[str, str] = {}     # device -> detail, from the events sent
        self.problem: str | None = None      # why the broker is not reached (for logs, tests)
        self.sent = 0                        # messages acknowledged since start
        # per connection
        self._client: Any = None
        self._connected = False
        self._lost = False
        self._inflight: dict[int, int] = {}   # mid -> seq
        self._acked: list[int] = []           # mids acknowledged (filled by paho's callback)
        self._last_queued = 0                 # the highest seq published on this connection
        self._state_seq = -1                  # the seq the retained state last reflected

    # ------------------------------------------------------------------ the loop's side

    def start(self) -> Publisher:
        self._thread.start()
        return self

    def wake(self) -> None:
        """New rows are queued (called on the daemon's thread: one non-blocking write)."""
        if self._closed:
            return   # its pipe is gone (and the number may belong to another file now)
        try:
            os.write(self._wake_w, b"\0")
        except (BlockingIOError, OSError):
            pass  # the pipe is full: the thread is awake anyway

    def stop(self, drain_s: float = 0.0) -> int:
        """Stop, after up to ``drain_s`` seconds for the queue to empty; how many wait still."""
        if drain_s > 0 and self._thread.is_alive():
            self._drained.clear()
            self.wake()
            self._drained.wait(drain_s)
        self._stop.set()
        self.wake()
        self._thread.join(10)
        self._closed = True
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        return self._waiting_now()

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
        db = sqlite3.connect(self.db_path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                             check_same_thread=True)
        # deletes need no fsync of their own: a lost delete only sends a row twice
        db.execute("PRAGMA synchronous=NORMAL")
        attempt = 0
        try:
            self._await_outbox(db)
            while not self._stop.is_set():
                try:
                    if self._connect():
                        attempt = 0
                        self._serve(db)
                except sqlite3.Error as error:   # locked, or not migrated yet: try again
                    self._problem(f"the database: {error}")
                finally:
                    self._disconnect()
                if self._stop.is_set():
                    break
                delay = BACKOFF_S[min(attempt, len(BACKOFF_S) - 1)]
                attempt += 1
                self._sleep(delay)
        except Exception:  # a bug here must never reach the box: log it and stop sending
            log.exception("MQTT publisher stopped")
        finally:
            db.close()

    def _await_outbox(self, db: sqlite3.Connection) -> None:
        """Wait for the store to have made the outbox (it opens, and migrates, after us)."""
        while not self._stop.is_set() and db.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'outbox'").fetchone() is None:
            select.select([self._wake_r], [], [], 1.0)
            self._drain_pipe()

    def _sleep(self, seconds: float) -> None:
        """Wait, cut short by a stop (not by new rows: the broker is away)."""
        end = time.monotonic() + seconds
        while not self._stop.is_set() and time.monotonic() < end:
            select.select([self._wake_r], [], [], max(0.0, end - time.monotonic()))
            self._drain_pipe()

    def _drain_pipe(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _connect(self) -> bool:
        mqtt = self._mqtt
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"shutbox-{self.box}",
                             clean_session=True, reconnect_on_failure=False)
        client.will_set(self.topics["status"], "offline", qos=1, retain=True)
        try:
            if self.network.credentials_file:
                user, _, password = read_secret(self.network.credentials_file,
                                                "credentials file").partition(":")
                client.username_pw_set(user, password or None)
            if self.broker.tls:
                client.tls_set(ca_certs=self.network.ca_file)
        except (ValueError, OSError) as error:
            self._problem(str(error))
            return False
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        self._connected, self._lost = False, False
        self._inflight, self._acked, self._last_queued = {}, [], 0
        self._state_seq = -1
        try:
            client.connect(self.broker.host, self.broker.port, keepalive=KEEPALIVE_S)
        except (OSError, ValueError) as error:
            self._problem(f"cannot reach {self.broker.host}:{self.broker.port}: "
                          f"{getattr(error, 'strerror', None) or error}")
            return False
        self._client = client
        return True

    def _problem(self, text: str) -> None:
        if text != self.problem:
            log.warning("MQTT: %s", text)
        self.problem = text

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            self._problem(f"the broker refused the connection: {reason}")
            self._lost = True
            return
        self._connected = True
        if self.problem is not None:
            log.info("MQTT: connected to %s:%d", self.broker.host, self.broker.port)
        self.problem = None
        client.publish(self.topics["status"], "online", qos=1, retain=True)
        if self.network.homeassistant:
            for topic, payload in discovery_messages(self.box, self.topics):
                client.publish(topic, payload, qos=1, retain=True)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self._lost = True

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any,
                    properties: Any) -> None:
        self._acked.append(mid)   # same thread (loop_read): no lock needed

    def _serve(self, db: sqlite3.Connection) -> None:
        """One connection: pump the outbox until it drops or the publisher stops."""
        client = self._client
        while not self._stop.is_set() and not self._lost:
            sock = client.socket()
            if sock is None:
                break
            want = [sock] if client.want_write() else []
            readable, writable, _ = select.select([sock, self._wake_r], want, [], 1.0)
            if self._wake_r in readable:
                self._drain_pipe()
            if sock in readable and client.loop_read() != 0:
                break
            if sock in writable and client.loop_write() != 0:
                break
            if client.loop_misc() != 0:
                break
            if self._connected:
                self._pump(db)

    def _pump(self, db: sqlite3.Connection) -> None:
        """Acknowledged rows deleted; the window refilled; the state once all is sent."""
        if self._acked:
            done = [self._inflight.pop(mid) for mid in self._acked if mid in self._inflight]
            self._acked = []
            if done:
                sent(db, done)
                self.sent += len(done)
        room = WINDOW - len(self._inflight)
        if room > 0:
            for seq, at, event in oldest(db, self._last_queued, room):
                payload = f'{{"box":{json.dumps(self.box)},"seq":{seq},"at":{at:.3f},{event[1:]}'
                info = self._client.publish(self.topics["event"], payload, qos=1)
                self._inflight[info.mid] = seq
                self._last_queued = seq
                self._note_fault(event)
        if not self._inflight and self._last_queued != self._state_seq:
            self._publish_state(db)
            self._state_seq = self._last_queued
            self._drained.set()
        elif not self._inflight:
            self._drained.set()

    def _note_fault(self, event: str) -> None:
        if event.startswith('{"event":"fault"') or event.startswith('{"event":"recovered"'):
            data = json.loads(event)
            if data["event"] == "fault":
                self.faults[data["device"]] = data["detail"]
            else:
                self.faults.pop(data["device"], None)

    def _publish_state(self, db: sqlite3.Connection) -> None:
        summary = live(db, self._clock())
        faults = [{"device": d, "detail": t} for d, t in sorted(self.faults.items())]
        state = "fault" if faults else "playing" if summary["playing"] else "idle"
        best = summary["tonight"]["best"]
        payload = {"box": self.box, "seq": self._last_queued, "state": state,
                   "faults": faults, "games_tonight": summary["tonight"]["games"],
                   "best_tonight": None if best is None else best["score"], **summary}
        self._client.publish(self.topics["state"], json.dumps(payload), qos=1, retain=True)

    def _disconnect(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        if self._stop.is_set() and self._connected and not self._lost:
            info = client.publish(self.topics["status"], "offline", qos=1, retain=True)
            end = time.monotonic() + 2
            while not info.is_published() and time.monotonic() < end:
                if client.loop(0.1) != 0:
                    break
            client.disconnect()
            client.loop(0.1)
        try:
            sock = client.socket()
            if sock is not None:
                sock.close()
        except OSError:
            pass
