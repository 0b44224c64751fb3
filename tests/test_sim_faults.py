"""The whole box when hardware misbehaves: a slow display, a chip that vanishes,
and every fault command of ``sim`` scripts under a whole game."""

import random
import threading
from pathlib import Path

import pytest
from sim_play import game_events, play_script
from test_sim_runner import chip_reads

from shutbox_hw.base.events import FlapChanged
from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.display.screens import PlayScreen
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

MCP_BUILD = Path(__file__).parent.parent / "hardware" / "mcp23017-12" / "shutbox.toml"


def play(runner, text, tiles=9):
    for step in parse_script(text, tiles):
        runner.run(step)


def test_a_stuck_display_does_not_hold_up_the_game(tmp_path):
    events = []
    runner = SimRunner(load_config(), tmp_path / "db", on_event=events.append)
    gate = threading.Event()                 # the panel's bus hangs until this is set
    panel = runner.sim.panel
    real_transfer = panel.transfer

    def hung_transfer():
        gate.wait()
        real_transfer()

    panel.transfer = hung_transfer   # a whole frame or a page: the bus hangs
    sent_before = panel.count
    runner.sim.settle_display = lambda: None  # do not wait for the panel in this test
    display = getattr(runner.sim.box.display, "inner", runner.sim.box.display)
    waited: list[float] = []                  # ... so nothing waits for it (5 s a time)
    real_wait = display.wait_idle
    display.wait_idle = lambda timeout: (waited.append(timeout), real_wait(timeout))[1]
    try:
        play(runner, "start 1\ndice 3 4\nroll\nclose 3 4\ndice 2 2\nroll\n")
        committed = [e["closed"] for e in events if e["event"] == "throw_committed"]
        assert committed == [[3, 4]]
        # 2+2 with 3 and 4 shut has no move: the turn ends while the panel still hangs
        ended = [e for e in events if e["event"] == "turn_ended"]
        assert ended and ended[0]["score"] == 45 - 7
        assert not gate.is_set() and panel.count == sent_before
        assert waited == []   # the runner took the swapped settling, not a bound copy
    finally:
        gate.set()


def test_a_vanished_expander_is_shown_and_no_flap_is_lost(tmp_path):
    config = load_config(MCP_BUILD)
    events = []
    runner = SimRunner(config, tmp_path / "db", on_event=events.append)
    play(runner, "start 1\ndice 6 6\nroll\n", tiles=12)
    chip = runner.sim.chips[0x20]
    chip.absent = True
    runner.advance(300)                        # the periodic read finds it gone
    faults = [e for e in events if e["event"] == "fault"]
    assert faults and "0x20" in faults[0]["device"] and "errno 121" in faults[0]["detail"]
    screen = runner.sim.view.screen
    assert isinstance(screen, PlayScreen) and "0x20" in screen.message
    # a flap shut while the chip cannot be read is not lost
    runner.sim.move_flap(12, True, runner.world.now_ms())
    runner.advance(500)
    assert not any(e["event"] == "throw_committed" for e in events)
    chip.absent = False
    runner.advance(2000)
    assert [e["closed"] for e in events if e["event"] == "throw_committed"] == [[12]]
    assert [e for e in events if e["event"] in ("fault", "recovered")][-1] == {
        "event": "recovered", "device": "MCP23017 0x20"}
    assert runner.sim.view.screen.message is None


# -- fault commands in scripts: the same game whatever the hardware does ------------

SCRIPTS = Path(__file__).parent / "scripts"
SINGLE_ROUND = {"match": "single-round"}


def practice(build: Path | None):
    return load_config(build, preset="crafthouse-12", rule_overrides=SINGLE_ROUND)


def inserted(text: str, after: tuple[str, ...], lines: list[str], *, first: str = "") -> str:
    """``text`` with ``lines`` after every command in ``after`` (and ``first`` on top)."""
    out = [first] if first else []
    for line in text.splitlines():
        out.append(line)
        if line.split("#")[0].split()[:1] and line.split()[0] in after:
            out.extend(lines)
    return "\n".join(out) + "\n"


