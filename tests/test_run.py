"""``shutbox-hw run`` on gpiozero's mock pins: starts, tells systemd, stops cleanly."""

import os
import signal
import socket
import subprocess
import sys
import time

from shutbox_hw.sdnotify import Notifier


def config(tmp_path, extra=""):
    path = tmp_path / "box.toml"
    path.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{tmp_path}/box.db"\n'
                    + extra)
    return path


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


def test_run_refuses_the_unsupported_dice_module(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "shutbox_hw.cli", "run", "--config",
                           str(config(tmp_path, '[game]\ndice = "module"\n')),
                           "--pin-factory", "mock"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "dice module" in proc.stderr and "Traceback" not in proc.stderr


def test_run_without_a_pin_library_is_a_clear_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "shutbox_hw.cli", "run", "--config",
                           str(config(tmp_path)), "--pin-factory", "rpigpio"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "rpigpio" in proc.stderr and "Traceback" not in proc.stderr


def test_notifier_is_silent_outside_systemd_and_paces_the_watchdog():
    assert Notifier({}).send("READY=1") is False
    n = Notifier({"NOTIFY_SOCKET": "@nowhere-" + str(time.time()), "WATCHDOG_USEC": "10000000"})
    assert n.address.startswith("\0")
    assert n.watchdog_interval_ms == 4900   # under half of 10 s
    n.watchdog(0)
    assert n.next_deadline_ms() == 4900
