"""The two ratings' rules (shutbox_hw/league/ratings.py) on games written by hand: the
order the games are taken in, the ranks within a game and its ties, and the accuracy
bands with their minimum and their rule against sandbagging, each worked out here by
hand; the Plackett-Luce model itself is openskill's, called directly over the games
in the order and with the ranks written below."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from shutbox_hw.league.ratings import band_of, season_values
from shutbox_hw.league.standings import Season

openskill = pytest.importorskip("openskill.models")

WINTER = Season("winter", dt.date(2026, 12, 1), dt.date(2026, 12, 31), ("crafthouse-12",),
                min_games=1, band_games=3)


def at(day: int, hour: int = 21) -> float:
    return dt.datetime(2026, 12, day, hour, tzinfo=dt.UTC).timestamp()


def game(number: int, names: list[str], winners: list[str], ended: float, *,
         state: str = "finished", preset: str = "crafthouse-12",
         losses: dict[int, list[float]] | None = None) -> dict:
    return {"game": number, "state": state, "ended_at": ended, "rules": {"preset": preset},
            "seats": [{"seat": i, "name": n} for i, n in enumerate(names)],
            "turns": [], "result": {"winners": winners, "abandoned": state == "abandoned"},
            "ratings": [{"round": 1, "seat": seat, "throw": n + 1, "kind": "closure",
                         "loss": loss} for seat, ls in (losses or {}).items()
                        for n, loss in enumerate(ls)]}


def by_hand(games: list[tuple[list[str], list[int]]]) -> dict[str, tuple[float, float, int]]:
    """openskill's Plackett-Luce over (players, ranks) in the order given."""
    model = openskill.PlackettLuce()
    ratings: dict[str, object] = {}
    played: dict[str, int] = {}
    for players, ranks in games:
        teams = [[ratings.get(p) or model.rating()] for p in players]
        for p, (after,) in zip(players, model.rate(teams, ranks=ranks), strict=True):
            ratings[p] = after
            played[p] = played.get(p, 0) + 1
    return {p: (r.mu, r.sigma, played[p]) for p, r in ratings.items()}


def test_results_rating_in_the_defined_order_with_ties_from_the_winners():
    games = [
        # (venue, box, epoch, record)
        ("Crown", "b1", "e1", game(1, ["Anna", "Ben"], ["Anna"], at(5, 20))),
        ("Crown", "a1", "e2", game(1, ["Ben", "Cleo"], ["Ben"], at(5, 21))),
        ("Crown", "a1", "e1", game(7, ["Cleo", "Anna"], ["Cleo"], at(5, 21))),
        ("Crown", "a1", "e1", game(3, ["ANNA", "Bén", "Cleo"], ["Anna", "Ben"], at(5, 21))),
        ("Anchor", "a2", "e1", game(2, ["Cleo", "P2"], ["P2"], at(4))),       # one player
        ("Anchor", "a2", "e1", game(4, ["Ben", "Cleo", "P3"], ["P3"], at(6))),  # casual won
        ("Anchor", "a2", "e1", game(5, ["Anna", "Ben"], [], at(6), state="abandoned")),
        ("Anchor", "a2", "e1", game(6, ["Anna", "Ben"], ["Ben"], at(6),
                                    preset="klappenspiel")),
        ("Anchor", "a2", "e1", game(8, ["Anna", "Ben"], ["Ben"], at(1, 0) - 60)),  # Nov 30
    ]
    # by hand: b1's game at 20:00 first; then the three at 21:00, all box a1: epoch e1
    # (game 3, then game 7) before epoch e2; then the 6th's game 4: the unnamed P3 won,
    # so Ben and Cleo tie (neither a winner). The 4th's has one player, the rest do not
    # count in the season (abandoned, another rule set, November).
    expected = by_hand([
        (["anna", "ben"], [1, 2]),
        (["anna", "ben", "cleo"], [1, 1, 2]),
        (["cleo", "anna"], [1, 2]),
        (["ben", "cleo"], [1, 2]),
        (["ben", "cleo"], [1, 1]),
    ])
    for seed in range(3):            # the order they arrived in does not matter
        shuffled = games[:]
        random.Random(seed).shuffle(shuffled)
        values, _ = season_values(WINTER, shuffled)
        assert {p: (v["mu"], v["sigma"], v["rating_games"]) for p, v in values.items()} \
            == expected
        assert all(v["rating"] == round(v["mu"] - 3 * v["sigma"], 2) for v in values.values())
    # the two orders differ in what they give: the order is not a detail
    swapped = by_hand([(["anna", "ben", "cleo"], [1, 1, 2]), (["anna", "ben"], [1, 2]),
                       (["cleo", "anna"], [1, 2]), (["ben", "cleo"], [1, 2]),
                       (["ben", "cleo"], [1, 1])])
    assert swapped["anna"] != expected["anna"]


