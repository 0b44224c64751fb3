"""Issue 13's command fixes: BrokenPipe, sim's database from --config, no temp dir left."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from shutbox_hw.cli import main

SCRIPT = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"
GAME = ["--rules", "klappenspiel", "--set", "threshold=10", "--script", str(SCRIPT)]


def shutbox(*argv: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "shutbox_hw.cli", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


@pytest.mark.process    # a real pipe closed by its reader
def test_a_reader_that_goes_away_is_not_an_error(tmp_path):
    """`sim --script … | head -1`: the pipe closes after the first line."""
    proc = shutbox("sim", *GAME)
    first = proc.stdout.readline()
    proc.stdout.close()         # what head does after its line
    err = proc.stderr.read().decode()
    assert proc.wait() == 0, err
    assert json.loads(first)["event"] == "game_started"
    assert err == ""


@pytest.mark.process    # a real pipe: EPIPE on the process's own stdout
def test_history_json_into_a_closed_pipe(tmp_path, capsys):
    db = tmp_path / "box.db"
    for _ in range(3):
        assert main(["sim", *GAME, "--db", str(db)]) == 0
    capsys.readouterr()
    read, write = os.pipe()
    os.close(read)              # nobody reads: the first write is EPIPE
    proc = subprocess.run([sys.executable, "-m", "shutbox_hw.cli", "history", "--db",
                           str(db), "--json"], stdout=write, stderr=subprocess.PIPE)
    os.close(write)
    assert proc.returncode == 0 and proc.stderr == b""


def test_sim_writes_only_where_db_says_and_history_finds_it(tmp_path, capsys):
    # the config's [storage] db is the real box's: the simulator never writes there
    # (issue 18: `sim --config hardware/gpio-9/shutbox.toml` wrote into /var/lib/shutbox-hw)
    box_db = tmp_path / "from-config.db"
    db = tmp_path / "sim.db"
    config = tmp_path / "shutbox.toml"
    config.write_text(f'[storage]\ndb = "{box_db}"\n')
    assert main(["sim", "--config", str(config), "--db", str(db), *GAME]) == 0
    capsys.readouterr()
    assert db.exists() and not box_db.exists()
    assert main(["history", "--db", str(db), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["games"]) == 1


def test_sim_without_db_leaves_no_temp_dir(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["sim", *GAME]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["event"] == "game_started"
    assert list(tmp_path.iterdir()) == []


def test_history_shows_pool_balances_and_pot(tmp_path, capsys):
    db = tmp_path / "box.db"
    assert main(["sim", "--rules", "pub", "--db", str(db), "--script", str(SCRIPT)]) == 0
    ended = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    ended = [e for e in ended if e["event"] == "round_ended"]
    assert main(["history", "--db", str(db), "--game", "1", "--json"]) == 0
    rounds = json.loads(capsys.readouterr().out)["rounds"]
    assert [(r["balances"], r["pot"]) for r in rounds] == \
        [(e["balances"], e["pot"]) for e in ended]
    assert main(["history", "--db", str(db), "--game", "1"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert "pot" in table[1] and "bal" in table[2]
    p2 = ended[0]["balances"]["P2"]
    assert table[3].split()[2].endswith(f"/{p2}")


def test_history_game_columns_line_up(tmp_path, capsys):
    db = tmp_path / "box.db"
    assert main(["sim", *GAME, "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["history", "--db", str(db), "--game", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    winners = next(i for i, line in enumerate(lines) if line.startswith("winners:"))
    head, sub, *rows = lines[1:winners]   # the move accuracy follows the winners
    assert head.index("P1") + 2 == sub.index("raw/fin/tot") + len("raw/fin/tot")
    for row in rows:
        cells = row.split()
        assert row.index(cells[1]) + len(cells[1]) == head.index("P1") + 2
        assert row.rindex(cells[2]) + len(cells[2]) == head.index("P2") + 2


def test_sim_keys_line_fits_80_columns_and_events_are_wrapped_not_cut():
    from shutbox_hw.sim.terminal import HELP, event_rows
    assert len(HELP) <= 79 and HELP.endswith("q quit")
    event = json.dumps({"event": "round_ended", "round": 1, "scores": {f"P{i}": i for i in
                                                                      range(1, 9)}})
    rows = event_rows([event, '{"event": "turn_started"}'], 40, 10)
    assert all(len(r) <= 40 for r in rows)
    assert "".join(r.strip() for r in rows[:-1]).replace(" ", "") == event.replace(" ", "")
    assert rows[-1] == '{"event": "turn_started"}'
    assert event_rows([event], 40, 1) == rows[-2:-1]  # the newest rows when space is short
