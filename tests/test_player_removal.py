"""A player removed from the roster: no trace of the name left in the record,
everybody else's games as they were (issue 34 point 6)."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from players_night import config_for, play_night
from sim_play import play_script

from shutbox_hw.game.model.service import ITEMS, REMOVE
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script
from shutbox_hw.store.read.shown import mirror_path
from shutbox_hw.store.tables import roster
from shutbox_hw.store.write.forget import RemoveRefused, forget_player

CHECKOUT = Path(__file__).resolve().parent.parent
def _text_values(db: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """Every text value of every table: (table, column, value)."""
    out = []
    tables = [t for t, in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        columns = [c[1] for c in db.execute(f"PRAGMA table_info({table})")]
        for row in db.execute(f"SELECT * FROM {table}"):
            out += [(table, col, v) for col, v in zip(columns, row, strict=True)
                    if isinstance(v, str)]
    return out


def _traces(db: sqlite3.Connection, word: str) -> list[tuple[str, str, str]]:
    """Values holding ``word`` in any case, as typed or JSON-escaped."""
    return [(t, c, v) for t, c, v in _text_values(db)
            if word in v.casefold() or word in json.loads(json.dumps(v)).casefold()]


def _mirror_text(db: sqlite3.Connection) -> str:
    """The screen's mirror of the record, as its file holds it, in lower case."""
    path = mirror_path(next(f for _, n, f in db.execute("PRAGMA database_list") if n == "main"))
    return path.read_text().casefold()


def _others(db: sqlite3.Connection, hers: set[tuple[int, int]]) -> dict:
    """What the record says of everybody but her (``hers``: her seats): their
    seats and turns' scores, and their entries in the round results."""
    seats = [row for row in db.execute(
        "SELECT p.game_id, p.seat, p.name, p.player_id, t.round, t.score, t.final_score"
        " FROM players p LEFT JOIN turns t ON t.game_id = p.game_id AND t.seat = p.seat"
        " ORDER BY 1, 2, 5") if (row[0], row[1]) not in hers]
    theirs = {(g, n) for g, _, n, *_ in seats}
    rounds = {}
    for game, number, result in db.execute("SELECT game_id, number, result FROM rounds"):
        data = json.loads(result)
        rounds[game, number] = {k: {n: s for n, s in v.items() if (game, n) in theirs}
                                for k, v in data.items() if isinstance(v, dict)}
    return {"seats": seats, "rounds": rounds,
            "ids": dict(db.execute("SELECT name, id FROM roster WHERE key != 'anna lena'"))}


@pytest.fixture
def night(tmp_path) -> Path:
    db = tmp_path / "box.db"
    play_night(db)
    return db


def test_the_night_names_her_everywhere_before(night):
    db = sqlite3.connect(night)
    where = {t for t, _, _ in _traces(db, "anna")}
    # the test's own check sees her in every kind of place a removal must clear (the
    # screen's mirror is a file in RAM beside the record: read as the pages read it)
    assert {"players", "roster", "games", "rounds", "outbox"} <= where, where
    assert "anna" in _mirror_text(db)


def test_forget_player_leaves_no_trace_and_the_others_as_they_were(night):
    db = sqlite3.connect(night, isolation_level=None)
    db.execute("PRAGMA foreign_keys=ON")
    seats = db.execute("SELECT game_id, seat FROM players WHERE lower(name) LIKE 'anna%'"
                       " ORDER BY game_id").fetchall()
    assert len(seats) == 3
    before = _others(db, set(seats))
    done = forget_player(db, "anna LENA", 5000.0)
    assert (done.name, done.games) == ("ANNA LENA", 3)   # the roster's name: as last typed
    assert _traces(db, "anna") == []
    assert "anna" not in _mirror_text(db)
    assert _others(db, set(seats)) == before
    # each of her seats is its seat's label, pointing at nobody
    got = db.execute("SELECT game_id, seat, name, player_id FROM players WHERE (game_id, seat)"
                     " IN (VALUES " + ", ".join("(?, ?)" for _ in seats) + ") ORDER BY game_id",
                     [v for s in seats for v in s]).fetchall()
    assert got == [(g, s, f"P{s + 1}", None) for g, s in seats]
    # her seat's totals in every round result are under the label, with the same figures
    for game, seat in seats:
        for result, in db.execute("SELECT result FROM rounds WHERE game_id = ?", (game,)):
            assert f"P{seat + 1}" in json.loads(result)["totals"]
    assert roster.find(db, "Anna Lena") is None
    with pytest.raises(RemoveRefused, match="not in the roster"):
        forget_player(db, "Anna Lena", 5001.0)


