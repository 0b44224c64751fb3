# MicroPython, not CPython: the fake Pico's state and its line to the host.
# (Not a Python package: run.py puts this directory first on MicroPython's
# sys.path, so machine.py, time.py and os.py here stand in for the Pico's.)
"""The board around the firmware: virtual time, pin levels, the I2C target,
the watchdog, and the commands from the host (pico_bridge.py) that move them.

Time passes only in ``sleep``: each call ends one pass of main.py's loop;
when the time the host asked for is reached, the host's commands are served
(bus transfers, input levels, stalls) before the loop goes on, as the
target's interrupts are on a real Pico. Replies start with "@"; any other
line on stdout is the firmware's own print.
"""

import gc
import sys

PERIOD = 1 << 30            # rp2: time.ticks_ms() wraps at 2**30


class Reset(Exception):
    """The Pico resets (watchdog, power): raised out of the loop."""


now = 0                     # virtual ms since the board started (not wrapped)
until = 0                   # run the loop until now reaches this
inputs = {}                 # pin -> level driven from outside (button, tilt, VBUS)
pins = {}                   # pin -> the Pin object the firmware made
target = None               # the I2CTarget, while there is one
wdt_timeout = 0             # 0: no watchdog started
last_feed = 0
boots = 0
cause = 1                   # machine.PWRON_RESET
passes = 0
alloc_passes = 0            # passes of the loop that allocated
alloc_max = 0               # the most bytes one pass allocated
alloc_total = 0
_pass_alloc = 0
measuring = False           # gc.mem_alloc() scans the heap: only while asked ("zero")
_entropy = bytearray()      # queued bytes for os.urandom
_seed = 1
_reply = None               # the reply owed to a "t" command


def entropy(n):
    global _seed, _entropy
    out = bytearray(n)
    for i in range(n):
        if _entropy:
            out[i] = _entropy[0]
            _entropy = _entropy[1:]
        else:
            _seed = (_seed * 1103515245 + 12345) & 0x7FFFFFFF
            out[i] = (_seed >> 16) & 0xFF
    return bytes(out)


def level(pin, default):
    return inputs.get(pin, default)


def sleep(ms):
    """End of one loop pass: account its allocation, let ``ms`` pass, and
    serve the host once its time is reached."""
    global now, passes, alloc_passes, alloc_max, alloc_total, _pass_alloc
    passes += 1
    if measuring:
        used = gc.mem_alloc() - _pass_alloc
        if used > 0:
            alloc_passes += 1
            alloc_total += used
            if used > alloc_max:
                alloc_max = used
    advance(ms)
    if now >= until:
        serve()
    if measuring:
        _pass_alloc = gc.mem_alloc()


def advance(ms):
    """Let ``ms`` pass; the watchdog resets the Pico if it was not fed."""
    global now, cause
    now += ms
    if wdt_timeout and now - last_feed > wdt_timeout:
        cause = 3               # machine.WDT_RESET
        raise Reset()


def ready_level():
    """The ready line (GP22) as the Pi sees it: low only while driven low."""
    pin = pins.get(22)
    return 1 if pin is None or pin.mode != 2 else pin.level


def state():
    ready = ready_level()
    pin22 = pins.get(22)
    pull22 = pin22.pull if pin22 is not None else -1
    leds = []
    for first in (6, 13):
        bits = 0
        for i in range(7):
            p = pins.get(first + i)
            if p is not None and p.level:
                bits |= 1 << i
        leds.append(bits)
    mem = target.mem if target is not None else b""
    return ("@ready=%d leds=%d,%d boots=%d cause=%d now=%d passes=%d alloc_passes=%d "
            "alloc_max=%d alloc_total=%d wdt=%d pull22=%d target=%d mem=%s" % (
                ready, leds[0], leds[1], boots, cause, now, passes, alloc_passes,
                alloc_max, alloc_total, wdt_timeout, pull22, target is not None,
                bytes(mem).hex()))


def reply(text):
    sys.stdout.write(text + "\n")


def serve():
    """The host's commands, until one lets time run (or the Pico resets)."""
    global until, _reply, _entropy, _seed, passes, alloc_passes, alloc_max, alloc_total
    global cause, measuring
    if _reply is not None:
        mem = target.mem if target is not None else b"\0" * 5
        reply("@ok %d %d" % (ready_level(), mem[4]))
        _reply = None
    while True:
        line = sys.stdin.readline()
        if not line:
            raise SystemExit
        words = line.split()
        if not words:
            continue
        op, args = words[0], [int(w, 0) for w in words[1:]]
        if op == "t":                       # let the loop run for args[0] ms
            until = now + args[0]
            _reply = "@ok"
            gc.collect()
            gc.disable()        # a pass that allocates shows in mem_alloc, never hidden by a collection
            return
        if op in ("p", "r", "w") and target is None:
            reply("@nack")                  # no I2C target: nobody acknowledges
        elif op == "p":                     # a transfer names the register
            target.point(args[0])
            reply("@ok")
        elif op == "r":                     # read args[0] bytes, one at a time
            reply("@" + bytes([target.read_byte() for _ in range(args[0])]).hex())
        elif op == "w":                     # a write transfer: register, then data
            target.point(args[0])
            for value in args[1:]:
                target.write_byte(value)
            reply("@ok")
        elif op == "i":                     # drive an input pin
            inputs[args[0]] = args[1]
            reply("@ok")
        elif op == "e":                     # queue entropy bytes
            _entropy = _entropy + bytes(args)
            reply("@ok")
        elif op == "seed":
            _seed = args[0] or 1
            reply("@ok")
        elif op == "hang":                  # the loop stalls for args[0] ms
            reply("@ok")
            advance(args[0])
        elif op == "power":                 # a power cycle
            reply("@ok")
            cause = 1
            raise Reset()
        elif op == "zero":                  # start counting passes and allocation anew
            passes = alloc_passes = alloc_max = alloc_total = 0
            measuring = True
            reply("@ok")
        elif op == "q":
            reply(state())
        else:
            reply("@error unknown command " + op)
