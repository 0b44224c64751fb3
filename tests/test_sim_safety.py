"""The simulator keeps to its own folder and database, and one database has one box.

Issue 18: ``sim --config <the box's config>`` wrote into the box's own
database, two simulators on one ``--db`` shared a game, ``--frames`` mixed
old frames with new, a small terminal ended the game, and the simulator named
a temporary database it had just deleted as "kept".
"""

from __future__ import annotations

import curses
import json
import os
import signal
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

import pytest
from cli_inprocess import run_cli

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.store.disk.lock import DatabaseInUse, DatabaseLock, lock_path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "shutbox_hw"]
GAME = ROOT / "tests" / "scripts" / "two-player-klappenspiel.txt"


def box_config(tmp_path: Path) -> Path:
    """The gpio-9 reference config, its [storage] db pointed into ``tmp_path``."""
    text = (ROOT / "hardware" / "gpio-9" / "shutbox.toml").read_text()
    config = tmp_path / "shutbox.toml"
    config.write_text(text + f'\n[storage]\ndb = "{tmp_path}/box/shutbox.db"\n'
                      if "[storage]" not in text else
                      text.replace("/var/lib/shutbox-hw", f"{tmp_path}/box"))
    assert load_config(str(config)).db == tmp_path / "box" / "shutbox.db"
    return config


# ---------------------------------------------------------------- the box's database


