"""The move accuracy where people read it: a game on the simulated box with the
rater, then ``history --game`` (text and JSON) and the TV's live summary, each
against the brute force of rating_truth.py applied to the record's own throws."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from recorded import expected

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import parse_config
from shutbox_hw.network.live import live
from shutbox_hw.sim.runner import SimRunner, check_steps
from shutbox_hw.sim.script import parse_script
from shutbox_hw.skill.rater import InlineRater
from shutbox_hw.strategy import solver_for
from shutbox_hw.web.content.views import with_accuracy

SCRIPT = Path(__file__).parent.parent / "scripts" / "two-player-klappenspiel.txt"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("night")
    db = tmp / "box.db"
    config, problems = parse_config({"rules": {"preset": "klappenspiel", "threshold": 10},
                                     "game": {"player_names": ["Anna", "Ben"]}})
    assert config is not None, problems
    steps = parse_script(SCRIPT.read_text(), config.rules.tiles)
    check_steps(steps, config)
    rater = InlineRater(db, lambda rules: solver_for(rules, cache_dir=tmp / "cache"))
    runner = SimRunner(config, db, rater=rater)
    for step in steps:
        runner.run(step)
    rater.stop()
    return db


def _record_turns(db: Path):
    """Each turn's player and throws as the record has them."""
    con = sqlite3.connect(db)
    turns = []
    for turn_id, name in con.execute(
            "SELECT t.id, p.name FROM turns t JOIN players p ON p.game_id = t.game_id"
            " AND p.seat = t.seat WHERE t.game_id = 1 ORDER BY t.id"):
        throws = [(tuple(json.loads(d)), json.loads(c) if c else None) for d, c in con.execute(
            "SELECT dice, closed FROM throws WHERE turn_id = ? ORDER BY number", (turn_id,))]
        turns.append((turn_id, name, throws))
    con.close()
    return turns


def test_history_game_gives_each_throw_its_best_closure_and_loss(played, capsys):
    assert main(["history", "--db", str(played), "--game", "1", "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    totals: dict[str, list[float]] = {}
    throws = iter(card["throws"])
    for _, name, record in _record_turns(played):
        moves, best, lost = expected(record, "klappenspiel")
        t = totals.setdefault(name, [0, 0, 0.0])
        t[0], t[1], t[2] = t[0] + moves, t[1] + best, t[2] + lost
        turn_loss = 0.0
        for _ in record:
            shown = next(throws)
            assert shown["player"] == name and shown["loss"] is not None
            turn_loss += shown["loss"]
            if shown["best"] is not None:
                assert shown["loss"] > 0 or shown["best"] == shown["closed"]
        assert turn_loss == pytest.approx(lost, abs=1e-6)
    assert {n: (a["moves"], a["best"]) for n, a in card["accuracy"].items()} == {
        n: (t[0], t[1]) for n, t in totals.items()}
    assert sum(t[0] for t in totals.values()) > 0   # the game had choices to rate
    assert main(["history", "--db", str(played), "--game", "1"]) == 0
    text = capsys.readouterr().out
    for name, (moves, best, lost) in totals.items():
        assert f"{name} {best} of {moves} best moves ({lost:.2f} points lost)" in text
    assert "throw 1: 6+6, shut 3+9; best" in text


def test_the_tv_shows_the_last_rated_turn_of_the_game(played):
    con = sqlite3.connect(played)
    summary = with_accuracy(con, live(con, 0.0))
    last = [(name, throws) for _, name, throws in _record_turns(played)
            if expected(throws, "klappenspiel")[0]][-1]
    moves, best, lost = expected(last[1], "klappenspiel")
    if summary["game"] is None:   # the game is over: the TV is between games
        assert summary["accuracy"] is None
        summary = with_accuracy(con, {"game": 1})
    assert summary["accuracy"]["player"] == last[0]
    assert (summary["accuracy"]["best"], summary["accuracy"]["moves"]) == (best, moves)
    con.close()


TURN = [((6, 6), [4, 8]), ((6, 6), [3, 9]), ((1, 1), [2]), ((1, 1), None)]


def _turn_end_screen(tmp_path, show: bool):
    config, problems = parse_config({"rules": {"preset": "klappenspiel"},
                                     "game": {"player_names": ["Anna", "Ben"],
                                              "show_accuracy": show}})
    assert config is not None, problems
    lines = ["start 2"]
    for dice, closed in TURN:
        lines += ["dice " + " ".join(map(str, dice)), "roll"]
        if closed:
            lines.append("close " + " ".join(map(str, closed)))
    lines.append("wait 0.1")
    steps = parse_script("\n".join(lines) + "\n", config.rules.tiles)
    check_steps(steps, config)
    rater = InlineRater(tmp_path / "box.db",
                        lambda rules: solver_for(rules, cache_dir=tmp_path / "cache"))
    runner = SimRunner(config, tmp_path / "box.db", rater=rater)
    for step in steps:
        runner.run(step)
    rater.stop()
    return runner.daemon.controller.shown.resting


def test_the_oled_turn_end_shows_the_best_moves_only_when_asked(tmp_path):
    from shutbox_hw.render import render
    moves, best, _ = expected(TURN, "klappenspiel")
    assert moves >= 2 and best < moves          # 4+8 on the full board is not the best
    shown = _turn_end_screen(tmp_path / "on", True)
    assert shown.player == "Anna" and shown.accuracy == (best, moves)
    render(shown)   # drawn on the 128x64 screen, beside the turn's note
    assert _turn_end_screen(tmp_path / "off", False).accuracy is None   # the default: as before
