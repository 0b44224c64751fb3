"""The dice module's figures (firmware/dice/README.md, "Figures"):

    .venv/bin/python benchmarks/dice_module.py [--before REV]

1. the time of one ``DiceCore.tick`` under the real MicroPython (the unix
   port, here), idle and while the dice tumble, timed inside MicroPython with
   ``time.ticks_us`` over many passes (medians of batches);
2. allocation per pass of ``main.py``'s loop, idle, tumbling and at the pass
   that starts a throw, counted by the fake board with ``gc.mem_alloc``;
3. publish to ``rolled``: the module publishes (its ready line falls) while
   the box's loop sleeps in ``Waker.wait_until``; how long until the loop has
   the throw from ``DiceSource.poll`` (the step that turns it into the
   ``rolled`` event), with the ready line's edge waking the loop, and without
   (the 250 ms poll). Real threads on gpiozero's mock pins and the simulated
   bus, on this machine's monotonic clock.

``--before REV`` also times one whole throw (its bytes allocated, µs per
tick) with the firmware of git revision REV and with this one (e.g. REV
59e0f27, the firmware before issue 21).
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shutbox_hw.hal.simulated.pico_bridge import FIRMWARE_DIR, PicoProcess, require_micropython  # noqa: E402

TICK_SCRIPT = """
import sys, time
sys.path.insert(0, %r)
import dice_core, dice_regs as r
mem = bytearray(r.MEM_SIZE)
core = dice_core.DiceCore(mem, lambda n: bytes([7] * n), 5)
def batch(n):
    t0 = time.ticks_us()
    for _ in range(n):
        core.tick(2, False, False)
    return time.ticks_diff(time.ticks_us(), t0) / n
idle = [batch(200) for _ in range(25)]
tumbling = []
for _ in range(25):
    mem[r.REQUEST] = r.REQUEST_ROLL
    core.tick(2, False, False)          # starts the throw (not timed)
    tumbling.append(batch(100))         # 200 ms of the 955 ms tumble
    while core.tumble is not None:
        core.tick(2, False, False)
    mem[r.ACK] = mem[r.SEQ]
    core.tick(2, False, False)