def bounced(text: str, seed: int) -> str:
    """A chattering flap switch after every line (the flap settles where it was)."""
    rng = random.Random(seed)
    out = []
    for line in text.splitlines():
        out.append(line)
        if line.split("#")[0].strip():
            out.append(f"bounce {rng.randint(1, 12)} {rng.randrange(2, 22, 2)}")
    return "\n".join(out) + "\n"


PRACTICE = (SCRIPTS / "practice-001.txt").read_text()
MCP_FAULTS = {
    "i2c errors": "fault i2c 0.05\n" + PRACTICE,
    "brownouts": inserted(PRACTICE, ("roll", "close"), ["brownout"]),
    "input chip unplugged": inserted(PRACTICE, ("roll",), ["unplug 0x20", "wait 1.5",
                                                          "plug 0x20"]) + "wait 2\n",
    "LED chip unplugged": inserted(PRACTICE, ("roll",), ["unplug 0x21", "wait 1.5",
                                                        "plug 0x21"]),
    "display unplugged": inserted(PRACTICE, ("roll",), ["unplug display", "wait 1",
                                                       "plug display"]),
    "power cuts with the input chip unplugged": inserted(
        PRACTICE, ("close",), ["unplug 0x20", "restart", "wait 0.5", "plug 0x20", "wait 1.5"]),
    "power cuts amid i2c errors": inserted(PRACTICE, ("close",), ["fault i2c 0.3", "restart",
                                                                 "fault i2c 0"]),
    "bounces": bounced(PRACTICE, 3),
    "INT cut": "cut-int\n" + PRACTICE,
    "INT cut and mended": inserted(PRACTICE, ("roll",), ["cut-int"]).replace(
        "close", "mend-int\nclose"),
    "everything": bounced(inserted(PRACTICE, ("roll",), ["brownout", "cut-int", "unplug 0x20",
                                                        "wait 1", "plug 0x20", "mend-int",
                                                        "unplug display"],
                                   first="fault i2c 0.02"), 4),
}


@pytest.fixture(scope="module")
def plain_games(tmp_path_factory):
    """The practice game without faults, on each build."""
    out = {}
    for build in (None, MCP_BUILD):
        _, events = play_script(practice(build), PRACTICE, tmp_path_factory.mktemp("p") / "db")
        out[build] = game_events(events)
        assert out[build][0]["event"] == "game_started"
        assert out[build][-1]["event"] == "game_ended"
    return out


@pytest.mark.parametrize("case", MCP_FAULTS)
def test_the_mcp23017_build_plays_the_same_game_under(case, tmp_path, plain_games):
    runner, events = play_script(practice(MCP_BUILD), MCP_FAULTS[case], tmp_path / "db")
    assert game_events(events) == plain_games[MCP_BUILD]
    if case in ("i2c errors", "everything"):
        assert runner.sim.bus.errors_injected > 5
    if case in ("brownouts", "input chip unplugged"):
        faults = [e for e in events if e["event"] in ("fault", "recovered")]
        assert faults and all(e["device"] == "MCP23017 0x20" for e in faults)
        assert faults[-1]["event"] == "recovered"


@pytest.mark.parametrize("case", ["fault i2c 0.05\n", "unplug display\n"])
def test_the_gpio_build_plays_the_same_game_under(case, tmp_path, plain_games):
    runner, events = play_script(practice(None), bounced(case + PRACTICE, 5), tmp_path / "db")
    assert game_events(events) == plain_games[None]


