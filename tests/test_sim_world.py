"""``sim --world FILE``: the simulated world kept outside the process."""

from __future__ import annotations

import json

import pytest

from shutbox_hw.commands.cli import main


def run(capsys, *argv):
    code = main(["sim", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("content,word", [
    ("{not json", "not a world file"),
    ('{"line": "two"}', "not a world file"),
    ('[1, 2]', "not a world file"),
    ('{"line": 0, "shut": ["x"]}', "not a world file"),
])
def test_a_bad_world_file_is_one_line(tmp_path, capsys, content, word):
    script = tmp_path / "s.txt"
    script.write_text("start 1\n")
    world = tmp_path / "w.json"
    world.write_text(content)
    code, out, err = run(capsys, "--script", script, "--db", tmp_path / "db", "--world", world)
    assert code == 2 and word in err and err.count("\n") == 1 and "Traceback" not in err


def test_world_needs_a_database_and_a_script(tmp_path, capsys):
    script = tmp_path / "s.txt"
    script.write_text("start 1\n")
    code, _, err = run(capsys, "--script", script, "--world", tmp_path / "w.json")
    assert code == 2 and "--world needs --db" in err


def test_a_run_started_again_goes_on_from_the_world(tmp_path, capsys):
    """What a SIGKILL leaves: the world file says line 4 is next and flaps 3, 4
    are shut; the database has the throw. The new run resumes there."""
    script = tmp_path / "s.txt"
    script.write_text("start 1\ndice 3 4\nroll\nclose 3 4\ndice 6 2\nroll\nclose 8\n")
    db, world = tmp_path / "box.db", tmp_path / "w.json"
    lines = script.read_text().splitlines()
    first = tmp_path / "first.txt"
    first.write_text("\n".join(lines[:4]) + "\n")
    code, out, _ = run(capsys, "--script", first, "--db", db, "--world", world)
    assert code == 0
    state = json.loads(world.read_text())
    assert state["line"] == 4 and state["shut"] == [3, 4] and state["before"] is None
    code, out, _ = run(capsys, "--script", script, "--db", db, "--world", world)
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and events[0]["event"] == "resumed"
    committed = [e["closed"] for e in events if e["event"] == "throw_committed"]
    assert committed == [[8]]
    assert not any(e["event"] == "game_started" for e in events)
