"""Years in the pub: what the box's reads, the web's pages and the disk cost as the record grows.

Builds databases of 1,000, 10,000 and 100,000 games from real played games
(the simulated box plays the scripted two-player klappenspiel and seed 001's
practice round on crafthouse-12; their rows are copied with shifted ids and
times, about 30 games a night, the newest tonight), then measures on each, in
fresh processes:

- ``menu_open_loop_ms`` / ``game_end_loop_ms``: the longest time the daemon's
  loop is busy (one ``Daemon._drain``: the input and all the work it leads to,
  the screen drawn) when the operator menu opens (``hold-both``) and when a
  game ends, on the simulated box; the median over ``REPEATS`` of each (the
  loop thread's CPU time in those drains on stderr: what the loop itself did,
  without the turns other processes took on a loaded machine);
- ``resume_s``: start-up on that database (store opened, unfinished game looked
  for, figures read, first screen);
- ``menu_peak_rss_mb``: the box process's peak RSS while the menu opens (the
  peak is reset with ``/proc/self/clear_refs`` at idle; the idle RSS is printed
  on stderr beside it);
- ``web_live_ms`` / ``web_audits_ms``: ``GET /live.json`` and ``GET /audits``
  from a real ``shutbox-hw web`` on that database (median of several);
- ``export_turns_peak_rss_mb``: that web process's peak RSS while
  ``/export/turns.csv`` is streamed to a client (idle on stderr);
- ``web_players_ms``, ``web_players_sorted_ms``, ``web_player_ms``,
  ``web_highscores_ms``: ``/players``, ``/players?sort=win_rate``, one regular's
  ``/players/<name>`` and ``/highscores`` from the same web process (median of 9);
  ``players_json_ms``: ``shutbox-hw players --json`` run in this process (median
  of 5); ``high_scores_ms``: the high scores the daemon reads after each game
  (tonight, the week, all time; median of 9). The copied games' seats are
  shared among ``REGULARS`` named players (``--only players`` measures these and
  the web again);
- ``db_bytes_per_game``: the file's size over its games;
- ``bytes_written_per_throw`` / ``fsyncs_per_throw``: one more game played with
  ``disk sd-card`` under ``strace -f -y`` (every ``write``/``pwrite64`` to the
  database and its ``-wal``, summed by their return values, and every
  ``fsync``/``fdatasync`` of them), divided by the game's throws;
  ``write_bytes_per_throw``: the same game's ``write_bytes`` of ``/proc/self/io``
  (the pages the box's process dirtied on a disk's file system, whatever the
  file; the screen's mirror is in ``/dev/shm``, RAM, as in ``/run`` on the box);
- ``card_bytes_per_throw`` / ``card_writes_per_throw`` / ``card_flushes_per_throw``
  (``--only card``, as root, no database built): what reaches a card's block device, as
  the kernel rehearsal measures it (``tests/vm/guest/storage.py``): a fresh ext4 image
  (32 MB, 4 KiB blocks, mounted ``noatime,errors=remount-ro`` on a loop device), the
  box started on it with manual dice, a game started, then :data:`CARD_THROWS` throws
  of one flap each, a second apart; the sectors, write requests and flushes of
  ``/sys/block/loopN/stat`` from a ``sync -f`` before the first to one after the last,
  over the throws (``card_mirror_on_card_bytes_per_throw``: the same with the screen's
  mirror on the card, ``[storage] runtime`` there).

    .venv/bin/python benchmarks/lifetime.py                   # all, about 10 min
    .venv/bin/python benchmarks/lifetime.py --sizes 1000      # one size
    .venv/bin/python benchmarks/lifetime.py --only web --dbs /tmp/lifetime   # web again
    sudo .venv/bin/python benchmarks/lifetime.py --only card                  # the card's blocks

JSON on stdout, one object per size; what each figure came from on stderr.
``--dbs DIR`` keeps the databases (``games-N-schemaV.db``) to measure again.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "scripts"
SIZES = (1000, 10_000, 100_000)
REPEATS = 5           # menu openings and game ends measured on each database
GAMES_A_NIGHT = 30
REGULARS = 60         # the players the copied games are shared among
SEEDS = (("klappenspiel", {"threshold": "10"}, "two-player-klappenspiel.txt"),
         ("crafthouse-12", {}, "practice-001.txt"))
COPIED = ("games", "players", "rounds", "turns", "throws", "rejected_flaps")
PLAYED = SEEDS[0]     # the game played on the big database


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# ------------------------------------------------------------------ building the databases

def schema_version() -> int:
    from shutbox_hw.store.tables.schema import VERSION
    return VERSION


def config_for(preset: str, overrides: dict[str, str]) -> Any:
    from shutbox_hw.config.config_file import load_config
    return load_config(None, preset=preset, rule_overrides=overrides)


def play_seed(path: Path) -> None:
    """Real games: the simulated box plays each seed script once into ``path``."""
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import load_script
    for preset, overrides, script in SEEDS:
        config = config_for(preset, overrides)
        runner = SimRunner(config, path, on_event=lambda e: None)
        for step in load_script(SCRIPTS / script, config.rules.tiles):
            runner.run(step)
        runner.daemon.store.close()
        runner.sim.box.close()


def build(path: Path, games: int, seed: Path) -> None:
    """``games`` games: the seed's rows copied with shifted ids and times (the copies
    go back in time ``GAMES_A_NIGHT`` a day; the seed itself stays the newest)."""
    from shutbox_hw.store import Store
    Store(path).close()       # an empty database of this version's schema
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("ATTACH ? AS seed", (str(seed),))
    per_copy, = db.execute("SELECT COUNT(*) FROM seed.games").fetchone()
    copies = -(-games // per_copy)
    spans = {t: db.execute(f"SELECT COALESCE(MAX({key}), 0) FROM seed.{t}").fetchone()[0]
             for t, key in (("games", "id"), ("turns", "id"), ("throws", "id"),
                            ("rejected_flaps", "id"))}
    day = per_copy / GAMES_A_NIGHT * 86400
    db.execute("BEGIN")
    db.execute("CREATE TEMP TABLE k (k INTEGER PRIMARY KEY, dt REAL)")
    db.executemany("INSERT INTO k VALUES (?, ?)",
                   [(k, (k - copies + 1) * day) for k in range(copies)])
    shifts = {"id": None, "game_id": "games", "turn_id": "turns"}
    times = {"started_at", "ended_at", "rolled_at", "committed_at", "at"}
    for table in COPIED:
        columns = [c for _, c, *_ in db.execute(f"PRAGMA seed.table_info({table})")]
        exprs = []
        for c in columns:
            span_of = table if c == "id" else shifts.get(c)
            if span_of is not None and c in shifts:
                exprs.append(f"{c} + k.k * {spans[span_of]}")
            elif c in times:
                exprs.append(f"{c} + k.dt")
            else:
                exprs.append(c)
        db.execute(f"INSERT INTO main.{table} ({', '.join(columns)}) SELECT {', '.join(exprs)}"
                   f" FROM k, seed.{table} ORDER BY k.k")
    db.execute(f"DELETE FROM main.games WHERE id > (SELECT id FROM main.games ORDER BY id"
               f" LIMIT 1 OFFSET {games - 1})")
    for table in ("players", "rounds", "turns"):
        db.execute(f"DELETE FROM main.{table} WHERE game_id NOT IN (SELECT id FROM main.games)")
    db.execute("DELETE FROM main.throws WHERE turn_id NOT IN (SELECT id FROM main.turns)")
    db.execute("DELETE FROM main.rejected_flaps WHERE turn_id NOT IN"
               " (SELECT id FROM main.turns)")
    db.execute("COMMIT")
    name_players(db)
    # copied rows, not written by the box: the figures a newer schema keeps (and its
    # roster and players' statistics) are built the way a database from before them
    # gets them, by the migration
    tables = {t for t, in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for kept in ("audit_figures", "audit_best", "shown", "fault_log", "player_stats",
                 "player_rules"):
        if kept in tables:
            db.execute(f"DROP TABLE {kept}")
    for index in ("games_started_at", "games_unfinished", "players_player"):
        db.execute(f"DROP INDEX IF EXISTS {index}")
    if "roster" in tables:
        db.execute("ALTER TABLE players DROP COLUMN player_id")
        db.execute("DROP TABLE roster")
    db.execute("PRAGMA user_version = 4")
    db.execute("DETACH seed")
    db.execute("VACUUM")
    db.close()
    Store(path).close()       # migrated to this version, as an upgrade does


def name_players(db: sqlite3.Connection) -> None:
    """The seats get the names of :data:`REGULARS` regulars (the seed's games have seat
    labels): each game's seats different players, its winners renamed with them."""
    db.execute("BEGIN")
    renamed: dict[int, dict[str, str]] = {}
    for game, seat, name in db.execute("SELECT game_id, seat, name FROM players").fetchall():
        renamed.setdefault(game, {})[name] = f"Regular {(game * 7 + seat * 13) % REGULARS:03d}"
    db.executemany("UPDATE players SET name = ? WHERE game_id = ? AND name = ?",
                   [(new, game, old) for game, names in renamed.items()
                    for old, new in names.items()])
    rows = db.execute("SELECT id, winners FROM games WHERE winners IS NOT NULL").fetchall()
    db.executemany("UPDATE games SET winners = ? WHERE id = ?",
                   [(json.dumps([renamed.get(g, {}).get(n, n) for n in json.loads(w)]), g)
                    for g, w in rows])
    db.execute("COMMIT")


