"""systemd/league/install.sh on a scratch tree (--root): the venv with the league extra,
the units, league.env written once and kept, league migrate run against a real
PostgreSQL (a cluster as nobody), the ingests and the league's pages enabled and
started (a stand-in systemctl, which starts the pages from the installed unit's
ExecStart line as systemd would), and a clear refusal for each thing that can go
wrong."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from fake_league_systemctl.systemctl import stop_and_wait, unit_setting
from forked import sb_run
from league_parts import Postgres, need_parts
from loopback import free_port
from other_user import setpriv
from wheel_folder import checkout_as, copy_tree, project_wheel

CHECKOUT = Path(__file__).resolve().parents[2]
INSTALLER = CHECKOUT / "systemd" / "league" / "install.sh"
EXAMPLE = CHECKOUT / "systemd" / "league" / "league.env.example"
WEB_UNIT = "shutbox-league-web.service"
PREFIX = "would run: "

# (PostgreSQL runs as nobody from the temporary directory, as in test_league_record.py;
# only the test that runs the installer itself as another user is marked other_user, so
# that test_private_checkout.py runs that one from a private checkout, not the pip runs)
pytestmark = [pytest.mark.install, pytest.mark.league]

# a systemctl for --root (SHUTBOX_SYSTEMCTL): tests/fake_league_systemctl/systemctl.py,
# run by this interpreter directly, without site-packages (it needs the standard library
# only): it is called some fifty times a run
FAKE_SYSTEMCTL = Path(__file__).resolve().parents[1] / "fake_league_systemctl" / "systemctl.py"
# a journalctl for --root (SHUTBOX_JOURNALCTL): the journal's last lines of the pages
FAKE_JOURNALCTL = """#!/bin/sh
echo "shutbox-hw: cannot reach the league's database (a stand-in line)"
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
    journal: Path

    def run(self, *args: str | Path, failing: str = "", root: Path | None = None,
            installer: Path = INSTALLER, wheels: Path | None = None,
            **more: str) -> subprocess.CompletedProcess:
        root = root or self.root
        env = {**os.environ, "SHUTBOX_SYSTEMCTL": str(self.fake), "FAKE_LOG": str(self.log),
               "FAKE_FAILING": failing, "SHUTBOX_INSTALL_SETTLE": "0",
               "FAKE_ROOT": str(root),
               "FAKE_UNITS": str(root / "etc/systemd/system"),
               "FAKE_PIDS": str(root.parent / f"{root.name}.web.pid"),
               "SHUTBOX_JOURNALCTL": str(self.journal), **more}
        return subprocess.run(["bash", str(installer), "--root", str(root), "--wheels",
                               str(wheels or self.wheels), *map(str, args)],
                              capture_output=True, text=True, timeout=600, env=env)

    def stop_web(self, root: Path | None = None) -> None:
        root = root or self.root
        pids = root.parent / f"{root.name}.web.pid"
        if pids.exists():
            stop_and_wait(int(pids.read_text()))
            pids.unlink()

    @property
    def env_file(self) -> Path:
        return self.root / "etc/shutbox-league/league.env"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    need_parts()
    from wheel_folder import make_wheel_folder
    wheels = tmp_path_factory.mktemp("wheels")
    why = make_wheel_folder(CHECKOUT, wheels, "{}.{}".format(*sys.version_info[:2]),
                            extras=("league", "web"))
    if why is not None:
        pytest.skip(f"no wheels to install from offline: {why}")
    scratch = tmp_path_factory.mktemp("league-install")
    fake = scratch / "systemctl"
    fake.write_text(f"#!{sys.executable} -S\n" +
                    FAKE_SYSTEMCTL.read_text().split("\n", 1)[1])
    fake.chmod(0o755)
    journal = scratch / "journalctl"
    journal.write_text(FAKE_JOURNALCTL)
    journal.chmod(0o755)
    pg = Postgres()
    tree = Tree(scratch / "root", wheels, fake, scratch / "systemctl.log", pg, journal)
    try:
        pg.start()
        yield tree
    finally:
        tree.stop_web()
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
             f"LEAGUE_GRACE=30\nLEAGUE_WEB_LISTEN=127.0.0.1:{free_port()}\n" \
             "LEAGUE_WEB_HOSTS=league.example.org  pub.lan\n"
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
    for unit in ("shutbox-league-ingest@.service", "shutbox-league-migrate.service",
                 WEB_UNIT):
        assert (tree.root / "etc/systemd/system" / unit).read_text() == \
            (CHECKOUT / "systemd/league" / unit).read_text()
    assert (tree.root / "opt/shutbox-league/docs/network/league.md").is_file()
    calls = tree.log.read_text().splitlines()
    ingests = [f"shutbox-league-ingest@{n}.service" for n in (1, 2, 3)]
    assert calls[0] == "daemon-reload"
    assert calls[1] == " ".join(["enable", "shutbox-league-migrate.service", *ingests,
                                 WEB_UNIT])
    assert calls[2] == "restart shutbox-league-migrate.service"
    assert calls[3:6] == [f"restart {u}" for u in ingests]
    assert calls[6:9] == [f"is-active --quiet {u}" for u in ingests]
    assert calls[9:] == [f"restart {WEB_UNIT}"]
    assert not any("apt-get" in c for c in would_run(out.stdout))
    # the installed command is the league's: its status answers from the database
    exe = tree.root / "opt/shutbox-league/.venv/bin/shutbox-hw"
    status = subprocess.run([str(exe), "league", "status", "--dsn", tree.pg.dsn, "--json"],
                            capture_output=True, text=True, timeout=60)
    assert status.returncode == 0 and status.stdout == "", status.stderr


