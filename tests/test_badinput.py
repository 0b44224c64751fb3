"""Every bad input is one line on stderr naming the problem, exit 2, no traceback, no hang.

The corpus is the table in ``badinput/cases.py``. Cases that could hang (FIFOs,
devices, a locked database) run as real ``shutbox-hw`` processes, in parallel,
each killed after 5 s; the rest run ``main()`` in-process, which is as strict:
any exception other than the clean exit fails the case.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from badinput.cases import CASES, Case, make
from cli_inprocess import run_cli
from forked import sb_run
from other_user import PublicCopy

from shutbox_hw.commands.cli import main
from shutbox_hw.game.model.events import GameStarted
from shutbox_hw.store import Store

# what tells a hang (a script read from a FIFO or /dev/zero) from a refusal: the refusal comes at
# once, but four processes starting together at load 6 took more than 5 s, so the bound is not a
# time to meet, only the point where waiting stops (SHUTBOX_HANG_S sets another)
TIMEOUT_S = float(os.environ.get("SHUTBOX_HANG_S", "30"))
MAX_LINE = 200


def command(case: Case, tmp: Path) -> list[str]:
    return [arg.replace("{t}", str(tmp)) for arg in case.argv]


def env(tmp: Path) -> dict[str, str]:
    """No case may touch the real box's database or the person's home."""
    return {**os.environ, "XDG_DATA_HOME": str(tmp / "xdg"), "STATE_DIRECTORY": ""}


def run_in_process(argv: list[str], tmp: Path, monkeypatch) -> tuple[int, str]:
    for key, value in env(tmp).items():
        monkeypatch.setenv(key, value)
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        try:
            code = main(argv)
        except SystemExit as exit:  # argparse's usage errors
            code = exit.code if isinstance(exit.code, int) else 1
    return code, err.getvalue()


def run_process(argv: list[str], tmp: Path) -> tuple[int, str]:
    """A process of its own (forked from the warm interpreter: tests/forked.py), killed if
    it hangs."""
    try:
        done = sb_run(argv, timeout=TIMEOUT_S, env=env(tmp), cwd=None)
    except subprocess.TimeoutExpired:
        return -1, f"hung for {TIMEOUT_S} s"
    return done.returncode, done.stderr


@pytest.fixture(scope="module")
def process_results(tmp_path_factory) -> dict[str, tuple[int, str]]:
    """All subprocess cases at once (four at a time): the module stays fast."""
    held: list = []
    jobs = {}
    for case in (c for c in CASES if c.proc):
        tmp = tmp_path_factory.mktemp(case.id)
        for spec in case.setup:
            make(tmp, spec, held)
        jobs[case.id] = (command(case, tmp), tmp)
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {cid: pool.submit(run_process, argv, tmp) for cid, (argv, tmp) in jobs.items()}
        results = {cid: future.result() for cid, future in futures.items()}
    for con in held:
        con.close()
    return results


def test_the_corpus_is_large_and_each_case_named_once():
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)


# the cases that could hang are real processes (killed after TIMEOUT_S): marked so
@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.process) if c.proc else c
                                  for c in CASES], ids=[c.id for c in CASES])
def test_bad_input_is_one_line_and_exit_2(case, tmp_path, monkeypatch, request):
    if case.proc:      # all of them at once, the first time one is asked for
        code, err = request.getfixturevalue("process_results")[case.id]
    else:
        held: list = []
        for spec in case.setup:
            make(tmp_path, spec, held)
        code, err = run_in_process(command(case, tmp_path), tmp_path, monkeypatch)
    assert "Traceback" not in err
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err[:2000]
    assert len(lines[0]) <= MAX_LINE, lines[0]
    assert case.keyword in lines[0], lines[0]


def test_bare_command_prints_usage_on_stderr_and_exits_2(tmp_path):
    done = run_cli(env=env(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: shutbox-hw ")
    assert "COMMAND is required" in done.stderr


def test_every_line_of_a_config_error_names_the_command(tmp_path, capsys):
    bad = tmp_path / "box.toml"
    bad.write_text('[game]\nplayer_names = ["Ann", "Ann"]\n[storage]\ndb = 5\n')
    assert main(["sim", "--config", str(bad)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert all(line.startswith("shutbox-hw sim: ") for line in lines), lines


def test_a_quoted_bad_value_is_clipped_with_an_ellipsis(tmp_path, monkeypatch):
    code, err = run_in_process(["history", "--limit", "7" * 1000], tmp_path, monkeypatch)
    assert code == 2 and "'" + "7" * 59 + "…'" in err


# ------------------------------------------------ permissions (need another user than root)

@pytest.fixture
def box_db() -> Iterator[Path]:
    # not under pytest's tmp_path: its parent is private to root
    with tempfile.TemporaryDirectory(prefix="shutbox-perm-") as tmp:
        home = Path(tmp) / "box"
        home.mkdir()
        Path(tmp).chmod(0o755)
        yield from _box_db(home)
        home.chmod(0o755)


def _box_db(home: Path) -> Iterator[Path]:
    store = Store(home / "box.db")
    store.record(GameStarted(players=("Ann",), rules={"preset": "klappenspiel"}, dice="software"))
    store.close()
    assert not (home / "box.db-wal").exists()
    yield home / "box.db"


@pytest.fixture
def history_as_nobody(public_copy: PublicCopy) -> Callable[[Path], subprocess.CompletedProcess]:
    """``history --db DB`` as an ordinary user (root reads every file whatever its mode)."""
    def run(db: Path) -> subprocess.CompletedProcess:
        return subprocess.run(public_copy.command("history", "--db", str(db)),
                              capture_output=True, text=True, timeout=TIMEOUT_S, cwd="/",
                              env=public_copy.env(**env(db.parent)))
    return run


@pytest.mark.other_user
def test_history_reads_a_database_in_a_read_only_directory(box_db, history_as_nobody):
    box_db.chmod(0o644)
    box_db.parent.chmod(0o555)
    done = history_as_nobody(box_db)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("#1 ")


@pytest.mark.other_user
def test_history_says_a_read_only_copy_with_a_wal_file_must_be_copied(box_db, history_as_nobody):
    con = sqlite3.connect(box_db, isolation_level=None)
    con.execute("PRAGMA wal_autocheckpoint = 0")
    con.execute("UPDATE games SET abandoned = 1")  # in the -wal file only
    copy = box_db.parent / "copy"
    copy.mkdir()
    shutil.copy(box_db, copy / "box.db")
    shutil.copy(f"{box_db}-wal", copy / "box.db-wal")  # without its -shm: a crash's leftovers
    con.close()
    copy.chmod(0o555)
    done = history_as_nobody(copy / "box.db")
    copy.chmod(0o755)
    assert done.returncode == 2
    assert "is read-only here and its last writes are still in its -wal file" in done.stderr
    assert len(done.stderr.splitlines()) == 1


@pytest.mark.other_user
def test_history_says_an_unreadable_database_is_unreadable(box_db, history_as_nobody):
    box_db.chmod(0o600)
    if os.geteuid() != 0:
        box_db.chmod(0o000)
    done = history_as_nobody(box_db)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"shutbox-hw history: {box_db} cannot be read (permission denied)"]
    # nor can a file in a directory nobody may enter (its owner, when not root, neither)
    box_db.parent.chmod(0o700 if os.geteuid() == 0 else 0o000)
    done = history_as_nobody(box_db)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"shutbox-hw history: {box_db}: cannot read the database (permission denied)"]


@pytest.mark.process    # it could hang: a process is killed after TIMEOUT_S
def test_history_says_a_locked_database_is_locked_not_foreign(box_db):
    con = sqlite3.connect(box_db, isolation_level=None)
    con.execute("PRAGMA locking_mode = EXCLUSIVE")
    con.execute("BEGIN EXCLUSIVE")
    try:
        done = sb_run(["history", "--db", str(box_db)], timeout=TIMEOUT_S,
                      env=env(box_db.parent), cwd=None)
    finally:
        con.close()
    assert done.returncode == 2
    assert "is locked by another program" in done.stderr
    assert "not a shutbox-hw database" not in done.stderr
