"""The unit file: what the box relies on is there, each sandboxing trap that
once kept it from starting on a Pi stays fixed, and it stays hardened."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

UNIT = Path(__file__).parent.parent / "systemd" / "shutbox-hw.service"


def parse(text: str) -> dict[str, dict[str, list[str]]]:
    """Section -> key -> every value given, in order (systemd allows repeated
    keys, and for some an empty value resets the list)."""
    unit: dict[str, dict[str, list[str]]] = {}
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = unit.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        assert section is not None, f"{line!r} is outside any section"
        section.setdefault(key.strip(), []).append(value.strip())
    return unit


def last(unit: dict, section: str, key: str) -> str | None:
    values = unit.get(section, {}).get(key)
    return values[-1] if values else None


def environment(unit: dict) -> dict[str, str]:
    env = {}
    for value in unit["Service"].get("Environment", []):
        for pair in value.split():
            name, _, val = pair.partition("=")
            env[name] = val
    return env


@pytest.fixture
def unit() -> dict:
    return parse(UNIT.read_text())


def test_unit_runs_the_daemon_with_notify_and_watchdog(unit):
    service = unit["Service"]
    assert last(unit, "Service", "Type") == "notify"
    assert last(unit, "Service", "ExecStart").split()[1:3] == ["run", "--config"]
    assert int(last(unit, "Service", "WatchdogSec")) > 0
    assert last(unit, "Service", "StateDirectory") == "shutbox-hw"
    assert "char-gpiochip rw" in service["DeviceAllow"] and "char-i2c rw" in service["DeviceAllow"]
    assert "PrivateDevices" not in service  # it would hide the pins and the bus
    assert last(unit, "Service", "SupplementaryGroups").split() == ["gpio", "i2c"]


def test_lgpio_has_a_writable_working_directory(unit):
    # lgpio makes its .lgd-nfy* FIFO in $LG_WD, else in the working directory,
    # at import; under ProtectSystem=strict only the unit's own directories
    # are writable
    assert last(unit, "Service", "ProtectSystem") == "strict"
    writable = {f"/run/{last(unit, 'Service', 'RuntimeDirectory')}",
                f"/var/lib/{last(unit, 'Service', 'StateDirectory')}",
                f"/var/cache/{last(unit, 'Service', 'CacheDirectory')}"}
    assert last(unit, "Service", "WorkingDirectory") in writable
    assert environment(unit).get("LG_WD") in writable


def test_gpiozero_can_read_the_board_from_proc(unit):
    # ProcSubset=pid hides /proc/cpuinfo and /proc/device-tree, which
    # gpiozero reads to know the board; ProtectProc=invisible is harmless
    assert last(unit, "Service", "ProcSubset") in (None, "all")
    assert last(unit, "Service", "ProtectProc") == "invisible"


def test_restarts_never_give_up(unit):
    # a unit that reaches its start limit stays failed until someone runs
    # `systemctl reset-failed`: no limit, and a pause between attempts
    assert last(unit, "Service", "Restart") == "always"
    for key in ("StartLimitIntervalSec", "StartLimitBurst", "StartLimitAction"):
        assert key not in unit["Service"], f"{key} belongs in [Unit]"
    interval = last(unit, "Unit", "StartLimitIntervalSec")
    burst = last(unit, "Unit", "StartLimitBurst")
    assert interval in ("0", "infinity") or burst == "0", (interval, burst)
    assert last(unit, "Unit", "StartLimitAction") in (None, "none")
    assert float(last(unit, "Service", "RestartSec").rstrip("s")) >= 1


def test_a_box_that_cannot_start_as_configured_is_not_restarted_for_ever(unit):
    # run exits 2 for a config, pin or pin factory it cannot start with (restarting
    # cannot help: the unit stays failed with the reason) and 75 for what may pass by
    # itself (the I2C bus not there yet at boot), which is tried again like a crash
    from shutbox_hw.base.errors import EXIT_REFUSED, EXIT_RETRY
    prevent = " ".join(unit["Service"].get("RestartPreventExitStatus", [])).split()
    assert prevent == [str(EXIT_REFUSED)]
    assert str(EXIT_RETRY) not in prevent and EXIT_RETRY != EXIT_REFUSED
    assert last(unit, "Service", "Restart") == "always"


def test_documentation_names_what_the_installer_puts_there(unit, installed):
    docs = last(unit, "Unit", "Documentation").split()
    assert docs
    for uri in docs:
        assert uri.startswith("file:///"), uri
        assert (installed.root / uri[len("file:///"):]).is_file(), uri


def _megabytes(value: str) -> float:
    number, unit = float(value[:-1]), value[-1].upper()
    return number * {"K": 1 / 1024, "M": 1, "G": 1024}[unit]


def test_nothing_can_swell_the_box_past_its_bounds(unit):
    """Issue 43: MemoryMax= and the other resource bounds, as on the web's unit: far
    above the box's own budget (benchmarks/run.py, rss_mb), far below a Pi's 512 MB."""
    bench = (UNIT.parent.parent / "benchmarks" / "run.py").read_text()
    budget = int(re.search(r'"rss_mb": \((\d+),', bench).group(1))
    high, most = (_megabytes(last(unit, "Service", k)) for k in ("MemoryHigh", "MemoryMax"))
    assert 2 * budget < high < most <= 256
    assert last(unit, "Service", "MemorySwapMax") == "0"
    assert 16 + 8 <= int(last(unit, "Service", "TasksMax")) <= 256   # the claims' 16 peers
    assert last(unit, "Service", "CPUQuota") == "100%"
    web = parse((UNIT.parent / "shutbox-hw-web.service").read_text())
    assert _megabytes(last(web, "Service", "MemoryMax")) <= 256
    assert last(web, "Service", "TasksMax") and last(web, "Service", "CPUQuota")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_knows_every_key():
    # systemd ignores a key it does not know with a warning (RestartSteps= is
    # 254+; Bookworm has 252): the unit must mean the same on every release
    out = subprocess.run(["systemd-analyze", "verify", str(UNIT)],
                         capture_output=True, text=True)
    problems = [line for line in (out.stdout + out.stderr).splitlines()
                if re.search(r"Unknown (key|section)|Failed to parse|Invalid", line)]
    assert problems == []


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_unit_is_rated_safe_offline():
    out = subprocess.run(["systemd-analyze", "security", "--offline=true", str(UNIT)],
                         capture_output=True, text=True).stdout
    score = float(re.search(r"Overall exposure level for \S+: ([0-9.]+)", out).group(1))
    assert score <= 1.0
