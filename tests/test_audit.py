"""Audits: ``shutbox-hw audit`` after scripted games, the switch counters, the reset."""

import json
import re
import shutil
import sqlite3
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.store import Store
from shutbox_hw.store.read.audit import audits
from shutbox_hw.words.audits import audit_lines

SCRIPT = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"


def script_changes(text: str) -> Counter:
    """The switch changes a script makes: each flap it moves (a flap already where the
    script puts it does not move), each button press."""
    made: Counter = Counter()
    shut: set[str] = set()
    for line in text.splitlines():
        words = line.split("#")[0].split()
        if not words:
            continue
        if words[0] in ("close", "open"):
            for tile in words[1:]:
                if (tile in shut) != (words[0] == "close"):
                    made[f"flap {tile}"] += 1
                    shut ^= {tile}
        elif words[0] in ("roll", "roll1", "start"):  # `start 2`: ROLL (2 players is the default)
            made["ROLL"] += 1
        elif words[0] in ("next", "hold-next"):
            made["NEXT"] += 1
    return made


def play(capsys, db: Path, *extra: str) -> list[dict]:
    code = main(["sim", "--rules", "klappenspiel", "--set", "threshold=10", "--db", str(db),
                 "--script", str(SCRIPT), *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def audit_json(capsys, db: Path) -> dict:
    assert main(["audit", "--db", str(db), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_counters_equal_the_scripts_changes(capsys, tmp_path):
    db = tmp_path / "box.db"
    play(capsys, db)
    figures = audit_json(capsys, db)
    assert figures["switches"] == dict(script_changes(SCRIPT.read_text()))


def test_audit_after_two_games(capsys, tmp_path):
    db = tmp_path / "box.db"
    events = play(capsys, db) + play(capsys, db)
    ended = [e for e in events if e["event"] == "turn_ended"]
    figures = audit_json(capsys, db)
    assert figures["games"] == sum(e["event"] == "game_ended" for e in events) == 2
    assert figures["rounds"] == sum(e["event"] == "round_ended" for e in events)
    assert figures["boxes_shut"] == sum(bool(e.get("shut")) for e in ended)
    scores = sorted(e["score"] for e in ended)
    assert [b["score"] for b in figures["best"]] == scores[:5]
    assert figures["average_score"] == {"klappenspiel": round(sum(scores) / len(scores), 1)}
    doubled = audit_json(capsys, db)["switches"]
    assert doubled == {k: 2 * v for k, v in script_changes(SCRIPT.read_text()).items()}
    # the text form shows the same figures, one a line
    assert main(["audit", "--db", str(db)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == "games:" and text[1].split() == ["played", "2"]
    assert ["boxes", "shut", str(figures["boxes_shut"])] in [line.split() for line in text]


def test_dates_only_when_the_clock_was_synchronised(capsys, tmp_path):
    db = tmp_path / "box.db"
    play(capsys, db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET started_synced = 1")
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d", b["date"]) for b in audit_json(capsys, db)["best"])
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET started_synced = 0")
    assert all(b["date"] is None for b in audit_json(capsys, db)["best"])


def test_reset_audits_keeps_the_history(capsys, tmp_path):
    db = tmp_path / "box.db"
    play(capsys, db)
    store = Store(db)
    assert "played\t1" in audit_lines(store.audit_figures())
    store.reset_audits()
    lines = audit_lines(store.audit_figures())
    store.close()
    assert lines[:4] == ["games", "played\t0", "rounds\t0", "boxes shut\t0"]
    assert not any(line.startswith("flap") for line in lines)
    assert main(["history", "--db", str(db), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["games"]) == 1
    play(capsys, db)
    assert audit_json(capsys, db)["games"] == 1


def played_audit_lines(capsys, db: Path) -> list[str]:
    """The box's audit lines after the scripted game."""
    play(capsys, db)
    conn = sqlite3.connect(db)
    try:
        return audit_lines(audits(conn))
    finally:
        conn.close()


def test_audit_lines_fit_the_screen(capsys, tmp_path):
    lines = played_audit_lines(capsys, tmp_path / "box.db")
    assert lines and all(len(line) <= 21 for line in lines), lines


def test_audits_have_headings_with_units_and_no_button_prompt_look(capsys, tmp_path):
    # issue 18: "NEXT: 2" and "ROLL: 41" read as button prompts; no headings, no units
    db = tmp_path / "box.db"
    lines = played_audit_lines(capsys, db)
    headings = [line for line in lines if "\t" not in line]
    assert headings[:2] == ["games", "avg score a turn"]
    assert {"flap moves", "button presses"} <= set(headings)
    presses = lines[lines.index("button presses") + 1:]
    counts = dict(script_changes(SCRIPT.read_text()))
    assert f"ROLL\t{counts['ROLL']}" in presses
    assert not any(line.startswith(("ROLL:", "NEXT:")) for line in lines)
    assert "Klappenspiel\t" + str(audit_json(capsys, db)["average_score"]["klappenspiel"]) \
        in lines          # the rule set by the name the box shows


def test_missing_database_is_one_line(capsys, tmp_path):
    assert main(["audit", "--db", str(tmp_path / "none.db")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no game database" in err


@pytest.fixture
def usb(tmp_path):
    """A backup place on another disk than tmp_path's record (RAM's /dev/shm)."""
    place = Path(tempfile.mkdtemp(prefix="sbhw-usb-", dir="/dev/shm"))
    try:
        if place.stat().st_dev == tmp_path.stat().st_dev:
            pytest.skip("/dev/shm is on the same disk as the tests' folder here")
        yield place
    finally:
        shutil.rmtree(place, ignore_errors=True)


def test_audit_json_says_when_the_newest_copy_was_taken(capsys, tmp_path, usb):
    """``last_backup`` is added (every other field as it was): null without a
    [backup] place, then the time of the copy the backup worker really made."""
    from shutbox_hw.store.disk.backup import BackupWorker
    db = tmp_path / "box.db"
    play(capsys, db)
    before = audit_json(capsys, db)
    assert before["last_backup"] is None                   # no config: no place known
    config = tmp_path / "shutbox.toml"
    config.write_text(f'[backup]\nplace = "{usb}"\n')

    def with_config() -> dict:
        assert main(["audit", "--db", str(db), "--config", str(config), "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    figures = with_config()
    assert figures["last_backup"] == {"place": str(usb), "at": None, "age_s": None}
    assert {k: v for k, v in figures.items() if k != "last_backup"} == \
        {k: v for k, v in before.items() if k != "last_backup"}
    assert main(["audit", "--db", str(db), "--config", str(config)]) == 0
    assert re.search(r"^storage:$(\n  .*)*\n  last backup +none yet$", capsys.readouterr().out,
                     re.M)
    taken = 1_780_000_000.0                                # the worker's clock at the copy
    worker = BackupWorker(db, usb, clock=lambda: taken)
    copy = worker.run_once()
    assert copy is not None and copy.parent == usb
    start = int(time.time() - taken)
    last = with_config()["last_backup"]
    end = int(time.time() - taken) + 1
    at = datetime.fromisoformat(last["at"])
    assert at.tzinfo is not None and at.timestamp() == taken
    assert start <= last["age_s"] <= end
    assert main(["audit", "--db", str(db), "--config", str(config)]) == 0
    assert re.search(r"^  last backup +\d+ days$", capsys.readouterr().out, re.M)
