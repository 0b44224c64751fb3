"""Scripts for ``shutbox-hw sim --script``: parsed and checked before anything runs.

One command per line; ``#`` starts a comment; blank lines are ignored::

    start N          new game with N players (NEXT to choose, ROLL to start)
    dice A [B]       the next throw shows these faces (manual dice: what was thrown)
    roll | roll1     short | long press of ROLL
    next | hold-next short | long press of NEXT
    close T [T ...]  shut these flaps one after another
    open T [T ...]   lift them
    wait SECONDS     let time pass
    restart          cut the power and start a new daemon on the same database
    shake            shake the dice module (with [game] dice = "module"): it throws
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError, clip, quoted, shown_path
from ..textfile import read_text_file

COMMANDS = ("start", "dice", "roll", "roll1", "next", "hold-next", "close", "open", "wait",
            "restart", "shake")
MAX_SCRIPT_BYTES = 8 << 20  # a 1,000-throw game is about 20 KiB


class ScriptError(UserError):
    """A script line the simulator cannot run; the message names the line."""


@dataclass(frozen=True)
class Step:
    line: int
    command: str
    args: tuple[float | int, ...] = ()


def _ints(where: str, words: list[str]) -> list[int]:
    values = []
    for word in words:
        try:
            values.append(int(word))
        except ValueError:
            raise ScriptError(f"{where}: {quoted(word)} is not a whole number") from None
    return values


def parse_script(text: str, tiles: int, name: str = "script") -> list[Step]:
    """Every line checked against the board size; raises :class:`ScriptError`."""
    steps: list[Step] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        command, rest = words[0].lower(), words[1:]
        where = f"{name}:{number}: {command}"
        if command not in COMMANDS:
            raise ScriptError(f"{name}:{number}: unknown command {quoted(words[0])} "
                              f"(commands: {', '.join(COMMANDS)})")
        if command in ("roll", "roll1", "next", "hold-next", "restart", "shake"):
            if rest:
                raise ScriptError(f"{where}: takes no arguments")
            steps.append(Step(number, command))
        elif command == "start":
            values = _ints(where, rest)
            if len(values) != 1 or not 1 <= values[0] <= 8:
                raise ScriptError(f"{where}: expected a number of players 1..8")
            steps.append(Step(number, command, tuple(values)))
        elif command == "dice":
            values = _ints(where, rest)
            if len(values) not in (1, 2):
                raise ScriptError(f"{where}: expected one or two faces")
            for face in values:
                if not 1 <= face <= 6:
                    raise ScriptError(f"{where}: die face {clip(str(face), 20)} is outside 1..6")
            steps.append(Step(number, command, tuple(values)))
        elif command in ("close", "open"):
            values = _ints(where, rest)
            if not values:
                raise ScriptError(f"{where}: expected flap numbers")
            for tile in values:
                if not 1 <= tile <= tiles:
                    raise ScriptError(f"{where}: flap {clip(str(tile), 20)} is not on "
                                      f"this {tiles}-flap box")
            steps.append(Step(number, command, tuple(values)))
        elif command == "wait":
            try:
                seconds = float(rest[0]) if len(rest) == 1 else -1.0
            except ValueError:
                seconds = -1.0
            if not 0 <= seconds <= 86_400:
                raise ScriptError(f"{where}: expected a number of seconds")
            steps.append(Step(number, command, (seconds,)))
    return steps


def load_script(path: str | Path, tiles: int) -> list[Step]:
    """The checked steps of a script file (a regular file of at most 8 MiB, never a FIFO)."""
    try:
        text = read_text_file(path, "script file", MAX_SCRIPT_BYTES)
    except UserError as error:
        raise ScriptError(str(error)) from None
    return parse_script(text, tiles, name=shown_path(path))
