"""The MQTT publisher for months (issue 30, points 1-6), against a real Mosquitto.

Supervised (a locked database, a damaged row, a bug: a fault of the part ``mqtt``
on the box, then it starts again), MQTT 5 with the broker's reason codes (a
refused event stays in the outbox), 3.1.1 where the broker speaks nothing else,
back-off reset only by an accepted connection, ids that never collide, the
fresh state before ``online``, the state re-published when tonight's window
moves, and storage faults queued with the time they happened.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from mqtt_broker import Broker, Consumer, Mqtt311Only, bare, dedup, need_broker

from shutbox_hw.config.config_file import load_config
from shutbox_hw.config.network import NetworkConfig, default_box_id
from shutbox_hw.game.model.events import Fault, Recovered
from shutbox_hw.network.hookup import Outbox
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script, parse_script
from shutbox_hw.store import Store
from shutbox_hw.store.read.audit import TONIGHT_S, tonight
from shutbox_hw.store.tables.outbox import Limits, queue, waiting

CHECKOUT = Path(__file__).resolve().parent.parent
PRACTICE = CHECKOUT / "tests" / "scripts" / "practice-001.txt"
ONLY_STATUS_AND_STATE = ("topic read #\ntopic write shutbox/pub1/status\n"
                         "topic write shutbox/pub1/state\n")


class _Event:
    def __init__(self, n: int) -> None:
        self.n = n

    def as_json(self) -> dict:
        return {"event": "rolled", "player": "P1", "dice": [1 + self.n % 6], "round": 1,
                "throw": self.n}


def _queued(db: Path, count: int, at: float = 1.0) -> None:
    store = Store(db)
    with store.db:  # type: ignore[union-attr]
        queue(store.db, [_Event(i) for i in range(count)], at)
    store.close()


def _publisher(db: Path, url: str, **kwargs):
    from shutbox_hw.network.publisher import Publisher
    return Publisher(db, NetworkConfig(mqtt=url, box="pub1"), **kwargs)


def _left(db: Path) -> int:
    reader = sqlite3.connect(db)
    try:
        return waiting(reader)
    finally:
        reader.close()


def _took(publisher, into: list) -> bool:
    """Gathers the publisher's reports as the box's loop takes them."""
    into += publisher.reports(0)
    return bool(into)


# ---------------------------------------------------------------- supervised

def test_a_locked_database_at_start_is_a_fault_and_the_publisher_starts_again(
        tmp_path, broker, consumer, monkeypatch):
    """The store opened degraded after a full disk holds ``locking_mode=EXCLUSIVE``:
    the publisher's first read fails. It used to end the thread for good."""
    from shutbox_hw.network import publisher as module
    monkeypatch.setattr(module, "BUSY_TIMEOUT_S", 0.2)
    monkeypatch.setattr(module, "BACKOFF_S", (0.2,))
    db = tmp_path / "box.db"
    _queued(db, 5)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("SELECT COUNT(*) FROM games").fetchone()   # the degraded store's read
    publisher = _publisher(db, broker.url).start()
    try:
        reports: list = []
        assert consumer.wait(lambda: _took(publisher, reports), 10)
        assert [(r.source, r.ok) for r in reports] == [("mqtt", False)]
        assert "database is locked" in reports[0].message
        assert consumer.events() == [] and publisher.restarts >= 1
        holder.close()     # the disk takes writes again: the store reopens normally
        assert consumer.wait(lambda: len(consumer.events()) == 5, 20), publisher.problem
        assert consumer.wait(lambda: _took(publisher, reports) and len(reports) == 2, 10)
        assert (reports[1].source, reports[1].ok) == ("mqtt", True)
    finally:
        publisher.stop()