# ------------------------------------------------------------------ memory

def status(pid: int | str, key: str) -> float:
    """``VmRSS`` / ``VmHWM`` of a process in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(key)


def reset_peak(pid: int | str) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")   # VmHWM := VmRSS


# ------------------------------------------------------------------ the box (child processes)

class Timed:
    """Every ``Daemon._drain`` timed (wall clock, and the loop thread's own CPU time:
    on a loaded machine the wall clock is mostly other processes' turns), with the
    events printed during it."""

    def __init__(self) -> None:
        self.marks: list[str] = []
        self.drains: list[tuple[float, float, set[str]]] = []

    def event(self, data: dict[str, Any]) -> None:
        self.marks.append(data["event"])

    def wrap(self, daemon: Any) -> None:
        inner = daemon._drain

        def drain(now: int) -> None:
            start, began, cpu = len(self.marks), time.perf_counter(), time.thread_time()
            inner(now)
            self.drains.append(((time.perf_counter() - began) * 1000,
                                (time.thread_time() - cpu) * 1000, set(self.marks[start:])))
        daemon._drain = drain

    def longest(self, event: str, since: int) -> tuple[float, float]:
        """The longest drain (wall ms, CPU ms) that printed ``event``."""
        return max(((ms, cpu) for ms, cpu, seen in self.drains[since:] if event in seen),
                   default=(0.0, 0.0))


def child_box(db: Path) -> dict[str, Any]:
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import load_script, parse_script
    preset, overrides, script = PLAYED
    config = config_for(preset, overrides)
    game = load_script(SCRIPTS / script, config.rules.tiles)
    tiles = config.rules.tiles
    lift_all = "open " + " ".join(str(t) for t in range(1, tiles + 1)) + "\n"
    to_idle, menu, leave, lift = (parse_script(line, tiles) for line in (
        "roll\n", "hold-both\n", "hold-next\n", lift_all))
    timed = Timed()
    began = time.perf_counter()
    runner = SimRunner(config, db, on_event=timed.event)
    resume = time.perf_counter() - began
    timed.wrap(runner.daemon)
    ends, opens, idle, peak = [], [], 0.0, 0.0
    for repeat in range(REPEATS):
        mark = len(timed.drains)
        for step in lift + game:     # every flap up, as players leave it for a new game
            runner.run(step)
        runner.let_ends_show()   # the result shown; ROLL then goes back to idle
        for step in to_idle:
            runner.run(step)
        ends.append(timed.longest("game_ended", mark))
        if repeat == 0:          # an idle box (a game behind it, no menu yet): the memory
            idle = status("self", "VmRSS")
            reset_peak("self")
        mark = len(timed.drains)
        for step in menu:
            runner.run(step)
        opens.append(timed.longest("service_entered", mark))
        if repeat == 0:
            peak = status("self", "VmHWM")
        for step in leave:
            runner.run(step)
    runner.daemon.store.close()
    return {"menu_open_loop_ms": statistics.median(ms for ms, _ in opens),
            "game_end_loop_ms": statistics.median(ms for ms, _ in ends), "resume_s": resume,
            "menu_peak_rss_mb": peak, "idle_rss_mb": idle,
            "menu_open_cpu_ms": statistics.median(cpu for _, cpu in opens),
            "game_end_cpu_ms": statistics.median(cpu for _, cpu in ends)}


def child_io(db: Path) -> dict[str, Any]:
    """One game on an SD card's disk profile, between two marks strace sees."""
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import load_script, parse_script
    preset, overrides, script = PLAYED
    config = config_for(preset, overrides)
    throws = []
    try:    # the screen's mirror in RAM, as /run on the box (before issue 38: in the record)
        from shutbox_hw.store.read.shown import use_folder
        use_folder(Path(tempfile.mkdtemp(prefix="lifetime-run-", dir=RAM)))
    except ImportError:
        pass
    runner = SimRunner(config, db, on_event=lambda e: throws.append(e["event"] == "rolled"))
    runner.run(parse_script("disk sd-card\n", config.rules.tiles)[0])
    steps = load_script(SCRIPTS / script, config.rules.tiles)
    before = write_bytes()
    os.write(2, b"MARK begin\n")
    for step in steps:
        runner.run(step)
    os.write(2, b"MARK end\n")
    written = write_bytes() - before
    runner.daemon.store.close()
    return {"throws": sum(throws), "write_bytes": written}


RAM = "/dev/shm"
CARD_THROWS = (9, 8, 7, 6, 5)   # the rehearsal's throws: one flap each, ROLL after it
CARD_PACE_S = 1.0               # between two throws (ext4 commits its journal every 5 s)


def child_card(on_card: bool) -> dict[str, Any]:
    """The rehearsal's block figure on a host: a fresh ext4 card on a loop device."""
    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import parse_script
    from shutbox_hw.store.read.shown import use_folder
    work = Path(tempfile.mkdtemp(prefix="lifetime-card-"))
    image, root = work / "card.img", work / "card"
    root.mkdir()
    subprocess.run(["truncate", "-s", "32M", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-E",
                    "lazy_itable_init=0,lazy_journal_init=0", str(image)], check=True)
    loop = subprocess.run(["losetup", "-f", "--show", str(image)], check=True,
                          capture_output=True, text=True).stdout.strip()
    stat = Path(f"/sys/block/{Path(loop).name}/stat")

    def sectors_writes_flushes() -> tuple[int, int, int]:
        f = stat.read_text().split()
        return int(f[6]), int(f[4]), int(f[15])
    try:
        subprocess.run(["mount", "-t", "ext4", "-o", "noatime,errors=remount-ro", loop,
                        str(root)], check=True)
        runtime = root / "run" if on_card else Path(tempfile.mkdtemp(dir=RAM))
        runtime.mkdir(exist_ok=True)
        use_folder(runtime)
        config_file = work / "shutbox.toml"
        config_file.write_text('[rules]\npreset = "klappenspiel"\n[game]\ndice = "manual"\n')
        config = load_config(config_file)
        runner = SimRunner(config, root / "shutbox.db", on_event=lambda e: None)

        def play(text: str) -> None:
            for step in parse_script(text, config.rules.tiles):
                runner.run(step)
        play("start 1\nroll\n")
        subprocess.run(["sync", "-f", str(root)], check=True)
        before = sectors_writes_flushes()
        for tile in CARD_THROWS:
            play(f"close {tile}\nroll\n")
            time.sleep(CARD_PACE_S)
        subprocess.run(["sync", "-f", str(root)], check=True)
        after = sectors_writes_flushes()
        runner.daemon.store.close()
        runner.sim.box.close()
    finally:
        subprocess.run(["umount", str(root)], capture_output=True)
        subprocess.run(["losetup", "-d", loop], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    n = len(CARD_THROWS)
    return {"bytes": (after[0] - before[0]) * 512 / n, "writes": (after[1] - before[1]) / n,
            "flushes": (after[2] - before[2]) / n}


def card_figures() -> dict[str, float]:
    """The card's figures, mirror in RAM and on the card (root only: None otherwise)."""
    if os.geteuid() != 0 or shutil.which("mkfs.ext4") is None:
        log("  card: skipped (needs root and mkfs.ext4 for a loop-mounted ext4)")
        return {}
    ram, card = (run_child(kind, Path("-")) for kind in ("card-ram", "card-card"))
    log(f"  card: {ram['bytes']:,.0f} bytes, {ram['writes']:.1f} write requests, "
        f"{ram['flushes']:.1f} flushes a throw; mirror on the card {card['bytes']:,.0f}, "
        f"{card['writes']:.1f}, {card['flushes']:.1f}")
    return {"card_bytes_per_throw": ram["bytes"], "card_writes_per_throw": ram["writes"],
            "card_flushes_per_throw": ram["flushes"],
            "card_mirror_on_card_bytes_per_throw": card["bytes"]}


def write_bytes() -> int:
    """The bytes this process sent towards the block layer (``/proc/self/io``
    ``write_bytes``: pages it dirtied on a disk's file system, all threads; a
    tmpfs's are not counted): closer to what the card is asked than the
    calls' sizes, since a page rewritten before it was synced counts once and
    a small write costs its whole page."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise KeyError("write_bytes")


SYSCALL = re.compile(r"^(\d+)\s+(\w+)\((\d+)<([^>]*)>")
RESULT = re.compile(r"=\s+(-?\d+)")
RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (\w+) resumed>")


def calls(trace: str) -> list[tuple[str, str, int]]:
    """``(call, path, result)`` of each traced call, a call another thread's line
    interrupted (``<unfinished ...>`` ... ``<... resumed>``) joined up again."""
    done, pending = [], {}
    for line in trace.splitlines():
        if "MARK " in line:
            done.append((line[line.index("MARK "):].split("\\")[0], "", 0))
            continue
        start, resumed = SYSCALL.match(line), RESUMED.match(line)
        if start and line.endswith("<unfinished ...>"):
            pending[start.group(1)] = (start.group(2), start.group(4))
        elif start:
            result = RESULT.findall(line)
            done.append((start.group(2), start.group(4), int(result[-1]) if result else -1))
        elif resumed and resumed.group(1) in pending:
            call, path = pending.pop(resumed.group(1))
            result = RESULT.findall(line)
            done.append((call, path, int(result[-1]) if result else -1))
    return done


def io_figures(db: Path) -> tuple[float, float, float]:
    """Bytes written to the database files, their syncs, and the bytes the process
    sent towards the block layer, per throw of one game."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "trace"
        out = subprocess.run(["strace", "-f", "-y", "-qq", "-s", "32", "-o", str(trace),
                              "-e", "trace=write,pwrite64,pwritev,fsync,fdatasync",
                              sys.executable, __file__, "--child", "io", str(db)],
                             check=True, capture_output=True, text=True)
        child = json.loads(out.stdout)
        throws, block = child["throws"], child["write_bytes"]
        written = syncs = 0
        counting = False
        for call, path, result in calls(trace.read_text()):
            if call.startswith("MARK "):
                counting = call == "MARK begin"
            elif not counting or not path.startswith(str(db.resolve())):
                continue
            elif call in ("fsync", "fdatasync"):
                syncs += 1
            elif result > 0:
                written += result
    log(f"  io: {throws} throws, {written} bytes written to the database files, {syncs} syncs;"
        f" {block} bytes towards the block layer (/proc/self/io write_bytes)")
    return written / throws, syncs / throws, block / throws


def run_child(kind: str, db: Path) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(db)], check=True,
                         capture_output=True, text=True)
    return dict(json.loads(out.stdout.splitlines()[-1]))


