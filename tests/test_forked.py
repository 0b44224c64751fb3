"""tests/forked.py, shutbox-hw forked from a warm interpreter: it answers as a new
``python -m shutbox_hw`` process does, and it is a process of its own (pid, signals,
environment, directory, input, session)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from forked import PIPE, Forked, sb_run
from loopback import wait_for
from test_cli_inprocess import CASES

SB = [sys.executable, "-m", "shutbox_hw"]


@pytest.mark.process     # the comparison needs the new interpreter's process
@pytest.mark.parametrize("argv", CASES, ids=lambda argv: " ".join(argv)[:40] or "bare")
def test_it_answers_as_a_new_interpreter_does(argv, tmp_path):
    (tmp_path / "bad.toml").write_text('[hardware]\nflaps = 3\n[game]\nplayer_names = 5\n')
    argv = [arg.replace("{t}", str(tmp_path)) for arg in argv]
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg"), "COLUMNS": "80"}
    real = subprocess.run([*SB, *argv], capture_output=True, text=True, env=env,
                          cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=60)
    forked = sb_run(argv, env=env, cwd=tmp_path, timeout=60)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode, real.stdout, real.stderr)


def test_its_input_environment_and_directory_are_its_own(tmp_path):
    """``code`` runs as ``python -c``: it reads what it was given, sees the environment it
    was given (not the test's) in the directory it was given, in a process of its own."""
    code = ("import os, sys\nprint(sys.stdin.read().upper(), os.getcwd(), "
            "os.environ.get('ONLY_HERE'), os.environ.get('HOME'), os.getpid(), sys.argv[1:])")
    given = tmp_path / "in.txt"
    given.write_text("flaps")
    process = Forked(["a", "b"], env={"ONLY_HERE": "yes"}, cwd=tmp_path, stdin=given,
                     stdout=PIPE, stderr=PIPE, code=code)
    assert process.wait(60) == 0
    out, err = process.communicate()
    assert err == ""
    text, cwd, only, home, pid, args = out.split(" ", 5)
    assert (text, cwd, only, home, args.strip()) == ("FLAPS", str(tmp_path), "yes", "None",
                                                     "['a', 'b']")
    assert int(pid) == process.pid != os.getpid()


def _terminated(start, tmp_path: Path) -> int:
    """``web`` started by ``start(argv, log)``, sent SIGTERM once it answers: its status."""
    from loopback import free_port
    port = free_port()
    log = tmp_path / f"web-{port}.log"
    process = start(["web", "--db", str(tmp_path / "box.db"), "--listen",
                     f"127.0.0.1:{port}"], log)
    try:
        def answers() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", port), 1):
                    return True
            except OSError:
                return False
        assert wait_for(answers, 30), log.read_text() if log.exists() else "no log"
        process.terminate()
        return process.wait(20)
    finally:
        process.kill()


@pytest.mark.process     # the comparison needs the new interpreter's process
def test_a_signal_ends_it_as_it_ends_a_process(tmp_path):
    """SIGTERM ends a forked ``web`` as it ends a new interpreter's; SIGKILL gives -9,
    as Popen reports it; a new session is its own process group."""
    def new(argv, log):
        return subprocess.Popen([*SB, *argv], stdout=subprocess.DEVNULL, stderr=log.open("w"))

    def forked(argv, log):
        process = Forked(argv, stderr=log, start_new_session=True)
        assert os.getpgid(process.pid) == process.pid != os.getpgid(0)
        return process
    assert _terminated(forked, tmp_path) == _terminated(new, tmp_path)
    sleeper = Forked([], code="import time\ntime.sleep(60)")
    time.sleep(0.2)
    assert sleeper.poll() is None
    sleeper.kill()
    assert sleeper.wait(20) == -signal.SIGKILL
