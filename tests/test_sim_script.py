"""Fault commands in ``shutbox-hw sim`` scripts: what they accept, and one-line
errors that name the line for what they do not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim import clock as clock_module
from shutbox_hw.sim import runner as runner_module
from shutbox_hw.sim.script import ScriptError, Step, parse_script
from shutbox_hw.sim.script_commands import Bounce, Brownout, I2cFault, IntWire, Plug

MCP_BUILD = Path(__file__).parent.parent / "hardware" / "mcp23017-12" / "shutbox.toml"


def test_fault_commands_parse():
    text = ("fault i2c 0.01\nFAULT I2C 0\nbrownout\nunplug 0x20\nplug 0x27\nunplug display\n"
            "plug dice\nbounce 3\nbounce 9 4\ncut-int\nmend-int  # the wire again\n")
    assert parse_script(text, 9) == [
        Step(1, I2cFault(0.01)), Step(2, I2cFault(0.0)), Step(3, Brownout()),
        Step(4, Plug(0x20, False)), Step(5, Plug(0x27, True)), Step(6, Plug("display", False)),
        Step(7, Plug("dice", True)), Step(8, Bounce(3, 10)), Step(9, Bounce(9, 4)),
        Step(10, IntWire(cut=True)), Step(11, IntWire(cut=False))]


@pytest.mark.parametrize("line,word", [
    ("fault i2c", "fault i2c RATE"),
    ("fault spi 0.1", "fault i2c RATE"),
    ("fault i2c 1.5", "from 0 to 1"),
    ("fault i2c -0.1", "from 0 to 1"),
    ("fault i2c nan", "from 0 to 1"),
    ("fault i2c often", "from 0 to 1"),
    ("brownout now", "takes no arguments"),
    ("cut-int 4", "takes no arguments"),
    ("mend-int x", "takes no arguments"),
    ("unplug", "one device"),
    ("plug 0x20 0x21", "one device"),
    ("unplug 0x30", "0x20..0x27"),
    ("unplug toaster", "0x20..0x27"),
    ("bounce", "a flap and a number of edges"),
    ("bounce 10", "flap 10"),
    ("bounce 3 5", "even number"),
    ("bounce 3 0", "even number"),
    ("bounce 3 2000", "even number"),
    ("bounce x", "whole number"),
])
def test_bad_fault_lines_name_the_line(line, word):
    with pytest.raises(ScriptError) as error:
        parse_script(f"start 1\n\n{line}\n", 9, name="s.txt")
    message = str(error.value)
    assert message.startswith("s.txt:3: ") and word in message and "\n" not in message


def sim(capsys, tmp_path, text, *argv):
    path = tmp_path / "s.txt"
    path.write_text(text)
    code = main(["sim", "--db", str(tmp_path / "db"), "--script", str(path), *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("text,config,word", [
    ("start 1\nunplug dice\n", None, "no dice module in this config"),
    ("start 1\nplug 0x20\n", None, "no MCP23017 at 0x20"),
    ("start 1\nunplug 0x24\n", MCP_BUILD, "no MCP23017 at 0x24"),
    ("cut-int\n", None, "no expander INT line"),
])
def test_a_fault_on_a_part_the_box_lacks_is_refused_before_anything_runs(
        capsys, tmp_path, text, config, word):
    extra = ["--config", str(config)] if config else []
    code, out, err = sim(capsys, tmp_path, text, *extra)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"s.txt:{text.count(chr(10))}:" in lines[0] and word in lines[0]


def test_fault_commands_run_from_the_command_line(capsys, tmp_path):
    code, out, err = sim(capsys, tmp_path, "fault i2c 0.2\nstart 1\nbrownout\nwait 0.5\n"
                         "unplug 0x20\nwait 2\nplug 0x20\nwait 2\nfault i2c 0\n",
                         "--config", str(MCP_BUILD))
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["event"] == "game_started"
    faults = [e["event"] for e in events if e["event"] in ("fault", "recovered")]
    assert len(faults) >= 4 and faults[0] == "fault" and faults[-1] == "recovered"


class FakeTime:
    """A wall clock that moves only when slept on."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


def test_realtime_follows_the_wall_clock(tmp_path, monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(clock_module, "time", fake)
    runner = runner_module.SimRunner(load_config(), tmp_path / "db", realtime=True)
    start = runner.world.now_ms()
    for step in parse_script("start 1\nwait 2.5\nclose 3\nwait 1\n", 9):
        runner.run(step)
    virtual = (runner.world.now_ms() - start) / 1000
    assert virtual > 3.5 and fake.slept == pytest.approx(virtual, abs=0.002)


def test_realtime_from_the_command_line(capsys, tmp_path, monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(clock_module, "time", fake)
    # no claims socket: a phone's claim would wake the wait on the real clock instead
    code, out, err = sim(capsys, tmp_path, "start 1\nwait 2.5\n", "--realtime", "--no-claims")
    assert code == 0 and fake.slept > 2.5 and '"game_started"' in out
    slept = fake.slept
    code, out, err = sim(capsys, tmp_path, "start 1\nwait 2.5\n")
    assert code == 0 and fake.slept == slept      # a virtual clock: no sleeping


def test_realtime_needs_a_script(capsys):
    assert main(["sim", "--realtime"]) == 2
    assert "--realtime" in capsys.readouterr().err


def test_i2c_faults_follow_the_seed(capsys, tmp_path):
    text = "fault i2c 0.4\nstart 1\ndice 6 6\nroll\nclose 12\nwait 3\n"
    runs = []
    for n, seed in enumerate(("1", "1", "2")):
        path = tmp_path / f"{n}.txt"
        path.write_text(text)
        assert main(["sim", "--config", str(MCP_BUILD), "--seed", seed, "--db",
                     str(tmp_path / f"{n}.db"), "--script", str(path)]) == 0
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1] and '"fault"' in runs[0]
    assert runs[2] != runs[0]


# ---------------------------------------------------------------- the service button

@pytest.mark.parametrize("hardware", ["service = 7",
                                      'backend = "mcp23017"\nservice = "GPB3"'])
def test_the_service_button_opens_the_menu_from_the_idle_screen(capsys, tmp_path, hardware):
    config = tmp_path / "box.toml"
    config.write_text(f"[hardware]\n{hardware}\n")
    code, out, err = sim(capsys, tmp_path, "service\n", "--config", str(config))
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [{"event": "service_entered"}]


def test_the_service_button_during_a_game_does_nothing(capsys, tmp_path):
    config = tmp_path / "box.toml"
    config.write_text("[hardware]\nservice = 7\n")
    code, out, err = sim(capsys, tmp_path, "start 1\nservice\n", "--config", str(config))
    assert code == 0, err
    events = [json.loads(line)["event"] for line in out.splitlines()]
    assert events[0] == "game_started" and "service_entered" not in events


def test_service_without_a_service_button_is_refused_before_anything_runs(capsys, tmp_path):
    code, out, err = sim(capsys, tmp_path, "start 1\nservice\n")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "s.txt:2: service: no service button in this config" in lines[0]
    with pytest.raises(ScriptError, match="takes no arguments"):
        parse_script("service now\n", 9)