idle.sort(); tumbling.sort()
print(idle[len(idle) // 2], tumbling[len(tumbling) // 2])
"""


THROW_SCRIPT = """
import sys, gc, time
sys.path.insert(0, sys.argv[1])
import dice_core, dice_regs as r
mem = bytearray(r.MEM_SIZE)
core = dice_core.DiceCore(mem, lambda n: bytes([7] * n))
for _ in range(5):
    core.tick(2, False, False)
gc.collect()
gc.disable()
mem[r.REQUEST] = r.REQUEST_ROLL
passes = 0
t0 = time.ticks_us()
a = gc.mem_alloc()
while True:
    core.tick(2, False, False)
    passes += 1
    if core.tumble is None:
        break
b = gc.mem_alloc()
print(b - a, passes, time.ticks_diff(time.ticks_us(), t0) / passes)
"""


def one_throw(firmware: Path) -> tuple[int, int, float]:
    """(bytes allocated, passes, µs per tick) of one throw from REQUEST to result."""
    done = subprocess.run([require_micropython(), "-X", "heapsize=192K", "-c", THROW_SCRIPT,
                           str(firmware)], capture_output=True, text=True, timeout=60,
                          check=True)
    used, passes, us = done.stdout.split()
    return int(used), int(passes), float(us)


def tick_times() -> tuple[float, float]:
    done = subprocess.run([require_micropython(), "-c", TICK_SCRIPT % str(FIRMWARE_DIR)],
                          capture_output=True, text=True, timeout=120, check=True)
    idle, tumbling = map(float, done.stdout.split())
    return idle, tumbling


def allocation() -> dict[str, int]:
    with PicoProcess() as pico:
        pico.run(10)
        pico.zero()
        pico.run(2000)
        idle = pico.state()
        pico.zero()
        pico.write(7, [0x52])
        pico.run(0)
        start = pico.state()
        pico.zero()
        pico.run(900)
        tumbling = pico.state()
    return {"idle passes": idle.passes, "idle bytes": idle.alloc_total,
            "start pass bytes": start.alloc_max,
            "tumbling passes": tumbling.passes, "tumbling bytes": tumbling.alloc_total}


def publish_to_rolled(wake_on_edge: bool, throws: int = 30) -> list[float]:
    """ms from the ready line falling to the throw in the loop's hands."""
    from gpiozero.pins.mock import MockFactory

    from shutbox_hw.base.events import DiceRolled
    from shutbox_hw.hal.adapters.box import build_module
    from shutbox_hw.hal.contracts.clock import MonotonicClock
    from shutbox_hw.hal.contracts.config import DiceConfig
    from shutbox_hw.hal.contracts.poll import Waker, no_wake
    from shutbox_hw.hal.simulated import SimBus
    from shutbox_hw.hal.simulated.dice_module import SimDiceModule

    factory = MockFactory()
    clock = MonotonicClock()
    lock = threading.Lock()
    module = SimDiceModule(clock=clock, ready_pin=factory.pin(18))
    bus = SimBus()
    bus.attach(0x42, module)

    class LockedBus:            # the module runs on the "Pico" thread too
        def __getattr__(self, name: str):
            method = getattr(bus, name)

            def call(*args):
                with lock:
                    return method(*args)
            return call

    waker = Waker()
    dice = build_module(DiceConfig(), clock, pin_factory=factory, bus=lambda n: LockedBus(),
                        wake=waker.wake if wake_on_edge else no_wake)
    published: list[int] = []
    got: list[int] = []
    stop = threading.Event()

    def pico() -> None:         # the module's loop: every 2 ms
        while not stop.is_set():
            with lock:
                was = factory.pin(18).state
                module.sync()
                if was and not factory.pin(18).state:
                    published.append(time.monotonic_ns())
            time.sleep(0.002)

    def loop() -> None:         # the box's loop: poll, then sleep to the deadline
        while not stop.is_set():
            now = clock.now_ms()
            if any(isinstance(e, DiceRolled) for e in dice.poll(now)):
                got.append(time.monotonic_ns())
            deadline = dice.next_deadline_ms()
            waker.wait_until(min(deadline if deadline is not None else now + 100, now + 100)
                             if wake_on_edge else deadline)

    threads = [threading.Thread(target=pico, daemon=True), threading.Thread(target=loop,
                                                                           daemon=True)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    rng = random.Random(1)
    for _ in range(throws):
        time.sleep(rng.uniform(0, 0.25))     # throws at any phase of the 250 ms poll
        before = len(got)
        assert dice.roll(2) is None
        deadline = time.monotonic() + 3
        while len(got) == before and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.05)
    stop.set()
    waker.wake()
    for t in threads:
        t.join(2)
    dice.close()
    return [(g - p) / 1e6 for p, g in zip(published, got)]


def main() -> None:
    if "--before" in sys.argv:
        import tempfile
        rev = sys.argv[sys.argv.index("--before") + 1]
        with tempfile.TemporaryDirectory() as tmp:
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "firmware/dice"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            for label, where in ((rev, Path(tmp) / "firmware/dice"), ("now", FIRMWARE_DIR)):
                used, passes, us = one_throw(where)
                print(f"one throw, firmware {label}: {used} bytes allocated over {passes} "
                      f"ticks, {us:.1f} us per tick")
    idle, tumbling = tick_times()
    print(f"DiceCore.tick under MicroPython {sys.platform} unix port: idle {idle:.1f} us, "
          f"tumbling {tumbling:.1f} us (median of 25 batches)")
    for name, value in allocation().items():
        print(f"allocation: {name}: {value}")
    for wake in (True, False):
        lat = publish_to_rolled(wake)
        label = "ready edge wakes the loop" if wake else "no wake (250 ms poll)"
        lat.sort()
        print(f"publish to rolled, {label}: median {statistics.median(lat):.2f} ms, "
              f"90th {lat[int(len(lat) * 0.9)]:.2f} ms, max {lat[-1]:.2f} ms "
              f"over {len(lat)} throws")


if __name__ == "__main__":
    main()
