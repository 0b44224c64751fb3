"""The ``[game]`` table: how the box runs a game (dice, names, settle time, hints).

Plain values and their check, with no TOML and no hardware: the config file
(:mod:`shutbox_hw.config`) hands this table over, the controller reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

DiceMode = Literal["software", "module", "manual"]
HintMode = Literal["off", "on-request", "always"]
HintObjective = Literal["min-score", "max-shut"]

DICE_SOURCES: tuple[DiceMode, ...] = ("software", "module", "manual")
HINT_MODES: tuple[HintMode, ...] = ("off", "on-request", "always")
HINT_OBJECTIVES: tuple[HintObjective, ...] = ("min-score", "max-shut")
MAX_PLAYERS = 8
MAX_SETTLE_MS = 60_000


@dataclass(frozen=True)
class GameConfig:
    dice: DiceMode = "software"
    player_names: tuple[str, ...] = ()
    settle_ms: int = 2500
    hints: HintMode = "off"
    hint_objective: HintObjective = "min-score"


def _choice(table: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str,
            problems: list[str]) -> str:
    value = table.get(key, default)
    if value not in choices:
        problems.append(f"[game] {key}: {value!r} is not one of {', '.join(choices)}")
        return default
    return cast(str, value)


def parse_game(table: Mapping[str, Any], problems: list[str]) -> GameConfig:
    """The ``[game]`` table checked; each problem is appended as one line."""
    defaults = GameConfig()
    known = {"dice", "player_names", "settle_ms", "hints", "hint_objective"}
    for key in table:
        if key not in known:
            problems.append(f"[game] {key}: unknown key (keys: {', '.join(sorted(known))})")
    dice = _choice(table, "dice", DICE_SOURCES, defaults.dice, problems)
    hints = _choice(table, "hints", HINT_MODES, defaults.hints, problems)
    objective = _choice(table, "hint_objective", HINT_OBJECTIVES, defaults.hint_objective,
                        problems)
    settle = table.get("settle_ms", defaults.settle_ms)
    if isinstance(settle, bool) or not isinstance(settle, int) \
            or not 0 <= settle <= MAX_SETTLE_MS:
        problems.append(f"[game] settle_ms: expected a number of milliseconds 0..{MAX_SETTLE_MS}, "
                        f"got {settle!r}")
        settle = defaults.settle_ms
    names = table.get("player_names", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        problems.append("[game] player_names: expected a list of non-empty names")
        names = []
    elif len(names) > MAX_PLAYERS:
        problems.append(f"[game] player_names: at most {MAX_PLAYERS} players, got {len(names)}")
        names = names[:MAX_PLAYERS]
    elif len(set(names)) != len(names):
        problems.append("[game] player_names: every name must be different")
        names = []
    return GameConfig(dice=cast(DiceMode, dice), player_names=tuple(n.strip() for n in names),
                      settle_ms=settle, hints=cast(HintMode, hints),
                      hint_objective=cast(HintObjective, objective))
