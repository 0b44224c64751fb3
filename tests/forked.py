"""``shutbox-hw ARGS`` as a real process, forked from an interpreter that has imported the
package already.

A test that starts ``python -m shutbox_hw`` pays for a new interpreter and its imports:
0.4 to 0.6 s of CPU each, some 300 starts in a run (the league's sims, ingests and
commands, the web servers), a fifth of the suite's CPU. A process forked from a warm
server (multiprocessing's forkserver, one per test worker, which imported the package once)
is the same kind of process: its own pid and session, its own signals and handlers, sockets,
environment, working directory, standard streams and exit status, and nothing of the test's
own state (the server forked before any test ran). Only what the interpreter does before
``cli.main`` differs, so the tests of that (the entry point as a shell sees it, what a fresh
interpreter imports, a stand-in module on the path, another user, a pty) keep ``subprocess``.

``sb_run`` answers as ``subprocess.run(..., capture_output=True, text=True)`` does;
``Forked`` is the part of ``subprocess.Popen`` the tests use. Standard streams are files
(``PIPE``: a temporary file read at the end, ``DEVNULL``, or a path to append to).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CHECKOUT = Path(__file__).resolve().parent.parent

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
STDOUT = subprocess.STDOUT

# imported once by the server, before it forks (an import that fails is left to the child)
PRELOAD = ["shutbox_hw.commands.cli", "shutbox_hw.commands.play.sim", "shutbox_hw.sim.runner",
           "shutbox_hw.daemon.daemon", "shutbox_hw.network.publisher",
           "shutbox_hw.commands.serve.league", "shutbox_hw.commands.serve.league_web",
           "shutbox_hw.commands.serve.web", "shutbox_hw.league.ingest", "shutbox_hw.web.app",
           "paho.mqtt.client", "psycopg", "uvicorn", "starlette.applications"]

_context: multiprocessing.context.ForkServerContext | None = None


def _server() -> multiprocessing.context.ForkServerContext:
    global _context
    if _context is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        _context = context
    return _context


def _child(argv: list[str], env: dict[str, str], cwd: str, streams: tuple[str, str, str],
           new_session: bool, code: str | None, ready: str) -> None:
    """In the forked process: the streams, environment and directory as asked, then
    ``cli.main`` (or ``code``, as ``python -c code ARGS`` runs it); the exit status as the
    interpreter would give it."""
    if new_session:
        os.setsid()
    for fd, path in enumerate(streams):
        flags = os.O_RDONLY if fd == 0 else os.O_WRONLY | os.O_APPEND | os.O_CREAT
        opened = os.open(path, flags, 0o600)
        os.dup2(opened, fd)
        os.close(opened)
    sys.stdin = open(0, closefd=False)      # noqa: SIM115 (the process's own, kept open)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    os.close(os.open(ready, os.O_WRONLY | os.O_CREAT, 0o600))    # set up, as after exec
    sys.argv = [str(CHECKOUT / "shutbox_hw" / "__main__.py") if code is None else "-c", *argv]
    status = 1
    try:
        if code is None:
            from shutbox_hw.commands.cli import main
            status = main(argv)
        else:
            exec(compile(code, "<string>", "exec"), {"__name__": "__main__"})
            status = 0
    except SystemExit as exit:
        if exit.code is None:
            status = 0
        elif isinstance(exit.code, int):
            status = exit.code
        else:
            print(exit.code, file=sys.stderr)
    except BaseException:
        import traceback
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(status if isinstance(status, int) else 1)


class Forked:
    """``shutbox-hw ARGS`` forked from the warm server: pid, poll, wait, send_signal,
    terminate, kill, returncode and the output it wrote (``PIPE``) as Popen has them."""

    def __init__(self, argv: list[str], *, env: Mapping[str, str] | None = None,
                 cwd: str | Path | None = None, stdin: str | Path | None = None,
                 stdout: Any = DEVNULL, stderr: Any = DEVNULL,
                 start_new_session: bool = False, code: str | None = None) -> None:
        """``code``: Python to run as ``python -c code ARGS`` would (a test's stand-in
        that patches the package, then calls ``cli.main``), instead of ``cli.main``."""
        self.args = list(argv)
        self._folder = tempfile.mkdtemp(prefix="sbfork")
        self._out = self._path(stdout, "stdout")
        self._err = self._out if stderr == STDOUT else self._path(stderr, "stderr")
        self._input = os.devnull if stdin is None else str(stdin)
        process = _server().Process(
            target=_child, daemon=True,
            args=(self.args, dict(os.environ if env is None else env),
                  str(cwd or os.getcwd()), (self._input, self._out, self._err),
                  start_new_session, code, os.path.join(self._folder, "ready")))
        process.start()
        self._process = process
        self.pid: int = process.pid          # type: ignore[assignment]
        self.returncode: int | None = None
        # as Popen returns once the child has exec'd: its session, streams and directory
        # are set when this returns (a killpg at once reaches its group)
        ready = Path(self._folder, "ready")
        while not ready.exists() and process.is_alive():
            time.sleep(0.002)

    def _path(self, stream: Any, name: str) -> str:
        if stream == PIPE:
            path = os.path.join(self._folder, name)
            Path(path).touch()
            return path
        if stream is None or stream == DEVNULL:
            return os.devnull
        return str(stream)

    def poll(self) -> int | None:
        if self.returncode is None and not self._process.is_alive():
            self._process.join()
            self.returncode = self._process.exitcode
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self.poll() is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def output(self) -> tuple[str, str]:
        """What it wrote to its ``PIPE`` streams so far (stdout, stderr)."""
        def read(path: str) -> str:
            if not path.startswith(self._folder):
                return ""
            return Path(path).read_text(errors="replace")
        return read(self._out), "" if self._err == self._out else read(self._err)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        self.wait(timeout)
        try:
            return self.output()
        finally:
            shutil.rmtree(self._folder, ignore_errors=True)

    def __del__(self) -> None:
        shutil.rmtree(getattr(self, "_folder", ""), ignore_errors=True)


def sb_run(args: list[str], *, env: Mapping[str, str] | None = None,
           cwd: str | Path | None = CHECKOUT, timeout: float | None = None,
           input: str | None = None) -> subprocess.CompletedProcess[str]:
    """``subprocess.run([python, -m, shutbox_hw, *args], capture_output=True, text=True,
    ...)``'s answer, from a forked process (killed, and TimeoutExpired, after ``timeout``)."""
    given = None
    if input is not None:
        handle, given = tempfile.mkstemp(prefix="sbfork-in")
        with os.fdopen(handle, "w") as f:
            f.write(input)
    try:
        process = Forked(args, env=env, cwd=cwd, stdin=given, stdout=PIPE, stderr=PIPE)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        out, err = process.communicate()
        return subprocess.CompletedProcess(args, process.returncode or 0, out, err)
    finally:
        if given is not None:
            os.unlink(given)
