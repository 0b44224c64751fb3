"""The idle screen while phones can join: the QR code on the left, the page's text
on the right (who is seated, how to start), so that other idle pages (tonight's
figures, high scores) can share the same split."""

from __future__ import annotations

from PIL import ImageDraw

from ..base.i18n import ngettext, tr
from ..game.display.screens import AttractScreen
from . import qr, text
from .fonts import role
from .high_scores import draw_high_score
from .widgets import BOTTOM, RIGHT

GAP = 3   # between the code's quiet zone and the text


def draw_attract_qr(canvas: ImageDraw.ImageDraw, s: AttractScreen) -> bool:
    """The idle screen with its QR code (False: no code to draw, or too long for the
    screen: the caller draws the screen without it)."""
    if s.join is None:
        return False
    edge = qr.draw(canvas, 0, 0, s.join, BOTTOM - 1)
    if not edge:
        return False
    left = edge + GAP
    if s.high_score is not None:     # the attract cycle's high scores beside the code
        draw_high_score(canvas, s.high_score, left)
        start_bar(canvas, left, s)
    else:
        column(canvas, left, s)
    return True


def column(canvas: ImageDraw.ImageDraw, left: int, s: AttractScreen) -> None:
    """The text beside the code: "scan to join", the players, the way to start."""
    width = RIGHT - left
    big, _ = role("prompt")
    small, _ = role("secondary")
    y = 0
    for line in text.wrap(tr("scan to join"), big, width, 2):
        text.draw(canvas, left, y, line, big)
        y += big.height + 1
    y += 2
    n = len(s.players)
    head = ngettext("{n} player:", "{n} players:", n).format(n=n)
    text.draw(canvas, left, y, text.shorten(head, small, width), small)
    y += small.height + 1
    bar_top = BOTTOM - 1 - big.height - 2
    room = max(1, (bar_top - y) // (small.height + 1))
    names = text.wrap(" ".join(s.players), small, width, room)
    for line in names:
        text.draw(canvas, left, y, line, small)
        y += small.height + 1
    start_bar(canvas, left, s)


def start_bar(canvas: ImageDraw.ImageDraw, left: int, s: AttractScreen) -> None:
    """The way to start ("ROLL: start"), inverted along the bottom beside the code."""
    big, _ = role("prompt")
    bar_top = BOTTOM - 1 - big.height - 2
    start = [p.strip() for p in s.prompt.split("  ") if p.strip()][-1]   # "ROLL: start"
    canvas.rectangle((left, bar_top, RIGHT - 1, BOTTOM - 1), fill=1)
    start = text.shorten(start, big, RIGHT - left - 2)
    text.draw(canvas, text.centred_x(start, big, left, RIGHT), bar_top + 2, start, big, fill=0)
