"""Every discovery payload checked against Home Assistant's MQTT schemas, and every
template rendered by Jinja2 as Home Assistant renders it (issue 30, point 5).

Home Assistant does not pip-install quickly, so the keys and rules below are
copied from its source as data, each with where it comes from:

- ``home-assistant/core``, ``homeassistant/components/mqtt/schemas.py`` at
  commit ``c6ca7f5f416326437e8e652a5623aa5eff7b3d00``: ``MQTT_AVAILABILITY_SINGLE_SCHEMA``,
  ``MQTT_ENTITY_DEVICE_INFO_SCHEMA`` (with ``validate_device_has_at_least_one_identifier``),
  ``MQTT_ORIGIN_INFO_SCHEMA``, ``MQTT_ENTITY_COMMON_SCHEMA``;
- ``homeassistant/components/mqtt/const.py`` on ``dev`` (2026):
  ``CONF_DEFAULT_ENTITY_ID = "default_entity_id"``; and the warning of
  ``mqtt/entity.py`` since 2025.10 (logged by every entity that still sets
  ``object_id``): *Replace the "object_id": "x" option with "default_entity_id":
  "<domain>.x" ... This will stop working in Home Assistant Core 2026.4*: the
  value is a whole entity id of the entity's own domain, and ``object_id`` is gone;
- ``homeassistant/components/mqtt/sensor.py`` at commit
  ``17309b787222b2ff5a7496ce85391c3c067138fe`` (``PLATFORM_SCHEMA``: the sensor's
  own keys) and ``binary_sensor.py`` (its own keys); the state classes of
  ``homeassistant/components/sensor/const.py`` (``SensorStateClass``);
- Home Assistant's template engine: Jinja2's ``ImmutableSandboxedEnvironment``
  (``homeassistant/helpers/template.py``), ``value_json`` the payload parsed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from shutbox_hw.config.network import NetworkConfig
from shutbox_hw.network.discovery import ENTITIES, discovery_messages
from shutbox_hw.network.publisher import topics

# schemas.py: availability (single topic form)
AVAILABILITY = {"availability_topic": str, "availability_template": str,
                "payload_available": str, "payload_not_available": str}
# schemas.py: MQTT_ENTITY_DEVICE_INFO_SCHEMA
DEVICE = {"identifiers": list, "connections": list, "manufacturer": str, "model": str,
          "model_id": str, "name": str, "hw_version": str, "serial_number": str,
          "sw_version": str, "via_device": str, "suggested_area": str,
          "configuration_url": str}
# schemas.py: MQTT_ORIGIN_INFO_SCHEMA (name required)
ORIGIN = {"name": str, "sw_version": str, "support_url": str}
# schemas.py: MQTT_ENTITY_COMMON_SCHEMA, with object_id replaced by default_entity_id
COMMON = {**AVAILABILITY, "device": dict, "origin": dict, "enabled_by_default": bool,
          "entity_category": str, "icon": str, "json_attributes_topic": str,
          "json_attributes_template": str, "default_entity_id": str, "unique_id": str}
# MQTT_RO_PLATFORM_SCHEMA (mqtt/config.py): what every read-only entity has
READ_ONLY = {"state_topic": str, "value_template": str, "qos": int, "encoding": str,
             "name": str}
SENSOR = {**COMMON, **READ_ONLY, "device_class": str, "expire_after": int,
          "force_update": bool, "last_reset_value_template": str, "state_class": str,
          "unit_of_measurement": str, "suggested_display_precision": int}
BINARY_SENSOR = {**COMMON, **READ_ONLY, "device_class": str, "expire_after": int,
                 "force_update": bool, "off_delay": int, "payload_on": str,
                 "payload_off": str}
PLATFORMS = {"sensor": SENSOR, "binary_sensor": BINARY_SENSOR}
REQUIRED = {"sensor": {"state_topic"}, "binary_sensor": {"state_topic"}}
STATE_CLASSES = {"measurement", "measurement_angle", "total", "total_increasing"}
ENTITY_CATEGORIES = {"config", "diagnostic"}
BINARY_DEVICE_CLASSES_USED = {"problem"}   # BinarySensorDeviceClass.PROBLEM
SENSOR_DEVICE_CLASSES_USED = {"timestamp"}  # SensorDeviceClass.TIMESTAMP
TOPIC_ID = re.compile(r"[a-zA-Z0-9_-]+")   # discovery topic's node_id and object_id
ENTITY_ID = re.compile(r"(?P<domain>[a-z0-9_]+)\.(?P<object>[a-z0-9_]+)")   # cv.entity_id
ICON = re.compile(r"^[\w-]+:[\w-]+$")                                    # cv.icon


def problems(topic: str, config: dict[str, Any]) -> list[str]:
    """What Home Assistant would refuse or warn about in one discovery config."""
    out: list[str] = []
    parts = topic.split("/")
    if not (len(parts) == 5 and parts[0] == "homeassistant" and parts[4] == "config"
            and all(TOPIC_ID.fullmatch(p) for p in parts[2:4])):
        return [f"{topic}: not <prefix>/<component>/<node_id>/<object_id>/config"]
    component = parts[1]
    allowed = PLATFORMS.get(component)
    if allowed is None:
        return [f"{topic}: component {component} not checked here"]
    for key in REQUIRED[component] - config.keys():
        out.append(f"{key} is required")
    for key, value in config.items():
        if key not in allowed:
            out.append(f"{key} is not an option of {component}"
                       + (" (deprecated: default_entity_id)" if key == "object_id" else ""))
        elif not isinstance(value, allowed[key]) or isinstance(value, bool) != (
                allowed[key] is bool):
            out.append(f"{key}: expected {allowed[key].__name__}, got {value!r}")
    entity = ENTITY_ID.fullmatch(config.get("default_entity_id", ""))
    if entity is None or entity["domain"] != component:
        out.append(f"default_entity_id must be {component}.<object id>")
    device = config.get("device", {})
    out += [f"device.{k} is not an option" for k in device if k not in DEVICE]
    if not (device.get("identifiers") or device.get("connections")):
        out.append("device needs identifiers or connections")
    url = device.get("configuration_url")
    if url is not None and not re.match(r"^(https?|homeassistant)://", url):
        out.append("device.configuration_url must be a URL")
    origin = config.get("origin")
    if origin is not None:
        out += [f"origin.{k} is not an option" for k in origin if k not in ORIGIN]
        if "name" not in origin:
            out.append("origin.name is required")
    if "state_class" in config and config["state_class"] not in STATE_CLASSES:
        out.append(f"state_class {config['state_class']!r} is not a state class")
    if "entity_category" in config and config["entity_category"] not in ENTITY_CATEGORIES:
        out.append(f"entity_category {config['entity_category']!r}")
    if "icon" in config and not ICON.match(config["icon"]):
        out.append(f"icon {config['icon']!r}")
    if component == "binary_sensor" and config.get("device_class") not in (
            None, *BINARY_DEVICE_CLASSES_USED):
        out.append(f"device_class {config['device_class']!r}")
    if component == "sensor" and config.get("device_class") not in (
            None, *SENSOR_DEVICE_CLASSES_USED):
        out.append(f"device_class {config['device_class']!r}")
    if config.get("device_class") == "timestamp" and (
            "state_class" in config or "unit_of_measurement" in config):
        # mqtt/sensor.py: a state class or unit makes HA expect a number, not a time
        out.append("a timestamp sensor has no state_class or unit_of_measurement")
    return out


def _configs(network: NetworkConfig | None = None) -> dict[str, dict[str, Any]]:
    return {t: json.loads(p) for t, p in discovery_messages("pub1", topics("pub1"), network)}


def test_every_discovery_payload_passes_home_assistants_schemas():
    configs = _configs(NetworkConfig(mqtt="mqtt://h", box="pub1",
                                     web_url="http://shutbox.local:8080/"))
    assert len(configs) == len(ENTITIES)
    found = {topic: problems(topic, config) for topic, config in configs.items()}
    assert all(not p for p in found.values()), found
    for config in configs.values():
        assert "object_id" not in config
        assert config["device"]["sw_version"] and config["origin"]["name"] == "shutbox-hw"
        assert config["device"]["configuration_url"] == "http://shutbox.local:8080/"
    assert "configuration_url" not in next(iter(_configs().values()))["device"]


def test_the_checker_catches_what_home_assistant_refuses():
    """The checker itself fails on the old payload (object_id) and on mistakes."""
    topic, config = next(iter(_configs().items()))
    old = {k: v for k, v in config.items() if k != "default_entity_id"}
    old["object_id"] = "shutbox_pub1_state"
    assert any("deprecated" in p for p in problems(topic, old))
    assert problems(topic, {**config, "state_class": "gauge"})
    assert problems(topic, {**config, "default_entity_id": "binary_sensor.x"})
    assert problems(topic, {**config, "device": {"name": "no id"}})
    assert problems(topic, {**config, "device_class": "timestamp", "state_class": "measurement"})


def test_numeric_sensors_have_a_state_class():
    numeric = {"last_score", "games_tonight", "best_tonight", "outbox_queued",
               "outbox_dropped"}
    configs = {t.split("/")[3]: c for t, c in _configs().items()}
    assert {k for k, c in configs.items() if "state_class" in c} == numeric


STATES = {
    "idle": {"box": "pub1", "seq": 3, "state": "idle", "faults": [], "fault_parts": None,
             "games_tonight": 0, "best_tonight": None, "player": None, "last_score": None,
             "outbox": {"queued": 0, "dropped": 0}, "playing": False, "last_backup": None},
    "playing": {"box": "pub1", "seq": 9, "state": "playing", "faults": [], "fault_parts": None,
                "games_tonight": 4, "best_tonight": 2, "player": "Ann", "last_score": 7,
                "outbox": {"queued": 12, "dropped": 3}, "playing": True,
                "last_backup": "2026-12-05T04:00:00+01:00"},
    "fault": {"box": "pub1", "seq": 11, "state": "fault",
              "faults": [{"device": "flap 7", "detail": "chatters"},
                         {"device": "mqtt", "detail": "refused"}],
              "fault_parts": "flap 7, mqtt", "games_tonight": 4, "best_tonight": 2,
              "player": "Ann", "last_score": 7, "outbox": {"queued": 40, "dropped": 0},
              "playing": True, "last_backup": "2026-12-04T04:00:00+00:00"},
}


@pytest.mark.parametrize("name", STATES)
def test_every_template_renders_what_its_entity_expects(name):
    jinja2 = pytest.importorskip("jinja2.sandbox")
    env = jinja2.ImmutableSandboxedEnvironment()
    state = STATES[name]
    for topic, config in _configs().items():
        key = topic.split("/")[3]
        text = env.from_string(config["value_template"]).render(value_json=state)
        if config.get("state_class"):
            assert text == "None" or isinstance(float(text), float), (key, text)
        if topic.startswith("homeassistant/binary_sensor/"):
            assert text == ("ON" if state["faults"] else "OFF")
        if config.get("device_class") == "timestamp":
            at = timestamp_state(text)
            assert (at and at.isoformat()) == state["last_backup"], (key, text)
        if "json_attributes_template" in config:
            attributes = json.loads(env.from_string(
                config["json_attributes_template"]).render(value_json=state))
            assert attributes["parts"] == state["fault_parts"]
            assert attributes["faults"] == state["faults"]
    player = next(c for t, c in _configs().items() if "/player/" in t)
    shown = env.from_string(player["value_template"]).render(value_json=state)
    assert shown == str(state["player"])   # "None" (unknown) between games, never ""


# ---------------------------------------------------------------- the last backup

def timestamp_state(text: str) -> datetime | None:
    """What Home Assistant makes of a timestamp sensor's rendered template
    (``mqtt/sensor.py``, ``_update_state`` on ``dev``: ``"None"`` is unknown, else
    ``dt_util.parse_datetime``; ``sensor/__init__.py`` then refuses a time without
    its timezone)."""
    if text == "None":
        return None
    value = datetime.fromisoformat(text)
    assert value.tzinfo is not None, f"{text!r} has no timezone: HA refuses it"
    return value


@pytest.fixture
def usb(tmp_path):
    """A backup place on another disk than tmp_path's record (RAM's /dev/shm)."""
    place = Path(tempfile.mkdtemp(prefix="sbhw-usb-", dir="/dev/shm"))
    try:
        if place.stat().st_dev == tmp_path.stat().st_dev:
            pytest.skip("/dev/shm is on the same disk as the tests' folder here")
        yield place
    finally:
        shutil.rmtree(place, ignore_errors=True)


def test_last_backup_is_a_timestamp_sensor_fed_by_the_workers_copies(tmp_path, usb):
    """The state's ``last_backup`` renders, through the sensor's template, as the
    time of the copy the backup worker made (unknown before it, and with backups
    off); the copy wakes the publisher, which looks at its state again."""
    pytest.importorskip("paho.mqtt.client")
    jinja2 = pytest.importorskip("jinja2.sandbox")
    from shutbox_hw.network.live import Kept
    from shutbox_hw.network.publisher import Publisher
    from shutbox_hw.store import Store
    from shutbox_hw.store.disk.backup import BackupWorker
    from shutbox_hw.store.tables.outbox import outbox_figures

    config = _configs()["homeassistant/sensor/pub1/last_backup/config"]
    assert config["device_class"] == "timestamp" and "state_class" not in config
    template = jinja2.ImmutableSandboxedEnvironment().from_string(config["value_template"])
    db = tmp_path / "box.db"
    Store(db).close()
    network = NetworkConfig(mqtt="mqtt://localhost", box="pub1", homeassistant=True)
    publisher = Publisher(db, network)       # not started: its state and its wake pipe
    con = sqlite3.connect(db)
    try:
        def shown() -> datetime | None:
            state = publisher.state(con, Kept(), outbox_figures)
            assert state is not None
            return timestamp_state(template.render(value_json=state))

        assert shown() is None                        # backups off
        taken = 1_780_000_000.0
        worker = BackupWorker(db, usb, clock=lambda: taken)
        publisher.follow_backups(worker)
        assert shown() is None                        # none yet
        publisher.drain_pipe()
        assert worker.run_once() is not None
        assert os.read(publisher.wake_fd, 16)         # the copy woke the publisher
        at = shown()
        assert at is not None and at.timestamp() == taken
        again = BackupWorker(db, usb)                 # a restart: the copy found on the stick
        publisher.follow_backups(again)
        assert shown() == at
    finally:
        con.close()
        publisher._close_pipe()    # never started: nothing to stop but its pipe


def test_a_copy_publishes_the_state_again_through_a_real_broker(tmp_path, usb, broker,
                                                                 consumer):
    """The copy is the event: the retained state carries it within seconds, although
    the periodic look is an hour away (``refresh_s``) and no game event is sent."""
    from shutbox_hw.network.publisher import Publisher
    from shutbox_hw.store import Store
    from shutbox_hw.store.disk.backup import BackupWorker
    db = tmp_path / "box.db"
    Store(db).close()
    taken = 1_780_000_000.0
    worker = BackupWorker(db, usb, clock=lambda: taken)
    publisher = Publisher(db, NetworkConfig(mqtt=broker.url, box="pub1", homeassistant=True),
                          refresh_s=3600.0)
    publisher.follow_backups(worker)
    publisher.start()

    def states() -> list[dict[str, Any]]:
        return [json.loads(p) for p in consumer.on("shutbox/pub1/state")]
    try:
        assert consumer.wait(lambda: consumer.on("homeassistant/sensor/pub1/last_backup/config"),
                             10)
        assert consumer.wait(lambda: states(), 10)
        assert states()[-1]["last_backup"] is None
        assert worker.run_once() is not None
        assert consumer.wait(lambda: states()[-1]["last_backup"] is not None, 10)
    finally:
        publisher.stop()
    at = datetime.fromisoformat(states()[-1]["last_backup"])
    assert at.tzinfo is not None and at.timestamp() == taken
    assert consumer.events() == []                     # no event carried it: the wake did
