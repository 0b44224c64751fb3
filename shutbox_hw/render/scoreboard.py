"""The round's scoreboard (seed 001's scorecard as a screen) and the result.

Up to 4 players get the 5x7 font, one 9 px row each; 5..8 players the
3x5 capitals in 6 px rows, since nothing can scroll.  Columns: raw score,
final score after doubling, and the match total, or in pool matches the
balance instead of the total (a pool total means nothing to the players).
A shut box is a small filled square after the row, a player who is out an X.
"""

from __future__ import annotations

from PIL import ImageDraw

from ..game.screens import ResultScreen, ScoreboardScreen, ScoreRow
from . import text, widgets
from .fonts import SMALL, TINY, Font
from .widgets import HEIGHT, WIDTH

COMPACT_FROM = 5         # this many rows or more: the 3x5 layout


def _pool(rows: tuple[ScoreRow, ...]) -> bool:
    return any(r.balance is not None for r in rows)


def _last_value(r: ScoreRow, pool: bool) -> str:
    return widgets.number(r.balance, 4, signed=True) if pool else widgets.number(r.total, 4)


def _marks(canvas: ImageDraw.ImageDraw, r: ScoreRow, font: Font, y: int) -> None:
    """At the row's right end: an X for a player who is out, a filled
    square for one who shut the box (striking names through made them
    unreadable in the 3x5 font)."""
    x = WIDTH - 1
    if r.out:
        x = widgets.right_text(canvas, x + 1, y, "X", font) - 2
    if r.shut:
        size = font.height - 2
        canvas.rectangle((x - size + 1, y + 1, x, y + size), fill=1)


def _table(canvas: ImageDraw.ImageDraw, top: int, rows: tuple[ScoreRow, ...],
           columns: list[tuple[str, int]], values, name_right: int) -> int:
    """Header labels and one row per player; returns the y below the table.

    ``columns`` are (label, right edge) pairs, ``values(row)`` the strings
    for them, so the scoreboard and the result share one layout."""
    compact = len(rows) >= COMPACT_FROM
    font = TINY if compact else SMALL
    pitch = font.height + (1 if compact else 2)
    for label, right in columns:
        widgets.right_text(canvas, right, top, label, TINY)
    canvas.line((0, top + 6, WIDTH - 1, top + 6), fill=1)
    y = top + 8
    for r in rows:
        name = text.shorten(r.name, font, name_right)
        text.draw(canvas, 0, y, name, font)
        for (label, right), value in zip(columns, values(r)):
            widgets.right_text(canvas, right, y, value, font)
        _marks(canvas, r, font, y)
        y += pitch
    return y


def draw_scoreboard(canvas: ImageDraw.ImageDraw, s: ScoreboardScreen) -> None:
    pool = _pool(s.rows)
    columns = [("RAW", 68), ("FINAL", 92), ("BAL" if pool else "TOTAL", 116)]
    text.draw(canvas, 0, 0, f"ROUND {s.round}", TINY)

    def values(r: ScoreRow) -> list[str]:
        return [widgets.number(r.raw, 3), widgets.number(r.final, 3), _last_value(r, pool)]

    _table(canvas, 0, s.rows, columns, values, name_right=44)
    bottom = [s.note] if s.note else []
    if s.prompt and (len(s.rows) < COMPACT_FROM or not bottom):
        bottom.append(s.prompt)
    y = HEIGHT - (SMALL.height + 1) * len(bottom)
    for line in bottom:
        widgets.footer(canvas, line, y)
        y += SMALL.height + 1


def draw_result(canvas: ImageDraw.ImageDraw, s: ResultScreen) -> None:
    pool = _pool(s.rows)
    # who won, as big as it fits: the line the whole pub looks at
    label = "WINNER" if len(s.winners) == 1 else "WINNERS"
    widgets.bar(canvas, 0, [label], bottom=8)
    names = " ".join(s.winners)
    if text.width(names, SMALL, 2, 1) <= WIDTH:
        big, scale, spacing = text.fit_big(names, SMALL, WIDTH)
        text.draw(canvas, text.centred_x(big, SMALL, 0, WIDTH, scale, spacing), 10, big,
                  SMALL, scale, spacing=spacing)
    else:
        for i, line in enumerate(text.wrap(names, SMALL, WIDTH, 2)):
            text.draw(canvas, text.centred_x(line, SMALL, 0, WIDTH), 10 + i * 8, line, SMALL)

    def values(r: ScoreRow) -> list[str]:
        return [_last_value(r, pool)]

    top = 25
    rows = s.rows
    if len(rows) < COMPACT_FROM:
        y = top
        for r in rows:
            text.draw(canvas, 0, y, text.shorten(r.name, SMALL, 90), SMALL)
            widgets.right_text(canvas, 116, y, _last_value(r, pool))
            _marks(canvas, r, SMALL, y)
            y += SMALL.height + 1
    else:
        # two columns of up to four players each
        half = (len(rows) + 1) // 2
        for col, part in enumerate((rows[:half], rows[half:])):
            _column(canvas, col * (WIDTH // 2), top + 1, part, pool)
    widgets.footer(canvas, s.prompt)


def _column(canvas: ImageDraw.ImageDraw, x0: int, top: int, rows: tuple[ScoreRow, ...],
            pool: bool) -> None:
    """Half-width compact list: name, total (or balance), marks."""
    y = top
    for r in rows:
        name = text.shorten(r.name, TINY, 34)  # 8 letters; the total needs the rest
        text.draw(canvas, x0, y, name, TINY)
        widgets.right_text(canvas, x0 + 54, y, _last_value(r, pool), TINY)
        if r.out:
            text.draw(canvas, x0 + 56, y, "X", TINY)
        if r.shut:
            canvas.rectangle((x0 + 56, y + 1, x0 + 58, y + 3), fill=1)
        y += 7
