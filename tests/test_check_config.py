"""``shutbox-hw check-config``: the reference configs pass, broken files fail with the key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.hal.contracts.config import ExpanderPin

ROOT = Path(__file__).resolve().parent.parent
BUILD_A = ROOT / "hardware" / "gpio-9" / "shutbox.toml"
BUILD_B = ROOT / "hardware" / "mcp23017-12" / "shutbox.toml"


def check(path: Path, capsys) -> tuple[int, list[str], list[str]]:
    code = main(["check-config", str(path)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err.splitlines()


@pytest.mark.parametrize("path", [BUILD_A, BUILD_B], ids=["gpio-9", "mcp23017-12"])
def test_reference_configs_pass(path, capsys):
    code, out, err = check(path, capsys)
    assert (code, err) == (0, [])
    assert out[0] == f"{path}: ok"
    assert len(out) == 9   # the summary, then the seven adjustable values and their source
    assert all(line.endswith(("(config file)", "(box)")) for line in out[2:])


def test_build_a_loads_as_documented():
    config = load_config(BUILD_A)
    hw = config.hardware
    assert config.rules.preset == "klappenspiel" and config.rules.tiles == 9
    assert hw.backend == "gpio" and hw.tiles == 9
    assert hw.flaps == (4, 17, 27, 22, 5, 6, 13, 19, 26)
    assert (hw.roll, hw.next, hw.green_led, hw.red_led) == (23, 24, 12, 25)
    assert hw.display.driver == "ssd1306"
    assert config.db == Path("/var/lib/shutbox-hw/shutbox.db")


def test_build_b_loads_as_documented():
    config = load_config(BUILD_B)
    hw = config.hardware
    assert config.rules.preset == "crafthouse-12" and config.rules.tiles == 12
    assert hw.backend == "mcp23017" and hw.tiles == 12
    assert hw.mcp23017.address == 0x20 and hw.mcp23017.led_address == 0x21
    assert hw.mcp23017.int_pin == 4
    inputs = [*hw.flaps, hw.roll, hw.next]
    assert len(set(inputs)) == 14
    assert all(isinstance(p, ExpanderPin) and p.address == 0x20 and p.bit != 7
               for p in inputs)
    assert (hw.green_led.name, hw.red_led.name) == ("GPA7", "GPB7")
    assert [p.address for p in hw.flap_leds] == [0x21] * 12
    assert hw.display.driver == "sh1106"
    assert config.game.hints == "on-request"


GOOD_A = BUILD_A.read_text()

BROKEN = [
    # (replace this, with this, key in the line, word in the line)
    ("flaps = [4, 17, 27, 22, 5, 6, 13, 19, 26]", "flaps = [4, 17, 27, 22, 5, 6, 23, 19, 26]",
     "[hardware] roll", "also used by flap 7"),
    ("flaps = [4, 17, 27, 22, 5, 6, 13, 19, 26]", "flaps = [4, 17, 27, 22, 5, 6, 13, 19]",
     "[hardware] flaps", "no pin for tile 9"),
    ("flaps = [4, 17, 27, 22, 5, 6, 13, 19, 26]",
     "flaps = [4, 17, 27, 22, 5, 6, 13, 19, 26, 16]", "[hardware] flaps.10", "rules have 9"),
    ('backend = "gpio"', 'backend = "arduino"', "[hardware] backend", "not one of"),
    ('driver = "ssd1306"', 'driver = "st7735"', "[hardware] display.driver", "not one of"),
    ("address = 0x3C", "address = 0x7A", "[hardware] display.address", "0x03..0x77"),
    ("roll = 23", 'roll = "23"', "[hardware] roll", "expected a BCM pin"),
    ("roll = 23", "roll = 14", "[hardware] roll", "BCM 14 is the UART's TXD"),
    ("next = 24", "next = 40", "[hardware] next", "outside 0..27"),
    ("green_led = 12", "green_led = 3", "[hardware] green_led", "I2C SCL"),
    ("rotation = 0", "rotation = 5", "[hardware] display.rotation", "outside 0..3"),
    ("debounce_ms = 20", "debounce_ms = 20\nbounce = 5", "[hardware] bounce", "unknown key"),
    ('dice = "software"', 'dice = "loaded"', "[game] dice", "not one of"),
    ('preset = "klappenspiel"', 'preset = "klappenspiel"\ntiles = 13', "[rules]", "tiles"),
    ('[storage]', '[store]', "[store]", "unknown table"),
    ('backend = "gpio"', 'backend = "mcp23017"', "[hardware] flaps.1",
     "expected an expander pin"),
]


@pytest.mark.parametrize("old,new,key,word", BROKEN)
def test_broken_config_fails_naming_the_key(old, new, key, word, tmp_path, capsys):
    assert old in GOOD_A
    path = tmp_path / "shutbox.toml"
    path.write_text(GOOD_A.replace(old, new, 1))
    code, out, err = check(path, capsys)
    assert code == 2 and out == []
    assert all(line.startswith(f"{path}: ") for line in err)
    hits = [line for line in err if line.startswith(f"{path}: {key}")]
    assert hits, err
    assert any(word in line for line in hits), err


def test_broken_expander_build(tmp_path, capsys):
    path = tmp_path / "b.toml"
    path.write_text(BUILD_B.read_text().replace('roll = "GPB5"', 'roll = "GPB7"')
                    .replace("led_address = 0x21", "led_address = 0x20"))
    code, _, err = check(path, capsys)
    assert code == 2
    assert any("[hardware] roll: GPB7 can only be an output" in line for line in err), err
    assert any("[hardware] mcp23017.led_address" in line for line in err), err
    # GPB7 is also red_led: no second complaint about it, the input was refused
    assert len(err) == 2, err


def test_one_line_per_problem(tmp_path, capsys):
    path = tmp_path / "many.toml"
    path.write_text('[hardware]\nbackend = "x"\nroll = 99\n[game]\nhints = "loud"\n')
    code, _, err = check(path, capsys)
    assert code == 2
    assert len(err) == 3, err


@pytest.mark.parametrize("content,word", [
    (None, "no such config file"),
    ("[hardware\nbackend = 1", "not valid TOML"),
    (b"\xff\xfe\x00garbage", "not"),
])
def test_unreadable_file_is_one_line(content, word, tmp_path, capsys):
    path = tmp_path / "x.toml"
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    code, out, err = check(path, capsys)
    assert code == 2 and out == []
    assert len(err) == 1 and word in err[0] and str(path) in err[0]


def test_directory_is_one_line(tmp_path, capsys):
    code, _, err = check(tmp_path, capsys)
    assert code == 2
    assert err == [f"{tmp_path}: is a directory, not a config file"]


def test_empty_file_is_the_default_box(tmp_path, capsys):
    path = tmp_path / "empty.toml"
    path.write_text("")
    code, out, _ = check(path, capsys)
    assert code == 0
    assert "9 flaps" in out[1] and "GPIO" in out[1]


@pytest.mark.process    # the entry point's exit status, as a shell sees it
def test_real_process_exit_status(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[hardware]\nflaps = 3\n")
    done = subprocess.run([sys.executable, "-m", "shutbox_hw", "check-config", str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"{path}: [hardware] flaps: expected a list with one pin per tile 1..9, got 3"]
    assert "Traceback" not in done.stderr


def test_expander_address_outside_the_chip_range_is_one_line(tmp_path, capsys):
    # 0x40 is a valid I2C address but no MCP23017 answers there: refused, not a traceback
    path = tmp_path / "b.toml"
    path.write_text(BUILD_B.read_text().replace("address = 0x20", "address = 0x40", 1))
    code, out, err = check(path, capsys)
    assert code == 2 and out == []
    assert err == [f"{path}: [hardware] mcp23017.address: address 0x40 is outside 0x20..0x27 "
                   "(an MCP23017 answers only there, set by A2..A0)"]


def test_gpio_14_is_one_line_unless_reserved_pins_are_allowed(tmp_path, capsys):
    path = tmp_path / "a.toml"
    path.write_text(GOOD_A.replace("roll = 23", "roll = 14"))
    code, _, err = check(path, capsys)
    assert code == 2
    assert len(err) == 1 and "[hardware] roll: BCM 14" in err[0], err
    path.write_text(GOOD_A.replace("roll = 23", "roll = 14\nallow_reserved_pins = true"))
    code, out, err = check(path, capsys)
    assert code == 0 and err == [], err


def test_a_game_word_of_the_wrong_kind_is_shown_as_typed(tmp_path, capsys):
    # the [game] table speaks the same dialect as [hardware]: TOML's true, not Python's
    path = tmp_path / "box.toml"
    path.write_text('[game]\ndice = true\nhints = ["on"]\n')
    code, out, err = check(path, capsys)
    assert (code, out) == (2, [])
    assert err == [f"{path}: [game] dice: true (true/false) is not one of software, module, "
                   "manual",
                   f"{path}: [game] hints: a list is not one of off, on-request, always"]


@pytest.mark.parametrize("token, mode, words", [
    ("s3cret-Token-for-the-backup", 0o644, "can be read by everyone"),
    ("s3cret-Token-for-the-backup", 0o640, "can be read by its group"),
    ("x", 0o600, "has 1 character, at least 16"),
    ("short-token", 0o600, "at least 16")])
def test_a_weak_or_readable_backup_token_is_refused(tmp_path, capsys, token, mode, words):
    """Issue 43: the token file is checked like the MQTT credentials (owner only) and
    must be long enough; the message names the file, never the token."""
    secret = tmp_path / "token"
    secret.write_text(token + "\n")
    secret.chmod(mode)
    config = tmp_path / "box.toml"
    config.write_text(f'[web]\ntoken_file = "{secret}"\n')
    code, _, err = check(config, capsys)
    assert code == 2 and len(err) == 1 and words in err[0] and str(secret) in err[0], err
    assert token not in err[0] or token == "x"
    secret.write_text("s3cret-Token-for-the-backup\n")
    secret.chmod(0o600)
    assert check(config, capsys)[0] == 0
