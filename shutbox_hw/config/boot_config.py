"""Pins the kernel takes at boot, read from the Pi's ``config.txt``.

A ``dtoverlay=gpio-shutdown,gpio_pin=18`` line makes the kernel own BCM 18
from boot on; the box's own claim of that pin then fails ("GPIO busy") and
the daemon could never start. So ``check-config`` and the daemon (before it
claims any pin) read ``/boot/firmware/config.txt`` (``/boot/config.txt`` on
older systems) and name every overlay or parameter that takes a pin the box's
config uses, as one line: "GPIO 18 is used by the kernel (dtoverlay=...)".

Only the overlays and parameters below are known, with their pins and
defaults as ``/boot/firmware/overlays/README`` gives them (see
``docs/hardware-facts.md``); any other line is left alone. Every active line
counts, whatever ``[section]`` it is in (a ``[pi4]`` line holds on a Pi 4),
``include`` files are read too, and a ``dtparam=`` after a ``dtoverlay=``
sets that overlay's parameter, as the firmware does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..hal.contracts.config import HardwareConfig

BOOT_CONFIGS = (Path("/boot/firmware/config.txt"), Path("/boot/config.txt"))
ON = ("on", "true", "yes", "1", "okay")


@dataclass(frozen=True)
class Overlay:
    """An overlay's pins: ``fixed`` always, ``params`` (name -> default pin; None:
    no default), ``flags`` (a parameter without a value -> the pins it adds),
    ``choices`` (a parameter that moves the fixed pins -> the pins instead)."""
    fixed: tuple[int, ...] = ()
    params: Mapping[str, int | None] = field(default_factory=dict)
    flags: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    choices: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def pins(self, given: Mapping[str, str]) -> set[int]:
        pins = set(self.fixed)
        for name, moved in self.choices.items():
            if name in given:
                pins = set(moved)
        for name, default in self.params.items():
            value = given.get(name)
            pin = _int(value) if value is not None else default
            if pin is not None:
                pins.add(pin)
        for name, extra in self.flags.items():
            if name in given and given[name].lower() in ON + ("",):
                pins.update(extra)
        return pins


def _i2c(default: tuple[int, int], **choices: tuple[int, int]) -> Overlay:
    return Overlay(fixed=default, choices=choices)


OVERLAYS: dict[str, Overlay] = {
    "gpio-shutdown": Overlay(params={"gpio_pin": 3}),
    "gpio-poweroff": Overlay(params={"gpiopin": 26}),
    "gpio-fan": Overlay(params={"gpiopin": 12}),
    "gpio-ir": Overlay(params={"gpio_pin": 18}),
    "gpio-ir-tx": Overlay(params={"gpio_pin": 18}),
    "gpio-key": Overlay(params={"gpio": None}),
    "w1-gpio": Overlay(params={"gpiopin": 4}),
    "w1-gpio-pullup": Overlay(params={"gpiopin": 4, "extpullup": 5}),
    "i2c-gpio": Overlay(params={"i2c_gpio_sda": 23, "i2c_gpio_scl": 24}),
    "mcp23017": Overlay(params={"gpiopin": 4}),
    "pwm": Overlay(params={"pin": 18}),
    "pwm-2chan": Overlay(params={"pin": 18, "pin2": 19}),
    "spi0-1cs": Overlay(fixed=(9, 10, 11), params={"cs0_pin": 8}),
    "spi0-2cs": Overlay(fixed=(9, 10, 11), params={"cs0_pin": 8, "cs1_pin": 7}),
    "spi1-1cs": Overlay(fixed=(19, 20, 21), params={"cs0_pin": 18}),
    "spi1-2cs": Overlay(fixed=(19, 20, 21), params={"cs0_pin": 18, "cs1_pin": 17}),
    "spi1-3cs": Overlay(fixed=(19, 20, 21),
                        params={"cs0_pin": 18, "cs1_pin": 17, "cs2_pin": 16}),
    "uart0": Overlay(params={"txd0_pin": 14, "rxd0_pin": 15}),
    "uart1": Overlay(params={"txd1_pin": 14, "rxd1_pin": 15}),
    "uart2": Overlay(fixed=(0, 1), flags={"ctsrts": (2, 3)}),
    "uart3": Overlay(fixed=(4, 5), flags={"ctsrts": (6, 7)}),
    "uart4": Overlay(fixed=(8, 9), flags={"ctsrts": (10, 11)}),
    "uart5": Overlay(fixed=(12, 13), flags={"ctsrts": (14, 15)}),
    "disable-bt": Overlay(fixed=(14, 15)),
    "miniuart-bt": Overlay(fixed=(14, 15)),
    "i2c0": _i2c((0, 1)),
    "i2c1": _i2c((2, 3)),
    "i2c3": _i2c((4, 5), pins_2_3=(2, 3)),
    "i2c4": _i2c((8, 9), pins_6_7=(6, 7)),
    "i2c5": _i2c((12, 13), pins_10_11=(10, 11)),
    "i2c6": _i2c((22, 23), pins_0_1=(0, 1)),
}
for _old, _new in (("pi3-disable-bt", "disable-bt"), ("pi3-miniuart-bt", "miniuart-bt")):
    OVERLAYS[_old] = OVERLAYS[_new]

# base parameters (dtparam= with no overlay before it) and plain settings
DTPARAMS: dict[str, tuple[int, ...]] = {
    "spi": (7, 8, 9, 10, 11),
    "i2c_arm": (2, 3), "i2c": (2, 3), "i2c1": (2, 3),
    "i2c_vc": (0, 1), "i2c0": (0, 1),
    "i2s": (18, 19, 20, 21),
}
SETTINGS: dict[str, tuple[int, ...]] = {"enable_uart": (14, 15)}


@dataclass(frozen=True)
class KernelPin:
    """BCM ``pin`` taken by the kernel because of ``line`` (as written)."""
    pin: int
    line: str


def _int(text: str) -> int | None:
    try:
        return int(text, 0)
    except ValueError:
        return None


def _params(parts: list[str]) -> dict[str, str]:
    given = {}
    for part in parts:
        name, _, value = part.partition("=")
        if name.strip():
            given[name.strip()] = value.strip()
    return given


def _lines(path: Path, seen: set[Path]) -> Iterator[str]:
    """The file's lines, with ``include`` files read in place (each once)."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return
    seen.add(path)
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith("include "):
            inner = path.parent / line.split(None, 1)[1].strip()
            if inner not in seen:
                yield from _lines(inner, seen)
        elif line:
            yield line


