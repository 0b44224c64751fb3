"""A stand-in for RPi.GPIO 0.7.1 as it behaves under the box's systemd unit (put
the directory above on PYTHONPATH): everything works in memory except watching a
pin's edges. The real library exports the pin through /sys/class/gpio first,
which ``ProtectKernelTunables=yes`` makes read-only; it then raises exactly this
``RuntimeError`` from ``add_event_detect`` (source/py_gpio.c, ``add_edge_detect``
failing in source/event_gpio.c).
"""

BCM, BOARD = 11, 10
IN, OUT, I2C, SPI, HARD_PWM, SERIAL, UNKNOWN = 1, 0, 42, 41, 43, 40, -1
PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22
RISING, FALLING, BOTH = 31, 32, 33
HIGH, LOW = 1, 0
_functions: dict = {}


def setmode(mode):
    pass


def setwarnings(flag):
    pass


def setup(channel, direction, pull_up_down=PUD_OFF, initial=None):
    _functions[channel] = direction


def gpio_function(channel):
    return _functions.get(channel, IN)


def input(channel):
    return HIGH


def output(channel, value):
    pass


def add_event_detect(channel, edge, callback=None, bouncetime=None):
    raise RuntimeError("Failed to add edge detection")


def remove_event_detect(channel):
    pass


def cleanup(channel=None):
    _functions.clear()


class PWM:
    def __init__(self, channel, frequency):
        raise RuntimeError("no PWM in this stand-in")
