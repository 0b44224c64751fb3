"""Home Assistant MQTT discovery: the box as one device with its sensors.

With ``[network] homeassistant = true`` the publisher sends these retained
configs under ``homeassistant/<component>/<box>/<key>/config`` on every
connection. Each entity reads the retained state topic through a template
and is available while the status topic says ``online`` (the last will turns
it ``offline``). A template rendering ``None`` is HA's "unknown". The names
are in the box's language when the configs are sent (each connection).

As current Home Assistant wants them (its MQTT integration's schemas; the
test ``tests/test_ha_discovery.py`` checks every payload against them):
``default_entity_id`` (``<component>.shutbox_<box>_<key>``, which replaced
``object_id``), ``state_class`` on the numeric sensors, the device's
``sw_version`` and ``configuration_url`` (``[network] web_url``), ``origin``,
and the Fault sensor's attributes naming the faulty parts. Last backup is a
``timestamp`` sensor: the state's ``last_backup`` carries its UTC offset (HA
refuses a time without one), and no ``state_class`` (HA would expect a number).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from .. import __version__
from ..base.i18n import N_, tr
from ..config.network import NetworkConfig

PREFIX = "homeassistant"
ORIGIN = {"name": "shutbox-hw", "sw_version": __version__}
DIAGNOSTIC = {"entity_category": "diagnostic"}

# key -> (component, name, value template, extra config)
ENTITIES: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "state": ("sensor", N_("State"), "{{ value_json.state }}", {"icon": "mdi:dice-multiple"}),
    "player": ("sensor", N_("Player"), "{{ value_json.player }}", {"icon": "mdi:account"}),
    "last_score": ("sensor", N_("Last score"), "{{ value_json.last_score }}",
                   {"icon": "mdi:counter", "state_class": "measurement"}),
    "games_tonight": ("sensor", N_("Games tonight"), "{{ value_json.games_tonight }}",
                      {"icon": "mdi:counter", "state_class": "measurement"}),
    "best_tonight": ("sensor", N_("Best score tonight"), "{{ value_json.best_tonight }}",
                     {"icon": "mdi:trophy", "state_class": "measurement"}),
    "outbox_queued": ("sensor", N_("Events waiting for the broker"),
                      "{{ value_json.outbox.queued }}",
                      {"icon": "mdi:tray-full", "state_class": "measurement", **DIAGNOSTIC}),
    "outbox_dropped": ("sensor", N_("Events dropped unsent"), "{{ value_json.outbox.dropped }}",
                       {"icon": "mdi:tray-remove", "state_class": "total_increasing",
                        **DIAGNOSTIC}),
    # [backup]: when the newest copy was taken; "None" (unknown): none yet, or off
    "last_backup": ("sensor", N_("Last backup"), "{{ value_json.last_backup }}",
                    {"device_class": "timestamp", "icon": "mdi:backup-restore", **DIAGNOSTIC}),
    "fault": ("binary_sensor", N_("Fault"),
              "{{ 'ON' if value_json.faults else 'OFF' }}",
              {"device_class": "problem",
               # which part: {"parts": "flap 7, mqtt", "faults": [{"device", "detail"}]}
               "json_attributes_template":
                   "{{ {'parts': value_json.fault_parts, 'faults': value_json.faults}"
                   " | tojson }}"}),
}


def discovery_messages(box: str, topics: Mapping[str, str],
                       network: NetworkConfig | None = None) -> Iterator[tuple[str, str]]:
    """(topic, JSON payload) of every entity's discovery config."""
    device: dict[str, Any] = {"identifiers": [f"shutbox_{box}"], "name": f"Shut the Box {box}",
                              "manufacturer": "shutbox-hw", "model": "Shut the Box",
                              "sw_version": __version__}
    if network is not None and network.web_url:
        device["configuration_url"] = network.web_url
    for key, (component, name, template, extra) in ENTITIES.items():
        config: dict[str, Any] = {
            "name": tr(name), "unique_id": f"shutbox_{box}_{key}",
            "default_entity_id": f"{component}.shutbox_{box}_{key}",
            "state_topic": topics["state"], "value_template": template,
            "availability_topic": topics["status"], "payload_available": "online",
            "payload_not_available": "offline", "device": device, "origin": ORIGIN, **extra}
        if "json_attributes_template" in extra:
            config["json_attributes_topic"] = topics["state"]
        yield f"{PREFIX}/{component}/{box}/{key}/config", json.dumps(config)
