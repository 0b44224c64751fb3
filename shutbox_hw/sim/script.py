"""Scripts for ``shutbox-hw sim --script``: parsed and checked before anything runs.

One command per line; ``#`` starts a comment; blank lines are ignored::

    start N          new game with N players (NEXT to choose, ROLL to start)
    dice A [B]       the next throw shows these faces (manual dice: what was thrown)
    roll | roll1     short | long press of ROLL
    next | hold-next short | long press of NEXT
    hold-both        ROLL and NEXT held together for 5 s (the operator menu, from idle)
    service          press and release the service button inside the box (the
                     operator menu, from idle; needs [hardware] service)
    close T [T ...]  shut these flaps one after another
    open T [T ...]   lift them
    wait SECONDS     let time pass
    restart          cut the power and start a new daemon on the same database
    shake            shake the dice module (with [game] dice = "module"): it throws

Hardware faults (each something a real box can meet)::

    fault i2c RATE   from now on each I2C transfer fails (errno 121, 5 or 11)
                     with probability RATE (0..1); ``fault i2c 0`` stops it
    brownout         every MCP23017 returns to its power-on registers
    unplug DEVICE    ``display``, ``dice`` or an expander address (``0x20``)
    plug DEVICE      stops / starts answering on the bus
    bounce T [N]     flap T's switch chatters for N edges (even, default 10)
                     within 10 ms and settles where it was
    cut-int          the expander's INT line is dead
    mend-int         ... and works again
    disk-full        every database write fails ("database or disk is full")
    disk-ok          ... and succeeds again
    cut-after-writes N
                     the power is cut right after the N-th database write from
                     this line on (every event written and every commit counts,
                     in the middle of a step if it falls there); a new daemon
                     starts on the same database with the flaps as they are

Time in the world (see :mod:`.world_commands`)::

    glitch NAME MS   the contact of a flap, roll or next changes for MS ms
    press NAME MS    a press of that length (bouncing, not pressed again)
    disk fast|sd-card|stall MS
                     what each database sync costs from now on
    bus HZ           the I2C bus clock from now on
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..base.errors import UserError, clip, quoted, shown_path
from ..base.textfile import read_text_file
from .script_commands import (
    Bounce,
    Brownout,
    ButtonPress,
    Command,
    CutAfterWrites,
    Dice,
    DiskFull,
    HoldBoth,
    I2cFault,
    IntWire,
    MoveFlaps,
    Plug,
    Restart,
    Service,
    Shake,
    Start,
    Step,
    Wait,
)
from .world_commands import WORLD_PARSERS

__all__ = ["COMMANDS", "ScriptError", "Step", "load_script", "parse_script"]

MAX_CUT_WRITES = 1_000_000
DEVICES = ("display", "dice")   # and expander addresses 0x20..0x27
BOUNCE_EDGES = 10
MAX_BOUNCE_EDGES = 1000
MAX_SCRIPT_BYTES = 8 << 20  # a 1,000-throw game is about 20 KiB


class ScriptError(UserError):
    """A script line the simulator cannot run; the message names the line."""


Parser = Callable[[list[str], str, int], Command]
"""A command's parser: the words after it, the line's place for messages
(``name:line: command``) and the number of flaps; raises ScriptError."""


def _ints(where: str, words: list[str]) -> list[int]:
    values = []
    for word in words:
        try:
            values.append(int(word))
        except ValueError:
            raise ScriptError(f"{where}: {quoted(word)} is not a whole number") from None
    return values


def _bare(command: Command) -> Parser:
    """A command without arguments."""
    def parse(words: list[str], where: str, tiles: int) -> Command:
        if words:
            raise ScriptError(f"{where}: takes no arguments")
        return command
    return parse


def _start(words: list[str], where: str, tiles: int) -> Start:
    values = _ints(where, words)
    if len(values) != 1 or not 1 <= values[0] <= 8:
        raise ScriptError(f"{where}: expected a number of players 1..8")
    return Start(values[0])


def _dice(words: list[str], where: str, tiles: int) -> Dice:
    values = _ints(where, words)
    if len(values) not in (1, 2):
        raise ScriptError(f"{where}: expected one or two faces")
    for face in values:
        if not 1 <= face <= 6:
            raise ScriptError(f"{where}: die face {clip(str(face), 20)} is outside 1..6")
    return Dice(tuple(values))


def _flaps(shut: bool) -> Parser:
    """``close`` / ``open``: flap numbers on this box."""
    def parse(words: list[str], where: str, tiles: int) -> Command:
        values = _ints(where, words)
        if not values:
            raise ScriptError(f"{where}: expected flap numbers")
        for tile in values:
            if not 1 <= tile <= tiles:
                raise ScriptError(f"{where}: flap {clip(str(tile), 20)} is not on "
                                  f"this {tiles}-flap box")
        return MoveFlaps(tuple(values), shut)
    return parse


def _wait(words: list[str], where: str, tiles: int) -> Wait:
    try:
        seconds = float(words[0]) if len(words) == 1 else -1.0
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 86_400:
        raise ScriptError(f"{where}: expected a number of seconds")
    return Wait(seconds)


def _fault(words: list[str], where: str, tiles: int) -> I2cFault:
    return I2cFault(_rate(where, words))


def _cut_after_writes(words: list[str], where: str, tiles: int) -> CutAfterWrites:
    values = _ints(where, words)
    if len(values) != 1 or not 1 <= values[0] <= MAX_CUT_WRITES:
        raise ScriptError(f"{where}: expected a number of writes 1..{MAX_CUT_WRITES}")
    return CutAfterWrites(values[0])


def _plug(plugged: bool) -> Parser:
    def parse(words: list[str], where: str, tiles: int) -> Command:
        return Plug(_device(where, words), plugged)
    return parse


def _bounce(words: list[str], where: str, tiles: int) -> Bounce:
    values = _ints(where, words)
    if len(values) not in (1, 2):
        raise ScriptError(f"{where}: expected a flap and a number of edges")
    tile, edges = values[0], values[1] if len(values) == 2 else BOUNCE_EDGES
    if not 1 <= tile <= tiles:
        raise ScriptError(f"{where}: flap {tile} is not on this {tiles}-flap box")
    if not (2 <= edges <= MAX_BOUNCE_EDGES and edges % 2 == 0):
        raise ScriptError(f"{where}: expected an even number of edges "
                          f"2..{MAX_BOUNCE_EDGES} (the switch settles where it was)")
    return Bounce(tile, edges)


def _world(parse: Callable[[list[str], str, int], Command]) -> Parser:
    """A world command's parser, its UserError a ScriptError."""
    def parse_line(words: list[str], where: str, tiles: int) -> Command:
        try:
            return parse(words, where, tiles)
        except UserError as error:
            raise ScriptError(str(error)) from None
    return parse_line


