"""Ratings in the record: the read API (player_accuracy, turn_accuracy) against the
brute force in rating_truth.py, the last 20 games, and removal with the player."""

from __future__ import annotations

import pytest
from rating_truth import closure_loss, full
from recorded import end, expected, start, turn

from shutbox_hw.store.tables import ratings, roster
from shutbox_hw.store.tables.ratings import (
    LAST_GAMES,
    game_accuracy,
    player_accuracy,
    turn_accuracy,
    turn_moves,
)
from shutbox_hw.strategy import solver_for
from shutbox_hw.strategy.rating import rater_for_record


@pytest.fixture
def rater_for(tmp_path):
    return lambda rules_json: rater_for_record(
        rules_json, lambda rules: solver_for(rules, cache_dir=tmp_path / "cache"))


# Klappenspiel, full board: a 3 thrown as (1, 2) may shut 3 or 1+2; then (4, 5)
# shuts 9, or 1+8, 2+7, 3+6, 4+5, 1+2+6, 1+3+5, 2+3+4 (whichever are open).
THROWS = [((1, 2), [1, 2]), ((4, 5), [4, 5]), ((3, 6), [3, 6]), ((1, 1), None)]


def _expected(throws):
    return expected(throws, "klappenspiel")


def test_a_turn_and_its_player_are_rated_as_the_brute_force_says(make_store, rater_for):
    store = make_store()
    start(store, "klappenspiel", "Anna", "P2")
    t1 = turn(store, 9, 0, "Anna", THROWS)
    seat_label = [((6, 6), [3, 9]), ((1, 1), [2]), ((1, 1), None)]
    t2 = turn(store, 9, 1, "P2", seat_label)
    end(store, "Anna", "P2")
    db = store.db
    assert turn_accuracy(db, t1) is None   # nothing rated yet
    assert ratings.rate_new(db, rater_for) == 2
    moves, best, lost = _expected(THROWS)
    assert moves == 3 and best < moves and lost > 0   # the case is not trivial
    got = turn_accuracy(db, t1)
    assert (got.moves, got.best) == (moves, best) and got.lost == pytest.approx(lost, abs=1e-8)
    stored = turn_moves(db, t1)
    assert [m.throw_number for m in stored] == [1, 2, 3]
    assert all((m.loss == 0) == (m.chosen == m.best) for m in stored)
    anna = roster.find(db, "Anna").id
    acc = player_accuracy(db, anna)
    assert (acc.games, acc.all_time.moves, acc.all_time.best) == (1, moves, best)
    assert acc.last == acc.all_time and acc.last_games == 1
    got = turn_accuracy(db, t2)   # a seat label's turn is rated, in nobody's total
    assert (got.moves, got.best) == _expected(seat_label)[:2] == (1, 1)
    assert db.execute("SELECT count(*) FROM player_ratings").fetchone() == (1,)
    assert ratings.rate_new(db, rater_for) == 0   # the mark: nothing is rated twice
    assert player_accuracy(db, anna).all_time.moves == moves


def test_the_last_twenty_games_are_the_newest_and_removal_takes_the_rows(make_store,
                                                                           rater_for):
    store = make_store()
    good = [((1, 2), [3]), ((1, 1), None)]       # a 3 shut as 3
    bad = [((1, 2), [1, 2]), ((1, 1), None)]     # ... and as 1+2
    loss_bad = closure_loss("klappenspiel", full("klappenspiel"), (1, 2), frozenset([1, 2]))
    assert loss_bad > 0 and closure_loss("klappenspiel", full("klappenspiel"), (1, 2),
                                         frozenset([3])) == 0
    for game in range(25):   # five bad games, then twenty good ones
        start(store, "klappenspiel", "Anna")
        turn(store, 9, 0, "Anna", bad if game < 5 else good)
        end(store, "Anna")
    db = store.db
    while ratings.rate_new(db, rater_for, limit=7):
        pass
    acc = player_accuracy(db, roster.find(db, "anna").id)
    assert (acc.games, acc.all_time.moves, acc.all_time.best) == (25, 25, 20)
    assert acc.all_time.lost == pytest.approx(5 * loss_bad)
    assert (acc.last_games, acc.last.moves, acc.last.best, acc.last.lost) == (
        LAST_GAMES, 20, 20, 0.0)
    assert acc.all_time.percent == 80.0 and acc.last.percent == 100.0
    per_game = game_accuracy(db, roster.find(db, "anna").id, 30)
    assert [t.best for _, t in per_game] == [1] * 20 + [0] * 5   # newest first
    assert [g for g, _ in per_game] == sorted((g for g, _ in per_game), reverse=True)
    db.execute("DELETE FROM players WHERE player_id = ?", (roster.find(db, "anna").id,))
    db.execute("DELETE FROM roster WHERE key = 'anna'")   # foreign_keys=ON: the cascade
    assert db.execute("SELECT count(*) FROM player_game_ratings").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM player_ratings").fetchone() == (0,)
    assert player_accuracy(db, 1) == ratings.NOBODY


def test_the_reads_look_up_a_key_and_the_last_twenty_rows_only(make_store):
    db = make_store().db
    plans = [" ".join(r[3] for r in db.execute(f"EXPLAIN QUERY PLAN {q}", args))
             for q, args in [
                 ("SELECT games FROM player_ratings WHERE player_id = ?", (1,)),
                 ("SELECT moves FROM player_game_ratings WHERE player_id = ?"
                  " ORDER BY game_id DESC LIMIT 20", (1,)),
                 ("SELECT moves FROM turn_ratings WHERE turn_id = ?", (1,))]]
    assert all("SEARCH" in p and "SCAN" not in p for p in plans), plans
    assert "TEMP B-TREE" not in plans[1]   # read in the index's order: no sort


def test_a_game_whose_rules_cannot_be_read_is_passed_not_a_wall(make_store, tmp_path):
    from shutbox_hw.skill.rater import InlineRater
    store = make_store()
    start(store, "klappenspiel", "Anna")
    damaged = turn(store, 9, 0, "Anna", THROWS)
    end(store, "Anna")
    store.db.execute("UPDATE games SET rules = '{not json' WHERE id = ?", (store.game_id or 1,))
    start(store, "klappenspiel", "Anna")
    good = turn(store, 9, 0, "Anna", THROWS)
    rater = InlineRater(store.path, lambda rules: solver_for(rules, cache_dir=tmp_path / "c"))
    rater.wake()
    rater.stop()
    assert turn_accuracy(store.db, damaged) is None
    assert turn_accuracy(store.db, good).moves == _expected(THROWS)[0]
    assert [r.turn_id for r in rater.reports()] == [good]
    assert ratings.mark(store.db) == (1, good + 1)
