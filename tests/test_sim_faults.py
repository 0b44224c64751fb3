"""The whole box when hardware misbehaves: a slow display, a chip that vanishes."""

import threading
from pathlib import Path

from shutbox_hw.config import load_config
from shutbox_hw.game.screens import PlayScreen
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
    real_display = panel.display

    def hung_display(image):
        gate.wait()
        real_display(image)

    panel.display = hung_display
    sent_before = panel.count
    runner.sim.settle_display = lambda: None  # do not wait for the panel in this test
    try:
        play(runner, "start 1\ndice 3 4\nroll\nclose 3 4\ndice 2 2\nroll\n")
        committed = [e["closed"] for e in events if e["event"] == "throw_committed"]
        assert committed == [[3, 4]]
        # 2+2 with 3 and 4 shut has no move: the turn ends while the panel still hangs
        ended = [e for e in events if e["event"] == "turn_ended"]
        assert ended and ended[0]["score"] == 45 - 7
        assert not gate.is_set() and panel.count == sent_before
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
    assert faults and not faults[0]["ok"] and "0x20" in faults[0]["source"]
    screen = runner.daemon.controller.screen()
    assert isinstance(screen, PlayScreen) and "0x20" in screen.message
    # a flap shut while the chip cannot be read is not lost
    runner.sim.move_flap(12, True, runner.world.now_ms())
    runner.advance(500)
    assert not any(e["event"] == "throw_committed" for e in events)
    chip.absent = False
    runner.advance(2000)
    assert [e["closed"] for e in events if e["event"] == "throw_committed"] == [[12]]
    assert [e for e in events if e["event"] == "fault"][-1]["ok"] is True
    assert runner.daemon.controller.screen().message is None
