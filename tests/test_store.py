"""Persistence: every event recorded; a power cut anywhere resumes the same game."""

import json
import sqlite3

import pytest
from table import Table

from shutbox_hw.commands.cli import main
from shutbox_hw.store import Store, StoreError

RESULT_EVENTS = ("turn_started", "rolled", "throw_committed", "flap_rejected", "flap_reopened",
                 "turn_ended", "round_ended", "game_ended")


def practice_actions(practice):
    """Seed 001's practice round as table actions, plus a mistake or two."""
    actions = [("start", 2)]
    for dice, closed in practice.player_a:
        actions.append(("roll", dice))
        if closed:
            actions.append(("close", closed))
    actions.append(("open", list(range(1, 13))))
    for i, (dice, closed) in enumerate(practice.player_b):
        actions.append(("roll", dice))
        if i == 8:
            actions += [("close", [2]), ("open", [2])]  # 3+3 from 1, 2, 5: 2 can't help
        if i == 4:
            actions += [("open", [12]), ("close", [12])]  # lift an earlier flap, shut it again
        if closed:
            actions.append(("close", closed))
    return actions


def run(table, actions, restart_after_each=False):
    for verb, arg in actions:
        if verb == "start":
            table.start(arg)
        elif verb == "roll":
            table.roll(*arg)
        else:
            getattr(table, verb)(*arg)
        if restart_after_each:
            table.restart()
    return [e for e in table.events if e["event"] in RESULT_EVENTS]


def test_restart_after_every_action_gives_the_same_game(make_store, practice):
    actions = practice_actions(practice)
    plain = run(Table("crafthouse-12", {"match": "single-round"}, store=make_store("a.db")),
                actions)
    table = Table("crafthouse-12", {"match": "single-round"}, store=make_store("b.db"))
    resumed = run(table, actions, restart_after_each=True)
    assert plain == resumed
    assert plain[-1] == {"event": "game_ended", "winners": ["P2"],
                         "totals": {"P1": 4, "P2": 2}, "rounds": 1}
    # every restart but the one after the game ended resumed a game
    assert sum(e["event"] == "resumed" for e in table.events) == len(actions) - 1


def test_resume_keeps_known_dice_and_asks_for_differences(make_store):
    t = Table("klappenspiel", store=make_store())
    t.start(2)
    t.roll(4, 5)
    t.close(9)
    t.roll(3, 4)
    t.close(3)        # pending: 3 of 3+4, not committed
    t.open(9)         # lift a committed flap too...
    t.restart()
    resumed = t.events[-1] if t.events[-1]["event"] == "resumed" else \
        [e for e in t.events if e["event"] == "resumed"][0]
    assert resumed == {"event": "resumed", "player": "P1", "round": 1}
    assert t.screen.dice == (3, 4) and 9 not in t.screen.open_tiles
    assert t.screen.message == "lift flap 3"          # 3 was never committed
    assert [i + 1 for i, led in enumerate(t.leds.flaps) if led == "blink"] == [3, 9]
    t.roll(6, 6)      # no new throw while the dice of this one are known
    assert t.screen.dice == (3, 4)
    t.open(3)
    t.close(9)
    t.close(3, 4)
    assert t.names("throw_committed")[-1]["closed"] == [3, 4]


def test_tables_and_history(tmp_path, capsys, make_store, practice):
    db = tmp_path / "box.db"
    run(Table("crafthouse-12", {"match": "single-round"}, store=make_store("box.db")),
        practice_actions(practice))
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT COUNT(*) FROM throws").fetchone()[0] == 11 + 10
    assert con.execute("SELECT COUNT(*) FROM rejected_flaps").fetchone()[0] == 1
    assert con.execute("SELECT flap, reason FROM rejected_flaps").fetchone() == \
        (2, "2 doesn't fit 3+3")
    assert main(["history", "--db", str(db), "--json"]) == 0
    games = json.loads(capsys.readouterr().out)["games"]
    assert games[0]["winners"] == ["P2"] and games[0]["totals"] == {"P1": 4, "P2": 2}
    assert main(["history", "--db", str(db), "--game", str(games[0]["id"]), "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["rounds"][0]["players"]["P1"] == {"raw": 4, "final": 4, "total": 4}
    assert card["throws"][0] == {"round": 1, "player": "P1", "throw": 1, "dice": [6, 6],
                                 "closed": [12], "best": None, "best_dice": None,
                                 "loss": None}   # no rater ran: not rated
    assert main(["history", "--db", str(db)]) == 0
    assert "winners: P2" in capsys.readouterr().out


def test_history_errors(tmp_path, capsys):
    assert main(["history", "--db", str(tmp_path / "none.db")]) == 2
    assert "no game database" in capsys.readouterr().err
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite at all, just text " * 100)
    assert main(["history", "--db", str(junk)]) == 2
    assert "not a shutbox-hw database" in capsys.readouterr().err


def test_unopenable_database_is_a_clear_error(tmp_path):
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(StoreError, match="cannot open the database"):
        Store(tmp_path / "dir.db")
