"""Move accuracy: every choice a player made, against the solver's best (pure).

A *move* is a decision with more than one option:

- ``closure``: which tiles to shut, when the throw allows more than one closure;
- ``dice``: one die or two, where the rules let the player choose (the number of
  dice recorded with the throw is the choice).

Each move is valued with the solver's table for the rule set's objective
(:func:`objective_for`); the *loss* is how much worse the chosen option is than the
best one, always >= 0, and 0 for a best move. Values equal to 12 significant
digits are tied, and a tie counts as best. A throw with one option is no move;
dice the box did not see (manual dice) are not rated.

The loss is in *points*: for ``min-score`` the expected penalty points given away
this turn; for ``max-shut`` the percentage points of the chance to shut.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ..rules import (
    Dice,
    Mask,
    RuleSet,
    allowed_dice_counts,
    dice_choice,
    full_board,
    legal_closures,
    rules_from_dict,
    turn_score,
)
from .tables import THROWS, Objective, Solution

MoveKind = Literal["closure", "dice"]

# The one place that says which objective rates a rule set's moves: where shutting
# the box wins the round outright (``shut_the_box = instant-win``: the ``pub``
# preset) only the chance to shut matters; everywhere else (``score-zero``:
# klappenspiel; ``double-others``: crafthouse-12) the penalty the turn leaves does.
OBJECTIVE_BY_SHUT_THE_BOX: dict[str, Objective] = {
    "instant-win": "max-shut",
    "score-zero": "min-score",
    "double-others": "min-score",
}


def objective_for(rules: RuleSet) -> Objective:
    """The objective a rule set's moves are rated by (see :data:`OBJECTIVE_BY_SHUT_THE_BOX`)."""
    return OBJECTIVE_BY_SHUT_THE_BOX.get(rules.shut_the_box, "min-score")


class Tables(Protocol):
    """What the rating needs of a :class:`~.solver.Solver`."""

    def solution(self, objective: str) -> Solution: ...


@dataclass(frozen=True)
class Move:
    """One decision: the option chosen, the best one, and the points lost.

    For ``closure`` the options are masks of tiles; for ``dice`` the number of dice.
    """

    kind: MoveKind
    chosen: int
    best: int
    loss: float

    @property
    def is_best(self) -> bool:
        return self.loss == 0.0


@dataclass(frozen=True)
class RatedThrow:
    """One recorded throw: the tiles open before it, and its moves (none, one or two)."""

    number: int
    open_mask: Mask
    dice: Dice | None
    closed: Mask | None
    moves: tuple[Move, ...]


def percent_of(best: int, moves: int) -> float | None:
    """The share of best moves in per cent, unrounded; None without a move."""
    return 100.0 * best / moves if moves else None


def accuracy_percent(best: int, moves: int) -> float | None:
    """The move accuracy as every surface shows it (the players' pages and command,
    the high scores, a player's games and skill chart): the share of best moves in
    per cent to one decimal; None without a move."""
    percent = percent_of(best, moves)
    return None if percent is None else round(percent, 1)


@dataclass(frozen=True)
class Tally:
    """Best moves of all moves, and the points lost (a turn, a game, a player)."""

    moves: int = 0
    best: int = 0
    lost: float = 0.0

    @property
    def percent(self) -> float | None:
        """The share of best moves in per cent; None without a move."""
        return percent_of(self.best, self.moves)

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.moves + other.moves, self.best + other.best, self.lost + other.lost)


@dataclass(frozen=True)
class TurnRating:
    objective: Objective
    throws: tuple[RatedThrow, ...]

    @property
    def tally(self) -> Tally:
        moves = [m for t in self.throws for m in t.moves]
        return Tally(len(moves), sum(m.is_best for m in moves),
                     _points(sum(m.loss for m in moves)))


def _tied(a: float, b: float) -> bool:
    return format(a, ".12g") == format(b, ".12g")


def _points(x: float) -> float:
    """A loss, or a sum of losses, to 12 significant digits (never below 0)."""
    value = float(format(x, ".12g"))
    return value if value > 0 else 0.0


