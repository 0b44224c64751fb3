"""Optimal single-turn play by dynamic programming over the sets of open tiles.

From an open set S the player (where the rules allow it) first chooses one
die or two, then the throw is random (two dice: 36 equally likely ordered
outcomes; one die: 6 faces), then the player shuts one legal closure C, or
the turn ends with S open when there is none. So

    value(S) = best over dice counts of E_throw[best over C of value(S - C)]

with the terminal value ``turn_score(S)`` (objective ``min-score``,
minimised) or ``1 if S is empty else 0`` (``max-shut``, maximised). Every
S - C is a smaller number than S, so one pass over the masks in increasing
order fills the table.

Ties are broken the same way everywhere (the table, :func:`policy_key`,
the hints): first the objective's own value, then the other objective's
value under this policy (``min-score`` prefers the higher chance to shut,
``max-shut`` the lower expected score), then the lowest remaining mask
S - C, i.e. the closure that shuts the higher tiles. Between one die and
two the last resort is two dice, the box's ordinary throw. With floats,
values equal to 12 significant digits count as tied (so rounding noise
cannot pick a move); exact mode compares fractions exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from ..base.errors import UserError
from ..rules import (
    ONE_DIE_THROWS,
    TWO_DICE_THROWS,
    Dice,
    Mask,
    RuleSet,
    allowed_dice_counts,
    dice_choice,
    full_board,
    legal_closures,
    turn_score,
)

Objective = Literal["min-score", "max-shut"]
OBJECTIVES: tuple[Objective, ...] = ("min-score", "max-shut")
Number = float | Fraction
# Throws with their weight out of the denominator: ordered outcomes of two
# dice (a double once, any other pair twice, out of 36); one die: 1 of 6.
THROWS: dict[int, tuple[int, tuple[tuple[Dice, int], ...]]] = {
    2: (36, tuple((dice, 1 if dice[0] == dice[1] else 2) for dice in TWO_DICE_THROWS)),
    1: (6, tuple((dice, 1) for dice in ONE_DIE_THROWS)),
}


class ObjectiveError(UserError, ValueError):
    """An objective name the solver does not know."""


def check_objective(objective: str) -> Objective:
    if objective not in OBJECTIVES:
        raise ObjectiveError(
            f"unknown objective {objective!r} (objectives: {', '.join(OBJECTIVES)})")
    return objective


def rules_key(rules: RuleSet) -> tuple[int, str, bool, str, str]:
    """The rule keys that change the solver's answer (match keys do not)."""
    return (rules.tiles, rules.closure, rules.multiplication, rules.one_die, rules.scoring)


@dataclass(frozen=True)
class Solution:
    """One objective's optimal policy, evaluated on both metrics.

    Every sequence is indexed by the open mask (0 .. 2**tiles - 1).
    ``dice_count`` is the number of dice the policy throws there (0 when
    the box is already shut).
    """

    rules_key: tuple[int, str, bool, str, str]
    objective: Objective
    expected_score: Sequence[Number]
    shut_probability: Sequence[Number]
    dice_count: bytes

    def value(self, open_mask: Mask) -> Number:
        """The objective's own metric at ``open_mask``."""
        if self.objective == "min-score":
            return self.expected_score[open_mask]
        return self.shut_probability[open_mask]


def _rounded(x: Number) -> Number:
    return float(format(x, ".12g")) if isinstance(x, float) else x


Key = tuple[Number, Number, int]


def _key(objective: Objective, score: Number, shut: Number, last: int) -> Key:
    """Smaller is better: own metric, the other metric, then ``last``."""
    score, shut = _rounded(score), _rounded(shut)
    if objective == "min-score":
        return (score, -shut, last)
    return (-shut, score, last)


def policy_key(solution: Solution, remaining: Mask) -> Key:
    """How the policy ranks leaving ``remaining`` open (smaller is better)."""
    return _key(solution.objective, solution.expected_score[remaining],
                solution.shut_probability[remaining], remaining)


@dataclass(frozen=True)
class Moves:
    """What every position allows, shared by both objectives.

    ``after[g][S]`` lists the masks S - C for the legal closures C of throw
    group ``g`` (throws with the same closures on the full board share one
    group, e.g. every throw of one target), and ``groups[n]`` the
    denominator and the (group, weight) pairs for n dice.
    """

    after: list[list[Sequence[Mask]]]
    groups: dict[int, tuple[int, tuple[tuple[int, int], ...]]]
    counts: list[tuple[int, ...]]
    terminal_score: list[int]