def test_history_and_the_pages_show_the_label(night, tmp_path):
    db = sqlite3.connect(night, isolation_level=None)
    forget_player(db, "Anna Lena", 5000.0)
    db.close()
    out = run_cli("history", "--db", night, "--json", cwd=CHECKOUT)
    assert out.returncode == 0, out.stderr
    games = json.loads(out.stdout)["games"]
    assert [g["players"] for g in reversed(games)] == [["P1", "Bob"], ["Bob", "P2"],
                                                       ["Cleo", "Bob"], ["P1", "Cleo"]]
    assert "anna" not in out.stdout.lower()
    from web_server import InProcessServer, need_web
    need_web()
    web = InProcessServer(night)
    try:
        for path in ["/history", f"/game/{games[-1]['id']}", "/live.json", "/tonight"]:
            status, _, body = web.get(path)
            assert status == 200 and b"anna" not in body.lower(), path
        assert b">P1<" in web.get(f"/game/{games[-1]['id']}")[2]
    finally:
        web.stop()


def test_a_player_in_the_game_under_way_is_refused_and_nothing_changes(night):
    runner = SimRunner(config_for(("Bob", "Anna Lena")), night)
    for step in parse_script("start 2\ndice 3 4\nroll\n", 9):
        runner.run(step)
    runner.daemon.store.close()
    db = sqlite3.connect(night, isolation_level=None)
    values = _text_values(db)
    with pytest.raises(RemoveRefused, match="sits in the game under way"):
        forget_player(db, "anna lena", 6000.0)
    assert _text_values(db) == values and not db.in_transaction


def test_it_waits_for_the_daemon_s_write_and_works_beside_it(night):
    """A command's own connection while the box writes: the removal waits for the
    step's transaction (busy timeout) instead of failing."""
    box = sqlite3.connect(night, isolation_level=None, check_same_thread=False)
    box.execute("BEGIN IMMEDIATE")      # the daemon in the middle of a step
    box.execute("UPDATE roster SET last_seen = last_seen")
    released = threading.Event()

    def finish_step():
        released.wait(0.6)    # longer than the box's own busy timeout (0.3 s)
        box.execute("COMMIT")
    threading.Thread(target=finish_step).start()
    command = sqlite3.connect(night, isolation_level=None, timeout=0)  # no wait of its own
    assert forget_player(command, "Anna Lena", 7000.0).games == 3
    assert _traces(command, "anna") == []


def test_the_operator_menu_removes_a_player_and_the_box_forgets_her_at_once(night):
    db = sqlite3.connect(night)
    names = [p.name for p in roster.recent(db)]
    db.close()
    at = names.index("ANNA LENA")
    menu = ["hold-both", *["next"] * ITEMS.index(REMOVE), "roll", *["next"] * at, "roll"]
    config = config_for(("Anna Lena", "Bob"))
    runner, events = play_script(config, "\n".join(menu) + "\n", night)
    asked = runner.daemon.controller.screen()
    assert type(asked).__name__ == "ConfirmScreen" and "ANNA LENA" in asked.question
    assert runner.daemon.controller.state.roster == tuple(names)
    for step in parse_script("roll\n", 9):      # ROLL again: removed
        runner.run(step)
    state = runner.daemon.controller.state
    assert state.roster == tuple(n for n in names if n != "ANNA LENA")   # re-read
    assert state.service.roster == state.roster
    removed = [e for e in events if e["event"] == "player_removed"]
    assert removed == [{"event": "player_removed"}]     # the event names nobody
    runner.daemon.store.close()
    db = sqlite3.connect(night)
    # the config file still names her for seat 1 (the file is the builder's): the
    # record does not
    assert _traces(db, "anna") == []


def test_the_command_removes_her_with_her_figures_and_refuses_in_words(night, capsys):
    """``players --remove NAME``: what the menu does, from the command line; her
    statistics and ratings go with her (the cascade needs foreign keys on its
    connection), and a name nobody has, or hers again, is one plain line."""
    from shutbox_hw.commands.cli import main
    db = sqlite3.connect(night)
    her = roster.find(db, "anna lena")
    assert her is not None
    kept = {t: db.execute(f"SELECT count(*) FROM {t} WHERE player_id = ?", (her.id,)).fetchone()[0]
            for t in ("player_stats", "player_rules", "player_ratings")}
    assert kept["player_stats"] == 1 and kept["player_rules"] >= 1
    db.close()
    assert main(["players", "--db", str(night), "--remove", "ANNA  LENA"]) == 0
    assert capsys.readouterr().out.casefold().startswith("removed anna lena: 3 games")
    db = sqlite3.connect(night)
    assert _traces(db, "anna") == []
    for table in kept:
        assert db.execute(f"SELECT count(*) FROM {table} WHERE player_id = ?",
                          (her.id,)).fetchone() == (0,)
    db.close()
    assert main(["players", "--db", str(night), "--json"]) == 0
    assert "Anna" not in capsys.readouterr().out
    for name in ("Anna Lena", "Nobody"):
        code = main(["players", "--db", str(night), "--remove", name])
        err = capsys.readouterr().err
        assert code != 0 and "is not in the roster" in err and "Traceback" not in err
