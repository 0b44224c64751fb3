"""One connection to the broker: a fresh paho-mqtt client with a clean session.

MQTT 5 where the broker speaks it: its PUBACK carries a reason code, and a
message the broker refuses (its ACL, a quota) stays in the outbox and is
reported; nothing is deleted but what the broker accepted, and only from
the head of the queue, in order. A broker that answers MQTT 5 with
"unsupported protocol version" is spoken to in 3.1.1 from then on, where a
PUBACK carries no reason: Mosquitto acknowledges a message its ACL drops,
so under 3.1.1 the ACL must allow ``shutbox/<box>/#`` (docs/network/mqtt.md).

Nothing from the broker swells the box: the box subscribes only to its
``shutbox/<box>/resend`` (the league asking for games again, answered from
the record: :mod:`shutbox_hw.store.tables.game_record`) and to the league's
roster, one small retained message per league player
(``shutbox/league/roster/+``: :mod:`.league_roster`), and it takes no packet
over :data:`MAX_INCOMING` bytes. It says so to an MQTT 5 broker (the
CONNECT's Maximum Packet Size: a broker keeps to it), and a broker that sends
a larger one anyway (a hostile one, or one impersonated on plain
``mqtt://``) is cut off when the packet's length is read, before its body is
(paho 2.x would take it whole, in one ``recv`` of its declared size: see
:func:`guarded_client`); the box connects again after its pause.

The client is driven through ``loop_read``/``loop_write``/``loop_misc`` on
the publisher's thread (paho's callbacks run inside them: no locks here).
On connect the retained state goes first (fresh figures), then ``online``,
then Home Assistant's discovery; the events follow, at most :data:`WINDOW`
in flight.

A session knows nothing of the publisher: what it connects with, the thread's
signals and where it says what happened are the :class:`~.link.Link` both hold,
and :meth:`Session.close` hands back how it ended (:class:`~.link.Ending`).
"""

from __future__ import annotations

import functools
import json
import select
import sqlite3
import time
from collections import OrderedDict
from typing import Any

from ..config.network import private_file_problem, read_secret
from ..store.tables.game_record import queue_resend, resend_request
from ..store.tables.league_table import BOX_TABLE, table_topic
from ..store.tables.league_table import take as take_table
from ..store.tables.outbox import newest_seq, oldest, outbox_figures, sent, shrink
from .discovery import discovery_messages
from .league_forget import FORGET_FILTER, forget_player_id
from .league_forget import applied as deleted
from .league_forget import take as take_tombstone
from .league_roster import ROSTER_FILTER, roster_player
from .league_roster import take as take_roster
from .link import Ending, Link
from .live import Kept

WINDOW = 20              # messages in flight at once (paho's own default)
KEEPALIVE_S = 30
UNSUPPORTED_PROTOCOL = 0x84   # CONNACK reason (paho's name for a 3.1.1 broker's answer 1)
MAX_INCOMING = 4096      # bytes of one packet from the broker (acks: a few bytes each)


@functools.cache
def guarded_client(client_class: type) -> type:
    """paho's client, refusing a packet from the broker longer than :data:`MAX_INCOMING`.

    paho 2.x reads a packet's fixed header, then its rest with one ``recv`` of the
    length the header declared (``Client._packet_read``), so a declared 150 MB is a
    150 MB buffer before a byte of it arrives. Any read longer than the limit is such
    a rest: refused there, as a lost connection (paho's own path for a socket error),
    and :attr:`too_big` keeps the length for the journal."""
    class Guarded(client_class):  # type: ignore[misc]
        too_big: int | None = None

        def _sock_recv(self, bufsize: int) -> bytes:
            if bufsize > MAX_INCOMING:
                self.too_big = bufsize
                raise ConnectionAbortedError(f"a packet of {bufsize} bytes from the broker")
            data: bytes = super()._sock_recv(bufsize)
            return data
    return Guarded


