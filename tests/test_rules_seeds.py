"""Every worked example in the three seed documents, with the seeds' numbers."""

import pytest

from shutbox_hw.rules import (
    build_rules,
    dice_choice,
    finish_round,
    full_board,
    legal_closures,
    mask_of,
    new_match,
    tiles_of,
    turn_score,
)


def closures_as_sets(rules, open_tiles, dice):
    return {frozenset(tiles_of(c)) for c in legal_closures(rules, mask_of(open_tiles), dice)}


def sets(*groups):
    return {frozenset(g) for g in groups}


def test_seed_002_total_of_8_with_every_tile_open():
    pub = build_rules("pub")
    expected = sets({8}, {7, 1}, {6, 2}, {5, 3}, {5, 2, 1}, {4, 3, 1})
    for dice in [(2, 6), (3, 5), (4, 4)]:
        assert closures_as_sets(pub, range(1, 10), dice) == expected


@pytest.mark.parametrize("dice", [(1, 3), (2, 2)])
def test_seed_000_002_one_five_nine_and_a_four(dice):
    pub = build_rules("pub")
    assert closures_as_sets(pub, [1, 5, 9], dice) == set()
    assert turn_score(pub, mask_of([1, 5, 9])) == 15
    digits = build_rules("klappenspiel", {"scoring": "digits"})
    assert turn_score(digits, mask_of([1, 5, 9])) == 159


def test_seed_000_any_split_of_nine():
    klapp = build_rules("klappenspiel")
    found = closures_as_sets(klapp, range(1, 10), (6, 3))
    # the seed's list: 9, 1+8, 2+7, 3+6, 4+5, 1+2+6, 1+3+5, ...
    for group in [{9}, {1, 8}, {2, 7}, {3, 6}, {4, 5}, {1, 2, 6}, {1, 3, 5}]:
        assert frozenset(group) in found
    assert frozenset({2, 3, 4}) in found


def test_seed_000_sum_or_dice():
    rules = build_rules("klappenspiel", {"closure": "sum-or-dice"})
    assert closures_as_sets(rules, range(1, 10), (6, 3)) == sets({9}, {3, 6})
    # doubles: only the total's tile; one die: only its face
    assert closures_as_sets(rules, range(1, 10), (2, 2)) == sets({4})
    assert closures_as_sets(rules, range(1, 10), (5,)) == sets({5})
    # both dice tiles must be open
    assert closures_as_sets(rules, [1, 2, 3, 4, 5, 6, 7, 8], (6, 3)) == sets({3, 6})
    assert closures_as_sets(rules, [1, 2, 4, 5, 6, 7, 8, 9], (6, 3)) == sets({9})


def test_seed_000_one_die_once_high_tiles_shut():
    klapp = build_rules("klappenspiel")
    assert dice_choice(klapp, full_board(9)) == "two"
    assert dice_choice(klapp, mask_of([1, 2, 3, 4, 5, 6, 9])) == "two"
    assert dice_choice(klapp, mask_of([1, 2, 3, 4, 5, 6])) == "one-or-two"
    # seed 002 says the same of 7, 8 and 9
    assert dice_choice(build_rules("pub"), mask_of([2, 6])) == "one-or-two"


def test_seed_001_one_die_below_six():
    crafthouse = build_rules("crafthouse-12")
    assert dice_choice(crafthouse, mask_of([1, 2, 3])) == "two"
    assert dice_choice(crafthouse, mask_of([1, 3])) == "one"
    assert dice_choice(crafthouse, mask_of([12])) == "two"


def test_seed_001_seven_examples():
    crafthouse = build_rules("crafthouse-12")
    found = closures_as_sets(crafthouse, range(1, 13), (3, 4))
    assert {frozenset({7}), frozenset({1, 6}), frozenset({1, 2, 4})} <= found


def test_seed_001_multiplication_four_and_six():
    rules = build_rules("crafthouse-12", {"multiplication": True})
    found = closures_as_sets(rules, range(1, 13), (4, 6))
    for group in [{10}, {2, 10, 12}, {2, 12}, {3, 8}]:
        assert frozenset(group) in found
    # without the rule only sums of 10 are allowed
    plain = closures_as_sets(build_rules("crafthouse-12"), range(1, 13), (4, 6))
    assert frozenset({2, 12}) not in plain and frozenset({10}) in plain


def test_seed_001_doubling_four_seven_zero():
    rules = build_rules("crafthouse-12", {"match": "single-round"})
    # three players whose turns left these tiles open: scores 4, 7 and 0
    state = finish_round(rules, new_match(3), [mask_of([4]), mask_of([7]), 0])
    assert state.rounds[0].raw == (4, 7, 0)
    assert state.rounds[0].final == (8, 14, 0)
    # the shutter in the middle still doubles a player who plays later
    state = finish_round(rules, new_match(3), [mask_of([4]), 0, mask_of([7])])
    assert state.rounds[0].final == (8, 0, 14)


# Seed 001's practice round, throw by throw: (dice, tiles closed); the last
# throw of each player has no move.
SEVEN_COMMON = [((6, 6), {12}), ((5, 6), {11}), ((4, 6), {10}), ((4, 5), {9}),
                ((3, 5), {8}), ((3, 4), {7}), ((3, 3), {6})]
PLAYER_A = SEVEN_COMMON + [((2, 3), {5}), ((2, 2), {4}), ((1, 1), {2}), ((2,), None)]
PLAYER_B = SEVEN_COMMON + [((3, 4), {3, 4}), ((3, 3), {1, 5}), ((1,), None)]


def play_turn(rules, throws):
    open_mask = full_board(rules.tiles)
    for dice, closed in throws:
        wanted = "one" if len(dice) == 1 else "two"
        assert dice_choice(rules, open_mask) == wanted
        closures = legal_closures(rules, open_mask, dice)
        if closed is None:
            assert closures == ()
            return open_mask
        assert mask_of(closed) in closures
        open_mask &= ~mask_of(closed)
    raise AssertionError("the turn did not end")


def test_seed_001_practice_round():
    rules = build_rules("crafthouse-12")
    a_open = play_turn(rules, PLAYER_A)
    b_open = play_turn(rules, PLAYER_B)
    assert tiles_of(a_open) == [1, 3] and turn_score(rules, a_open) == 4
    assert tiles_of(b_open) == [2] and turn_score(rules, b_open) == 2
    state = finish_round(rules, new_match(2), [a_open, b_open])
    assert state.rounds[0].final == (4, 2)
    assert state.rounds[0].winners == (1,)
    assert state.totals == (4, 2) and not state.over  # a race to 100 goes on