# ------------------------------------------------------------------ the web

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def timed_get(url: str) -> float:
    began = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as response:
        while response.read(65536):
            pass
    return (time.perf_counter() - began) * 1000


def web_figures(db: Path) -> dict[str, float]:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-c", "import sys; from shutbox_hw.commands.cli import"
                               " main; sys.exit(main(sys.argv[1:]))", "web", "--db", str(db),
                               "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                timed_get(base + "/health")
                break
            except OSError:
                time.sleep(0.1)
        timed_get(base + "/live.json")
        live = statistics.median(timed_get(base + "/live.json") for _ in range(9))
        audits = statistics.median(timed_get(base + "/audits") for _ in range(3))
        pages = {key: statistics.median(timed_get(base + path) for _ in range(9))
                 for key, path in (("web_players_ms", "/players"),
                                   ("web_players_sorted_ms", "/players?sort=win_rate"),
                                   ("web_player_ms", "/players/Regular%20000"),
                                   ("web_highscores_ms", "/highscores"))}
        idle = status(server.pid, "VmRSS")
        reset_peak(server.pid)
        export = timed_get(base + "/export/turns.csv")
        peak = status(server.pid, "VmHWM")
    finally:
        server.terminate()
        server.wait()
    log(f"  web: idle RSS {idle:.1f} MB, turns.csv in {export:.0f} ms, peak {peak:.1f} MB")
    return {"web_live_ms": live, "web_audits_ms": audits, "export_turns_peak_rss_mb": peak,
            **pages}


