"""The league against its real parts (issue 40, item 7): PostgreSQL as nobody, a central
Mosquitto with two pub brokers bridged to it, two ingest processes, boxes played by
``shutbox-hw sim --publish``. Each fault test ends with every ended game of every box in
the league exactly once, equal to the box's record, and ``league status`` showing
nothing missing."""

from __future__ import annotations

import pytest
from league_parts import all_in, exactly_once, league_status, play

pytestmark = [pytest.mark.league, pytest.mark.other_user, pytest.mark.broker]


def settled(league, dbs, seconds: float = 60) -> None:
    assert all_in(league.pg, dbs, seconds), league.logs()
    exactly_once(league.pg, dbs)
    rows = league_status(league.pg.dsn)
    assert all(row["missing"] == [] for row in rows), rows


def test_a_night_of_two_pubs_arrives_exactly_once(league):
    dbs = {box: [league.db(box)] for box in league.configs}
    for box in league.configs:
        play(league.configs[box], league.db(box), games=2)
    settled(league, dbs)
    rows = league_status(league.pg.dsn)
    assert {(r["box"], r["games"], r["latest"]) for r in rows} == {
        ("a1", 2, 2), ("a2", 2, 2), ("b1", 2, 2)}
