"""The solver against published figures and a brute-force recursion written here."""

from fractions import Fraction
from functools import cache
from itertools import chain, combinations, product
from math import prod

import pytest

from shutbox_hw.rules import (
    ONE_DIE_THROWS,
    TWO_DICE_THROWS,
    build_rules,
    full_board,
    legal_closures,
    mask_of,
    tiles_of,
)
from shutbox_hw.strategy import ObjectiveError, Solver, solve

NEVER = build_rules("klappenspiel", {"one_die": "never"})
KLAPPENSPIEL = build_rules("klappenspiel")


# Published values for 9 tiles (two dice always / one die once 7-9 are shut).
@pytest.mark.parametrize("rules, shut, score", [
    (NEVER, 0.0714316223, 11.1575084),
    (KLAPPENSPIEL, 0.0976137162, 11.0092086),
])
def test_published_nine_tile_figures(rules, shut, score):
    full = full_board(9)
    assert solve(rules, "max-shut").shut_probability[full] == pytest.approx(shut, abs=1e-10)
    assert solve(rules, "min-score").expected_score[full] == pytest.approx(score, abs=1e-7)


def test_exact_klappenspiel_shut_probability():
    table = solve(KLAPPENSPIEL, "max-shut", exact=True)
    assert table.shut_probability[full_board(9)] == Fraction(956177159, 9795520512)
    floats = solve(KLAPPENSPIEL, "max-shut")
    for mask in range(512):
        assert float(table.shut_probability[mask]) == pytest.approx(
            floats.shut_probability[mask], abs=1e-12)
        assert float(table.expected_score[mask]) == pytest.approx(
            floats.expected_score[mask], abs=1e-9)


def test_unknown_objective_is_a_user_error():
    with pytest.raises(ObjectiveError, match="unknown objective 'max-fun'"):
        solve(NEVER, "max-fun")


# --- brute force, from the seeds' wording, on frozensets of tiles ----------

# (kept once worked out: the closures of a position and throw do not depend on the
# objective, and each position's subsets serve all 36 throws; the sweep over the
# twelve (rules, objective) pairs asked for the same ones again and again)
@cache
def bf_subsets(tiles):
    ordered = sorted(tiles)
    return tuple(frozenset(c) for c in
                 chain.from_iterable(combinations(ordered, k)
                                     for k in range(1, len(ordered) + 1)))


@cache
def bf_closures(rules, open_tiles, dice):
    if rules.closure == "sum-or-dice":
        found = []
        if sum(dice) in open_tiles:
            found.append(frozenset([sum(dice)]))
        if len(dice) == 2 and dice[0] != dice[1] and set(dice) <= open_tiles:
            found.append(frozenset(dice))
        return tuple(found)
    goals = {sum(dice)}
    if rules.multiplication and len(dice) == 2:
        goals.add(dice[0] * dice[1])
    return tuple(c for c in bf_subsets(open_tiles)
                 if sum(c) in goals or (rules.multiplication and prod(c) in goals))


def bf_dice_counts(rules, open_tiles):
    if rules.one_die == "when-high-shut" and not any(t > 6 for t in open_tiles):
        return (1, 2)
    if rules.one_die == "below-6" and sum(open_tiles) < 6:
        return (1,)
    return (2,)


def bf_score(rules, open_tiles):
    if not open_tiles:
        return 0
    if rules.scoring == "digits":
        return int("".join(str(t) for t in sorted(open_tiles)))
    return sum(open_tiles)


def brute_force(rules, objective):
    """value(open tiles) by plain recursion over every ordered throw."""
    better = min if objective == "min-score" else max

    @cache
    def value(open_tiles):
        if not open_tiles:
            return 0.0 if objective == "min-score" else 1.0
        end = bf_score(rules, open_tiles) if objective == "min-score" else 0.0
        options = []
        for n in bf_dice_counts(rules, open_tiles):
            outcomes = list(product(range(1, 7), repeat=n))
            total = 0.0
            for dice in outcomes:
                closures = bf_closures(rules, open_tiles, dice)
                total += better(value(open_tiles - c) for c in closures) if closures else end
            options.append(total / len(outcomes))
        return better(options)

    return value


RULE_SETS = [
    NEVER,
    KLAPPENSPIEL,
    build_rules("klappenspiel", {"closure": "sum-or-dice"}),
    build_rules("klappenspiel", {"multiplication": "true", "one_die": "below-6"}),
    build_rules("klappenspiel", {"scoring": "digits"}),
    build_rules("pub", {"one_die": "below-6", "closure": "sum-or-dice", "scoring": "digits"}),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: "-".join(map(str, (
    r.closure, r.multiplication, r.one_die, r.scoring))))
@pytest.mark.parametrize("objective", ["min-score", "max-shut"])
def test_every_position_matches_brute_force(rules, objective):
    expected = brute_force(rules, objective)
    table = solve(rules, objective)
    for mask in range(1 << rules.tiles):
        assert table.value(mask) == pytest.approx(
            expected(frozenset(tiles_of(mask))), rel=1e-9, abs=1e-12), tiles_of(mask)


