"""A night of games with named players, for the tests of the players' names."""

from __future__ import annotations

from pathlib import Path

from shutbox_hw.config.config_file import Config, parse_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

# one round (single-round): the first seat scores 1+5+6+7 = 19, the second 1+3+4+5+6+8+9
# = 36, so the first seat wins; ROLL on the result goes back to the idle screen
GAME = """start 2
dice 6 6
roll
close 3 9
dice 1 1
roll
close 2
dice 6 6
roll
close 4 8
dice 1 1
roll
open 2 3 4 8 9
dice 3 4
roll
close 7
dice 1 1
roll
close 2
dice 1 1
roll
roll
"""
# Anna Lena in three games, at both seats, typed two ways; Bob and Cleo beside her
NIGHT = [("Anna Lena", "Bob"), ("Bob", "anna lena"), ("Cleo", "Bob"), ("ANNA LENA", "Cleo")]


def config_for(names: tuple[str, ...]) -> Config:
    """A box whose seats are ``names``, playing one round a game."""
    config, problems = parse_config({"rules": {"match": "single-round"},
                                     "game": {"player_names": list(names)}})
    assert config is not None, problems
    return config


def play_night(db: Path, night: list[tuple[str, str]] = NIGHT) -> None:
    """The four games, each event also queued in the MQTT outbox (as with
    [network] mqtt and the broker away): the outbox names the players too."""
    for names in night:
        runner = SimRunner(config_for(names), db, outbox=lambda: None)
        for step in parse_script(GAME, 9):
            runner.run(step)
        runner.daemon.store.close()