def test_a_damaged_throw_row_never_stops_the_publisher(tmp_path, broker, consumer):
    """``live()`` read a damaged throw row with ``json.loads`` and the thread died."""
    db = tmp_path / "box.db"
    config = load_config(rule_overrides=None, preset="crafthouse-12")
    runner = SimRunner(config, db)
    for step in load_script(str(PRACTICE), config.rules.tiles)[:6]:   # mid-turn
        runner.run(step)
    runner.daemon.store.close()
    damage = sqlite3.connect(db)
    with damage:
        damage.execute("UPDATE throws SET dice = '[5, 6', closed = 'x' WHERE id = 1")
    damage.close()
    _queued(db, 3)
    publisher = _publisher(db, broker.url).start()
    try:
        assert consumer.wait(lambda: len(consumer.events()) == 3
                             and consumer.on("shutbox/pub1/state"), 10), publisher.problem
        state = json.loads(consumer.on("shutbox/pub1/state")[-1])
        assert state["playing"] is True and state["player"] == "P1"
        assert consumer.wait(lambda: _left(db) == 0, 10)
        assert publisher.reports(0) == [] and publisher.restarts == 0
    finally:
        publisher.stop()


def test_a_bug_in_the_publisher_is_logged_once_shown_and_it_starts_again(
        tmp_path, broker, consumer, monkeypatch, caplog):
    from shutbox_hw.network import publisher as module
    from shutbox_hw.network.session import Session
    monkeypatch.setattr(module, "BACKOFF_S", (0.1,))
    real, calls = Session._pump, []

    def failing(self):
        calls.append(1)
        if len(calls) <= 3:
            raise RuntimeError("a bug")
        real(self)
    monkeypatch.setattr(Session, "_pump", failing)
    db = tmp_path / "box.db"
    _queued(db, 10)
    publisher = _publisher(db, broker.url).start()
    try:
        assert consumer.wait(lambda: len(dedup(consumer.events())) == 10, 20)
        reports = publisher.reports(0)
        assert [(r.source, r.ok) for r in reports] == [("mqtt", False), ("mqtt", True)]
        assert "RuntimeError: a bug" in reports[0].message
        assert publisher.restarts == 3
        logged = [r for r in caplog.records if "a bug" in r.getMessage()]
        assert len(logged) == 1 and logged[0].exc_info   # once, with its traceback
    finally:
        publisher.stop()


# ---------------------------------------------------------------- reason codes

@pytest.mark.broker
def test_events_the_broker_refuses_stay_in_the_outbox_and_are_reported(tmp_path):
    """An ACL that allows only status and state: under MQTT 5 Mosquitto's PUBACK
    says "not authorized"; nothing is deleted, the box shows the fault, the state
    (allowed) lists it for Home Assistant."""
    need_broker()
    broker = Broker(tmp_path / "acl", acl=ONLY_STATUS_AND_STATE)
    broker.start()
    consumer = Consumer(broker)
    db = tmp_path / "box.db"
    _queued(db, 50)
    publisher = _publisher(db, broker.url).start()
    try:
        reports: list = []
        assert consumer.wait(lambda: _took(publisher, reports), 10), publisher.problem
        assert [(r.source, r.ok) for r in reports] == [("mqtt", False)]
        assert "refused event 1" in reports[0].message
        assert "not authorized" in reports[0].message.lower()
        assert publisher.v5 and publisher.refused >= 1 and publisher.sent == 0
        assert _left(db) == 50 and consumer.events() == []

        def state() -> dict:
            states = consumer.on("shutbox/pub1/state")
            return json.loads(states[-1]) if states else {}
        assert consumer.wait(lambda: state().get("state") == "fault", 10)
        assert [f["device"] for f in state()["faults"]] == ["mqtt"]
        assert state()["outbox"] == {"queued": 50, "dropped": 0}
        # a clean DISCONNECT each time: the box stays online (no last will fired)
        assert consumer.wait(lambda: publisher.refused >= 2, 20)
        assert b"offline" not in consumer.on("shutbox/pub1/status")
    finally:
        publisher.stop()
        consumer.close()
        broker.kill()
    assert _left(db) == 50


