"""``shutbox-hw run`` on gpiozero's mock pins: starts, tells systemd, stops cleanly."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from other_user import PublicCopy

from shutbox_hw.sdnotify import Notifier


def config(tmp_path, extra=""):
    path = tmp_path / "box.toml"
    path.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{tmp_path}/box.db"\n'
                    + extra)
    return path


@pytest.mark.process    # systemd's notify socket and a real SIGTERM
def test_run_notifies_systemd_and_stops_on_sigterm(tmp_path):
    sock_path = str(tmp_path / "notify.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(sock_path)
    server.settimeout(20)
    env = dict(os.environ, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC="1000000")
    proc = subprocess.Popen([sys.executable, "-m", "shutbox_hw.cli", "run", "--config",
                             str(config(tmp_path)), "--pin-factory", "mock"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        messages = [server.recv(1024).decode()]
        assert messages[0].startswith("READY=1")
        messages.append(server.recv(1024).decode())
        assert "WATCHDOG=1" in messages
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()
        server.close()
    assert (tmp_path / "box.db").exists()
    assert "Traceback" not in proc.stderr.read()


def test_run_takes_the_dice_module_and_names_a_missing_i2c_bus(tmp_path):
    # the module is accepted; here (no /dev/i2c-9) its bus cannot be opened: one line, and
    # exit 75, which the unit restarts (at boot the bus may come a moment after the unit)
    proc = run_cli("run", "--config",
                   config(tmp_path, '[game]\ndice = "module"\n[hardware.dice]\nbus = 9\n'),
                   "--pin-factory", "mock", "--for-seconds", "0.2")
    assert proc.returncode == 75
    assert proc.stderr.startswith("shutbox-hw run: I2C bus 9 cannot be opened"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_refuses_a_pin_the_kernel_holds_in_one_line_with_exit_2(tmp_path):
    # exit 2 is the status the unit does not restart (RestartPreventExitStatus=2)
    boot = tmp_path / "config.txt"
    boot.write_text("[all]\ndtoverlay=gpio-shutdown,gpio_pin=23\n")
    proc = run_cli("run", "--config", config(tmp_path), "--boot-config", boot,
                   "--pin-factory", "mock", "--for-seconds", "0.2")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        "shutbox-hw run: [hardware] roll: GPIO 23 is used by the kernel "
        "(dtoverlay=gpio-shutdown,gpio_pin=23 in config.txt)"]


def test_run_without_a_pin_library_is_a_clear_error(tmp_path):
    proc = run_cli("run", "--config", config(tmp_path), "--pin-factory", "rpigpio")
    assert proc.returncode == 2
    assert "rpigpio" in proc.stderr and "Traceback" not in proc.stderr


def test_notifier_is_silent_outside_systemd_and_paces_the_watchdog():
    assert Notifier({}).send("READY=1") is False
    n = Notifier({"NOTIFY_SOCKET": "@nowhere-" + str(time.time()), "WATCHDOG_USEC": "10000000"})
    assert n.address.startswith("\0")
    assert n.watchdog_interval_ms == 4900   # under half of 10 s
    n.watchdog(0)
    assert n.timer.when == 4900


ROOT = Path(__file__).resolve().parent.parent
FAKE_LGPIO = Path(__file__).parent / "fake_lgpio"
# gpiozero finds the board in /proc; off the Pi the child is told it is a Pi 4 B
AS_A_PI = ("import gpiozero.pins.local as local; local.get_pi_revision = lambda: 0xC03114; "
           "from shutbox_hw.cli import main; raise SystemExit(main())")


@pytest.fixture
def shared_dir():
    """A directory another user can read (pytest's own tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="shutbox-lgwd-"))
    path.chmod(0o755)
    yield path
    for p in sorted(path.rglob("*"), reverse=True):
        p.chmod(0o777)
    shutil.rmtree(path)


def run_with_fake_lgpio(public_copy: PublicCopy, base: Path, cwd: Path, lg_wd: Path | None,
                        read_only: bool = True, **extra_env: str) -> subprocess.CompletedProcess:
    """``shutbox-hw run`` with lgpio from ``cwd`` made read-only (as another user when root:
    root ignores the permission bits)."""
    data = base / "data"
    data.mkdir(exist_ok=True)
    data.chmod(0o777)
    conf = base / "box.toml"
    conf.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{data}/box.db"\n')
    conf.chmod(0o644)
    cwd.chmod(0o555 if read_only else 0o777)
    env = public_copy.env(public_copy.add(FAKE_LGPIO), **extra_env)
    for name in ("LG_WD", "GPIOZERO_PIN_FACTORY"):
        env.pop(name, None)
    if lg_wd is not None:
        env["LG_WD"] = str(lg_wd)
    cmd = public_copy.command("run", "--config", str(conf), "--pin-factory", "lgpio",
                              "--for-seconds", "0.2", code=AS_A_PI)
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.other_user
def test_lgpio_in_a_read_only_directory_is_one_line_naming_it(shared_dir, public_copy):
    cwd = shared_dir / "readonly"
    cwd.mkdir()
    proc = run_with_fake_lgpio(public_copy, shared_dir, cwd, cwd)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "'lgpio'" in lines[0] and f"in {cwd} " in lines[0] and "LG_WD" in lines[0]
    assert not (shared_dir / "data" / "box.db").exists()


@pytest.mark.other_user
def test_lgpio_starts_from_a_read_only_directory_with_lg_wd(shared_dir, public_copy):
    cwd, lg_wd = shared_dir / "readonly", shared_dir / "lgwd"
    cwd.mkdir()
    lg_wd.mkdir()
    lg_wd.chmod(0o777)
    proc = run_with_fake_lgpio(public_copy, shared_dir, cwd, lg_wd)
    assert proc.returncode == 0, proc.stderr
    assert "shutbox-hw running" in proc.stderr
    assert [p.name for p in lg_wd.iterdir()] == [".lgd-nfy0"]   # the FIFO went there
    assert (shared_dir / "data" / "box.db").exists()


@pytest.mark.other_user
def test_lgpio_starts_from_a_writable_working_directory(shared_dir, public_copy):
    cwd = shared_dir / "work"
    cwd.mkdir()
    proc = run_with_fake_lgpio(public_copy, shared_dir, cwd, None, read_only=False)
    assert proc.returncode == 0, proc.stderr
    assert list(cwd.iterdir()) == []     # lgpio had a private LG_WD: nothing left here


@pytest.mark.other_user
def test_a_pin_held_by_another_program_is_one_line(shared_dir, public_copy):
    cwd = shared_dir / "work"
    cwd.mkdir()
    proc = run_with_fake_lgpio(public_copy, shared_dir, cwd, None, read_only=False,
                               FAKE_LGPIO_BUSY="23")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "GPIO busy" in lines[0] and "systemctl stop" in lines[0], lines


@pytest.mark.other_user
def test_without_lg_wd_a_read_only_working_directory_starts_and_nothing_is_left(shared_dir,
                                                                              public_copy):
    cwd, tmp = shared_dir / "readonly", shared_dir / "tmp"
    cwd.mkdir()
    tmp.mkdir()
    tmp.chmod(0o777)
    proc = run_with_fake_lgpio(public_copy, shared_dir, cwd, None, TMPDIR=str(tmp),
                               XDG_RUNTIME_DIR="")
    assert proc.returncode == 0, proc.stderr
    assert "shutbox-hw running" in proc.stderr
    assert list(cwd.iterdir()) == []
    assert list(tmp.iterdir()) == []     # the private folder went at exit, FIFO and all


FAKE_RPIGPIO = Path(__file__).parent / "fake_rpigpio"


@pytest.mark.process    # a stand-in RPi.GPIO on the process's own PYTHONPATH
def test_rpi_gpio_under_the_unit_is_one_line_naming_lgpio(tmp_path):
    # RPi.GPIO 0.7.1 cannot export pins through /sys/class/gpio under the unit
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FAKE_RPIGPIO), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-c", AS_A_PI, "run", "--config",
                           str(config(tmp_path)), "--pin-factory", "rpigpio",
                           "--for-seconds", "0.2"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Failed to add edge detection" in lines[0] and "--pin-factory lgpio" in lines[0]
