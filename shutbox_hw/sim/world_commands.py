"""Script commands for a world with time in it, each a typed command.

``glitch NAME MS``  the contact of NAME (a flap number, ``roll``, ``next``)
                    changes for MS ms, cleanly, and returns
``press NAME MS``   a press of that length: the contact changes, bouncing
                    like a real one, and returns MS ms later; not pressed
                    again if the box did not take it (an experiment)
``disk PROFILE``    each database sync from now on takes: ``fast`` (no
                    time), ``sd-card`` (5-20 ms, a 200 ms stall every few
                    hundred syncs) or ``stall MS`` (MS ms each)
``bus HZ``          the I2C bus clock from now on (the config's ``i2c_hz``
                    until then)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from ..base.errors import UserError, quoted
from ..hal.simulated.timing import MAX_BUS_HZ, MIN_BUS_HZ, DiskProfile

MAX_MS = 60_000
MAX_STALL_MS = 10_000
PROFILES = ("fast", "sd-card", "stall")


@dataclass(frozen=True)
class Glitch:
    word: ClassVar[str] = "glitch"
    name: int | str     # a flap number, "roll" or "next"
    ms: int


@dataclass(frozen=True)
class Press:
    word: ClassVar[str] = "press"
    name: int | str
    ms: int


@dataclass(frozen=True)
class Disk:
    word: ClassVar[str] = "disk"
    profile: DiskProfile


@dataclass(frozen=True)
class Bus:
    word: ClassVar[str] = "bus"
    hz: int


WorldCommand = Glitch | Press | Disk | Bus


def _whole(where: str, word: str, low: int, high: int, what: str) -> int:
    try:
        value = int(word)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise UserError(f"{where}: expected {what} {low}..{high}, got {quoted(word)}")
    return value


def _contact(words: list[str], where: str, tiles: int) -> tuple[int | str, int]:
    """``glitch``/``press``: a flap number, roll or next, and milliseconds."""
    if len(words) != 2:
        raise UserError(f"{where}: expected a flap number, roll or next, and milliseconds")
    word = words[0].lower()
    name: int | str = word if word in ("roll", "next") else \
        _whole(where, words[0], 1, tiles, "a flap number (or roll, next)")
    return name, _whole(where, words[1], 1, MAX_MS, "milliseconds")


def _glitch(words: list[str], where: str, tiles: int) -> Glitch:
    return Glitch(*_contact(words, where, tiles))


def _press(words: list[str], where: str, tiles: int) -> Press:
    return Press(*_contact(words, where, tiles))


def _disk(words: list[str], where: str, tiles: int) -> Disk:
    profile = words[0].lower() if words else ""
    if profile == "stall" and len(words) == 2:
        return Disk(DiskProfile("stall", _whole(where, words[1], 0, MAX_STALL_MS,
                                                "milliseconds")))
    if profile in ("fast", "sd-card") and len(words) == 1:
        return Disk(DiskProfile(profile))
    raise UserError(f"{where}: expected fast, sd-card or stall MS")


def _bus(words: list[str], where: str, tiles: int) -> Bus:
    if len(words) != 1:
        raise UserError(f"{where}: expected the bus clock in Hz")
    return Bus(_whole(where, words[0], MIN_BUS_HZ, MAX_BUS_HZ, "a bus clock in Hz"))


WORLD_PARSERS: dict[str, Callable[[list[str], str, int], WorldCommand]] = {
    "glitch": _glitch, "press": _press, "disk": _disk, "bus": _bus}
"""Each world command's word and its parser (the words after it, the line's
place for messages, the number of flaps); a parser raises UserError naming
the problem."""
