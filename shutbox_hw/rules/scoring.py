"""The penalty a turn leaves: what is still open when no move remains."""

from __future__ import annotations

from .ruleset import RuleSet
from .tiles import Mask, full_board, tiles_of


def turn_score(rules: RuleSet, open_mask: Mask) -> int:
    """``sum``: 1, 5 and 9 open score 15. ``digits``: they read as 159 (seed 000)."""
    tiles = tiles_of(open_mask & full_board(rules.tiles))
    if not tiles:
        return 0
    if rules.scoring == "digits":
        return int("".join(str(t) for t in tiles))
    return sum(tiles)
