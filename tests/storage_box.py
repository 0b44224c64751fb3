"""What the storage tests share: a game's opening, a script played on a simulated
box, the storage faults and recoveries among its events, and the throws on disk."""

from __future__ import annotations

from pathlib import Path

from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script
from shutbox_hw.store.read.readonly import connect_readonly

OPENING = "start 1\ndice 3 4\nroll\nclose 3 4\n"


def play(runner: SimRunner, text: str) -> None:
    for step in parse_script(text, runner.config.rules.tiles):
        runner.run(step)


def storage_faults(events):
    return [e for e in events if e["event"] == "fault" and e["device"] == "storage"]


def recoveries(events):
    return [e for e in events if e["event"] == "recovered" and e["device"] == "storage"]


def throws_on_disk(db: Path) -> list[tuple[int, str | None, str | None]]:
    """The throws the record holds (read as a reader opens it: on a read-only folder too)."""
    con, _ = connect_readonly(db, 1.0)
    try:
        return con.execute("SELECT number, dice, closed FROM throws ORDER BY id").fetchall()
    finally:
        con.close()