def test_accuracy_bands_need_their_games_and_never_drop_within_the_season():
    best, slip = 0.0, 0.75
    anna = [  # Anna's game accuracies, by hand: 100, 50, 100, 0, 0, 0 (per cent)
        [best, best], [best, slip], [1e-12], [slip], [slip, slip], [slip]]
    games = [("Crown", "a1", "e1", game(n + 1, ["Anna", "Ben"], ["Anna"], at(5, 12 + n),
                                        losses={0: ls, **({1: [best, slip, slip, slip]}
                                                          if n < 2 else {})}))
             for n, ls in enumerate(anna)]
    # a game where Anna made no rated decision does not count for her band
    games.append(("Crown", "a1", "e1", game(9, ["Anna", "Ben"], ["Ben"], at(6))))
    values, _ = season_values(WINTER, games)
    # medians after her 3rd, 4th, 5th, 6th game: 100 (A), 75 (B), 50 (D), 25 (D):
    # she held A, and keeps it; the median shown is the last
    assert values["anna"]["band"] == "A" and values["anna"]["band_accuracy"] == 25.0
    assert values["anna"]["accuracy_games"] == 6
    # Ben: 2 rated games (25 % each), below the season's 3: no band yet
    assert values["ben"]["band"] is None and values["ben"]["accuracy_games"] == 2
    assert values["ben"]["band_accuracy"] == 25.0
    # the thresholds as docs/network/league.md writes them
    assert [band_of(x) for x in (100, 90, 89.9, 75, 74.9, 55, 54.9, 0)] == \
        ["A", "A", "B", "B", "C", "C", "D", "D"]
    # from one game on, as a season may say: Anna's first median (100) is an A already
    one = Season("one", WINTER.starts, WINTER.ends, band_games=1)
    assert season_values(one, games)[0]["ben"]["band"] == "D"      # 25 %: D at once


def test_luck_is_the_expected_score_of_the_players_own_moves_against_the_score():
    """Per turn, for a penalty rule set: luck = the solver's expected score from the full
    board + the points the player's moves lost (the box's rater) - the turn's score;
    random players on seeded dice, 200 turns; and a throw not seen has no luck."""
    from shutbox_hw.league.luck import Meters, game_luck
    from shutbox_hw.rules import build_rules, full_board, tiles_of, turn_score
    from shutbox_hw.skill.bots import RandomBot, play_turn
    from shutbox_hw.strategy.cache import solver_for
    from shutbox_hw.strategy.rating import Rater
    rules = build_rules("crafthouse-12", {})
    solver = solver_for(rules)
    rater = Rater(rules, solver)
    start = float(solver.expected_score("min-score", full_board(rules.tiles)))
    meters = Meters()
    signs = set()
    for seed in range(200):
        throws = play_turn(rules, RandomBot(random.Random(seed)), random.Random(1000 + seed))
        left = full_board(rules.tiles)
        for _, closed in throws:
            left &= ~(closed or 0)
        lost = rater.rate_turn(throws).tally.lost
        expected = start + lost - turn_score(rules, left)
        record = {"rules": rules.as_dict(), "turns": [{"seat": 0, "throws": [
            {"dice": list(d), "closed": tiles_of(c) if c else None} for d, c in throws]}]}
        (luck, turns), = game_luck(record, {0: "anna"}, meters).values()
        assert turns == 1 and luck == pytest.approx(expected, abs=1e-6)
        signs.add(luck > 0)
    assert signs == {True, False}           # the dice were kind, and unkind
    unseen = {"rules": rules.as_dict(), "turns": [{"seat": 0, "throws": [
        {"dice": None, "closed": [12]}, {"dice": [1, 1], "closed": None}]}]}
    assert game_luck(unseen, {0: "anna"}, meters) == {}


def test_the_ingests_trigger_starts_one_refresh_at_a_time_after_new_games(monkeypatch):
    """shutbox_hw/league/ratings.py's Trigger on a clock and processes of the test's own:
    a refresh after games were written, none while one runs, one more for games written
    meanwhile, a failed one tried again, and a long one followed by as long a rest."""
    from shutbox_hw.league import ratings

    class Child:
        def __init__(self, *args, env, **kwargs):
            assert env["SHUTBOX_LEAGUE_DSN"] == "host=/db"      # not on the command line
            assert "host=/db" not in args[0]
            self.returncode = None
            started.append(self)

        def poll(self):
            return self.returncode
    clock = [100.0]
    started: list[Child] = []
    monkeypatch.setattr(ratings.subprocess, "Popen", Child)
    monkeypatch.setattr(ratings.time, "monotonic", lambda: clock[0])
    trigger = ratings.Trigger("host=/db", every_s=5)
    trigger.tick(0)
    assert started == []                    # nothing written yet
    trigger.tick(3)
    assert len(started) == 1                # t 100
    clock[0] += 2
    trigger.tick(4)                         # written meanwhile, but one runs still
    assert len(started) == 1
    started[0].returncode = 0               # it took 2 s: the next from t 105 on
    trigger.tick(4)
    clock[0] += 2.9
    trigger.tick(4)
    assert len(started) == 1
    clock[0] += 0.1
    trigger.tick(4)                         # the games written meanwhile
    assert len(started) == 2                # t 105
    clock[0] += 5
    started[1].returncode = 1               # failed after 5 s: tried again, rested 5 s
    trigger.tick(4)
    clock[0] += 4.9
    trigger.tick(4)
    assert len(started) == 2
    clock[0] += 0.1
    trigger.tick(4)
    assert len(started) == 3                # t 115, nothing new but the failed one's
    clock[0] += 60                          # a long one: 60 s, then a 60 s rest
    started[2].returncode = 0
    trigger.tick(9)
    clock[0] += 59.9
    trigger.tick(9)
    assert len(started) == 3
    clock[0] += 0.1
    trigger.tick(9)
    assert len(started) == 4
    started[3].returncode = 0
    clock[0] += 100
    trigger.tick(9)                         # nothing written since: nothing started
    assert len(started) == 4
