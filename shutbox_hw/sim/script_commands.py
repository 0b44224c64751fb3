"""The typed commands of a ``sim --script`` line: one frozen dataclass each.

:func:`~.script.parse_script` turns every line into one of these and the
runner dispatches them with ``match``, so a command's arguments are checked
once, when the script is read, and carry their types from there on. Two
words that do the same thing both ways (``close``/``open``, ``roll``/``roll1``,
``plug``/``unplug``, ...) share a class with a flag; :attr:`word` gives the
script's word back for messages. The world's commands (``glitch``,
``press``, ``disk``, ``bus``) are in :mod:`.world_commands`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from .world_commands import Bus, Disk, Glitch, Press


@dataclass(frozen=True)
class Start:
    """``start N``: a new game with N players."""
    word: ClassVar[str] = "start"
    players: int


@dataclass(frozen=True)
class Dice:
    """``dice A [B]``: the faces of the next throw."""
    word: ClassVar[str] = "dice"
    faces: tuple[int, ...]


@dataclass(frozen=True)
class ButtonPress:
    """``roll``, ``roll1``, ``next``, ``hold-next``: a short or long press."""
    button: Literal["roll", "next"]
    long: bool = False

    @property
    def word(self) -> str:
        if self.button == "roll":
            return "roll1" if self.long else "roll"
        return "hold-next" if self.long else "next"


@dataclass(frozen=True)
class HoldBoth:
    """``hold-both``: ROLL and NEXT held together (the operator menu)."""
    word: ClassVar[str] = "hold-both"


@dataclass(frozen=True)
class Service:
    """``service``: the service button inside the box."""
    word: ClassVar[str] = "service"


@dataclass(frozen=True)
class MoveFlaps:
    """``close T ...`` (``shut``) or ``open T ...``: one flap after another."""
    tiles: tuple[int, ...]
    shut: bool

    @property
    def word(self) -> str:
        return "close" if self.shut else "open"


@dataclass(frozen=True)
class Wait:
    """``wait SECONDS``."""
    word: ClassVar[str] = "wait"
    seconds: float


@dataclass(frozen=True)
class Restart:
    """``restart``: the power cut and back."""
    word: ClassVar[str] = "restart"


@dataclass(frozen=True)
class I2cFault:
    """``fault i2c RATE``."""
    word: ClassVar[str] = "fault"
    rate: float


@dataclass(frozen=True)
class Brownout:
    """``brownout``: every MCP23017 back at its power-on registers."""
    word: ClassVar[str] = "brownout"


@dataclass(frozen=True)
class Plug:
    """``plug DEVICE`` / ``unplug DEVICE``: a name or an expander address."""
    device: int | str
    plugged: bool

    @property
    def word(self) -> str:
        return "plug" if self.plugged else "unplug"


@dataclass(frozen=True)
class Bounce:
    """``bounce T [N]``: flap T's switch chatters for N edges."""
    word: ClassVar[str] = "bounce"
    tile: int
    edges: int


@dataclass(frozen=True)
class IntWire:
    """``cut-int`` (``cut``) / ``mend-int``: the expander's INT line."""
    cut: bool

    @property
    def word(self) -> str:
        return "cut-int" if self.cut else "mend-int"


@dataclass(frozen=True)
class Shake:
    """``shake``: the dice module shaken."""
    word: ClassVar[str] = "shake"


@dataclass(frozen=True)
class DiskFull:
    """``disk-full`` (``full``) / ``disk-ok``."""
    full: bool

    @property
    def word(self) -> str:
        return "disk-full" if self.full else "disk-ok"


@dataclass(frozen=True)
class CutAfterWrites:
    """``cut-after-writes N``: the power goes right after the N-th write."""
    word: ClassVar[str] = "cut-after-writes"
    writes: int


Command = (Start | Dice | ButtonPress | HoldBoth | Service | MoveFlaps | Wait | Restart
           | I2cFault | Brownout | Plug | Bounce | IntWire | Shake | DiskFull | CutAfterWrites
           | Glitch | Press | Disk | Bus)
"""Any line of a script."""


@dataclass(frozen=True)
class Step:
    """A script line: its number (for messages) and its command."""
    line: int
    command: Command
