"""The screens of a turn: the throw in progress and the turn's end.

Play screen, top to bottom: whose turn (10 px) with the round and total
beside it; the dice (18 px) with the hint's chances beside them; the row
of flaps; what to do now (10 px, one or two lines). A problem to fix
replaces the flaps and the prompt with an inverted bar of up to three
10 px lines.
"""

from __future__ import annotations

from PIL import ImageDraw

from ..base.i18n import tr
from ..game.display.screens import PlayScreen, TurnEndScreen
from . import text, widgets
from .fonts import role
from .widgets import BOTTOM, DIE, RIGHT, TILE_H

DICE_Y = 11
TILES_Y = DICE_Y + DIE + 2          # 31
PROMPT_TOP = TILES_Y + TILE_H + 1   # 42: two prompt lines end on row 62
BAR_TOP = DICE_Y + DIE + 2          # 31: a problem bar covers the flaps' row, and two
                                    # dark rows keep it off the dice (a lit die touching a
                                    # lit bar looked cut short: a 6 read as a 4)
BAR_TOP_3 = BAR_TOP - 1             # a three-line problem needs one row more


def _percent(p: float) -> str:
    return f"{round(p * 100)}%"


def _header(canvas: ImageDraw.ImageDraw, player: str, beside: list[str]) -> None:
    """The player's name (the first thing read from a distance) and, right
    of it, the longest of ``beside`` that leaves the name whole."""
    font, scale = role("player")
    small, _ = role("secondary")
    name_w = text.width(player, font, scale)
    for extra in beside:
        extra_w = text.width(extra, small)
        if name_w + 6 + extra_w <= RIGHT:
            break
    else:
        extra = beside[-1] if beside else ""
        extra_w = text.width(extra, small)
    name = text.shorten(player, font, RIGHT - (extra_w + 6 if extra else 0), scale)
    text.draw(canvas, 0, 0, name, font, scale)
    if extra:
        widgets.right_text(canvas, RIGHT, (font.height * scale - small.height) // 2, extra,
                           small)


def draw_play(canvas: ImageDraw.ImageDraw, s: PlayScreen) -> None:
    if s.balance is not None:     # a pool: the pot and the balance, not a total
        bal = widgets.number(s.balance, 4, signed=True)
        # a long name is shortened before these words are: "P0 B0" said nothing
        _header(canvas, s.player, [tr("pot {pot}  bal {balance}").format(pot=s.pot, balance=bal),
                                   tr("pot {pot} bal {balance}").format(pot=s.pot, balance=bal)])
    else:
        total = widgets.number(s.total, 4)
        _header(canvas, s.player, [
            tr("round {round}  total {total}").format(round=s.round, total=total),
            tr("R{round} total {total}").format(round=s.round, total=total)])

    # the dice: squares with pips; outlines with "?" before the throw
    faces = list(s.dice) if s.dice else [None] * s.throw_dice
    for i, face in enumerate(faces):
        widgets.die(canvas, i * (DIE + 2), DICE_Y, face)

    # beside the dice: the solver's chances when hints are on, under one
    # word "chance" so nobody takes "shut 3%" for an instruction:
    #            box    3%
    #   chance
    #            move  82%
    small, _ = role("secondary")
    lines = []
    if s.shut_chance is not None:
        lines.append((tr("box"), _percent(s.shut_chance)))
    if s.move_chance is not None:
        lines.append((tr("move"), _percent(s.move_chance)))
    if lines:
        panel_x = 2 * DIE + 3
        pitch = small.height + 3
        block = pitch * (len(lines) - 1) + small.height
        top = DICE_Y + (DIE - block) // 2
        chance = tr("chance")
        text.draw(canvas, panel_x, DICE_Y + (DIE - small.height) // 2, chance, small)
        label_x = panel_x + text.width(chance, small) + 3
        for i, (label, value) in enumerate(lines):
            y = top + i * pitch
            text.draw(canvas, label_x, y, label, small)
            widgets.right_text(canvas, RIGHT, y, value, small)
    elif s.hints_pending:   # the tables are being solved (off the loop): say so
        panel_x = 2 * DIE + 3
        top = DICE_Y + (DIE - 2 * small.height - 3) // 2
        text.draw(canvas, panel_x, top, tr("hints"), small)
        text.draw(canvas, panel_x, top + small.height + 3, tr("not ready"), small)

    if s.message:
        font, _ = role("message")
        message = text.wrap(s.message, font, RIGHT - 4, 3)
        three = len(message) > 2
        widgets.bar(canvas, BAR_TOP_3 if three else BAR_TOP, message, gap=1 if three else 2)
        return
    hint = set(s.hint or ())
    widgets.tile_row(canvas, TILES_Y, list(range(1, s.tiles + 1)), set(s.open_tiles), hint)
    prompt = widgets.prompt_lines(s.prompt, 2)
    widgets.centred_lines(canvas, PROMPT_TOP, BOTTOM - 1, prompt, *role("prompt"))


def draw_turn_end(canvas: ImageDraw.ImageDraw, s: TurnEndScreen) -> None:
    """Whose turn ended, its score (20 px) or SHUT THE BOX!, the flaps left
    open, the consequence (a note) and what to do now; right of the name the
    turn's best moves once rated (``[game] show_accuracy``), short if the name is long."""
    beside = []
    if s.accuracy is not None:
        best, moves = s.accuracy
        beside = [tr("{best}/{moves} best moves").format(best=best, moves=moves),
                  f"{best}/{moves}"]
    _header(canvas, s.player, beside)
    body_top, body_bottom = 12, 41
    if s.shut:
        # the headline of the game: inverted, two lines of 14 px capitals
        font, scale = role("headline")
        canvas.rectangle((0, body_top, RIGHT - 1, body_bottom), fill=1)
        widgets.centred_lines(canvas, body_top, body_bottom, widgets.shut_the_box(), font,
                              scale, fill=0)
    else:
        font, scale = role("score")
        small, _ = role("secondary")
        label_w = text.width(tr("score"), small) + 4
        score = str(s.score)
        if text.width(score, font, scale) > RIGHT - label_w:
            score = widgets.number(s.score, 4)
        score_y = body_top
        text.draw(canvas, 0, score_y + (font.height * scale - small.height) // 2, tr("score"),
                  small)
        text.draw(canvas, label_w, score_y, score, font, scale)
        tiles = sorted(s.open_tiles)
        row_y = body_top + font.height * scale + 1
        label = tr("still open")
        left = text.width(label, small) + 3
        if tiles and 11 * len(tiles) <= RIGHT - left:
            text.draw(canvas, 0, row_y + 1, label, small)
            widgets.tile_row(canvas, row_y, tiles, set(tiles), left=left,
                             right=min(RIGHT, left + 14 * len(tiles)))
        elif tiles:
            widgets.tile_row(canvas, row_y, tiles, set(tiles))
    small, _ = role("secondary")
    prompt = widgets.prompt_lines(s.prompt, 1 if s.note else 2)
    top = widgets.footer(canvas, prompt) if prompt else BOTTOM
    if s.note:
        note = text.shorten(s.note, small, RIGHT)
        text.draw(canvas, text.centred_x(note, small, 0, RIGHT), top - small.height - 2, note,
                  small)
