"""systemd/league/install.sh on a scratch tree (--root): the venv with the league extra,
the units, league.env written once and kept, league migrate run against a real
PostgreSQL (a cluster as nobody), the ingests enabled and started (a stand-in
systemctl), and a clear refusal for each thing that can go wrong."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from league_parts import Postgres, need_parts
from other_user import setpriv

CHECKOUT = Path(__file__).resolve().parents[2]
INSTALLER = CHECKOUT / "systemd" / "league" / "install.sh"
EXAMPLE = CHECKOUT / "systemd" / "league" / "league.env.example"
PREFIX = "would run: "

# (PostgreSQL runs as nobody from the temporary directory, as in test_league_record.py;
# only the test that runs the installer itself as another user is marked other_user, so
# that test_private_checkout.py runs that one from a private checkout, not the pip runs)
pytestmark = [pytest.mark.install, pytest.mark.league]

# a systemctl for --root (SHUTBOX_SYSTEMCTL): every call logged; a unit whose name
# contains $FAKE_FAILING fails to restart
FAKE_SYSTEMCTL = """#!/usr/bin/env python3
import os, sys
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
failing = os.environ.get("FAKE_FAILING", "")
if sys.argv[1] in ("restart", "is-active") and failing and failing in sys.argv[-1]:
    sys.exit(1)
