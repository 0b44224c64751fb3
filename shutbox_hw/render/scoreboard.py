"""The round's scoreboard (seed 001's scorecard as a screen) and the result.

Up to 4 players: one 10 px row each (name, raw score if any was doubled,
final score, and the match total, or in pool matches the balance: a pool
total means nothing to the players), under column heads kept apart by a
clear gap. 5..8 players cannot get 10 px rows on 64 px, so they get two
columns of 7 px rows: name, the round's score and the total, in narrow
digits so the names keep their room.
A shut box is a small filled square after the row, a player who is out an X;
a legend ("[] shut  X out", with the marks themselves) says so wherever a
mark is shown: on a line of its own when there is room, else in the header
or beside the note.
"""

from __future__ import annotations

from dataclasses import replace

from PIL import ImageDraw

from ..base.i18n import N_, tr
from ..game.display.screens import ResultScreen, ScoreboardScreen, ScoreRow
from . import text, widgets
from .fonts import NARROW, Font, role
from .widgets import BOTTOM, RIGHT

COMPACT_FROM = 5         # this many rows or more: two columns of small rows
MARKS_W = 12             # room right of the last column for the X and the square
COL_GAP = 6              # at least this between two column heads ("final total")
LEGEND_GAP = 5           # between the legend's two entries
MARK_ADVANCE = 6         # a legend mark and the space after it


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


def _legend_items(rows: tuple[ScoreRow, ...]) -> list[ScoreRow]:
    """One sample row per mark shown: the legend draws the mark, then its word."""
    items = []
    if any(r.shut for r in rows):
        items.append(ScoreRow(tr("shut"), None, None, 0, shut=True))
    if any(r.out for r in rows):
        items.append(ScoreRow(tr("out"), None, None, 0, out=True))
    return items


def legend_width(rows: tuple[ScoreRow, ...]) -> int:
    small, _ = role("secondary")
    items = _legend_items(rows)
    if not items:
        return 0
    return sum(MARK_ADVANCE + text.width(i.name, small) for i in items) \
        + LEGEND_GAP * (len(items) - 1)


def _legend(canvas: ImageDraw.ImageDraw, rows: tuple[ScoreRow, ...], x: int, y: int) -> None:
    """"[] shut  X out" with the very marks the rows carry, from ``x``."""
    small, _ = role("secondary")
    for item in _legend_items(rows):
        _marks(canvas, item, small, x, y)
        x += MARK_ADVANCE
        text.draw(canvas, x, y, item.name, small)
        x += text.width(item.name, small) + LEGEND_GAP


def _note(canvas: ImageDraw.ImageDraw, note: str, y: int, legend_of: tuple[ScoreRow, ...] = (),
          names: tuple[str, ...] = ()) -> None:
    """The note centred on row ``y``, with the legend of ``legend_of`` beside it
    (a name in the note is shortened before its words are)."""
    small, _ = role("secondary")
    lw = legend_width(legend_of)
    room = RIGHT - (lw + LEGEND_GAP if lw else 0)
    shown = text.shorten_names(note, names, small, room) if note else ""
    total = text.width(shown, small) + (lw + LEGEND_GAP if lw and shown else lw)
    x = (RIGHT - total) // 2
    if shown:
        text.draw(canvas, x, y, shown, small)
        x += text.width(shown, small) + LEGEND_GAP
    if lw:
        _legend(canvas, legend_of, x, y)


def _names(rows: tuple[ScoreRow, ...]) -> tuple[str, ...]:
    return tuple(r.name for r in rows)


def _fits_beside(note: str, rows: tuple[ScoreRow, ...]) -> bool:
    """Whether the note and the legend fit one line with the note whole."""
    small, _ = role("secondary")
    return text.width(note, small) + LEGEND_GAP + legend_width(rows) <= RIGHT


Rows = tuple[ScoreRow, ...]


def _place_legend(rows: Rows, own_line: bool, note: str, number: int,
                  header_room: int) -> tuple[Rows, Rows, Rows]:
    """Where the legend goes: (on a line of its own, beside the note, in the
    header), each given as the rows whose marks it explains there. Whole in the
    first place that takes it; else split, one mark in the header and the other
    beside the note; else (no room anywhere) not at all."""
    none: Rows = ()
    if not _legend_items(rows):
        return none, none, none
    if own_line:
        return rows, none, none
    if not note or _fits_beside(note, rows):
        return none, rows, none
    small, _ = role("secondary")
    label_w = text.width(tr("R{round}").format(round=number), small) + LEGEND_GAP

    def in_header(part: Rows) -> bool:
        return label_w + legend_width(part) <= header_room
    if in_header(rows):
        return none, none, rows
    shut = tuple(r for r in rows if r.shut)
    out = tuple(r for r in rows if r.out and not r.shut)
    for first, second in ((shut, out), (out, shut)):
        if first and second and in_header(first) and _fits_beside(note, second):
            return none, second, first
    return none, none, none


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


