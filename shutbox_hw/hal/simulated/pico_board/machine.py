# MicroPython: a fake rp2 `machine` for the dice firmware (see board.py).
"""Pin, I2CTarget (memory mode, with rp2's behaviour) and WDT on the fake board."""

import board

PWRON_RESET = 1
WDT_RESET = 3


def reset_cause():
    return board.cause


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = 1 if value is None else value
        board.pins[id] = self

    def value(self, level=None):
        if level is None:
            if self.mode == Pin.IN:
                return board.level(self.id, 1 if self.pull == Pin.PULL_UP else 0)
            return self.level
        self.level = 1 if level else 0
        return None


class I2CTarget:
    """rp2 in memory mode: the first byte written names the register (modulo
    the memory size: no NACK for a register past the end), reads are served
    live from memory one byte at a time and never NACK, and the pointer moves
    on (wrapping) and is kept between transfers."""

    def __init__(self, id, addr, *, addrsize=7, mem=None, mem_addrsize=8, scl=None, sda=None):
        self.id = id
        self.addr = addr
        self.mem = mem
        self.ptr = 0
        board.target = self

    def point(self, reg):
        self.ptr = reg % len(self.mem)

    def read_byte(self):
        value = self.mem[self.ptr]
        self.ptr = (self.ptr + 1) % len(self.mem)
        return value

    def write_byte(self, value):
        self.mem[self.ptr] = value
        self.ptr = (self.ptr + 1) % len(self.mem)

    def deinit(self):
        if board.target is self:
            board.target = None


class WDT:
    def __init__(self, id=0, timeout=5000):
        board.wdt_timeout = timeout
        board.last_feed = board.now

    def feed(self):
        board.last_feed = board.now