def _get(url: str, host: str) -> tuple[int, str]:
    import urllib.error
    import urllib.request
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as answer:
        return answer.code, answer.read().decode()


def test_the_units_command_line_serves_the_standings_page(tree, runs):
    """The installed unit's ExecStart line, run as systemd runs it with league.env's
    values (the stand-in systemctl), against the tests' PostgreSQL: the installer saw
    it answer, and it serves the standings page under the names LEAGUE_WEB_HOSTS
    gives, and no other."""
    listen = re.search(r"^LEAGUE_WEB_LISTEN=(.*)$", runs["edited"], re.M)[1]
    base = f"http://{listen}"
    assert re.search(rf"the league's pages answer on {re.escape(base)}/ after \d+\.\d s$",
                     runs["good"].stdout, re.M), runs["good"].stdout
    pid = int((tree.root.parent / "root.web.pid").read_text())
    # sh exec'd the venv's script (its interpreter first), each name its own --host
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    assert argv[1:] == [str(tree.root / "opt/shutbox-league/.venv/bin/shutbox-hw"),
                        "league", "web", "--dsn", tree.pg.dsn, "--listen", listen,
                        "--host", "league.example.org", "--host", "pub.lan"], argv
    season = sb_run(["league", "season", "--dsn", tree.pg.dsn, "--name",
                     "Spring 27", "--from", "2027-03-01", "--to", "2027-05-31",
                     "--rules", "crafthouse-12"], timeout=60)
    assert season.returncode == 0, season.stderr
    for host in ("league.example.org", "pub.lan", listen):
        status, html = _get(f"{base}/standings?season=Spring%2027", host)
        assert status == 200 and "Spring 27" in html, (host, status, html[:300])
    status, _ = _get(f"{base}/standings?season=Spring%2027", "elsewhere.example")
    assert status == 421


def test_pages_that_do_not_answer_are_said_with_the_journal(tree, runs):
    out = tree.run("--skip-system-packages", "--ingests", "1", FAKE_SILENT="1",
                   SHUTBOX_INSTALL_WEB_WAIT="1")
    assert out.returncode == 1, out.stderr
    assert "shutbox-league-web.service does not answer on http://127.0.0.1:" in out.stderr
    assert "(LEAGUE_WEB_LISTEN) within 1 s; its journal's last lines:" in out.stderr
    assert "would run: journalctl -u shutbox-league-web.service" in out.stderr
    assert "    shutbox-hw: cannot reach the league's database (a stand-in" in out.stderr
    assert "Traceback" not in out.stderr
    refused = tree.run("--skip-system-packages", "--ingests", "1", failing="web")
    one_line_error(refused, "shutbox-league-web.service did not start", status=1)
    assert "journalctl -u shutbox-league-web.service" in refused.stderr
    again = tree.run("--skip-system-packages", "--ingests", "1")      # mended
    assert again.returncode == 0, again.stderr
    assert "the league's pages answer on" in again.stdout


