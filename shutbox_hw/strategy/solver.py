"""Answers for one rule set from its two solved tables: the hints' source."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Dice, Mask, RuleSet, full_board, has_any_move, legal_closures
from .tables import THROWS, Number, Solution, check_objective, policy_key


@dataclass(frozen=True)
class Solver:
    """Both objectives' tables for one rule set (see :func:`.solver_for`)."""

    rules: RuleSet
    tables: dict[str, Solution]

    def solution(self, objective: str) -> Solution:
        return self.tables[check_objective(objective)]

    def closure_values(self, objective: str, open_mask: Mask,
                       dice: Dice) -> list[tuple[Mask, Number]]:
        """Every legal closure of the throw with the objective's value of the
        position it leaves, best first (the policy's tie-breaks decide order)."""
        solution = self.solution(objective)
        open_mask &= full_board(self.rules.tiles)
        closures = sorted(legal_closures(self.rules, open_mask, dice),
                          key=lambda c: policy_key(solution, open_mask & ~c))
        return [(c, solution.value(open_mask & ~c)) for c in closures]

    def best_closure(self, objective: str, open_mask: Mask, dice: Dice) -> Mask | None:
        """The optimal closure for the throw, or None when it has no move."""
        ranked = self.closure_values(objective, open_mask, dice)
        return ranked[0][0] if ranked else None

    def expected_score(self, objective: str, open_mask: Mask) -> Number:
        return self.solution(objective).expected_score[open_mask & full_board(self.rules.tiles)]

    def shut_probability(self, open_mask: Mask) -> Number:
        """The chance to shut the box from here under max-shut optimal play."""
        return self.tables["max-shut"].shut_probability[
            open_mask & full_board(self.rules.tiles)]

    def move_probability(self, open_mask: Mask) -> float:
        """The chance that the next throw has any legal move at all.

        Where the player may throw one die or two, this uses the number the
        max-shut policy throws. An empty board (box shut) has no next throw: 0.
        """
        open_mask &= full_board(self.rules.tiles)
        count = self.tables["max-shut"].dice_count[open_mask]
        if not count:
            return 0.0
        denominator, throws = THROWS[count]
        hits = sum(weight for dice, weight in throws
                   if has_any_move(self.rules, open_mask, dice))
        return hits / denominator
