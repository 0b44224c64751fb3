"""The game's modes: which part of the game owns the buttons and the screen now.

The box is always in one of a few modes, stacked by priority the way the
Mission Pinball Framework stacks its modes: the operator menu over a question,
over the steps of an end being shown, over the result, over a match in play,
over a second seat from one phone asked on the box, over the setup's roster,
over the idle (attract) screen. Each mode says in
which states it is active; the highest active mode owns the screen, and the
highest active mode that takes a press owns the buttons. The chain is written
here once: the referee (:mod:`shutbox_hw.game.referee.referee`) hands a
press to the owner's handler, the display (:mod:`shutbox_hw.game.display.view`)
draws the top mode's screen. A new mode goes in :data:`MODES` at its priority,
with a handler for its buttons in the referee and a screen in the display.

Pure: a mode's predicates read the game's state and one fact of the display,
whether the steps of an end are still queued to be seen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .state import GameState

ModeName = Literal["service", "confirm", "ends", "result", "play", "second-seat", "roster",
                   "attract"]


def turn_begun(state: GameState) -> bool:
    """The turn under way has begun: a throw, or a flap shut in it. The screen is
    then this turn's own, never a step of the last end."""
    turn = state.turn
    return state.phase == "play" and turn is not None and (
        turn.throw is not None or turn.throws > 0 or bool(turn.committed | state.shut))


def _ends_shown(state: GameState, queued: bool) -> bool:
    return queued and state.phase in ("over", "play") and not turn_begun(state)


def _always(state: GameState) -> bool:
    return True


def _between_turns(state: GameState) -> bool:
    """A press moves the end's steps on only between two turns: once the next
    turn is there, the press is that turn's (its steps give way as it is played)."""
    return state.turn is None


@dataclass(frozen=True)
class Mode:
    """One mode of the stack."""
    name: ModeName
    priority: int
    active: Callable[[GameState, bool], bool]   # (the state, an end's steps queued)
    takes_buttons: Callable[[GameState], bool] = _always   # when active: a press is its own


MODES: tuple[Mode, ...] = tuple(sorted((
    Mode("service", 600, lambda s, q: s.service is not None),       # the operator menu
    Mode("confirm", 500, lambda s, q: s.phase == "confirm"),        # "New game?"
    Mode("ends", 400, _ends_shown, _between_turns),                 # an end's steps
    Mode("result", 300, lambda s, q: s.phase == "over"),            # the match's result
    Mode("play", 200, lambda s, q: s.phase == "play"),              # a match's turns
    Mode("second-seat", 150,      # "Same phone: seat NAME?" (game/referee/phones.py)
         lambda s, q: s.phase == "idle" and s.join.question is not None),
    Mode("roster", 100, lambda s, q: s.phase == "idle" and s.picking is not None),
    Mode("attract", 0, lambda s, q: s.phase == "idle"),             # the idle screen
), key=lambda m: -m.priority))
"""The stack, highest priority first."""


def active(state: GameState, queued: bool) -> tuple[Mode, ...]:
    """The modes active now, highest first (``queued``: an end's steps wait to be seen)."""
    return tuple(m for m in MODES if m.active(state, queued))


def on_screen(state: GameState, queued: bool) -> ModeName:
    """The mode whose screen is shown: the highest active one."""
    for mode in MODES:
        if mode.active(state, queued):
            return mode.name
    raise ValueError(f"no mode is active in phase {state.phase!r}")


def buttons(state: GameState, queued: bool) -> ModeName:
    """The mode a press of ROLL or NEXT goes to: the highest active one that takes it."""
    for mode in MODES:
        if mode.active(state, queued) and mode.takes_buttons(state):
            return mode.name
    raise ValueError(f"no mode takes the buttons in phase {state.phase!r}")