def test_no_web_leaves_the_pages_out(tree, runs, tmp_path):
    root = tmp_path / "root"
    copy_tree(tree.root, root)
    env_file = root / "etc/shutbox-league/league.env"
    # a league.env from before the pages: refused without --no-web, in one line
    env_file.write_text("".join(line + "\n" for line in runs["edited"].splitlines()
                                if not line.startswith("LEAGUE_WEB_")))
    before = tree.run("--skip-system-packages", "--ingests", "1", root=root)
    one_line_error(before, "has no LEAGUE_WEB_LISTEN (league.env.example has it)")
    assert (root / "etc/systemd/system" / WEB_UNIT).is_file()    # still the earlier one
    tree.log.write_text("")
    out = tree.run("--skip-system-packages", "--ingests", "1", "--no-web", root=root)
    assert out.returncode == 0, out.stderr
    assert not (root / "etc/systemd/system" / WEB_UNIT).exists()
    assert f"systemctl disable --now {WEB_UNIT}" in would_run(out.stdout)
    calls = tree.log.read_text().splitlines()
    enable = next(c for c in calls if c.startswith("enable "))
    assert WEB_UNIT not in enable and "shutbox-league-ingest@1.service" in enable
    assert f"restart {WEB_UNIT}" not in calls
    assert "pages answer" not in out.stdout
    tree.stop_web(root)


def _newer_checkout(tmp_path: Path, version: str) -> Path:
    """What the league's installer reads of this checkout, as version ``version``."""
    return checkout_as(CHECKOUT, tmp_path / "newer", version,
                       ("pyproject.toml", "setup.py", "README.md", "shutbox_hw", "firmware",
                        "systemd", "docs/network/league.md"))


def _dists(root: Path) -> dict[str, int]:
    """The venv's distributions (their .dist-info folders), each with its RECORD's mtime."""
    site = next((root / "opt/shutbox-league/.venv/lib").glob("python3*/site-packages"))
    return {p.name: (p / "RECORD").stat().st_mtime_ns for p in site.glob("*.dist-info")}


