"""``shutbox-hw sim``: the real daemon on the simulated box, driven by scripts."""

import json
import tempfile
from pathlib import Path

import pytest
from cli_inprocess import run_cli
from PIL import Image
from sim_play import with_restarts

from shutbox_hw.commands.cli import main

SCRIPTS = Path(__file__).parent / "scripts"
HARDWARE = Path(__file__).parent.parent / "hardware"
CONTRACT = ("game_started", "turn_started", "rolled", "throw_committed", "flap_rejected",
            "flap_reopened", "turn_ended", "round_ended", "game_ended")


def sim(capsys, *argv):
    code = main(["sim", *argv])
    out, err = capsys.readouterr()
    events = [json.loads(line) for line in out.splitlines()]
    return code, events, err


def of(events, kind):
    return [e for e in events if e["event"] == kind]


@pytest.mark.parametrize("config", [None, HARDWARE / "mcp23017-12" / "shutbox.toml"])
def test_practice_round_of_seed_001(capsys, tmp_path, config):
    extra = ["--config", str(config)] if config else []
    code, events, err = sim(capsys, "--rules", "crafthouse-12", *extra, "--db",
                            str(tmp_path / "db.sqlite"), "--script",
                            str(SCRIPTS / "practice-001.txt"))
    assert code == 0, err
    a, b = of(events, "turn_ended")
    first, second = of(events, "game_started")[0]["players"]
    assert (a["player"], a["score"], a["open"]) == (first, 4, [1, 3])
    assert (b["player"], b["score"], b["open"]) == (second, 2, [2])
    round_ended = of(events, "round_ended")[0]
    assert round_ended["scores"] == {first: 4, second: 2}
    assert round_ended["winners"] == [second]
    # every throw of the seed's tables, in order
    closed = [e["closed"] for e in of(events, "throw_committed")]
    assert closed == [[12], [11], [10], [9], [8], [7], [6], [5], [4], [2],
                      [12], [11], [10], [9], [8], [7], [6], [3, 4], [1, 5]]
    assert of(events, "rolled")[10]["dice"] == [2]  # throw 11 of player A: one die


@pytest.mark.parametrize("name,args", [
    ("two-player-klappenspiel.txt", ["--rules", "klappenspiel", "--set", "threshold=10"]),
    ("practice-001.txt", ["--rules", "crafthouse-12", "--set", "match=single-round"]),
])
def test_restart_after_every_line_changes_nothing(capsys, tmp_path, name, args):
    script = (SCRIPTS / name).read_text()
    restarted = tmp_path / "restarted.txt"
    restarted.write_text(with_restarts(script))
    _, plain, _ = sim(capsys, *args, "--db", str(tmp_path / "a.db"), "--script",
                      str(SCRIPTS / name))
    code, resumed, err = sim(capsys, *args, "--db", str(tmp_path / "b.db"), "--script",
                             str(restarted))
    assert code == 0, err
    assert [e for e in plain if e["event"] in CONTRACT] == \
        [e for e in resumed if e["event"] in CONTRACT]
    assert of(plain, "game_ended")
    assert len(of(resumed, "resumed")) > 40


def test_script_events_of_the_two_player_game(capsys):
    code, events, _ = sim(capsys, "--rules", "klappenspiel", "--set", "threshold=10",
                          "--script", str(SCRIPTS / "two-player-klappenspiel.txt"))
    assert code == 0
    assert of(events, "flap_rejected") == [{"event": "flap_rejected", "player": "P1",
                                            "flap": 5, "reason": "5 was shut before the roll",
                                            "conflicts": []}]
    assert of(events, "flap_reopened") == [{"event": "flap_reopened", "player": "P1",
                                            "flap": 4}]
    assert of(events, "turn_ended")[0]["shut"] is True
    assert of(events, "game_ended") == [{"event": "game_ended", "winners": ["P1"],
                                         "totals": {"P1": 9, "P2": 18}, "rounds": 2}]


def script(tmp_path, text):
    path = tmp_path / "s.txt"
    path.write_text(text)
    return str(path)


def test_multiplication_settles_on_the_virtual_clock(capsys, tmp_path):
    # 2 x 12 = 24 for 4 and 6, but 2 + 10 + 12 = 24 could still follow: settle_ms (2.5 s)
    start = "start 1\ndice 4 6\nroll\nclose 2 12\n"
    runs = {}
    for name, rest in [("short", "wait 2\n"), ("long", "wait 3\n"),
                       ("interrupted", "wait 2\nclose 11\nopen 11\nwait 1\n")]:
        code, events, _ = sim(capsys, "--rules", "crafthouse-12", "--set",
                              "multiplication=true", "--script",
                              script(tmp_path, start + rest))
        assert code == 0
        runs[name] = events
    assert of(runs["short"], "throw_committed") == []
    assert [e["closed"] for e in of(runs["long"], "throw_committed")] == [[2, 12]]
    # 11 cannot join (2 + 11 + 12 = 25, 2 x 11 x 12 = 264) and is rejected; the
    # closure still settles 2.5 s after its last accepted flap
    assert of(runs["interrupted"], "flap_rejected")[0]["flap"] == 11
    assert [e["closed"] for e in of(runs["interrupted"], "throw_committed")] == [[2, 12]]


def test_manual_dice(capsys, tmp_path):
    cfg = tmp_path / "manual.toml"
    cfg.write_text('[game]\ndice = "manual"\n')
    s = script(tmp_path,
               "start 1\ndice 4 6\nroll\nclose 1 9\ndice 1 1\nroll\nclose 2\nnext\nnext\n")
    code, events, _ = sim(capsys, "--config", str(cfg), "--script", s)
    assert code == 0
    assert [e["closed"] for e in of(events, "throw_committed")] == [[1, 9], [2]]
    assert of(events, "rolled")[0]["dice"] is None  # the box cannot see real dice
    assert of(events, "turn_ended")[0]["score"] == 33


