"""A stand-in for the lgpio module, for tests off the Pi (put this directory on PYTHONPATH).

It fails at import exactly as the real lgpio 0.2.2 does (checked against the
PyPI wheel): the C library changes into ``$LG_WD`` if set, makes a FIFO
``.lgd-nfy<N>`` there, and the Python side then opens ``.lgd-nfy<N>`` in the
working directory; when the FIFO cannot be made, N is the error code -3 and
that ``open`` raises ``FileNotFoundError: '.lgd-nfy-3'``, after the C library
has written its own line to file descriptor 2. Past the import the
pins are in memory: enough for gpiozero's ``LGPIOFactory`` to make inputs and
outputs (inputs read high, as with the pull-ups and every switch open).
"""

import os

SET_PULL_NONE, SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN, SET_BIAS_DISABLE = 0, 32, 64, 128
SET_PULL_UP, SET_PULL_DOWN = SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN
RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3
_IS_OUT = 2


class error(Exception):
    pass


def _notify_open() -> int:
    if os.environ.get("LG_WD"):
        try:
            os.chdir(os.environ["LG_WD"])
        except OSError:
            pass
    try:
        os.mkfifo(".lgd-nfy0")
    except FileExistsError:
        pass
    except OSError as exc:
        # the C library says so itself, on file descriptor 2
        os.write(2, f"xCreatePipe: Can't set permissions (436) for {os.getcwd()}/.lgd-nfy0, "
                    f"{exc.strerror}\n".encode())
        return -3
    # the library keeps a write end open, so the reader below does not block
    _keep.append(os.open(".lgd-nfy0", os.O_RDWR | os.O_NONBLOCK))
    return 0


_keep: list = []
_notify = _notify_open()
_file = open(f".lgd-nfy{_notify}", "rb")
_modes: dict = {}
_levels: dict = {}


def gpiochip_open(chip):
    return 0


def gpiochip_close(handle):
    return 0


# BCM pins another program holds (a test sets FAKE_LGPIO_BUSY=23,24)
_busy = {int(p) for p in os.environ.get("FAKE_LGPIO_BUSY", "").split(",") if p}


def gpio_claim_input(handle, gpio, flags=0):
    if gpio in _busy:
        raise error("GPIO busy")   # what the real lgpio raises for a claimed line
    _modes[gpio] = flags
    return 0


def gpio_claim_output(handle, gpio, flags=0, level=0):
    _modes[gpio] = _IS_OUT
    _levels[gpio] = level
    return 0


def gpio_claim_alert(handle, gpio, edges, flags=0, notify=-1):
    return 0


def gpio_free(handle, gpio):
    return 0


def gpio_get_mode(handle, gpio):
    return _modes.get(gpio, 0)


def gpio_read(handle, gpio):
    return _levels.get(gpio, 1)


def gpio_write(handle, gpio, level):
    _levels[gpio] = level
    return 0


def gpio_set_debounce_micros(handle, gpio, micros):
    return 0


class _Callback:
    def cancel(self):
        pass


def callback(handle, gpio, edge=RISING_EDGE, func=None):
    return _Callback()
