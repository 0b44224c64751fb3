"""tests/cli_inprocess.py, the CLI run in the test's own process: it answers as the
real ``shutbox-hw`` process does, and leaves the test's process as it found it."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from cli_inprocess import run_cli

from shutbox_hw.base import i18n
from shutbox_hw.commands.play import rules

EXE = Path(sys.executable).with_name("shutbox-hw")

CASES = [
    [],                                                      # a usage mistake: no command
    ["--help"],
    ["rules", "--help"],
    ["bogus"],
    ["moves", "--rules", "pub", "--open", "1,x"],
    ["moves", "--rules", "pub", "--open", "all", "--dice", "3", "4"],
    ["rules", "--rules", "crafthouse-12", "--json"],
    ["rules", "--set", "multiplication=yes"],
    ["check-config", "{t}/bad.toml"],
    ["check-config", "{t}/missing.toml"],
    ["history", "--limit", "7" * 300],
]


@pytest.mark.process     # the comparison needs the real process
@pytest.mark.parametrize("argv", CASES, ids=lambda argv: " ".join(argv)[:40] or "bare")
def test_it_answers_as_the_real_process_does(argv, tmp_path):
    (tmp_path / "bad.toml").write_text('[hardware]\nflaps = 3\n[game]\nplayer_names = 5\n')
    argv = [arg.replace("{t}", str(tmp_path)) for arg in argv]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "COLUMNS": "80"}
    real = subprocess.run([str(EXE), *argv], capture_output=True, text=True, env=env,
                          cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=60)
    here = run_cli(*argv, env=env, cwd=tmp_path)
    assert (here.returncode, here.stdout, here.stderr) == (
        real.returncode, real.stdout, real.stderr)


def test_a_daemon_run_here_leaves_the_process_as_it_found_it(tmp_path):
    config = tmp_path / "box.toml"
    config.write_text('[hardware.display]\ndriver = "none"\n[box]\nlanguage = "de"\n'
                      f'[storage]\ndb = "{tmp_path}/b.db"\n')
    root = logging.getLogger()
    before = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT),
              list(root.handlers), root.level, dict(os.environ), os.getcwd(), sys.argv,
              sys.stdout, sys.stderr, sys.stdin, i18n.box_language())
    ran = run_cli("run", "--config", config, "--pin-factory", "mock", "--for-seconds", "0.2",
                  env={"PATH": os.environ["PATH"], "SHUTBOX_HELPER_TEST": "1"}, cwd=tmp_path)
    after = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT),
             list(root.handlers), root.level, dict(os.environ), os.getcwd(), sys.argv,
             sys.stdout, sys.stderr, sys.stdin, i18n.box_language())
    assert ran.returncode == 0, ran.stderr
    # the daemon's own logging.basicConfig took effect, into its own stderr
    assert "INFO shutbox-hw running: 9 flaps" in ran.stderr
    assert (tmp_path / "b.db").exists()
    assert after == before
    assert "SHUTBOX_HELPER_TEST" not in os.environ


def test_an_exception_let_through_is_a_traceback_and_exit_1(monkeypatch):
    def broken(args):
        raise ZeroDivisionError("a bug")
    monkeypatch.setattr(rules, "run", broken)
    ran = run_cli("rules")
    assert ran.returncode == 1 and ran.stdout == ""
    assert ran.stderr.startswith("Traceback (most recent call last):")
    assert ran.stderr.splitlines()[-1] == "ZeroDivisionError: a bug"
