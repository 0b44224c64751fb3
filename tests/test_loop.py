"""The event-driven loop: who wakes it, how long it sleeps, what a step does first.

No timed assertions: a loop that is not woken would sleep for minutes, so a
safety-net timeout of a few seconds tells "woken" from "not woken"; idle
wake-ups are counted over a virtual clock.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path

from gpiozero.pins.mock import MockFactory
from PIL import Image

from shutbox_hw.base.sdnotify import Notifier
from shutbox_hw.commands.box.run import build_real_box, serve
from shutbox_hw.config.config_file import load_config
from shutbox_hw.daemon.daemon import Daemon
from shutbox_hw.hal.adapters.display import OledDisplay
from shutbox_hw.hal.adapters.expander import ExpanderPins
from shutbox_hw.hal.adapters.gpio import PiPins
from shutbox_hw.hal.adapters.switches import Edge
from shutbox_hw.hal.contracts.clock import MonotonicClock, VirtualClock
from shutbox_hw.hal.contracts.poll import Waker
from shutbox_hw.hal.simulated import SimBus, SimMcp23017
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.store import Store

WAIT = 10          # seconds: only a safety net against a hang, never a measurement
FAR_MS = 600_000   # a deadline the tests never reach


def far_ahead_ms() -> int:
    """Ten minutes from now on the clock the Waker sleeps on."""
    return MonotonicClock().now_ms() + FAR_MS


def sleeping(waker: Waker) -> tuple[threading.Thread, list[bool]]:
    """A thread sleeping in ``wait_until`` ten minutes ahead; its result lands in the list."""
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(
        waker.wait_until(far_ahead_ms())), daemon=True)
    thread.start()
    return thread, result


def test_a_wake_before_the_wait_is_kept_once_and_extra_wakes_merge():
    waker = Waker()
    waker.wake()
    waker.wake()                         # a second wake before the loop waits: one step
    assert waker.wait_until(0) is True   # pending: returns at once, even past its deadline
    assert waker.wait_until(0) is False  # nothing pending, deadline passed: no sleep at all


def test_a_gpio_edge_wakes_a_loop_sleeping_until_a_far_deadline():
    factory = MockFactory()
    clock = VirtualClock(1000)
    waker = Waker()
    pins = PiPins({1: 5}, clock, factory, wake=waker.wake)
    try:
        thread, woken = sleeping(waker)
        factory.pin(5).drive_low()       # the flap shuts: gpiozero calls back
        thread.join(WAIT)
        assert woken == [True]
        assert pins.edges() == [Edge(1, True, 1000)]   # recorded before the wake-up
    finally:
        pins.close()
        factory.reset()


def test_the_expanders_int_line_wakes_the_loop():
    factory = MockFactory()
    clock = VirtualClock(500)
    waker = Waker()
    bus = SimBus(1)
    chip = SimMcp23017(int_pin=factory.pin(4))
    bus.attach(0x20, chip)
    pins = ExpanderPins(bus, clock, {1: 0}, int_pin=4, pin_factory=factory,
                        sleep=lambda s: None, wake=waker.wake)
    try:
        thread, woken = sleeping(waker)
        chip.set_input(0, False)         # the flap grounds GPA0: INT falls
        thread.join(WAIT)
        assert woken == [True]
        assert pins.timer.when == 500   # registered by the INT callback: read now
        assert Edge(1, True, 500) in pins.edges(500)
    finally:
        pins.close()
        factory.reset()


def test_a_signal_handler_wakes_the_main_thread_without_blocking():
    waker = Waker()
    seen: list[int] = []

    def handler(signum, frame):
        seen.append(signum)
        waker.wake()

    old = signal.signal(signal.SIGUSR1, handler)
    try:
        main = threading.main_thread().ident
        sender = threading.Timer(0.05, signal.pthread_kill, (main, signal.SIGUSR1))
        sender.start()
        # a deadline far ahead on the real clock: only the handler can end this wait
        assert waker.wait_until(far_ahead_ms()) is True
        sender.join(WAIT)
        assert seen == [signal.SIGUSR1]
    finally:
        signal.signal(signal.SIGUSR1, old)


class RecordingLock:
    """Stands in for the Waker's lock: records the timeouts it is asked to wait."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        self.timeouts.append(timeout if blocking else 0.0)
        return False


def test_the_sleep_is_to_the_nanosecond_not_rounded_to_whole_milliseconds():
    now_ns = [41_999_700]                    # 0.3 us before 42 ms
    waker = Waker(clock_ns=lambda: now_ns[0])
    lock = RecordingLock()
    waker._idle = lock                       # type: ignore[assignment]
    waker.wait_until(42)
    now_ns[0] = 41_250_000
    waker.wait_until(43)
    assert lock.timeouts == [300e-9, 1.75e-3]


