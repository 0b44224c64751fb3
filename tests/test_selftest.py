"""``shutbox-hw selftest`` on the simulated box, with wiring faults planted in it."""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.hal.contracts.clock import VirtualClock
from shutbox_hw.selftest import Rig, SelfTest
from shutbox_hw.selftest.sim import SimPerson, simulated_rig
from shutbox_hw.selftest.terminal import TerminalPerson
from shutbox_hw.sim.box import SimulatedBox

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = {"gpio-9": ROOT / "hardware" / "gpio-9" / "shutbox.toml",
           "mcp23017-12": ROOT / "hardware" / "mcp23017-12" / "shutbox.toml"}
TILES = {"gpio-9": 9, "mcp23017-12": 12}
BUILDS = list(CONFIGS)


class WatchingPerson(SimPerson):
    """A simulated person who also keeps the live state lines shown to them."""

    def __init__(self, sim: SimulatedBox) -> None:
        super().__init__(sim)
        self.statuses: list[str] = []

    def status(self, text: str) -> None:
        self.statuses.append(text)


def run_selftest(build: str, plant=None) -> tuple[int, list[str], WatchingPerson]:
    sim = SimulatedBox(load_config(CONFIGS[build]))
    if plant is not None:
        plant(sim)
    person = WatchingPerson(sim)
    lines: list[str] = []
    try:
        code = SelfTest(simulated_rig(sim), person, lines.append).run()
    finally:
        sim.box.close()
    return code, lines, person


def faults(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("FAULT ")]


def raw_flaps(build: str) -> list:
    """The flaps list exactly as written in the example config."""
    with open(CONFIGS[build], "rb") as f:
        return tomllib.load(f)["hardware"]["flaps"]


@pytest.mark.parametrize("build", BUILDS)
def test_a_clean_box_passes_and_every_flap_and_button_is_asked_for_in_order(build):
    code, lines, person = run_selftest(build)
    assert code == 0, lines
    assert faults(lines) == []
    assert lines[-1] == "selftest: every check passed"
    tiles = TILES[build]
    assert [a.target for a in person.asks if a.action == "shut"] == list(range(1, tiles + 1))
    assert [a.target for a in person.asks if a.action == "lift"] == list(range(1, tiles + 1))
    assert [a.target for a in person.asks if a.action == "press"] == ["roll", "next"]
    assert sum(line.endswith(": ok") and line.startswith("flap ") for line in lines) == tiles


@pytest.mark.parametrize("build", BUILDS)
def test_every_i2c_device_is_probed(build):
    code, lines, _ = run_selftest(build)
    probed = [line for line in lines if line.startswith("I2C ")]
    if build == "gpio-9":
        assert probed == ["I2C ssd1306 display at 0x3C on bus 1: ok"]
    else:
        assert probed == ["I2C MCP23017 (flaps, buttons) at 0x20 on bus 1: ok",
                          "I2C MCP23017 (flap LEDs) at 0x21 on bus 1: ok",
                          "I2C sh1106 display at 0x3C on bus 1: ok"]


@pytest.mark.parametrize("build", BUILDS)
def test_each_led_is_lit_alone_when_the_person_is_told_so(build):
    _, _, person = run_selftest(build)
    tiles = TILES[build]
    targets = [ask.target for ask, _ in person.looked]
    if build == "gpio-9":     # no per-flap LEDs on build (a)
        assert targets == ["green", "red"]
    else:
        assert targets == [*range(1, tiles + 1), "green", "red"]
    for ask, lamps in person.looked:
        assert lamps.flaps == tuple(t == ask.target for t in range(1, tiles + 1))
        assert (lamps.green, lamps.red) == (ask.target == "green", ask.target == "red")


def test_the_live_state_shows_the_shut_flap_and_the_last_button():
    _, _, person = run_selftest("gpio-9")
    assert "flaps shut: 3; last button: none" in person.statuses
    assert person.statuses[-1] == "flaps shut: none; last button: NEXT"


@pytest.mark.parametrize("build", BUILDS)
def test_swapped_wires_3_and_4_give_the_corrected_flaps_line(build):
    code, lines, _ = run_selftest(build, lambda sim: sim.swap_inputs(3, 4))
    assert code == 1
    pins = raw_flaps(build)
    pins[2], pins[3] = pins[3], pins[2]
    expected = "flaps = [" + ", ".join(json.dumps(p) for p in pins) + "]"
    assert expected in lines
    # ready to paste: it is TOML and says the same
    assert tomllib.loads(expected)["flaps"] == pins
    assert len(faults(lines)) == 2
    assert all("wires swapped" in f for f in faults(lines))
    assert any(f.startswith("FAULT flap 3 ") and "input of flap 4 " in f for f in faults(lines))


def test_swapped_buttons_give_corrected_roll_and_next_lines():
    config = load_config(CONFIGS["gpio-9"])
    code, lines, _ = run_selftest("gpio-9", lambda sim: sim.swap_inputs("roll", "next"))
    assert code == 1
    assert f"roll = {config.hardware.next}" in lines
    assert f"next = {config.hardware.roll}" in lines


@pytest.mark.parametrize("build", BUILDS)
def test_a_short_between_two_flap_inputs_is_one_fault(build):
    code, lines, _ = run_selftest(build, lambda sim: sim.short_inputs(2, 6))
    assert code == 1
    summary = lines[lines.index("selftest: 1 fault(s):") + 1:]
    assert len(summary) == 1
    assert "flap 2 (" in summary[0] and "flap 6 (" in summary[0]
    assert "a short between their wires" in summary[0]
    ok = {int(line.split()[1]) for line in lines if line.startswith("flap ")
          and line.endswith(": ok")}
    assert ok == set(range(1, TILES[build] + 1)) - {2, 6}
    assert not any(line.startswith("flaps = ") for line in lines)