def policy_metrics(solver, objective, rules):
    """Both metrics of following ``solver.best_closure`` (plain recursion)."""

    @cache
    def metrics(mask):
        if not mask:
            return 0.0, 1.0
        count = solver.solution(objective).dice_count[mask]
        throws = TWO_DICE_THROWS if count == 2 else ONE_DIE_THROWS
        score = shut = 0.0
        for dice in throws:
            weight = (2 if dice[0] != dice[-1] else 1) / 36 if count == 2 else 1 / 6
            best = solver.best_closure(objective, mask, dice)
            if best is None:
                score += weight * bf_score(rules, frozenset(tiles_of(mask)))
                continue
            after_score, after_shut = metrics(mask & ~best)
            score += weight * after_score
            shut += weight * after_shut
        return score, shut

    return metrics


@pytest.mark.parametrize("rules", [NEVER, KLAPPENSPIEL, RULE_SETS[3]])
@pytest.mark.parametrize("objective", ["min-score", "max-shut"])
def test_both_metrics_are_those_of_the_policy(rules, objective):
    solver = Solver(rules)
    metrics = policy_metrics(solver, objective, rules)
    table = solver.solution(objective)
    other = solver.solution("max-shut" if objective == "min-score" else "min-score")
    for mask in range(1, 1 << rules.tiles):
        score, shut = metrics(mask)
        assert table.expected_score[mask] == pytest.approx(score, rel=1e-9, abs=1e-12)
        assert table.shut_probability[mask] == pytest.approx(shut, rel=1e-9, abs=1e-12)
        # each policy is at least as good as the other on its own metric
        if objective == "min-score":
            assert table.expected_score[mask] <= other.expected_score[mask] + 1e-12
        else:
            assert table.shut_probability[mask] >= other.shut_probability[mask] - 1e-12


@pytest.mark.parametrize("rules", RULE_SETS + [build_rules("crafthouse-12", {
    "multiplication": "true"})], ids=str)
def test_closures_are_the_full_boards_closures_that_are_open(rules):
    """The solver's precomputation relies on this property of the engine."""
    full = full_board(rules.tiles)
    step = 1 if rules.tiles == 9 else 37  # a spread of masks on 12 tiles
    for dice in ONE_DIE_THROWS + TWO_DICE_THROWS:
        everywhere = legal_closures(rules, full, dice)
        for mask in range(0, full + 1, step):
            assert legal_closures(rules, mask, dice) == tuple(
                c for c in everywhere if c & mask == c)


@pytest.mark.parametrize("objective", ["min-score", "max-shut"])
def test_ties_follow_the_documented_order(objective):
    """Own value, then the other metric, then the lowest remaining mask,
    judged here on exact fractions. Between them, klappenspiel with and
    without multiplication have ties decided at each of those steps."""
    sign = 1 if objective == "min-score" else -1
    decided_by = {"other": 0, "rest": 0}
    for rules in (KLAPPENSPIEL, build_rules("klappenspiel", {"multiplication": "true"})):
        solver = Solver(rules)
        exact = solve(rules, objective, exact=True)
        ranks: dict = {}     # each remaining mask's rank, worked out once (many moves reach it)

        def rank_of(rest, exact=exact, ranks=ranks):
            if rest not in ranks:
                other = (exact.shut_probability[rest] if objective == "min-score"
                         else exact.expected_score[rest])
                ranks[rest] = (sign * exact.value(rest), -sign * other)
            return ranks[rest]

        for mask in range(1, 512):
            for dice in ONE_DIE_THROWS + TWO_DICE_THROWS:
                closures = legal_closures(rules, mask, dice)
                if not closures:
                    assert solver.best_closure(objective, mask, dice) is None
                    continue

                def rank(c, mask=mask):
                    return rank_of(mask & ~c)

                ranked = sorted(closures, key=lambda c: (rank(c), mask & ~c))
                if len(ranked) > 1:
                    first, second = rank(ranked[0]), rank(ranked[1])
                    if first == second:
                        decided_by["rest"] += 1
                    elif first[0] == second[0]:
                        decided_by["other"] += 1
                assert solver.best_closure(objective, mask, dice) == ranked[0]
                assert [c for c, _ in solver.closure_values(objective, mask, dice)] == ranked
    assert decided_by["other"] > 0 and decided_by["rest"] > 0


def test_closure_values_are_the_values_after_each_closure():
    solver = Solver(KLAPPENSPIEL)
    table = solver.solution("min-score")
    ranked = solver.closure_values("min-score", full_board(9), (3, 4))
    assert {c for c, _ in ranked} == set(legal_closures(KLAPPENSPIEL, full_board(9), (3, 4)))
    for closure, value in ranked:
        assert value == table.expected_score[full_board(9) & ~closure]
    assert [v for _, v in ranked] == sorted(v for _, v in ranked)


def test_move_probability_counts_throws_with_a_move():
    solver = Solver(NEVER)
    # {1} with two dice: never a move; {2}: only 1+1; {1, 2}: totals 2 and 3
    assert solver.move_probability(mask_of([1])) == 0
    assert solver.move_probability(mask_of([2])) == pytest.approx(1 / 36)
    assert solver.move_probability(mask_of([1, 2])) == pytest.approx(3 / 36)
    assert solver.move_probability(0) == 0
    # klappenspiel, {1, 2}: max-shut throws one die (faces 1, 2 and 3 move)
    klapp = Solver(KLAPPENSPIEL)
    assert klapp.solution("max-shut").dice_count[mask_of([1, 2])] == 1
    assert klapp.move_probability(mask_of([1, 2])) == pytest.approx(3 / 6)
    assert klapp.shut_probability(mask_of([1, 2])) == pytest.approx(
        brute_force(KLAPPENSPIEL, "max-shut")(frozenset([1, 2])))
