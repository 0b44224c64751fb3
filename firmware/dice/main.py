"""Glue between DiceCore and the Pico: pins, the I2C target, the watchdog.

Everything that decides anything is in the dice_* modules (they run under
CPython too, in shutbox-hw's tests and simulator); this file only moves
levels between pins and the core.
"""

import os
import time

from machine import WDT, I2CTarget, Pin

import dice_config as cfg
import dice_regs as r
from dice_core import DiceCore


def main():
    button = Pin(cfg.BUTTON_PIN, Pin.IN, Pin.PULL_UP)
    if button.value() == 0:
        # Once started, the watchdog cannot be stopped, not even by a soft reset,
        # so it would reset the Pico in the middle of an mpremote session.
        print("dice: button held at power-up: not starting (flash, then reset)")
        return
    mem = bytearray(r.MEM_SIZE)
    core = DiceCore(mem, os.urandom)        # fills mem before the Pi can read it
    leds = [[Pin(p, Pin.OUT, value=0) for p in die] for die in cfg.LED_PINS]
    tilt = Pin(cfg.TILT_PIN, Pin.IN, Pin.PULL_UP)
    ready = Pin(cfg.READY_PIN, Pin.OPEN_DRAIN, value=1)    # released: the Pi's pull-up
    target = I2CTarget(cfg.I2C_ID, cfg.ADDRESS, mem=mem,
                       scl=Pin(cfg.SCL_PIN), sda=Pin(cfg.SDA_PIN))
    wdt = WDT(timeout=cfg.WATCHDOG_MS)
    shown = None
    last = time.ticks_ms()
    try:
        while True:
            now = time.ticks_ms()
            core.tick(time.ticks_diff(now, last), button.value() == 0, tilt.value() == 0)
            last = now
            ready.value(0 if core.ready else 1)
            if core.leds != shown:
                shown = core.leds
                for die, bits in zip(leds, shown):
                    for i, pin in enumerate(die):
                        pin.value(bits >> i & 1)
            wdt.feed()
            time.sleep_ms(cfg.LOOP_MS)
    finally:
        target.deinit()
        ready.value(1)


main()
