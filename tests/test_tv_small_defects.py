"""Issue 42, item 7: the smaller defects met on the way, each played as its repro.

A question ("New game?", "Stop and settle?") lapses after a few seconds of the
controller's own time (the ticks it is given); ``web --db`` on a folder that
does not exist refuses; ``rules --config F --rules P`` says the preset came from
--rules; a key the match does not use keeps the preset's title; a huge stake is
refused; ``history --limit 0`` is refused; ``check-config`` never gives a cut
name the whole name's length."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from table import Table

from shutbox_hw.commands.cli import main
from shutbox_hw.game.display.screens import ConfirmScreen, PlayScreen, ResultScreen
from shutbox_hw.game.machine.controller import QUESTION_MS
from shutbox_hw.rules import RulesError, build_rules

CHECKOUT = Path(__file__).resolve().parent.parent


def run(*args: str) -> tuple[int, str, str]:
    out = subprocess.run([sys.executable, "-m", "shutbox_hw", *args], capture_output=True,
                         text=True, timeout=60, cwd=CHECKOUT)
    return out.returncode, out.stdout, out.stderr


# ---------------------------------------------------------------- the question lapses


@pytest.mark.parametrize("preset, question", [("klappenspiel", "New game?"),
                                              ("pub", "Stop and settle?")])
def test_an_unanswered_question_lapses_and_a_late_roll_is_a_throw(preset, question):
    t = Table(preset)
    t.start(2)
    t.press("next", long=True)
    assert isinstance(t.screen, ConfirmScreen) and t.screen.question == question
    asked = t.now
    # the controller asks for a tick at the lapse (the daemon sleeps until then)
    assert t.controller.next_deadline_ms() == asked + QUESTION_MS
    t.wait(QUESTION_MS - 10)
    assert isinstance(t.screen, ConfirmScreen)          # a few seconds: still asked
    t.wait(asked + QUESTION_MS - t.now)
    assert isinstance(t.screen, PlayScreen)             # lapsed: the game plays on
    assert t.screen.message == "no answer: play on"     # ... and the bar says so
    t.wait(30_000)
    t.roll(3, 4)                                        # half a minute later: a throw
    assert not t.names("game_ended")
    assert isinstance(t.screen, PlayScreen) and t.screen.dice == (3, 4)


def test_a_late_press_after_the_lapse_with_no_tick_between_is_not_an_answer():
    """Even when no tick came at the lapse (a daemon late to wake), the press that
    comes after it is read as play, never as the answer."""
    t = Table("klappenspiel")
    t.start(2)
    t.press("next", long=True)
    t.now += QUESTION_MS + 20_000
    t.roll(3, 4)
    assert not t.names("game_ended")
    assert [e["dice"] for e in t.names("rolled")] == [[3, 4]]
    screen = t.controller.screen()
    assert isinstance(screen, PlayScreen) and screen.dice == (3, 4)


def test_an_answer_in_time_still_ends_the_game():
    t = Table("klappenspiel")
    t.start(2)
    t.press("next", long=True)
    t.wait(QUESTION_MS - 100)
    t.press("roll")
    assert t.names("game_ended") and t.names("game_ended")[0].get("abandoned")
    t.pass_ends()
    assert isinstance(t.screen, ResultScreen)


# ---------------------------------------------------------------- the commands


def test_web_refuses_a_database_in_a_folder_that_does_not_exist(tmp_path, capsys):
    pytest.importorskip("uvicorn", reason="uvicorn (the web extra) is not installed")
    missing = tmp_path / "no-such-folder" / "box.db"
    assert main(["web", "--db", str(missing), "--listen", "127.0.0.1:8099"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--db: there is no folder" in err
    assert str(missing.parent) in err and "Traceback" not in err
    assert main(["web", "--db", str(tmp_path), "--listen", "127.0.0.1:8099"]) == 2
    assert "is a folder, not a database file" in capsys.readouterr().err


def test_rules_says_the_preset_came_from_the_command_line(tmp_path, capsys):
    config = tmp_path / "box.toml"
    config.write_text('[rules]\npreset = "pub"\n')
    db = tmp_path / "box.db"
    assert main(["rules", "--config", str(config), "--db", str(db),
                 "--rules", "klappenspiel"]) == 0
    out = capsys.readouterr().out
    assert "  preset = klappenspiel  (--rules)\n" in out
    assert main(["rules", "--config", str(config), "--db", str(db)]) == 0
    assert "  preset = pub  (config file)\n" in capsys.readouterr().out
    assert main(["rules", "--config", str(config), "--db", str(db), "--rules",
                 "klappenspiel", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["preset"] == \
        {"value": "klappenspiel", "from": "--rules"}


@pytest.mark.parametrize("preset, key, title", [
    ("pub", "threshold=5", "Pub Pool"),              # a pool has no threshold
    ("klappenspiel", "stake=3", "Klappenspiel"),     # an elimination has no stake
])
def test_a_key_the_match_does_not_use_keeps_the_preset_s_title(preset, key, title, capsys):
    rules = build_rules(preset, dict([key.split("=")]))
    assert rules.changed_keys() == () and rules.shown_title == title
    assert main(["rules", "--rules", preset, "--set", key]) == 0
    assert capsys.readouterr().out.startswith(f"rule set: {title} (preset {preset})\n")
    # a key it does use is a change: House rules
    used = "stake=3" if preset == "pub" else "threshold=5"
    assert build_rules(preset, dict([used.split("=")])).shown_title == "House rules"


@pytest.mark.parametrize("value", ["99999999999999999999", "10001", "0", "-1"])
def test_a_stake_out_of_range_is_refused(value, capsys):
    assert main(["rules", "--rules", "pub", "--set", f"stake={value}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'stake': must be 1..10000" in err
    with pytest.raises(RulesError):
        build_rules("pub", {"stake": value})
    assert build_rules("pub", {"stake": "10000"}).stake == 10000


def test_history_limit_zero_is_refused(tmp_path):
    code, out, err = run("history", "--db", str(tmp_path / "none.db"), "--limit", "0")
    assert code == 2 and out == "" and "--limit: expected at least 1 game, got 0" in err
    assert "no games yet" not in out + err


def test_check_config_gives_a_cut_name_no_false_length(tmp_path):
    name = "Bartholomew-Maximilian Xy"          # 25 characters, the box takes 16
    config = tmp_path / "box.toml"
    config.write_text(f'[game]\nplayer_names = ["{name}", "Bob"]\n')
    code, out, err = run("check-config", str(config))
    said = out + err
    assert code != 0 and f"at most 16 characters, this one has {len(name)}" in said
    assert f"has {len(name)})" not in said      # never "('Bartholomew-Maximili' has 25)"
