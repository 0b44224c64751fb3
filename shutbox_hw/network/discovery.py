"""Home Assistant MQTT discovery: the box as one device with its sensors.

With ``[network] homeassistant = true`` the publisher sends these retained
configs under ``homeassistant/<component>/<box>/<key>/config`` on every
connection. Each entity reads the retained state topic through a template
and is available while the status topic says ``online`` (the last will turns
it ``offline``). A template rendering ``None`` is HA's "unknown". The names
are in the box's language when the configs are sent (each connection).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

from ..i18n import N_, tr

PREFIX = "homeassistant"

# key -> (component, name, value template, extra config)
ENTITIES: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "state": ("sensor", N_("State"), "{{ value_json.state }}", {"icon": "mdi:dice-multiple"}),
    "player": ("sensor", N_("Player"), "{{ value_json.player }}", {"icon": "mdi:account"}),
    "last_score": ("sensor", N_("Last score"), "{{ value_json.last_score }}",
                   {"icon": "mdi:counter"}),
    "games_tonight": ("sensor", N_("Games tonight"), "{{ value_json.games_tonight }}",
                      {"icon": "mdi:counter", "state_class": "measurement"}),
    "best_tonight": ("sensor", N_("Best score tonight"), "{{ value_json.best_tonight }}",
                     {"icon": "mdi:trophy"}),
    "fault": ("binary_sensor", N_("Fault"),
              "{{ 'ON' if value_json.faults else 'OFF' }}", {"device_class": "problem"}),
}


def discovery_messages(box: str, topics: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """(topic, JSON payload) of every entity's discovery config."""
    device = {"identifiers": [f"shutbox_{box}"], "name": tr("Shut the Box") + f" {box}",
              "manufacturer": "shutbox-hw", "model": "Shut the Box"}
    for key, (component, name, template, extra) in ENTITIES.items():
        config = {"name": tr(name), "unique_id": f"shutbox_{box}_{key}",
                  "object_id": f"shutbox_{box}_{key}",
                  "state_topic": topics["state"], "value_template": template,
                  "availability_topic": topics["status"], "payload_available": "online",
                  "payload_not_available": "offline", "device": device, **extra}
        yield f"{PREFIX}/{component}/{box}/{key}/config", json.dumps(config)