# --- the run loop over a virtual clock ------------------------------------------------

def box_config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "box.toml"
    path.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{tmp_path}/db"\n'
                    + extra)
    return path


class VirtualSleep:
    """The loop's ``wait`` on a virtual clock: every call is one wake-up of the real
    loop, at its deadline (nothing else wakes an idle box); ``on_wait`` may play
    something that happens during the sleep and end it early."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.deadlines: list[int | None] = []
        self.on_wait = lambda deadline: False

    def __call__(self, deadline: int | None) -> None:
        self.deadlines.append(deadline)
        if self.on_wait(deadline):
            return                               # woken early by an edge
        assert deadline is not None, "the loop would sleep for ever"
        self.clock.set(max(deadline, self.clock.now_ms()))


def running_box(tmp_path: Path, extra: str = ""):
    config = load_config(box_config(tmp_path, extra))
    clock = VirtualClock(0)
    factory_box = build_real_box(config, clock, "mock", lambda: None)
    daemon = Daemon(config, factory_box, Store(tmp_path / "db"), clock)
    daemon.start()
    return config, clock, daemon


def test_an_idle_box_wakes_at_most_five_times_a_second_and_pings_the_watchdog(tmp_path):
    config, clock, daemon = running_box(tmp_path)
    notifier = Notifier({"WATCHDOG_USEC": "10000000"}, daemon.timers)   # a ping every 4.9 s
    pings: list[int] = []
    notifier.send = lambda message: pings.append(clock.now_ms()) or True   # type: ignore
    sleep = VirtualSleep(clock)
    try:
        serve(daemon, notifier, clock, sleep, until_ms=60_000)
    finally:
        daemon.box.close()
        daemon.store.close()
    assert config.hardware.read_interval_ms == 250
    # the periodic re-read of the pins (4 a second) and the watchdog: nothing else
    assert len(sleep.deadlines) <= 5 * 60
    assert len(pings) == 13 and pings[1] - pings[0] == 4900


def test_after_an_edge_the_loop_sleeps_exactly_until_the_debounce_window_ends(tmp_path):
    config, clock, daemon = running_box(tmp_path)
    factory = daemon.box.flaps._switches.sources[0]._devices[1].pin_factory  # type: ignore
    pin = config.hardware.flaps[0]
    sleep = VirtualSleep(clock)
    shut_at = 1010

    def edge_during_sleep(deadline: int | None) -> bool:
        if deadline is not None and deadline > shut_at and clock.now_ms() < shut_at:
            clock.set(shut_at)
            factory.pin(pin).drive_low()     # flap 1 shuts while the loop sleeps
            return True                      # ... and wakes it
        return False

    sleep.on_wait = edge_during_sleep
    try:
        serve(daemon, Notifier({}), clock, sleep, until_ms=2000)
        assert daemon.box.flaps.shut_mask() == 1
    finally:
        daemon.box.close()
        daemon.store.close()
    after = sleep.deadlines[sleep.deadlines.index(next(
        d for d in sleep.deadlines if d is not None and d > shut_at)) + 1]
    assert after == shut_at + config.hardware.debounce_ms


def test_a_lost_display_wakes_the_loop_so_its_fault_is_shown_at_once():
    woken = threading.Event()

    def missing() -> None:
        raise OSError(121, "Remote I/O error")

    display = OledDisplay(missing, wake=woken.set, attempts=1, sleep=lambda s: None)
    try:
        assert woken.wait(WAIT)
        faults = display.poll(0)
        assert [f.source for f in faults] == ["display"] and not faults[0].ok
    finally:
        display.close()


# --- within one step: stored, then lit, then shown --------------------------------------

def test_a_step_sets_the_lights_then_stores_then_renders_the_screen(tmp_path):
    """Lights first (issue 20): a shut flap is its own record, so its LED does not
    wait for the sync; the screen that says what was taken still does."""
    runner = SimRunner(load_config(), tmp_path / "db")
    daemon = runner.daemon
    order: list[str] = []
    record, lights, render = daemon.store.record_all, daemon.box.indicators.show, daemon.render

    def recording(events, tally=None, happened=None):
        order.extend(f"store {event.name}" for event in events)
        record(events, tally, happened)

    def lighting(frame, now):
        order.append("lights")
        lights(frame, now)

    def rendering(screen) -> Image.Image:
        order.append("render")
        return render(screen)

    daemon.store.record_all = recording          # type: ignore[method-assign]
    daemon.box.indicators.show = lighting        # type: ignore[method-assign]
    daemon.render = rendering
    runner.start_game(1)
    order.clear()
    runner.flap(9, True)                         # shut before the roll: rejected, red light
    assert order[:3] == ["lights", "store flap_rejected", "render"]
    runner.daemon.store.close()