def test_race_to_the_end(capsys, tmp_path):
    # on 9 tiles, 6+6 three times shuts 3+9, 4+8, 5+7; the fourth 12 leaves 1, 2, 6 = 9
    turn = ["dice 6 6", "roll", "close 3 9", "dice 6 6", "roll", "close 4 8",
            "dice 6 6", "roll", "close 5 7", "dice 6 6", "roll", "open 3 4 5 7 8 9"]
    lines = ["start 2"] + turn * 4
    code, events, err = sim(capsys, "--rules", "crafthouse-12", "--set", "tiles=9",
                            "--set", "threshold=15",
                            "--script", script(tmp_path, "\n".join(lines)))
    assert code == 0, err
    rounds = of(events, "round_ended")
    # 9 + 9 = 18 reaches 15 in round 2 for both: that round is finished, equal totals share
    assert [r["totals"] for r in rounds] == [{"P1": 9, "P2": 9}, {"P1": 18, "P2": 18}]
    assert of(events, "game_ended")[0]["winners"] == ["P1", "P2"]


def test_frames_are_written_and_match_the_screen(capsys, tmp_path):
    frames = tmp_path / "frames"
    code, events, _ = sim(capsys, "--rules", "crafthouse-12", "--frames", str(frames),
                          "--script", str(SCRIPTS / "practice-001.txt"))
    assert code == 0
    pngs = sorted(frames.glob("*.png"))
    assert len(pngs) > 20
    first = Image.open(pngs[0])
    assert first.size == (128, 64)
    from shutbox_hw.game.display.screens import AttractScreen
    from shutbox_hw.render import render
    from shutbox_hw.rules import build_rules
    rules = build_rules("crafthouse-12")
    attract = render(AttractScreen(title=rules.title, rules_line=rules.summary(),
                                   players=("P1", "P2")))
    assert first.convert("1").tobytes() == attract.tobytes()


def run_with_hints(tmp_path, toml_text, text, tiles):
    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import parse_script
    from shutbox_hw.skill.hints import ready_advisor_for as advisor_for
    run_dir = Path(tempfile.mkdtemp(dir=tmp_path))   # a fresh database for every run
    cfg = run_dir / "hints.toml"
    cfg.write_text(toml_text)
    config = load_config(cfg)
    events = []
    runner = SimRunner(config, run_dir / "hints.db", on_event=events.append,
                       advisor_for=advisor_for)
    for step in parse_script(text, tiles):
        runner.run(step)
    return runner, events


def test_hints_light_the_flaps(tmp_path):
    _, events = run_with_hints(tmp_path, '[game]\nhints = "always"\n'
                               'hint_objective = "max-shut"\n', "start 1\ndice 3 4\nroll\n", 9)
    hint = of(events, "hint")[0]
    assert hint["player"] == "P1" and hint["dice"] == [3, 4]
    assert sum(hint["closure"]) == 7          # a legal closure for 3+4
    assert 0 < hint["shut_probability"] < 1
    # flap LEDs need pins: the MCP23017 build has them on its second chip
    toml_text = (HARDWARE / "mcp23017-12" / "shutbox.toml").read_text() \
        .replace('hints = "on-request"', 'hints = "always"')
    runner, events = run_with_hints(tmp_path, toml_text, "start 1\ndice 3 4\nroll\n", 12)
    closure = of(events, "hint")[0]["closure"]
    lamps = runner.sim.lamp_states()
    assert [t for t in range(1, 13) if lamps.flaps[t - 1]] == closure


def test_hints_on_request_after_a_long_roll(tmp_path):
    from boxcase import BoxCase

    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.skill.hints import ready_advisor_for
    cfg = tmp_path / "hints.toml"
    cfg.write_text('[game]\nhints = "on-request"\n')
    box = BoxCase(tmp_path, load_config(cfg), players=1, advisor_for=ready_advisor_for)
    box.throw(3, 4)
    box.press_button_and_run("roll")
    box.assert_event("rolled", dice=(3, 4))
    box.assert_no_event("hint")                  # not asked for
    box.press_button_and_run("roll", long=True)  # asked for
    hint = box.assert_event("hint", player="P1", dice=(3, 4))
    assert sum(hint["closure"]) == 7


@pytest.mark.parametrize("text,line,word", [
    ("start 2\nfly away\n", 2, "unknown command"),
    ("start 1\nclose 10\n", 2, "flap 10"),
    ("start 1\ndice 7 1\n", 2, "die face 7"),
    ("start 9\n", 1, "1..8"),
    ("wait soon\n", 1, "seconds"),
])
def test_bad_scripts_name_the_line(tmp_path, text, line, word):
    path = script(tmp_path, text)
    proc = run_cli("sim", "--script", path)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"s.txt:{line}:" in lines[0] and word in lines[0]


@pytest.mark.parametrize("argv,word", [
    (["--script", "/nonexistent/script.txt"], "no such script"),
    (["--rules", "bogus", "--script", "x"], "bogus"),
    (["--set", "tiles=99", "--script", "x"], "tiles"),
    (["--config", "/nonexistent.toml", "--script", "x"], "no such config"),
    (["--seed", "many"], "invalid int"),
])
def test_bad_options_exit_2_without_traceback(argv, word):
    proc = run_cli("sim", *argv)
    assert proc.returncode == 2
    assert word in proc.stderr and "Traceback" not in proc.stderr


def test_interactive_needs_a_terminal():
    proc = run_cli("sim", stdin="")     # not a terminal, as /dev/null is not
    assert proc.returncode == 2 and "terminal" in proc.stderr
