"""Closures on small boards against an enumeration written here, independently."""

from itertools import chain, combinations, product
from math import prod

import pytest

from shutbox_hw.rules import build_rules, legal_closures, mask_of, tiles_of


def subsets(tiles):
    return chain.from_iterable(combinations(tiles, k) for k in range(1, len(tiles) + 1))


def brute_force(open_tiles, dice, closure, multiplication, n_tiles):
    """Straight from the seeds' wording, without the engine's tables."""
    legal = set()
    if closure == "sum-or-dice":
        total = sum(dice)
        if total in open_tiles:
            legal.add((total,))
        if len(dice) == 2 and dice[0] != dice[1] and set(dice) <= set(open_tiles):
            legal.add(tuple(sorted(dice)))
        return legal
    goals = {sum(dice)} | ({dice[0] * dice[1]} if multiplication and len(dice) == 2 else set())
    for group in subsets(sorted(open_tiles)):
        if sum(group) in goals or (multiplication and prod(group) in goals):
            legal.add(group)
    return legal


BOARDS = [
    [1, 2, 3], [2, 4, 6, 8], [1, 5, 9], [3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 10, 12], [2, 3, 8, 10, 12], [6, 7, 8, 9, 10, 11, 12], [1, 4, 6, 11],
]
ALL_DICE = [(a,) for a in range(1, 7)] + [(a, b) for a, b in product(range(1, 7), repeat=2)]


@pytest.mark.parametrize("closure,multiplication", [
    ("any-sum", False), ("any-sum", True), ("sum-or-dice", False)])
@pytest.mark.parametrize("board", BOARDS)
def test_closures_match_brute_force(board, closure, multiplication):
    rules = build_rules("crafthouse-12", {"closure": closure, "multiplication": multiplication})
    for dice in ALL_DICE:
        engine = {tuple(tiles_of(c)) for c in legal_closures(rules, mask_of(board), dice)}
        assert engine == brute_force(board, dice, closure, multiplication, 12), (board, dice)


def test_every_subset_of_a_six_tile_board_for_a_nine():
    rules = build_rules("klappenspiel")
    tiles = [1, 2, 3, 4, 5, 6]
    for k in range(0, 7):
        for board in combinations(tiles, k):
            engine = {tuple(tiles_of(c)) for c in legal_closures(rules, mask_of(board), (4, 5))}
            assert engine == brute_force(list(board), (4, 5), "any-sum", False, 9)
