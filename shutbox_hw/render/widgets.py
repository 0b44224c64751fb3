"""The drawn pieces screens share: dice, the row of flaps, bars of text.

Every screen draws inside columns 0..126 and rows 0..62 (``RIGHT`` and
``BOTTOM`` are exclusive): the last column and row stay blank, so the
display's burn-in orbit (one pixel right and down, only into blank edges)
can always move the picture and never cuts it.
"""

from __future__ import annotations

from collections.abc import Set

from PIL import ImageDraw

from ..base.i18n import tr
from . import text
from .fonts import LARGE, NARROW, SMALL, Font, role

WIDTH, HEIGHT = 128, 64
RIGHT, BOTTOM = WIDTH - 1, HEIGHT - 1   # exclusive bounds of what is drawn
DIE = 18                 # die edge in pixels: pips countable from a bar stool
TILE_H = 10              # height of a flap slot


def _pip_spots(face: int) -> list[tuple[int, int]]:
    """Pip positions on a 3x3 grid (column, row) for a die face."""
    corners = [(0, 0), (2, 2), (2, 0), (0, 2)]
    return {
        1: [(1, 1)],
        2: corners[:2],
        3: corners[:2] + [(1, 1)],
        4: corners,
        5: corners + [(1, 1)],
        6: corners + [(0, 1), (2, 1)],
    }[face]


def pip_size(size: int) -> int:
    return max(2, size // 5)


def die(canvas: ImageDraw.ImageDraw, x: int, y: int, face: int | None, size: int = DIE) -> None:
    """A die: a lit square with dark pips, or an outline with "?" if unknown.

    Corners are cut by hand (not rounded_rectangle) so the pixels cannot
    change with Pillow's anti-aliasing-free arc code between releases."""
    x1, y1 = x + size - 1, y + size - 1
    corners = [(x, y), (x1, y), (x, y1), (x1, y1)]
    if face is None:
        canvas.rectangle((x, y, x1, y1), outline=1, fill=0)
        canvas.point(corners, fill=0)
        font = LARGE if size >= LARGE.height + 4 else SMALL
        q = "?"
        text.draw(canvas, x + (size - text.width(q, font)) // 2,
                  y + (size - font.height) // 2, q, font)
        return
    canvas.rectangle((x, y, x1, y1), fill=1)
    canvas.point(corners, fill=0)
    pip = pip_size(size)
    grid = (3, (size - pip) // 2, size - 3 - pip)
    for col, row in _pip_spots(face):
        px, py = x + grid[col], y + grid[row]
        canvas.rectangle((px, py, px + pip - 1, py + pip - 1), fill=0)


def tile_row(canvas: ImageDraw.ImageDraw, y: int, numbers: list[int], open_tiles: Set[int],
             hint: Set[int] = frozenset(), left: int = 0, right: int = RIGHT) -> None:
    """One slot per flap across [left, right): open flaps show their number,
    shut flaps a low bar (the flap lying down), hinted flaps are inverted.

    Up to 9 slots use the 5x7 digits; 10..12 slots use the 3x7 narrow
    digits for the whole row so it reads evenly (their "1" is 2 px wide, so
    the gap between two flaps stays clearly wider than inside a number)."""
    if not numbers:
        return
    n = len(numbers)
    slot = min(14, (right - left) // n)
    x = left + ((right - left) - slot * n) // 2
    font = SMALL if max(numbers) < 10 and slot >= 9 else NARROW
    for number in numbers:
        label = str(number)
        if number in hint:
            canvas.rectangle((x, y, x + slot - 2, y + TILE_H - 1), fill=1)
        if number in open_tiles or number in hint:
            lx = x + (slot - 1 - text.width(label, font)) // 2
            text.draw(canvas, lx, y + 1, label, font, fill=0 if number in hint else 1)
        else:
            canvas.rectangle((x + 1, y + TILE_H - 2, x + slot - 3, y + TILE_H - 1), fill=1)
        x += slot


def lines_height(n: int, font: Font, scale: int = 1, gap: int = 1) -> int:
    return n * font.height * scale + (n - 1) * gap if n else 0


def centred_lines(canvas: ImageDraw.ImageDraw, top: int, bottom: int, lines: list[str],
                  font: Font, scale: int = 1, gap: int = 1, fill: int = 1) -> None:
    """``lines`` centred across the screen and between rows ``top``..``bottom``."""
    y = top + max(0, (bottom - top + 1 - lines_height(len(lines), font, scale, gap)) // 2)
    for line in lines:
        text.draw(canvas, text.centred_x(line, font, 0, RIGHT, scale), y, line, font, scale,
                  fill=fill)
        y += font.height * scale + gap


def bar(canvas: ImageDraw.ImageDraw, top: int, lines: list[str], bottom: int = BOTTOM - 1,
        font: Font | None = None, gap: int = 1) -> None:
    """An inverted bar from ``top`` to ``bottom`` with centred dark text:
    the one style that says "fix this" (or "press this") on the whole screen."""
    font = font or role("message")[0]
    canvas.rectangle((0, top, RIGHT - 1, bottom), fill=1)
    centred_lines(canvas, top, bottom, lines, font, gap=gap, fill=0)


def shut_the_box() -> list[str]:
    """The game's cry, on two lines of 14 px capitals."""
    return tr("SHUT THE\nBOX!").split("\n")


def prompt_lines(prompt: str, max_lines: int) -> list[str]:
    """What to do, wrapped in the prompt's font to the drawable width."""
    font, scale = role("prompt")
    return text.wrap(prompt, font, RIGHT, max_lines, scale) if prompt else []


def footer(canvas: ImageDraw.ImageDraw, lines: list[str], bottom: int = BOTTOM - 1,
           gap: int = 1) -> int:
    """Prompt lines (already wrapped) centred, the last ending on ``bottom``;
    returns the top row they took."""
    font, scale = role("prompt")
    top = bottom + 1 - lines_height(len(lines), font, scale, gap)
    centred_lines(canvas, top, bottom, lines, font, scale, gap)
    return top


def right_text(canvas: ImageDraw.ImageDraw, right: int, y: int, s: str, font: Font = SMALL,
               scale: int = 1, fill: int = 1) -> int:
    """Draw ``s`` ending at x = right - 1 (numbers in columns); returns its left x."""
    x = right - text.width(s, font, scale)
    text.draw(canvas, x, y, s, font, scale, fill)
    return x


def number(n: int | None, digits: int, signed: bool = False) -> str:
    """A score in at most ``digits`` characters: "-" for none, then k/M
    suffixes for the huge numbers digit scoring can make (123456789)."""
    if n is None:
        return "-"
    s = f"{n:+d}" if signed and n else str(n)
    for div, suffix in ((1000, "k"), (1_000_000, "M"), (1_000_000_000, "G")):
        if len(s) <= digits or abs(n) < div:
            break
        s = f"{int(n / div)}{suffix}"
    return s
