"""The screens of a turn: the throw in progress and the turn's end."""

from __future__ import annotations

from PIL import ImageDraw

from ..game.screens import PlayScreen, TurnEndScreen
from . import text, widgets
from .fonts import SMALL, TINY
from .widgets import DIE, HEIGHT, WIDTH

DICE_Y = 16
TILES_Y = 37
FOOTER_Y = 48            # message bar / prompt area: y 48..63


def _percent(p: float) -> str:
    return f"{round(p * 100)}%"


def _header(canvas: ImageDraw.ImageDraw, player: str, right_width: int) -> None:
    """The player's name, double size: the first thing read from a distance."""
    name, scale, spacing = text.fit_big(player, SMALL, WIDTH - right_width - 3)
    text.draw(canvas, 0, 0, name, SMALL, scale, spacing=spacing)


def draw_play(canvas: ImageDraw.ImageDraw, s: PlayScreen) -> None:
    # right of the name: the round (tiny) over the player's total
    round_label = f"ROUND {s.round}"
    total = widgets.number(s.total, 4)
    total_w = text.width("TOT", TINY) + 2 + text.width(total, SMALL)
    right_w = max(text.width(round_label, TINY), total_w)
    _header(canvas, s.player, right_w)
    widgets.right_text(canvas, WIDTH, 0, round_label, TINY)
    x = widgets.right_text(canvas, WIDTH, 7, total)
    widgets.right_text(canvas, x - 2, 9, "TOT", TINY)

    # the dice: big squares with pips; outlines with "?" before the throw
    faces = list(s.dice) if s.dice else [None, None]
    for i, face in enumerate(faces):
        widgets.die(canvas, i * (DIE + 4), DICE_Y, face)

    # beside the dice: the solver's chances, when hints are on
    panel_x = 2 * (DIE + 4) + 4
    lines = []
    if s.shut_chance is not None:
        lines.append(("shut", _percent(s.shut_chance)))
    if s.move_chance is not None:
        lines.append(("move", _percent(s.move_chance)))
    for i, (label, value) in enumerate(lines):
        y = DICE_Y + 2 + i * 10
        text.draw(canvas, panel_x, y, label, SMALL)
        widgets.right_text(canvas, WIDTH, y, value)

    hint = set(s.hint or ())
    widgets.tile_row(canvas, TILES_Y, list(range(1, s.tiles + 1)), set(s.open_tiles), hint)

    if s.message:
        widgets.bar(canvas, FOOTER_Y, text.wrap(s.message, SMALL, WIDTH - 4, 2))
    elif s.prompt:
        lines_ = text.wrap(s.prompt, SMALL, WIDTH, 2)
        y = HEIGHT - (SMALL.height + 1) * len(lines_)
        for line in lines_:
            widgets.footer(canvas, line, y)
            y += SMALL.height + 1


def draw_turn_end(canvas: ImageDraw.ImageDraw, s: TurnEndScreen) -> None:
    _header(canvas, s.player, 0)
    body_top, body_bottom = 16, 45
    if s.shut:
        # the headline of the game: inverted, double size, two lines
        canvas.rectangle((0, body_top, WIDTH - 1, body_bottom), fill=1)
        for i, line in enumerate(("SHUT THE", "BOX!")):
            x = text.centred_x(line, SMALL, 0, WIDTH, 2)
            text.draw(canvas, x, body_top + 1 + i * 15, line, SMALL, 2, fill=0)
    else:
        # the score as big as it fits, the flaps left open under it
        label_w = text.width("score", SMALL) + 4
        score = str(s.score)
        for scale in (3, 2, 1):
            if text.width(score, SMALL, scale) <= WIDTH - label_w:
                break
        else:
            score = widgets.number(s.score, 4)
        text.draw(canvas, 0, body_top + (21 - SMALL.height) // 2, "score", SMALL)
        text.draw(canvas, label_w, body_top + (21 - SMALL.height * scale) // 2, score, SMALL, scale)
        tiles = sorted(s.open_tiles)
        row_y = body_top + 24
        if tiles and len(tiles) <= 7:
            text.draw(canvas, 0, row_y + 1, "open", SMALL)
            widgets.tile_row(canvas, row_y, tiles, set(tiles), left=label_w,
                             right=min(WIDTH, label_w + 14 * len(tiles)))
        elif tiles:
            widgets.tile_row(canvas, row_y, tiles, set(tiles))
    lines = [s.note] if s.note else []
    if s.prompt:
        lines.append(s.prompt)
    y = HEIGHT - (SMALL.height + 1) * len(lines)
    for line in lines:
        widgets.footer(canvas, line, y)
        y += SMALL.height + 1