@pytest.mark.parametrize("build", BUILDS)
def test_a_flap_stuck_shut_at_start_is_flagged_and_skipped(build):
    code, lines, person = run_selftest(build, lambda sim: sim.stick_flap(3))
    assert code == 1
    assert faults(lines) == ["FAULT flap 3 reads shut: open it, or check for a short to ground"]
    assert 3 not in [a.target for a in person.asks if a.action == "shut"]


def test_a_broken_switch_is_reported_after_the_timeout():
    code, lines, _ = run_selftest("gpio-9", lambda sim: sim.break_switch(5))
    assert code == 1
    assert faults(lines) == ["FAULT flap 5 (BCM 5): nothing changed within 20 s: "
                             "broken switch or wire"]


def test_an_absent_input_expander_is_reported_and_nothing_else_is_asked():
    code, lines, person = run_selftest("mcp23017-12",
                                       lambda sim: setattr(sim.chips[0x20], "absent", True))
    assert code == 1
    assert faults(lines) == ["FAULT I2C MCP23017 (flaps, buttons): no answer at 0x20 on bus 1: "
                             "check wiring and i2c_arm (dtparam=i2c_arm=on)"]
    assert person.asks == []


def test_an_absent_led_expander_is_reported_and_the_flaps_are_still_checked():
    code, lines, person = run_selftest("mcp23017-12",
                                       lambda sim: setattr(sim.chips[0x21], "absent", True))
    assert code == 1
    assert [f for f in faults(lines)] == [
        "FAULT I2C MCP23017 (flap LEDs): no answer at 0x21 on bus 1: "
        "check wiring and i2c_arm (dtparam=i2c_arm=on)"]
    assert len([a for a in person.asks if a.action == "shut"]) == 12


def test_a_missing_i2c_bus_is_reported_without_building_the_ports():
    hw = load_config(CONFIGS["mcp23017-12"]).hardware

    def no_bus(number: int):
        raise FileNotFoundError(2, "No such file or directory", f"/dev/i2c-{number}")

    def no_ports():
        raise AssertionError("ports must not be built without the input expander")

    rig = Rig(hw=hw, clock=VirtualClock(), open_bus=no_bus, build_ports=no_ports,
              wait=lambda t: None)
    lines: list[str] = []
    assert SelfTest(rig, TerminalPerson(io.StringIO()), lines.append).run() == 1
    assert ("FAULT I2C MCP23017 (flaps, buttons): no bus 1 (/dev/i2c-1 is missing): "
            "enable it with dtparam=i2c_arm=on") in lines


@pytest.mark.parametrize("build", BUILDS)
def test_cli_simulated_runs_to_completion(build, capsys):
    assert main(["selftest", "--simulated", "--config", str(CONFIGS[build])]) == 0
    out = capsys.readouterr().out
    assert "> shut flap 1" in out
    assert out.rstrip().endswith("selftest: every check passed")


def test_cli_simulated_without_a_config_uses_build_a(capsys):
    assert main(["selftest", "--simulated"]) == 0
    assert "> shut flap 9" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["selftest", "--simulated", "--config", "/nonexistent/shutbox.toml"],
    ["selftest", "--simulated", "--timeout", "0"],
])
def test_cli_config_errors_exit_2_with_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_cli_unknown_option_exits_2(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["selftest", "--simulated", "--bogus"])
    assert caught.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_cli_broken_hardware_table_exits_2(tmp_path, capsys):
    path = tmp_path / "shutbox.toml"
    path.write_text("[hardware]\nflaps = [4, 4, 27, 22, 5, 6, 13, 19, 26]\n")
    assert main(["selftest", "--simulated", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "flaps.2" in err and "Traceback" not in err


def test_terminal_person_rewrites_one_status_line_on_a_tty_only():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        person = TerminalPerson(stream)
        person.status("flaps shut: 3; last button: none")
        person.say("flap 3 (BCM 27): ok")
    assert tty.getvalue() == ("\r\x1b[K  flaps shut: 3; last button: none"
                              "\r\x1b[Kflap 3 (BCM 27): ok\n")
    assert pipe.getvalue() == "flap 3 (BCM 27): ok\n"


def test_a_short_between_a_flap_and_a_button_is_found():
    code, lines, _ = run_selftest("gpio-9", lambda sim: sim.short_inputs(5, "roll"))
    assert code == 1
    assert lines[lines.index("selftest: 1 fault(s):") + 1:] == [
        "  - ROLL (BCM 23) and flap 5 (BCM 5) change together: a short between their wires"]


class Flaky:
    """A bus whose first probes lose arbitration (EAGAIN on a Pi 5), then answer."""

    def __init__(self, bus, failures: int) -> None:
        self.bus, self.failures = bus, failures

    def write_quick(self, address: int, force=None) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError(11, "Resource temporarily unavailable")
        self.bus.write_quick(address)

    def __getattr__(self, name):
        return getattr(self.bus, name)


@pytest.mark.parametrize("failures,ok", [(2, True), (3, False)])
def test_a_probe_that_loses_arbitration_is_tried_again(failures, ok):
    from shutbox_hw.hal.simulated import SimBus
    from shutbox_hw.selftest import _probe
    bus = SimBus(1)
    from shutbox_hw.sim.parts.recorded_panel import AckingChip
    bus.attach(0x3C, AckingChip())
    flaky = Flaky(bus, failures)
    if ok:
        _probe(flaky, 0x3C)
    else:
        with pytest.raises(OSError):
            _probe(flaky, 0x3C)
