"""Screens of a few lines: idle (attract), a question, a problem notice."""

from __future__ import annotations

from PIL import ImageDraw

from ..game.screens import AttractScreen, ConfirmScreen, NoticeScreen
from . import text, widgets
from .fonts import role
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


def draw_attract(canvas: ImageDraw.ImageDraw, s: AttractScreen) -> None:
    small, _ = role("secondary")
    _headline(canvas, 0, s.title)
    y = 16
    for line in text.wrap(s.rules_line, small, RIGHT, 2):
        _small_centred(canvas, y, line)
        y += small.height + 1
    n = len(s.players)
    _small_centred(canvas, 32, f"{n} player{'s' if n != 1 else ''}: " + " ".join(s.players))
    # the way in, inverted and 10 px so a passer-by sees what to press;
    # "NEXT: players  ROLL: start" is too wide for one line, so its two
    # halves go one per line
    font, _ = role("prompt")
    prompt = [s.prompt]
    if text.width(s.prompt, font) > RIGHT - 4:
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
