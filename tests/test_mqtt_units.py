"""The security of the box's units with ``[network] mqtt`` (issue 30): the
``--mqtt`` drop-in gives the GPIO daemon the LAN only, ``ca_file`` with a plain
``mqtt://`` is refused, and a credentials file others can read is refused by
``check-config`` and never read by the publisher."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_inprocess import Ran, run_cli
from mqtt_broker import Broker, need_broker
from test_systemd_unit import last, parse

from shutbox_hw.netconfig import NetworkConfig

CHECKOUT = Path(__file__).resolve().parent.parent
SYSTEMD = CHECKOUT / "systemd"


def test_the_mqtt_dropin_lets_the_box_reach_the_lan_only():
    """``IPAddressDeny=`` (empty) reset the unit's ``any``: the whole internet."""
    unit = parse((SYSTEMD / "shutbox-hw.service").read_text())
    dropin = parse((SYSTEMD / "shutbox-hw-mqtt.conf").read_text())
    web = parse((SYSTEMD / "shutbox-hw-web.service").read_text())
    denied = unit["Service"]["IPAddressDeny"] + dropin["Service"].get("IPAddressDeny", [])
    assert "" not in denied and denied[-1] == "any"          # no reset: "any" holds
    allowed = last(dropin, "Service", "IPAddressAllow")
    assert allowed == last(web, "Service", "IPAddressAllow")  # the web unit's LAN list
    assert set(allowed.split()) == {"localhost", "link-local", "multicast", "10.0.0.0/8",
                                    "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"}
    assert last(dropin, "Service", "PrivateNetwork") == "no"


def _config(tmp_path: Path, network: str) -> Path:
    path = tmp_path / "box.toml"
    path.write_text(f'[storage]\ndb = "{tmp_path}/box.db"\n[network]\n{network}\n')
    return path


def _check(config: Path) -> Ran:
    return run_cli("check-config", config, cwd=CHECKOUT)


def test_a_ca_file_with_plain_mqtt_is_refused(tmp_path):
    """``ca_file`` with ``mqtt://`` was silently ignored: credentials in clear text."""
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    out = _check(_config(tmp_path, f'mqtt = "mqtt://broker.lan"\nca_file = "{ca}"'))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "[network] ca_file:" in out.stderr and "mqtts://" in out.stderr
    assert "clear text" in out.stderr
    assert _check(_config(tmp_path, f'mqtt = "mqtts://broker.lan"\nca_file = "{ca}"')
                  ).returncode == 0


@pytest.mark.parametrize(("mode", "who"), [(0o644, "everyone"), (0o640, "its group"),
                                           (0o604, "everyone")])
def test_a_credentials_file_others_can_read_is_refused_by_check_config(tmp_path, mode, who):
    credentials = tmp_path / "credentials"
    credentials.write_text("box:secret\n")
    credentials.chmod(mode)
    config = _config(tmp_path, f'mqtt = "mqtt://broker.lan"\ncredentials_file = "{credentials}"')
    out = _check(config)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"can be read by {who}" in out.stderr and "chmod 600" in out.stderr
    assert "secret" not in out.stderr
    credentials.chmod(0o600)
    assert _check(config).returncode == 0


@pytest.mark.broker
def test_the_publisher_never_reads_a_credentials_file_others_can_read(tmp_path):
    need_broker()
    from shutbox_hw.network.publisher import Publisher
    broker = Broker(tmp_path / "pw", passwords=True)
    broker.start()
    credentials = tmp_path / "credentials"
    credentials.write_text(f"{broker.user}:{broker.password}\n")
    credentials.chmod(0o644)
    db = tmp_path / "box.db"
    from shutbox_hw.store import Store
    Store(db).close()
    publisher = Publisher(db, NetworkConfig(mqtt=broker.url, box="pub1",
                                            credentials_file=str(credentials))).start()
    try:
        reports: list = []
        from loopback import wait_for
        assert wait_for(lambda: reports.extend(publisher.reports(0)) or reports, 10)
        assert reports[0].source == "mqtt" and not reports[0].ok
        assert "can be read by everyone" in reports[0].message
        assert "New client connected" not in broker.log()   # it never even tried
    finally:
        publisher.stop()
        broker.kill()