NO_MOVE: tuple[Mask, ...] = ()


def moves_for(rules: RuleSet) -> Moves:
    """Precompute the closure lists once per rule set.

    A closure is legal wherever its tiles are all open (the engine filters
    the full board's closures by the open set; tests check it). Groups that
    two dice use are filled by entering each closure C once for every
    superset S of C; groups only one die uses (allowed at few positions)
    by filtering their closures at just those positions. Positions without
    a move share one empty tuple.
    """
    full = full_board(rules.tiles)
    counts = [allowed_dice_counts(dice_choice(rules, s)) for s in range(full + 1)]
    lists: dict[tuple[Mask, ...], int] = {}
    used_by: dict[int, set[int]] = {}
    groups: dict[int, tuple[int, tuple[tuple[int, int], ...]]] = {}
    for count, (denominator, throws) in THROWS.items():
        weights: dict[int, int] = {}
        for dice, weight in throws:
            closures = legal_closures(rules, full, dice)
            group = lists.setdefault(closures, len(lists))
            used_by.setdefault(group, set()).add(count)
            weights[group] = weights.get(group, 0) + weight
        groups[count] = (denominator, tuple(sorted(weights.items())))
    one_die_masks = [s for s in range(full + 1) if 1 in counts[s]]
    after: list[list[Sequence[Mask]]] = []
    for closures, group in lists.items():
        rests: list[Sequence[Mask]]
        if 2 in used_by[group]:
            lists_by_mask: list[list[Mask]] = [[] for _ in range(full + 1)]
            for closure in closures:
                outside = full & ~closure
                sub = outside
                while True:  # every sub-mask of the tiles outside the closure
                    lists_by_mask[closure | sub].append(sub)
                    if not sub:
                        break
                    sub = (sub - 1) & outside
            rests = [entry or NO_MOVE for entry in lists_by_mask]
        else:
            rests = [NO_MOVE] * (full + 1)
            for s in one_die_masks:
                rests[s] = [s ^ c for c in closures if c & s == c] or NO_MOVE
        after.append(rests)
    terminal = [turn_score(rules, s) for s in range(full + 1)]
    return Moves(after, groups, counts, terminal)


def solve(rules: RuleSet, objective: str, *, exact: bool = False,
          moves: Moves | None = None) -> Solution:
    """The optimal policy for ``objective`` and both its metrics, per open mask.

    ``exact`` uses :class:`fractions.Fraction` throughout (slower); ``moves``
    (from :func:`moves_for` of the same rules) saves recomputing them when
    both objectives are wanted.
    """
    return _solve(rules, check_objective(objective), moves or moves_for(rules), exact=exact)


def _solve(rules: RuleSet, objective: Objective, moves: Moves, *, exact: bool) -> Solution:
    size = len(moves.counts)
    one: Number = Fraction(1) if exact else 1.0
    zero: Number = one - one
    score: list[Number] = [zero] * size
    shut: list[Number] = [zero] * size
    keys: list[Key] = [_key(objective, zero, one, 0)] * size
    dice_count = bytearray(size)
    shut[0] = one
    pick = keys.__getitem__
    after, groups, terminal, counts = moves.after, moves.groups, moves.terminal_score, moves.counts
    for s in range(1, size):
        end_score = terminal[s]
        best: tuple[Number, Number, int] | None = None
        for count in counts[s]:
            denominator, weights = groups[count]
            total_score: Number = zero
            total_shut: Number = zero
            for group, weight in weights:
                rests = after[group][s]
                if rests:
                    rest = min(rests, key=pick)
                    total_score += weight * score[rest]
                    total_shut += weight * shut[rest]
                else:  # no move: the turn ends with s open (shut stays 0)
                    total_score += weight * end_score
            total_score /= denominator
            total_shut /= denominator
            if best is None:
                best = (total_score, total_shut, count)
            elif (_key(objective, total_score, total_shut, -count)
                  < _key(objective, best[0], best[1], -best[2])):
                best = (total_score, total_shut, count)
        assert best is not None
        score[s], shut[s], dice_count[s] = best
        keys[s] = _key(objective, best[0], best[1], s)
    return Solution(rules_key(rules), objective, score, shut, bytes(dice_count))
