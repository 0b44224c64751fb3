"""firmware/dice/main.py, the glue to ``machine``, run under CPython against
fake ``machine`` and ``time`` modules: the pins it sets up, the I2C target it
serves, the LEDs and ready line it drives, and the watchdog it feeds."""

from __future__ import annotations

import builtins
import importlib
import types

import pytest

import shutbox_hw.dice_firmware as firmware
from shutbox_hw.dice_firmware import dice_anim as anim
from shutbox_hw.dice_firmware import dice_config as cfg
from shutbox_hw.dice_firmware import dice_regs as regs
from shutbox_hw.hal.simulated.dice_module import FIRMWARE_DIR


class Stop(Exception):
    pass


@pytest.fixture(autouse=True)
def flash(tmp_path, monkeypatch):
    """main.py keeps its boot counter in the current directory (the Pico's flash)."""
    monkeypatch.chdir(tmp_path)


class FakePin:
    IN, OUT, OPEN_DRAIN, PULL_UP = "in", "out", "open_drain", "pull_up"

    def __init__(self, board: Board, pin: int, mode: str | None = None, pull: str | None = None,
                 *, value: int | None = None) -> None:
        self.board, self.pin, self.mode, self.pull = board, pin, mode, pull
        self.level = 1 if value is None else value
        if mode is not None:
            board.pins[pin] = self

    def value(self, level: int | None = None) -> int | None:
        if level is None:
            return self.board.inputs.get(self.pin, 1)
        self.level = level
        return None


class Board:
    """A fake Pico: ``machine`` and ``time`` for main.py, and what it did."""

    def __init__(self, loops: int, on_loop=None, inputs: dict[int, int] | None = None) -> None:
        self.pins: dict[int, FakePin] = {}
        self.inputs = inputs or {}
        self.now = 0
        self.loops = loops
        self.on_loop = on_loop
        self.feeds = 0
        self.target: dict = {}
        self.deinit = False
        board = self

        class I2CTarget:
            def __init__(self, i2c_id, addr, *, mem, scl, sda):
                board.target = dict(id=i2c_id, addr=addr, mem=mem, scl=scl.pin, sda=sda.pin)

            def deinit(self):
                board.deinit = True

        class WDT:
            def __init__(self, *, timeout):
                board.wdt_timeout = timeout

            def feed(self):
                board.feeds += 1

        self.machine = types.SimpleNamespace(
            Pin=lambda *a, **k: FakePin(board, *a, **k), I2CTarget=I2CTarget, WDT=WDT)
        self.machine.Pin.IN, self.machine.Pin.OUT = FakePin.IN, FakePin.OUT
        self.machine.Pin.OPEN_DRAIN, self.machine.Pin.PULL_UP = FakePin.OPEN_DRAIN, FakePin.PULL_UP
        self.time = types.SimpleNamespace(ticks_ms=lambda: self.now,
                                          ticks_diff=lambda a, b: a - b, sleep_ms=self._sleep)

    def _sleep(self, ms: int) -> None:
        self.now += ms
        self.loops -= 1
        if self.on_loop:
            self.on_loop(self)
        if self.loops <= 0:
            raise Stop

    def leds(self, die: int) -> int:
        return sum(self.pins[p].level << i for i, p in enumerate(cfg.LED_PINS[die]))

    def run(self) -> None:
        """Execute main.py with our ``machine`` and ``time`` (until :class:`Stop`)."""
        fakes = {"machine": self.machine, "time": self.time}

        def fake_import(name, *args, **kwargs):
            if name in fakes:
                return fakes[name]
            if name.startswith("dice_"):    # the Pico's top-level modules: the packaged ones
                return importlib.import_module(f"{firmware.__name__}.{name}")
            return builtins.__import__(name, *args, **kwargs)

        env = {"__name__": "__main__", "__builtins__": {
            **vars(builtins), "__import__": fake_import, "print": lambda *a: None}}
        code = compile((FIRMWARE_DIR / "main.py").read_text(), "main.py", "exec")
        try:
            exec(code, env)
        except Stop:
            pass


def test_main_serves_the_memory_throws_on_request_and_feeds_the_watchdog():
    def pi(board: Board) -> None:
        mem = board.target["mem"]
        if board.now == 100:
            mem[regs.COUNT] = 2
            mem[regs.REQUEST] = regs.REQUEST_ROLL

    board = Board(loops=1000, on_loop=pi)
    board.run()
    assert board.loops == 0
    t = board.target
    assert (t["id"], t["addr"], t["sda"], t["scl"]) == (0, 0x42, 4, 5)
    mem = t["mem"]
    assert mem[:2] == b"SD" and mem[regs.STATUS] == regs.STATUS_READY and mem[regs.SEQ] == 1
    assert board.pins[cfg.READY_PIN].mode == FakePin.OPEN_DRAIN
    assert board.pins[cfg.READY_PIN].level == 1          # released again on the way out
    assert board.deinit and board.wdt_timeout == cfg.WATCHDOG_MS and board.feeds == 1000
    faces = mem[regs.FACE1], mem[regs.FACE2]
    assert (board.leds(0), board.leds(1)) == (anim.PIPS[faces[0]], anim.PIPS[faces[1]])
    for pin in (cfg.BUTTON_PIN, cfg.TILT_PIN):
        assert board.pins[pin].pull == FakePin.PULL_UP


def test_the_ready_line_is_low_while_a_result_waits():
    levels = []

    def pi(board: Board) -> None:
        mem = board.target["mem"]
        if board.now == 10:
            mem[regs.REQUEST] = regs.REQUEST_ROLL
        if board.now == 1500:
            mem[regs.ACK] = mem[regs.SEQ]
        levels.append(board.pins[cfg.READY_PIN].level)

    Board(loops=1000, on_loop=pi).run()
    low = [i for i, level in enumerate(levels) if level == 0]
    assert low and low == list(range(low[0], low[-1] + 1))     # one stretch
    assert 10 + sum(anim.TUMBLE_MS) <= 2 * low[0] + 2 <= 10 + sum(anim.TUMBLE_MS) + 10
    assert 2 * low[-1] + 2 == 1500


def test_holding_the_button_at_power_up_starts_nothing():
    board = Board(loops=10, inputs={cfg.BUTTON_PIN: 0})
    board.run()
    assert board.loops == 10        # returned at once, no loop
    assert board.target == {} and not hasattr(board, "wdt_timeout")
