"""``shutbox-hw league ingest``: the boxes' game messages into PostgreSQL, exactly once.

Any number of these processes run at once. Each is an MQTT 5 client of the
league's broker with a clean session, in the shared subscription
``$share/league/shutbox/+/game`` (the broker hands each message to one of them)
and, each for itself, ``shutbox/+/state`` (the boxes' retained states: each
box's epoch and latest ended game). paho-mqtt 2 runs with ``manual_ack=True``:
a message is acknowledged only after the transaction that wrote it committed,
so a process killed between the two leaves the message unacknowledged and the
broker gives it again (to it or another member): the key (box, epoch, game)
drops the second copy. PostgreSQL away: the batch is tried again after a pause,
nothing acknowledged meanwhile (the broker holds the messages: its in-flight
window stops the flow, so what this process holds stays bounded however long
PostgreSQL is away). The pauses grow to ``retry_max_s`` (``--retry-max``, 10 s)
and stay there until PostgreSQL answers.

The durability comes from the boxes' records, not from the brokers: once per
``gap_every_s`` (10 s, or the grace period when that is shorter, at least 0.5 s)
one process (an advisory lock) notes every game id up to a
box's latest that the league does not hold, and a game still missing after
``grace_s`` is asked for on ``shutbox/<box>/resend`` (``{"epoch", "games"}``),
again every ``grace_s`` until it comes.

The league's roster (its players' names and what verifies their secrets) is
published from here too, retained on ``shutbox/league/roster/<id>``, when the
process connects and within a second of a change (:mod:`.players`). A player
joining from a box's join page comes in on ``shutbox/<box>/league/join`` (a shared
subscription too) and is made here, in the batch's turn (:mod:`.players`): the
roster that follows is the box's answer. Each box's TV table is published here as
well, retained on ``shutbox/league/table/<box>``, within seconds of a change in the
standings (:mod:`.tables`).
"""

from __future__ import annotations

import importlib
import json
import logging
import queue
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from ..config.network import parse_broker
from .players import UNVERIFIED, RosterPublisher, join_box, join_filter, take_join
from .ratings import Trigger
from .record import (
    Outcome,
    Seen,
    parse_state,
    seen_all,
    seen_in,
    topic_box,
    write,
    write_batch,
)
from .rights import ForgetPublisher
from .schema import check
from .tables import TablePublisher

log = logging.getLogger("shutbox_hw.league")

GROUP = "league"
BATCH = 200               # messages written in one transaction at most
# the QoS 1 messages the broker may give this process before it acknowledges any
# (MQTT 5's Receive Maximum, sent when connecting; Mosquitto's own default, its
# max_inflight_messages, is 20): what the process holds unacknowledged, at most
WINDOW = 2 * BATCH
BACKOFF_S = (0.5, 1, 2, 5, 10)
ASK_MAX = 200             # game ids in one resend request
GAP_LOCK = 4041           # the advisory lock of the gap round
STATE_WRITE_S = 60.0      # a box's state unchanged is written (its last_seen) this often
ROSTER_LOOK_S = 1.0       # the roster looked at (published if it changed) this often


def game_filter(group: str = GROUP) -> str:
    return f"$share/{group}/shutbox/+/game"


@dataclass
class Options:
    dsn: str
    mqtt: str
    group: str = GROUP
    grace_s: float = 60.0
    gap_every_s: float = 10.0
    credentials: tuple[str, str] | None = None
    ca_file: str | None = None
    retry_max_s: float = BACKOFF_S[-1]


