"""The idle screen's pages: the rule set, tonight's figures, then the high scores.

Each page shows for :data:`ATTRACT_PAGE_MS`, the cycle starting again with the
rule set. Tonight's page is there once a game of tonight finished; a
high-score table once it has somebody in it, and this week's or all time's
only where it differs from the shorter period's (on a new box the three are
the same table: it is shown once). Turning a page is not activity: the display
still dims and blanks on its idle timers (hal/adapters/burn_in.py moves the picture by
a pixel meanwhile), so a box left idle all night does not keep its panel lit.
"""

from __future__ import annotations

from ...base.events import HighScores, Tonight
from ..model.state import GameState

ATTRACT_PAGE_MS = 6000
"""How long each page of the idle screen shows."""

FAULT = "fault"   # the page of the box's current fault (game/display/view.py: a notice)
Page = Tonight | HighScores | str | None    # None: the rule set


def pages(state: GameState) -> list[Page]:
    """The idle screen's pages in their order (the rule set first)."""
    out: list[Page] = [None]
    if state.tonight is not None and state.tonight.games:
        out.append(state.tonight)
    shown: dict[str, tuple[tuple[str, float], ...]] = {}
    for table in state.high_scores:
        if table.entries and shown.get(table.kind) != table.entries:
            out.append(table)
        shown[table.kind] = table.entries
    if state.faults:   # idle, a fault had only the red light: it gets a page of its own
        out.append(FAULT)
    return out


def page(state: GameState) -> Page:
    """The page the idle screen shows now."""
    cycle = pages(state)
    return cycle[state.now // ATTRACT_PAGE_MS % len(cycle)]


def next_ms(state: GameState) -> int | None:
    """When the idle screen turns its page (only once there is more than one)."""
    if state.phase != "idle" or len(pages(state)) < 2:
        return None
    return (state.now // ATTRACT_PAGE_MS + 1) * ATTRACT_PAGE_MS
