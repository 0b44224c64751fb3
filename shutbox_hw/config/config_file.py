"""The box's TOML config file: one table per part, each validated by its owner.

``[rules]`` (rules engine keys plus ``preset``), ``[hardware]`` (see
:mod:`shutbox_hw.hal.contracts.config`), ``[game]`` (see :mod:`shutbox_hw.game.model.config`),
``[storage]``, ``[backup]`` (copies: :mod:`shutbox_hw.store.disk.backup`), ``[sim]``
(only the simulator reads it), ``[box]`` (its language) and ``[players]`` (see
:mod:`shutbox_hw.players.config`). Every problem is reported with the key it
concerns; :func:`check_config` gathers all of them so a builder can fix a file
in one go.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..base.errors import UserError, clip, shown_path
from ..base.i18n import DEFAULT as DEFAULT_LANGUAGE
from ..base.i18n import LANGUAGES
from ..base.textfile import read_text_file
from ..base.validate import Choice, FilePath, Integer, Problems, Rule, Spec, shown
from ..game.model.config import GameConfig, parse_game
from ..hal.contracts.config import HardwareConfig, parse_hardware
from ..players.config import PlayersConfig, parse_players
from ..rules import RulesError, RuleSet, rules_from_table
from .network import NetworkConfig, WebConfig, parse_network, parse_web

TABLES = ("rules", "hardware", "game", "storage", "backup", "sim", "network", "web", "box",
          "players")
MAX_CONFIG_BYTES = 1 << 20  # a config is a few KiB; more is a wrong file


class ConfigError(UserError):
    """One or more problems in a config file, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class SimConfig:
    """``[sim]``: what only ``shutbox-hw sim`` reads."""
    # the simulated dice module: the firmware's logic in this Python ("model"), or the
    # firmware's main.py under a real MicroPython ("micropython", firmware/dice/README.md)
    dice_firmware: str = "model"


SIM = Spec(SimConfig, {"dice_firmware": Choice(("model", "micropython"))})


@dataclass(frozen=True)
class BoxConfig:
    """``[box]``: the box as its players meet it."""
    language: str = DEFAULT_LANGUAGE    # what the OLED, the menu and the pages speak


BOX = Spec(BoxConfig, {"language": Choice(LANGUAGES)})


@dataclass(frozen=True)
class BackupConfig:
    """``[backup]``: copies of the record on another disk (store/disk/backup.py takes them)."""
    place: str | None = None   # a folder on another disk (a USB stick, a share); not set: none
    when: str = "04:00"        # the time of day the copy is taken ("HH:MM", the box's clock)
    keep: int = 14             # how many copies are kept (the oldest go first)


class TimeOfDay(Rule):
    """A time of day "HH:MM" (24-hour, the box's clock)."""

    def problem(self, value: Any) -> str | None:
        if isinstance(value, str) and re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", value):
            return None
        return f'expected a time of day such as "04:00", got {shown(value)}'


class Folder(Rule):
    """A folder's path, as text."""

    def problem(self, value: Any) -> str | None:
        if isinstance(value, str) and value.strip():
            return None
        return f"expected a folder's path, got {value!r}"


BACKUP = Spec(BackupConfig, {"place": Folder(), "when": TimeOfDay(),
                             "keep": Integer(1, 365, "a number of copies")})


def parse_backup(table: Mapping[str, Any], problems: list[str]) -> BackupConfig:
    """The ``[backup]`` table."""
    return BackupConfig(**BACKUP.read(table, Problems(problems, "backup")))


@dataclass(frozen=True)
class Config:
    rules: RuleSet
    hardware: HardwareConfig
    game: GameConfig = field(default_factory=GameConfig)
    db: Path | None = None  # None: the default for where we run
    runtime: Path | None = None  # None: $RUNTIME_DIRECTORY, /run/shutbox-hw, else a temp
    #                              folder; a folder in RAM for what need not survive a power
    #                              cut (the screen's mirror for the TV), off the SD card
    source: Path | None = None
    sim: SimConfig = field(default_factory=SimConfig)
    network: NetworkConfig = field(default_factory=NetworkConfig)   # MQTT (shutbox_hw/network)
    web: WebConfig = field(default_factory=WebConfig)               # shutbox-hw web
    box: BoxConfig = field(default_factory=BoxConfig)               # its language
    players: PlayersConfig = field(default_factory=PlayersConfig)   # names on the TV
    backup: BackupConfig = field(default_factory=BackupConfig)      # copies off the card


