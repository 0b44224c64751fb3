"""Seats named while a game is set up: one rule for the roster on the box and a phone.

A name claims the first seat that has no name of its own yet (a seat label,
P1..P8), or a new seat after the last when every seat is named; a name already
at the table (case and accents folded) is refused, as is a ninth player. The
claim lasts until the game starts (its ``game_started`` names every seat) or
the box goes back to choosing from nothing (a game ended). Nothing here reads a
clock or the record: the daemon hands the roster in (:class:`~shutbox_hw.events.Roster`).
"""

from __future__ import annotations

from ..players.names import is_seat_label, name_problem, same_player, tidy
from .config import MAX_PLAYERS
from .events import SeatClaimed
from .state import GameState


def claim_seat(state: GameState, name: str, source: str) -> SeatClaimed | str:
    """Give ``name`` the next free seat of the game being set up: the event, or
    why not (a sentence for the screen and the phone)."""
    if state.phase != "idle":
        return "a game is under way: join the next one"
    problem = name_problem(name)
    if problem is not None:
        return problem
    name = tidy(name)
    if is_seat_label(name):
        return f"{name} is a seat's label: choose a name"
    names = state.names(state.player_count)
    if any(same_player(name, n) for n in names if not is_seat_label(n)):
        return f"{name} is already at the table"
    free = [i for i, n in enumerate(names) if is_seat_label(n) and i not in state.claimed]
    seat = free[0] if free else len(names)
    if seat >= MAX_PLAYERS:
        return f"every seat is taken ({MAX_PLAYERS} players)"
    state.claimed[seat] = name
    state.player_count = max(state.player_count, seat + 1)
    return SeatClaimed(seat=seat, player=name, source=source,
                       players=state.names(state.player_count))


def clear_claims(state: GameState) -> None:
    """The claims are spent (the game started with them) or given up."""
    state.claimed.clear()
