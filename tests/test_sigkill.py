"""SIGKILL of a real ``shutbox-hw sim --db --world`` process at random moments.

Each kill is followed by a restart on the same database and world file (the
flaps stay where they physically are; the script goes on from the line that
was interrupted). Every restart resumes the game, no committed throw is
lost, ``PRAGMA integrity_check`` is ok after every kill, and the game ends
with the uninterrupted run's record (throws, turns, rounds, totals, winners).

The short form (default) kills a few times; ``pytest --long`` kills 100 times
(tests/README.md has the figures).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from steady_player import ScriptRecorder, SteadyPlayer, record_of

from shutbox_hw.config.config_file import load_config

SHORT_KILLS = 6
LONG_KILLS = 100
RULES = ["--set", "match=race"]
COMMAND = [sys.executable, "-m", "shutbox_hw"]


def committed_throws(db: Path) -> set[tuple]:
    con = sqlite3.connect(db)
    try:
        return set(con.execute(
            "SELECT t.round, t.seat, h.number, h.dice, h.closed FROM throws h JOIN turns t"
            " ON t.id = h.turn_id WHERE h.closed IS NOT NULL"))
    finally:
        con.close()


def unfinished(db: Path) -> bool:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT count(*) FROM games WHERE ended_at IS NULL").fetchone()[0] > 0
    finally:
        con.close()


def integrity(db: Path) -> str:
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def a_game(tmp_path: Path, seed: int) -> tuple[Path, dict]:
    """The script of one steady game and the record of its uninterrupted run."""
    config = load_config(rule_overrides={"match": "race"})
    runner = ScriptRecorder(config, tmp_path / f"plain{seed}.db")
    SteadyPlayer(runner, players=3, rounds=3, seed=seed).play()
    script = tmp_path / f"game{seed}.txt"
    script.write_text("\n".join(runner.lines) + "\n")
    return script, record_of(tmp_path / f"plain{seed}.db")


@pytest.mark.process    # SIGKILL: only a process can be killed
def test_sigkill_at_random_moments_loses_nothing(tmp_path, long_run):
    target = LONG_KILLS if long_run else SHORT_KILLS
    rng = random.Random(2026)
    kills = games = 0
    problems: list[str] = []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    while kills < target:
        games += 1
        script, expected = a_game(tmp_path, seed=games)
        db, world = tmp_path / f"box{games}.db", tmp_path / f"world{games}.json"
        command = [*COMMAND, "sim", *RULES, "--script", str(script), "--db", str(db),
                   "--world", str(world)]
        kept: set[tuple] = set()
        must_resume = False
        while True:
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, env=env)
            first = proc.stdout.readline()     # booted: the game is under way
            if must_resume and json.loads(first or "{}").get("event") != "resumed":
                problems.append(f"game {games}: a restart did not resume: {first!r}")
            if kills < target:
                time.sleep(rng.uniform(0, 0.3))
            if proc.poll() is None and kills < target:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                proc.stdout.close()
                proc.stderr.close()
                if integrity(db) != "ok":
                    problems.append(f"game {games}: integrity after kill {kills}")
                now = committed_throws(db)
                if not kept <= now:
                    problems.append(f"game {games}: committed throws lost: {kept - now}")
                kept = now
                must_resume = unfinished(db)
                continue
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err[-500:]
            break
        got = record_of(db)
        if got != expected:
            diff = {k: (len(v), len(expected[k]), [x for x in v if x not in expected[k]][:2],
                        [x for x in expected[k] if x not in v][:2])
                    for k, v in got.items() if v != expected[k]}
            problems.append(f"game {games}: ends differently: {diff}")
        if not kept <= committed_throws(db):
            problems.append(f"game {games}: committed throws lost at the end")
    print(f"SIGKILLs tried {kills} over {games} games, problems {len(problems)}")
    assert not problems, problems[:3]


class _Kill(BaseException):
    """A SIGKILL, in-process: nothing after it runs, uncommitted work is lost."""


def killed_then_restarted(tmp_path: Path, monkeypatch, seed: int, cls: type, method: str,
                          dies) -> tuple[Path, dict, list]:
    """Play steady game ``seed`` through ``sim --world`` in this process until the
    patched ``cls.method`` (run first) says the process ``dies(self)``; then play
    on in a new daemon on the same database and world file, as a restarted
    process would. Returns the database, the uninterrupted run's record and the
    script's steps."""
    from shutbox_hw.sim.parts import disk as sim_disk
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import load_script
    from shutbox_hw.sim.world_file import run_with_world

    config = load_config(rule_overrides={"match": "race"})
    script, expected = a_game(tmp_path, seed=seed)
    steps = load_script(script, config.rules.tiles)
    db, world = tmp_path / "box.db", tmp_path / "world.json"
    stores: list = []
    real, real_open = getattr(cls, method), sim_disk.SimDisk.open_store

    def patched(self, *args):
        real(self, *args)
        if dies(self, steps):
            raise _Kill()

    def open_store(self, path):
        stores.append(real_open(self, path))
        return stores[-1]

    monkeypatch.setattr(cls, method, patched)
    monkeypatch.setattr(sim_disk.SimDisk, "open_store", open_store)
    make = lambda shut: SimRunner(config, db, shut=shut)  # noqa: E731
    with pytest.raises(_Kill):
        run_with_world(make, steps, world)
    for store in stores:
        store.close()   # releases the file as the dead process would; nothing is committed
    monkeypatch.setattr(cls, method, real)
    run_with_world(make, steps, world)
    return db, expected, steps


@pytest.mark.parametrize("kill_at", [40, 90, 150])
def test_kill_at_a_chosen_write_then_restart_ends_the_same(tmp_path, monkeypatch, kill_at):
    """Deterministic form of the random kills: the process dies right after its
    ``kill_at``-th database write; a new one on the same db and world file ends
    the game as the uninterrupted run did."""
    from shutbox_hw.sim.parts.disk import SimDisk
    writes = [0]

    def dies(disk, steps) -> bool:
        writes[0] += 1
        return writes[0] == kill_at

    db, expected, _ = killed_then_restarted(tmp_path, monkeypatch, 46, SimDisk, "_wrote", dies)
    assert record_of(db) == expected


def test_a_cut_between_new_game_and_its_answer_asks_again(tmp_path, monkeypatch):
    """The power goes after the box asked "New game?" and the script's line that
    asked was saved as done, before the answer (ROLL: yes) began: the box does
    not keep the question, so the person asks again, and the game ends as the
    uninterrupted run's did (game 1 of the random kills once ended unfinished so)."""
    from shutbox_hw.sim.world_file import WorldFile

    def dies(world, steps) -> bool:
        assert [s.command.word for s in steps[-2:]] == ["hold-next", "roll"]
        # the hold-next line is done: the box asks "New game?" now
        return world.data["line"] == len(steps) - 1 and world.data["before"] is None

    db, expected, _ = killed_then_restarted(tmp_path, monkeypatch, 1, WorldFile, "save", dies)
    assert record_of(db) == expected
