"""A second seat from one phone, put to the box's players (game/model/join.py).

A phone's address that has a seat at the table already does not take another on
its own say: the OLED asks ("Same phone: seat Bob?"), as it asks "New game?".
ROLL seats the name (the one rule for a seat: :func:`.setup.claim_seat`), NEXT
refuses, and a question nobody answers lapses after
:data:`~shutbox_hw.game.model.join.QUESTION_MS` of the events' own time (the
bar says so). Each outcome waits in the join desk for the daemon to tell the phone.
"""

from __future__ import annotations

from ...base.events import SeatClaim
from ..model import join
from ..model.state import GameState
from . import setup
from .effects import Effect, Emit
from .observer import Observer
from .reasons import Remark, SeatRefused


def ask(state: GameState, claim: SeatClaim) -> str:
    """The phone's second claim: put to the box when the name could be seated
    (what the phone is told: :class:`~.join.Asking`), else why not at once."""
    seat = setup.free_seat(state, claim.name)
    if isinstance(seat, setup.Refusal):
        return str(seat)
    return state.join.ask(claim, state.now)


def answer(state: GameState, shown: Observer, button: str, long: bool) -> list[Effect]:
    """A press while the box asks: ROLL seats the name, NEXT refuses (a long press
    answers nothing)."""
    question = state.join.question
    assert question is not None
    if long:
        return []
    if button == "next":
        state.join.settle(join.DECLINED)
        return []
    done = setup.claim_seat(state, question.claim.name, "phone")
    if isinstance(done, setup.Refusal):      # the table changed while it asked
        state.join.settle(str(done))
        shown.refuse(state, SeatRefused(done.box))
        return []
    state.join.settle(done)
    state.join.seated(question.claim, done.player)
    return [Emit(done)]


def lapse(state: GameState, shown: Observer) -> None:
    """The question unanswered for its time: refused, and the bar says so."""
    if state.join.lapsed(state.now):
        shown.refuse(state, Remark("seat-question-lapsed"))


def lapses_at(state: GameState) -> int | None:
    """When the question on the box lapses (None: none asked)."""
    question = state.join.question
    return question.lapses_at if question is not None else None
