"""The crash rehearsal's two jobs that need the box's own code (run with its venv, as root).

``plan``: the game to play, decided on the simulated box (:mod:`crash_game`).
``check``: every replay point of a dm-log-writes log (:mod:`logwrites`) made into
a disk image, mounted (ext4 replays its journal) and checked: ``PRAGMA
integrity_check`` is ok, the store opens and reads the unfinished game as the
daemon does at boot, and every throw, turn end and round end whose event was
shown before the point is on it. At a sample of points the simulated box then
boots on it with the flaps as they were, plays on to the end, and must leave
the record of the uninterrupted game; for a few points it writes what the real
daemon needs to do the same (the image, the actions).
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import json
import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent.parent)]   # guest/ and tests/

from crash_game import (  # noqa: E402
    ManualPlayer,  # noqa: E402
    Played,
    boot_events,
    choose_seed,
    game_config,
    play_on,
    record_of,
)
from logwrites import Log, Point, Replayer, read_log, replay_points  # noqa: E402

from shutbox_hw.sim.runner import SimRunner  # noqa: E402
from shutbox_hw.store import Store  # noqa: E402

DB_NAME = "shutbox.db"


def plan(args: argparse.Namespace) -> None:
    config = game_config(args.config)
    scratch = Path(args.out).parent / "plan-scratch"
    scratch.mkdir(exist_ok=True)
    seed, played = choose_seed(config, scratch, first=args.seed)
    Path(args.out).write_text(json.dumps({
        "seed": seed,
        "actions": [[a.kind, list(a.args), a.events] for a in played.actions],
        "events": played.events}))


# ---------------------------------------------------------------- what was shown

def shown_marks(names: list[str]) -> tuple[int, int | None]:
    """From the marks sent before a point: how many game events had been shown
    (``e<k>``) and the flaps as they were (``a<i>:<mask>``, None: none yet)."""
    events, flaps = 0, None
    for name in names:
        if name.startswith("e"):
            events = max(events, int(name[1:]))
        elif name.startswith("a") and ":" in name:
            flaps = int(name.split(":", 1)[1])
    return events, flaps


def lost_shown(db: Path, shown: list[dict[str, Any]]) -> list[str]:
    """What of the shown events the database does not hold (empty: nothing lost)."""
    con = sqlite3.connect(db)
    try:
        games = con.execute("SELECT id, ended_at IS NOT NULL FROM games").fetchall()
        seats = {name: seat for seat, name in con.execute("SELECT seat, name FROM players")}
        throws = {(r, s, n): (json.loads(c) if c else None, done) for r, s, n, c, done in
                  con.execute("SELECT t.round, t.seat, h.number, h.closed,"
                              " h.committed_at IS NOT NULL FROM throws h"
                              " JOIN turns t ON t.id = h.turn_id")}
        turns = {(r, s): score for r, s, score in
                 con.execute("SELECT round, seat, score FROM turns WHERE ended_at IS NOT NULL")}
        rounds = {n for n, in con.execute("SELECT number FROM rounds")}
    finally:
        con.close()
    lost = []
    for i, e in enumerate(shown, 1):
        kind = e["event"]
        seat = seats.get(e.get("player", ""), -1)
        if kind == "game_started" and not games:
            lost.append(f"event {i} game_started")
        elif kind == "game_ended" and not any(ended for _, ended in games):
            lost.append(f"event {i} game_ended")
        elif kind == "rolled" and (e["round"], seat, e["throw"]) not in throws:
            lost.append(f"event {i} rolled: round {e['round']} {e['player']} throw {e['throw']}")
        elif kind == "throw_committed":
            row = throws.get((e["round"], seat, e["throw"]))
            if row is None or not row[1] or row[0] != e["closed"]:
                lost.append(f"event {i} throw_committed: round {e['round']} {e['player']} "
                            f"throw {e['throw']} closed {e['closed']} (disk: {row})")
        elif kind == "turn_ended" and turns.get((e["round"], seat)) != e["score"]:
            lost.append(f"event {i} turn_ended: round {e['round']} {e['player']}")
        elif kind == "round_ended" and e["round"] not in rounds:
            lost.append(f"event {i} round_ended {e['round']}")
    return lost


# ---------------------------------------------------------------- one point

MS_NOATIME, BLKFLSBUF = 1024, 0x1261


class Mounter:
    """One loop device on the point's image file, mounted and unmounted through
    libc (a process per mount would cost more than the mount under TCG). The
    loop reads the file through its page cache, so it sees each new image once
    the block device's own cache is dropped (BLKFLSBUF) before every mount."""

    def __init__(self, image: Path, mnt: Path) -> None:
        self.mnt = mnt
        self.loop = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True,
                                   text=True, check=True).stdout.strip()
        self.libc = ctypes.CDLL(None, use_errno=True)

    def copy_out(self, into: Path) -> str | None:
        """Mount (ext4 replays its journal), copy the database files to ``into``,
        unmount. A problem in a few words, or None."""
        fd = os.open(self.loop, os.O_RDONLY)
        try:
            fcntl.ioctl(fd, BLKFLSBUF, 0)
        finally:
            os.close(fd)
        if self.libc.mount(self.loop.encode(), str(self.mnt).encode(), b"ext4", MS_NOATIME,
                           None) != 0:
            return f"mount failed: {os.strerror(ctypes.get_errno())}"
        try:
            into.mkdir(parents=True, exist_ok=True)
            for f in self.mnt.glob(DB_NAME + "*"):
                shutil.copy2(f, into / f.name)
        finally:
            if self.libc.umount2(str(self.mnt).encode(), 0) != 0:
                raise OSError(ctypes.get_errno(), f"umount {self.mnt}")
        return None

    def close(self) -> None:
        subprocess.run(["losetup", "-d", self.loop], check=False)