def players_figures(db: Path) -> dict[str, float]:
    """``shutbox-hw players --json`` run in this process (stdout kept), and the high
    scores the daemon reads after every game (tonight's, the week's, all time), on a
    read-only connection; medians."""
    import contextlib
    import io

    from shutbox_hw.commands.cli import main as cli
    from shutbox_hw.store.read.highscores import high_scores
    from shutbox_hw.store.read.readonly import connect_readonly

    def command() -> float:
        out = io.StringIO()
        began = time.perf_counter()
        with contextlib.redirect_stdout(out):
            cli(["players", "--db", str(db), "--json"])
        took = (time.perf_counter() - began) * 1000
        players = json.loads(out.getvalue())
        assert players and players[0]["games"], "no players in the benchmark's record"
        return took
    conn = connect_readonly(db, 1.0)[0]
    now = time.time()

    def tables() -> float:
        began = time.perf_counter()
        high_scores(conn, now)
        return (time.perf_counter() - began) * 1000
    try:
        figures = {"players_json_ms": statistics.median(command() for _ in range(5)),
                   "high_scores_ms": statistics.median(tables() for _ in range(9))}
    finally:
        conn.close()
    log(f"  players: {figures}")
    return figures


# ------------------------------------------------------------------ putting it together

def measure(db: Path, games: int, only: str | None) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    if only in (None, "box"):
        box = run_child("box", db)
        log(f"  box: idle RSS {box.pop('idle_rss_mb'):.1f} MB, "
            f"menu peak {box['menu_peak_rss_mb']:.1f} MB; the loop thread's CPU: menu open "
            f"{box.pop('menu_open_cpu_ms'):.1f} ms, game end {box.pop('game_end_cpu_ms'):.1f} ms")
        figures |= box
    if only in (None, "web"):
        figures |= web_figures(db)
    if only in (None, "web", "players"):
        figures |= players_figures(db)
    if only in (None, "box"):
        figures["db_bytes_per_game"] = db.stat().st_size / games
        written, syncs, block = io_figures(db)
        figures |= {"bytes_written_per_throw": written, "fsyncs_per_throw": syncs,
                    "write_bytes_per_throw": block}
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--only", choices=("box", "web", "players", "card"))
    parser.add_argument("--dbs", type=Path, help="keep (and reuse) the databases here")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, db = args.child
        if kind.startswith("card-"):
            print(json.dumps(child_card(kind == "card-card")))
        else:
            print(json.dumps((child_box if kind == "box" else child_io)(Path(db))))
        return
    if args.only == "card":   # no database to build: a fresh card, as the rehearsal's
        print(json.dumps({"card": {k: round(v, 1) for k, v in card_figures().items()}},
                         indent=1))
        return
    tmp = None
    if args.dbs is None:
        tmp = tempfile.mkdtemp(prefix="lifetime-")
        args.dbs = Path(tmp)
    args.dbs.mkdir(parents=True, exist_ok=True)
    version = schema_version()
    seed = args.dbs / f"seed-schema{version}.db"
    if not seed.exists():
        play_seed(seed)
    results = {}
    try:
        for games in (int(s) for s in args.sizes.split(",")):
            kept = args.dbs / f"games-{games}-schema{version}.db"
            if not kept.exists():
                began = time.perf_counter()
                build(kept, games, seed)
                log(f"{games} games built in {time.perf_counter() - began:.1f} s")
            work = args.dbs / f"work-{games}.db"       # measured on a copy: kept stays as built
            for suffix in ("", "-wal", "-shm"):
                Path(f"{work}{suffix}").unlink(missing_ok=True)
            shutil.copyfile(kept, work)
            log(f"{games} games:")
            results[str(games)] = measure(work, games, args.only)
            print(json.dumps({str(games): results[str(games)]}), file=sys.stderr)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
