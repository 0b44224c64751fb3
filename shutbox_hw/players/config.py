"""The ``[players]`` table: what the box shows of its players beyond the box itself.

``public`` (true by default): the TV page and the live feed show each name as
typed; false, initials only ("Anna Lena" is "A. L.", see
:func:`shutbox_hw.players.display.initials`). The OLED, whose players stand at
the box, always shows the names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..base.validate import Flag, Problems, Spec


@dataclass(frozen=True)
class PlayersConfig:
    """``[players]``: what the box shows of its players beyond the box itself."""
    public: bool = True   # false: the TV page and the live feed show initials only


PLAYERS = Spec(PlayersConfig, {"public": Flag()})


def parse_players(table: Mapping[str, Any], problems: list[str]) -> PlayersConfig:
    """The ``[players]`` table checked; each problem is appended as one line."""
    return PlayersConfig(**PLAYERS.read(table, Problems(problems, "players")))
