"""Screens of a few lines: idle (attract, with tonight's figures when it
has them), a question, a problem notice, and the shut box's moment."""

from __future__ import annotations

from PIL import ImageDraw

from ..base.events import Tonight
from ..base.i18n import ngettext, tr
from ..game.display.screens import AttractScreen, ConfirmScreen, NoticeScreen, ShutScreen
from . import text, widgets
from .fonts import Font, role
from .high_scores import draw_high_score
from .join_screen import draw_attract_qr
from .widgets import BOTTOM, RIGHT


def _headline(canvas: ImageDraw.ImageDraw, y: int, line: str, fill: int = 1) -> int:
    """One line as big as fits (14 px capitals, packed tighter if need be,
    else shortened); returns its height."""
    font, scale = role("headline")
    big, scale, spacing = text.fit_big(line, font, RIGHT)
    text.draw(canvas, text.centred_x(big, font, 0, RIGHT, scale, spacing), y, big, font,
              scale, fill=fill, spacing=spacing)
    return font.height * scale


def _small_centred(canvas: ImageDraw.ImageDraw, y: int, line: str) -> None:
    font, _ = role("secondary")
    line = text.shorten(line, font, RIGHT)
    text.draw(canvas, text.centred_x(line, font, 0, RIGHT), y, line, font)


def tonight_lines(t: Tonight, font: Font, scale: int = 1) -> list[str]:
    """Tonight's figures in at most two lines that fit: "4 games  1 box
    shut", "best 3 Anna" (the name shortened, never the score)."""
    if t.games <= 0:
        return [tr("no games yet")]
    games = ngettext("{n} game", "{n} games", t.games).format(n=t.games)
    boxes = ngettext("{n} box shut", "{n} boxes shut", t.boxes_shut).format(n=t.boxes_shut)
    first = f"{games}  {boxes}"
    if text.width(first, font, scale) > RIGHT:
        first = text.shorten(f"{games}  " + tr("{n} shut").format(n=t.boxes_shut), font, RIGHT,
                             scale)
    lines = [first]
    if t.best is not None:
        name, score = t.best
        prefix = tr("best {score}").format(score=widgets.number(score, 5)) + " "
        room = RIGHT - text.width(prefix, font, scale) - scale   # the gap after the prefix
        lines.append(prefix + text.shorten(name, font, room, scale))
    return lines


def _tonight(canvas: ImageDraw.ImageDraw, t: Tonight) -> None:
    """Rows 0..30 of the idle screen: "tonight" between two rules, then
    the figures in two 10 px lines."""
    small, _ = role("secondary")
    # counted by the box's clock, which may not be set (store/read/tonight.py): it says so
    label = {"set": tr("tonight"), "not set": tr("tonight (clock unset)")}.get(
        t.clock, tr("tonight (clock?)"))
    w = text.width(label, small)
    x = text.centred_x(label, small, 0, RIGHT)
    text.draw(canvas, x, 0, label, small)
    canvas.line((0, 3, x - 4, 3), fill=1)
    canvas.line((x + w + 3, 3, RIGHT - 1, 3), fill=1)
    font, scale = role("figures")
    lines = tonight_lines(t, font, scale)
    ys = (9, 21) if len(lines) == 2 else (15,)
    for y, line in zip(ys, lines, strict=False):
        text.draw(canvas, text.centred_x(line, font, 0, RIGHT, scale), y, line, font, scale)


def draw_attract(canvas: ImageDraw.ImageDraw, s: AttractScreen) -> None:
    if draw_attract_qr(canvas, s):   # phones can join: the QR code and the text beside it
        return
    small, _ = role("secondary")
    if s.high_score is not None:
        draw_high_score(canvas, s.high_score)
    elif s.tonight is not None:
        _tonight(canvas, s.tonight)
    else:
        _headline(canvas, 0, s.title)
        y = 16
        for line in text.wrap(s.rules_line, small, RIGHT, 2):
            _small_centred(canvas, y, line)
            y += small.height + 1
    n = len(s.players)
    _small_centred(canvas, 32, ngettext("{n} player:", "{n} players:", n).format(n=n) + " "
                   + " ".join(s.players))
    # the way in, inverted and 10 px so a passer-by sees what to press: a
    # line a button ("NEXT: +1  hold: names", "ROLL: start  hold: -1"); a
    # prompt of one line too wide for the bar goes on two at its halves
    font, _ = role("prompt")
    if s.message:      # why a press could not act: in the bar, over the prompt
        lines = text.wrap(s.message, font, RIGHT - 4, 2)
        widgets.bar(canvas, 40, lines, font=font)
        return
    prompt = [s.prompt]
    if "\n" in s.prompt:       # a line for each button
        prompt = [text.shorten(p.strip(), font, RIGHT - 4) for p in s.prompt.split("\n")][:2]
    elif text.width(s.prompt, font) > RIGHT - 4:
        prompt = [p.strip() for p in s.prompt.split("  ") if p.strip()][:2]
        if len(prompt) < 2:
            prompt = text.wrap(s.prompt, font, RIGHT - 4, 2)
        prompt = [text.shorten(p, font, RIGHT - 4) for p in prompt]
    widgets.bar(canvas, 40, prompt, font=font)


