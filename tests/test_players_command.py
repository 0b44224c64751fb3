"""``shutbox-hw players [--json] [--name NAME]``: the figures equal a recount of the
record's rows; an unknown name or an older database is one plain line."""

from __future__ import annotations

import json
import sqlite3

from player_truth import truth
from test_figures_recount import game

from shutbox_hw.commands.cli import main
from shutbox_hw.store import Store

GAMES = ((2, [[0, 7]], "klappenspiel", "ended"), (3, [[3, 4, 5], [1, 2, 2]], "pub", "ended"),
         (2, [[5, 4]], "pub", "abandoned"), (4, [[9, 0, 2, 2]], "crafthouse-12", "ended"))


def _record(path):
    store = Store(path)
    for spec in GAMES:
        for step in game(*spec):
            store.record_all(step)
    store.close()


def test_players_json_equals_a_recount(tmp_path, capsys):
    path = tmp_path / "box.db"
    _record(path)
    assert main(["players", "--db", str(path), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    db = sqlite3.connect(path)
    expected = truth(db)
    db.close()
    assert [p["name"] for p in shown] == ["Anna", "Ben", "Cleo", "Dev"]   # most wins first
    for p in shown:
        e = expected[p["name"]]
        assert (p["games"], p["wins"], p["turns"], p["boxes_shut"], p["best_turn"], p["streak"],
                p["best_streak"]) == (e["games"], e["wins"], e["turns"], e["boxes_shut"],
                                      e["best_turn"], e["streak"], e["best_streak"])
        assert p["average_score"] == round(e["score_sum"] / e["turns"], 1)
        assert p["win_rate"] == round(100 * e["wins"] / e["games"], 1)
        assert {k: r["turns"] for k, r in p["rules"].items()} == \
            {k: r["turns"] for k, r in e["rules"].items()}
        assert "accuracy" in p
    # by hand: Anna won the three finished games (seat 0 wins); her turns 0, 3, 1, 5, 9
    assert shown[0]["wins"] == 3 and shown[0]["average_score"] == 3.6
    assert main(["players", "--db", str(path), "--json", "--name", "ÄNNA"]) == 0
    assert json.loads(capsys.readouterr().out) == shown[0]
    assert main(["players", "--db", str(path)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["player", "games", "wins"]
    assert table[1].split()[:3] == ["Anna", "3", "3"]


def test_an_unknown_name_is_one_line_and_exit_1(tmp_path, capsys):
    path = tmp_path / "box.db"
    _record(path)
    assert main(["players", "--db", str(path), "--name", "Zed"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no player called 'Zed'" in err


def test_a_database_before_the_players_says_so(tmp_path, capsys):
    path = tmp_path / "old.db"
    _record(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 6")
    db.commit()
    db.close()
    assert main(["players", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert "before the box kept players (schema 6)" in err and "Traceback" not in err
