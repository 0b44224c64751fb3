"""The unit file: what the box relies on is there, and it stays hardened."""

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).parent.parent / "systemd" / "shutbox-hw.service"


def settings():
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    text = UNIT.read_text()
    # systemd allows repeated keys; keep the last, which is enough here
    parser.read_string(re.sub(r"^#.*$", "", text, flags=re.M))
    return parser, text


def test_unit_runs_the_daemon_with_notify_and_watchdog():
    unit, text = settings()
    service = unit["Service"]
    assert service["Type"] == "notify"
    assert service["ExecStart"].split()[1:3] == ["run", "--config"]
    assert int(service["WatchdogSec"]) > 0 and service["Restart"] == "always"
    assert service["StateDirectory"] == "shutbox-hw"
    assert "StartLimitIntervalSec" in unit["Unit"]  # belongs in [Unit] (DESIGN.md)
    assert "DeviceAllow=char-gpiochip rw" in text and "DeviceAllow=char-i2c rw" in text
    assert "PrivateDevices" not in unit["Service"]  # it would hide the pins and the bus
    assert "SupplementaryGroups=gpio i2c" in text


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_unit_is_rated_safe_offline():
    out = subprocess.run(["systemd-analyze", "security", "--offline=true", str(UNIT)],
                         capture_output=True, text=True).stdout
    score = float(re.search(r"Overall exposure level for \S+: ([0-9.]+)", out).group(1))
    assert score < 1.0
