"""The standings' rules (shutbox_hw/league/standings.py) on games written by hand, each
figure worked out by hand in the comments: what counts in a season, the points, the
averages, the accuracy, the minimum of games and the tie-breaks."""

from __future__ import annotations

import datetime as dt

from shutbox_hw.league.standings import Season, counts, standings

WINTER = Season("winter", dt.date(2026, 12, 1), dt.date(2026, 12, 31), ("crafthouse-12",),
                ("Crown", "Anchor"), min_games=2)


def at(day: int, hour: int = 21) -> float:
    return dt.datetime(2026, 12, day, hour, tzinfo=dt.UTC).timestamp()


def game(names: list[str], winners: list[str], scores: list[int], *, ended: float = 0.0,
         preset: str = "crafthouse-12", state: str = "finished",
         losses: dict[int, list[float]] | None = None) -> dict:
    return {"state": state, "ended_at": ended or at(5), "rules": {"preset": preset},
            "seats": [{"seat": i, "name": n} for i, n in enumerate(names)],
            "turns": [{"round": 1, "seat": i, "score": s, "shut": s == 0}
                      for i, s in enumerate(scores)],
            "result": {"winners": winners, "abandoned": state == "abandoned"},
            "ratings": [{"round": 1, "seat": seat, "throw": n + 1, "kind": "closure",
                         "loss": loss} for seat, ls in (losses or {}).items()
                        for n, loss in enumerate(ls)]}


def test_only_the_seasons_finished_games_count():
    played = game(["Anna"], ["Anna"], [0])
    assert counts(WINTER, "Crown", played)
    assert counts(WINTER, "Anchor", {**played, "ended_at": at(31, 23)})     # last day
    assert counts(WINTER, "Anchor", {**played, "ended_at": at(1, 0)})       # first day
    assert not counts(WINTER, "Crown", {**played, "ended_at": at(1, 0) - 1})   # Nov 30
    assert not counts(WINTER, "Crown", {**played, "ended_at": at(31, 23) + 3600})  # Jan 1
    assert not counts(WINTER, "Bell", played)                           # another venue
    assert not counts(WINTER, "Crown", game(["Anna"], ["Anna"], [0], preset="klappenspiel"))
    assert not counts(WINTER, "Crown", game(["Anna"], [], [5], state="abandoned"))
    anywhere = Season("open", dt.date(2026, 12, 1), dt.date(2026, 12, 31))
    assert counts(anywhere, "Bell", game(["Anna"], ["Anna"], [0], preset="klappenspiel"))


def test_points_averages_accuracy_minimum_and_ties():
    games = [
        # Anna wins alone: 3; Ben 0. Anna's decisions: 2 best of 3; Ben's: 1 of 1
        ("Crown", game(["Anna", "Ben"], ["Anna"], [0, 7],
                       losses={0: [0.0, 0.5, 0.0], 1: [0.0]})),
        # a shared win: 1 each
        ("Anchor", game(["Ben", "Anna"], ["Ben", "Anna"], [4, 4])),
        # Ben wins alone: 3
        ("Crown", game(["Ben", "Cleo"], ["Ben"], [2, 9], losses={1: [0.25]})),
        # not counted: another venue, another rule set, abandoned, another month
        ("Bell", game(["Cleo", "Anna"], ["Cleo"], [0, 3])),
        ("Crown", game(["Cleo", "Anna"], ["Cleo"], [0, 3], preset="klappenspiel")),
        ("Crown", game(["Cleo", "Anna"], [], [0, 3], state="abandoned")),
        ("Crown", game(["Cleo", "Anna"], ["Cleo"], [0, 3], ended=at(1) - 86400)),
    ]
    rows = standings(games, WINTER)
    # Anna: 2 games, 2 wins, 3 + 1 = 4 points, turns 0 and 4: 2.0, one box shut, 2/3
    # Ben: 3 games, 2 wins, 0 + 1 + 3 = 4 points, turns 7, 4, 2: 4.33, none shut, 1/1
    # Cleo: 1 game: below the minimum of 2, not ranked
    assert rows == [
        {"player": "Anna", "games": 2, "wins": 2, "points": 4, "turn_score": 2.0,
         "boxes_shut": 1, "accuracy": 66.7, "rated": 3, "rank": 1},
        {"player": "Ben", "games": 3, "wins": 2, "points": 4, "turn_score": 4.33,
         "boxes_shut": 0, "accuracy": 100.0, "rated": 1, "rank": 2}]
    # the venue's own table: the Crown has Anna 1 game (below 2), Ben 2 games
    crown = standings(games, WINTER, "Crown")
    assert [(r["player"], r["games"], r["points"], r["rank"]) for r in crown] == [
        ("Ben", 2, 3, 1)]


def test_equal_on_every_tie_break_shares_the_rank():
    season = Season("s", dt.date(2026, 12, 1), dt.date(2026, 12, 31), min_games=1)
    games = [("Crown", game(["Dan", "Eve", "Fay"], ["Dan", "Eve"], [3, 3, 8])),
             ("Crown", game(["Gus"], [], [5]))]
    rows = standings(games, season)
    # Dan and Eve: 1 point, 1 win each, nothing rated: both 1st; Fay and Gus: 0, both 3rd
    assert [(r["player"], r["points"], r["accuracy"], r["rank"]) for r in rows] == [
        ("Dan", 1, None, 1), ("Eve", 1, None, 1), ("Fay", 0, None, 3), ("Gus", 0, None, 3)]
    # accuracy breaks a tie of points, wins and boxes shut; none ranks below any
    games[1] = ("Crown", game(["Gus", "Fay"], [], [5, 8], losses={0: [0.1], 1: [0.0]}))
    rows = standings(games, season)
    assert [(r["player"], r["rank"]) for r in rows] == [
        ("Dan", 1), ("Eve", 1), ("Fay", 3), ("Gus", 4)]


def test_names_as_the_roster_compares_them_and_unnamed_seats_count_for_nobody():
    season = Season("s", dt.date(2026, 12, 1), dt.date(2026, 12, 31), min_games=1)
    games = [("Crown", game(["Bén", "P1"], ["Bén"], [0, 9])),
             ("Anchor", game(["ben ", "P2"], ["P2"], [8, 3])),
             ("Bell", game(["BEN", "Anna"], ["ben"], [2, 6]))]
    rows = standings(games, season)
    # one player Ben over three spellings (each once: the first in Unicode order, "BEN"),
    # 3 games, 2 wins alone (the winner "ben" is "BEN"): 6 points; P1 and P2 nobody
    assert [(r["player"], r["games"], r["wins"], r["points"], r["rank"]) for r in rows] == [
        ("BEN", 3, 2, 6, 1), ("Anna", 1, 0, 0, 2)]
    games += [("Bell", game(["Ben", "Anna"], [], [5, 5]))] * 2   # "Ben" now twice
    assert [r["player"] for r in standings(games, season)] == ["Ben", "Anna"]
