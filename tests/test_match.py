"""Match formats to their end, and the documented result of a tie in each."""

import pytest

from shutbox_hw.rules import (
    RulesError,
    build_rules,
    ends_round_at_once,
    finish_round,
    mask_of,
    new_match,
    stop_match,
)

# Open tiles that score a given sum (with sum scoring): a few handy ones.
SCORE = {0: 0, 3: mask_of([3]), 4: mask_of([4]), 5: mask_of([5]), 7: mask_of([7]),
         9: mask_of([9]), 15: mask_of([1, 5, 9]), 30: mask_of([4, 8, 9, 2, 7]),
         45: mask_of(range(1, 10))}


def play(rules, players, rounds):
    state = new_match(players)
    for scores in rounds:
        state = finish_round(rules, state, [None if s is None else SCORE[s] for s in scores])
    return state


def test_single_round_lowest_wins_and_ties_share():
    rules = build_rules("klappenspiel", {"match": "single-round"})
    state = play(rules, 3, [[7, 4, 9]])
    assert state.over and state.winners == (1,)
    state = play(rules, 3, [[4, 9, 4]])
    assert state.over and state.winners == (0, 2)


def test_elimination_at_45_last_one_left_wins():
    rules = build_rules("klappenspiel")
    assert rules.threshold == 45
    state = play(rules, 3, [[30, 15, 4], [15, 15, 4]])
    # P1 reached 45 in round 2 and is out; the others play on
    assert state.out == {0} and not state.over and state.totals == (45, 30, 8)
    state = finish_round(rules, state, [None, SCORE[15], SCORE[4]])
    assert state.over and state.winners == (2,) and state.out == {0, 1}


def test_elimination_everyone_out_in_one_round_lowest_total_wins():
    rules = build_rules("klappenspiel")
    state = play(rules, 2, [[30, 30], [15, 45]])
    assert state.over and state.out == {0, 1} and state.winners == (0,)
    state = play(rules, 2, [[30, 30], [15, 15]])
    assert state.over and state.winners == (0, 1)


def test_elimination_threshold_follows_the_board():
    assert build_rules("klappenspiel", {"tiles": 12}).threshold == 78
    assert build_rules("klappenspiel", {"threshold": 100}).threshold == 100


def test_solo_elimination_ends_when_the_player_is_out():
    rules = build_rules("klappenspiel")
    state = play(rules, 1, [[30]])
    assert not state.over
    state = finish_round(rules, state, [SCORE[15]])
    assert state.over and state.winners == (0,)


def test_race_finishes_the_round_then_lowest_total_wins():
    rules = build_rules("crafthouse-12", {"threshold": 40})
    state = play(rules, 2, [[30, 9]])
    assert not state.over
    # P1 reaches 45 first; the round is finished and P2's lower total wins
    state = finish_round(rules, state, [mask_of([6, 9]), mask_of([12, 11, 10])])
    assert state.over and state.totals == (45, 42) and state.winners == (1,)
    tie = play(rules, 2, [[30, 30], [15, 15]])
    assert tie.over and tie.winners == (0, 1)


def test_race_with_doubling_counts_final_scores():
    rules = build_rules("crafthouse-12", {"threshold": 50})
    state = new_match(2)
    state = finish_round(rules, state, [0, mask_of([10, 12])])  # P1 shuts: P2 22 -> 44
    assert state.totals == (0, 44)
    state = finish_round(rules, state, [mask_of([12, 11]), 0])  # P2 shuts: P1 23 -> 46
    assert state.totals == (46, 44) and not state.over
    state = finish_round(rules, state, [mask_of([12]), mask_of([12, 11])])
    assert state.over and state.totals == (58, 67) and state.winners == (0,)


def test_pool_lowest_takes_the_pot_and_ties_split():
    rules = build_rules("pub", {"stake": 2})
    state = play(rules, 3, [[7, 4, 9]])
    assert state.balances == (-2, 4, -2) and state.pot == 0 and not state.over
    state = finish_round(rules, state, [SCORE[4], SCORE[4], SCORE[9]])
    # pot 6 split between two: 3 each
    assert state.balances == (-1, 5, -4) and state.pot == 0
    state = finish_round(rules, state, [SCORE[4], SCORE[4], SCORE[4]])
    assert state.pot == 0 and state.balances == (-1, 5, -4)
    rules1 = build_rules("pub")
    state = play(rules1, 3, [[4, 4, 9]])
    # 3 units for 2 winners: 1 each, 1 stays in the pot
    assert state.balances == (0, 0, -1) and state.pot == 1
    state = finish_round(rules1, state, [SCORE[3], SCORE[4], SCORE[9]])
    assert state.balances == (3, -1, -2) and state.pot == 0


def test_pool_shutting_the_box_collects_twice_the_stake_from_everyone():
    rules = build_rules("pub", {"stake": 5})
    assert ends_round_at_once(rules, 0) and not ends_round_at_once(rules, mask_of([1]))
    state = finish_round(rules, new_match(4), [SCORE[9], 0, None, None])
    assert state.rounds[0].winners == (1,)
    assert state.balances == (-10, 30, -10, -10)
    assert not state.over  # a pool goes on until the players stop it
    stopped = stop_match(rules, state)
    assert stopped.over and stopped.winners == (1,)


def test_instant_win_ends_other_matches():
    for match in ["single-round", "elimination", "race"]:
        rules = build_rules("klappenspiel", {"shut_the_box": "instant-win", "match": match})
        state = finish_round(rules, new_match(3), [SCORE[9], SCORE[4], 0])
        assert state.over and state.winners == (2,), match


def test_score_zero_changes_nothing_else():
    rules = build_rules("klappenspiel", {"match": "single-round"})
    state = play(rules, 2, [[0, 4]])
    assert state.rounds[0].final == (0, 4) and state.winners == (0,)


def test_finished_match_takes_no_more_rounds():
    rules = build_rules("klappenspiel", {"match": "single-round"})
    state = play(rules, 2, [[0, 4]])
    with pytest.raises(ValueError):
        finish_round(rules, state, [0, 0])


def test_bad_rule_values_name_the_key():
    for overrides, word in [({"tiles": 8}, "tiles"), ({"tiles": "x"}, "tiles"),
                            ({"closure": "any"}, "closure"), ({"stake": 0}, "stake"),
                            ({"bogus": 1}, "bogus"),
                            ({"multiplication": "maybe"}, "multiplication"),
                            ({"closure": "sum-or-dice", "multiplication": True}, "multiplication")]:
        with pytest.raises(RulesError, match=word):
            build_rules("pub", overrides)
    with pytest.raises(RulesError, match="preset"):
        build_rules("nope")
    assert issubclass(RulesError, ValueError)  # the rules know nothing of the CLI's errors