def test_an_unplugged_display_gets_the_picture_again_once_plugged(tmp_path):
    config = practice(MCP_BUILD)
    runner, events = play_script(config, "start 2\nunplug display\ndice 6 6\nroll\n",
                                 tmp_path / "db")
    panel = runner.sim.panel
    stale = panel.count
    play(runner, "close 12\nwait 1\n", tiles=12)
    assert panel.count == stale                      # nothing reached the panel
    play(runner, f"plug display\nwait {config.hardware.display.retry_s + 1}\n", tiles=12)
    runner.advance(10)                               # the next poll reports it back
    assert panel.count > stale
    want = runner.daemon.render(runner.daemon.controller.screen()).convert("1")
    assert runner.sim.last_frame().convert("1").tobytes() == want.tobytes()
    noticed = [e for e in events if e["event"] in ("fault", "recovered")]
    assert [(e["event"], e["device"]) for e in noticed] == [("fault", "display"),
                                                             ("recovered", "display")]


def test_a_brownout_is_seen_and_repaired_on_the_next_read(tmp_path):
    config = load_config(MCP_BUILD)
    runner, events = play_script(config, "start 2\nbrownout\n", tmp_path / "db")
    chip = runner.sim.chips[0x20]
    assert chip.regs[0x0C] == 0                      # GPPUA: pull-ups gone, flaps read "shut"
    runner.advance(config.hardware.read_interval_ms)
    assert chip.regs[0x0C] != 0                      # configured again
    assert [e for e in events if e["event"] in ("fault", "recovered")] == [
        {"event": "fault", "device": "MCP23017 0x20", "detail": "registers were reset (brownout?)"},
        {"event": "recovered", "device": "MCP23017 0x20"}]
    assert not any(e["event"] == "flap_rejected" for e in events)


def test_a_bounce_changes_no_flap(tmp_path):
    runner, events = play_script(load_config(MCP_BUILD), "start 1\nbounce 4 40\nclose 4\n"
                                 "bounce 4\n", tmp_path / "db")
    flaps = [(e.tile, e.shut) for e in runner.sim.seen if isinstance(e, FlapChanged)]
    assert flaps == [(4, True)]
    assert runner.sim.is_shut(4)


def test_with_int_cut_the_chip_is_polled_once_the_dead_line_shows(tmp_path):
    config = load_config(MCP_BUILD)
    hw = config.hardware
    runner, _ = play_script(config, "start 1\ncut-int\n", tmp_path / "db")
    reads = chip_reads(runner)
    runner.advance(1000)      # nothing latched: the dead line cannot show yet
    assert len(reads) <= 1000 // hw.read_interval_ms + 1
    reads.clear()
    moved = runner.world.now_ms()
    runner.sim.move_flap(3, True, moved)
    runner.advance(1000)
    # the periodic read finds INTF set while INT is not low: polled from then on
    assert reads[0] <= moved + hw.read_interval_ms
    gaps = [b - a for a, b in zip(reads, reads[1:])]
    # every debounce/2, now and then later behind a frame on the shared bus
    assert gaps and sorted(gaps)[len(gaps) // 2] == hw.debounce_ms // 2
    assert max(gaps) <= hw.debounce_ms
    seen = runner.sim.seen
    assert seen and seen[-1] == FlapChanged(3, True, seen[-1].at_ms)
    play(runner, "mend-int\n", tiles=12)
    reads.clear()
    at = runner.world.now_ms() + 7
    runner.world.at(at, lambda: runner.sim.chips[0x20].set_input(5, False))
    runner.advance(50)
    assert at in reads                               # INT works again: read at once
    assert [r for r in reads if r > at] == []        # ... and no more polling


def test_the_led_chip_is_set_up_again_after_it_was_unplugged(tmp_path):
    runner, _ = play_script(load_config(MCP_BUILD), "start 1\ndice 1 1\nroll\nclose 5\n",
                            tmp_path / "db")
    chip = runner.sim.chips[0x21]

    def outputs():
        return [chip.output_level(pin) for pin in range(16)]

    driven = outputs()
    assert None not in driven                        # configured as outputs
    play(runner, "unplug 0x21\nwait 1\nplug 0x21\n", tiles=12)
    assert outputs() == [None] * 16                 # power-on: every pin an input
    play(runner, "wait 1.1\n", tiles=12)            # the driver checks it every second
    assert None not in outputs()
