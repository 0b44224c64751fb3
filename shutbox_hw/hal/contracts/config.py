"""The ``[hardware]`` table: where every switch, LED and the display are wired.

The key names are a contract the box's builder types; they are documented
in ``docs/build/hardware.md`` (every key: ``docs/operate/config-reference.md``).
An empty table is reference build (a): flaps, buttons and status LEDs on
direct GPIO, an SSD1306 on I2C bus 1. Every
problem is appended to ``problems`` as one line naming the key, so a
builder can fix a whole file in one go; the returned config is then only
good for further checking, never for running.

Pins are plain values the adapter builders read directly: an ``int`` is a
BCM GPIO number on the Pi, an :class:`ExpanderPin` a pin on an MCP23017
(:mod:`.wiring`: the pins, the reference builds' pin plans, who claimed each).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ...base.validate import Address, Checked, Choice, Flag, Integer, Problems, Spec, Subtable
from .wiring import (
    DEFAULT_BUTTONS_AND_LEDS,
    DEFAULT_GPIO_FLAPS,
    DEFAULT_GPIO_GREEN,
    DEFAULT_GPIO_NEXT,
    DEFAULT_GPIO_RED,
    DEFAULT_GPIO_ROLL,
    PinBook,
    parse_flaps,
    parse_service,
    pin_text,
)
from .wiring import ExpanderPin as ExpanderPin  # re-exported: the config's pin types
from .wiring import Pin as Pin

BACKENDS = ("gpio", "mcp23017")
DRIVERS = ("ssd1306", "ssd1309", "sh1106", "none")
MAX_TILES = 12
ADDRESS_RANGE = range(0x03, 0x78)
# the dice module's driver (hal/adapters/dice_module.py) takes 0x08..0x77: 0x00..0x07 are
# reserved addresses in the I2C specification
DICE_ADDRESSES = range(0x08, 0x78)
MCP23017_ADDRESSES = range(0x20, 0x28)   # A2..A0 select 0x20..0x27 (datasheet DS20001952)

@dataclass(frozen=True)
class ExpanderConfig:
    """The MCP23017 carrying flaps and buttons, and the optional LED expander
    (only with ``backend = "mcp23017"``)."""
    bus: int = 1                    # I2C bus number (/dev/i2c-1)
    address: int = 0x20             # the expander with flaps and buttons (A2..A0 to GND)
    int_pin: int = 4                # BCM pin on the Pi wired to the mirrored open-drain INTA
    led_address: int | None = None  # the second expander, carrying flap_leds (e.g. 0x21)


@dataclass(frozen=True)
class DisplayConfig:
    """The OLED (luma.oled); ``driver`` "none" runs the box without one."""
    driver: str = "ssd1306"     # ssd1309: the recommended 2.42" panel; none: no screen
    port: int = 1               # I2C bus number
    address: int = 0x3C         # I2C address (some modules: 0x3D)
    rotation: int = 0           # quarter turns clockwise: 0, or 2 for a panel upside down
    # while in use; the SSD1306 resets to 0x7F (luma's init writes 0xCF): lower is
    # kinder to the panel
    contrast: int = 0x7F
    dim_contrast: int = 16      # after dim_after_s idle; not above contrast
    dim_after_s: int = 60       # seconds without activity before dimming; 0: never dim
    # seconds without activity before the screen blanks (OLEDs burn in); 0: never;
    # longer than dim_after_s
    off_after_s: int = 600
    retry_s: int = 10           # a missing display is looked for again this often
    shift_every_s: int = 180    # burn-in: move the picture by a pixel this often; 0: never


@dataclass(frozen=True)
class DiceConfig:
    """The dice module (firmware/dice/): where it answers, and its ready line.

    The reference wiring gives it a bus of its own: a bit-banged ``i2c-gpio``
    bus (numbered ``bus``, on BCM ``sda_pin``/``scl_pin``), which waits out
    the clock stretching of the Pico's I2C target that the Pi's hardware I2C
    mishandles; bus 1 stays at 400 kHz for the display and the expanders.
    install.sh writes the overlay. Without the pins, ``bus`` is one the
    kernel already has (1: the Pi's own SDA/SCL)."""
    # I2C bus number: the module's own i2c-gpio bus, or (both pins "none") one the
    # kernel already has, e.g. 1
    bus: int = 4
    address: int = 0x42             # the module's address (ADDRESS in its dice_config.py)
    # BCM pin wired to the module's open-drain ready line; "none": poll every 250 ms
    ready_pin: int | None = 18
    sda_pin: int | None = 10        # the i2c-gpio bus's SDA (BCM, header pin 19); "none" (both)
    scl_pin: int | None = 11        # its SCL (BCM, header pin 23)

    @property
    def overlay(self) -> str | None:
        """The config.txt line that makes its bus (None: the bus is the kernel's own)."""
        if self.sda_pin is None or self.scl_pin is None:
            return None
        # the overlay's own delay (2 us) gives about 100 kHz
        return (f"dtoverlay=i2c-gpio,bus={self.bus},i2c_gpio_sda={self.sda_pin},"
                f"i2c_gpio_scl={self.scl_pin}")


@dataclass(frozen=True)
class HardwareConfig:
    """Everything the adapter builders need; defaults are reference build (a).

    A pin is a BCM number 0..27 with ``backend = "gpio"``; with "mcp23017" an
    expander pin "GPA0".."GPB7" (inputs on GPA0..GPA6 and GPB0..GPB6 only)."""
    backend: str = "gpio"           # what carries flaps and buttons: Pi pins, or an MCP23017
    tiles: int = 9
    # the switch under tile 1, 2, ... N, one per tile (mcp23017: "GPA0".."GPA6", "GPB0"..)
    flaps: tuple[Pin, ...] = DEFAULT_GPIO_FLAPS[:9]
    roll: Pin = DEFAULT_GPIO_ROLL   # the ROLL button (mcp23017: "GPB5")
    next: Pin = DEFAULT_GPIO_NEXT   # the NEXT button (mcp23017: "GPB6")
    service: Pin | None = None      # the optional service button inside the box
    # the green status LED, "none" for none (mcp23017: "GPA7"; a number: a Pi pin)
    green_led: Pin | None = DEFAULT_GPIO_GREEN
    red_led: Pin | None = DEFAULT_GPIO_RED   # the red status LED, as green_led ("GPB7")
    # per-flap LEDs, one a tile (mcp23017: the second expander's, mcp23017.led_address)
    flap_leds: tuple[Pin, ...] = ()
    debounce_ms: int = 20           # a change counts once the level was stable this long
    hold_ms: int = 1000             # a button held this long is a long press
    read_interval_ms: int = 250     # every input is read again this often (a missed edge)
    i2c_hz: int = 400_000   # the bus clock (dtparam=i2c_arm_baudrate): the simulator's wire time
    # allow GPIO 0/1 (the HAT EEPROM's ID_SD/ID_SC) and 14/15 (the serial console)
    allow_reserved_pins: bool = False
    mcp23017: ExpanderConfig | None = None
    display: DisplayConfig = field(default_factory=DisplayConfig)
    dice: DiceConfig | None = None  # only with a [hardware.dice] table

    def bus_setting(self, bus: int) -> tuple[str, str]:
        """What makes I2C bus ``bus`` and its config.txt line, for a message that
        says what to check when it is missing or silent."""
        if self.dice is not None and self.dice.bus == bus and self.dice.overlay:
            return "the i2c-gpio overlay", self.dice.overlay
        return "i2c_arm", "dtparam=i2c_arm=on"

    def summary(self) -> str:
        """One line for ``check-config``."""
        where = ("GPIO" if self.backend == "gpio" else
                 f"MCP23017 0x{self.mcp23017.address:02X} on bus {self.mcp23017.bus}"
                 if self.mcp23017 else "MCP23017")
        leds = f", {len(self.flap_leds)} flap LEDs" if self.flap_leds else ""
        shown = ("no display" if self.display.driver == "none" else
                 f"{self.display.driver} at 0x{self.display.address:02X} "
                 f"on bus {self.display.port}")
        gpio = (f" (i2c-gpio, BCM {self.dice.sda_pin}/{self.dice.scl_pin})"
                if self.dice and self.dice.overlay else "")
        dice = (f", dice module 0x{self.dice.address:02X} on bus {self.dice.bus}{gpio}"
                if self.dice else "")
        service = f", service button on {pin_text(self.service)}" if self.service is not None \
            else ""
        return f"{self.tiles} flaps and 2 buttons on {where}{service}{leds}, {shown}{dice}"


DAY_S = 86_400
_CHIP = " (an MCP23017 answers only there, set by A2..A0)"

HARDWARE = Spec(HardwareConfig, {
    "backend": Choice(BACKENDS),
    # pins: their kind follows the backend
    "flaps": Checked("a list of pins"), "roll": Checked("a pin"), "next": Checked("a pin"),
    "service": Checked("a pin"), "green_led": Checked('a pin, or "none"'),
    "red_led": Checked('a pin, or "none"'), "flap_leds": Checked("a list of pins"),
    "debounce_ms": Integer(1, 500, "milliseconds"),
    "hold_ms": Integer(100, 10_000, "milliseconds"),
    "read_interval_ms": Integer(10, 10_000, "milliseconds"),
    "i2c_hz": Integer(10_000, 1_000_000, "Hz"),
    "allow_reserved_pins": Flag(),
    "mcp23017": Subtable("hardware.mcp23017"),
    "display": Subtable("hardware.display"),
    "dice": Subtable("hardware.dice"),
})
DICE = Spec(DiceConfig, {
    "bus": Integer(0, 31, "an I2C bus number"),
    "address": Address(DICE_ADDRESSES),
    # BCM pins, claimed with the others; "none" (ready): poll the module; (both bus pins):
    # the bus is the kernel's
    "ready_pin": Checked('a BCM pin, or "none"'),
    "sda_pin": Checked('a BCM pin, or "none"'),
    "scl_pin": Checked('a BCM pin, or "none"'),
})
EXPANDER = Spec(ExpanderConfig, {
    "bus": Integer(0, 31, "an I2C bus number"),
    "address": Address(MCP23017_ADDRESSES, _CHIP),
    "int_pin": Integer(0, 27, "a BCM pin"),
    "led_address": Address(MCP23017_ADDRESSES, _CHIP),
})
DISPLAY = Spec(DisplayConfig, {
    "driver": Choice(DRIVERS),
    "port": Integer(0, 31, "an I2C bus number"),
    "address": Address(ADDRESS_RANGE),
    "rotation": Integer(0, 3, "quarter turns"),
    "contrast": Integer(0, 255),
    "dim_contrast": Integer(0, 255),
    "dim_after_s": Integer(0, DAY_S, "seconds"),
    "off_after_s": Integer(0, DAY_S, "seconds"),
    "retry_s": Integer(1, 3600, "seconds"),
    "shift_every_s": Integer(0, DAY_S, "seconds"),
})


def parse_hardware(table: Mapping[str, Any], tiles: int, problems: list[str]) -> HardwareConfig:
    """Check the table, append one line per problem to ``problems``, return the config."""
    check = Problems(problems, "hardware")
    v = HARDWARE.read(table, check)
    backend: str = v["backend"]
    if v["hold_ms"] <= v["debounce_ms"]:
        check.add("hold_ms", f"{v['hold_ms']} must be longer than debounce_ms "
                             f"({v['debounce_ms']})")
    display = _parse_display(v["display"], check.under("display"))
    expander_table: Mapping[str, Any] = v["mcp23017"]
    expander = None
    if backend == "mcp23017":
        expander = _parse_expander(expander_table, check.under("mcp23017"))
    elif "mcp23017" in table:
        check.add("mcp23017", 'only used with backend = "mcp23017" (backend is gpio)')

    pins = PinBook(check, i2c_in_use=backend == "mcp23017" or display.driver != "none"
                   or "dice" in table, allow_reserved=v["allow_reserved_pins"])
    if expander is not None:
        pins.claim("mcp23017.int_pin", expander.int_pin, "the MCP23017 INT line")
    main = expander.address if expander else None
    leds = expander.led_address if expander else None
    flaps = parse_flaps(table, "flaps", tiles, pins, main, required=True)
    chip = main if backend == "mcp23017" else None   # buttons and status LEDs sit here
    default = DEFAULT_BUTTONS_AND_LEDS[backend]
    roll = pins.take(table, "roll", default["roll"], "ROLL", chip, output=False)
    nxt = pins.take(table, "next", default["next"], "NEXT", chip, output=False)
    green = pins.take(table, "green_led", default["green_led"], "the green LED", chip,
                      output=True, optional=True)
    red = pins.take(table, "red_led", default["red_led"], "the red LED", chip,
                    output=True, optional=True)
    flap_leds = _parse_flap_leds(table, tiles, pins, leds, expander_table, backend)
    # last, so that a clash names the dice module's key, not the flap's
    dice = _parse_dice(v["dice"], check.under("dice"), pins) if "dice" in table else None
    service = parse_service(table, pins, chip)
    _check_addresses(check, display, expander, dice)
    # roll or nxt is None only with a problem reported: the config is then not for running
    return HardwareConfig(backend=backend, tiles=tiles, flaps=flaps, roll=cast(Pin, roll),
                          next=cast(Pin, nxt), service=service,
                          green_led=green, red_led=red, flap_leds=flap_leds,
                          debounce_ms=v["debounce_ms"], hold_ms=v["hold_ms"],
                          read_interval_ms=v["read_interval_ms"], i2c_hz=v["i2c_hz"],
                          allow_reserved_pins=v["allow_reserved_pins"], mcp23017=expander,
                          display=display, dice=dice)


def _parse_flap_leds(table: Mapping[str, Any], tiles: int, pins: PinBook, leds: int | None,
                     expander_table: Mapping[str, Any], backend: str) -> tuple[Pin, ...]:
    """The per-flap LEDs: on Pi pins, or on the LED expander at ``leds``."""
    if table.get("flap_leds", []) == []:  # an empty list: no per-flap LEDs
        return ()
    if backend == "mcp23017" and leds is None:
        # a bad led_address is already reported: no second line about it
        if "led_address" not in expander_table:
            pins.check.add("flap_leds", "per-flap LEDs on the MCP23017 backend need "
                                        "mcp23017.led_address (the second expander)")
        return ()
    return parse_flaps(table, "flap_leds", tiles, pins, leds, required=False)


def _check_addresses(check: Problems, display: DisplayConfig, expander: ExpanderConfig | None,
                     dice: DiceConfig | None) -> None:
    """Two devices at one address on one bus: each clash named once, by the later key."""
    if expander is not None and display.driver != "none" and display.port == expander.bus:
        for key, address in (("mcp23017.address", expander.address),
                             ("mcp23017.led_address", expander.led_address)):
            if address == display.address:
                check.add(key, f"0x{address:02X} is also the display's address on bus "
                               f"{display.port}")
    if dice is None:
        return
    others = [(display.port, display.address, "the display's")] \
        if display.driver != "none" else []
    if expander is not None:
        others += [(expander.bus, a, "the MCP23017's") for a in
                   (expander.address, expander.led_address) if a is not None]
    for bus, address, whose in others:
        if (bus, address) == (dice.bus, dice.address):
            check.add("dice.address", f"0x{address:02X} is also {whose} address on "
                                      f"bus {bus}")


def _parse_expander(table: Mapping[str, Any], check: Problems) -> ExpanderConfig:
    v = EXPANDER.read(table, check)
    if v["led_address"] is not None and v["led_address"] == v["address"]:
        check.add("led_address", f"0x{v['led_address']:02X} is also mcp23017.address; "
                                 "the LED expander needs its own address")
        v["led_address"] = None
    return ExpanderConfig(**v)


def _parse_dice(table: Mapping[str, Any], check: Problems, pins: PinBook) -> DiceConfig:
    v = DICE.read(table, check)
    found: dict[str, int | None] = {}
    for key, what in (("ready_pin", "the dice module's ready line"),
                      ("sda_pin", "the dice module's I2C bus (SDA)"),
                      ("scl_pin", "the dice module's I2C bus (SCL)")):
        raw = table.get(key, DICE.default(key))
        found[key] = None
        if raw != "none":
            pin = pins.claim_value(f"dice.{key}", raw, what, None, output=False)
            found[key] = pin if isinstance(pin, int) else None
    if ("none" in (table.get("sda_pin"), table.get("scl_pin"))
            and table.get("sda_pin") != table.get("scl_pin")):
        check.add("sda_pin", 'give both sda_pin and scl_pin (an i2c-gpio bus), or both "none" '
                             "(bus is one the kernel has, e.g. 1)")
    elif table.get("sda_pin") != "none" and v["bus"] in (0, 1):
        check.add("bus", f"{v['bus']} is the Pi's own I2C; the i2c-gpio bus on sda_pin/scl_pin "
                         'needs another number (3..31), or set both pins to "none"')
    return DiceConfig(bus=v["bus"], address=v["address"], ready_pin=found["ready_pin"],
                      sda_pin=found["sda_pin"], scl_pin=found["scl_pin"])


def _parse_display(table: Mapping[str, Any], check: Problems) -> DisplayConfig:
    v = DISPLAY.read(table, check)
    if v["rotation"] in (1, 3):
        # the screens are laid out 128 wide and 64 high; 2 mounts the panel upside down
        check.add("rotation", f"{v['rotation']} would turn the screen on its side; "
                              "use 0, or 2 for a panel mounted upside down")
    if v["dim_contrast"] > v["contrast"]:
        check.add("dim_contrast", f"{v['dim_contrast']} is brighter than display.contrast "
                                  f"({v['contrast']})")
    dim_after, off_after = v["dim_after_s"], v["off_after_s"]
    if dim_after and off_after and off_after <= dim_after:
        check.add("off_after_s", f"{off_after} must be longer than "
                                 f"display.dim_after_s ({dim_after}), or 0 for never")
    return DisplayConfig(**v)