@pytest.mark.broker
def test_a_broker_that_speaks_only_311_is_spoken_to_in_311(tmp_path):
    """The fallback, and its caveat (README): a 3.1.1 PUBACK carries no reason, so
    the events the ACL drops look delivered and leave the outbox."""
    need_broker()
    broker = Broker(tmp_path / "acl", acl=ONLY_STATUS_AND_STATE)
    broker.start()
    old = Mqtt311Only(broker)
    consumer = Consumer(broker)
    db = tmp_path / "box.db"
    _queued(db, 20)
    publisher = _publisher(db, old.url).start()
    try:
        assert consumer.wait(lambda: _left(db) == 0, 20), publisher.problem
        assert old.v5_refused == 1 and not publisher.v5
        assert consumer.events() == []     # dropped by the ACL, acknowledged all the same
        assert consumer.on("shutbox/pub1/status")[-1:] == [b"online"]
        assert publisher.reports(0) == []  # the fallback is no fault
    finally:
        publisher.stop()
        consumer.close()
        old.close()
        broker.kill()


# ---------------------------------------------------------------- back-off

@pytest.mark.broker
def test_refused_credentials_back_off_until_a_connection_is_accepted(tmp_path, monkeypatch):
    """The back-off used to reset on every TCP connect: a broker refusing the
    credentials was tried every second for ever."""
    need_broker()
    from shutbox_hw.network.publisher import BACKOFF_S, Publisher
    broker = Broker(tmp_path / "pw", passwords=True)
    broker.start()
    consumer = Consumer(broker)
    credentials = tmp_path / "credentials"
    credentials.write_text(f"{broker.user}:wrong\n")
    credentials.chmod(0o600)
    slept: list[float] = []

    def sleep(self, seconds):     # the real broker refuses each attempt; no real waiting
        slept.append(seconds)
        time.sleep(0.01)
    monkeypatch.setattr(Publisher, "_sleep", sleep)
    db = tmp_path / "box.db"
    _queued(db, 3)
    publisher = Publisher(db, NetworkConfig(mqtt=broker.url, box="pub1",
                                            credentials_file=str(credentials)))
    publisher.start()
    try:
        assert consumer.wait(lambda: len(slept) >= 7, 30), publisher.problem
        assert slept[:7] == [*BACKOFF_S, BACKOFF_S[-1], BACKOFF_S[-1]]
        assert "refused the connection" in (publisher.problem or "")
        credentials.write_text(f"{broker.user}:{broker.password}\n")
        assert consumer.wait(lambda: len(consumer.events()) == 3, 20), publisher.problem
        before = len(slept)
        broker.stop()          # accepted once: the next attempt comes after the shortest wait
        assert consumer.wait(lambda: len(slept) > before, 20)
        assert slept[before] == BACKOFF_S[0]
    finally:
        publisher.stop()
        consumer.close()
        broker.kill()


# ---------------------------------------------------------------- ids

def test_two_boxes_with_one_id_do_not_take_each_others_connection(tmp_path, broker, consumer):
    """The client id was ``shutbox-<box>``: the broker dropped the older connection,
    each takeover fired the last will and re-sent discovery, for ever."""
    dbs = [tmp_path / "a.db", tmp_path / "b.db"]
    for db in dbs:
        _queued(db, 30)
    publishers = [_publisher(db, broker.url).start() for db in dbs]
    try:
        assert consumer.wait(lambda: all(_left(db) == 0 for db in dbs)
                             and len(consumer.events()) == 60, 30)
        assert publishers[0].client_id != publishers[1].client_id
        assert "offline" not in [p.decode() for p in consumer.on("shutbox/pub1/status")]
        assert "already connected" not in broker.log()
    finally:
        for publisher in publishers:
            publisher.stop()


