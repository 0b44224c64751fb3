"""An independent rating for the tests: the rules of the presets and a brute-force
expectimax written here, from the seeds' text, sharing no code with the solver.

Only what the presets use: any split of the dice's total, no multiplication, the
penalty the sum of the open tiles; one die once 7-9 are shut (klappenspiel, pub:
the player may still throw two) or only while the open tiles add up to less than 6
(crafthouse-12: one die is then the rule, no choice).
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

PRESET_TILES = {"klappenspiel": 9, "pub": 9, "crafthouse-12": 12}
SHUT_WINS = {"pub"}   # shutting the box wins the round outright only here


def two_dice() -> list[tuple[tuple[int, int], int]]:
    return [((a, b), 1) for a in range(1, 7) for b in range(1, 7)]   # 36 ordered throws


def dice_counts(preset: str, open_tiles: frozenset[int]) -> tuple[int, ...]:
    if preset == "crafthouse-12":
        return (1,) if sum(open_tiles) < 6 else (2,)
    return (1, 2) if not open_tiles & {7, 8, 9} else (2,)


def closures(open_tiles: frozenset[int], total: int) -> list[frozenset[int]]:
    found = []
    tiles = sorted(open_tiles)
    for size in range(1, len(tiles) + 1):
        for combo in combinations(tiles, size):
            if sum(combo) == total:
                found.append(frozenset(combo))
    return found


def throws(count: int) -> list[tuple[tuple[int, ...], int]]:
    if count == 1:
        return [((face,), 1) for face in range(1, 7)]
    return list(two_dice())


def better(preset: str, a: float, b: float) -> bool:
    return a > b if preset in SHUT_WINS else a < b


def pick(preset: str, values: list[float]) -> float:
    best = values[0]
    for v in values[1:]:
        if better(preset, v, best):
            best = v
    return best


@cache
def value(preset: str, open_tiles: frozenset[int]) -> float:
    """Expected penalty (or, where shutting wins, the chance to shut) under best play."""
    if not open_tiles:
        return 1.0 if preset in SHUT_WINS else 0.0
    return pick(preset, [count_value(preset, open_tiles, n)
                         for n in dice_counts(preset, open_tiles)])


@cache
def count_value(preset: str, open_tiles: frozenset[int], count: int) -> float:
    outcomes = throws(count)
    total = 0.0
    for dice, weight in outcomes:
        options = [value(preset, open_tiles - c) for c in closures(open_tiles, sum(dice))]
        if options:
            total += weight * pick(preset, options)
        else:
            total += weight * (0.0 if preset in SHUT_WINS else float(sum(open_tiles)))
    return total / sum(w for _, w in outcomes)


def closure_loss(preset: str, open_tiles: frozenset[int], dice: tuple[int, ...],
                 closed: frozenset[int]) -> float | None:
    """The points the closure lost (None: no choice, not a move)."""
    options = closures(open_tiles, sum(dice))
    if len(options) < 2:
        return None
    values = [value(preset, open_tiles - c) for c in options]
    chosen = value(preset, open_tiles - closed)
    gap = pick(preset, values) - chosen if preset in SHUT_WINS else chosen - pick(preset, values)
    return round(gap * (100.0 if preset in SHUT_WINS else 1.0), 9)


def dice_loss(preset: str, open_tiles: frozenset[int], count: int) -> float | None:
    counts = dice_counts(preset, open_tiles)
    if len(counts) < 2:
        return None
    values = [count_value(preset, open_tiles, n) for n in counts]
    chosen = count_value(preset, open_tiles, count)
    best = pick(preset, values)
    gap = best - chosen if preset in SHUT_WINS else chosen - best
    return round(gap * (100.0 if preset in SHUT_WINS else 1.0), 9)


def full(preset: str) -> frozenset[int]:
    return frozenset(range(1, PRESET_TILES[preset] + 1))
