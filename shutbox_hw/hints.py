"""Hints on the box: the solver's tables behind the controller's Advisor port.

The real daemon and the simulator both get their advisor here. Tables come
from the disk cache (see :mod:`shutbox_hw.strategy.cache`), so start-up does
not recompute them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .rules import Dice, Mask, RuleSet

if TYPE_CHECKING:
    from .config import Config


class SolverAdvisor:
    """Best closures for one objective; chances always under max-shut play."""

    def __init__(self, rules: RuleSet, objective: str = "min-score") -> None:
        from .strategy import solver_for
        self.objective = objective
        self.solver = solver_for(rules)

    def best_closure(self, open_mask: Mask, dice: Dice) -> Mask | None:
        return self.solver.best_closure(self.objective, open_mask, dice)

    def shut_probability(self, open_mask: Mask) -> float:
        return float(self.solver.shut_probability(open_mask))

    def move_probability(self, open_mask: Mask) -> float:
        return float(self.solver.move_probability(open_mask))


def advisor_for(config: Config) -> SolverAdvisor | None:
    """None when hints are off (the solver is not even loaded)."""
    if config.game.hints == "off":
        return None
    return SolverAdvisor(config.rules, config.game.hint_objective)
