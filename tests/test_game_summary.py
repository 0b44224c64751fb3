"""Issue 39 item 4: the one projection of a game (store/read/game_summary.py).

Games are written through the real store from a plan; what the projection says of
each (its seats in order, totals, boxes shut, turns and their scores, rounds,
winners, state) is compared with the same figures worked out here from the plan
alone. The TV's game under way takes its totals from the same projection, and the
match's own totals (the last round's result) agree with it; the TV's turn comes
from the box's picture alone where the box has drawn one."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shutbox_hw.game.model.events import (
    GameEnded,
    GameStarted,
    RoundEnded,
    TurnEnded,
    TurnStarted,
)
from shutbox_hw.network.live import live
from shutbox_hw.store import Store
from shutbox_hw.store.read.game_summary import summaries, summary
from shutbox_hw.store.read.history import recent_games

NAMES = ("Anna", "Ben", "Cleo", "Dev")


def written(store: Store, players: int, rounds: list[list[int]], doubled: bool,
            cut: int, end: str) -> None:
    """One game: each round's raw scores by seat (a final twice the raw where
    ``doubled``), then ``cut`` turns of a round nobody finished, then its end."""
    names = NAMES[:players]
    store.record_all([GameStarted(players=names, dice="software",
                                  rules={"preset": "klappenspiel", "tiles": 9})])
    totals = [0] * players
    for number, raw in enumerate(rounds, start=1):
        scores = [raw[s % len(raw)] for s in range(players)]
        for seat, name in enumerate(names):
            store.record_all([TurnStarted(seat=seat, player=name, round=number),
                              TurnEnded(seat=seat, player=name, score=scores[seat],
                                        shut=scores[seat] == 0,
                                        open=(scores[seat],) if scores[seat] else (),
                                        round=number)])
        finals = tuple(2 * s if doubled else s for s in scores)
        totals = [t + f for t, f in zip(totals, finals, strict=True)]
        store.record_all([RoundEnded(players=names, round=number, final=finals,
                                     raw=tuple(scores), totals=tuple(totals), out=(),
                                     shut=(), winners=(0,))])
    for seat in range(min(cut, players)):
        store.record_all([TurnStarted(seat=seat, player=names[seat], round=len(rounds) + 1),
                          TurnEnded(seat=seat, player=names[seat], score=7, shut=False,
                                    open=(7,), round=len(rounds) + 1)])
    if end != "unfinished":
        store.record_all([GameEnded(players=names, winners=(0,), totals=tuple(totals),
                                    rounds=len(rounds), abandoned=end == "abandoned")])


def by_hand(players: int, rounds: list[list[int]], doubled: bool, cut: int,
            end: str) -> dict[str, object]:
    """The same game's figures from the plan alone."""
    names = NAMES[:players]
    scores = [[raw[s % len(raw)] for s in range(players)] for raw in rounds]
    cut_seats = range(min(cut, players))
    return {
        "players": list(names),
        # a round cut short counts in no total; doubling counts in the final
        "totals": {n: sum((2 if doubled else 1) * r[s] for r in scores)
                   for s, n in enumerate(names)},
        "boxes_shut": {n: sum(r[s] == 0 for r in scores) for s, n in enumerate(names)},
        "turns": [len(scores) + (s in cut_seats) for s in range(players)],
        "score_sum": [sum(r[s] for r in scores) + 7 * (s in cut_seats) for s in range(players)],
        "rounds": len(rounds),
        "winners": ["Anna"] if end == "ended" else [],
        "state": {"ended": "finished", "abandoned": "stopped", "unfinished": "playing"}[end],
    }


game_st = st.tuples(st.integers(1, 4),
                    st.lists(st.lists(st.integers(0, 45), min_size=1, max_size=4),
                             min_size=1, max_size=3),
                    st.booleans(), st.integers(0, 3),
                    st.sampled_from(("ended", "abandoned", "unfinished")))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(game_st, min_size=1, max_size=4))
