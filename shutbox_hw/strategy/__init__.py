"""Optimal play: exact single-turn strategy for every rule set the engine takes.

The game asks these functions for hints; they use the cached tables of
:func:`solver_for` (memory, then disk, then a solve of well under a second).
"""

from __future__ import annotations

from ..rules import Dice, Mask, RuleSet
from .cache import default_cache_dir, forget_loaded, solver_for
from .solver import Solver
from .tables import (OBJECTIVES, Number, Objective, ObjectiveError, Solution, solve,
                     solve_all)


def best_closure(rules: RuleSet, objective: str, open_mask: Mask, dice: Dice) -> Mask | None:
    """The optimal closure for this throw, or None when it has no legal move."""
    return solver_for(rules).best_closure(objective, open_mask, dice)


def closure_values(rules: RuleSet, objective: str, open_mask: Mask,
                   dice: Dice) -> list[tuple[Mask, Number]]:
    """Every legal closure with the objective's value after it, best first."""
    return solver_for(rules).closure_values(objective, open_mask, dice)


def shut_probability(rules: RuleSet, open_mask: Mask) -> float:
    """The chance to shut the box from ``open_mask`` under max-shut optimal play."""
    return float(solver_for(rules).shut_probability(open_mask))


def move_probability(rules: RuleSet, open_mask: Mask) -> float:
    """The chance that the next throw has any legal move (see :class:`Solver`)."""
    return solver_for(rules).move_probability(open_mask)


__all__ = [
    "OBJECTIVES", "Number", "Objective", "ObjectiveError", "Solution", "Solver",
    "best_closure", "closure_values", "default_cache_dir", "forget_loaded",
    "move_probability", "shut_probability", "solve", "solve_all", "solver_for",
]
