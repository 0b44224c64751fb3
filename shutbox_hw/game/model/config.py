"""The ``[game]`` table: how the box runs a game (dice, names, settle time, hints).

Plain values and their check, with no TOML and no hardware: the config file
(:mod:`shutbox_hw.config.config_file`) hands this table over, the controller reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ...base.validate import Choice, Flag, Integer, Problems, Rule, Spec, shown
from ...players.names import MAX_NAME_CHARS, name_key, name_problem, seat_label, tidy

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
    """``[game]``: how the box runs a game."""
    dice: DiceMode = "software"   # module: the dice module (needs [hardware.dice])
    player_names: tuple[str, ...] = ()   # the seats' names, else P1..Pn
    # a closure that could still grow is taken after this long without change
    settle_ms: int = 2500
    hints: HintMode = "off"       # on-request: a long press of ROLL once the dice are known
    hint_objective: HintObjective = "min-score"   # what the hints aim for
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
            label, n = seat_label(i), i
            while label in taken:
                n += 1
                label = seat_label(n)
            names[i] = label
            taken.add(label)
    return tuple(n for n in names if n is not None)


@dataclass(frozen=True)
class PlayerNames(Rule):
    """Up to ``most`` names, each one a player's name by the one rule for a name
    (:func:`~shutbox_hw.players.names.name_problem`), no two the same player
    (:func:`~shutbox_hw.players.names.name_key`: "Anna" and "anna" are one)."""
    most: int
    noun: str = "players"

    def problem(self, value: Any) -> str | None:
        found = self.problems(value)
        return "; ".join(found) if found else None

    def describe(self) -> str:
        return (f"a list of at most {self.most} {self.noun}, each at most {MAX_NAME_CHARS} "
                "characters with a letter or a digit, no two the same player")

    def problems(self, value: Any) -> list[str]:
        if not isinstance(value, list):
            return [f"expected a list of names such as [\"Anna\", \"Ben\"], got {shown(value)}"]
        found = []
        if len(value) > self.most:
            found.append(f"at most {self.most} {self.noun}, got {len(value)}")
        first: dict[str, str] = {}
        for i, name in enumerate(value, start=1):
            if not isinstance(name, str):
                found.append(f"name {i}: expected text, got {shown(name)}")
                continue
            why = name_problem(name)
            if why is not None:
                found.append(f"name {i} {_quoted(name)}: {why}")
                continue
            key = name_key(name)
            if key in first:
                found.append(f"name {i} {_quoted(name)}: {_quoted(first[key])} is the same"
                             " player (every name must be different; case and accents do"
                             " not count)")
            else:
                first[key] = name
        return found


def _quoted(name: str) -> str:
    """A name as a message quotes it: control characters escaped, a long one cut."""
    return repr(name if len(name) <= 24 else name[:20] + "...")


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
    values["player_names"] = tuple(tidy(n) for n in values["player_names"])
    values["name_list"] = tuple(tidy(n) for n in values["name_list"])
    return GameConfig(**values)
