"""MQTT with nothing lost, against a real Mosquitto (tests/mqtt_broker.py).

Every event the box records reaches the broker at least once and in order;
dropping duplicates by ``seq`` gives each exactly once. Faults: the broker
killed and restarted mid-game, the publisher's process killed (a power cut)
mid-publish, a day's backlog sent at once.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from mqtt_broker import Broker, Consumer, bare, dedup, need_broker

from shutbox_hw.config.config_file import load_config
from shutbox_hw.config.network import NetworkConfig
from shutbox_hw.network.discovery import ENTITIES
from shutbox_hw.network.hookup import publishing
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script
from shutbox_hw.store import Store
from shutbox_hw.store.tables.outbox import queue, waiting

CHECKOUT = Path(__file__).resolve().parent.parent
PRACTICE = CHECKOUT / "tests" / "scripts" / "practice-001.txt"


def mqtt_config(tmp_path: Path, broker: Broker, **extra: str) -> Path:
    lines = [f'mqtt = "{broker.url}"', 'box = "pub1"'] + [f"{k} = {v}" for k, v in extra.items()]
    path = tmp_path / "box.toml"
    path.write_text('[rules]\npreset = "crafthouse-12"\n[network]\n' + "\n".join(lines) + "\n")
    return path


def test_sim_with_mqtt_sends_every_event_state_status_and_discovery(tmp_path, broker, consumer):
    config = mqtt_config(tmp_path, broker, homeassistant="true")
    out = run_cli("sim", "--publish", "--config", config, "--script", PRACTICE, cwd=CHECKOUT)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    printed = [json.loads(line) for line in out.stdout.splitlines()]
    assert consumer.wait(lambda: len(consumer.events()) >= len(printed)
                         and consumer.on("/status")[-1:] == [b"offline"], 10)
    got = consumer.events()
    assert [m["seq"] for m in got] == list(range(1, len(printed) + 1))
    assert {m["box"] for m in got} == {"pub1"}
    assert [bare(m) for m in got] == printed
    assert consumer.on("shutbox/pub1/status") == [b"online", b"offline"]
    state = json.loads(consumer.on("shutbox/pub1/state")[-1])
    # the state after the last event: seed 001's practice round, P2 out on 2 (open: 2);
    # as the box shows it, P1 plays round 2 next (the TV's own picture)
    assert state["seq"] == len(printed) and state["box"] == "pub1"
    assert (state["player"], state["round"]) == ("P1", 2) and state["open"] == [2]
    assert state["last_score"] == 2 and state["dice"] is None
    assert [p["name"] for p in state["players"]] == ["P1", "P2"]
    configs = {t: json.loads(p) for t, p, _ in consumer.messages if t.endswith("/config")}
    assert len(configs) == len(ENTITIES) == 9     # the last backup's time the ninth
    assert any(t.endswith("/last_backup/config") for t in configs), sorted(configs)
    for topic, cfg in configs.items():
        assert topic.startswith("homeassistant/") and "/pub1/" in topic
        assert cfg["state_topic"] == "shutbox/pub1/state"
        assert cfg["availability_topic"] == "shutbox/pub1/status"
        assert cfg["device"]["identifiers"] == ["shutbox_pub1"]
    # the retained messages are there for a late subscriber
    late = Consumer.__new__(Consumer)
    import paho.mqtt.client as mqtt
    late.messages, late.lock = [], consumer.lock
    late.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="late")
    late.client.on_connect = lambda c, u, f, r, p: c.subscribe("shutbox/#", qos=1)
    late.client.on_message = late._got
    late.client.connect("127.0.0.1", broker.port)
    late.client.loop_start()
    try:
        assert late.wait(lambda: len(late.messages) >= 2, 5)
        assert {t for t, _, retained in late.messages if retained} == {
            "shutbox/pub1/state", "shutbox/pub1/status"}
    finally:
        late.close()


def test_broker_killed_and_restarted_mid_game(tmp_path, broker, consumer):
    config = load_config(mqtt_config(tmp_path, broker))
    steps = load_script(str(PRACTICE), config.rules.tiles)
    printed: list[dict] = []
    db = tmp_path / "box.db"
    with publishing(config, db, pytest.fail, drain_s=30) as outbox:
        runner = SimRunner(config, db, on_event=printed.append, outbox=outbox)
        third = len(steps) // 3
        for step in steps[:third]:
            runner.run(step)
        assert consumer.wait(lambda: len(consumer.events()) == len(printed), 10)
        broker.kill()
        for step in steps[third:2 * third]:
            runner.run(step)      # the box plays on; its events wait in the outbox
        time.sleep(0.3)
        reader = sqlite3.connect(db)
        assert waiting(reader) > 0
        reader.close()
        broker.start()
        for step in steps[2 * third:]:
            runner.run(step)
        runner.finish()
    ok = consumer.wait(lambda: len(dedup(consumer.events())) == len(printed), 20)
    assert ok, (len(printed), [m["seq"] for m in consumer.events()], broker.log())
    got = consumer.events()
    assert [bare(m) for m in dedup(got)] == printed
    assert [m["seq"] for m in dedup(got)] == list(range(1, len(printed) + 1))


def _queued(db: Path, count: int) -> None:
    """``count`` events queued as the store queues them (a day of games offline)."""
    store = Store(db)
    events = [_Event(i) for i in range(count)]
    with store.db:  # type: ignore[union-attr]
        queue(store.db, events, 1.0)
    store.close()


@dataclasses.dataclass
class _Event:
    n: int

    def as_json(self) -> dict:
        return {"event": "rolled", "player": "P1", "dice": [1 + self.n % 6], "round": 1,
                "throw": self.n}


PUBLISH_ONLY = """
import sys, time
from shutbox_hw.config.network import NetworkConfig
from shutbox_hw.network.publisher import Publisher
Publisher(sys.argv[1], NetworkConfig(mqtt=sys.argv[2], box="pub1")).start()
time.sleep(600)
"""


def test_power_cut_mid_publish_loses_nothing(tmp_path, broker, consumer, long_run):
    """The publisher's process SIGKILLed while messages are in flight: the rows not yet
    acknowledged are still queued; a new process sends them again (same seq)."""
    count = 10_000 if long_run else 1_000
    db = tmp_path / "box.db"
    _queued(db, count)
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    proc = subprocess.Popen([sys.executable, "-c", PUBLISH_ONLY, str(db), broker.url], env=env)
    try:
        assert consumer.wait(lambda: len(consumer.events()) >= count // 3, 60)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    # the broker saw the connection drop without a DISCONNECT: the last will says so
    assert consumer.wait(lambda: consumer.on("/status")[-1:] == [b"offline"], 10)
    before = len(consumer.events())
    reader = sqlite3.connect(db)
    left = waiting(reader)
    reader.close()
    assert 0 < left < count and before < count   # cut mid-way, nothing deleted unsent
    proc = subprocess.Popen([sys.executable, "-c", PUBLISH_ONLY, str(db), broker.url], env=env)
    try:
        assert consumer.wait(lambda: len(dedup(consumer.events())) == count, 120)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    got = consumer.events()
    assert len(got) >= count     # at least once (a resent message shows up twice)
    kept = dedup(got)
    assert [m["seq"] for m in kept] == list(range(1, count + 1))
    assert [m["throw"] for m in kept] == list(range(count))


def test_a_days_backlog_is_sent_in_order(tmp_path, broker, consumer, long_run):
    """10,000 events queued while the broker was away (1,000 in the short form)."""
    count = 10_000 if long_run else 1_000
    db = tmp_path / "box.db"
    _queued(db, count)
    network = NetworkConfig(mqtt=broker.url, box="pub1")
    from shutbox_hw.network.publisher import Publisher
    started = time.monotonic()
    publisher = Publisher(db, network).start()
    try:
        assert consumer.wait(lambda: len(dedup(consumer.events())) == count, 180)
        took = time.monotonic() - started
    finally:
        left = publisher.stop(drain_s=5)
    print(f"{count} queued events sent in {took:.1f} s")
    assert left == 0
    got = consumer.events()
    assert [m["seq"] for m in got] == list(range(1, count + 1))   # none twice: no fault


def test_without_paho_the_box_plays_the_same_and_keeps_its_events(tmp_path, monkeypatch):
    """The mqtt extra missing: one warning, the same game, every event kept in the outbox."""
    from shutbox_hw.network import publisher

    def missing():
        raise publisher.MqttMissing("[network] mqtt needs paho-mqtt")
    monkeypatch.setattr(publisher, "_paho", missing)
    plain = load_config(rule_overrides=None, preset="crafthouse-12")
    config = dataclasses.replace(plain, network=NetworkConfig(mqtt="mqtt://127.0.0.1:1"))
    steps = load_script(str(PRACTICE), config.rules.tiles)
    runs = []
    warnings: list[str] = []
    for cfg, name in ((plain, "plain.db"), (config, "mqtt.db")):
        events: list[dict] = []
        with publishing(cfg, tmp_path / name, warnings.append) as outbox:
            runner = SimRunner(cfg, tmp_path / name, on_event=events.append, outbox=outbox)
            for step in steps:
                runner.run(step)
            runner.finish()
        runs.append(events)
    assert runs[0] == runs[1] and warnings == ["[network] mqtt needs paho-mqtt"]
    reader = sqlite3.connect(tmp_path / "mqtt.db")
    assert waiting(reader) == len(runs[1])
    stored = [json.loads(e) for e, in reader.execute("SELECT event FROM outbox ORDER BY seq")]
    assert stored == runs[1]
    assert waiting(sqlite3.connect(tmp_path / "plain.db")) == 0   # no mqtt: no outbox rows


def test_run_reports_online_then_offline_and_queues_its_events(tmp_path, broker, consumer):
    """``shutbox-hw run`` (the real box's command, on mock pins) with [network] mqtt:
    online while it runs, offline after a clean stop."""
    config = tmp_path / "box.toml"
    config.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{tmp_path}/box.db"\n'
                      f'[network]\nmqtt = "{broker.url}"\nbox = "run1"\n')
    out = run_cli("run", "--config", config, "--pin-factory", "mock", "--for-seconds", "2",
                  cwd=CHECKOUT)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert consumer.wait(lambda: consumer.on("shutbox/run1/status") == [b"online", b"offline"],
                         10), consumer.on("shutbox/run1/status")


def test_faults_reach_the_broker_and_the_state_until_recovered(tmp_path, broker, consumer):
    """A fault is queued like any event (the store keeps none of it itself); the
    retained state lists it (Home Assistant's Fault sensor) until it is recovered."""
    from shutbox_hw.game.model.events import Fault, Recovered
    from shutbox_hw.network.publisher import Publisher
    db = tmp_path / "box.db"
    store = Store(db)
    publisher = Publisher(db, NetworkConfig(mqtt=broker.url, box="pub1")).start()
    store.outbox = publisher.wake
    try:
        store.record_all([Fault(device="flap 7", detail="chatters")])

        def state() -> dict:
            states = consumer.on("shutbox/pub1/state")
            return json.loads(states[-1]) if states else {}
        assert consumer.wait(lambda: state().get("seq") == 1, 10)
        assert state()["state"] == "fault"
        assert state()["faults"] == [{"device": "flap 7", "detail": "chatters"}]
        store.record_all([Recovered(device="flap 7")])
        assert consumer.wait(lambda: state().get("seq") == 2, 10)
        assert state()["faults"] == [] and state()["state"] == "idle"
        assert [bare(m) for m in consumer.events()] == [
            {"event": "fault", "device": "flap 7", "detail": "chatters"},
            {"event": "recovered", "device": "flap 7"}]
    finally:
        publisher.stop()
        store.close()


def test_mqtts_with_credentials_from_a_file(tmp_path):
    """TLS to a broker with its own CA (``ca_file``) and a user whose password (with a
    colon and a space in it) comes from the credentials file; a wrong password is
    refused by the broker, said once, and the events wait in the outbox."""
    need_broker()
    if shutil.which("openssl") is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("openssl or mosquitto_passwd is not installed")
    broker = Broker(tmp_path / "tls", secure=True)
    broker.start()
    secure_consumer = Consumer(broker)
    try:
        credentials = tmp_path / "credentials"
        credentials.write_text(f"{broker.user}:{broker.password}\n")
        credentials.chmod(0o600)
        config = mqtt_config(tmp_path, broker, credentials_file=f'"{credentials}"',
                             ca_file=f'"{broker.ca}"')
        out = run_cli("sim", "--publish", "--config", config, "--script", PRACTICE,
                      cwd=CHECKOUT)
        assert out.returncode == 0 and out.stderr == "", out.stderr
        printed = [json.loads(line) for line in out.stdout.splitlines()]
        assert secure_consumer.wait(lambda: len(secure_consumer.events()) == len(printed), 10)
        assert [bare(m) for m in secure_consumer.events()] == printed
        credentials.write_text(f"{broker.user}:wrong\n")
        db = tmp_path / "kept.db"
        out = run_cli("sim", "--publish", "--config", config, "--script", PRACTICE,
                      "--db", db, cwd=CHECKOUT)
        assert out.returncode == 0
        lines = out.stderr.splitlines()
        assert "refused the connection" in lines[0] and "wrong" not in out.stderr
        assert lines[-1].endswith("they wait in the database's outbox")
        # the refusal is a fault of the part mqtt on the box (if it came while the
        # script played: the script does not wait for the network), queued like its events
        again = [json.loads(line) for line in out.stdout.splitlines()]
        faults = [e for e in again if e["event"] == "fault"]
        assert all(f["device"] == "mqtt" and "refused the connection" in f["detail"]
                   for f in faults) and len(faults) <= 1
        assert [e for e in again if e["event"] != "fault"] == printed
        reader = sqlite3.connect(db)
        assert waiting(reader) == len(again)
        reader.close()
    finally:
        secure_consumer.close()
        broker.kill()
