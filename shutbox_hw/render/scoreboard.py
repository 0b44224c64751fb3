"""The round's scoreboard (seed 001's scorecard as a screen) and the result.

Up to 4 players: one 10 px row each (name, raw score if any was doubled,
final score, and the match total, or in pool matches the balance: a pool
total means nothing to the players). 5..8 players cannot get 10 px rows
on 64 px, so they get two columns of 7 px rows with the total alone.
A shut box is a small filled square after the row, a player who is out an X.
"""

from __future__ import annotations

from PIL import ImageDraw

from ..game.screens import ResultScreen, ScoreboardScreen, ScoreRow
from . import text, widgets
from .fonts import Font, role
from .widgets import BOTTOM, RIGHT

COMPACT_FROM = 5         # this many rows or more: two columns of small rows
MARKS_W = 12             # room right of the last column for the X and the square


def _pool(rows: tuple[ScoreRow, ...]) -> bool:
    return any(r.balance is not None for r in rows)


def _last_value(r: ScoreRow, pool: bool) -> str:
    return widgets.number(r.balance, 4, signed=True) if pool else widgets.number(r.total, 4)


def _marks(canvas: ImageDraw.ImageDraw, r: ScoreRow, font: Font, x: int, y: int) -> None:
    """From ``x`` rightwards: a filled square for a player who shut the box,
    an X for one who is out (striking names through made them unreadable)."""
    size = min(font.height - 2, 5)
    top = y + (font.height - size) // 2
    if r.shut:
        canvas.rectangle((x, top, x + size - 1, top + size - 1), fill=1)
        x += size + 1
    if r.out:
        small = role("secondary")[0]
        text.draw(canvas, x, y + (font.height - small.height) // 2, "X", small)


def _column(canvas: ImageDraw.ImageDraw, x0: int, top: int, rows: tuple[ScoreRow, ...],
            pool: bool, pitch: int) -> None:
    """Half-width compact list: name, total (or balance), marks."""
    font, _ = role("secondary")
    value_right = x0 + 62 - MARKS_W
    y = top
    for r in rows:
        value = _last_value(r, pool)
        name = text.shorten(r.name, font, value_right - x0 - text.width(value, font) - 3)
        text.draw(canvas, x0, y, name, font)
        widgets.right_text(canvas, value_right, y, value, font)
        _marks(canvas, r, font, value_right + 1, y)
        y += pitch


def _columns(canvas: ImageDraw.ImageDraw, top: int, rows: tuple[ScoreRow, ...], pool: bool,
             pitch: int) -> None:
    half = (len(rows) + 1) // 2
    for col, part in enumerate((rows[:half], rows[half:])):
        _column(canvas, col * 65, top, part, pool, pitch)


def draw_scoreboard(canvas: ImageDraw.ImageDraw, s: ScoreboardScreen) -> None:
    pool = _pool(s.rows)
    small, _ = role("secondary")
    big, _ = role("scores")
    last = "balance" if pool else "total"
    doubled = any(r.raw != r.final for r in s.rows)
    wide = len(s.rows) < COMPACT_FROM and doubled     # three labelled columns
    text.draw(canvas, 0, 0, f"R{s.round}" if wide else f"ROUND {s.round}", small)
    if len(s.rows) >= COMPACT_FROM:
        # 5..8 players: two columns of name and total; the note and what to do below
        widgets.right_text(canvas, RIGHT, 0, last, small)
        canvas.line((0, 8, RIGHT - 1, 8), fill=1)
        _columns(canvas, 10, s.rows, pool, small.height + 1)
        prompt = widgets.prompt_lines(s.prompt, 1)
        top = widgets.footer(canvas, prompt) if prompt else BOTTOM
        if s.note:
            note = text.shorten(s.note, small, RIGHT)
            text.draw(canvas, text.centred_x(note, small, 0, RIGHT), top - small.height - 2,
                      note, small)
        return
    value_right = RIGHT - MARKS_W
    step = 42 if pool else 30          # "balance" is wider than "total"
    columns = [("final", value_right - step), (last, value_right)]
    if doubled:
        columns.insert(0, ("raw", value_right - step - 30))
    for label, right in columns:
        widgets.right_text(canvas, right, 0, label, small)
    canvas.line((0, 8, RIGHT - 1, 8), fill=1)
    pitch = big.height + (2 if len(s.rows) <= 2 else 1)
    name_right = columns[0][1] - text.width("999", big) - 3
    y = 10
    for r in s.rows:
        text.draw(canvas, 0, y, text.shorten(r.name, big, name_right), big)
        values = [widgets.number(r.final, 3), _last_value(r, pool)]
        if doubled:
            values.insert(0, widgets.number(r.raw, 3))
        for (_, right), value in zip(columns, values):
            widgets.right_text(canvas, right, y, value, big)
        _marks(canvas, r, big, value_right + 2, y)
        y += pitch
    # below the rows: the note (small), then what to do (10 px) when it fits
    room = BOTTOM - y
    prompt = widgets.prompt_lines(s.prompt, 1)
    fits_both = room >= small.height + 1 + role("prompt")[0].height + 1
    top = widgets.footer(canvas, prompt) if prompt and (fits_both or not s.note) else BOTTOM
    if s.note:
        note = text.shorten(s.note, small, RIGHT)
        text.draw(canvas, text.centred_x(note, small, 0, RIGHT), top - small.height - 2, note,
                  small)


def draw_result(canvas: ImageDraw.ImageDraw, s: ResultScreen) -> None:
    """Who won, inverted and 10 px (the line the whole pub looks at), then
    everyone's total (or balance) in two columns, then what to do."""
    pool = _pool(s.rows)
    font, _ = role("winner")
    label = "WINNER" if len(s.winners) == 1 else "WINNERS"
    names = ", ".join(s.winners)
    one_line = f"{label}: {names}" if s.winners else "STOPPED: NO WINNER"
    if text.width(one_line, font) <= RIGHT - 4 or not s.winners:
        widgets.bar(canvas, 0, [one_line], bottom=font.height + 1, font=font)
        rows_top = font.height + 4
    else:
        widgets.bar(canvas, 0, [label], bottom=font.height + 1, font=font)
        line = text.shorten(names, font, RIGHT)
        text.draw(canvas, text.centred_x(line, font, 0, RIGHT), font.height + 3, line, font)
        rows_top = 2 * font.height + 5
    small, _ = role("secondary")
    prompt = widgets.prompt_lines(s.prompt, 1)
    bottom = BOTTOM - (role("prompt")[0].height + 2 if prompt else 0)
    if len(s.rows) < 4 and rows_top + len(s.rows) * (font.height + 2) <= bottom:
        # two or three players: everyone's figure as big as the winner's
        y = rows_top + 1
        for r in s.rows:
            _row(canvas, r, font, y, pool)
            y += font.height + 2
    elif len(s.rows) < COMPACT_FROM and rows_top + len(s.rows) * (small.height + 2) <= bottom:
        y = rows_top
        for r in s.rows:
            _row(canvas, r, small, y, pool)
            y += small.height + 2
    else:
        per_column = (len(s.rows) + 1) // 2
        pitch = small.height + 2
        if rows_top + per_column * pitch - 1 > bottom:
            pitch = small.height + 1
        _columns(canvas, rows_top, s.rows, pool, pitch)
        if rows_top + per_column * pitch > bottom + 1:
            return                      # no room left for the prompt (long winners' names)
    if prompt:
        widgets.footer(canvas, prompt)


def _row(canvas: ImageDraw.ImageDraw, r: ScoreRow, font: Font, y: int, pool: bool) -> None:
    """One full-width result row: name, total (or balance), marks."""
    value_right = RIGHT - MARKS_W - 8
    value = _last_value(r, pool)
    name = text.shorten(r.name, font, value_right - text.width(value, font) - 4)
    text.draw(canvas, 0, y, name, font)
    widgets.right_text(canvas, value_right, y, value, font)
    _marks(canvas, r, font, value_right + 3, y)
