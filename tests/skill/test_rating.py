"""The pure rating against the brute force of rating_truth.py (no solver tables) and
the seeds' practice round."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rating_truth import closure_loss, closures, dice_counts, dice_loss, full

from shutbox_hw.rules import build_rules, mask_of, tiles_of
from shutbox_hw.strategy import solver_for
from shutbox_hw.strategy.rating import OBJECTIVE_BY_SHUT_THE_BOX, Rater, objective_for

PRESETS = ("klappenspiel", "crafthouse-12", "pub")


@pytest.fixture(scope="module")
def raters(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    return {p: Rater(build_rules(p), solver_for(build_rules(p), cache_dir=cache))
            for p in PRESETS}


def test_the_objective_is_the_chance_to_shut_only_where_shutting_wins():
    assert {p: objective_for(build_rules(p)) for p in PRESETS} == {
        "klappenspiel": "min-score", "crafthouse-12": "min-score", "pub": "max-shut"}
    assert set(OBJECTIVE_BY_SHUT_THE_BOX) == {"score-zero", "instant-win", "double-others"}


# Positions worked out by hand (klappenspiel: one die allowed once 7-9 are shut).
# {3}: one die shuts it with a 3 (1/6), two dice with (1, 2) or (2, 1) (2/36):
#   one die 5/6 * 3 = 2.5 points expected, two dice 34/36 * 3.
# {4}: one die 5/6 * 4 = 10/3; {1}: one die 5/6 (two dice never make 1: 1 point).
# {1, 4}: one die: a 1 -> {4} (10/3), a 4 -> {1} (5/6), a 5 -> shut (0), else 5 points:
#   (10/3 + 5/6 + 0 + 3 * 5) / 6 = 115/36. Two dice: a 5 (4/36) shuts, a 4 (3/36)
#   leaves {1}, the other 29/36 score 5: 29/36 * 5 + 3/36 * 5/6 = 295/72.
#   Two dice there lose 295/72 - 115/36 = 65/72 points.
def test_hand_figures_for_small_boards(raters):
    rater = raters["klappenspiel"]
    assert rater.dice_value(mask_of([3]), 1) == pytest.approx(5 / 6 * 3)
    assert rater.dice_value(mask_of([3]), 2) == pytest.approx(34 / 36 * 3)
    assert rater.dice_value(mask_of([1, 4]), 1) == pytest.approx(115 / 36)
    assert rater.dice_value(mask_of([1, 4]), 2) == pytest.approx(295 / 72)
    [dice_move] = rater.rate_throw(1, mask_of([1, 4]), (1, 4), mask_of([1, 4])).moves
    assert (dice_move.kind, dice_move.chosen, dice_move.best) == ("dice", 2, 1)
    assert dice_move.loss == pytest.approx(65 / 72)
    # with 9 open there is no dice choice, and (1, 4) then only shuts 1+4 (or 5, shut)
    assert rater.rate_throw(1, mask_of([1, 4, 9]), (1, 4), mask_of([1, 4])).moves == ()
    # {1, 2, 3} and a 3: shut 3 (leaves {1, 2}) or 1+2 (leaves {3}: 2.5)
    dice, move = rater.rate_throw(1, mask_of([1, 2, 3]), (1, 2), mask_of([1, 2])).moves
    assert dice.kind == "dice"   # 7-9 are shut: two dice were a choice too
    want = closure_loss("klappenspiel", frozenset({1, 2, 3}), (1, 2), frozenset({1, 2}))
    assert move.kind == "closure" and move.loss == pytest.approx(want, abs=1e-9)
    assert (move.loss == 0) == (move.best == move.chosen)


def test_the_seeds_practice_round(raters, practice):
    """Seed 001's practice round on crafthouse-12: player B shut 3+4 with (3, 4) on
    1-5 open, then 1+5 with (3, 3); every move against the brute force."""
    rater = raters["crafthouse-12"]
    for throws in practice:
        rating = rater.rate_turn([(d, mask_of(c) if c else None) for d, c in throws])
        open_tiles = full("crafthouse-12")
        for (dice, closed), rated in zip(throws, rating.throws, strict=True):
            want = [] if closed is None else [
                loss for loss in [closure_loss("crafthouse-12", open_tiles, dice,
                                               frozenset(closed))] if loss is not None]
            assert [m.loss for m in rated.moves] == pytest.approx(want, abs=1e-9)
            open_tiles -= set(closed or ())
    b = rater.rate_turn([(d, mask_of(c) if c else None) for d, c in practice.player_b])
    assert b.tally.moves >= 2   # (3, 4) and (3, 3) on 1..5 had choices


def test_manual_dice_and_no_choice_are_not_moves(raters):
    rater = raters["klappenspiel"]
    rating = rater.rate_turn([(None, mask_of([9])), (None, mask_of([1, 7])), ((6, 6), None)])
    assert rating.tally.moves == 0 and rating.tally.percent is None


def test_where_shutting_wins_the_loss_is_in_points_of_the_chance_to_shut(raters):
    rater = raters["pub"]
    start = frozenset({1, 2, 3, 4})
    rated = rater.rate_throw(1, mask_of(start), (1, 3), mask_of([4]))
    want = closure_loss("pub", start, (1, 3), frozenset({4}))
    assert [m.kind for m in rated.moves] == ["dice", "closure"]
    assert rated.moves[1].loss == pytest.approx(want, abs=1e-9)
    assert rated.moves[0].loss == pytest.approx(dice_loss("pub", start, 2), abs=1e-9)


POSITIONS = {p: [m for m in range(1, 1 << len(full(p)))] for p in PRESETS}


@settings(max_examples=300, deadline=None)
@given(preset=st.sampled_from(PRESETS), data=st.data())
def test_every_move_matches_the_brute_force(raters, preset, data):
    rater = raters[preset]
    open_mask = data.draw(st.sampled_from(POSITIONS[preset]))
    open_tiles = frozenset(tiles_of(open_mask))
    count = data.draw(st.sampled_from(dice_counts(preset, open_tiles)))
    dice = tuple(data.draw(st.integers(1, 6)) for _ in range(count))
    options = closures(open_tiles, sum(dice))
    closed = data.draw(st.sampled_from(options)) if options else None
    rated = rater.rate_throw(1, open_mask, dice, mask_of(closed) if closed else None)
    want = {}
    if (loss := dice_loss(preset, open_tiles, count)) is not None:
        want["dice"] = loss
    if closed is not None and (loss := closure_loss(preset, open_tiles, dice, closed)) is not None:
        want["closure"] = loss
    assert {m.kind: m.loss for m in rated.moves} == pytest.approx(want, abs=1e-7)
    for move in rated.moves:
        assert move.loss >= 0 and (move.loss == 0) == (move.best == move.chosen)
