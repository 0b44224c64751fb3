"""The ``[game]`` table: how the box runs a game (dice, names, settle time, hints).

Plain values and their check, with no TOML and no hardware: the config file
(:mod:`shutbox_hw.config`) hands this table over, the controller reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..validate import Choice, Flag, Integer, Problems, Rule, Spec

DiceMode = Literal["software", "module", "manual"]
HintMode = Literal["off", "on-request", "always"]
HintObjective = Literal["min-score", "max-shut"]

DICE_SOURCES: tuple[DiceMode, ...] = ("software", "module", "manual")
HINT_MODES: tuple[HintMode, ...] = ("off", "on-request", "always")
HINT_OBJECTIVES: tuple[HintObjective, ...] = ("min-score", "max-shut")
MAX_PLAYERS = 8
MAX_SETTLE_MS = 60_000
MAX_PAUSE_MS = 60_000
MAX_NAME_LIST = 40


@dataclass(frozen=True)
class GameConfig:
    dice: DiceMode = "software"
    player_names: tuple[str, ...] = ()
    settle_ms: int = 2500
    hints: HintMode = "off"
    hint_objective: HintObjective = "min-score"
    pause_ms: int = 2000          # how long each end of a turn stays (a button skips it)
    name_list: tuple[str, ...] = ()   # the names the operator menu offers for the seats
    show_accuracy: bool = False   # the turn-end screen shows the turn's best moves once rated


def seat_names(configured: tuple[str, ...], count: int,
               claimed: Mapping[int, str] | None = None) -> tuple[str, ...]:
    """``count`` names: each seat's claimed name, else its configured one, then
    P<seat> (never a duplicate: a configured name claimed for another seat
    leaves its own seat to a label)."""
    claimed = claimed or {}
    names: list[str | None] = [claimed.get(i, configured[i] if i < len(configured) else None)
                               for i in range(count)]
    for i, name in enumerate(names):
        if i not in claimed and name is not None and name in claimed.values():
            names[i] = None
    taken = {n for n in names if n is not None}
    for i in range(count):
        if names[i] is None:
            label, n = f"P{i + 1}", i + 1
            while label in taken:
                n += 1
                label = f"P{n}"
            names[i] = label
            taken.add(label)
    return tuple(n for n in names if n is not None)


@dataclass(frozen=True)
class PlayerNames(Rule):
    """Up to ``most`` different names, none blank."""
    most: int
    noun: str = "players"

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, list) or not all(isinstance(n, str) and n.strip()
                                                  for n in value):
            return "expected a list of non-empty names"
        if len(value) > self.most:
            return f"at most {self.most} {self.noun}, got {len(value)}"
        if len(set(value)) != len(value):
            return "every name must be different"
        return None


GAME = Spec(GameConfig, {
    "dice": Choice(DICE_SOURCES),
    "hint_objective": Choice(HINT_OBJECTIVES),
    "hints": Choice(HINT_MODES),
    "pause_ms": Integer(0, MAX_PAUSE_MS,
                        message="expected a number of milliseconds {low}..{high}, got {value!r}"),
    "name_list": PlayerNames(MAX_NAME_LIST, noun="names"),
    "player_names": PlayerNames(MAX_PLAYERS),
    "show_accuracy": Flag(),
    "settle_ms": Integer(0, MAX_SETTLE_MS,
                         message="expected a number of milliseconds {low}..{high}, got {value!r}"),
})


def parse_game(table: Mapping[str, Any], problems: list[str]) -> GameConfig:
    """The ``[game]`` table checked; each problem is appended as one line."""
    values = GAME.read(table, Problems(problems, "game"))
    values["player_names"] = tuple(n.strip() for n in values["player_names"])
    values["name_list"] = tuple(n.strip() for n in values["name_list"])
    return GameConfig(**values)
