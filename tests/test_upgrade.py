"""Upgrades that roll back, under install.sh --root: each version goes into its
own venv beside the running one; a version that refuses the config is never
switched to; one that does not report ready is switched away from again; the
previous version is kept for --rollback. systemctl is played by
tests/fake_systemctl/systemctl; a newer version is this checkout with its
version number raised (and, where it must refuse, one pin more kept back)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CHECKOUT, INSTALLER
from wheel_folder import checkout_as, copy_tree, project_wheel

from shutbox_hw.store.tables import schema

FAKE = Path(__file__).parent / "fake_systemctl" / "systemctl"
NEW_VERSION = "9.9.9"


def newer_checkout(tmp_path: Path, refuse_pin: int | None = None) -> Path:
    """This checkout as version 9.9.9; ``refuse_pin`` makes that version keep a BCM pin
    back (a new refusal, like the 14/15 one), so a config using it is refused."""
    src = checkout_as(CHECKOUT, tmp_path / "newer", NEW_VERSION,
                      ("pyproject.toml", "setup.py", "README.md", "shutbox_hw", "firmware",
                       "systemd", "hardware"))
    if refuse_pin is not None:
        config = src / "shutbox_hw/hal/contracts/wiring.py"
        text = config.read_text().replace(
            "RESERVED_PINS = {", f'RESERVED_PINS = {{{refuse_pin}: "kept back by 9.9.9", ')
        config.write_text(text)
    return src


def wheels_with(installed, src: Path, tmp_path: Path) -> Path:
    wheels = tmp_path / "wheels"
    copy_tree(installed.wheels, wheels)
    project_wheel(src, wheels)
    return wheels


def install(src: Path, root: Path, wheels: Path, *args: str,
            failing: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, SHUTBOX_SYSTEMCTL=str(FAKE), SHUTBOX_INSTALL_SETTLE="0",
               FAKE_ROOT=str(root), FAKE_LOG=str(root / "systemctl.log"), FAKE_FAILING=failing)
    return subprocess.run(["bash", str(src / "systemd/install.sh"), "--root", str(root),
                           "--wheels", str(wheels), "--skip-system-packages", *args],
                          capture_output=True, text=True, timeout=600, env=env)


def link(root: Path, name: str = ".venv") -> str:
    return os.readlink(root / "opt/shutbox-hw" / name)


def versions(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "opt/shutbox-hw/versions").iterdir())


@pytest.fixture
def box(installed, tmp_path):
    root = tmp_path / "root"
    copy_tree(installed.root, root)
    (root / "systemctl.log").write_text("")
    return root


def test_the_installed_box_runs_a_version_link(installed):
    root = installed.root
    current = link(root)
    assert current.startswith("versions/0.1.0-")
    assert (root / "opt/shutbox-hw/.venv/bin/shutbox-hw").exists()
    assert link(root, "previous").startswith("versions/0.1.0-")   # the first install
    assert (root / "opt/shutbox-hw" / current / "shutbox-hw.service").read_text() == \
        (CHECKOUT / "systemd/shutbox-hw.service").read_text()


def test_a_new_version_that_refuses_the_config_is_never_switched_to(installed, box, tmp_path):
    src = newer_checkout(tmp_path, refuse_pin=23)    # the config's ROLL
    before, kept = link(box), versions(box)
    out = install(src, box, wheels_with(installed, src, tmp_path))
    assert out.returncode == 2, out.stderr
    assert "roll: BCM 23 is kept back by 9.9.9" in out.stderr
    assert f"{before} keeps running, nothing changed" in out.stderr
    # refused by the new code with the running version's libraries: no venv was built
    assert "installed shutbox-hw" not in out.stdout, out.stdout
    assert link(box) == before and versions(box) == kept
    assert "restart" not in (box / "systemctl.log").read_text()


def test_a_version_that_does_not_come_up_is_rolled_back_and_a_good_one_keeps_the_old(
        installed, box, tmp_path):
    src = newer_checkout(tmp_path)
    wheels = wheels_with(installed, src, tmp_path)
    old = link(box)
    db = box / "var/lib/shutbox-hw/shutbox.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    sqlite3.connect(db).close()

    out = install(src, box, wheels, failing=NEW_VERSION)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "did not come up: it did not report ready" in out.stderr
    assert f"{old} is running again" in out.stderr
    assert link(box) == old and not any(NEW_VERSION in v for v in versions(box))
    calls = (box / "systemctl.log").read_text().splitlines()
    restarts = [c for c in calls if c.startswith("restart")]
    assert [r.split(" @ ")[1].split("/")[1].split("-")[0] for r in restarts] == \
        [NEW_VERSION, "0.1.0"]
    assert list(db.parent.glob("shutbox.db.before-9.9.9-*"))     # copied before the switch

    out = install(src, box, wheels)
    assert out.returncode == 0, out.stderr
    new = link(box)
    assert NEW_VERSION in new and link(box, "previous") == old
    assert versions(box) == sorted([old.split("/")[1], new.split("/")[1]])

    out = install(src, box, wheels, "--rollback")
    assert out.returncode == 0, out.stderr
    assert link(box) == old and link(box, "previous") == new
    assert "running" in out.stdout and old in out.stdout


def test_rollback_without_an_earlier_version_is_one_line(tmp_path):
    out = subprocess.run(["bash", str(INSTALLER), "--root", str(tmp_path), "--rollback"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "no earlier version" in out.stderr


def test_check_config_refuses_a_database_of_a_newer_schema(tmp_path):
    config = tmp_path / "box.toml"
    config.write_text("[hardware.display]\ndriver = \"none\"\n")
    db = tmp_path / "box.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA application_id = 1396856919")    # "SBHW"
        conn.execute("PRAGMA user_version = 99")
        conn.execute("CREATE TABLE games (id INTEGER)")
    out = subprocess.run([sys.executable, "-m", "shutbox_hw", "check-config", "box.toml",
                          "--db", "box.db"], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(CHECKOUT)))
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "box.toml: [storage] db: box.db was written by a newer shutbox-hw (schema 99); "
        f"upgrade shutbox-hw (this one reads schema {schema.VERSION})"]
