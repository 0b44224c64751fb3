"""Seats named while a game is set up: one rule for the roster on the box and a phone.

A name claims the first seat that has no name of its own yet (a seat label,
P1..P8), or a new seat after the last when every seat is named; a name already
at the table (case and accents folded) is refused, as is a ninth player. A
seated name may get up again (:func:`leave_seat`: the roster on the box, ROLL
on a name shown as seated). The
claim lasts until the game starts (its ``game_started`` names every seat) or
the box goes back to choosing from nothing (a game ended). Nothing here reads a
clock or the record: the daemon hands the roster in (:class:`~shutbox_hw.base.events.Roster`).
"""

from __future__ import annotations

from ...base.i18n import N_
from ...players.names import is_seat_label, name_problem, same_player, seat_label, tidy
from ..model.config import MAX_PLAYERS
from ..model.events import SeatClaimed, SeatLeft
from ..model.state import GameState


class Refusal(str):
    """Why a seat was not claimed or left: the sentence (for the phone's page),
    and in :attr:`box` the few words the OLED flashes for it (a catalogue
    message: ``tr(refusal.box)`` speaks the box's language)."""
    box: str

    def __new__(cls, sentence: str, box: str) -> Refusal:
        refusal = super().__new__(cls, sentence)
        refusal.box = box
        return refusal


def claim_seat(state: GameState, name: str, source: str) -> SeatClaimed | Refusal:
    """Give ``name`` the next free seat of the game being set up: the event, or
    why not (a sentence for the phone, a few words for the box: :class:`Refusal`)."""
    seat = free_seat(state, name)
    if isinstance(seat, Refusal):
        return seat
    name = tidy(name)
    state.claimed[seat] = name
    state.player_count = max(state.player_count, seat + 1)
    return SeatClaimed(seat=seat, player=name, source=source,
                       players=state.names(state.player_count))


def free_seat(state: GameState, name: str) -> int | Refusal:
    """The seat ``name`` would claim now, or why it cannot (nothing changes)."""
    if state.phase != "idle":
        return Refusal("a game is under way: join the next one", N_("a game is under way"))
    problem = name_problem(name)
    if problem is not None:
        return Refusal(problem, N_("not a name for a seat"))
    name = tidy(name)
    if is_seat_label(name):
        return Refusal(f"{name} is a seat's label: choose a name", N_("not a name for a seat"))
    names = state.names(state.player_count)
    if any(same_player(name, n) for n in names if not is_seat_label(n)):
        return Refusal(f"{name} is already at the table", N_("already at the table"))
    free = [i for i, n in enumerate(names) if is_seat_label(n)]
    seat = free[0] if free else len(names)
    if seat >= MAX_PLAYERS:
        return Refusal(f"every seat is taken ({MAX_PLAYERS} players)",
                       N_("every seat is taken"))
    return seat


def seat_of(state: GameState, name: str) -> int | None:
    """The seat ``name`` sits at in the game being set up (case and accents
    folded), if any."""
    names = state.names(state.player_count)
    return next((i for i, n in enumerate(names)
                 if not is_seat_label(n) and same_player(name, n)), None)


def leave_seat(state: GameState, name: str, source: str) -> SeatLeft | Refusal:
    """``name`` gets up from their seat: a claimed seat goes back to its
    configured name or label, a configured name's seat to its label (the next
    game only; the config file is as it was). The event, or why not."""
    if state.phase != "idle":
        return Refusal("a game is under way", N_("a game is under way"))
    seat = seat_of(state, name)
    if seat is None:
        return Refusal(f"{tidy(name)} has no seat", N_("has no seat"))
    player = state.names(state.player_count)[seat]
    if state.claimed.get(seat) == player:
        del state.claimed[seat]
    if seat_of(state, name) == seat:      # configured there: the seat keeps only a label
        state.claimed[seat] = seat_label(seat)
    return SeatLeft(seat=seat, player=player, source=source,
                    players=state.names(state.player_count))


def clear_claims(state: GameState) -> None:
    """The claims are spent (the game started with them) or given up."""
    state.claimed.clear()
