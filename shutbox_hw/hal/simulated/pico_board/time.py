# MicroPython: a fake `time` on the board's virtual clock, with rp2's tick period.
"""ticks wrap at 2**30 as on an rp2 build (the unix port's wrap at 2**62)."""

import board

_MASK = board.PERIOD - 1
_HALF = board.PERIOD // 2


def ticks_ms():
    return board.now & _MASK


def ticks_add(ticks, delta):
    return (ticks + delta) & _MASK


def ticks_diff(a, b):
    return ((a - b + _HALF) & _MASK) - _HALF


def sleep_ms(ms):
    board.sleep(ms)


def sleep(s):
    board.sleep(int(s * 1000))
