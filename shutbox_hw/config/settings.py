"""The effective configuration: the box's own adjustments laid over the config file.

Adjustments made on the service menu are stored in the database
(:mod:`shutbox_hw.store.write.settings`) and win over the config file until they are
reset from the menu. One function here does the overlay, for the daemon, the
simulator, ``rules`` and ``check-config`` alike, and says where each value
came from.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..base.i18n import LANGUAGES
from ..game.display.service_view import shown_value
from ..game.model.config import HINT_MODES, MAX_PLAYERS, PlayerNames, seat_names
from ..rules import build_rules
from ..store.write.settings import load_settings
from .config_file import Config

BOX = "box"
CONFIG_FILE = "config file"
KEYS = ("preset", "players", "names", "hints", "settle_ms", "contrast", "language")


def config_values(config: Config) -> dict[str, Any]:
    """The adjustable values as ``config`` sets them (names: one per seat)."""
    return {"preset": config.rules.preset,
            "players": len(config.game.player_names) or 2,
            "names": seat_names(config.game.player_names, len(config.game.player_names) or 2),
            "hints": config.game.hints,
            "settle_ms": config.game.settle_ms,
            "contrast": config.hardware.display.contrast,
            "language": config.box.language}


def _names(value: Any) -> tuple[str, ...] | None:
    """Stored seat names, if they pass the config file's own check of names."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    return tuple(value) if PlayerNames(MAX_PLAYERS).problem(list(value)) is None else None


def effective(config: Config, settings: Mapping[str, Any]) -> tuple[Config, dict[str, str]]:
    """The config with the box's adjustments applied, and each key's source.

    A stored value the current version no longer accepts (e.g. a preset
    removed) is ignored, so an old database never stops the box.
    """
    sources = {key: CONFIG_FILE for key in KEYS}
    rules, game, display = config.rules, config.game, config.hardware.display
    preset = settings.get("preset")
    if isinstance(preset, str) and preset != rules.preset:
        try:
            rules = build_rules(preset)
        except ValueError:
            preset = None
    if isinstance(preset, str):
        sources["preset"] = BOX
    players = settings.get("players")
    count = len(game.player_names) or 2
    if isinstance(players, int) and 1 <= players <= MAX_PLAYERS:
        count = players
        sources["players"] = BOX
    names = _names(settings.get("names"))
    if names is not None:
        sources["names"] = BOX
    if sources["players"] == BOX or names is not None:
        game = replace(game, player_names=seat_names(names or game.player_names, count))
    if settings.get("hints") in HINT_MODES:
        game = replace(game, hints=settings["hints"])
        sources["hints"] = BOX
    if isinstance(settings.get("settle_ms"), int) and 0 <= settings["settle_ms"] <= 60_000:
        game = replace(game, settle_ms=settings["settle_ms"])
        sources["settle_ms"] = BOX
    contrast = settings.get("contrast")
    if isinstance(contrast, int) and 0 <= contrast <= 255:
        display = replace(display, contrast=contrast,
                          dim_contrast=min(display.dim_contrast, contrast))
        sources["contrast"] = BOX
    hardware = replace(config.hardware, display=display)
    box = config.box
    if settings.get("language") in LANGUAGES:
        box = replace(box, language=settings["language"])
        sources["language"] = BOX
    return replace(config, rules=rules, game=game, hardware=hardware, box=box), sources


def setting_lines(config: Config, sources: Mapping[str, str]) -> list[str]:
    """Each adjustable value of ``config`` and where it comes from, a line each
    (``rules --config`` and ``check-config`` print these)."""
    return [f"  {key} = {shown_value(key, value)}  ({sources[key]})"
            for key, value in config_values(config).items()]


def read_settings(path: Path) -> dict[str, Any]:
    """The box's adjustments in the database at ``path`` (none if no file or table yet);
    read-only, so a command never creates or migrates the box's database."""
    if not path.is_file():
        return {}
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return load_settings(db)
    except sqlite3.OperationalError:
        return {}   # an older schema: no settings table yet
    finally:
        db.close()