def test_the_default_box_id_is_the_pis_serial_or_the_machine_id(tmp_path):
    cpuinfo, machine = tmp_path / "cpuinfo", tmp_path / "machine-id"
    cpuinfo.write_text("processor\t: 0\nHardware\t: BCM2835\nSerial\t\t: 10000000a1b2c3d4\n"
                       "Model\t\t: Raspberry Pi 3 Model B Rev 1.2\n")
    machine.write_text("0123456789abcdef0123456789abcdef\n")
    assert default_box_id(cpuinfo, machine) == "pi-a1b2c3d4"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: x86\n")          # a PC: no serial
    assert default_box_id(cpuinfo, machine) == "box-0123456789ab"
    other = tmp_path / "other-id"
    other.write_text("fedcba9876543210fedcba9876543210\n")
    assert default_box_id(cpuinfo, other) != default_box_id(cpuinfo, machine)
    cpuinfo.write_text("Serial\t\t: 0000000000000000\n")    # an unset serial is no id
    assert default_box_id(cpuinfo, machine) == "box-0123456789ab"
    import socket
    assert default_box_id(tmp_path / "none", tmp_path / "none") == \
        socket.gethostname().split(".")[0][:64]


def test_sim_does_not_publish_as_the_configured_box_unless_asked(tmp_path, broker, consumer):
    config = tmp_path / "box.toml"
    config.write_text(f'[rules]\npreset = "crafthouse-12"\n[network]\nmqtt = "{broker.url}"\n'
                      'box = "pub1"\n')
    for publish in ([], ["--publish"]):
        out = run_cli("sim", *publish, "--config", config, "--script", PRACTICE, cwd=CHECKOUT)
        assert out.returncode == 0 and out.stderr == "", out.stderr
    printed = [json.loads(line) for line in out.stdout.splitlines()]
    assert consumer.wait(lambda: consumer.on("/status")[-1:] == [b"offline"], 10)
    # one session only (the --publish one): the first run never spoke for pub1
    assert consumer.on("shutbox/pub1/status") == [b"online", b"offline"]
    assert [bare(m) for m in consumer.events()] == printed


# ---------------------------------------------------------------- state

def test_the_fresh_state_is_published_before_online(tmp_path, broker, consumer):
    """Home Assistant showed the previous session's retained figures as live."""
    db = tmp_path / "box.db"
    _queued(db, 4)
    publisher = _publisher(db, broker.url).start()
    try:
        assert consumer.wait(lambda: len(consumer.events()) == 4, 10)
    finally:
        publisher.stop()
    topics = [t for t, _, _ in consumer.messages]
    assert topics.index("shutbox/pub1/state") < topics.index("shutbox/pub1/status")
    first = json.loads(consumer.on("shutbox/pub1/state")[0])
    assert first["seq"] == 4 and first["player"] is None   # null between games, never missing
    assert consumer.on("shutbox/pub1/status")[0] == b"online"


def test_the_state_is_published_again_when_tonights_window_moves(tmp_path, broker, consumer):
    """Games and best score tonight went stale: computed only when an event was sent."""
    db = tmp_path / "box.db"
    config = load_config(rule_overrides=None, preset="crafthouse-12")
    runner = SimRunner(config, db)
    for step in load_script(str(PRACTICE), config.rules.tiles):
        runner.run(step)
    runner.finish()
    runner.daemon.store.close()
    reader = sqlite3.connect(db)
    started, = reader.execute("SELECT MAX(started_at) FROM games").fetchone()
    # the rows' own figures: P2's 2 is tonight's best, and no longer the next day
    assert tonight(reader, started + 60).best == ("P2", 2)
    assert tonight(reader, started + TONIGHT_S + 60).best is None
    reader.close()
    now = [started + 60]
    publisher = _publisher(db, broker.url, clock=lambda: now[0], refresh_s=0.1).start()

    def state() -> dict:
        states = consumer.on("shutbox/pub1/state")
        return json.loads(states[-1]) if states else {}
    try:
        assert consumer.wait(lambda: state().get("best_tonight") == 2, 10)
        published = len(consumer.on("shutbox/pub1/state"))
        time.sleep(0.3)    # looked at again (refresh_s): unchanged, so not published again
        assert len(consumer.on("shutbox/pub1/state")) == published
        now[0] = started + TONIGHT_S + 60     # the next day: no event at all
        assert consumer.wait(lambda: "best_tonight" in state()
                             and state()["best_tonight"] is None, 10)
        assert state()["tonight"]["best"] is None
        assert consumer.events() == []
    finally:
        publisher.stop()