"""


def would_run(out: str) -> list[str]:
    return [line[len(PREFIX):] for line in out.splitlines() if line.startswith(PREFIX)]


def one_line_error(out: subprocess.CompletedProcess, words: str, status: int = 2) -> None:
    assert out.returncode == status, (out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1 and words in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


@dataclass
class Tree:
    root: Path
    wheels: Path
    fake: Path
    log: Path
    pg: Postgres

    def run(self, *args: str | Path, failing: str = "") -> subprocess.CompletedProcess:
        env = {**os.environ, "SHUTBOX_SYSTEMCTL": str(self.fake), "FAKE_LOG": str(self.log),
               "FAKE_FAILING": failing, "SHUTBOX_INSTALL_SETTLE": "0"}
        return subprocess.run(["bash", str(INSTALLER), "--root", str(self.root), "--wheels",
                               str(self.wheels), *map(str, args)],
                              capture_output=True, text=True, timeout=600, env=env)

    @property
    def env_file(self) -> Path:
        return self.root / "etc/shutbox-league/league.env"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    need_parts()
    from wheel_folder import make_wheel_folder
    wheels = tmp_path_factory.mktemp("wheels")
    why = make_wheel_folder(CHECKOUT, wheels, "{}.{}".format(*sys.version_info[:2]),
                            extras=("league",))
    if why is not None:
        pytest.skip(f"no wheels to install from offline: {why}")
    scratch = tmp_path_factory.mktemp("league-install")
    fake = scratch / "systemctl"
    fake.write_text(FAKE_SYSTEMCTL)
    fake.chmod(0o755)
    pg = Postgres()
    try:
        pg.start()
        yield Tree(scratch / "root", wheels, fake, scratch / "systemctl.log", pg)
    finally:
        pg.destroy()


@pytest.fixture(scope="module")
def runs(tree):
    """The installs a new server goes through: no broker account yet, then a DSN that
    reaches nothing, then the settings right (edited by the organiser)."""
    no_credentials = tree.run()
    written = tree.env_file.read_text()
    (tree.env_file.parent / "mqtt.credentials").write_text("league:secret\n")
    unreachable = tree.env_file.read_text().replace(
        "host=/run/postgresql", f"host={tree.root}/no-postgresql")
    tree.env_file.write_text(unreachable)
    no_database = tree.run("--skip-system-packages")
    edited = f"# ours\nLEAGUE_DSN={tree.pg.dsn}\nLEAGUE_MQTT=mqtt://league.example:1883\n" \
             "LEAGUE_GRACE=30\n"
    tree.env_file.write_text(edited)
    tree.log.write_text("")
    good = tree.run("--skip-system-packages", "--ingests", "3")
    return {"no_credentials": no_credentials, "written": written, "no_database": no_database,
            "edited": edited, "good": good}


def test_a_first_run_installs_and_asks_for_the_brokers_account(tree, runs):
    out = runs["no_credentials"]
    one_line_error(out, "no user:password in")
    assert "mqtt.credentials" in out.stderr
    first = would_run(out.stdout)
    assert "apt-get update" in first
    install = next(c for c in first if "apt-get install" in c).split()
    assert {"python3-venv", "postgresql", "mosquitto"} <= set(install)
    useradd = next(c for c in first if c.startswith("useradd"))
    assert "--system" in useradd and useradd.split()[-1] == "shutbox-league"
    assert runs["written"] == EXAMPLE.read_text()          # the example, as it is
    assert oct(tree.env_file.stat().st_mode & 0o777) == "0o640"
    site = next((tree.root / "opt/shutbox-league/.venv/lib").glob("python3*/site-packages"))
    names = {p.name.split("-")[0].lower().replace("_", "-") for p in site.glob("*.dist-info")}
    assert {"shutbox-hw", "psycopg", "psycopg-binary", "paho-mqtt"} <= names


def test_a_dsn_that_reaches_nothing_is_said_in_one_line(runs):
    out = runs["no_database"]
    one_line_error(out, "league migrate failed with LEAGUE_DSN")
    assert "cannot reach the league's database" in out.stderr
    assert "--local-database" in out.stderr and "no-postgresql" in out.stderr
    assert "enable" not in out.stdout and "restart" not in out.stdout


def test_the_settings_right_it_migrates_enables_and_starts(tree, runs):
    out = runs["good"]
    assert out.returncode == 0, out.stderr
    assert tree.env_file.read_text() == runs["edited"]     # the organiser's edits kept
    assert "keeping" in out.stdout and "league schema" in out.stdout
    assert tree.pg.query("SELECT count(*) FROM games") == [(0,)]     # migrated
    for unit in ("shutbox-league-ingest@.service", "shutbox-league-migrate.service"):
        assert (tree.root / "etc/systemd/system" / unit).read_text() == \
            (CHECKOUT / "systemd/league" / unit).read_text()
    assert (tree.root / "opt/shutbox-league/docs/network/league.md").is_file()
    calls = tree.log.read_text().splitlines()
    ingests = [f"shutbox-league-ingest@{n}.service" for n in (1, 2, 3)]
    assert calls[0] == "daemon-reload"
    assert calls[1] == " ".join(["enable", "shutbox-league-migrate.service", *ingests])
    assert calls[2] == "restart shutbox-league-migrate.service"
    assert calls[3:6] == [f"restart {u}" for u in ingests]
    assert calls[6:] == [f"is-active --quiet {u}" for u in ingests]
    assert not any("apt-get" in c for c in would_run(out.stdout))
    # the installed command is the league's: its status answers from the database
    exe = tree.root / "opt/shutbox-league/.venv/bin/shutbox-hw"
    status = subprocess.run([str(exe), "league", "status", "--dsn", tree.pg.dsn, "--json"],
                            capture_output=True, text=True, timeout=60)
    assert status.returncode == 0 and status.stdout == "", status.stderr


def test_an_ingest_that_does_not_start_is_named(tree, runs):
    out = tree.run("--skip-system-packages", "--ingests", "2", failing="ingest@2")
    assert out.returncode == 1, out.stderr
    assert out.stderr.count("\n") == 1
    assert "shutbox-league-ingest@2.service did not start" in out.stderr
    assert "journalctl -u shutbox-league-ingest@2.service" in out.stderr
    assert tree.env_file.read_text() == runs["edited"]


def test_local_database_makes_the_role_and_the_database(tree, runs):
    out = tree.run("--skip-system-packages", "--ingests", "1", "--local-database")
    assert out.returncode == 0, out.stderr
    commands = would_run(out.stdout)
    assert "runuser -u postgres -- createuser shutbox-league" in commands
    assert "runuser -u postgres -- createdb -O shutbox-league league" in commands
    # made before the migration that needs them
    assert commands.index("runuser -u postgres -- createdb -O shutbox-league league") < \
        next(i for i, c in enumerate(commands) if c.startswith("systemctl enable"))


def test_uninstall_keeps_the_settings(tree, runs, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(tree.root, root, symlinks=True)
    env = {**os.environ, "SHUTBOX_INSTALL_SETTLE": "0"}
    out = subprocess.run(["bash", str(INSTALLER), "--root", str(root), "--uninstall"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert "systemctl disable --now shutbox-league-migrate.service" in would_run(out.stdout)
    assert not (root / "opt/shutbox-league").exists()
    assert not (root / "etc/systemd/system/shutbox-league-ingest@.service").exists()
    assert (root / "etc/shutbox-league/league.env").read_text() == runs["edited"]


def test_mistakes_are_one_line(tmp_path):
    def run(*args):
        return subprocess.run(["bash", str(INSTALLER), *map(str, args)],
                              capture_output=True, text=True, timeout=60)
    one_line_error(run("--frobnicate"), "unknown option --frobnicate")
    one_line_error(run("--root"), "--root needs a value")
    one_line_error(run("--root", tmp_path, "--ingests", "0"), "--ingests: '0'")
    one_line_error(run("--root", tmp_path, "--wheels", tmp_path / "none"),
                   "--wheels: no directory")
    assert not (tmp_path / "opt").exists()


@pytest.mark.other_user
def test_without_root_it_refuses(public_copy):
    for part in ("pyproject.toml", "shutbox_hw", "systemd"):
        public_copy.add(CHECKOUT / part, f"checkout/{part}")
    installer = public_copy.root / "checkout" / "systemd" / "league" / INSTALLER.name
    out = subprocess.run([*setpriv(), "bash", str(installer)], capture_output=True, text=True,
                         cwd="/")
    one_line_error(out, "must run as root")


def test_help_names_every_option():
    out = subprocess.run(["bash", str(INSTALLER), "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    for option in ("--root", "--wheels", "--skip-system-packages", "--ingests",
                   "--local-database", "--uninstall"):
        assert option in out.stdout
