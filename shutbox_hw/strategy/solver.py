"""Answers for one rule set from its solved tables: the hints' source.

Each objective's table is made the first time it is asked for (loaded from
a :class:`TableStore` if one is given, else solved), so ``shutbox-hw solve``
pays for the objective it prints and nothing else.
"""

from __future__ import annotations

from typing import Protocol

from ..rules import Dice, Mask, RuleSet, full_board, has_any_move, legal_closures
from .tables import (
    THROWS,
    Moves,
    Number,
    Objective,
    Solution,
    check_objective,
    moves_for,
    policy_key,
    solve,
)


class TableStore(Protocol):
    """Somewhere solved tables are kept between runs (see :mod:`.cache`)."""

    def load(self, rules: RuleSet, objective: Objective) -> Solution | None: ...

    def save(self, rules: RuleSet, solution: Solution) -> None: ...


class Solver:
    """One rule set's tables, each objective made when first needed."""

    def __init__(self, rules: RuleSet, store: TableStore | None = None) -> None:
        self.rules = rules
        self.store = store
        self.tables: dict[Objective, Solution] = {}
        self._moves: Moves | None = None

    def solution(self, objective: str) -> Solution:
        name = check_objective(objective)
        table = self.tables.get(name)
        if table is None:
            table = self.store.load(self.rules, name) if self.store is not None else None
            if table is None:
                table = solve(self.rules, name, moves=self.moves())
                if self.store is not None:
                    self.store.save(self.rules, table)
            self.tables[name] = table
        return table

    def moves(self) -> Moves:
        """The closure lists, computed once and shared by both objectives."""
        if self._moves is None:
            self._moves = moves_for(self.rules)
        return self._moves

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
        return self.solution("max-shut").shut_probability[
            open_mask & full_board(self.rules.tiles)]

    def move_probability(self, open_mask: Mask) -> float:
        """The chance that the next throw has any legal move at all.

        Where the player may throw one die or two, this uses the number the
        max-shut policy throws. An empty board (box shut) has no next throw: 0.
        """
        open_mask &= full_board(self.rules.tiles)
        count = self.solution("max-shut").dice_count[open_mask]
        if not count:
            return 0.0
        denominator, throws = THROWS[count]
        hits = sum(weight for dice, weight in throws
                   if has_any_move(self.rules, open_mask, dice))
        return hits / denominator