class Session:
    """Connect, pump the outbox until the connection drops or the publisher stops."""

    def __init__(self, link: Link, db: sqlite3.Connection) -> None:
        self.link = link
        self.db = db
        self.accepted = False      # the broker accepted the CONNACK
        self.lost = False
        self.dropped = False       # the connection itself went (the broker's side or the net)
        self.downgrade = False     # the broker wants 3.1.1: try again at once
        self.refused: tuple[int, str] | None = None   # (seq, reason) of a refused event
        self.too_big: int | None = None   # the length of a packet from the broker refused
        self._client: Any = None
        # mid -> [seq, accepted, answered], in the order sent
        self._inflight: OrderedDict[int, list[Any]] = OrderedDict()
        self._last_queued = 0      # the highest seq published on this connection
        self._state_seq = -1       # the seq the retained state last reflected
        self._state_at = 0.0       # monotonic time of the last state look
        self._look = False         # woken: look whether the state changed without an event
        self._state_sent = ""      # the last state published (without its seq)
        self._live = Kept()        # the live summary, computed again only on a change
        self._tombstones: dict[str, bytes] = {}   # players deleted at the league, pending
        self._next_tombstones = 0.0

    # ------------------------------------------------------------------ connecting

    def connect(self) -> bool:
        link = self.link
        mqtt = link.mqtt
        client_class = guarded_client(mqtt.Client)
        if link.v5:
            client = client_class(mqtt.CallbackAPIVersion.VERSION2, client_id=link.client_id,
                                  protocol=mqtt.MQTTv5, reconnect_on_failure=False)
        else:
            client = client_class(mqtt.CallbackAPIVersion.VERSION2, client_id=link.client_id,
                                  protocol=mqtt.MQTTv311, clean_session=True,
                                  reconnect_on_failure=False)
        client.will_set(link.topics["status"], "offline", qos=1, retain=True)
        try:
            credentials = link.network.credentials_file
            if credentials:
                problem = private_file_problem(credentials, f"credentials file {credentials}")
                if problem:
                    raise ValueError(problem + " (not used meanwhile)")
                user, _, password = read_secret(credentials, "credentials file").partition(":")
                client.username_pw_set(user, password or None)
            if link.broker.tls:
                client.tls_set(ca_certs=link.network.ca_file)
        except (ValueError, OSError) as error:
            link.problem_now(str(error))
            return False
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_publish = self._on_publish
        client.on_message = self._on_message
        try:
            if link.v5:
                from paho.mqtt.packettypes import PacketTypes
                from paho.mqtt.properties import Properties
                limits = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
                limits.MaximumPacketSize = MAX_INCOMING   # a broker sends nothing larger
                client.connect(link.broker.host, link.broker.port, keepalive=KEEPALIVE_S,
                               clean_start=True, properties=limits)
            else:
                client.connect(link.broker.host, link.broker.port, keepalive=KEEPALIVE_S)
        except (OSError, ValueError) as error:
            link.unreachable(f"cannot reach {link.broker.host}:{link.broker.port}: "
                            f"{getattr(error, 'strerror', None) or error}")
            return False
        self._client = client
        return True

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        link = self.link
        if reason.is_failure:
            self.lost = True
            if link.v5 and getattr(reason, "value", None) == UNSUPPORTED_PROTOCOL:
                link.speak_311()
                self.downgrade = True
                return
            link.problem_now(f"the broker refused the connection: {reason}")
            return
        self.accepted = True
        link.connected()
        # the fresh state before "online": no stale retained figures shown as live
        self._state_seq = newest_seq(self.db)
        self._last_queued = 0
        for event, in self.db.execute(   # the faults the state includes, sent or not yet
                "SELECT event FROM outbox WHERE event LIKE '{\"event\":\"fault\"%'"
                " OR event LIKE '{\"event\":\"recovered\"%' ORDER BY seq"):
            link.note_event(event)
        self._publish_state()
        self._publish(link.topics["status"], "online", retain=True)
        client.subscribe(link.topics["resend"], qos=1)   # the league asks for games
        client.subscribe(ROSTER_FILTER, qos=1)          # the league's players (retained)
        client.subscribe(FORGET_FILTER, qos=1)          # players deleted there (retained)
        client.subscribe(table_topic(link.box), qos=1)  # the TV's league table (retained)
        if link.network.homeassistant:
            for topic, payload in discovery_messages(link.box, link.topics, link.network):
                self._publish(topic, payload, retain=True)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.lost = self.dropped = True

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any,
                    properties: Any) -> None:
        entry = self._inflight.get(mid)
        if entry is None:
            return   # status, state or discovery
        entry[2] = True        # answered
        if getattr(reason, "is_failure", False):
            if self.refused is None:
                self.refused = (int(entry[0]), str(reason))
            self.lost = True   # nothing after it is deleted; sent again from it
            return
        entry[1] = True        # accepted

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        """A resend request from the league: the games it names queued again from
        the record (a request for another epoch, or not a list of ids, ignored); or an
        entry of the league's roster, kept in the record."""
        if roster_player(message.topic) is not None:
            self._roster(message.topic, message.payload)
            return
        if forget_player_id(message.topic) is not None:
            self._tombstone(message.topic, message.payload)
            return
        if message.topic.startswith(BOX_TABLE) and message.topic == table_topic(self.link.box):
            try:       # the TV's league table (store/tables/league_table.py); retained: given
                problem = take_table(self.db, message.payload, self.link.now())  # again
            except sqlite3.Error as error:
                problem = f"the league's table could not be kept now ({error}): connecting again"
                self.lost = True
            if problem is not None:
                self.link.roster_problem(problem)
            return
        if message.topic != self.link.topics["resend"]:
            return
        wanted = resend_request(message.payload, self.link.epoch)
        if not wanted:
            return
        try:
            count = queue_resend(self.db, wanted, self.link.now())
        except sqlite3.Error as error:   # the daemon's write holds the lock: asked again
            self.link.problem_now(f"a resend request could not be queued ({error})")
            return
        self.link.resent += count
        self._look = True

    def _roster(self, topic: str, payload: bytes) -> None:
        """A roster entry kept; one the record cannot take now (the daemon's write holds
        it past the timeout, or the record is not yet upgraded to schema 9) ends this
        connection: the broker gives every retained entry again on the next."""
        try:
            player = roster_player(topic)
            if payload and player is not None and deleted(self.db, player):
                return        # an old copy of a player deleted at the league
            problem = take_roster(self.db, topic, payload, self.link.now())
        except sqlite3.Error as error:
            problem = f"the league's roster could not be kept now ({error}): connecting again"
            self.lost = True
        if problem is not None:
            self.link.roster_problem(problem)

    def _tombstone(self, topic: str, payload: bytes) -> None:
        """A player deleted at the league removed here (network/league_forget.py); one
        sitting in the game under way, or a record busy past the timeout, tried again
        every few seconds (:meth:`serve`)."""
        try:
            problem = take_tombstone(self.db, topic, payload, self.link.now())
        except sqlite3.Error as error:
            problem = f"a player deleted at the league could not be removed now ({error})"
        if problem is not None and "refused" not in problem:
            self._tombstones[topic] = payload
        else:
            self._tombstones.pop(topic, None)
        if problem is not None:
            self.link.roster_problem(problem)

    def _retry_tombstones(self) -> None:
        now = time.monotonic()
        if self._tombstones and now >= self._next_tombstones:
            self._next_tombstones = now + 5.0
            for topic, payload in list(self._tombstones.items()):
                self._tombstone(topic, payload)

    def _publish(self, topic: str, payload: str, retain: bool = False) -> Any:
        """One message, QoS 1; a refusal by paho (not connected, its queue full)
        ends this connection: the rows stay queued and go on the next."""
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if info.rc != self.link.mqtt.MQTT_ERR_SUCCESS:
            self.lost = True
            self.link.unreachable(f"could not publish on {topic}: "
                                 f"{self.link.mqtt.error_string(info.rc)}")
            return None
        return info

    # ------------------------------------------------------------------ serving

    def serve(self) -> None:
        """Pump until the connection drops or the publisher stops."""
        client, link = self._client, self.link
        while not link.stopping() and not self.lost:
            sock = client.socket()
            if sock is None:
                break
            want = [sock] if client.want_write() else []
            readable, writable, _ = select.select([sock, link.wake_fd], want, [], 1.0)
            if link.wake_fd in readable:
                link.drain_pipe()
                self._look = True     # the box's picture may have moved without an event
            if sock in readable and client.loop_read() != 0:
                break
            if sock in writable and client.loop_write() != 0:
                break
            if client.loop_misc() != 0:
                break
            self._retry_tombstones()
            if self.accepted:
                self._pump()
                if not self.lost:
                    link.working()
        self.too_big = getattr(client, "too_big", None)

    def _pump(self) -> None:
        """Acknowledged rows deleted (a prefix, in one transaction); the window
        refilled; the state once all is sent, and when its figures change."""
        done = []
        while self._inflight:
            mid, (seq, acked, _) = next(iter(self._inflight.items()))
            if not acked:
                break
            del self._inflight[mid]
            done.append(seq)
        if done:
            sent(self.db, done)
            self.link.acknowledged(done)
            shrink(self.db)
        if self.lost:
            return
        room = WINDOW - len(self._inflight)
        if room > 0:
            for seq, at, event, topic in oldest(self.db, self._last_queued, room):
                payload = (f'{{"box":{json.dumps(self.link.box)},'
                           f'"epoch":{json.dumps(self.link.epoch)},"seq":{seq},"at":{at:.3f},'
                           f'{event[1:]}')
                info = self._publish(self.link.topics[topic or "event"], payload)
                if info is None:
                    return
                self._inflight[info.mid] = [seq, False, False]
                self._last_queued = seq
                if topic is None:
                    self.link.note_event(event)
        if not self._inflight:
            fresh = self._last_queued > self._state_seq
            if fresh or self._look or time.monotonic() - self._state_at >= self.link.refresh_s:
                self._look = False
                self._publish_state(only_if_changed=not fresh)
                self._state_seq = max(self._state_seq, self._last_queued)
            self.link.drained.set()

    def _publish_state(self, only_if_changed: bool = False) -> None:
        """The retained state (the live summary, the faults, the outbox); with
        ``only_if_changed`` (the periodic look: tonight's window moves with
        the clock) only when it differs from the last one sent."""
        self._state_at = time.monotonic()
        payload = self.link.state(self.db, self._live, outbox_figures)
        if payload is None:
            return
        seq = max(self._state_seq, self._last_queued)
        text = json.dumps(payload)
        if only_if_changed and text == self._state_sent:
            return
        self._state_sent = text
        self._publish(self.link.topics["state"], json.dumps({**payload, "seq": seq}),
                      retain=True)

    def close(self) -> Ending:
        """Offline said on a clean stop; a clean DISCONNECT after a refused event
        (no last will: the box is online, only its events wait); the socket
        closed in any case. How the session ended, for the publisher."""
        client, self._client = self._client, None
        if client is not None:
            self._disconnect(client)
        return Ending(accepted=self.accepted, refused=self.refused, too_big=self.too_big,
                      downgrade=self.downgrade)

    def _disconnect(self, client: Any) -> None:
        if self.accepted and not self.dropped and (self.link.stopping() or self.refused):
            end = time.monotonic() + 2
            if self.link.stopping():
                info = client.publish(self.link.topics["status"], "offline", qos=1,
                                      retain=True)
                while not info.is_published() and time.monotonic() < end:
                    if client.loop(0.1) != 0:
                        break
            # the broker's answers to what is in flight read first: closing under
            # them, the broker's write fails and it fires the last will
            while not all(e[2] for e in self._inflight.values()) and time.monotonic() < end:
                if client.loop(0.05) != 0:
                    break
            client.disconnect()
            client.loop(0.1)
        try:
            sock = client.socket()
            if sock is not None:
                sock.close()
        except OSError:
            pass
