"""The referee's reasons in words: what the OLED's bar and footer say.

The referee says why as plain values (:mod:`shutbox_hw.game.referee.reasons`);
:func:`said` words each one in the box's language. A refused flap's words are
also the ``reason`` of its ``flap_rejected`` event and what the TV shows for it.
"""

from __future__ import annotations

from ...base.i18n import N_, tr
from ...rules import Position, Throw, tiles_of
from ..model.state import GameState
from ..referee.reasons import Misfit, Reason, Remark, RemarkKind, SeatRefused, WhyNot, WrongDice
from .text import shut_text, throw_sum_text, throw_text, tile_ranges, wrong_dice_text

REMARKS: dict[RemarkKind, str] = {
    "no-names": N_("no names yet: play with names"),
    "question-lapsed": N_("no answer: play on"),
    "seat-question-lapsed": N_("no answer: no seat"),
    "dice-flaps-wrong": N_("dice ignored: fix the flaps first"),
    "dice-mid-throw": N_("dice ignored: finish this throw first"),
    "bad-throw": N_("bad throw: roll again"),
    "not-whole-move": N_("not a whole move yet"),
    "no-move-again": N_("No move? NEXT again"),
}
"""Each remark's words (catalogue messages, translated where they are said)."""


def said(state: GameState, reason: Reason) -> str:
    """``reason`` in a few words of the box's language, for the state now."""
    if isinstance(reason, Misfit):
        return misfit_text(state, reason)
    if isinstance(reason, WhyNot):
        return why_not(state, reason.button)
    if isinstance(reason, WrongDice):
        return wrong_dice_text(state.rules, reason.thrown, reason.wanted)
    if isinstance(reason, SeatRefused):
        return tr(reason.box)
    assert isinstance(reason, Remark)
    return tr(REMARKS[reason.kind])


def misfit_text(state: GameState, misfit: Misfit) -> str:
    """Why a flap does not fit: the throw it does not fit, or the flaps it clashes with."""
    tile, flaps = misfit.tile, tile_ranges(misfit.conflicts)
    if misfit.kind == "before-roll":
        return tr("{tile} was shut before the roll").format(tile=tile)
    if misfit.kind == "roll-as-you-throw":
        return tr("{tile}: press ROLL as you throw").format(tile=tile)
    if misfit.kind == "no-throw":
        return tr("{tile} doesn't fit any throw").format(tile=tile)
    if misfit.kind == "not-with-any":
        return tr("{tile} doesn't fit with {flaps}").format(tile=tile, flaps=flaps)
    assert misfit.dice is not None
    if misfit.kind == "not-this-throw":
        return tr("{tile} doesn't fit {throw}").format(
            tile=tile, throw=throw_text(state.rules, misfit.dice))
    return tr("{tile} doesn't fit with {flaps}: {sum}").format(
        tile=tile, flaps=flaps, sum=throw_sum_text(state.rules, misfit.dice))


def why_not(state: GameState, button: str) -> str:
    """Why a press of ``button`` cannot act now, in a few words."""
    rejected, reopened = tiles_of(state.rejected()), tiles_of(state.reopened())
    if rejected:
        return tr("lift {flaps} first").format(flaps=tile_ranges(rejected))
    if reopened:
        return tr("shut {flaps} again first").format(flaps=tile_ranges(reopened))
    turn = state.turn
    if turn is None:
        shut = tiles_of(state.shut)
        return (tr("lift {flaps} first").format(flaps=tile_ranges(shut)) if shut
                else tr("lift all flaps first"))
    if button == "next" and not state.unseen_dice:
        return (tr("hold NEXT to settle up") if state.rules.match == "pool"
                else tr("hold NEXT to stop"))
    throw: Position | None = turn.throw
    if isinstance(throw, Throw):
        if not turn.pending:
            return tr("{shut} first").format(shut=shut_text(state.rules, throw.dice))
        more = [sum(tiles_of(c & ~turn.pending)) for c in throw.legal_closures()
                if c != turn.pending and c & turn.pending == turn.pending]
        return tr("shut {n} more").format(n=min(more)) if more else tr("not a whole move yet")
    return tr("not a whole move yet")
