"""Pins that cannot clash: every default, reference config and pin the documents
suggest, per build, has one use; the pin plan in docs/build/hardware.md says so
truly; the kernel-pin check (check-config --boot-config) passes the documented
config.txt lines and names the old clash (gpio-shutdown on the dice ready line)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from cli_inprocess import Ran, run_cli

from shutbox_hw.hal.boot_config import kernel_pin_problems, kernel_pins_in
from shutbox_hw.hal.config import DiceConfig, parse_hardware
from shutbox_hw.hal.wiring import DEFAULT_GPIO_FLAPS, I2C_PINS, RESERVED_PINS

ROOT = Path(__file__).resolve().parent.parent
HW = ROOT / "hardware"
GUIDE = ROOT / "docs" / "build" / "hardware.md"   # the wiring guide of both builds
BUILDS = {"a": "gpio-9", "b": "mcp23017-12"}


def overlay_lines(doc: Path) -> list[str]:
    """The config.txt lines a document suggests (lines that start with dtoverlay=)."""
    return [line.strip() for line in doc.read_text().splitlines()
            if line.strip().startswith("dtoverlay=")]


def suggested_service_pin() -> int:
    """The service pin docs/build/hardware.md suggests for both builds."""
    rows = re.findall(r"^\| \(\w\) `[\w-]+` \| `service = (\d+)`", GUIDE.read_text(),
                      re.M)
    assert len(rows) == 2 and len(set(rows)) == 1, rows
    return int(rows[0])


def documented_overlays(build: str) -> dict[str, list[str]]:
    """Use -> the config.txt lines the documents suggest for ``build``."""
    general = overlay_lines(GUIDE)
    own = overlay_lines(HW / BUILDS[build] / "README.md")
    shutdown = [line for line in general if line.startswith("dtoverlay=gpio-shutdown")]
    dice = [line for line in general if "i2c-gpio" in line and "bus=4" in line]
    display = [line for line in general + own if "i2c-gpio" in line and "bus=3" in line]
    assert len(set(shutdown)) == 1 and len(set(dice)) == 1 and len(set(display)) == 1
    uses = {"shutdown button (suggested)": shutdown[:1], "dice i2c-gpio bus (suggested)": dice[:1]}
    if build == "b":   # the display's own bus is recommended with the expander only
        uses["display i2c-gpio bus (recommended)"] = display[:1]
    return uses


def reference_config(build: str, extra: str = "") -> dict:
    return tomllib.loads((HW / BUILDS[build] / "shutbox.toml").read_text() + extra)


def plan(build: str) -> dict[int, list[str]]:
    """Every use of every Pi pin in ``build``, from the code's defaults, the reference
    config and the documents (a pin with two uses is a clash)."""
    uses: dict[int, list[str]] = {}

    def use(pin: int, what: str) -> None:
        uses.setdefault(pin, []).append(what)

    for pin in RESERVED_PINS:
        use(pin, "HAT EEPROM (reserved)" if pin in (0, 1) else "UART (reserved)")
    for pin, line in I2C_PINS.items():
        use(pin, f"I2C {line}")
    table = reference_config(build)
    tiles = 12  # the defaults for the largest box
    problems: list[str] = []
    hw = parse_hardware({**table["hardware"], "dice": {}}, len(table["hardware"]["flaps"]),
                        problems)
    assert problems == []
    if build == "a":
        assert tuple(hw.flaps) == DEFAULT_GPIO_FLAPS[:9]   # the config is the defaults
        for tile, pin in enumerate(DEFAULT_GPIO_FLAPS[:tiles], start=1):
            use(pin, f"flap {tile}")
        for pin, what in ((hw.roll, "ROLL"), (hw.next, "NEXT"), (hw.green_led, "green LED"),
                          (hw.red_led, "red LED")):
            assert isinstance(pin, int)
            use(pin, what)
    else:
        assert hw.mcp23017 is not None
        use(hw.mcp23017.int_pin, "MCP23017 INT")
        # everything else of build (b) is on the expander: no Pi pin
        assert not any(isinstance(p, int) for p in (*hw.flaps, hw.roll, hw.next,
                                                    hw.green_led, hw.red_led, *hw.flap_leds))
    use(suggested_service_pin(), "service button (suggested)")
    ready = DiceConfig().ready_pin
    assert ready is not None and hw.dice is not None and hw.dice.ready_pin == ready
    use(ready, "dice ready line")
    for what, lines in documented_overlays(build).items():
        taken = kernel_pins_in(lines)
        assert taken, lines
        if "i2c-gpio" in what:
            sda, scl = (int(re.search(rf"i2c_gpio_{n}=(\d+)", lines[0])[1])
                        for n in ("sda", "scl"))
            assert {k.pin for k in taken} == {sda, scl}
            use(sda, what.replace("bus", "bus SDA"))
            use(scl, what.replace("bus", "bus SCL"))
        else:
            for k in taken:
                use(k.pin, what)
    return uses


@pytest.mark.parametrize("build", BUILDS)
def test_every_pin_of_a_build_has_one_use(build):
    clashes = {pin: what for pin, what in plan(build).items() if len(what) > 1}
    assert clashes == {}


def readme_plan() -> dict[str, dict[int, str]]:
    text = GUIDE.read_text()
    section = text[text.index("## The pin plan"):]
    rows = re.findall(r"^\| (\d+) \| (\d+) \| ([^|]+) \| ([^|]+) \|$", section, re.M)
    assert [int(r[0]) for r in rows] == list(range(28))
    return {"a": {int(r[0]): r[2].strip() for r in rows},
            "b": {int(r[0]): r[3].strip() for r in rows}}


@pytest.mark.parametrize("build", BUILDS)
def test_the_pin_plan_in_the_readme_is_the_plan(build):
    computed = {pin: what[0] for pin, what in plan(build).items()}
    documented = readme_plan()[build]
    assert documented == {pin: computed.get(pin, "free") for pin in range(28)}


def boot_config_for(build: str, tmp_path: Path) -> Path:
    lines = ["dtparam=i2c_arm=on", "dtparam=i2c_arm_baudrate=400000"]
    for more in documented_overlays(build).values():
        lines += more
    path = tmp_path / "config.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("build", BUILDS)
def test_the_documented_config_txt_lines_leave_every_pin_of_the_build_free(build, tmp_path):
    table = reference_config(build)["hardware"]
    service = suggested_service_pin()
    tiles = len(table["flaps"])
    variants = [{**table, "service": service, "dice": {}}]
    if build == "a":    # the defaults for 12 tiles too
        variants.append({"service": service, "dice": {}})
        tiles_of = [tiles, 12]
    else:
        tiles_of = [tiles]
    for variant, n in zip(variants, tiles_of):
        problems: list[str] = []
        hw = parse_hardware(variant, n, problems)
        assert problems == []
        assert kernel_pin_problems(hw, boot_config_for(build, tmp_path)) == []


def check_config(*args: str | Path) -> Ran:
    return run_cli("check-config", *args)


def test_check_config_names_the_overlay_that_takes_the_dice_ready_line(tmp_path):
    # the clash of the earlier documents: the shutdown button and the dice module on BCM 18
    config = tmp_path / "box.toml"
    config.write_text((HW / "gpio-9" / "shutbox.toml").read_text() + "\n[hardware.dice]\n")
    boot = tmp_path / "config.txt"
    boot.write_text("dtparam=i2c_arm=on\n[all]\ndtoverlay=gpio-shutdown,gpio_pin=18\n")
    out = check_config(config, "--boot-config", boot, "--db", tmp_path / "none.db")
    assert out.returncode == 2, out
    assert out.stderr.splitlines() == [
        f"{config}: [hardware] dice.ready_pin: GPIO 18 is used by the kernel "
        "(dtoverlay=gpio-shutdown,gpio_pin=18 in config.txt)"]
    # the documented plan passes
    boot.write_text(boot_config_for("a", tmp_path).read_text())
    out = check_config(config, "--boot-config", boot, "--db", tmp_path / "none.db")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("text, pins", [
    ("dtoverlay=gpio-shutdown\n", {3}),                                 # its default
    ("dtoverlay=gpio-shutdown\ndtparam=gpio_pin=17\n", {17}),           # dtparam extends it
    ("dtoverlay=w1-gpio\n", {4}),
    ("dtoverlay=w1-gpio-pullup,gpiopin=6\n", {6, 5}),
    ("dtoverlay=gpio-poweroff\n", {26}),
    ("dtoverlay=i2c-gpio\n", {23, 24}),
    ("dtparam=spi=on\n", {7, 8, 9, 10, 11}),
    ("#dtparam=spi=on\ndtparam=spi=off\n", set()),
    ("enable_uart=1\n", {14, 15}),
    ("dtoverlay=uart4,ctsrts\n", {8, 9, 10, 11}),
    ("dtoverlay=uart5\n", {12, 13}),
    ("dtoverlay=spi1-1cs\n", {18, 19, 20, 21}),
    ("dtoverlay=i2c3\n", {4, 5}),
    ("dtoverlay=vc4-kms-v3d\ndtparam=audio=on\n", set()),
    ("[pi4]\ndtoverlay=gpio-fan\n", {12}),
])
def test_kernel_pins_of_config_txt_lines(text, pins):
    # defaults and parameters as /boot/firmware/overlays/README gives them
    assert {k.pin for k in kernel_pins_in(text.splitlines())} == pins


def test_an_included_file_counts_and_two_overlays_on_one_pin_are_named(tmp_path):
    (tmp_path / "extra.txt").write_text("dtoverlay=i2c-gpio,bus=4,i2c_gpio_sda=10,"
                                        "i2c_gpio_scl=11\n")
    boot = tmp_path / "config.txt"
    boot.write_text("dtoverlay=i2c-gpio,bus=3,i2c_gpio_sda=10,i2c_gpio_scl=11\n"
                    "include extra.txt\n")
    problems: list[str] = []
    hw = parse_hardware({}, 9, problems)
    found = kernel_pin_problems(hw, boot)
    assert len(found) == 2 and all("taken twice by the kernel" in p for p in found)
    assert "GPIO 10" in found[0] and "GPIO 11" in found[1]


def test_the_daemon_refuses_a_pin_the_kernel_holds_before_claiming_any(tmp_path):
    config = tmp_path / "box.toml"
    config.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{tmp_path}/b.db"\n')
    boot = tmp_path / "config.txt"
    boot.write_text("dtoverlay=gpio-fan\n")     # BCM 12: the green LED
    out = run_cli("run", "--config", config, "--pin-factory", "mock", "--boot-config", boot,
                  "--for-seconds", "0.2")
    assert out.returncode == 2
    assert out.stderr.splitlines() == [
        "shutbox-hw run: [hardware] green_led: GPIO 12 is used by the kernel "
        "(dtoverlay=gpio-fan in config.txt)"]
    assert not (tmp_path / "b.db").exists()     # nothing started