# ---------------------------------------------------------------- storage faults

def test_storage_faults_reach_the_outbox_with_the_time_they_happened(tmp_path):
    """``daemon.py`` filtered the disk's fault and recovery out; events kept in
    memory were queued with the time they were finally written."""
    config = load_config(rule_overrides=None, preset="crafthouse-12")
    db = tmp_path / "box.db"
    runner = SimRunner(config, db, outbox=Outbox(Limits()))

    def play(text: str) -> None:
        for step in parse_script(text, config.rules.tiles):
            runner.run(step)
    play("start 2\ndisk-full\ndice 3 4\nroll\n")
    between = time.time()
    time.sleep(0.05)
    play("disk-ok\nwait 1.5\nclose 7\n")
    runner.finish()
    runner.daemon.store.close()
    reader = sqlite3.connect(db)
    rows = [(json.loads(e), at) for e, at in
            reader.execute("SELECT event, at FROM outbox ORDER BY seq")]
    reader.close()
    names = [(e["event"], e.get("device")) for e, _ in rows]
    assert ("fault", "storage") in names and ("recovered", "storage") in names
    assert names.index(("fault", "storage")) < names.index(("recovered", "storage"))
    at = {(e["event"], e.get("device")): t for e, t in rows}
    assert at[("rolled", None)] < between < at[("recovered", "storage")]
    assert at[("fault", "storage")] < between


def test_the_publishers_own_fault_is_queued_once_and_recovered(tmp_path):
    """The box takes the publisher's fault through the store's outbox hook, like any
    part's: shown, counted, queued; once while it lasts."""
    from shutbox_hw.network.health import Health
    health = Health()
    health.bad("cannot reach 127.0.0.1:1: Connection refused")
    health.bad("cannot reach 127.0.0.1:1: Connection timed out")   # the same outage
    taken = health.take(5)
    assert [(f.source, f.ok, f.at_ms) for f in taken] == [("mqtt", False, 5)]
    health.good()
    health.good()
    assert [(f.source, f.ok) for f in health.take(9)] == [("mqtt", True)]
    assert health.take(10) == []
    assert Fault(device="mqtt", detail="x").as_json()["device"] == "mqtt"
    assert Recovered(device="mqtt").as_json() == {"event": "recovered", "device": "mqtt"}


# ---------------------------------------------------------------- the broker away

def test_a_broker_away_past_the_grace_is_a_fault_until_it_is_back(tmp_path, broker, consumer):
    """Killed and started again: the fault once it has been away for ``grace_s``
    (none for a restart's second by default), recovered once events flow."""
    db = tmp_path / "box.db"
    store = Store(db)
    publisher = _publisher(db, broker.url, grace_s=0.0).start()
    store.outbox = publisher.wake
    try:
        store.record_all([Fault(device="flap 7", detail="chatters")])
        assert consumer.wait(lambda: len(consumer.events()) == 1, 10)
        broker.kill()
        reports: list = []
        assert consumer.wait(lambda: _took(publisher, reports), 20)
        assert [(r.source, r.ok) for r in reports] == [("mqtt", False)]
        assert "cannot reach" in reports[0].message or "closed" in reports[0].message
        store.record_all([Recovered(device="flap 7")])      # waits in the outbox
        broker.start()
        assert consumer.wait(lambda: _took(publisher, reports) and len(reports) == 2, 30)
        assert reports[1].ok
        assert consumer.wait(lambda: [m["seq"] for m in dedup(consumer.events())] == [1, 2], 10)
    finally:
        publisher.stop()
        store.close()


