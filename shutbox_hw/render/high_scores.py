"""A high-score table on the idle screen: rows 0..30, like tonight's figures.

A label between two rules says which table of which period ("tonight: best
turn"), then the first two places in the 10 px figures font, each "1 Anna"
with its figure at the right; a name too long is shortened, never the figure.
``left`` leaves the panel's left part to something else (the join page's QR
code): the table is drawn in columns ``left``..126 only.
"""

from __future__ import annotations

from PIL import ImageDraw

from ..base.events import HighScores
from ..base.i18n import N_, tr
from ..words.numbers import decimal
from . import text
from .fonts import role
from .widgets import RIGHT

PERIODS = {"tonight": N_("tonight"), "week": N_("this week"), "all_time": N_("all time")}
KINDS = {"best_turn": N_("best turn"), "boxes_shut": N_("boxes shut"),
         "wins": N_("most wins"), "accuracy": N_("best moves")}
ROWS = (9, 21)      # the places' top rows (two of them)


def label(table: HighScores) -> str:
    return tr("{period}: {table}").format(period=tr(PERIODS.get(table.period, table.period)),
                                          table=tr(KINDS.get(table.kind, table.kind)))


def figure(table: HighScores, value: float) -> str:
    """A place's figure as the language writes it ("96,2%" in German and Italian)."""
    return f"{decimal(value)}%" if table.kind == "accuracy" else decimal(value)


def place_lines(table: HighScores, width: int) -> list[tuple[str, str]]:
    """The first places as (rank and name, figure), the name shortened to fit ``width``."""
    font, scale = role("figures")
    lines = []
    for rank, (name, value) in enumerate(table.entries[:len(ROWS)], start=1):
        shown = figure(table, value)
        room = width - text.width(f"{rank} ", font, scale) - text.width(shown, font, scale) \
            - 3 * scale
        lines.append((f"{rank} " + text.shorten(name, font, room, scale), shown))
    return lines


def draw_high_score(canvas: ImageDraw.ImageDraw, table: HighScores, left: int = 0) -> None:
    small, _ = role("secondary")
    words = text.shorten(label(table), small, RIGHT - left)
    w = text.width(words, small)
    x = text.centred_x(words, small, left, RIGHT)
    text.draw(canvas, x, 0, words, small)
    if x - 4 > left:
        canvas.line((left, 3, x - 4, 3), fill=1)
        canvas.line((x + w + 3, 3, RIGHT - 1, 3), fill=1)
    font, scale = role("figures")
    for y, (who, shown) in zip(ROWS, place_lines(table, RIGHT - left), strict=False):
        text.draw(canvas, left, y, who, font, scale)
        text.draw(canvas, RIGHT - text.width(shown, font, scale), y, shown, font, scale)
