"""The dice module in the daemon: the real host driver against the firmware's own
logic on the simulated bus, through the real daemon and controller."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from shutbox_hw.base.events import ButtonPressed, DiceRolled
from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.hal.adapters.dice_source import MODULE
from shutbox_hw.rules import rules_from_dict
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

ROOT = Path(__file__).resolve().parent.parent
BUILDS = {"gpio-9": ROOT / "hardware/gpio-9/shutbox.toml",
          "mcp23017-12": ROOT / "hardware/mcp23017-12/shutbox.toml"}


def module_config(build: str, tmp_path: Path, extra: str = "") -> Path:
    text = BUILDS[build].read_text().replace('dice = "software"', 'dice = "module"')
    path = tmp_path / f"{build}.toml"
    path.write_text(text + "\n[hardware.dice]\n" + extra)
    return path


class Rig:
    def __init__(self, tmp_path: Path, build: str = "gpio-9", extra: str = "") -> None:
        self.events: list[dict] = []
        config = load_config(module_config(build, tmp_path, extra))
        self.runner = SimRunner(config, tmp_path / "box.db", on_event=self.events.append)
        self.module = self.runner.sim.module
        assert self.module is not None

    def script(self, text: str) -> list[dict]:
        start = len(self.events)
        for step in parse_script(text, self.runner.config.rules.tiles):
            self.runner.run(step)
        return self.events[start:]

    @property
    def prompt(self) -> str:
        return self.runner.daemon.controller.screen().prompt


def named(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e["event"] == name]


@pytest.mark.parametrize("ready", ["18", '"none"'], ids=["ready-line", "polled"])
def test_a_whole_game_with_the_module_throwing_on_roll_and_on_shake(ready, tmp_path):
    rig = Rig(tmp_path, extra=f"ready_pin = {ready}\n")
    # klappenspiel, one player: eight throws shut the box
    throws = [((4, 5), "9"), ((6, 2), "8"), ((3, 4), "7"), ((1, 5), "6"), ((2, 3), "5"),
              ((1, 3), "4"), ((1, 2), "1 2"), ((2, 1), "3")]
    lines = ["start 1"]
    for i, (faces, flaps) in enumerate(throws):
        lines += [f"dice {faces[0]} {faces[1]}", "shake" if i % 2 else "roll", f"close {flaps}"]
    events = rig.script("\n".join(lines))
    rolled = named(events, "rolled")
    assert [tuple(e["dice"]) for e in rolled] == [f for f, _ in throws]
    assert {e["source"] for e in rolled} == {"module"}
    assert named(events, "turn_ended")[0]["shut"] is True
    drv = rig.runner.sim.box.dice.inner.link.module
    assert drv.crc_errors == drv.stale == 0 and drv.present


@pytest.mark.parametrize("build", BUILDS)
def test_sim_plays_a_scripted_game_with_the_module_on_both_builds(build, tmp_path):
    script = tmp_path / "game.txt"
    script.write_text("start 2\n" + "".join(f"dice {a} {b}\nroll\nclose {a + b}\nwait 3\n"
                                            for a, b in ((3, 4), (2, 6), (1, 1), (5, 4))) +
                      "shake\nhold-next\nroll\n")
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["sim", "--config", str(module_config(build, tmp_path)), "--db",
                     str(tmp_path / "sim.db"), "--script", str(script)])
    assert code == 0
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert events[0]["event"] == "game_started" and events[0]["dice"] == "module"
    rolled = named(events, "rolled")
    assert len(rolled) >= 5 and {e["source"] for e in rolled} == {"module"}
    assert [tuple(e["dice"]) for e in rolled[:4]] == [(3, 4), (2, 6), (1, 1), (5, 4)]
    assert named(events, "game_ended")


def test_unplugged_mid_game_rolls_software_dice_and_plugged_back_returns(tmp_path):
    rig = Rig(tmp_path)
    rig.script("start 1\ndice 3 4\nroll\nclose 7")
    rig.module.unplug()
    events = rig.script("wait 1")
    assert named(events, "fault") == [{"event": "fault", "device": MODULE,
                                       "detail": "no answer: software dice"}]
    assert MODULE in (rig.runner.daemon.controller.screen().message or "")
    events = rig.script("dice 2 3\nroll\nclose 5")   # the sim's software dice, queued
    assert [(e["dice"], e["source"]) for e in named(events, "rolled")] == [([2, 3], "software")]
    assert named(events, "throw_committed")[0]["closed"] == [5]
    rig.module.plug()
    events = rig.script("wait 3")
    assert named(events, "recovered") == [{"event": "recovered", "device": MODULE}]
    assert rig.runner.daemon.controller.screen().message is None
    events = rig.script("dice 6 3\nroll\nclose 9")
    assert [(e["dice"], e["source"]) for e in named(events, "rolled")] == [([6, 3], "module")]
    assert named(events, "throw_committed")[0]["closed"] == [9]


def test_roll_falls_back_at_once_when_the_module_is_gone_at_the_press(tmp_path):
    rig = Rig(tmp_path)
    rig.script("start 1")
    rig.module.unplug()        # gone between two polls: ROLL finds out
    events = rig.script("roll")
    assert named(events, "fault")[0]["device"] == MODULE
    assert [e["source"] for e in named(events, "rolled")] == ["software"]


def test_a_shake_when_no_throw_is_due_is_refused_on_the_screen(tmp_path):
    rig = Rig(tmp_path)
    rig.script("start 1\ndice 3 4\nroll")
    events = rig.script("dice 6 6\nshake")           # the 3+4 is still to be shut
    assert named(events, "rolled") == []
    assert rig.prompt == "dice ignored: finish this throw first"
    events = rig.script("close 7\ndice 1 2\nshake")  # now one is due
    assert [tuple(e["dice"]) for e in named(events, "rolled")] == [(1, 2)]
    assert rig.prompt != "dice ignored: finish this throw first"


def test_a_shake_while_a_flap_must_be_lifted_is_refused(tmp_path):
    rig = Rig(tmp_path)
    rig.script("start 1\ndice 3 4\nroll\nclose 7\nclose 9")   # 9 shut without a throw
    events = rig.script("shake")
    assert named(events, "rolled") == []
    assert rig.prompt == "dice ignored: fix the flaps first"


def test_the_daemon_writes_the_dice_count_the_rules_decide(tmp_path):
    rig = Rig(tmp_path)
    regs = rig.module.regmap
    rig.script("start 1")
    assert rig.module.mem[regs.COUNT] == 2
    # klappenspiel: once 7, 8, 9 are shut the player may throw one die; ROLL long asks for it
    rig.script("dice 4 5\nroll\nclose 9\ndice 4 4\nroll\nclose 8\ndice 3 4\nroll\nclose 7")
    events = rig.script("dice 5\nroll1")
    assert [tuple(e["dice"]) for e in named(events, "rolled")] == [(5,)]
    assert rig.module.mem[regs.RCOUNT] == 1


def test_the_wrong_number_of_dice_is_refused_with_the_reason():
    controller = Controller(rules_from_dict({"preset": "klappenspiel"}))
    controller.start(0, 0)
    controller.handle(ButtonPressed("roll", False, 1))          # a new game, a turn starts
    assert controller.dice_wanted() == 2
    out = controller.handle(DiceRolled((4,), 2, source="module"))
    assert controller.screen().prompt == "throw 2 dice: 1 die only once 7-9 are shut"
    assert not [e for e in out if type(e).__name__ == "Emit"]
    controller.handle(DiceRolled((4, 2), 3, source="module"))
    assert controller.state.turn.dice == (4, 2) and controller.dice_wanted() is None


def test_shake_without_a_module_is_a_script_error(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("start 1\nshake\n")
    out = io.StringIO()
    with redirect_stdout(out), pytest.raises(SystemExit) as exit_info:
        raise SystemExit(main(["sim", "--db", str(tmp_path / "x.db"), "--script", str(script)]))
    assert exit_info.value.code == 2


def run_selftest(tmp_path: Path, plant=None) -> tuple[int, list[str]]:
    from shutbox_hw.selftest import SelfTest
    from shutbox_hw.selftest.sim import SimPerson, simulated_rig
    from shutbox_hw.sim.box import SimulatedBox
    sim = SimulatedBox(load_config(module_config("gpio-9", tmp_path)))
    if plant is not None:
        plant(sim)
    lines: list[str] = []
    code = SelfTest(simulated_rig(sim), SimPerson(sim), lines.append, timeout_ms=3000).run()
    sim.box.close()
    return code, lines


def test_selftest_finds_the_module_and_asks_for_throws(tmp_path):
    code, lines = run_selftest(tmp_path)
    assert code == 0, lines
    assert "I2C dice module at 0x42 on bus 4: ok" in lines
    assert any(line.startswith("dice module: threw ") and line.endswith("on request: ok")
               for line in lines)
    assert any(line.startswith("dice module: threw ") and line.endswith("by button: ok")
               for line in lines)


def test_selftest_reports_a_missing_module_and_a_dead_button(tmp_path):
    code, lines = run_selftest(tmp_path, lambda sim: sim.module.unplug())
    assert code == 1 and "FAULT I2C dice module: no answer at 0x42 on bus 4: check wiring " \
        "and the i2c-gpio overlay " \
        "(dtoverlay=i2c-gpio,bus=4,i2c_gpio_sda=10,i2c_gpio_scl=11)" in lines

    def dead_button(sim) -> None:
        sim.module.press = lambda hold_ms=100: None
    code, lines = run_selftest(tmp_path, dead_button)
    assert code == 1
    assert "FAULT dice module: no throw from its button or tilt switch: check them" in lines


def test_a_pinned_script_plays_the_same_game_through_the_module(tmp_path):
    def play(config: Path, db: str) -> list[dict]:
        out = io.StringIO()
        with redirect_stdout(out):
            assert main(["sim", "--config", str(config), "--db", str(tmp_path / db), "--script",
                         str(ROOT / "tests/scripts/two-player-klappenspiel.txt")]) == 0
        return [json.loads(line) for line in out.getvalue().splitlines()]
    with_module = play(module_config("gpio-9", tmp_path), "module.db")
    software = play(BUILDS["gpio-9"], "software.db")
    rolled = named(with_module, "rolled")
    assert rolled and {e.pop("source") for e in rolled} == {"module"}
    for e in named(software, "rolled"):
        assert e.pop("source") == "software"
    assert with_module[0].pop("dice") == "module" and software[0].pop("dice") == "software"
    assert with_module == software


def test_shake_without_a_module_is_refused_before_the_script_runs(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("start 1\nshake\n")
    assert main(["sim", "--db", str(tmp_path / "x.db"), "--script", str(script)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""       # nothing ran
    assert captured.err.strip().endswith(':2: shake: no dice module in play '
                                         '(needs [game] dice = "module")')


def test_unplug_dice_in_a_script_gives_the_fallback(tmp_path):
    rig = Rig(tmp_path)
    events = rig.script("start 1\nunplug dice\nwait 1\ndice 2 3\nroll\nplug dice\nwait 3")
    assert [e["source"] for e in named(events, "rolled")] == ["software"]
    assert [e["event"] for e in events if e["event"] in ("fault", "recovered")] == \
        ["fault", "recovered"]


def test_a_power_cut_mid_throw_resumes_with_the_module(tmp_path):
    rig = Rig(tmp_path)
    events = rig.script("start 1\ndice 3 4\nroll\nrestart\nclose 7\ndice 5 4\nroll\nclose 9")
    assert [(e["dice"], e["source"]) for e in named(events, "rolled")] == \
        [([3, 4], "module"), ([5, 4], "module")]
    assert [e["closed"] for e in named(events, "throw_committed")] == [[7], [9]]
    assert named(events, "fault") == []      # the module rebooted with the Pi: no fault


def test_run_builds_the_module_with_its_ready_line_on_the_pi_pins(tmp_path, monkeypatch):
    from gpiozero.pins.mock import MockFactory

    from shutbox_hw.commands.box import run
    from shutbox_hw.hal.adapters.dice_source import ModuleDice
    from shutbox_hw.hal.contracts.clock import VirtualClock
    from shutbox_hw.hal.simulated import SimBus
    from shutbox_hw.hal.simulated.dice_module import SimDiceModule
    factory = MockFactory()
    monkeypatch.setattr("shutbox_hw.hal.adapters.gpio.make_pin_factory", lambda name: factory)
    clock = VirtualClock()
    bus = SimBus()
    module = SimDiceModule(clock=clock, ready_pin=factory.pin(18))
    bus.attach(0x42, module)
    monkeypatch.setattr(run, "open_i2c", lambda number: bus)
    path = tmp_path / "box.toml"
    path.write_text('[hardware.display]\ndriver = "none"\n[game]\ndice = "module"\n'
                    '[hardware.dice]\n')
    wakes: list[int] = []
    box = run.build_real_box(load_config(path), clock, "mock",
                             lambda: wakes.append(clock.now_ms()))
    try:
        assert isinstance(box.dice, ModuleDice)
        assert box.dice.poll(clock.now_ms()) == []             # found it
        module.next_faces(2, 5)
        assert box.dice.roll(2) is None                        # the module throws
        clock.advance(2000)
        module.sync()
        assert factory.pin(18).state == 0                      # the ready line fell
        assert wakes == [clock.now_ms()]                       # and woke the loop
        thrown = box.dice.poll(clock.now_ms())
        assert [(e.faces, e.source) for e in thrown] == [((2, 5), "module")]
        assert factory.pin(18).state == 1                      # released on ACK
    finally:
        box.close()
