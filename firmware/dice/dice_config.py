"""Every setting of the dice module in one place: the I2C address, the pins, the timings.

Change ADDRESS here (and ``[hardware.dice] address`` on the Pi) if 0x42 is taken
on the bus. Pins are Pico GP numbers (not the physical pin numbers).
"""

ADDRESS = 0x42          # 7-bit I2C target address

# I2C0 on GP4 (SDA) / GP5 (SCL): the Pico's default I2C pins. The rp2 port
# accepts SDA on an even and SCL on an odd GP number of the same I2C block.
I2C_ID = 0
SDA_PIN = 4
SCL_PIN = 5

# Two pip faces of 7 LEDs each, in pip order (see dice_anim.PIP_NAMES):
# top-left, middle-left, bottom-left, centre, top-right, middle-right, bottom-right.
LED_PINS = (
    (6, 7, 8, 9, 10, 11, 12),
    (13, 14, 15, 16, 17, 18, 19),
)
BUTTON_PIN = 20         # to GND, internal pull-up: the throw starts on release
TILT_PIN = 21           # tilt (ball) switch to GND, internal pull-up
READY_PIN = 22          # open drain, active low, to a Pi GPIO with a pull-up (ours too)
# USB power present (the Pico's VBUS sense; on a Pico W / Pico 2 W it is the
# wireless chip's "WL_GPIO2" instead): only then does a button held at power-up
# keep main.py from starting (someone is flashing the module).
VBUS_PIN = 24
BOOT_FILE = "dice_boot.txt"   # the boot counter, on the Pico's flash (dice_boot.py)

BUTTON_SETTLE_MS = 20   # a button level must hold this long to count
TILT_SETTLE_MS = 5      # a tilt switch level must hold this long to count as an edge
SHAKE_MIN_EDGES = 4     # edges needed before a shake counts as a shake
SHAKE_QUIET_MS = 400    # no edge for this long: shaking has stopped, throw
LOOP_MS = 2             # main loop period
WATCHDOG_MS = 2000      # the hardware watchdog resets the Pico if the loop stalls