PARSERS: dict[str, Parser] = {
    "start": _start, "dice": _dice,
    "roll": _bare(ButtonPress("roll")), "roll1": _bare(ButtonPress("roll", long=True)),
    "next": _bare(ButtonPress("next")), "hold-next": _bare(ButtonPress("next", long=True)),
    "hold-both": _bare(HoldBoth()), "service": _bare(Service()),
    "close": _flaps(True), "open": _flaps(False), "wait": _wait, "restart": _bare(Restart()),
    "fault": _fault, "brownout": _bare(Brownout()), "unplug": _plug(False), "plug": _plug(True),
    "bounce": _bounce, "cut-int": _bare(IntWire(cut=True)), "mend-int": _bare(IntWire(cut=False)),
    "shake": _bare(Shake()), "disk-full": _bare(DiskFull(full=True)),
    "disk-ok": _bare(DiskFull(full=False)), "cut-after-writes": _cut_after_writes,
    **{word: _world(parse) for word, parse in WORLD_PARSERS.items()}}
"""Every command's word and its parser, in the order the error message lists them."""
COMMANDS = tuple(PARSERS)


def parse_script(text: str, tiles: int, name: str = "script") -> list[Step]:
    """Every line checked against the board size; raises :class:`ScriptError`."""
    steps: list[Step] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        word, rest = words[0].lower(), words[1:]
        parse = PARSERS.get(word)
        if parse is None:
            raise ScriptError(f"{name}:{number}: unknown command {quoted(words[0])} "
                              f"(commands: {', '.join(COMMANDS)})")
        steps.append(Step(number, parse(rest, f"{name}:{number}: {word}", tiles)))
    return steps


def _rate(where: str, words: list[str]) -> float:
    """``fault i2c RATE``: the only fault so far is on the I2C bus."""
    if len(words) != 2 or words[0].lower() != "i2c":
        raise ScriptError(f"{where}: expected 'fault i2c RATE'")
    try:
        rate = float(words[1])
    except ValueError:
        rate = -1.0
    if not 0 <= rate <= 1:
        raise ScriptError(f"{where}: expected a failure rate from 0 to 1")
    return rate


def _device(where: str, words: list[str]) -> str | int:
    """``display``, ``dice`` or an MCP23017 address 0x20..0x27."""
    if len(words) != 1:
        raise ScriptError(f"{where}: expected one device (display, dice or an expander "
                          "address such as 0x20)")
    word = words[0].lower()
    if word in DEVICES:
        return word
    try:
        address = int(word, 16) if word.startswith("0x") else int(word)
    except ValueError:
        address = -1
    if not 0x20 <= address <= 0x27:
        raise ScriptError(f"{where}: {quoted(words[0])} is not display, dice or an expander "
                          "address 0x20..0x27")
    return address


def load_script(path: str | Path, tiles: int) -> list[Step]:
    """The checked steps of a script file (a regular file of at most 8 MiB, never a FIFO)."""
    try:
        text = read_text_file(path, "script file", MAX_SCRIPT_BYTES)
    except UserError as error:
        raise ScriptError(str(error)) from None
    return parse_script(text, tiles, name=shown_path(path))