def _score_column(canvas: ImageDraw.ImageDraw, x0: int, top: int, rows: tuple[ScoreRow, ...],
                  pool: bool, pitch: int) -> None:
    """Half-width scoreboard list: name, the round's score and the total (or
    balance) in narrow digits, marks."""
    font, _ = role("secondary")
    total_right = x0 + 62 - MARKS_W + 6
    score_right = total_right - text.width("999", NARROW) - 4
    name_room = score_right - x0 - text.width("99", NARROW) - 5
    y = top
    for r in rows:
        score = widgets.number(r.final, 3)
        name = text.shorten(r.name, font, name_room)
        text.draw(canvas, x0, y, name, font)
        widgets.right_text(canvas, score_right, y, score, NARROW)
        widgets.right_text(canvas, total_right, y, _last_value(r, pool), NARROW)
        _marks(canvas, r, font, total_right + 1, y)
        y += pitch


def _compact_scoreboard(canvas: ImageDraw.ImageDraw, s: ScoreboardScreen, pool: bool) -> None:
    """5..8 players: two columns of name, score and total; the note, the
    legend and what to do below."""
    small, _ = role("secondary")
    last = tr("balance") if pool else tr("total")
    half = (len(s.rows) + 1) // 2
    pitch = small.height + 1
    for col, part in enumerate((s.rows[:half], s.rows[half:])):
        _score_column(canvas, col * 65, 10, part, pool, pitch)
    prompt = widgets.prompt_lines(s.prompt, 1)
    top = widgets.footer(canvas, prompt) if prompt else BOTTOM
    note_y = top - small.height - 2
    heads_left = widgets.right_text(canvas, RIGHT, 0, tr("score, {last}").format(last=last),
                                    small) - COL_GAP
    # 5-6 players leave a free line above the note
    own, beside, header = _place_legend(
        s.rows, note_y - (small.height + 1) >= 10 + half * pitch, s.note, s.round, heads_left)
    _round_label(canvas, s.round, heads_left, header)
    canvas.line((0, 8, RIGHT - 1, 8), fill=1)
    if s.note or beside:
        _note(canvas, s.note, note_y, beside, _names(s.rows))
    if own:
        _legend(canvas, own, (RIGHT - legend_width(own)) // 2,
                note_y - (small.height + 1) if s.note else note_y)


def _round_label(canvas: ImageDraw.ImageDraw, number: int, room: int,
                 legend_of: tuple[ScoreRow, ...]) -> bool:
    """The round at the header's left, in the ``room`` pixels there: "ROUND 3", or
    "R3" when that leaves room for the legend of ``legend_of`` (or when "ROUND 3"
    does not fit at all). Returns whether the legend went there too."""
    small, _ = role("secondary")
    labels = (tr("ROUND {round}").format(round=number), tr("R{round}").format(round=number))
    if _legend_items(legend_of):
        for label in labels:
            label_w = text.width(label, small)
            if label_w + LEGEND_GAP + legend_width(legend_of) <= room:
                text.draw(canvas, 0, 0, label, small)
                _legend(canvas, legend_of, label_w + LEGEND_GAP, 0)
                return True
    label = labels[0] if text.width(labels[0], small) <= room else labels[1]
    text.draw(canvas, 0, 0, label, small)
    return False


def _column_rights(pool: bool, doubled: bool) -> list[tuple[str, int]]:
    """The heads and the right edges of the wide layout's number columns, each
    head at least ``COL_GAP`` clear of the next ("final total", not "finaltotal")."""
    small, _ = role("secondary")
    big, _ = role("scores")
    # "final" only beside "raw" (something was doubled): else the round's points
    labels = ([N_("raw"), N_("final")] if doubled else [N_("pts")]) + [
        N_("balance") if pool else N_("total")]
    samples = {"raw": "999", "final": "999", "pts": "999", "total": "9999",
               "balance": "+999"}
    right = RIGHT - MARKS_W
    columns: list[tuple[str, int]] = []
    for label in reversed(labels):
        columns.insert(0, (label, right))
        right -= max(text.width(tr(label), small), text.width(samples[label], big)) + COL_GAP
    return columns


