"""The seeded bots rank as skill should: optimal 100 %, then greedy, then random."""

from __future__ import annotations

import math
import random

import pytest
from recorded import expected

from shutbox_hw.rules import build_rules, tiles_of
from shutbox_hw.skill.bots import GreedyBot, RandomBot, play_turn
from shutbox_hw.skill.league import league
from shutbox_hw.strategy import solver_for
from shutbox_hw.strategy.rating import Rater

PRESETS = ("klappenspiel", "crafthouse-12", "pub")
TURNS = 2000


@pytest.mark.parametrize("preset", PRESETS)
def test_the_bots_rank_optimal_greedy_random_with_clear_gaps(preset, tmp_path):
    rules = build_rules(preset)
    optimal, greedy, rand = league(rules, solver_for(rules, cache_dir=tmp_path), TURNS, seed=7)
    assert [s.bot for s in (optimal, greedy, rand)] == ["optimal", "greedy", "random"]
    assert optimal.tally.moves > TURNS   # thousands of moves, not a handful
    assert optimal.tally.percent == 100.0 and optimal.tally.lost == 0.0
    # clear separation: the shares of best moves ten standard errors apart (and at
    # least three percentage points), the points lost a turn in the same order
    for better, worse in ((optimal, greedy), (greedy, rand)):
        assert _z(better.tally, worse.tally) > 10
        assert better.tally.percent - worse.tally.percent > 3
    assert 0 < greedy.lost_per_turn and 2 * greedy.lost_per_turn < rand.lost_per_turn


def _z(a, b):
    """How many standard errors the two shares of best moves are apart (binomial)."""
    pa, pb = a.best / a.moves, b.best / b.moves
    return (pa - pb) / math.sqrt(pa * (1 - pa) / a.moves + pb * (1 - pb) / b.moves)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_rater_agrees_with_the_brute_force_on_bot_turns(preset, tmp_path):
    """A few hundred of the bots' turns rated by the brute force of rating_truth.py."""
    rules = build_rules(preset)
    rater = Rater(rules, solver_for(rules, cache_dir=tmp_path))
    for bot in (GreedyBot(), RandomBot(random.Random(3))):
        dice = random.Random(11)
        for _ in range(100):
            throws = play_turn(rules, bot, dice)
            got = rater.rate_turn(throws).tally
            moves, best, lost = expected(
                [(d, tiles_of(c) if c is not None else None) for d, c in throws], preset)
            assert (got.moves, got.best) == (moves, best)
            assert got.lost == pytest.approx(lost, abs=1e-6)


def test_the_greedy_bot_shuts_the_largest_tile():
    rules = build_rules("klappenspiel")
    bot = GreedyBot()
    assert tiles_of(bot.closure(0b111111111, (4, 5), [0b100000000, 0b10001000, 0b110000]))\
        == [9]
    turn = play_turn(rules, bot, random.Random(0))
    assert all(len(d) == 2 for d, _ in turn)   # two dice whenever it may
