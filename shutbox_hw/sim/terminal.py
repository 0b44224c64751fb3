"""The interactive simulator: the OLED and the lights drawn in a terminal.

Virtual time follows the wall clock here; everything else is the scripted
simulator's :class:`~.runner.SimRunner`, so what you play by hand is what
the tests play.
"""

from __future__ import annotations

import curses
import json
import logging
import sys
import textwrap
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PIL import Image

from ..config.config_file import Config
from ..skill.rater import RatingWorker
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


MIN_COLUMNS, MIN_LINES = 80, 28   # the box, its flaps and lights, the keys, some events


def _too_small(screen: Any) -> str | None:
    """What to ask for when the terminal cannot show the box (None: it can)."""
    lines, columns = screen.getmaxyx()
    if lines >= MIN_LINES and columns >= MIN_COLUMNS:
        return None
    return (f"make the terminal bigger: {MIN_COLUMNS}x{MIN_LINES} needed, now "
            f"{columns}x{lines}; the game goes on (q quits)")


def _draw(screen: Any, runner: SimRunner, log: deque[str]) -> None:
    screen.erase()
    lines, columns = screen.getmaxyx()
    ask = _too_small(screen)
    if ask is not None:
        # as much of the request as fits; the game is not drawn, and not stopped
        for i, row in enumerate(textwrap.wrap(ask, max(columns - 1, 1))[:max(lines, 1)]):
            _put(screen, i, row)
        screen.refresh()
        return
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
    screen.addstr(20, 0, HELP[: max(10, columns - 1)])
    for i, line in enumerate(event_rows(log, columns - 1, lines - EVENTS_TOP)):
        screen.addstr(EVENTS_TOP + i, 0, line)
    screen.refresh()


def _put(screen: Any, row: int, text: str) -> None:
    try:
        screen.addstr(row, 0, text)
    except curses.error:  # the last cell of a tiny window: what fits is shown
        pass


def _loop(screen: Any, runner: SimRunner, log: deque[str],
          clock: Callable[[], float] = time.monotonic) -> None:
    """Play until ``q``: keys move flaps and press buttons, the box is drawn
    after every step. A terminal too small for the box (at the start or made
    smaller mid-game) gets a request for a bigger one, and the game goes on."""
    screen.timeout(30)
    start = clock()
    tiles = runner.config.rules.tiles
    while True:
        wall = int((clock() - start) * 1000)
        runner.advance(wall - runner.world.now_ms())
        try:
            _draw(screen, runner, log)
        except curses.error:  # resized between measuring and drawing: next time
            pass
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


def _main(screen: Any, runner: SimRunner, log: deque[str]) -> None:
    try:
        curses.curs_set(0)
    except curses.error:  # a terminal that cannot hide its cursor
        pass
    _loop(screen, runner, log)


class PaneLog(logging.Handler):
    """While the box is drawn, the program's warnings (an MQTT broker out of reach,
    a display fault) go to the events pane as lines of their own: printed to the
    terminal they would land across the drawing (in the keys' line). They are
    printed again once the terminal is given back."""

    def __init__(self, pane: deque[str]) -> None:
        super().__init__(logging.WARNING)
        self.pane = pane
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = f"{record.levelname.lower()}: {record.getMessage()}"
        self.pane.append(text)
        if text not in self.said:
            self.said.append(text)


@contextmanager
def warnings_in_the_pane() -> Iterator[PaneLog]:
    """The program's warnings held for the events pane from now (before the MQTT
    publisher starts: its first word comes at once), printed once it is over."""
    pane = PaneLog(deque(maxlen=6))
    logger = logging.getLogger("shutbox_hw")
    logger.addHandler(pane)
    try:
        yield pane
    finally:
        logger.removeHandler(pane)
        for text in pane.said:
            print(f"shutbox-hw sim: {text}", file=sys.stderr)


def run_terminal(config: Config, db: Path, *, seed: int | None,
                 frames_dir: Path | None, kept: bool,
                 outbox: Callable[[], None] | None = None,
                 pane: PaneLog | None = None, rater: RatingWorker | None = None,
                 claims_path: str | None = None) -> int:
    """The interactive simulator; ``kept``: ``db`` outlives it (``--db``), so it is named.
    ``rater`` and ``claims_path``: the parts the box has beside it (:class:`SimRunner`);
    the rater's thread, not yet started, starts once the box has made its record (the
    caller stops it)."""
    log: deque[str] = pane.pane if pane is not None else deque(maxlen=6)
    runner = SimRunner(config, db, seed=seed if seed is not None else time.time_ns(),
                       on_event=lambda event: log.append(json.dumps(event)),
                       frames_dir=frames_dir, outbox=outbox, rater=rater,
                       claims_path=claims_path)
    if rater is not None:
        rater.start()
    if runner.claims_problem is not None:   # said in the pane, and again at the end
        logging.getLogger("shutbox_hw").warning("seats from a phone are off: %s",
                                                runner.claims_problem)
    try:
        curses.wrapper(_main, runner, log)
    except KeyboardInterrupt:
        pass
    finally:
        runner.close()
        runner.daemon.store.close()
    if kept:
        print(f"game record kept in {db}")
    return 0
