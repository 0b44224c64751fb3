"""The interactive simulator: the OLED and the lights drawn in a terminal.

Virtual time follows the wall clock here; everything else is the scripted
simulator's :class:`~.runner.SimRunner`, so what you play by hand is what
the tests play.
"""

from __future__ import annotations

import curses
import json
import textwrap
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from PIL import Image

from ..config import Config
from .runner import SimRunner

FLAP_KEYS = "1234567890-="   # tiles 1..12
HELP = "keys: 1-9 0 - = flap 1-12  r/R ROLL/hold  n/N NEXT/hold  s both: menu  q quit"
EVENTS_TOP = 21   # the events pane: from this row to the bottom of the terminal
BRAILLE_BASE = 0x2800
# dot numbering of a braille cell: (x, y) -> bit
BRAILLE_DOTS = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (1, 0): 0x08, (1, 1): 0x10,
                (1, 2): 0x20, (0, 3): 0x40, (1, 3): 0x80}


def braille_lines(image: Image.Image) -> list[str]:
    """A 1-bit image as braille characters: 2x4 pixels a character."""
    image = image.convert("1")
    width, height = image.size
    pixels = image.load()
    assert pixels is not None   # an image in memory always has its pixels
    lines = []
    for top in range(0, height, 4):
        chars = []
        for left in range(0, width, 2):
            code = 0
            for (dx, dy), bit in BRAILLE_DOTS.items():
                x, y = left + dx, top + dy
                if x < width and y < height and pixels[x, y]:
                    code |= bit
            chars.append(chr(BRAILLE_BASE + code))
        lines.append("".join(chars))
    return lines


def _lamp(state: bool) -> str:
    return "●" if state else "○"


def event_rows(log: Iterable[str], width: int, height: int) -> list[str]:
    """The newest events, each wrapped to ``width`` (never cut), filling ``height`` rows."""
    rows: list[str] = []
    for line in log:
        rows += textwrap.wrap(line, max(width, 10), subsequent_indent="  ") or [""]
    return rows[-height:] if height > 0 else []


def _draw(screen: Any, runner: SimRunner, log: deque[str]) -> None:
    screen.erase()
    tiles = runner.config.rules.tiles
    frame = runner.sim.last_frame()
    rows = braille_lines(frame) if frame is not None else ["(display off)"]
    screen.addstr(0, 0, "┌" + "─" * 64 + "┐")
    for i, row in enumerate(rows[:16]):
        screen.addstr(1 + i, 0, "│" + row.ljust(64) + "│")
    screen.addstr(17, 0, "└" + "─" * 64 + "┘")
    leds = runner.sim.lamp_states()
    flaps = "  ".join(f"{t}{'▮' if runner.sim.is_shut(t) else '▯'}{_lamp(leds.flaps[t - 1])}"
                      for t in range(1, tiles + 1))
    screen.addstr(18, 0, f"flaps: {flaps}")
    screen.addstr(19, 0, f"status: green {_lamp(leds.green)}  red {_lamp(leds.red)}")
    screen.addstr(20, 0, HELP[: max(10, curses.COLS - 1)])
    for i, line in enumerate(event_rows(log, curses.COLS - 1, curses.LINES - EVENTS_TOP)):
        screen.addstr(EVENTS_TOP + i, 0, line)
    screen.refresh()


def _loop(screen: Any, runner: SimRunner, log: deque[str]) -> None:
    curses.curs_set(0)
    screen.timeout(30)
    start = time.monotonic()
    tiles = runner.config.rules.tiles
    while True:
        wall = int((time.monotonic() - start) * 1000)
        runner.advance(wall - runner.world.now_ms())
        _draw(screen, runner, log)
        key = screen.getch()
        if key < 0:
            continue
        char = chr(key) if key < 256 else ""
        if char == "q":
            return
        if char and char in FLAP_KEYS and FLAP_KEYS.index(char) < tiles:
            tile = FLAP_KEYS.index(char) + 1
            runner.flap(tile, not runner.sim.is_shut(tile))
        elif char in ("r", "R"):
            runner.press("roll", long=char == "R")
        elif char in ("n", "N"):
            runner.press("next", long=char == "N")
        elif char == "s":
            runner.hold_both()


def run_terminal(config: Config, db: Path, *, seed: int | None,
                 frames_dir: Path | None, outbox: Callable[[], None] | None = None) -> int:
    log: deque[str] = deque(maxlen=6)
    runner = SimRunner(config, db, seed=seed if seed is not None else time.time_ns(),
                       on_event=lambda event: log.append(json.dumps(event)),
                       frames_dir=frames_dir, outbox=outbox)
    try:
        curses.wrapper(_loop, runner, log)
    except curses.error:
        print("shutbox-hw sim: the terminal is too small: 80 columns and 28 lines are needed")
        return 2
    except KeyboardInterrupt:
        pass
    print(f"game record kept in {db}")
    return 0
