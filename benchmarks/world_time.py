"""Issue 20's figures, from the simulated box in a world where I/O takes time.

    .venv/bin/python benchmarks/world_time.py [--trials N]

- ``event_latency_sdcard_p50_us`` / ``_p99_us``: from the moment a flap change
  is settled (the debouncer's event time) to the end of the I2C write that
  changes its LEDs (the red light and the flap's blink when it does not fit,
  off again when it is lifted), on the MCP23017 build at 400 kHz with the
  ``sd-card`` disk profile; virtual microseconds, wire time included.
- ``bus_ms_per_frame_change``: the bus's wire time for one typical flap
  change at 400 kHz on the same build: flap 3 shut and lifted again while
  the throw is 3+4 (the expander's reads of the bouncing switch, the LED
  writes and the changed pages of the frame), median.
- ``invented_presses`` / ``lost_presses``: over the property runs of
  ``tests/test_inputs_in_time.py`` (both builds, three disk profiles, 50, 100
  and 400 kHz; ``--trials`` per case).
- ``loop_blocked_max_ms``: the longest time one step of the loop took (it
  reads no input meanwhile) during a game with hints whose tables are
  solved cold (empty cache) when the box starts, as CPU time of the loop's
  thread (``time.thread_time``): the loop's own work, which is what a solve
  on the loop would add to, and which a shared, loaded machine does not
  inflate as it does wall time (printed beside it, without the simulator's
  waits for the display's sender thread, which the box's loop does not do).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MCP_BUILD = ROOT / "hardware" / "mcp23017-12" / "shutbox.toml"


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def sdcard_latency(changes: int = 120) -> tuple[list[float], list[float]]:
    """(edge to LED in us, bus ms per typical flap change) over ``changes`` flap changes."""
    from shutbox_hw.base.events import FlapChanged
    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.hal.simulated.timing import DiskProfile
    from shutbox_hw.sim.runner import SimRunner

    config = load_config(MCP_BUILD)
    expander = config.hardware.mcp23017
    assert expander is not None
    chips = (expander.address, expander.led_address)   # the status LEDs and the flap LEDs
    with tempfile.TemporaryDirectory() as tmp:
        runner = SimRunner(config, Path(tmp) / "db", seed=7)
        runner.disk.set_profile(DiskProfile("sd-card"))
        bus = runner.sim.bus
        writes: list[int] = []        # when each LED write ended (virtual us)
        real_write = bus.write_i2c_block_data

        def write(addr: int, register: int, data: list[int], force: Any = None) -> None:
            real_write(addr, register, data)
            if addr in chips:
                writes.append(bus.timeline._until)
        bus.write_i2c_block_data = write  # type: ignore[method-assign,assignment]
        runner.start_game(1)
        latencies: list[float] = []
        wire: list[float] = []
        runner.sim.dice.queue((3, 4))
        runner.press("roll")
        for shut in [True, False] * (changes // 2):
            busy = bus.timeline.busy_us
            runner.flap(3, shut)
            wire.append((bus.timeline.busy_us - busy) / 1000)
        runner.flap(4, True)
        runner.flap(3, True)                    # 3+4 taken
        rng = random.Random(7)
        while len(latencies) < changes:
            runner.sim.dice.queue((1, 1))
            runner.press("roll")
            tile = rng.choice(range(5, 13))     # never fits 1+1: refused, red light
            for shut in (True, False):
                start = len(runner.sim.seen)
                first_write = len(writes)
                runner.flap(tile, shut)
                seen = [e for e in runner.sim.seen[start:] if isinstance(e, FlapChanged)]
                after = [w for w in writes[first_write:] if seen and w >= seen[0].at_ms * 1000]
                if seen and after:
                    latencies.append(after[0] - seen[0].at_ms * 1000)
        return latencies, wire


def trials(per_case: int) -> dict[str, int]:
    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.hal.simulated.timing import DiskProfile
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.trials import Tally, run_trials

    total = Tally()
    disks = (DiskProfile(), DiskProfile("sd-card"), DiskProfile("stall", 200))
    with tempfile.TemporaryDirectory() as tmp:
        for n, (build, disk, hz) in enumerate(
                (b, d, hz) for b in (None, MCP_BUILD) for d in disks
                for hz in (50_000, 100_000, 400_000)):
            runner = SimRunner(load_config(build), Path(tmp) / f"{n}.db", seed=hz)
            total.add(run_trials(runner, random.Random(n), per_case, disk=disk, hz=hz))
    return {"invented": total.invented, "lost": total.lost, "glitches": total.glitches,
            "presses": total.presses, "bursts": total.bursts}


def loop_blocked_ms(hints: str = "always") -> tuple[float, float, float]:
    """(the longest step's CPU time on the loop's thread in ms, the longest
    step's wall time in ms, how long the cold solve took beside the game in
    ms); ``hints = "off"``: the same game without a solver, the baseline."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = f"{tmp}/cache"
        from shutbox_hw.config.config_file import load_config
        from shutbox_hw.sim.runner import SimRunner
        from shutbox_hw.sim.script import parse_script
        from shutbox_hw.skill.hints import advisor_for
        from shutbox_hw.strategy import forget_loaded

        forget_loaded()
        config_path = Path(tmp) / "hints.toml"
        config_path.write_text('[rules]\npreset = "crafthouse-12"\nmultiplication = true\n'
                               f'[game]\nhints = "{hints}"\n')
        advisors: list[Any] = []

        def worker_advisor(config: Any) -> Any:
            advisor = advisor_for(config)
            advisors.append((advisor, time.perf_counter()))
            return advisor

        steps: list[float] = []     # the loop thread's own CPU time per step
        walls: list[float] = []     # ... and its wall time (load-dependent)
        runner = SimRunner(load_config(config_path), Path(tmp) / "db",
                           advisor_for=worker_advisor)
        real_step = runner.daemon.step
        # the simulator waits for the display's sender after each frame so that
        # frames are deterministic; the box's loop never does: not counted
        real_settle = runner.sim.settle_display
        waited = [0.0]

        def settle() -> None:
            began = time.perf_counter()
            real_settle()
            waited[0] += time.perf_counter() - began
        runner.sim.settle_display = settle  # type: ignore[method-assign]

        def timed() -> None:
            began, waited[0] = time.perf_counter(), 0.0
            cpu = time.thread_time()
            real_step()
            walls.append((time.perf_counter() - began - waited[0]) * 1000)
            steps.append((time.thread_time() - cpu) * 1000)
        runner.daemon.step = timed  # type: ignore[method-assign]
        script = (ROOT / "tests" / "scripts" / "practice-001.txt").read_text()
        for step in parse_script(script, 12):
            runner.run(step)
        if not advisors or advisors[0][0] is None:
            return max(steps), max(walls), 0.0
        advisor, made = advisors[0]
        advisor.wait_ready(60)
        solved = (time.perf_counter() - made) * 1000
        return max(steps), max(walls), solved


