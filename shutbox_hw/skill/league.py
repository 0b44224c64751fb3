"""The bots' league: each bot plays the same seeded throws on a rule set, and the
rater scores its moves (``benchmarks/skill.py`` prints it; the tests check it)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules import RuleSet
from ..strategy.rating import Rater, Tables, Tally
from .bots import Bot, GreedyBot, OptimalBot, RandomBot, play_turn


@dataclass(frozen=True)
class Standing:
    bot: str
    turns: int
    tally: Tally

    @property
    def lost_per_turn(self) -> float:
        return self.tally.lost / self.turns if self.turns else 0.0


def bots(rules: RuleSet, tables: Tables, seed: int) -> list[Bot]:
    return [OptimalBot(rules, tables), GreedyBot(), RandomBot(random.Random(seed + 1))]


def league(rules: RuleSet, tables: Tables, turns: int, seed: int = 0) -> list[Standing]:
    """Every bot over ``turns`` turns; each bot's dice come from the same seed."""
    rater = Rater(rules, tables)
    standings = []
    for bot in bots(rules, tables, seed):
        dice = random.Random(seed)
        total = Tally()
        for _ in range(turns):
            total += rater.rate_turn(play_turn(rules, bot, dice)).tally
        standings.append(Standing(bot.name, turns, total))
    return standings
