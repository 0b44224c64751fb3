"""Issue 31: one truth on every screen. Each defect the issue lists, played as
its repro on the simulated box (the real daemon, a real database), then read
back where a publican would: the live JSON the TV draws, the web pages, ``history``.
The same check at every step of the pub night is ``pub_truth.Witness.surfaces``."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

import pytest
from cli_inprocess import run_cli

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.display.screens import AttractScreen, PlayScreen, ResultScreen
from shutbox_hw.game.display.text import shut_text, tile_ranges
from shutbox_hw.network.live import live
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script
from shutbox_hw.store.read.history import recent_games, scorecard
from shutbox_hw.store.read.tonight import TONIGHT_S, clock_state, is_tonight
from shutbox_hw.store.tables.schema import VERSION
from shutbox_hw.web.content import pages, views
from shutbox_hw.words.record import CLOCK_NOTES, count, rules_named, rules_title

SCRIPTS = Path(__file__).parent / "scripts"


def play(db: Path, script: str, **rules: object) -> SimRunner:
    """A script on the simulated box; the runner is left running (its store open)."""
    config = load_config(None, rule_overrides=rules or None)
    runner = SimRunner(config, db)
    for step in parse_script(script, config.rules.tiles):
        runner.run(step)
    return runner


def tonight_page(con: sqlite3.Connection, now: float) -> str:
    """``/tonight`` as its route makes it (a page of 50 games)."""
    return views.tonight_html(*views.tonight_of(con, now), recent_games(con, 50))


def now_live(runner: SimRunner) -> dict:
    db = runner.daemon.store.db
    assert db is not None
    return live(db, time.time())


# ---------------------------------------------------------------- 1. tonight


@pytest.mark.parametrize("synced", [False, True])
def test_tonight_is_one_definition_on_every_surface_whatever_the_clock(tmp_path, synced):
    db = tmp_path / "t.db"
    runner = play(db, (SCRIPTS / "two-player-klappenspiel.txt").read_text(),
                  match="single-round")
    runner.daemon.store.close()
    con = sqlite3.connect(db)
    with con:      # the clock as timesyncd would have said when the game was played
        con.execute("UPDATE games SET started_synced = ?, ended_synced = ?",
                    (int(synced), int(synced)))
    summary = live(con, time.time())
    assert (summary["tonight"]["games"], summary["tonight"]["boxes_shut"]) == (1, 1)
    assert summary["tonight"]["clock"] == ("set" if synced else "not set")
    page = tonight_page(con, time.time())
    # the repro said "No games." here while the box counted 1
    assert "No games" not in page and "1 game finished, 1 box shut" in page
    assert 'href="/game/1"' in page
    assert (CLOCK_NOTES["not set"].split(",")[0] in page.replace("&#x27;", "'")) == (not synced)
    # 12 hours later it is another night, on every surface at once
    later = time.time() + TONIGHT_S + 60
    assert live(con, later)["tonight"]["games"] == 0
    assert "No games tonight yet." in tonight_page(con, later)


def test_the_definition_of_tonight_and_its_clock():
    assert is_tonight(1000.0, 1000.0 + TONIGHT_S) and not is_tonight(999.0, 1000.0 + TONIGHT_S)
    assert clock_state([True, True]) == "set" and clock_state([]) == "set"
    assert clock_state([True, False]) == "not set" and clock_state([True, None]) == "unknown"


# ---------------------------------------------------------------- 2. house rules


def test_house_rules_are_named_as_the_box_names_them_everywhere(tmp_path, capsys):
    db = tmp_path / "t.db"
    runner = play(db, (SCRIPTS / "two-player-klappenspiel.txt").read_text(),
                  match="single-round")
    runner.let_ends_show()
    runner.press("roll")                 # past the result: the idle screen
    screen = runner.sim.view.screen
    assert isinstance(screen, AttractScreen) and screen.title == "House rules"
    named = "House rules (9 tiles, any-sum, single-round)"
    summary = now_live(runner)
    assert summary["title"] == "House rules" and summary["last_result"]["title"] == named
    runner.daemon.store.close()
    assert main(["history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert f" {named} finished, " in out and "klappenspiel" not in out
    con = sqlite3.connect(db)
    assert f"<td>{named}</td>" in views.history_html(recent_games(con, 5), 5)
    card = scorecard(con, 1)
    assert card is not None and f"Game 1: {named}" in pages.scorecard_page(card)
    # a preset as it is keeps its own title
    assert rules_named({"preset": "pub"}) == "Pub Pool" == rules_title({"preset": "pub"})


# ---------------------------------------------------------------- 3. the TV mid-turn


def test_the_tv_shows_pending_and_refused_flaps_and_clears_the_dice_as_the_box_does(tmp_path):
    db = tmp_path / "t.db"
    runner = play(db, "start 2\ndice 3 4\nroll\nclose 3\n")
    summary = now_live(runner)
    assert summary["dice"] == [3, 4] and summary["flaps"][2] == "pending"
    runner.flap(8, True)                      # 8 does not fit 3+4: the red light
    summary = now_live(runner)
    assert summary["flaps"][7] == "refused" and "8 doesn't fit" in summary["reasons"]["8"]
    assert summary["problem"] == summary["reasons"]["8"]
    runner.flap(8, False)
    runner.flap(4, True)                      # 3 + 4: taken at once
    summary = now_live(runner)
    screen = runner.sim.view.screen
    assert isinstance(screen, PlayScreen) and screen.dice is None   # the box's "? ?"
    assert summary["dice"] is None and summary["flaps"][2:4] == ["shut", "shut"]
    assert summary["open"] == list(screen.open_tiles)


def test_a_stopped_game_leaves_the_tv_with_the_box_s_title(tmp_path):
    db = tmp_path / "t.db"
    runner = play(db, "start 2\ndice 3 4\nroll\nclose 3 4\nhold-next\nroll\n")
    runner.let_ends_show()
    runner.press("roll")
    summary = now_live(runner)
    assert not summary["playing"] and summary["title"] == "Klappenspiel"
    assert summary["last_result"]["state"] == "stopped"
    js = pages.live_page()
    assert all(f'href="{href}"' in js for href, _ in pages.NAV)    # the live page links


# ---------------------------------------------------------------- 5. the pages' words


def test_the_pages_speak_as_a_publican_reads(tmp_path):
    db = tmp_path / "t.db"
    # P1: 9 refused beside 4, then 4+8, 5+7, 3+9 and a 12 with 1, 2, 6 open: 9; stopped in P2's turn
    script = ("start 2\ndice 6 6\nroll\nclose 4\nclose 9\nopen 9\nclose 8\ndice 6 6\nroll\n"
              "close 5 7\ndice 6 6\nroll\nclose 3 9\ndice 6 6\nroll\n"
              "open 1 2 3 4 5 6 7 8 9\nhold-next\nroll\n")
    runner = play(db, script)
    runner.daemon.store.close()
    con = sqlite3.connect(db)
    card = scorecard(con, 1)
    assert card is not None and card["abandoned"]
    page = pages.scorecard_page(card)
    # a stopped round's scores are shown (the empty table)
    assert card["unfinished_round"] == {"round": 1, "scores": {"P1": 9, "P2": None}}
    assert "<td>1 (stopped)</td><td>9</td>" in page and "raw/fin" not in page
    assert "stopped before its end: nobody won" in page
    assert "1 flap refused" in page and "4 throws" in page
    history = views.history_html(recent_games(con, 5), 5)
    assert "<td>stopped</td>" in history and "<th>Rounds played</th>" in history
    assert count(1, "{n} round", "{n} rounds") == "1 round" and \
        count(2, "{n} box shut", "{n} boxes shut") == "2 boxes shut" and \
        count(0, "{n} flap refused", "{n} flaps refused") == "0 flaps refused"


def test_the_faults_page_gives_each_fault_s_time_detail_and_recovery(tmp_path):
    from shutbox_hw.store.disk.fault_log import recent_faults
    config = load_config(str(SCRIPTS.parent.parent / "hardware/mcp23017-12/shutbox.toml"))
    db = tmp_path / "t.db"
    runner = SimRunner(config, db)
    for step in parse_script("start 2\nunplug 0x20\nwait 1.5\nplug 0x20\nwait 2\n"
                             "unplug 0x20\nwait 1.5\n", 12):
        runner.run(step)
    runner.daemon.store.close()
    con = sqlite3.connect(db)
    page = pages.faults_page({"faults": {"MCP23017 0x20": 1}}, recent_faults(con, VERSION))
    rows = re.findall(r"<tr><td>([^<]*)</td><td>(MCP23017 0x2\d)</td><td>([^<]+)</td>"
                      r"<td>(.+?)</td></tr>", page)
    assert [r[1] for r in rows] == ["MCP23017 0x20"] * 2                  # newest first
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d|clock not set", r[0]) for r in rows)
    assert "no answer" in rows[1][2] and rows[1][3].startswith("yes")
    assert "no answer" in rows[0][2] and "not yet" in rows[0][3]     # lost again


def test_a_missing_game_is_a_page_in_the_design_for_a_browser(tmp_path):
    from web_server import WebServer, need_web
    need_web()
    db = tmp_path / "t.db"
    play(db, "start 2\n").daemon.store.close()
    server = WebServer(db)
    try:
        status, headers, body = server.get("/game/4", headers={"Accept": "text/html"})
        assert status == 404 and headers["content-type"].startswith("text/html")
        assert b"<nav>" in body and b"There is no game 4." in body
        status, headers, body = server.get("/game/4.json")
        assert status == 404 and body == b"404 there is no game 4\n"   # scripts: one line
    finally:
        server.stop()


# ---------------------------------------------------------------- 6. the OLED's words


def test_what_to_shut_is_never_read_as_flap_numbers():
    from shutbox_hw.rules import build_rules
    any_sum, times = build_rules("klappenspiel"), build_rules("klappenspiel",
                                                               {"multiplication": True})
    dice = build_rules("klappenspiel", {"closure": "sum-or-dice"})
    assert shut_text(any_sum, (5, 4)) == "shut flaps: total 9"
    assert shut_text(any_sum, (1, 1)) == "shut flaps: total 2"     # "1+1" named no flaps
    assert shut_text(times, (4, 6)) == "shut: total 10 or 24"
    assert shut_text(dice, (5, 4)) == "shut 9, or 5 and 4" and shut_text(dice, (3, 3)) == \
        "shut flap 6"


def test_roll_held_counts_the_players_down(tmp_path):
    # (a long NEXT opens the roster: issue 34; the prompt says "ROLL: start  hold: -1")
    runner = play(tmp_path / "t.db", "")
    assert runner.sim.view.player_count == 2
    runner.press("roll", long=True)
    assert runner.sim.view.player_count == 1
    runner.press("roll", long=True)
    assert runner.sim.view.player_count == 8
    runner.press("next")
    assert runner.sim.view.player_count == 1


def test_the_result_asks_for_the_flaps_before_a_new_game(tmp_path):
    runner = play(tmp_path / "t.db", (SCRIPTS / "two-player-klappenspiel.txt").read_text(),
                  threshold=10)
    runner.let_ends_show()
    screen = runner.daemon.controller.screen()
    shut = [t for t in range(1, 10) if runner.sim.is_shut(t)]
    assert isinstance(screen, ResultScreen) and shut
    assert screen.prompt == f"lift {tile_ranges(shut)}"      # never "ROLL: new game" yet
    for tile in shut:
        runner.flap(tile, False)
    assert runner.daemon.controller.screen().prompt == "ROLL: new game"


# ---------------------------------------------------------------- 7. smaller ones


def sim(*args: str, cwd: Path) -> tuple[int, str, str]:
    out = run_cli("sim", *args, cwd=cwd)
    return out.returncode, out.stdout, out.stderr


def test_a_script_with_a_byte_order_mark_and_set_mistakes(tmp_path):
    script = tmp_path / "bom.txt"
    script.write_bytes(b"\xef\xbb\xbfstart 2\ndice 3 4\nroll\n")
    code, out, err = sim("--script", str(script), cwd=tmp_path)
    assert code == 0 and json.loads(out.splitlines()[0])["event"] == "game_started", err
    code, out, err = sim("--set", "treshold=30", "--script", str(script), cwd=tmp_path)
    assert code == 2 and err.startswith("shutbox-hw sim: --set 'treshold=30': unknown rules key")
    assert "[rules]" not in err


@pytest.mark.slow      # seconds of work: pytest -m 'not slow' leaves it out
def test_sim_says_what_its_database_holds(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("start 2\ndice 3 4\nroll\n")
    empty = tmp_path / "empty.db"
    empty.touch()
    code, _, err = sim("--db", str(empty), "--script", str(script), cwd=tmp_path)
    assert code == 0 and "empty.db is an empty file: the box makes its database in it" in err
    code, _, err = sim("--db", str(empty), "--script", str(script), cwd=tmp_path)
    assert "holds game 1, not finished: the box resumes it" in err


@pytest.mark.process    # a real SIGINT
def test_ctrl_c_in_a_realtime_run_says_the_game_is_kept(tmp_path):
    import signal
    import subprocess
    import sys
    script = tmp_path / "s.txt"
    script.write_text("start 2\ndice 3 4\nroll\nwait 60\n")
    db = tmp_path / "t.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "shutbox_hw", "sim", "--db", str(db), "--realtime",
         "--script", str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=tmp_path, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    for _ in range(3):                       # the throw is shown: the wait has begun
        json.loads(proc.stdout.readline())
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert f"the game so far is kept in {db}" in err and "Traceback" not in err


def test_warnings_go_to_the_events_pane_not_across_the_box(capsys):
    import logging

    from shutbox_hw.sim.terminal import warnings_in_the_pane
    with warnings_in_the_pane() as pane:
        logging.getLogger("shutbox_hw.mqtt").warning("MQTT: %s", "cannot reach x:1")
        assert capsys.readouterr().err == ""          # nothing drawn over the keys' line
        assert list(pane.pane) == ["warning: MQTT: cannot reach x:1"]
    assert capsys.readouterr().err == "shutbox-hw sim: warning: MQTT: cannot reach x:1\n"


def test_no_wait_at_the_end_for_a_broker_out_of_reach(tmp_path, monkeypatch):
    pytest.importorskip("paho.mqtt.client")
    from shutbox_hw.config.config_file import parse_config
    from shutbox_hw.network import hookup, publisher
    from shutbox_hw.store import Store
    config, problems = parse_config({"network": {"mqtt": "mqtt://127.0.0.1:1"}})
    assert config is not None, problems
    asked: list[float] = []
    real_stop = publisher.Publisher.stop

    def stop(self, drain_s=0.0):
        asked.append(drain_s)
        return real_stop(self, drain_s)
    monkeypatch.setattr(publisher.Publisher, "stop", stop)
    db = tmp_path / "t.db"
    warned: list[str] = []
    Store(db).close()
    with hookup.publishing(config, db, warned.append, drain_s=10.0) as wake:
        assert wake is not None
        pub = wake.publisher                  # the outbox hook carries the publisher
        assert pub is not None
        for _ in range(500):                  # its first try at the closed port
            if pub.problem is not None:
                break
            time.sleep(0.01)
        assert pub.problem is not None and "cannot reach 127.0.0.1:1" in pub.problem
    assert asked == [0.0]


def test_the_hardware_readme_names_each_build_s_panel_as_its_config_has_it():
    root = Path(__file__).parent.parent / "hardware"
    panels = {"ssd1306": '0.96" SSD1306', "sh1106": '1.3" SH1106', "ssd1309": '2.42" SSD1309'}
    table = (root.parent / "docs" / "build" / "hardware.md").read_text()
    for build in ("gpio-9", "mcp23017-12"):
        driver = re.search(r'^driver = "(\w+)"', (root / build / "shutbox.toml").read_text(),
                           re.M)
        assert driver is not None
        row = next(line for line in table.splitlines() if line.startswith(f"| [`{build}/`]"))
        assert f"a {panels[driver[1]]} OLED as its config has it" in row
        intro = " ".join((root / build / "README.md").read_text().split("\n\n")[1].split())
        assert panels[driver[1]] in intro


def test_the_readme_s_first_words_are_for_a_newcomer():
    text = (SCRIPTS.parent.parent / "README.md").read_text()
    quick = text.split("## Quick start", 1)[1].split("###", 1)[0]
    paragraph = quick.split("```", 2)[2]
    assert not re.search(r"\.ci/run|mypy|ruff|QEMU|rehears", paragraph), paragraph
    trying = text.split("### Trying it without a box", 1)[1].split("###", 1)[0]
    assert "-e '.[sim,web]'" in trying and "shutbox-hw web --db /tmp/g.db" in trying
    for href, _ in pages.NAV:
        assert f"`{href}`" in trying or f"127.0.0.1:8080{href}`" in trying, href
    developers = text.split("### For developers", 1)[1].split("##", 1)[0]
    assert ".ci/run" in developers and "mypy --strict" in developers and "ruff" in developers


@pytest.mark.parametrize("level", [0, 2, 3])
def test_the_mirror_of_the_screen_leaves_the_records_durability_as_it_found_it(tmp_path, level):
    """The mirror is a file in RAM, not the record: the connection keeps its own
    level (FULL for the record, or whatever a drop-in made it: the crash
    rehearsal's self-check forces OFF), and the record's pages are not touched."""
    from shutbox_hw.store.read.shown import mirror_path, publish, read_shown, use_folder
    from shutbox_hw.store.write.sqlite import Store
    use_folder(tmp_path / "run")
    (tmp_path / "run").mkdir()
    store = Store(tmp_path / "box.db")
    try:
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2
        store.db.execute(f"PRAGMA synchronous={level}")
        changes = store.db.total_changes
        assert publish(store, {"screen": "probe"})
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == level
        assert store.db.total_changes == changes
        assert store.db.execute("SELECT COUNT(*) FROM shown").fetchone()[0] == 0
        assert mirror_path(tmp_path / "box.db").parent == tmp_path / "run"
        assert read_shown(store.db) == {"screen": "probe", "game": None}
    finally:
        store.close()
        use_folder(None)