def _answers(canvas: ImageDraw.ImageDraw, prompt: str) -> int:
    """The answers ("ROLL: yes  NEXT: no") at the bottom, 10 px, kept apart by
    a wide gap on one line or put on two; returns the top row they took."""
    font, scale = role("prompt")
    halves = [p.strip() for p in prompt.split("  ") if p.strip()]
    gap = 9
    if len(halves) == 2:
        widths = [text.width(h, font, scale) for h in halves]
        if sum(widths) + gap <= RIGHT:
            x = (RIGHT - sum(widths) - gap) // 2
            top = BOTTOM - font.height * scale
            text.draw(canvas, x, top, halves[0], font, scale)
            text.draw(canvas, x + widths[0] + gap, top, halves[1], font, scale)
            return top
        return widgets.footer(canvas, [widgets.prompt_lines(h, 1)[0] for h in halves])
    return widgets.footer(canvas, widgets.prompt_lines(prompt, 2))


def draw_confirm(canvas: ImageDraw.ImageDraw, s: ConfirmScreen) -> None:
    font, scale = role("headline")
    top = _answers(canvas, s.prompt)
    lines = [s.question]
    if text.width(s.question, font, scale, 1) > RIGHT:
        lines = text.wrap(s.question, font, RIGHT, 2, scale=scale)
    if any(text.width(ln, font, scale, 1) > RIGHT for ln in lines) or \
            len(lines) * (font.height * scale + 2) + 2 > top or lines[-1].endswith(".."):
        big, _ = role("prompt")
        lines = text.wrap(s.question, big, RIGHT, max(1, (top - 2) // (big.height + 2)))
        widgets.centred_lines(canvas, 0, top - 3, lines, big, gap=2)
        return
    y = max(0, (top - 2 - len(lines) * (font.height * scale + 2)) // 2)
    for line in lines:
        y += _headline(canvas, y, line) + 2


def draw_notice(canvas: ImageDraw.ImageDraw, s: NoticeScreen) -> None:
    # the title inverted: the box itself needs attention, not the players
    font, scale = role("headline")
    canvas.rectangle((0, 0, RIGHT - 1, 15), fill=1)
    title, scale, spacing = text.fit_big(s.title, font, RIGHT - 2)
    if text.width(s.title, font, 2, 1) > RIGHT - 2:
        font, _ = role("message")
        title, scale, spacing = text.shorten(s.title, font, RIGHT - 2), 1, 1
    y = (16 - font.height * scale) // 2
    text.draw(canvas, text.centred_x(title, font, 0, RIGHT, scale, spacing), y, title, font,
              scale, fill=0, spacing=spacing)
    small, _ = role("secondary")
    out: list[str] = []
    for line in s.lines:
        out.extend(text.wrap(line, small, RIGHT, 5))
    if len(out) > 5:
        out = out[:4] + [text.mark_cut(out[4], small, RIGHT)]
    y = 18
    for line in out:
        text.draw(canvas, 0, y, line, small)
        y += small.height + 2


# sparkles, drawn dark on the shut screen's lit band
_SPARKLE = ("...#...", "...#...", "..###..", "#######", "..###..", "...#...", "...#...")
_SPARKLE_SMALL = ("..#..", "..#..", "##.##", "..#..", "..#..")
SHUT_BAND = 32           # rows 0..31: SHUT THE BOX! on a lit band


def _stamp(canvas: ImageDraw.ImageDraw, x: int, y: int, rows: tuple[str, ...],
           fill: int) -> None:
    canvas.point([(x + i, y + j) for j, row in enumerate(rows) for i, c in enumerate(row)
                  if c == "#"], fill=fill)


def _big_name(name: str) -> tuple[str, Font, int, int]:
    """The name as big as it fits: 20 px capitals, packed tighter if need be,
    else the 14 px headline size (mixed case, narrower), shortened last.
    Returns (text, font, scale, spacing)."""
    font, scale = role("shut_player")
    for spacing in (scale, 1):
        if text.width(name, font, scale, spacing) <= RIGHT:
            return name, font, scale, spacing
    font, _ = role("headline")
    big, scale, spacing = text.fit_big(name, font, RIGHT)
    return big, font, scale, spacing


def draw_shut(canvas: ImageDraw.ImageDraw, s: ShutScreen) -> None:
    """SHUT THE BOX! in 14 px capitals, dark on a lit band with sparkles
    (the LEDs chase meanwhile), the player's name as big as it fits
    under it, and the consequence ("wins at once!") small at the bottom."""
    font, scale = role("headline")
    canvas.rectangle((0, 0, RIGHT - 1, SHUT_BAND - 1), fill=1)
    lines = widgets.shut_the_box()
    widgets.centred_lines(canvas, 1, SHUT_BAND - 2, lines, font, scale, gap=2, fill=0)
    # sparkles beside the second line (narrow in English: "BOX!") and in the
    # top corners, each only where it stays a pixel clear of the words
    for x, y, big in ((12, 20, True), (28, 16, False), (RIGHT - 20, 20, True),
                      (RIGHT - 34, 16, False), (4, 4, False), (RIGHT - 10, 4, False)):
        rows = _SPARKLE if big else _SPARKLE_SMALL
        words = text.width(lines[0 if y < 8 else -1], font, scale)
        if x + len(rows[0]) < (RIGHT - words) // 2 or x > (RIGHT + words) // 2:
            _stamp(canvas, x, y, rows, fill=0)

    small, _ = role("secondary")
    bottom = BOTTOM - 1
    if s.note:
        note = text.shorten(s.note, small, RIGHT)
        text.draw(canvas, text.centred_x(note, small, 0, RIGHT), bottom - small.height + 1,
                  note, small)
        bottom -= small.height + 2
    name, nfont, nscale, spacing = _big_name(s.player)
    h = nfont.height * nscale
    y = SHUT_BAND + 1 + max(0, (bottom - SHUT_BAND - h) // 2)
    text.draw(canvas, text.centred_x(name, nfont, 0, RIGHT, nscale, spacing), y, name, nfont,
              nscale, spacing=spacing)