class Ingest:
    """One ingest process: :meth:`run` until :meth:`stop`."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.broker = parse_broker(options.mqtt)
        self.client_id = f"league-ingest-{secrets.token_hex(4)}"
        # paho's thread puts every message here, the loop takes them in batches (a
        # SimpleQueue: Queue's lock and condition per put were 10 % of a capacity run)
        self.inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.stopping = threading.Event()
        self.counts: dict[str, int] = {}
        self.asked = 0
        self._conn: Any = None
        self._client: Any = None
        self._next_gap = 0.0
        # (box, epoch) -> (latest, when written): a box publishes its state after every
        # burst of events, and every ingest receives it; written when its latest game
        # moves, else once a minute (last_seen)
        self._states: dict[tuple[str, str], tuple[int | None, float]] = {}
        # each connection's messages carry its number: an acknowledgement is sent on
        # the connection that gave the message only (a message id of an older one
        # may name another message now; the broker gives the old one again anyway)
        self.generation = 0
        self.ratings = Trigger(options.dsn)   # keeps the ratings current (league/ratings.py)
        self.roster = RosterPublisher()       # the players the boxes verify (league/players.py)
        self._next_roster = 0.0
        self.forget = ForgetPublisher()       # deleted players' tombstones (league/rights.py)
        self.tables = TablePublisher()        # each box's TV table (league/tables.py)

    # ---------------------------------------------------------------- MQTT
    def _connect_mqtt(self) -> Any:
        share_property_tables()
        mqtt: Any = importlib.import_module("paho.mqtt.client")
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id,
                             protocol=mqtt.MQTTv5, manual_ack=True)
        if self.options.credentials is not None:
            client.username_pw_set(*self.options.credentials)
        if self.broker.tls:
            client.tls_set(ca_certs=self.options.ca_file)
        client.reconnect_delay_set(1, 5)
        client.on_connect = self._on_connect
        client.on_message = lambda c, u, message: self.inbox.put((self.generation, message))
        properties = importlib.import_module("paho.mqtt.properties").Properties(
            importlib.import_module("paho.mqtt.packettypes").PacketTypes.CONNECT)
        properties.ReceiveMaximum = WINDOW
        client.connect_async(self.broker.host, self.broker.port, keepalive=30,
                             clean_start=True, properties=properties)
        client.loop_start()
        return client

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            log.warning("league ingest: the broker refused the connection: %s", reason)
            return
        self.generation += 1
        client.subscribe([(game_filter(self.options.group), 1), ("shutbox/+/state", 1),
                          (join_filter(self.options.group), 1)])
        self.roster.connected(client)
        self.forget.connected(client)
        self.tables.connected(client)
        log.info("league ingest: connected to %s:%d", self.broker.host, self.broker.port)

    # ---------------------------------------------------------------- PostgreSQL
    def _db(self) -> Any:
        if self._conn is None or self._conn.closed:
            import psycopg
            self._conn = psycopg.connect(self.options.dsn, connect_timeout=5, autocommit=True)
            check(self._conn)
        return self._conn

    def _drop_db(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:   # already broken: nothing to close cleanly
                pass
        self._conn = None

    # ---------------------------------------------------------------- the loop
    def run(self) -> None:
        self._client = self._connect_mqtt()
        try:
            failures = 0
            batch: list[Any] = []
            while not self.stopping.is_set():
                if not batch:
                    batch = self._take()
                try:
                    if batch:
                        self._write(batch)
                        batch = []
                    self._gaps()
                    self._roster()
                    self.ratings.tick(self.counts.get("stored", 0) + self.counts.get("ratings", 0))
                    failures = 0
                except Exception as error:   # PostgreSQL away or refusing: retried
                    if not _database_error(error):
                        raise
                    log.warning("league ingest: PostgreSQL: %s (tried again; %d message(s)"
                                " held, not acknowledged meanwhile)", _one_line(error),
                                self.held(batch))
                    self._drop_db()
                    self.stopping.wait(backoff(failures, self.options.retry_max_s))
                    failures += 1
        finally:
            self._client.disconnect()
            self._client.loop_stop()
            self._drop_db()
            self.ratings.close()

    def stop(self) -> None:
        self.stopping.set()

    def held(self, batch: list[Any]) -> int:
        """The messages this process holds unacknowledged: the batch and the inbox."""
        return len(batch) + self.inbox.qsize()

    def _take(self) -> list[Any]:
        try:
            first = self.inbox.get(timeout=0.5)
        except queue.Empty:
            return []
        batch = [first]
        while len(batch) < BATCH:
            try:
                batch.append(self.inbox.get_nowait())
            except queue.Empty:
                break
        return batch

    def _write(self, batch: list[Any]) -> None:
        conn = self._db()
        outcomes: list[Outcome] = []
        now = time.monotonic()
        games = [(m.topic, m.payload) for _, m in batch
                 if topic_box(m.topic, "state") is None and join_box(m.topic) is None]
        for _, message in batch:    # players joining from a box: each in its transaction
            if join_box(message.topic) is not None:
                self._join(conn, message.topic, message.payload)
        states = self._states_due(batch, now)
        # every box and epoch the transaction touches (its games' and its states') is
        # upserted first, in one sorted order, by write_batch or seen_all: two ingests
        # on the same boxes wait for each other, never deadlock
        try:
            with conn.transaction():
                outcomes = write_batch(conn, games, states)
        except Exception as error:
            if _database_error(error) or not _refused(error):
                raise      # PostgreSQL away: the batch waits, unacknowledged
            # a row the batch's statements refused (a value out of a column's range):
            # one by one, each in a savepoint of its own, says which
            log.warning("league ingest: a batch refused (%s): written one by one",
                        _one_line(error))
            with conn.transaction():
                seen_all(conn, seen_in(games, states))
                outcomes = [write(conn, topic, payload) for topic, payload in games]
        self._states.update({key: (latest, now) for key, latest in states.items()})  # committed
        self._acknowledge(batch)
        for outcome in outcomes:
            self.counts[outcome.kind] = self.counts.get(outcome.kind, 0) + 1
            if outcome.reported:
                log.warning("league ingest: set aside: %s", outcome.line())

    @staticmethod
    def _join(conn: Any, topic: str, payload: bytes) -> None:
        """A box's request to join, taken (PostgreSQL away: raised, the batch waits); one
        the database refuses is dropped in words, as a request that is not one is."""
        try:
            said = take_join(conn, topic, payload)
        except Exception as error:
            if _database_error(error) or not _refused(error):
                raise
            said = f"a join request on {topic} was dropped: {_one_line(error)}"
        log.info("league ingest: %s", said)

    def _states_due(self, batch: list[Any], now: float) -> Seen:
        """The boxes' states of the batch to write: those whose latest game moved, or
        not written for STATE_WRITE_S (each (box, epoch) once, its greatest latest)."""
        due: Seen = {}
        for _, message in batch:
            if topic_box(message.topic, "state") is None:
                continue
            state = parse_state(message.topic, message.payload)
            if state is None:
                continue
            box, epoch, latest = state
            if (box, epoch) in due:
                known = due[(box, epoch)]
                due[(box, epoch)] = latest if known is None else \
                    known if latest is None else max(known, latest)
                continue
            written = self._states.get((box, epoch))
            if written is None or (latest is not None and latest != written[0]) \
                    or now - written[1] >= STATE_WRITE_S:
                due[(box, epoch)] = latest
        return due

    def _acknowledge(self, batch: list[Any]) -> None:
        """Committed: now, and only now, the broker may forget them (in their order)."""
        for generation, message in batch:
            if message.qos > 0 and generation == self.generation:
                self._client.ack(message.mid, message.qos)

    def _roster(self) -> None:
        now = time.monotonic()
        if now >= self._next_roster:
            self._next_roster = now + ROSTER_LOOK_S
            self.roster.tick(self._db())
            self.forget.tick(self._db())
            self.tables.tick(self._db(), now)

    def _gaps(self) -> None:
        now = time.monotonic()
        if now < self._next_gap:
            return
        self._next_gap = now + gap_round_s(self.options)
        conn = self._db()
        asks: list[tuple[str, str, list[int]]] = []
        with conn.transaction():
            locked, = conn.execute("SELECT pg_try_advisory_xact_lock(%s)",
                                   (GAP_LOCK,)).fetchone()
            if not locked:
                return    # another process does this round
            # the epochs first, in the order the batches lock them (seen_all: sorted by
            # (box, epoch); "C": code point order, Python's): a batch storing a game
            # deletes its missing row while this round notes and marks missing rows
            conn.execute("SELECT 1 FROM epochs ORDER BY box COLLATE \"C\","
                         " epoch COLLATE \"C\" FOR SHARE")
            conn.execute(
                "INSERT INTO missing (box, epoch, game) SELECT e.box, e.epoch, g"
                " FROM epochs e CROSS JOIN LATERAL generate_series(1, e.latest) g"
                " WHERE e.latest IS NOT NULL AND NOT EXISTS (SELECT 1 FROM games x"
                " WHERE x.box = e.box AND x.epoch = e.epoch AND x.game = g)"
                " AND NOT EXISTS (SELECT 1 FROM set_aside s WHERE s.box = e.box"
                " AND s.epoch = e.epoch AND s.game = g AND s.reason = %s)"
                " ON CONFLICT DO NOTHING", (UNVERIFIED,))
            grace = self.options.grace_s
            for box, epoch, games in conn.execute(
                    "SELECT box, epoch, (array_agg(game ORDER BY game))[1:%s] FROM missing"
                    " WHERE noticed_at <= now() - make_interval(secs => %s)"
                    " AND (asked_at IS NULL OR asked_at <= now() - make_interval(secs => %s))"
                    " GROUP BY box, epoch", (ASK_MAX, grace, grace)).fetchall():
                asks.append((box, epoch, list(games)))
                conn.execute("UPDATE missing SET asked_at = now(), asks = asks + 1"
                             " WHERE box = %s AND epoch = %s AND game = ANY(%s)",
                             (box, epoch, list(games)))
        for box, epoch, games in asks:
            self._client.publish(f"shutbox/{box}/resend",
                                 json.dumps({"epoch": epoch, "games": games}), qos=1)
            self.asked += len(games)
            log.info("league ingest: asked box %s (epoch %s) for %d game(s)", box, epoch,
                     len(games))


def share_property_tables() -> None:
    """paho's MQTT 5 ``Properties`` tables made once and shared, not once per message.

    paho builds a ``Properties`` for every message it receives, and each builds the
    same three tables (the property names, their types, the packets each applies to:
    two dicts of 27 entries) in ``__init__``: 14 % of an ingest's busy samples in a
    capacity run (benchmarks/README.md). paho only reads them (a property's value is
    an attribute of its own), so every ``Properties`` here gets the tables paho's own
    ``__init__`` built once. Done once per process, by the ingest only."""
    properties: Any = importlib.import_module("paho.mqtt.properties").Properties
    if getattr(properties, "_shutbox_shared", False):
        return
    model = properties(importlib.import_module("paho.mqtt.packettypes").PacketTypes.PUBLISH)
    types, names, table = model.types, model.names, model.properties

    def shared_init(self: Any, packetType: int) -> None:
        object.__setattr__(self, "packetType", packetType)
        object.__setattr__(self, "types", types)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "properties", table)

    properties._paho_init = properties.__init__
    properties.__init__ = shared_init
    properties._shutbox_shared = True


def gap_round_s(options: Options) -> float:
    """How often the gap round runs: a short grace period is not waited out twice."""
    return max(0.5, min(options.gap_every_s, options.grace_s))


def backoff(failures: int, ceiling: float) -> float:
    """The pause after ``failures`` failures in a row: BACKOFF_S, never above ``ceiling``."""
    return max(0.1, min(BACKOFF_S[min(failures, len(BACKOFF_S) - 1)], ceiling))


def _database_error(error: BaseException) -> bool:
    try:
        import psycopg
    except ImportError:
        return False
    return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)


def _refused(error: BaseException) -> bool:
    """A statement PostgreSQL refused (a value out of range, a constraint)."""
    try:
        import psycopg
    except ImportError:
        return False
    return isinstance(error, psycopg.Error)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
