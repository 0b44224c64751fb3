"""The [network] and [web] tables: every mistake one line naming the key."""

from __future__ import annotations

import pytest

from shutbox_hw.config.config_file import parse_config
from shutbox_hw.config.network import Broker, parse_broker, parse_listen


@pytest.mark.parametrize("url, broker", [
    ("mqtt://broker.lan", Broker("broker.lan", 1883, False)),
    ("mqtt://10.0.0.2:1884", Broker("10.0.0.2", 1884, False)),
    ("mqtts://broker.lan", Broker("broker.lan", 8883, True)),
    ("mqtts://[fd00::1]:8884/", Broker("fd00::1", 8884, True)),
])
def test_broker_urls(url, broker):
    assert parse_broker(url) == broker


@pytest.mark.parametrize("table, key, words", [
    ({"network": {"mqtt": "http://x"}}, "mqtt", "mqtt://host:port"),
    ({"network": {"mqtt": "mqtt://x:99999"}}, "mqtt", "bad port"),
    ({"network": {"mqtt": "mqtt://user:pw@x"}}, "mqtt", "credentials_file"),
    ({"network": {"mqtt": "mqtt://x/topic"}}, "mqtt", "only mqtt://host:port"),
    ({"network": {"mqtt": 1883}}, "mqtt", "expected text"),
    ({"network": {"box": "pub/1"}}, "box", "letters, digits"),
    ({"network": {"homeassistant": "yes"}}, "homeassistant", "true or false"),
    ({"network": {"homeassistant": True}}, "mqtt", "need mqtt"),
    ({"network": {"port": 1}}, "port", "unknown key"),
    ({"web": {"listen": "8080"}}, "listen", "host:port"),
    ({"web": {"listen": "0.0.0.0:0"}}, "listen", "host:port"),
    ({"web": {"token_file": ""}}, "token_file", "file path"),
])
def test_mistakes_are_one_line_naming_the_key(table, key, words):
    config, problems = parse_config(table)
    assert config is None and len(problems) == 1, problems
    table_name = next(iter(table))
    assert problems[0].startswith(f"[{table_name}] {key}: ") and words in problems[0]


def test_defaults_and_a_full_table():
    config, problems = parse_config({})
    assert problems == [] and config is not None
    assert config.network.mqtt is None and config.web.listen == "0.0.0.0:8080"
    assert config.web.token_file is None
    config, problems = parse_config({"network": {
        "mqtt": "mqtts://b:8883", "credentials_file": "/etc/shutbox-hw/mqtt", "box": "bar-2",
        "homeassistant": True}, "web": {"listen": "[::]:80", "token_file": "/etc/t"}})
    assert problems == [] and config is not None
    assert config.network.box_id == "bar-2" and config.network.broker == Broker("b", 8883, True)
    assert parse_listen(config.web.listen) == ("::", 80)
