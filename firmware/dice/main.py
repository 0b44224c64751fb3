"""Glue between DiceCore and the Pico: pins, the I2C target, the watchdog.

Everything that decides anything is in the dice_* modules (they run under
CPython too, in shutbox-hw's tests and simulator); this file only moves
levels between pins and the core. A pass of the loop allocates nothing.
"""

import os
import time

from machine import WDT, I2CTarget, Pin

import dice_config as cfg
import dice_regs as r
from dice_boot import count_boot
from dice_core import DiceCore


def show(pins, leds):
    """Copy both dice's LED patterns to their pins (no allocation)."""
    for d in range(2):
        bits = leds[d]
        die = pins[d]
        for i in range(7):
            die[i].value(bits >> i & 1)


def main():
    # First the ready line: released, with our pull-up (the RP2040's reset
    # default is a pull-down, which would fight the Pi's pull-up).
    ready = Pin(cfg.READY_PIN, Pin.OPEN_DRAIN, Pin.PULL_UP, value=1)
    button = Pin(cfg.BUTTON_PIN, Pin.IN, Pin.PULL_UP)
    vbus = Pin(cfg.VBUS_PIN, Pin.IN)
    if button.value() == 0 and vbus.value() == 1:
        # Once started, the watchdog cannot be stopped, not even by a soft reset,
        # so it would reset the Pico in the middle of an mpremote session. On the
        # box's own supply (no USB) a held button is a player: start as always.
        print("dice: button held with USB power: not starting (flash, then reset)")
        return
    mem = bytearray(r.MEM_SIZE)
    core = DiceCore(mem, os.urandom, count_boot(cfg.BOOT_FILE, os.urandom),
                    button.value() == 0)        # fills mem before the Pi can read it
    leds = [[Pin(p, Pin.OUT, value=0) for p in die] for die in cfg.LED_PINS]
    tilt = Pin(cfg.TILT_PIN, Pin.IN, Pin.PULL_UP)
    target = I2CTarget(cfg.I2C_ID, cfg.ADDRESS, mem=mem,
                       scl=Pin(cfg.SCL_PIN), sda=Pin(cfg.SDA_PIN))
    wdt = WDT(timeout=cfg.WATCHDOG_MS)
    frame = core.frame
    last = time.ticks_ms()
    try:
        while True:
            now = time.ticks_ms()
            core.tick(time.ticks_diff(now, last), button.value() == 0, tilt.value() == 0)
            last = now
            ready.value(0 if core.ready else 1)
            if core.frame != frame:
                frame = core.frame
                show(leds, core.leds)
            wdt.feed()
            time.sleep_ms(cfg.LOOP_MS)
    finally:
        target.deinit()
        ready.value(1)


main()