def kernel_pins(path: Path) -> list[KernelPin]:
    """Every pin the boot config at ``path`` gives the kernel, with its line."""
    return kernel_pins_in(_lines(path, set()))


def kernel_pins_in(lines: Iterator[str] | list[str]) -> list[KernelPin]:
    taken: list[KernelPin] = []
    overlay: tuple[str, Overlay, dict[str, str]] | None = None  # the one dtparam= extends

    def close() -> None:
        if overlay is not None:
            text, kind, given = overlay
            taken.extend(KernelPin(pin, text) for pin in sorted(kind.pins(given)))

    for line in lines:
        if line.startswith("[") or "=" not in line:
            continue
        key, _, value = (s.strip() for s in line.partition("="))
        if key == "dtoverlay":
            close()
            parts = value.split(",")
            name = parts[0].strip()
            overlay = (f"dtoverlay={value}", OVERLAYS[name], _params(parts[1:])) \
                if name in OVERLAYS else None
        elif key == "dtparam":
            for name, setting in _params(value.split(",")).items():
                if overlay is not None and _known(overlay[1], name):
                    text, kind, given = overlay
                    overlay = (f"{text} with dtparam={name}={setting}" if setting else
                               f"{text} with dtparam={name}", kind, {**given, name: setting})
                elif name in DTPARAMS and setting.lower() in ON:
                    taken.extend(KernelPin(p, f"dtparam={name}={setting}")
                                 for p in DTPARAMS[name])
        elif key in SETTINGS and value.lower() in ON:
            taken.extend(KernelPin(p, f"{key}={value}") for p in SETTINGS[key])
    close()
    return taken


def _known(overlay: Overlay, name: str) -> bool:
    return name in overlay.params or name in overlay.flags \
        or name in overlay.choices


def config_pins(hw: HardwareConfig) -> dict[int, str]:
    """The Pi pins the box's config uses, each with its key (as check-config names it)."""
    keyed: list[tuple[str, object]] = [(f"flaps.{t}", p) for t, p in enumerate(hw.flaps, 1)]
    keyed += [("roll", hw.roll), ("next", hw.next), ("service", hw.service),
              ("green_led", hw.green_led), ("red_led", hw.red_led)]
    keyed += [(f"flap_leds.{t}", p) for t, p in enumerate(hw.flap_leds, 1)]
    if hw.mcp23017 is not None:
        keyed.append(("mcp23017.int_pin", hw.mcp23017.int_pin))
    if hw.dice is not None:
        keyed.append(("dice.ready_pin", hw.dice.ready_pin))
    return {pin: key for key, pin in keyed if isinstance(pin, int)}


def find_boot_config() -> Path | None:
    """The Pi's boot config: the first of :data:`BOOT_CONFIGS` that exists."""
    return next((p for p in BOOT_CONFIGS if p.is_file()), None)


def kernel_pin_problems(hw: HardwareConfig, path: Path | None) -> list[str]:
    """One line per pin of ``hw`` that the boot config at ``path`` gives the kernel,
    and per pin two overlays both take; [] without a boot config (not a Pi)."""
    if path is None:
        return []
    name = path.name    # config.txt: the whole path would not leave room on the line
    used = config_pins(hw)
    problems: list[str] = []
    first: dict[int, KernelPin] = {}
    for taken in kernel_pins(path):
        earlier = first.setdefault(taken.pin, taken)
        if earlier is not taken and earlier.line != taken.line and taken.pin not in used:
            problems.append(f"{name}: GPIO {taken.pin} is taken twice by the kernel "
                            f"({earlier.line}; {taken.line})")
    for pin, taken in sorted(first.items()):
        if pin in used:
            problems.append(f"[hardware] {used[pin]}: GPIO {pin} is used by the kernel "
                            f"({taken.line} in {name})")
    return problems