def measure(per_case: int = 20) -> dict[str, float]:
    latencies, wire = sdcard_latency()
    counts = trials(per_case)
    blocked, _, _ = loop_blocked_ms()
    return {
        "event_latency_sdcard_p50_us": statistics.median(latencies),
        "event_latency_sdcard_p99_us": percentile(latencies, 0.99),
        "bus_ms_per_frame_change": statistics.median(wire),
        "invented_presses": counts["invented"],
        "lost_presses": counts["lost"],
        "loop_blocked_max_ms": blocked,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20, help="trials per case")
    args = parser.parse_args()
    latencies, wire = sdcard_latency()
    print(f"edge to LED, sd-card: p50 {statistics.median(latencies):.0f} us, "
          f"p99 {percentile(latencies, 0.99):.0f} us, max {max(latencies):.0f} us "
          f"({len(latencies)} flap changes)")
    print(f"bus per flap change at 400 kHz: median {statistics.median(wire):.2f} ms, "
          f"max {max(wire):.2f} ms")
    print(f"trials: {json.dumps(trials(args.trials))}")
    blocked, wall, solved = loop_blocked_ms()
    baseline, base_wall, _ = loop_blocked_ms("off")
    print(f"loop blocked at most {blocked:.1f} ms of its own CPU ({wall:.1f} ms wall) "
          f"during a game whose tables took {solved:.0f} ms to solve beside it; "
          f"{baseline:.1f} ms ({base_wall:.1f} ms wall) in the same game without hints")


if __name__ == "__main__":
    main()
