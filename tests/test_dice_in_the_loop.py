"""Firmware in the loop: the simulator's dice module is the firmware's own
main.py under a real MicroPython (``[sim] dice_firmware = "micropython"``),
bridged through the simulated bus to the real driver, daemon and controller.
Its clock starts 5 s before rp2's ticks wrap, so every game here crosses it."""

from __future__ import annotations

import pytest
from micropython_rig import micropython
from test_dice_wire import Rig, named

from shutbox_hw.dice_firmware import dice_config as cfg
from shutbox_hw.hal.adapters.dice_source import MODULE
from shutbox_hw.hal.simulated.dice_firmware import START_MS

IN_THE_LOOP = '\n[sim]\ndice_firmware = "micropython"\n'
GAME = [((4, 5), "9"), ((6, 2), "8"), ((3, 4), "7"), ((1, 5), "6"), ((2, 3), "5"),
        ((1, 3), "4"), ((1, 2), "1 2"), ((2, 1), "3")]


@pytest.fixture
def rig(tmp_path):
    micropython()
    r = Rig(tmp_path, extra=IN_THE_LOOP)
    yield r
    r.module.close()


def play(rig: Rig, throws=GAME) -> list[dict]:
    lines = ["start 1"]
    for i, (faces, flaps) in enumerate(throws):
        lines += [f"dice {faces[0]} {faces[1]}", "shake" if i % 2 else "roll", f"close {flaps}"]
    return rig.script("\n".join(lines))


@pytest.mark.parametrize("ready", ["18", '"none"'], ids=["ready-line", "polled"])
def test_a_whole_game_against_the_firmware_across_the_ticks_wrap(ready, tmp_path):
    micropython()
    rig = Rig(tmp_path, extra=f"ready_pin = {ready}\n" + IN_THE_LOOP)
    try:
        assert rig.module.firmware == "micropython"
        events = play(rig)
        rolled = named(events, "rolled")
        assert [tuple(e["dice"]) for e in rolled] == [f for f, _ in GAME]
        assert {e["source"] for e in rolled} == {"module"}
        assert named(events, "turn_ended")[0]["shut"] is True
        drv = rig.runner.sim.box.dice.inner.link.module
        assert drv.crc_errors == drv.stale == drv.restarts == 0 and drv.present
        assert rig.module.pico.pico.state().now > START_MS + 5000       # past the wrap
    finally:
        rig.module.close()


def test_a_watchdog_reset_mid_game_is_seen_and_the_game_goes_on_with_the_module(rig):
    rig.script("start 1\ndice 4 5\nroll\nclose 9")
    rig.module.stall(cfg.WATCHDOG_MS + 500)
    events = rig.script("wait 1")
    drv = rig.runner.sim.box.dice.inner.link.module
    assert drv.restarts == 1 and rig.module.pico.pico.state().cause == 3
    assert not named(events, "fault")
    events = rig.script("dice 3 4\nroll\nclose 7")
    assert [tuple(e["dice"]) for e in named(events, "rolled")] == [(3, 4)]


def test_a_button_held_through_a_power_cut_without_usb_is_no_throw(rig):
    rig.script("start 1\ndice 4 5\nroll\nclose 9")
    rig.module.button_down = True
    rig.script("restart\nwait 1")
    rig.module.button_down = False
    events = rig.script("wait 2")
    assert not named(events, "rolled") and not named(events, "fault")
    events = rig.script("dice 3 4\nroll\nclose 7")
    assert [tuple(e["dice"]) for e in named(events, "rolled")] == [(3, 4)]


def test_a_button_held_at_power_up_with_usb_leaves_the_module_off_and_says_so(rig):
    rig.script("start 1\ndice 4 5\nroll\nclose 9")
    rig.module.usb_power(True)
    rig.module.button_down = True
    events = rig.script("restart\nwait 3")
    assert named(events, "fault") == [{"event": "fault", "device": MODULE,
                                       "detail": "no answer: software dice"}]
    assert rig.module.pico.pico.printed[-1].startswith("dice: button held with USB power")


def test_the_sim_table_names_a_firmware_or_says_what_it_takes(tmp_path):
    from shutbox_hw.config.config_file import check_config, load_config

    path = tmp_path / "box.toml"
    path.write_text('[sim]\ndice_firmware = "python"\n')
    assert check_config(path) == ["[sim] dice_firmware: 'python' is not one of model, micropython"]
    path.write_text("")
    assert load_config(path).sim.dice_firmware == "model"      # the default


def test_without_an_interpreter_the_sim_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    from test_dice_wire import module_config

    from shutbox_hw.commands.cli import main

    monkeypatch.setenv("MICROPYTHON", str(tmp_path / "no-such-micropython"))
    path = module_config("gpio-9", tmp_path, IN_THE_LOOP)
    script = tmp_path / "s.txt"
    script.write_text("start 1\n")
    assert main(["sim", "--config", str(path), "--script", str(script)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no-such-micropython is not a program that can run" in err[0], err
