"""The web unit and the drop-ins of ``install.sh --web`` / ``--mqtt``: hardened, its own
user, read-only on the database; and the installer puts them where systemd looks."""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CHECKOUT, run_installer
from test_systemd_unit import last, parse
from wheel_folder import copy_tree, make_wheel_folder

from shutbox_hw.store import Store

SYSTEMD = CHECKOUT / "systemd"
WEB_UNIT = SYSTEMD / "shutbox-hw-web.service"
PREFIX = "would run: "


def test_the_web_unit_runs_web_as_its_own_user_reading_the_database_only():
    unit = parse(WEB_UNIT.read_text())
    service = unit["Service"]
    assert last(unit, "Service", "ExecStart").split()[1:3] == ["web", "--config"]
    assert last(unit, "Service", "User") == "shutbox-web" != "shutbox"
    assert last(unit, "Service", "SupplementaryGroups") == "shutbox"   # group read only
    assert last(unit, "Service", "ProtectSystem") == "strict"
    assert "/var/lib/shutbox-hw" in service["ReadOnlyPaths"]
    assert "ReadWritePaths" not in service and "StateDirectory" not in service
    assert last(unit, "Service", "CapabilityBoundingSet") == ""
    # it stops within its own graceful time, well before systemd would kill it
    from shutbox_hw.commands.serve.web import GRACE_S
    assert GRACE_S < int(last(unit, "Service", "TimeoutStopSec")) <= 15
    # the box's own unit, with the web drop-in: files for the group to read, not write
    dropin = parse((SYSTEMD / "shutbox-hw-web.conf").read_text())
    assert last(dropin, "Service", "UMask") == "0027"
    assert last(dropin, "Service", "StateDirectoryMode") == "0750"
    mqtt = parse((SYSTEMD / "shutbox-hw-mqtt.conf").read_text())
    assert last(mqtt, "Service", "PrivateNetwork") == "no"
    assert "IPAddressDeny" not in mqtt["Service"]   # the unit's "any" stays
    assert "AF_INET" in last(mqtt, "Service", "RestrictAddressFamilies")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_web_unit_is_rated_at_most_1_5():
    out = subprocess.run(["systemd-analyze", "security", "--offline=true", str(WEB_UNIT)],
                         capture_output=True, text=True).stdout
    score = float(re.search(r"Overall exposure level for \S+: ([0-9.]+)", out).group(1))
    assert score <= 1.5, out
    out = subprocess.run(["systemd-analyze", "verify", str(WEB_UNIT)],
                         capture_output=True, text=True)
    problems = [line for line in (out.stdout + out.stderr).splitlines()
                if re.search(r"Unknown (key|section)|Failed to parse|Invalid", line)]
    assert problems == []


def test_install_web_and_mqtt(installed, tmp_path):
    """--web --mqtt over an installed box: the extras from the wheels, the unit, the
    drop-ins, the user, a database made before now group-readable."""
    root = tmp_path / "root"
    copy_tree(installed.root, root)
    db = root / "var/lib/shutbox-hw/shutbox.db"
    db.parent.mkdir(parents=True)
    Store(db).close()           # the box's database: the installer checks it first
    db.chmod(0o600)
    # the installed box's wheels and the web and mqtt extras' (with what they need),
    # packed from this Python as tests/wheel_folder.py packs the others: no index asked
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    version = subprocess.run(["/usr/bin/python3" if Path("/usr/bin/python3").exists()
                              else sys.executable, "-c",
                              "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    why = make_wheel_folder(CHECKOUT, wheels, version, extras=("pi", "web", "mqtt"))
    if why is not None:
        pytest.skip(f"the web and mqtt wheels cannot be made here: {why}")
    assert {p.name for p in installed.wheels.glob("*.whl")} <= \
        {p.name for p in wheels.glob("*.whl")}
    out = run_installer("--root", root, "--wheels", wheels, "--skip-system-packages",
                        "--web", "--mqtt")
    assert out.returncode == 0, out.stderr
    ran = [line[len(PREFIX):] for line in out.stdout.splitlines() if line.startswith(PREFIX)]
    assert any(r.startswith("useradd --system --user-group --groups shutbox") and
               r.endswith("shutbox-web") for r in ran)
    assert "systemctl enable shutbox-hw-web.service" in ran
    etc = root / "etc/systemd/system"
    assert (etc / "shutbox-hw-web.service").read_text() == WEB_UNIT.read_text()
    assert (etc / "shutbox-hw.service.d/web.conf").exists()
    assert (etc / "shutbox-hw.service.d/mqtt.conf").exists()
    assert stat.S_IMODE(db.stat().st_mode) == 0o640
    site = next((root / "opt/shutbox-hw/.venv/lib").glob("python3*/site-packages"))
    assert (site / "starlette").is_dir() and (site / "paho").is_dir()
    out = run_installer("--root", root, "--uninstall")
    assert out.returncode == 0, out.stderr
    assert not (etc / "shutbox-hw-web.service").exists()
    assert not (etc / "shutbox-hw.service.d").exists()
