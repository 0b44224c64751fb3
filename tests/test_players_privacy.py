"""The players' privacy and the high scores: with ``[players] public = false`` the TV
(``/live.json``, between games) names the high scores' players by their initials;
a player removed from the roster leaves every table, their statistics and pages."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

from loopback import free_port
from players_night import config_for, play_night
from sim_play import play_script
from test_figures_recount import game
from web_server import InProcessServer, need_web

from shutbox_hw.commands.cli import main
from shutbox_hw.game.model.service import ITEMS, REMOVE
from shutbox_hw.players.names import name_key
from shutbox_hw.store import Store
from shutbox_hw.store.read.highscores import high_scores
from shutbox_hw.store.tables import roster
from shutbox_hw.store.write.forget import forget_player

GAMES = ((2, [[0, 7]], "pub", "ended"), (3, [[3, 4, 5]], "klappenspiel", "ended"))


def _record(path):
    store = Store(path)
    for spec in GAMES:
        for step in game(*spec):
            store.record_all(step)
    return store


class PrivateServer(InProcessServer):
    """The real app with ``[players] public = false``."""

    def __init__(self, db) -> None:
        from shutbox_hw.commands.serve.web import listening_socket, make_server
        from shutbox_hw.web.app import make_app
        self.port = free_port()
        sock = listening_socket("127.0.0.1", self.port)
        self.app = make_app(db, None, public=False)
        self.server = make_server(self.app)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       daemon=True)
        self.thread.start()
        self.wait_until_up()


def test_the_tv_names_the_high_scores_by_initials_when_not_public(tmp_path):
    need_web()
    path = tmp_path / "box.db"
    _record(path).close()
    private, public = PrivateServer(path), InProcessServer(path)
    try:
        hidden = json.loads(private.get("/live.json")[2])["high_scores"]
        shown = json.loads(public.get("/live.json")[2])["high_scores"]
    finally:
        private.stop()
        public.stop()
    names = {r["name"] for t in shown.values() for rows in t.values() for r in rows}
    initials = {r["name"] for t in hidden.values() for rows in t.values() for r in rows}
    assert names == {"Anna", "Ben", "Cleo"} and initials == {"A.", "B.", "C."}
    assert [r["value"] for r in hidden["all_time"]["best_turn"]] == \
        [r["value"] for r in shown["all_time"]["best_turn"]]


def test_a_removed_player_leaves_every_table(tmp_path, capsys):
    path = tmp_path / "box.db"
    store = _record(path)
    before = {n for t in high_scores(store.db, time.time()) for n, _ in t.entries}
    forget_player(store.db, "anna", time.time())
    after = high_scores(store.db, time.time())
    left = store.db.execute("SELECT COUNT(*) FROM player_stats").fetchone()[0]
    store.close()
    assert "Anna" in before
    assert all(n != "Anna" for t in after for n, _ in t.entries)
    assert left == 2                                   # Ben's and Cleo's rows only
    assert main(["players", "--db", str(path), "--json"]) == 0
    assert [p["name"] for p in json.loads(capsys.readouterr().out)] == ["Ben", "Cleo"]
    assert main(["players", "--db", str(path), "--name", "Anna"]) == 1
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM player_rules r LEFT JOIN roster p ON p.id ="
                      " r.player_id WHERE p.id IS NULL").fetchone() == (0,)
    db.close()


def test_the_idle_screen_forgets_a_player_removed_from_the_menu(tmp_path):
    """The operator removes a player on the box: the high scores it shows are read
    again at once (not at the next game's end)."""
    def named(tables):
        return {name_key(n) for t in tables for n, _ in t.entries}
    path = tmp_path / "box.db"
    play_night(path)
    db = sqlite3.connect(path)
    names = [p.name for p in roster.recent(db)]
    assert "anna lena" in named(high_scores(db, time.time()))
    db.close()
    menu = ["hold-both", *["next"] * ITEMS.index(REMOVE), "roll",
            *["next"] * names.index("ANNA LENA"), "roll", "roll"]
    runner, _ = play_script(config_for(("Anna Lena", "Bob")), "\n".join(menu) + "\n", path)
    after = named(runner.daemon.controller.state.high_scores)
    runner.daemon.store.close()
    db = sqlite3.connect(path)
    before = named(high_scores(db, time.time()))
    db.close()
    assert "anna lena" not in after and after == before and after