def test_a_run_again_from_the_same_wheels_leaves_pip_out_and_new_wheels_go_in(
        tree, runs, tmp_path):
    """Run again with the wheels the venv was installed from, the installer says it
    leaves the venv as it is (pip not run: nothing in it written again); a newer wheel of
    shutbox-hw is installed, and a folder that changed in any wheel runs pip again."""
    root = tmp_path / "root"
    copy_tree(tree.root, root)
    before = _dists(root)
    same = tree.run("--skip-system-packages", "--ingests", "1", "--no-web", root=root)
    assert same.returncode == 0, same.stderr
    assert f"{root}/opt/shutbox-league/.venv holds what the wheels of {tree.wheels} give " \
           "already (installed from them, unchanged since): pip not run" in same.stdout
    assert "install.sh: installed shutbox-hw 0.1.0 with psycopg" in same.stdout
    assert _dists(root) == before

    newer = _newer_checkout(tmp_path, "0.1.1")
    wheels = tmp_path / "wheels"
    copy_tree(tree.wheels, wheels)
    project_wheel(newer, wheels)
    out = tree.run("--skip-system-packages", "--ingests", "1", "--no-web", root=root,
                   installer=newer / "systemd/league/install.sh", wheels=wheels)
    assert out.returncode == 0, out.stderr
    assert "pip not run" not in out.stdout
    assert "install.sh: installed shutbox-hw 0.1.1 with psycopg" in out.stdout
    after = _dists(root)
    assert "shutbox_hw-0.1.1.dist-info" in after and "shutbox_hw-0.1.0.dist-info" not in after
    again = tree.run("--skip-system-packages", "--ingests", "1", "--no-web", root=root,
                     installer=newer / "systemd/league/install.sh", wheels=wheels)
    assert again.returncode == 0 and "pip not run" in again.stdout, again.stdout

    # one wheel of the folder other than it was (here: one gone), and pip runs again
    setuptools, = wheels.glob("setuptools-*.whl")
    setuptools.unlink()
    changed = tree.run("--skip-system-packages", "--ingests", "1", "--no-web", root=root,
                       installer=newer / "systemd/league/install.sh", wheels=wheels)
    assert changed.returncode == 0, changed.stderr
    assert "pip not run" not in changed.stdout
    assert "install.sh: installed shutbox-hw 0.1.1 with psycopg" in changed.stdout


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
    copy_tree(tree.root, root)
    env = {**os.environ, "SHUTBOX_INSTALL_SETTLE": "0"}
    out = subprocess.run(["bash", str(INSTALLER), "--root", str(root), "--uninstall"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    disable = next(c for c in would_run(out.stdout) if c.startswith("systemctl disable"))
    assert disable.split()[3:] == [WEB_UNIT, "shutbox-league-migrate.service"]
    assert not (root / "opt/shutbox-league").exists()
    assert not (root / "etc/systemd/system/shutbox-league-ingest@.service").exists()
    assert not (root / "etc/systemd/system" / WEB_UNIT).exists()
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
                   "--local-database", "--no-web", "--uninstall"):
        assert option in out.stdout


def test_the_web_unit_passes_systemd_analyze_verify(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("no systemd-analyze here")
    units = tmp_path / "units"
    units.mkdir()
    for unit in ("shutbox-league-migrate.service", WEB_UNIT):
        shutil.copy(CHECKOUT / "systemd/league" / unit, units / unit)

    def verify(path: Path) -> subprocess.CompletedProcess:
        return subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True,
                              text=True, timeout=60)
    # the tool is trusted only if it catches a unit spoiled on purpose
    spoiled = units / "spoiled.service"
    spoiled.write_text((units / WEB_UNIT).read_text().replace(
        "ExecStart=/bin/sh", "ExecStart=bin/sh").replace("Restart=on-failure",
                                                         "Restart=sometimes"))
    caught = verify(spoiled)
    if caught.returncode == 0 and "sometimes" not in caught.stderr:
        pytest.skip(f"systemd-analyze verify does not check units here: {caught.stderr!r}")
    spoiled.unlink()
    out = verify(units / WEB_UNIT)
    assert out.returncode == 0 and out.stderr == "", out.stderr


# the settings that are the ingest's sandbox (the web unit must have each, the same)
SANDBOX = ("User", "Group", "UMask", "ProtectSystem", "ProtectHome", "PrivateTmp",
           "PrivateDevices", "PrivateIPC", "PrivateMounts", "DevicePolicy", "NoNewPrivileges",
           "CapabilityBoundingSet", "AmbientCapabilities", "ProtectKernelTunables",
           "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups", "ProtectClock",
           "ProtectHostname", "ProtectProc", "ProcSubset", "RestrictAddressFamilies",
           "RestrictNamespaces", "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality",
           "MemoryDenyWriteExecute", "RemoveIPC", "KeyringMode", "SystemCallArchitectures",
           "SystemCallFilter", "EnvironmentFile")


def test_the_web_unit_is_sandboxed_as_the_ingests_are():
    ingest = (CHECKOUT / "systemd/league/shutbox-league-ingest@.service").read_text()
    web = (CHECKOUT / "systemd/league" / WEB_UNIT).read_text()
    for key in SANDBOX:
        assert unit_setting(web, key) == unit_setting(ingest, key) != [], key
    # no write access anywhere: no ReadWritePaths, no state or runtime directory
    for key in ("ReadWritePaths", "StateDirectory", "RuntimeDirectory", "LogsDirectory",
                "CacheDirectory"):
        assert unit_setting(web, key) == [], key
    assert unit_setting(web, "Restart") == ["on-failure"]
    assert unit_setting(web, "MemoryMax") != []
    assert "shutbox-league-migrate.service" in unit_setting(web, "After")[0].split()
    assert unit_setting(web, "Requires") == ["shutbox-league-migrate.service"]
