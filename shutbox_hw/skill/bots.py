"""Seeded bots that play turns, to validate the move accuracy (tests, benchmarks).

- :class:`OptimalBot` plays the solver's policy for the rule set's rated objective:
  it must score 100 % best moves;
- :class:`GreedyBot` shuts the closure with the largest tile (then the fewest tiles)
  and throws two dice whenever it may: a pub regular's rule of thumb;
- :class:`RandomBot` picks any legal closure and any allowed number of dice.

A turn is played with a seeded :class:`random.Random` for the dice, so the same
seed gives the same throws to whichever bot makes the choices.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..rules import (
    Dice,
    Mask,
    RuleSet,
    allowed_dice_counts,
    dice_choice,
    full_board,
    legal_closures,
    tiles_of,
)
from ..strategy.rating import Tables, objective_for
from ..strategy.tables import policy_key

Throw = tuple[Dice, Mask | None]


class Bot(Protocol):
    name: str

    def dice_count(self, open_mask: Mask, counts: Sequence[int]) -> int: ...

    def closure(self, open_mask: Mask, dice: Dice, closures: Sequence[Mask]) -> Mask: ...


class OptimalBot:
    name = "optimal"

    def __init__(self, rules: RuleSet, tables: Tables) -> None:
        self.solution = tables.solution(objective_for(rules))

    def dice_count(self, open_mask: Mask, counts: Sequence[int]) -> int:
        return self.solution.dice_count[open_mask]

    def closure(self, open_mask: Mask, dice: Dice, closures: Sequence[Mask]) -> Mask:
        return min(closures, key=lambda c: policy_key(self.solution, open_mask & ~c))


class GreedyBot:
    name = "greedy"

    def dice_count(self, open_mask: Mask, counts: Sequence[int]) -> int:
        return max(counts)

    def closure(self, open_mask: Mask, dice: Dice, closures: Sequence[Mask]) -> Mask:
        return max(closures, key=lambda c: (max(tiles_of(c)), -len(tiles_of(c))))


class RandomBot:
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def dice_count(self, open_mask: Mask, counts: Sequence[int]) -> int:
        return self.rng.choice(list(counts))

    def closure(self, open_mask: Mask, dice: Dice, closures: Sequence[Mask]) -> Mask:
        return self.rng.choice(list(closures))


def play_turn(rules: RuleSet, bot: Bot, dice_rng: random.Random) -> list[Throw]:
    """One turn from the full board: ``(dice, closed)`` per throw, the last with
    ``closed`` None when no move is left (none after the box is shut)."""
    open_mask = full_board(rules.tiles)
    throws: list[Throw] = []
    while open_mask:
        counts = allowed_dice_counts(dice_choice(rules, open_mask))
        count = bot.dice_count(open_mask, counts) if len(counts) > 1 else counts[0]
        dice = tuple(dice_rng.randint(1, 6) for _ in range(count))
        closures = legal_closures(rules, open_mask, dice)
        if not closures:
            throws.append((dice, None))
            break
        closed = bot.closure(open_mask, dice, closures)
        throws.append((dice, closed))
        open_mask &= ~closed
    return throws