def test_stop_never_closes_the_pipe_under_a_running_thread(tmp_path, monkeypatch):
    """``stop()`` closed the wake pipe while the thread could still select on it
    (its number then another file's)."""
    import threading

    from shutbox_hw.network import publisher as module
    from shutbox_hw.network.session import Session
    monkeypatch.setattr(module, "STOP_WAIT_S", 0.05)
    busy, release = threading.Event(), threading.Event()

    def slow_connect(self):       # a connect that takes its time (a broker far away)
        busy.set()
        release.wait(10)
        return False
    monkeypatch.setattr(Session, "connect", slow_connect)
    db = tmp_path / "box.db"
    _queued(db, 1)
    publisher = _publisher(db, "mqtt://127.0.0.1:1").start()
    assert busy.wait(10)
    publisher.stop()            # gives up waiting after 0.05 s
    assert publisher._thread.is_alive()
    os.fstat(publisher._wake_r)          # both ends still open: the thread owns them
    publisher.wake()                     # and waking it is harmless
    release.set()
    publisher._thread.join(10)
    assert not publisher._thread.is_alive()
    assert publisher._closed             # closed by the thread as it ended
    publisher.wake()                     # after the end: nothing, no error


def test_a_publish_paho_refuses_ends_the_connection_and_keeps_the_rows(tmp_path):
    """``publish()``'s return code was ignored: a message paho never queued counted
    as in flight."""
    pytest.importorskip("paho.mqtt.client")
    from shutbox_hw.network.session import Session
    db = tmp_path / "box.db"
    _queued(db, 2)
    publisher = _publisher(db, "mqtt://127.0.0.1:1")
    conn = sqlite3.connect(db, isolation_level=None)
    session = Session(publisher.link, conn)
    mqtt = publisher.mqtt
    session._client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="never",
                                  protocol=mqtt.MQTTv5)     # a real client, never connected
    session.accepted = True
    session._pump()
    assert session.lost and session._inflight == {}
    assert "could not publish" in (publisher.problem or "")
    assert waiting(conn) == 2
    conn.close()


@pytest.mark.broker
def test_the_publishers_fault_goes_through_the_boxs_fault_path(tmp_path):
    """Refused credentials: the daemon takes the fault of ``mqtt`` from the store's
    outbox hook on its next step, the controller shows it, the audits count it,
    and it is queued (for the broker, once it takes the box)."""
    need_broker()
    import dataclasses

    from shutbox_hw.network.hookup import publishing
    from shutbox_hw.store.read.audit import audits
    broker = Broker(tmp_path / "pw", passwords=True)
    broker.start()
    credentials = tmp_path / "credentials"
    credentials.write_text(f"{broker.user}:wrong\n")
    credentials.chmod(0o600)
    plain = load_config(rule_overrides=None, preset="crafthouse-12")
    config = dataclasses.replace(plain, network=NetworkConfig(
        mqtt=broker.url, box="pub1", credentials_file=str(credentials)))
    db = tmp_path / "box.db"
    printed: list[dict] = []
    warnings: list[str] = []
    try:
        with publishing(config, db, warnings.append) as outbox:
            runner = SimRunner(config, db, on_event=printed.append, outbox=outbox)
            publisher = outbox.publisher
            from loopback import wait_for
            assert wait_for(lambda: publisher.health.fault is not None, 20)
            runner.run(parse_script("wait 0.1\n", config.rules.tiles)[0])
            assert "mqtt" in runner.daemon.controller.state.faults
            faults = [e for e in printed if e["event"] == "fault"]
            assert [(f["device"], "refused the connection" in f["detail"]) for f in faults] \
                == [("mqtt", True)]
            runner.finish()
            runner.daemon.store.close()
    finally:
        broker.kill()
    reader = sqlite3.connect(db)
    queued = [json.loads(e) for e, in reader.execute("SELECT event FROM outbox ORDER BY seq")]
    assert [e for e in queued if e["event"] == "fault"] == faults
    assert audits(reader)["faults"] == {"mqtt": 1}
    reader.close()
    assert warnings and warnings[-1].endswith("they wait in the database's outbox")
