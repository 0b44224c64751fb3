"""The light commands start without the hardware libraries (gpiozero, Pillow,
luma, smbus2): each is run in a fresh interpreter, which then lists what it
loaded."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shutbox_hw.store import Store

pytestmark = pytest.mark.process    # what a fresh interpreter imports at start-up

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("gpiozero", "PIL", "luma", "smbus2")
PROBE = """
import json, sys
from shutbox_hw.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_by(argv, env_extra=None):
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True,
                          text=True, env=env_extra, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["code"] == 0, proc.stderr
    return {name.split(".")[0] for name in result["modules"]}


@pytest.fixture
def env(tmp_path):
    return dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))


@pytest.mark.parametrize("argv", [
    ["rules"],
    ["rules", "--rules", "pub", "--json"],
    ["moves", "--rules", "klappenspiel", "--open", "all", "--dice", "3", "4"],
    ["solve", "--rules", "klappenspiel", "--objective", "max-shut", "--dice", "6", "6"],
    ["check-config", str(ROOT / "hardware/mcp23017-12/shutbox.toml")],
    ["check-config", str(ROOT / "hardware/gpio-9/shutbox.toml")],
], ids=lambda a: " ".join(a[:2]))
def test_light_commands_load_no_hardware_library(argv, env):
    modules = loaded_by(argv, env)
    assert "shutbox_hw" in modules
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


def test_history_loads_no_hardware_library(tmp_path, env):
    db = tmp_path / "box.db"
    Store(db).close()
    modules = loaded_by(["history", "--db", str(db)], env)
    assert "sqlite3" in modules
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


def test_the_probe_would_see_a_hardware_library(env):
    """``sim`` draws frames with Pillow: the probe above is not blind."""
    script = ROOT / "tests" / "scripts" / "practice-001.txt"
    modules = loaded_by(["sim", "--rules", "crafthouse-12", "--script", str(script)], env)
    assert "PIL" in modules


def test_audit_loads_no_hardware_library(tmp_path, env):
    db = tmp_path / "box.db"
    Store(db).close()
    modules = loaded_by(["audit", "--db", str(db)], env)
    assert "sqlite3" in modules
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))