def test_the_projection_equals_the_figures_worked_out_from_the_plan(plan):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.db"
        store = Store(path)
        for spec in plan:
            written(store, *spec)
        store.close()
        db = sqlite3.connect(path)
        try:
            games = list(reversed(summaries(db, 10)))
            listed = list(reversed(recent_games(db, 10)))
            last_results = [{n: t for n, t in (r or {}).items()} for r in (
                _last_totals(db, g.id) for g in games)]
        finally:
            db.close()
    assert [g.id for g in games] == list(range(1, len(plan) + 1))
    for index, (spec, game, row, match) in enumerate(
            zip(plan, games, listed, last_results, strict=True)):
        players, rounds, doubled, cut, end = spec
        if end == "unfinished" and index < len(plan) - 1:
            end = "abandoned"        # the next game's start stops a game left unfinished
        want = by_hand(players, rounds, doubled, cut, end)
        assert game.players == want["players"]
        assert game.totals == want["totals"] == row["totals"]
        assert {n: t for n, t in match.items()} == want["totals"]   # the match's own
        assert {s.name: s.boxes_shut for s in game.seats} == want["boxes_shut"]
        assert [s.turns for s in game.seats] == want["turns"]
        assert [s.score_sum for s in game.seats] == want["score_sum"]
        assert game.rounds == want["rounds"] == row["rounds"]
        assert list(game.winners) == want["winners"] == row["winners"]
        assert game.state == want["state"] == row["state"]
        assert not game.damaged and game.balances is None


def _last_totals(db: sqlite3.Connection, game_id: int) -> dict[str, int] | None:
    import json
    row = db.execute("SELECT result FROM rounds WHERE game_id = ? ORDER BY number DESC"
                     " LIMIT 1", (game_id,)).fetchone()
    return json.loads(row[0])["totals"] if row else None


def test_the_tv_s_game_under_way_has_the_projection_s_seats_and_totals(tmp_path):
    path = tmp_path / "r.db"
    store = Store(path)
    written(store, 3, [[4, 0, 9], [2, 5, 1]], True, 2, "unfinished")
    store.close()
    db = sqlite3.connect(path)
    shown = live(db, 0.0)
    game = summary(db, 1)
    assert game is not None
    # doubled finals of the two rounds; the round under way (two turns of 7) in none
    assert [(p["name"], p["total"]) for p in shown["players"]] == \
        [("Anna", 12), ("Ben", 10), ("Cleo", 20)] == list(game.totals.items())
    # the record alone (no picture): its last turn, Ben's 7 in round 3
    assert (shown["player"], shown["round"], shown["turn_over"]) == ("Ben", 3, True)
    assert [p["round_score"] for p in shown["players"]] == [7, 7, None]
    db.close()


def test_a_damaged_game_keeps_its_seats_and_says_what_was_damaged(tmp_path):
    path = tmp_path / "r.db"
    store = Store(path)
    written(store, 2, [[3, 8]], False, 0, "ended")
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE games SET rules = '{not json' WHERE id = 1")
    game = summary(db, 1)
    assert game is not None and game.damage == "JSONDecodeError"
    assert game.players == ["Anna", "Ben"] and game.totals == {"Anna": 3, "Ben": 8}
    assert game.as_json()["damaged"] is True and game.as_json()["title"] == "unknown rules"
    assert summary(db, 2) is None
    db.close()


def test_the_tv_s_turn_is_the_picture_s_alone_where_the_box_drew_one(tmp_path):
    """With the box's picture in place the TV's turn is read from it and nothing of
    the turn is rebuilt from the rows (no throw read); with the picture gone (the box
    stopped) the record's last turn is shown, and no flap is pending."""
    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import parse_script
    from shutbox_hw.store.read import shown as mirror
    folder = tmp_path / "run"
    folder.mkdir()
    mirror.use_folder(folder)
    try:
        db = tmp_path / "box.db"
        runner = SimRunner(load_config(preset="klappenspiel"), db)
        for step in parse_script("start 2\ndice 3 4\nroll\nclose 3\n", 9):   # 3 pending
            runner.run(step)
        reader = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        asked: list[str] = []
        reader.set_trace_callback(asked.append)
        drawn = live(reader, 0.0)
        assert drawn["flaps"][2] == "pending" and drawn["dice"] == [3, 4]
        assert not [q for q in asked if "FROM throws" in q], asked
        mirror.withdraw(db)
        asked.clear()
        alone = live(reader, 0.0)
        assert [q for q in asked if "FROM throws" in q]        # the record's turn
        assert alone["player"] == drawn["player"] and alone["round"] == drawn["round"]
        assert "pending" not in alone["flaps"] and alone["dice"] == [3, 4]
        reader.close()
        runner.daemon.store.close()
    finally:
        mirror.use_folder(None)