def default_db_path() -> Path:
    """/var/lib/shutbox-hw under systemd (StateDirectory), else the user's data dir."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0]) / "shutbox.db"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "shutbox-hw" / "shutbox.db"


STORAGE = Spec(Config, {"db": FilePath(), "runtime": FilePath()})


def parse_storage(table: Mapping[str, Any], problems: list[str]
                  ) -> tuple[Path | None, Path | None]:
    """The ``[storage]`` table: where the database is and the folder in RAM for the
    screen's mirror (store/read/shown.py) (None: the default for where we run)."""
    read = STORAGE.read(table, Problems(problems, "storage"))
    db, runtime = read["db"], read["runtime"]
    return (None if db is None else Path(db).expanduser(),
            None if runtime is None else Path(runtime).expanduser())


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed file; refuses what is not a small regular text file before reading it."""
    try:
        text = read_text_file(path, "config file", MAX_CONFIG_BYTES)
    except UserError as error:
        raise ConfigError([str(error)]) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError([f"{shown_path(path)}: not valid TOML: {clip(str(error), 100)}"]) \
            from None


def parse_config(data: Mapping[str, Any], *, preset: str | None = None,
                 rule_overrides: Mapping[str, Any] | None = None,
                 source: Path | None = None) -> tuple[Config | None, list[str]]:
    """Every table checked; returns the config (None if any problem) and the problems."""
    problems: list[str] = []
    for name, value in data.items():
        if name not in TABLES:
            problems.append(f"[{name}]: unknown table (tables: {', '.join(TABLES)})")
        elif not isinstance(value, dict):
            problems.append(f"{name}: expected a table [{name}]")
    tables: dict[str, Mapping[str, Any]] = {}
    for name in TABLES:
        value = data.get(name)
        tables[name] = value if isinstance(value, dict) else {}
    rules = None
    try:
        rules = rules_from_table(tables["rules"], rule_overrides, preset=preset)
    except RulesError as error:
        problems.append(f"[rules] {error}")
    # with broken rules, still check the hardware against the tiles asked for
    asked = tables["rules"].get("tiles")
    tiles = rules.tiles if rules else asked if isinstance(asked, int) and 9 <= asked <= 12 else 9
    hardware = parse_hardware(tables["hardware"], tiles, problems)
    game = parse_game(tables["game"], problems)
    db, runtime = parse_storage(tables["storage"], problems)
    backup = parse_backup(tables["backup"], problems)
    sim = SimConfig(**SIM.read(tables["sim"], Problems(problems, "sim")))
    network = parse_network(tables["network"], problems)
    web = parse_web(tables["web"], problems)
    box = BoxConfig(**BOX.read(tables["box"], Problems(problems, "box")))
    players = parse_players(tables["players"], problems)
    if game.dice == "module" and "dice" not in tables["hardware"]:
        problems.append('[game] dice: "module" needs a [hardware.dice] table (an empty one: '
                        "bus 4 on BCM 10/11, address 0x42, ready_pin 18)")
    if problems or rules is None:
        return None, problems
    return Config(rules=rules, hardware=hardware, game=game, db=db, runtime=runtime,
                  source=source,
                  sim=sim, network=network, web=web, box=box, players=players,
                  backup=backup), []


def load_config(path: str | Path | None = None, *, preset: str | None = None,
                rule_overrides: Mapping[str, Any] | None = None) -> Config:
    """The config at ``path`` (or all defaults), with command-line rule overrides.

    Raises :class:`ConfigError` listing every problem.
    """
    data: dict[str, Any] = {}
    source = None
    if path is not None:
        source = Path(path)
        data = read_toml(source)
    config, problems = parse_config(data, preset=preset, rule_overrides=rule_overrides,
                                    source=source)
    if config is None:
        raise ConfigError(problems)
    return config


def check_config(path: str | Path) -> list[str]:
    """Every problem in the file, one line each (empty when it is fine)."""
    try:
        data = read_toml(Path(path))
    except ConfigError as error:
        return error.problems
    return parse_config(data, source=Path(path))[1]