class Rater:
    """Rates throws of one rule set with its solver's table for its objective.

    ``rules`` is the game's own rule set: a solver is shared by rule sets that differ
    only in keys the tables ignore (klappenspiel and pub), whose objectives differ.
    """

    def __init__(self, rules: RuleSet, tables: Tables) -> None:
        self.rules = rules
        self.objective = objective_for(self.rules)
        self.solution = tables.solution(self.objective)
        self.scale = 100.0 if self.objective == "max-shut" else 1.0
        self.full = full_board(self.rules.tiles)

    def _value(self, open_mask: Mask) -> float:
        return float(self.solution.value(open_mask))

    def _end_value(self, open_mask: Mask) -> float:
        """The value of a turn that ends with ``open_mask`` open (no move)."""
        if self.objective == "min-score":
            return float(turn_score(self.rules, open_mask))
        return 1.0 if open_mask == 0 else 0.0

    def _loss(self, chosen: float, best: float) -> float:
        """The points lost; 0 for values tied to 12 significant digits (as the solver
        ties them: rounding noise is no loss)."""
        if _tied(chosen, best):
            return 0.0
        gap = chosen - best if self.objective == "min-score" else best - chosen
        return _points(gap * self.scale)

    def _better(self, a: float, b: float) -> bool:
        return a < b if self.objective == "min-score" else a > b

    def best_of(self, values: Sequence[tuple[int, float]]) -> tuple[int, float]:
        """The best option and its value (the first listed of tied ones)."""
        best = values[0]
        for option in values[1:]:
            if self._better(option[1], best[1]):
                best = option
        return best

    def dice_value(self, open_mask: Mask, count: int) -> float:
        """The value of throwing ``count`` dice here, then playing on optimally."""
        denominator, throws = THROWS[count]
        total = 0.0
        for dice, weight in throws:
            options = [self._value(open_mask & ~c)
                       for c in legal_closures(self.rules, open_mask, dice)]
            if options:
                total += weight * self.best_of(list(enumerate(options)))[1]
            else:
                total += weight * self._end_value(open_mask)
        return total / denominator

    def rate_throw(self, number: int, open_mask: Mask, dice: Dice | None,
                   closed: Mask | None) -> RatedThrow:
        open_mask &= self.full
        moves: list[Move] = []
        if dice:
            counts = allowed_dice_counts(dice_choice(self.rules, open_mask))
            if len(counts) > 1 and len(dice) in counts:
                values = [(n, self.dice_value(open_mask, n)) for n in counts]
                chosen = dict(values)[len(dice)]
                best_count, best = self.best_of(sorted(values, key=lambda v: -v[0]))
                loss = self._loss(chosen, best)
                moves.append(Move("dice", len(dice), len(dice) if loss == 0 else best_count,
                                  loss))
            closures = legal_closures(self.rules, open_mask, dice)
            if closed is not None and closed in closures and len(closures) > 1:
                values = [(c, self._value(open_mask & ~c)) for c in closures]
                best_closure, best = self.best_of(values)
                loss = self._loss(dict(values)[closed], best)
                moves.append(Move("closure", closed, closed if loss == 0 else best_closure,
                                  loss))
        return RatedThrow(number, open_mask, dice, closed, tuple(moves))

    def rate_turn(self, throws: Sequence[tuple[Dice | None, Mask | None]]) -> TurnRating:
        """Rate a turn's throws in order: ``(dice, closed)`` each, ``dice`` None for
        manual dice, ``closed`` None for a throw with nothing shut (the last)."""
        open_mask = self.full
        rated = []
        for number, (dice, closed) in enumerate(throws, start=1):
            rated.append(self.rate_throw(number, open_mask, dice, closed))
            open_mask &= ~(closed or 0)
        return TurnRating(self.objective, tuple(rated))


def rater_for_record(rules_json: str, tables_for: Callable[[RuleSet], Tables]) -> Rater | None:
    """The rater for a game's rules as the record keeps them (``games.rules``); None for
    rules this version cannot read (such a game is never rated). ``tables_for`` gives
    the rule set's solver (it may solve, or raise when no solver is to be had)."""
    try:
        rules = rules_from_dict(json.loads(rules_json))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return Rater(rules, tables_for(rules))
