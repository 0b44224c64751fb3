"""Every figure of issue 12 in one run, with its target: how quiet and how quick the box is.

    .venv/bin/python benchmarks/run.py [--json]

Prints one line per figure (medians over repeated runs), or with ``--json``
one JSON object with exactly the keys of FIGURES. The run loop's figures
come from a child process running the real ``run`` command on gpiozero's
mock pins (see :func:`loop_child`); start-up, memory and the cold solve
are separate processes too. The whole run takes about a minute and a half.
How each figure is measured: benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import lru_cache
from itertools import product
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
IDLE_SECONDS = 10.0
EDGES = 120            # flap edges for the latency figures (half shut, half lift)

# key -> (target, "max" or "min", unit); None: no target of its own
FIGURES: dict[str, tuple[float | None, str, str]] = {
    "event_latency_p50_us": (300, "max", "us"),
    "event_latency_p99_us": (1000, "max", "us"),
    "frame_render_ms": (3, "max", "ms"),
    "frames_for_burst": (3, "max", "frames"),
    "solve_9_ms": (None, "max", "ms"),
    "solve_12x_ms": (None, "max", "ms"),
    "idle_cpu_percent": (0.2, "max", "%"),
    "idle_wakeups_per_s": (5, "max", "/s"),
    "startup_ms": (None, "max", "ms"),       # target: 3 x python -c pass, set at run time
    "sim_startup_ms": (None, "max", "ms"),
    "rss_mb": (50, "max", "MB"),
    "game_replay_ms": (None, "max", "ms"),
    # issue 20, from the simulated world with time in it (benchmarks/world_time.py)
    "event_latency_sdcard_p50_us": (None, "max", "us"),
    "event_latency_sdcard_p99_us": (2000, "max", "us"),
    "bus_ms_per_frame_change": (5, "max", "ms"),
    "invented_presses": (0, "max", "presses"),
    "lost_presses": (0, "max", "presses"),
    "loop_blocked_max_ms": (30, "max", "ms"),
}


def median_of(action: Callable[[], float], runs: int) -> float:
    return statistics.median(action() for _ in range(runs))


def process_ms(argv: list[str], env: dict[str, str] | None = None,
               before: Callable[[], object] = lambda: None) -> float:
    """Wall time of one process, start to exit (its output discarded)."""
    before()
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    return (time.perf_counter() - start) * 1000


def shutbox_hw() -> list[str]:
    """The installed ``shutbox-hw`` script beside this Python, as a box runs it."""
    script = Path(sys.executable).with_name("shutbox-hw")
    return [str(script)] if script.exists() else [sys.executable, "-m", "shutbox_hw"]


def child(mode: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run this file as a child process in ``mode``; its last line is JSON."""
    out = subprocess.run([sys.executable, __file__, "--child", mode, *args], check=True,
                         capture_output=True, text=True, cwd=ROOT, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


# --- the run loop on mock pins: latency and idle -------------------------------------

def wakeups(skip_thread: int) -> dict[str, int]:
    """Voluntary context switches of every thread of this process but one, by
    thread name: each is the thread going to sleep, i.e. once per wake-up."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    counts: dict[str, int] = {}
    for task in Path("/proc/self/task").iterdir():
        if int(task.name) == skip_thread:
            continue
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    name = names.get(int(task.name), "other")
                    counts[name] = counts.get(name, 0) + int(line.split()[1])
        except OSError:
            pass  # the thread ended meanwhile
    return counts


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def loop_child() -> dict[str, Any]:
    """``shutbox-hw run --pin-factory mock`` in this process, its main thread, with a
    temporary database and an SSD1306 replaced by luma's in-memory ``dummy`` device;
    a harness thread idles it, then starts a game and shuts and lifts flap 9 before
    the roll (so each shut is rejected, recorded durably and lights the red LED, and
    each lift puts it out)."""
    import gpiozero.pins.mock as mock
    from luma.core.device import dummy

    import shutbox_hw.hal.adapters.display as display
    from shutbox_hw.commands.cli import build_parser
    from shutbox_hw.config.config_file import load_config

    pins: dict[str, Any] = {}
    changes: list[tuple[str, bool, int]] = []
    changed = threading.Event()
    real_init, real_change = mock.MockPin.__init__, mock.MockPin._change_state

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        pins[self.info.name] = self

    def change_state(self: Any, value: bool) -> bool:
        if real_change(self, value):
            if self._function == "output":
                changes.append((self.info.name, value, time.monotonic_ns()))
                changed.set()
            return True
        return False

    mock.MockPin.__init__ = init                  # type: ignore[method-assign]
    mock.MockPin._change_state = change_state     # type: ignore[method-assign]
    real_display = display.make_display
    display.make_display = lambda hw, **kw: real_display(  # type: ignore[assignment]
        hw, **{**kw, "device_factory": lambda: dummy(width=128, height=64, mode="1")})

    tmp = Path(tempfile.mkdtemp(prefix="shutbox-bench-"))
    path = tmp / "box.toml"
    path.write_text(f'[storage]\ndb = "{tmp}/box.db"\n')   # reference build (a), defaults
    hw = load_config(path).hardware
    name = {pin: f"GPIO{pin}" if isinstance(pin, int) else str(pin)
            for pin in (*hw.flaps, hw.roll, hw.red_led)}
    window_ns = hw.debounce_ms * 1_000_000
    result: dict[str, Any] = {}

    def wait_for(pin: str, value: bool, since: int, timeout: float = 2.0) -> int | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for pin_name, level, at in reversed(changes):
                if at < since:
                    break
                if pin_name == pin and level == value:
                    return at
            changed.clear()
            changed.wait(0.05)
        return None

    def harness() -> None:
        try:
            deadline = time.monotonic() + 20
            while name[hw.red_led] not in pins and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)                       # start-up done, attract screen shown
            me = threading.get_native_id()
            cpu0, woke0, t0 = cpu_seconds(), wakeups(me), time.perf_counter()
            time.sleep(IDLE_SECONDS)
            cpu1, woke1, t1 = cpu_seconds(), wakeups(me), time.perf_counter()
            result["idle_cpu_percent"] = (cpu1 - cpu0) / (t1 - t0) * 100
            by_thread = {thread: (woke1[thread] - woke0.get(thread, 0)) / (t1 - t0)
                         for thread in woke1}
            result["idle_wakeups_per_s"] = sum(by_thread.values())
            result["idle_wakeups_by_thread"] = by_thread
            roll, flap = pins[name[hw.roll]], pins[name[hw.flaps[8]]]
            roll.drive_low()                      # ROLL, short: a new game, P1's turn
            time.sleep(0.1)
            roll.drive_high()
            time.sleep(0.3)
            rng = random.Random(12)
            latencies, after_deadline, missed = [], [], 0
            for i in range(EDGES):
                shut = i % 2 == 0
                edge = time.monotonic_ns()
                flap.drive_low() if shut else flap.drive_high()
                edge_end = time.monotonic_ns()
                lit = wait_for(name[hw.red_led], shut, edge)
                if lit is None:
                    missed += 1
                else:
                    latencies.append((lit - edge - window_ns) / 1000)
                    if edge // 1_000_000 == edge_end // 1_000_000:
                        # the adapter stamped the edge with this whole millisecond, so
                        # the debouncer's deadline is known to the nanosecond
                        deadline = (edge // 1_000_000) * 1_000_000 + window_ns
                        after_deadline.append(("shut" if shut else "lift",
                                               (lit - deadline) / 1000))
                time.sleep(rng.uniform(0.03, 0.06))  # off the loop's phase
            result["latencies_us"] = latencies
            result["after_deadline_us"] = after_deadline
            result["missed"] = missed
        except Exception as error:  # noqa: BLE001 - reported by the parent
            result["error"] = repr(error)
        finally:
            os.kill(os.getpid(), signal.SIGTERM)   # the loop stops as under systemd

    args = build_parser("run").parse_args(["run", "--config", str(path), "--pin-factory",
                                           "mock"])
    thread = threading.Thread(target=harness, daemon=True)
    thread.start()
    args.run(args)
    thread.join(5)
    return result


# --- the rest -------------------------------------------------------------------------

def plain_dp(rules: Any, objective: str) -> float:
    """The reference: the value of the full board by the straightforward recursive
    expectation over the open sets, asking the rules engine at every position."""
    from shutbox_hw.rules import (
        allowed_dice_counts,
        dice_choice,
        full_board,
        legal_closures,
        turn_score,
    )
    better = min if objective == "min-score" else max

    @lru_cache(maxsize=None)
    def value(open_mask: int) -> float:
        if not open_mask:
            return 0.0 if objective == "min-score" else 1.0
        end = float(turn_score(rules, open_mask)) if objective == "min-score" else 0.0
        options = []
        for count in allowed_dice_counts(dice_choice(rules, open_mask)):
            throws = list(product(range(1, 7), repeat=count))
            total = 0.0
            for dice in throws:
                closures = legal_closures(rules, open_mask, dice)
                total += (better(value(open_mask & ~c) for c in closures)
                          if closures else end)
            options.append(total / len(throws))
        return better(options)

    return value(full_board(rules.tiles))


def plain_dp_child() -> dict[str, Any]:
    from shutbox_hw.rules import build_rules
    rules = build_rules("crafthouse-12", {"multiplication": "true"})
    start = time.perf_counter()
    value = plain_dp(rules, "min-score")
    return {"ms": (time.perf_counter() - start) * 1000, "value": value}


def solve_ms(rules: Any, runs: int) -> float:
    """Both objectives' tables computed from nothing (no disk cache, a new Solver)."""
    from shutbox_hw.strategy import OBJECTIVES, Solver

    def once() -> float:
        start = time.perf_counter()
        solver = Solver(rules)
        for objective in OBJECTIVES:
            solver.solution(objective)
        return (time.perf_counter() - start) * 1000

    return median_of(once, runs)


def burst_frames() -> int:
    """10 flap events 5 ms apart, each showing a new frame, on an OledDisplay whose
    device takes 23 ms per frame: how many frames reach the device."""
    from display_show import SlowDevice

    from shutbox_hw.hal.adapters.display import OledDisplay
    from shutbox_hw.render import render
    from shutbox_hw.render.samples import SAMPLES
    frames = [render(screen) for screen in SAMPLES.values()]
    slow = SlowDevice(0.023)
    shown = OledDisplay(lambda: slow)
    shown.wait_idle(5)
    slow.frames = 0
    for i in range(10):
        shown.show(frames[i % len(frames)], i * 5)
        time.sleep(0.005)
    shown.wait_idle(5)
    shown.close()
    return slow.frames


def peak_rss_child(argv: list[str]) -> dict[str, Any]:
    """Peak RSS of one process. Run from a small child of the benchmark: Linux
    counts the pages a process had at fork in its child's peak."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        return {"error": f"{argv} exited with {proc.returncode}"}
    return {"mb": usage.ru_maxrss / 1024}


def measure() -> tuple[dict[str, float], dict[str, Any]]:
    from render import render_times
    from sim_game import run_once

    from shutbox_hw.rules import build_rules
    figures: dict[str, float] = {}
    extra: dict[str, Any] = {}

    loop = child("loop")
    if "error" in loop:
        raise SystemExit(f"benchmarks/run.py: the run-loop harness failed: {loop['error']}")
    latencies = sorted(loop["latencies_us"])
    figures["event_latency_p50_us"] = statistics.median(latencies)
    figures["event_latency_p99_us"] = latencies[min(len(latencies) - 1,
                                                    round(0.99 * (len(latencies) - 1)))]
    figures["idle_cpu_percent"] = loop["idle_cpu_percent"]
    figures["idle_wakeups_per_s"] = loop["idle_wakeups_per_s"]
    extra["wakeups_by_thread"] = loop["idle_wakeups_by_thread"]
    extra["latency_samples"] = len(latencies)
    for kind in ("shut", "lift"):
        after = sorted(us for k, us in loop["after_deadline_us"] if k == kind)
        extra[f"after_deadline_{kind}_us"] = (statistics.median(after),
                                              after[round(0.99 * (len(after) - 1))])
    extra["latency_missed"] = loop["missed"]

    figures["frame_render_ms"] = statistics.median(
        t for times in render_times(30).values() for t in times) * 1000
    figures["frames_for_burst"] = statistics.median(burst_frames() for _ in range(3))
    figures["solve_9_ms"] = solve_ms(build_rules("klappenspiel"), 7)
    figures["solve_12x_ms"] = solve_ms(build_rules("crafthouse-12",
                                                   {"multiplication": "true"}), 5)

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=f"{tmp}/cache")
        extra["python_pass_ms"] = median_of(
            lambda: process_ms([sys.executable, "-c", "pass"]), 11)
        figures["startup_ms"] = median_of(
            lambda: process_ms([*shutbox_hw(), "rules"], env), 11)
        script = Path(tmp) / "one-line.txt"
        script.write_text("start 1\n")
        figures["sim_startup_ms"] = median_of(
            lambda: process_ms([*shutbox_hw(), "sim", "--script", str(script)], env), 7)

        def empty_cache() -> None:
            for path in Path(tmp, "cache").glob("*/*"):
                path.unlink()

        extra["solve_12x_process_ms"] = median_of(lambda: process_ms(
            [*shutbox_hw(), "solve", "--rules", "crafthouse-12", "--set",
             "multiplication=true"], env, empty_cache), 5)
        extra["plain_dp_12x_ms"] = child("plain-dp")["ms"]

        config = Path(tmp) / "hints.toml"
        config.write_text('[rules]\npreset = "crafthouse-12"\n[game]\nhints = "always"\n')
        empty_cache()
        rss = child("rss", *shutbox_hw(), "sim", "--config", str(config), "--script",
                    str(ROOT / "tests/scripts/practice-001.txt"), env=env)
        if "error" in rss:
            raise SystemExit(f"benchmarks/run.py: {rss['error']}")
        figures["rss_mb"] = rss["mb"]

    # an absolute script path: run_once's tests/scripts/ prefix gives way to it
    figures["game_replay_ms"] = median_of(lambda: run_once(
        None, "klappenspiel", HERE / "four-player.txt", {"threshold": "10"})[0] * 1000, 5)
    extra["startup_target_ms"] = 3 * extra["python_pass_ms"]
    from world_time import measure as world_figures
    figures.update(world_figures())
    return figures, extra


def verdict(key: str, value: float, extra: dict[str, Any]) -> str:
    target, _, unit = FIGURES[key]
    if key == "startup_ms":
        target = extra["startup_target_ms"]
        text = f"<= {target:.0f} ms (3 x python -c pass)"
    elif key == "solve_12x_ms":
        ratio = extra["plain_dp_12x_ms"] / extra["solve_12x_process_ms"]
        return (f"one objective as a cold process {extra['solve_12x_process_ms']:.0f} ms, "
                f"plain-Python DP {extra['plain_dp_12x_ms']:.0f} ms: {ratio:.1f}x faster "
                f"(target >= 10x) {'ok' if ratio >= 10 else 'MISSED'}")
    elif key == "rss_mb":
        text = f"<= {target:g} MB (cold 12-tile solve included)"
    elif target is None:
        return "(no target)"
    else:
        text = f"<= {target:g} {unit}"
    return f"target {text} {'ok' if value <= target else 'MISSED'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("argv", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        modes = {"loop": loop_child, "plain-dp": plain_dp_child,
                 "rss": lambda: peak_rss_child(args.argv)}
        print(json.dumps(modes[args.child]()))
        return
    figures, extra = measure()
    if args.json:
        print(json.dumps({key: round(figures[key], 3) for key in FIGURES}))
        return
    print(f"python -c pass: {extra['python_pass_ms']:.1f} ms; latency from "
          f"{extra['latency_samples']} flap edges ({extra['latency_missed']} without an LED "
          f"change)")
    for key in FIGURES:
        print(f"{key:28s} {figures[key]:10.3f}  {verdict(key, figures[key], extra)}")
    print("from the debounce deadline to the LED, p50/p99 (us): shut (a durable write "
          "first) {:.0f}/{:.0f}, lift (none) {:.0f}/{:.0f}".format(
              *extra["after_deadline_shut_us"], *extra["after_deadline_lift_us"]))
    print("idle wake-ups a second by thread: " + ", ".join(
        f"{name} {rate:.0f}" for name, rate in sorted(extra["wakeups_by_thread"].items())))


if __name__ == "__main__":
    main()
