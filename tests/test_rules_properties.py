"""Properties of the rules engine, checked on random positions (hypothesis)."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox_hw.rules import (
    AnyThrow,
    Throw,
    build_rules,
    dice_choice,
    finish_round,
    full_board,
    is_subset,
    legal_closures,
    new_match,
    targets,
    throws_for,
    tiles_of,
    turn_score,
)

rule_sets = st.builds(
    lambda tiles, closure, mult, scoring: build_rules("crafthouse-12", {
        "tiles": tiles, "closure": closure, "multiplication": mult and closure == "any-sum",
        "scoring": scoring}),
    st.integers(9, 12), st.sampled_from(["any-sum", "sum-or-dice"]), st.booleans(),
    st.sampled_from(["sum", "digits"]))
faces = st.integers(1, 6)
throws = st.one_of(st.tuples(faces), st.tuples(faces, faces))
masks = st.integers(0, (1 << 12) - 1)


@settings(max_examples=300)
@given(rule_sets, masks, throws)
def test_closures_are_open_subsets_meeting_a_target(rules, open_mask, dice):
    open_mask &= full_board(rules.tiles)
    for closure in legal_closures(rules, open_mask, dice):
        assert closure and is_subset(closure, open_mask)
        tiles = tiles_of(closure)
        product = 1
        for t in tiles:
            product *= t
        if rules.closure == "sum-or-dice":
            assert tiles in ([sum(dice)], sorted(dice))
        else:
            assert sum(tiles) in targets(rules, dice) or (
                rules.multiplication and product in targets(rules, dice))


@settings(max_examples=200)
@given(rule_sets, masks, throws, st.data())
def test_every_prefix_of_a_legal_closure_can_complete(rules, open_mask, dice, data):
    open_mask &= full_board(rules.tiles)
    closures = legal_closures(rules, open_mask, dice)
    if not closures:
        assert not Throw(rules, open_mask, dice).can_complete(0)
        return
    closure = data.draw(st.sampled_from(closures))
    order = data.draw(st.permutations(tiles_of(closure)))
    shut = 0
    for tile in order:
        shut |= 1 << (tile - 1)
        assert Throw(rules, open_mask, dice).can_complete(shut)


@settings(max_examples=200)
@given(rule_sets, masks, throws, masks)
def test_a_failed_partial_set_has_no_legal_superset(rules, open_mask, dice, shut):
    open_mask &= full_board(rules.tiles)
    shut &= open_mask
    if not Throw(rules, open_mask, dice).can_complete(shut):
        assert not any(is_subset(shut, c) for c in legal_closures(rules, open_mask, dice))


@settings(max_examples=200)
@given(rule_sets, masks, throws)
def test_extension_means_a_strict_legal_superset(rules, open_mask, dice):
    open_mask &= full_board(rules.tiles)
    closures = legal_closures(rules, open_mask, dice)
    for c in closures:
        supers = [d for d in closures if d != c and is_subset(c, d)]
        assert Throw(rules, open_mask, dice).can_extend(c) == bool(supers)
        assert Throw(rules, open_mask, dice).is_legal(c)


@given(rule_sets, masks)
def test_scores_are_never_negative(rules, open_mask):
    score = turn_score(rules, open_mask & full_board(rules.tiles))
    assert score >= 0
    assert (score == 0) == (open_mask & full_board(rules.tiles) == 0)


@settings(max_examples=150)
@given(st.sampled_from(["single-round", "elimination", "race", "pool"]),
       st.sampled_from(["score-zero", "instant-win", "double-others"]),
       st.integers(1, 5), st.lists(st.lists(masks, min_size=5, max_size=5), min_size=1,
                                   max_size=12))
def test_match_totals_are_the_sum_of_round_scores(match, shut, players, rounds):
    rules = build_rules("klappenspiel", {"match": match, "shut_the_box": shut})
    state = new_match(players)
    for masks_of_round in rounds:
        if state.over:
            break
        open_masks = [None if p in state.out else masks_of_round[p] & full_board(9)
                      for p in range(players)]
        state = finish_round(rules, state, open_masks)
    for p in range(players):
        assert state.totals[p] == sum(r.final[p] or 0 for r in state.rounds)
        assert all(r.final[p] is None or r.final[p] >= 0 for r in state.rounds)
    assert sum(state.balances) + state.pot == 0  # the pool only moves money around


one_die_rules = st.sampled_from(["never", "when-high-shut", "below-6"])


@settings(max_examples=200)
@given(rule_sets, one_die_rules, masks, masks)
def test_any_throw_is_some_allowed_throw(rules, one_die, open_mask, shut):
    rules = replace(rules, one_die=one_die)
    open_mask &= full_board(rules.tiles)
    shut &= open_mask
    unseen = AnyThrow(rules, open_mask)
    known = [Throw(rules, open_mask, d) for d in throws_for(dice_choice(rules, open_mask))]
    assert unseen.can_complete(shut) == any(t.can_complete(shut) for t in known)
    assert unseen.is_legal(shut) == any(t.is_legal(shut) for t in known)
    assert unseen.can_extend(shut) == any(t.can_extend(shut) for t in known)
    assert unseen.has_move() == any(t.has_move() for t in known)