def draw_scoreboard(canvas: ImageDraw.ImageDraw, s: ScoreboardScreen) -> None:
    pool = _pool(s.rows)
    if len(s.rows) >= COMPACT_FROM:
        _compact_scoreboard(canvas, s, pool)
        return
    small, _ = role("secondary")
    big, _ = role("scores")
    doubled = any(r.raw != r.final for r in s.rows)
    columns = _column_rights(pool, doubled)
    for label, right in columns:
        widgets.right_text(canvas, right, 0, tr(label), small)
    canvas.line((0, 8, RIGHT - 1, 8), fill=1)
    pitch = big.height + (2 if len(s.rows) <= 2 else 1)
    name_right = columns[0][1] - text.width("999", big) - 3
    y = 10
    for r in s.rows:
        text.draw(canvas, 0, y, text.shorten(r.name, big, name_right), big)
        values = [widgets.number(r.final, 3), _last_value(r, pool)]
        if doubled:
            values.insert(0, widgets.number(r.raw, 3))
        for (_, right), value in zip(columns, values, strict=False):
            widgets.right_text(canvas, right, y, value, big)
        _marks(canvas, r, big, RIGHT - MARKS_W + 2, y)
        y += pitch
    # below the rows: the legend (on a line of its own when there is room,
    # else beside the note, else in the header), the note (small), then what
    # to do (10 px) when it fits
    room = BOTTOM - y
    prompt = widgets.prompt_lines(s.prompt, 1)
    line = small.height + 1
    need = role("prompt")[0].height + 1 + (line if s.note else 0)
    heads_left = columns[0][1] - text.width(tr(columns[0][0]), small) - COL_GAP
    own, beside, header = _place_legend(s.rows, room >= need + line, s.note, s.round,
                                        heads_left)
    _round_label(canvas, s.round, heads_left, header)
    fits_both = room >= line + role("prompt")[0].height + 1
    top = widgets.footer(canvas, prompt) if prompt and (fits_both or not s.note) else BOTTOM
    if s.note or beside:
        _note(canvas, s.note, top - small.height - 2, beside, _names(s.rows))
        top -= line
    if own:
        _legend(canvas, own, (RIGHT - legend_width(own)) // 2, top - small.height - 2)


def draw_result(canvas: ImageDraw.ImageDraw, s: ResultScreen) -> None:
    """Who won, inverted and 10 px (the line the whole pub looks at), then
    everyone's total (or balance) in two columns, then what to do."""
    pool = _pool(s.rows)
    font, _ = role("winner")
    label = tr("WINNER") if len(s.winners) == 1 else tr("WINNERS")
    names = ", ".join(s.winners)
    one_line = (tr("{label}: {names}").format(label=label, names=names) if s.winners
                else tr("STOPPED: NO WINNER"))
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
    rows, legend_y = _result_legend(s, font, small, rows_top, bottom)
    if legend_y is not None:
        bottom = legend_y - 1
        _legend(canvas, rows, (RIGHT - legend_width(rows)) // 2, legend_y)
    s = replace(s, rows=rows)
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


def _result_legend(s: ResultScreen, font: Font, small: Font, rows_top: int,
                   bottom: int) -> tuple[tuple[ScoreRow, ...], int | None]:
    """The result's marks with their legend ("[] shut  X out") on a line of its own
    above the prompt, where the rows leave room for it; else the rows without
    marks: never a mark the screen does not explain."""
    if not _legend_items(s.rows):
        return s.rows, None
    line = small.height + 2
    big = len(s.rows) < 4 and rows_top + len(s.rows) * (font.height + 2) <= bottom - line
    if big or (len(s.rows) < COMPACT_FROM
               and rows_top + len(s.rows) * (small.height + 2) <= bottom - line):
        return s.rows, bottom - small.height
    return tuple(replace(r, shut=False, out=False) for r in s.rows), None


def _row(canvas: ImageDraw.ImageDraw, r: ScoreRow, font: Font, y: int, pool: bool) -> None:
    """One full-width result row: name, total (or balance), marks."""
    value_right = RIGHT - MARKS_W - 8
    value = _last_value(r, pool)
    name = text.shorten(r.name, font, value_right - text.width(value, font) - 4)
    text.draw(canvas, 0, y, name, font)
    widgets.right_text(canvas, value_right, y, value, font)
    _marks(canvas, r, font, value_right + 3, y)
