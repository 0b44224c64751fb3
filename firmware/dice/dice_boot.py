"""The boot counter: every start of the module gets a BOOT value other than
the start before it, so a restart (a watchdog reset, a brownout, a replug)
can never pass unnoticed by the Pi, which keys results on (BOOT, SEQ).

The last value is kept in a small file on the Pico's flash; the new one is
written to a temporary file first and renamed over it (atomic on LittleFS),
so a power cut during the write leaves the old value. A file that cannot be
read starts the count at a random value; one that cannot be written leaves
the count where it was (the next start draws a new random value).
"""

import os

try:        # in shutbox-hw on the Pi, as the package shutbox_hw.dice_firmware
    from .dice_regs import next_boot
except ImportError:     # on the Pico: plain top-level modules
    from dice_regs import next_boot


def count_boot(path, entropy):
    """This start's BOOT value (1..255), counted on from the one in ``path``."""
    try:
        with open(path) as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = entropy(1)[0]
    boot = next_boot(last % 256)
    try:
        with open(path + ".new", "w") as f:
            f.write(str(boot))
        os.rename(path + ".new", path)
    except OSError:
        pass
    return boot
