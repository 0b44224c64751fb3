"""Screens of a few lines: idle (attract), a question, a problem notice."""

from __future__ import annotations

from PIL import ImageDraw

from ..game.screens import AttractScreen, ConfirmScreen, NoticeScreen
from . import text, widgets
from .fonts import SMALL
from .widgets import HEIGHT, WIDTH

PITCH = SMALL.height + 1


def _big_centred(canvas: ImageDraw.ImageDraw, y: int, line: str) -> None:
    big, scale, spacing = text.fit_big(line, SMALL, WIDTH)
    text.draw(canvas, text.centred_x(big, SMALL, 0, WIDTH, scale, spacing), y, big, SMALL,
              scale, spacing=spacing)


def _small_centred(canvas: ImageDraw.ImageDraw, y: int, line: str) -> None:
    text.draw(canvas, text.centred_x(line, SMALL, 0, WIDTH), y, line, SMALL)


def draw_attract(canvas: ImageDraw.ImageDraw, s: AttractScreen) -> None:
    _big_centred(canvas, 0, s.title)
    y = 17
    for line in text.wrap(s.rules_line, SMALL, WIDTH, 2):
        _small_centred(canvas, y, line)
        y += PITCH
    n = len(s.players)
    who = f"{n} player{'s' if n != 1 else ''}: " + " ".join(s.players)
    _small_centred(canvas, 35, text.shorten(who, SMALL, WIDTH))
    # the way in, inverted so a passer-by sees what to press; "NEXT: players
    # ROLL: start" is too wide for one line, so its two halves go one per line
    prompt = [s.prompt]
    if text.width(s.prompt, SMALL) > WIDTH - 2:
        prompt = [p.strip() for p in s.prompt.split("  ") if p.strip()][:2]
        if len(prompt) < 2:
            prompt = text.wrap(s.prompt, SMALL, WIDTH - 2, 2)
        prompt = [text.shorten(p, SMALL, WIDTH - 2) for p in prompt]
    widgets.bar(canvas, HEIGHT - PITCH * len(prompt) - 1, prompt)


def draw_confirm(canvas: ImageDraw.ImageDraw, s: ConfirmScreen) -> None:
    lines = [s.question]
    if text.width(s.question, SMALL, 2, 1) > WIDTH:
        lines = text.wrap(s.question, SMALL, WIDTH, 2, scale=2)
        if any(text.width(ln, SMALL, 2, 1) > WIDTH for ln in lines):
            lines = text.wrap(s.question, SMALL, WIDTH, 4)
    big = all(text.width(ln, SMALL, 2, 1) <= WIDTH for ln in lines)
    pitch = 16 if big else PITCH
    y = max(0, (HEIGHT - PITCH - 2 - pitch * len(lines)) // 2)
    for line in lines:
        (_big_centred if big else _small_centred)(canvas, y, line)
        y += pitch
    widgets.footer(canvas, s.prompt)


def draw_notice(canvas: ImageDraw.ImageDraw, s: NoticeScreen) -> None:
    # the title inverted: the box itself needs attention, not the players
    canvas.rectangle((0, 0, WIDTH - 1, 15), fill=1)
    title, scale, spacing = text.fit_big(s.title, SMALL, WIDTH - 2)
    if text.width(s.title, SMALL, 2, 1) > WIDTH - 2:
        title, scale, spacing = text.shorten(s.title, SMALL, WIDTH - 2), 1, 1
    y = 1 if scale == 2 else 4
    text.draw(canvas, text.centred_x(title, SMALL, 0, WIDTH, scale, spacing), y, title, SMALL,
              scale, fill=0, spacing=spacing)
    out: list[str] = []
    for line in s.lines:
        out.extend(text.wrap(line, SMALL, WIDTH, 5))
    if len(out) > 5:
        out = out[:4] + [text.mark_cut(out[4], SMALL, WIDTH)]
    y = 18
    for line in out:
        text.draw(canvas, 0, y, line, SMALL)
        y += PITCH + 1
