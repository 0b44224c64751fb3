"""``shutbox-hw ARGS`` run in the test's own process: ``cli.main(argv)`` with its
stdin, stdout and stderr captured, its exit code taken as a process would give it.

For the tests where a real process proves nothing (argument parsing, output, exit codes,
config errors): a new interpreter costs 50 ms on a quiet machine and several times that
under load. What only a process shows (signals, a pty, permissions, imports at start-up,
another user, systemd's notify socket, a hang killed by a timeout) stays a real process,
marked ``process`` (docs/develop/testing-speed.md).

The answer looks like ``subprocess.run(..., capture_output=True, text=True)``'s, so a
test keeps its assertions word for word. Whatever global state the command sets is put
back afterwards: os.environ, the working directory, the locale, the signal handlers,
logging's handlers and levels, the box's language (shutbox_hw.i18n), sys.argv and the
standard streams. An exception the
command lets through is what the interpreter would make of it: its traceback on stderr
and exit code 1 (so a test's ``"Traceback" not in stderr`` still means something).
"""

from __future__ import annotations

import contextlib
import io
import locale
import logging
import os
import signal
import sys
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from shutbox_hw import cli, i18n


@dataclass
class Ran:
    """What ``subprocess.run(..., capture_output=True, text=True)`` would have given."""
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def check_returncode(self) -> None:
        if self.returncode:
            raise AssertionError(f"shutbox-hw {' '.join(self.args)} exited "
                                 f"{self.returncode}: {self.stderr}")


# the signals a command may take over (run: SIGTERM, SIGINT); all that can be caught
_SIGNALS = [s for s in signal.Signals if s not in (signal.SIGKILL, signal.SIGSTOP)]


def _exit_code(exit: SystemExit, stderr: io.StringIO) -> int:
    """As the interpreter turns a SystemExit into a process's status."""
    if exit.code is None:
        return 0
    if isinstance(exit.code, int):
        return exit.code
    print(exit.code, file=stderr)
    return 1


@contextlib.contextmanager
def _global_state_kept() -> Iterator[None]:
    environ = dict(os.environ)
    cwd = os.getcwd()
    saved_locale = locale.setlocale(locale.LC_ALL)
    handlers = {s: signal.getsignal(s) for s in _SIGNALS}
    loggers = [logging.getLogger()] + [
        logger for logger in logging.Logger.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)]
    logged = {id(lg): (lg, list(lg.handlers), lg.level, lg.propagate, lg.disabled)
              for lg in loggers}
    disable = logging.root.manager.disable
    streams = sys.stdin, sys.stdout, sys.stderr, sys.argv
    language = i18n.box_language()
    try:
        i18n.set_language(i18n.DEFAULT)   # a new process speaks English until told
        yield
    finally:
        i18n.set_language(language)
        sys.stdin, sys.stdout, sys.stderr, sys.argv = streams
        logging.disable(disable)
        for logger in list(logging.Logger.manager.loggerDict.values()):
            if isinstance(logger, logging.Logger) and id(logger) not in logged:
                for handler in logger.handlers:  # a logger the command made
                    handler.close()
                logger.handlers.clear()
        for lg, kept, level, propagate, disabled in logged.values():
            for handler in lg.handlers:
                if handler not in kept:
                    handler.close()
            lg.handlers[:] = kept
            lg.setLevel(level)
            lg.propagate, lg.disabled = propagate, disabled
        for sig, handler in handlers.items():
            if signal.getsignal(sig) is not handler and handler is not None:
                signal.signal(sig, handler)
        locale.setlocale(locale.LC_ALL, saved_locale)
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(environ)


def run_cli(*argv: str | Path, stdin: str = "", env: Mapping[str, str] | None = None,
            cwd: str | Path | None = None) -> Ran:
    """``shutbox-hw ARGV`` in this process. ENV, when given, is the whole environment
    (as ``subprocess.run(env=...)``); CWD the working directory; STDIN what it reads
    (not a terminal, as ``stdin=subprocess.DEVNULL`` is not)."""
    args = [str(arg) for arg in argv]
    out, err = io.StringIO(), io.StringIO()
    with _global_state_kept():
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        # a process writing into a pipe is 80 columns wide (argparse's --help wraps to it)
        # unless told otherwise: this one's stdout may be a terminal (pytest -s)
        os.environ.setdefault("COLUMNS", "80")
        os.environ.setdefault("LINES", "24")
        # a fresh process's logging: no handler on the root (pytest's capture is one,
        # and logging.basicConfig in a command would otherwise do nothing), level WARNING
        root = logging.getLogger()
        root.handlers.clear()
        root.setLevel(logging.WARNING)
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
        sys.argv = [str(Path(sys.executable).with_name("shutbox-hw")), *args]
        try:
            code = cli.main(args)
        except SystemExit as exit:   # argparse's --help and usage errors
            code = _exit_code(exit, err)
        except Exception:            # what the interpreter would print (not KeyboardInterrupt)
            traceback.print_exc(file=err)
            code = 1
    return Ran(args, int(code), out.getvalue(), err.getvalue())