def check_db(db: Path, shown: list[dict[str, Any]]) -> list[str]:
    """The cheap invariants: integrity, the daemon's boot read, nothing shown lost."""
    if not db.exists():
        return ["lost: no database"] if shown else []
    con = sqlite3.connect(db)
    try:
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()
    problems = [] if integrity == "ok" else [f"integrity_check: {integrity}"]
    store = Store(db)
    try:
        saved = store.unfinished_game()
    finally:
        store.close()
    con = sqlite3.connect(db)
    try:
        ended = con.execute("SELECT count(*) FROM games WHERE ended_at IS NOT NULL").fetchone()[0]
    finally:
        con.close()
    if any(e["event"] == "game_started" for e in shown) and saved is None and not ended:
        problems.append("the store reads no unfinished game and no ended one")
    return problems + [f"lost: {x}" for x in lost_shown(db, shown)]


def tiles(mask: int | None) -> tuple[int, ...]:
    return tuple(t for t in range(1, 33) if mask and mask >> (t - 1) & 1)


def check(args: argparse.Namespace) -> None:
    t0 = time.monotonic()
    game = json.loads(Path(args.game).read_text())        # what the real run showed
    shown_all: list[dict[str, Any]] = game["events"]
    seed = game["seed"]
    config = game_config(args.config)
    reference = record_of(Path(args.final_db)) if args.final_db else None
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    mnt = work / "mnt"
    mnt.mkdir(exist_ok=True)
    log: Log = read_log(open(args.log, "rb"))
    marks = log.marks()
    start = next((m.index for m in marks if m.mark == "start"), 0)
    rng = random.Random(args.rng_seed)
    points = replay_points(log, args.torn, rng, start=start)
    if args.kinds:
        points = [p for p in points if p.kind in args.kinds.split(",")]
    # "all": every distinct state (disk and flaps) is played on, as the daemon boots it
    plays_all = args.plays == "all"
    plays = 0 if plays_all else int(args.plays)
    every = max(1, math.ceil(len(points) / plays)) if plays else 0
    played_states: set[tuple[int, int | None]] = set()
    samples = set()
    if args.samples:
        # the real daemon's resume: points spread over the game, on a mark
        on_marks = [i for i, p in enumerate(points) if p.kind == "mark"]
        for k in range(1, args.samples + 1):
            samples.add(on_marks[len(on_marks) * k // (args.samples + 1)])
    replayer = Replayer(log, Path(args.log), Path(args.base), work / "replay.img")
    image = work / "point.img"
    shutil.copyfile(args.base, image)
    mounter = Mounter(image, mnt)
    daemon = None
    if args.real_daemon:
        from crash_daemon import RealDaemon
        daemon = RealDaemon(Path(args.config), work / "daemon",
                            {t: int(pin) for t, pin in enumerate(config.hardware.flaps, 1)})
    oracle: dict[tuple[int, int | None], list[dict[str, Any]]] = {}
    result: dict[str, Any] = {"points": 0, "kinds": {}, "lost_points": 0, "failures": [],
                              "played": 0, "play_covered": 0, "play_failures": [],
                              "samples": [], "mounted": 0,
                              "entries": len(log.entries),
                              "flushes": sum(1 for e in log.entries[start:] if e.durable)}
    result["daemon"] = {"booted": 0, "covered": 0, "ready": 0, "resumed": 0, "ready_s": [],
                        "failures": []}
    spent = {"image": 0.0, "mount": 0.0, "check": 0.0, "daemon": 0.0, "play": 0.0, "sample": 0.0}
    progress = open(args.progress, "a") if args.progress else None
    here, same_as = work / "db", -1     # the last image mounted: its log position
    wanted = False
    for i, point in enumerate(points):
        t = time.monotonic()
        events, flaps = shown_marks(replayer.marks_seen(point))
        shown = shown_all[:events]
        # a point with no write since the last one mounted is the same disk: its
        # database files as copied then are checked against what was shown by now
        same = not point.torn and same_as >= 0 and not replayer.writes_between(same_as, point.upto)
        problem = None
        wanted = wanted or i in samples     # a sample on the same disk moves to the next
        if not same:
            replayer.image(point, image)
            if wanted:   # the real daemon gets the disk before any mount touched it
                keep = work / f"sample-{len(result['samples'])}.img"
                shutil.copyfile(image, keep)
            shutil.rmtree(here, ignore_errors=True)
            t1 = time.monotonic()
            problem = mounter.copy_out(here)
            result["mounted"] += 1
            same_as = -1 if point.torn else point.upto
            spent["image"] += t1 - t
            spent["mount"] += time.monotonic() - t1
        t2 = time.monotonic()
        copy = work / "copy"                    # checked, so the original stays as found
        shutil.rmtree(copy, ignore_errors=True)
        if problem is None:
            shutil.copytree(here, copy)
        problems = [problem] if problem else check_db(copy / DB_NAME, shown)
        t3 = time.monotonic()
        spent["check"] += t3 - t2
        if progress is not None:
            progress.write(f"{i + 1}/{len(points)} {point.name} {events} shown "
                           f"{'ok' if not problems else problems[0][:80]} {t3 - t:.2f} s"
                           f"{' (same disk)' if same else ''}\n")
            progress.flush()
        result["points"] += 1
        result["kinds"][point.kind] = result["kinds"].get(point.kind, 0) + 1
        if problems:
            if any(p.startswith("lost") for p in problems):
                result["lost_points"] += 1
            result["failures"].append(f"{point.name} ({events} shown): " + "; ".join(problems[:3]))
            continue
        key = (result["mounted"], flaps)
        if daemon is not None and key not in oracle:
            # a point whose disk is byte for byte the last one booted, with the same
            # flaps, is the same boot: each distinct state is booted once
            t5 = time.monotonic()
            oracle[key] = boot_events(config, here, work / "oracle", tiles(flaps))
            real_daemon_at(daemon, point.name, here, tiles(flaps), shown, oracle[key],
                           result["daemon"])
            spent["daemon"] += time.monotonic() - t5
            if progress is not None:
                d = result["daemon"]
                last = d["failures"][-1] if d["failures"] and d["failures"][-1].startswith(
                    f"{point.name}:") else "ok"
                progress.write(f"  daemon {d['booted']}: READY "
                               f"{d['ready_s'][-1] if d['ready_s'] else '-'} s, {last[:200]}, "
                               f"{time.monotonic() - t5:.2f} s\n")
                progress.flush()
            t3 = time.monotonic()
        if daemon is not None:
            result["daemon"]["covered"] += 1
        if reference is not None and plays_all:
            result["play_covered"] += 1
        if reference is not None and ((plays_all and key not in played_states)
                                      or (every and i % every == 0)):
            played_states.add(key)
            again = work / "again"
            shutil.rmtree(again, ignore_errors=True)
            shutil.copytree(here, again)
            try:
                play_on(config, again / DB_NAME, tiles(flaps), seed)
                if record_of(again / DB_NAME) != reference:
                    result["play_failures"].append(f"{point.name}: another record after playing on")
            except Exception as exc:  # noqa: BLE001 - reported with its point
                result["play_failures"].append(f"{point.name}: {type(exc).__name__}: {exc}"[:200])
            result["played"] += 1
            spent["play"] += time.monotonic() - t3
        if wanted and not same:
            wanted = False
            t4 = time.monotonic()
            result["samples"].append(sample(config, keep, here, work, point, seed, events))
            spent["sample"] += time.monotonic() - t4
        if time.monotonic() - t0 > args.budget:
            result["failures"].append(
                f"stopped after {args.budget} s at point {i + 1} of {len(points)}")
            break
    mounter.close()
    replayer.close()
    if daemon is not None:
        result["daemon"]["repulls"] = daemon.repulls
        daemon.close()
    result["planned"] = len(points)
    result["seconds"] = round(time.monotonic() - t0, 1)
    result["spent"] = {k: round(v, 1) for k, v in spent.items()}
    Path(args.out).write_text(json.dumps(result, indent=1))


def real_daemon_at(daemon: Any, name: str, found: Path, shut: tuple[int, ...],
                   shown: list[dict[str, Any]], want: list[dict[str, Any]],
                   tally: dict[str, Any]) -> None:
    """``shutbox-hw run`` (forked from this process, crash_daemon.py) on the point's
    disk with its flaps: READY, a clean stop, the boot's events equal to the
    simulated box's on the same disk and flaps, and still nothing shown lost."""
    booted = daemon.boot(found, shut)
    tally["booted"] += 1
    why = []
    if booted["ready_s"] is None:
        why.append(f"no READY=1 (exit {booted['rc']})")
    else:
        tally["ready"] += 1
        tally["ready_s"].append(round(booted["ready_s"], 2))
    if booted["rc"] != 0:
        why.append(f"exit {booted['rc']} on SIGTERM")
    if booted["complaints"]:
        why.append(booted["complaints"][-1][:150])
    # the point's copy is in the VM's RAM (/tmp is a tmpfs): the real box rightly says from
    # its first frame that its record would be lost at power-off (store/disk/mounts.py, issue 38);
    # the simulated box is not asked where its record is. That one fault is left out.
    got = [e for e in booted["events"]
           if not (e["event"] == "fault" and e.get("device") == "record"
                   and e.get("detail") == "kept in RAM, lost at power-off")]
    tally["resumed"] += any(e["event"] == "resumed" for e in got)
    if got != want:
        diff = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                    min(len(got), len(want)))
        why.append(f"boot events differ from the simulated box's at {diff}: "
                   f"{got[diff:diff + 1]} != {want[diff:diff + 1]}"[:200])
    after = check_db(booted["db"], shown) if booted["db"].exists() else ["no database after it"]
    if after:
        why.append("after the daemon: " + after[0])
    if why:
        tally["failures"].append(f"{name}: " + "; ".join(why))


def sample(config: Any, image: Path, found: Path, work: Path, point: Point, seed: int,
           events: int) -> dict[str, Any]:
    """A point for the real daemon: its image, and the actions that finish the game
    from it on the simulated box booted with every flap open (gpio-sim's lines read
    open to a daemon that has just asked for its pull-ups)."""
    again = work / f"{image.stem}-db"
    shutil.rmtree(again, ignore_errors=True)
    shutil.copytree(found, again)
    played = Played()
    runner = SimRunner(config, again / DB_NAME, on_event=played.events.append)
    ManualPlayer(runner, seed, played).play()
    runner.daemon.store.close()
    return {"point": point.name, "image": str(image), "shown": events,
            "actions": [[a.kind, list(a.args), a.events] for a in played.actions],
            "events": played.events}


def main() -> int:
    parser = argparse.ArgumentParser(prog="crash_replay")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--config", type=Path, required=True)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--config", type=Path, required=True)
    c.add_argument("--log", required=True)
    c.add_argument("--base", required=True)
    c.add_argument("--game", required=True, help="JSON: seed and the events the real run showed")
    c.add_argument("--final-db", default="", help="the uninterrupted game's database")
    c.add_argument("--work", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--torn", type=float, default=0.5,
                   help="torn subsets per gap between flushes (a fraction: a chance)")
    c.add_argument("--plays", default="0",
                   help="play on to the end at about this many points ('all': every "
                        "distinct disk and flaps)")
    c.add_argument("--samples", type=int, default=0, help="points prepared for the real daemon")
    c.add_argument("--real-daemon", action="store_true",
                   help="boot shutbox-hw run at every point (a fork of this process)")
    c.add_argument("--kinds", default="", help="only these kinds of points (comma-separated)")
    c.add_argument("--rng-seed", type=int, default=22)
    c.add_argument("--budget", type=float, default=600, help="stop after this many seconds")
    c.add_argument("--progress", default="", help="a line per point to this file")
    args = parser.parse_args()
    plan(args) if args.command == "plan" else check(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
