"""Long fault suites on the simulated box (issue 10). ``.ci/run`` runs the short
form; ``pytest --long tests/test_sim_suites.py`` the full length
(tests/README.md gives the figures)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sim_play import Player, game_events

from shutbox_hw.base.events import FlapChanged
from shutbox_hw.config.config_file import load_config
from shutbox_hw.hal.adapters.mcp23017 import IOCON
from shutbox_hw.sim.runner import SimRunner, check_steps
from shutbox_hw.sim.script import parse_script
from shutbox_hw.sim.script_commands import Brownout

MCP_BUILD = Path(__file__).parent.parent / "hardware" / "mcp23017-12" / "shutbox.toml"
BUILDS = {"gpio-9": None, "mcp23017-12": MCP_BUILD}


def flap_changes(runner: SimRunner) -> list[tuple[int, bool]]:
    """Every flap change the daemon's game got, in order."""
    return [(e.tile, e.shut) for e in runner.sim.seen if isinstance(e, FlapChanged)]


@pytest.mark.parametrize("build", BUILDS)
def test_random_bounce_bursts_give_one_event_per_real_change(tmp_path, build, long_run):
    bursts = 10_000 if long_run else 1_000
    config = load_config(BUILDS[build])
    faults: list[dict] = []
    runner = SimRunner(config, tmp_path / "db", seed=11,
                       on_event=lambda e: faults.append(e) if e["event"] == "fault" else None)
    sim, rng = runner.sim, random.Random(build)
    tiles = config.rules.tiles
    busy_until = {t: -1 for t in range(1, tiles + 1)}   # a flap's last scheduled edge
    real: dict[int, list[bool]] = {t: [] for t in busy_until}
    chatters = 0
    while chatters < bursts:
        now = runner.world.now_ms()
        free = [t for t, until in busy_until.items() if until < now]
        if free:
            tile = rng.choice(free)
            # a real change, bouncing as it does, once the flap's last level held
            # debounce_ms (else that level never was a real one)
            if rng.random() < 0.2 and busy_until[tile] + config.hardware.debounce_ms < now:
                shut = not sim.is_shut(tile)
                busy_until[tile] = sim.move_flap(tile, shut, now)
                real[tile].append(shut)
            else:                                      # a burst that settles where it was
                busy_until[tile] = sim.bounce(tile, rng.randrange(2, 22, 2), now)
                chatters += 1
        runner.advance(rng.randint(0, 40))
    runner.advance(1000)
    got: dict[int, list[bool]] = {t: [] for t in busy_until}
    for tile, shut in flap_changes(runner):
        got[tile].append(shut)
    assert got == real
    assert sum(map(len, real.values())) > bursts // 8
    assert faults == []       # not one burst was taken for a chattering switch


def _play_long_game(tmp_path, throws: int):
    """A long race game on the MCP23017 build, played and written down by a
    :class:`Player`, with a ``wait 0.3`` line after every 100th throw."""
    config = load_config(MCP_BUILD, rule_overrides={"threshold": "1000000"})
    events: list[dict] = []
    runner = SimRunner(config, tmp_path / "plain.db", seed=5, on_event=events.append)
    lines = Player(runner, events, seed=5).play(3, throws, every=100)
    return config, runner, events, lines


def test_a_long_game_under_i2c_errors_and_brownouts_is_the_same_game(tmp_path, long_run):
    throws = 1_000 if long_run else 100
    config, plain, plain_events, lines = _play_long_game(tmp_path, throws)
    # a brownout soon after every 100th throw, at a random moment: the player
    # shuts flaps while it is repaired
    rng = random.Random(8)
    script = "fault i2c 0.01\n" + "".join(
        f"wait {rng.randint(0, 249) / 1000}\nbrownout\n" if line == "wait 0.3" else line + "\n"
        for line in lines)
    steps = parse_script(script, config.rules.tiles)
    check_steps(steps, config)
    events: list[dict] = []
    runner = SimRunner(config, tmp_path / "faults.db", seed=5, on_event=events.append)
    chip = runner.sim.chips[config.hardware.mcp23017.address]
    configured_at: list[int] = []            # the driver writing IOCON: reconfiguring
    write = chip.i2c_write

    def watched(register, data):
        write(register, data)
        if register == IOCON:
            configured_at.append(runner.world.now_ms())

    chip.i2c_write = watched
    brownouts: list[int] = []
    for step in steps:
        if isinstance(step.command, Brownout):
            brownouts.append(runner.world.now_ms())
        runner.run(step)

    assert len(brownouts) == throws // 100
    read_ms = config.hardware.read_interval_ms
    for at in brownouts:
        repaired = min(t for t in configured_at if t >= at)
        assert repaired - at <= read_ms
    assert runner.sim.bus.errors_injected > throws // 10
    assert game_events(events) == game_events(plain_events)
    assert sum(e["event"] == "rolled" for e in events) == throws
    # no flap change lost or invented: the same changes as without faults, and
    # each one a flap the player moved
    assert flap_changes(runner) == flap_changes(plain)
    moved = sum(len(line.split()) - 1 for line in lines if line.split()[0] in ("close", "open"))
    assert len(flap_changes(runner)) == moved