def test_sim_with_the_box_config_never_touches_the_box_database(tmp_path, capsys):
    config = box_config(tmp_path)
    assert main(["sim", "--config", str(config), "--script", str(GAME)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert "round_ended" in [e["event"] for e in events]
    assert not (tmp_path / "box").exists()   # neither the database nor its folder


def test_sim_world_needs_its_own_db_even_with_a_config_db(tmp_path, capsys):
    config = box_config(tmp_path)
    assert main(["sim", "--config", str(config), "--script", str(GAME),
                 "--world", str(tmp_path / "world.json")]) == 2
    assert "--world needs --db" in capsys.readouterr().err
    assert not (tmp_path / "box").exists()


# ---------------------------------------------------------------- one database, one box


def test_a_database_lock_is_refused_while_held_and_free_after_release(tmp_path):
    db = tmp_path / "box.db"
    with DatabaseLock(db):
        assert lock_path(db).read_text().strip() == str(os.getpid())
        with pytest.raises(DatabaseInUse, match=f"in use by another shutbox-hw "
                                                f"\\(process {os.getpid()}\\)"):
            DatabaseLock(db).acquire()
    assert not lock_path(db).exists()      # an orderly release leaves no file
    with DatabaseLock(db):                  # and the next box takes it at once
        pass


def test_a_leftover_lock_file_does_not_lock(tmp_path):
    db = tmp_path / "box.db"
    lock_path(db).write_text("999999\n")    # a holder killed long ago left it
    with DatabaseLock(db):
        assert lock_path(db).read_text().strip() == str(os.getpid())


def _start_holder(db: Path, tmp_path: Path) -> subprocess.Popen:
    """A simulator playing on ``db`` in real time, once it has begun the game."""
    script = tmp_path / "long.txt"
    script.write_text("start 2\nwait 120\n")
    proc = subprocess.Popen([*COMMAND, "sim", "--script", str(script), "--db", str(db),
                             "--realtime"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)
    assert proc.stdout is not None
    first = proc.stdout.readline()   # the game has begun: the database is in use
    assert json.loads(first)["event"] == "game_started", proc.stderr.read()
    return proc


@pytest.mark.process    # the holder: another process, killed with SIGKILL
def test_two_simulators_on_one_database_the_second_refuses_in_one_line(tmp_path):
    db = tmp_path / "shared.db"
    holder = _start_holder(db, tmp_path)
    try:
        second = run_cli("sim", "--script", GAME, "--db", db, cwd=ROOT)
        assert second.returncode == 2
        assert second.stdout == ""                     # it played nothing
        lines = second.stderr.splitlines()
        assert len(lines) == 1 and len(lines[0]) <= 200, second.stderr
        assert lines[0].startswith("shutbox-hw sim: the database ")
        assert f"in use by another shutbox-hw (process {holder.pid})" in lines[0]
        # the holder's game was not touched: not abandoned, still one game
        import sqlite3
        con = sqlite3.connect(db)
        assert con.execute("SELECT count(*), max(ended_at IS NULL) FROM games").fetchone() \
            == (1, 1)
        con.close()
    finally:
        holder.send_signal(signal.SIGKILL)   # dies without a word: the lock dies with it
        holder.wait(timeout=20)
    after = run_cli("sim", "--script", GAME, "--db", db, cwd=ROOT)
    assert after.returncode == 0, after.stderr
    assert "round_ended" in after.stdout


def test_a_daemon_on_a_database_a_simulator_uses_refuses_before_its_pins(tmp_path, capsys):
    db = tmp_path / "box.db"
    config = tmp_path / "box.toml"
    config.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{db}"\n')
    with DatabaseLock(db):
        # exit 75: the unit tries again (the holder may be a daemon on its way out)
        assert main(["run", "--config", str(config), "--pin-factory", "mock",
                     "--for-seconds", "0.1"]) == 75
    err = capsys.readouterr().err
    assert err.startswith("shutbox-hw run: the database ") and "in use by" in err
    assert len(err.splitlines()) == 1
    assert not db.exists()    # refused before it opened (or created) anything


# ---------------------------------------------------------------- --frames


def test_frames_into_a_folder_with_old_frames_is_refused(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame-00001.png").write_bytes(b"old")
    assert main(["sim", "--script", str(GAME), "--frames", str(frames)]) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "--frames-clear" in err and len(err.splitlines()) == 1
    assert (frames / "frame-00001.png").read_bytes() == b"old"


def test_frames_clear_removes_only_old_frames_then_saves_new_ones(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    for n in (1, 99998, 99999):   # more old frames than this game makes
        (frames / f"frame-{n:05d}.png").write_bytes(b"old")
    assert main(["sim", "--script", str(GAME), "--frames", str(frames),
                 "--frames-clear"]) == 0
    saved = sorted(frames.iterdir())
    assert saved and all(p.read_bytes()[:4] == b"\x89PNG" for p in saved)
    assert saved[0].name == "frame-00001.png"


def test_frames_clear_keeps_a_folder_with_other_files(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "notes.txt").write_text("mine")
    assert main(["sim", "--script", str(GAME), "--frames", str(frames),
                 "--frames-clear"]) == 2
    assert "not all frames" in capsys.readouterr().err
    assert (frames / "notes.txt").read_text() == "mine"


def test_frames_clear_removes_nothing_when_the_database_is_in_use(tmp_path, capsys):
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame-00001.png").write_bytes(b"old")
    db = tmp_path / "box.db"
    with DatabaseLock(db):
        assert main(["sim", "--script", str(GAME), "--db", str(db), "--frames", str(frames),
                     "--frames-clear"]) == 2
    assert "in use" in capsys.readouterr().err
    assert (frames / "frame-00001.png").read_bytes() == b"old"


def test_frames_clear_without_frames_is_a_usage_mistake(capsys):
    assert main(["sim", "--script", str(GAME), "--frames-clear"]) == 2
    assert "--frames-clear goes with --frames" in capsys.readouterr().err


# ---------------------------------------------------------------- the interactive simulator


class FakeScreen:
    """A curses window of a given size: writing outside it fails as curses does.

    ``plan`` is what the person does, one entry per ``getch``: the terminal's
    size from then on and the key (None: no key)."""

    def __init__(self, plan: list[tuple[tuple[int, int], str | None]]) -> None:
        self.plan = deque(plan)
        self.size = plan[0][0]
        self.rows: dict[int, str] = {}
        self.shown: list[str] = []    # each frame's text, as drawn

    def getmaxyx(self) -> tuple[int, int]:
        return self.size

    def erase(self) -> None:
        self.rows = {}

    def addstr(self, row: int, col: int, text: str) -> None:
        lines, columns = self.size
        if row >= lines or col + len(text) > columns:
            raise curses.error("addwstr() returned ERR")
        self.rows[row] = text

    def refresh(self) -> None:
        self.shown.append("\n".join(self.rows[r] for r in sorted(self.rows)))

    def timeout(self, ms: int) -> None:
        pass

    def getch(self) -> int:
        if not self.plan:
            return ord("q")
        self.size, key = self.plan.popleft()
        return ord(key) if key else -1


def _interactive(plan, tmp_path):
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.terminal import _loop
    events: list[dict] = []
    log: deque[str] = deque(maxlen=6)

    def on_event(event: dict) -> None:
        events.append(event)
        log.append(json.dumps(event))
    runner = SimRunner(load_config(), tmp_path / "sim.db", seed=1, on_event=on_event)
    screen = FakeScreen(plan)
    ticks = iter(range(10**6))
    _loop(screen, runner, log, clock=lambda: next(ticks) * 0.05)
    return screen, events


BIG, SMALL = (28, 80), (12, 40)


def test_a_terminal_made_small_mid_game_asks_for_a_bigger_one_and_the_game_goes_on(tmp_path):
    plan = [(BIG, None), (BIG, "r"), (BIG, None),           # a game of one player starts
            (SMALL, None), (SMALL, "r"), (SMALL, None)]      # shrunk: ROLL still throws
    plan += [(SMALL, None)] * 40 + [(BIG, None)]
    screen, events = _interactive(plan, tmp_path)
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["game_started", "turn_started"] and "rolled" in kinds
    asks = [i for i, text in enumerate(screen.shown) if "make the terminal bigger" in text]
    assert asks, screen.shown[-1]
    assert "80x28 needed, now 40x12" in screen.shown[asks[0]].replace("\n", " ")
    rolled_at = kinds.index("rolled")
    assert rolled_at >= 2      # thrown while small: the box went on taking the keys
    assert "┌" in screen.shown[-1]   # bigger again: the box is drawn again


def test_a_terminal_too_small_at_the_start_asks_and_then_plays(tmp_path):
    plan = [((5, 20), None)] * 3 + [(BIG, "r"), (BIG, None)]
    screen, events = _interactive(plan, tmp_path)
    assert any("bigger" in text for text in screen.shown[:3])
    assert [e["event"] for e in events][:2] == ["game_started", "turn_started"]


def _run_terminal(monkeypatch, capsys, argv):
    import shutbox_hw.sim.terminal as terminal

    def quit_at_once(main_fn, runner, log):
        main_fn(FakeScreen([(BIG, "q")]), runner, log)
    monkeypatch.setattr(terminal.curses, "wrapper", quit_at_once)
    monkeypatch.setattr(terminal.curses, "curs_set", lambda n: None)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(argv) == 0
    return capsys.readouterr().out


def test_the_interactive_simulator_names_a_database_only_if_it_is_kept(tmp_path, monkeypatch,
                                                                       capsys):
    out = _run_terminal(monkeypatch, capsys, ["sim"])
    assert "kept" not in out and "sim.db" not in out       # the temporary one is gone
    db = tmp_path / "mine.db"
    out = _run_terminal(monkeypatch, capsys, ["sim", "--db", str(db)])
    assert out.strip() == f"game record kept in {db}" and db.exists()


@pytest.mark.process    # a real pseudo-terminal
def test_a_real_terminal_too_small_then_bigger_plays_on_and_quits_cleanly(tmp_path):
    """The interactive simulator in a real pseudo-terminal: 40x12 asks for a bigger
    one (and does not end), made 80x28 it draws the box, q ends it with exit 0."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    def set_size(fd: int, lines: int, columns: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))

    master, slave = pty.openpty()
    set_size(slave, 12, 40)
    env = dict(os.environ, TERM="xterm", LINES="", COLUMNS="")
    env.pop("LINES")
    env.pop("COLUMNS")
    proc = subprocess.Popen([*COMMAND, "sim", "--seed", "1"], stdin=slave, stdout=slave,
                            stderr=slave, env=env, cwd=ROOT, start_new_session=True)
    os.close(slave)
    seen = b""

    def read_for(seconds: float) -> bytes:
        nonlocal seen
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
        return seen

    try:
        deadline = time.monotonic() + 60
        while b"bigger" not in read_for(0.5) and time.monotonic() < deadline:
            pass
        assert b"bigger" in seen, seen[-500:]
        assert proc.poll() is None                      # still running
        seen = b""
        set_size(master, 28, 80)
        proc.send_signal(signal.SIGWINCH)
        deadline = time.monotonic() + 60     # its own minute: the start's may be spent
        while "┌".encode() not in read_for(0.5) and time.monotonic() < deadline:
            pass
        assert "┌".encode() in seen                    # the box is drawn again
        os.write(master, b"q")
        assert proc.wait(timeout=30) == 0
        assert b"kept" not in read_for(0.5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
