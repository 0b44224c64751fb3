"""Each flap's state as the box shows it, from the referee's state: the one
answer the OLED's play screen (:mod:`.view`) and the whole picture
(:mod:`.shown`) draw their open flaps from. Pure."""

from __future__ import annotations

from typing import Literal

from ...rules import tile_bit
from .state import GameState

FlapState = Literal["open", "shut", "pending", "refused", "lifted"]
"""open; shut (taken by an earlier throw, or still shut between two turns);
pending (shut for this throw, not taken yet); refused (shut, but it does not
fit: the red light, lift it); lifted (taken earlier, then lifted: shut it again)."""

DRAWN_OPEN: tuple[FlapState, ...] = ("open", "refused")
"""The states the OLED draws as an open flap (a refused flap is named on its bar)."""


def flap_states(state: GameState) -> tuple[FlapState, ...]:
    """Each flap's state, flap 1 first."""
    turn = state.turn
    out: list[FlapState] = []
    for tile in range(1, state.rules.tiles + 1):
        bit = tile_bit(tile)
        shut = bool(state.shut & bit)
        if state.phase not in ("play", "confirm") or turn is None:
            out.append("shut" if shut and state.phase in ("play", "confirm") else "open")
        elif turn.committed & bit:
            out.append("shut" if shut else "lifted")
        elif turn.pending & bit:
            out.append("pending")
        else:
            out.append("refused" if shut else "open")
    return tuple(out)


def open_tiles(states: tuple[FlapState, ...]) -> tuple[int, ...]:
    """The flaps drawn open."""
    return tuple(t for t, s in enumerate(states, start=1) if s in DRAWN_OPEN)
