"""``shutbox-hw sim``: the real daemon on a simulated box, scripted or interactive."""

from __future__ import annotations

import argparse
import json
import logging
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from ...base.errors import UserError, shown_path
from ...config.config_file import Config, load_config
from ...rules import parse_set_options
from ..common import add_rules_options

FRAME_GLOB = "frame-*.png"   # what SimulatedBox saves (frame-00001.png ...)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("sim", help="play on a simulated box (interactive, or --script)")
    p.add_argument("--config", metavar="FILE", help="a config file; its [hardware] picks the "
                   "simulated hardware (direct GPIO by default)")
    add_rules_options(p)
    p.add_argument("--db", metavar="PATH", help="database (default: a fresh temporary one, "
                   "removed at the end; the config's [storage] db is the box's, never used "
                   "here)")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="seed for the simulated dice and switch bounce")
    p.add_argument("--script", metavar="FILE", help="run a script on a virtual clock and "
                   "print one JSON object per event")
    p.add_argument("--frames", metavar="DIR", help="also save every frame sent to the "
                   "display as a numbered PNG (DIR empty or new)")
    p.add_argument("--frames-clear", action="store_true", help="with --frames: remove the "
                   "frames an earlier run left in DIR first")
    p.add_argument("--realtime", action="store_true", help="run the script on the real "
                   "clock (a 'wait 5' takes five seconds) instead of a virtual one")
    p.add_argument("--world", metavar="FILE", help="with --script and --db: keep the "
                   "flaps and the script's progress in FILE, so a process killed at any "
                   "moment goes on where it stopped when run again")
    p.add_argument("--publish", action="store_true", help="with [network] mqtt in the "
                   "config: send this simulated box's events to the broker as the box "
                   "named there (off by default: a simulator never speaks for a real box)")
    p.add_argument("--no-rater", action="store_true", help="with --db: leave the move "
                   "rater out (the record's turns stay unrated until a box's rater "
                   "runs on it)")
    p.add_argument("--no-claims", action="store_true", help="with --db: leave the phones' "
                   "claims socket out (no QR code, no seats from a phone)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.realtime and not args.script:
        raise UserError("--realtime runs a --script; the interactive simulator is always "
                        "on the real clock")
    config = load_config(args.config, preset=args.rules,
                         rule_overrides=parse_set_options(args.set))
    if not args.publish:   # the config may be the real box's: its broker is not ours
        config = replace(config, network=replace(config.network, mqtt=None,
                                                 homeassistant=False, credentials_file=None))
    if args.frames_clear and not args.frames:
        raise UserError("--frames-clear goes with --frames DIR")
    if args.world and not args.script:
        raise UserError("--world needs --script")
    if args.world and not args.db:
        raise UserError("--world needs --db: the world and the database go together")
    if not args.script and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UserError("the interactive simulator needs a terminal; use --script FILE")

    def frames() -> Path | None:
        return prepare_frames(Path(args.frames), clear=args.frames_clear) if args.frames \
            else None
    if args.db:
        # one database, one box: refused at once while another process plays on it
        # (before --frames-clear removes anything); imported here, as the store is
        from ...store.disk.lock import DatabaseLock
        with DatabaseLock(Path(args.db)):
            _say_what_the_db_holds(Path(args.db))
            return _run(args, config, Path(args.db), frames(), kept=True)
    # no database named (the config's [storage] db is the real box's, not ours): a
    # fresh one in a temporary folder, removed afterwards with everything in it
    with tempfile.TemporaryDirectory(prefix="shutbox-sim-") as scratch:
        db = Path(scratch) / "sim.db"
        try:
            return _run(args, config, db, frames(), kept=False)
        finally:
            from ...store.read.shown import withdraw
            withdraw(db)   # its record goes, and so does the screen's mirror of it


def _warn(text: str) -> None:
    print(f"shutbox-hw sim: {text}", file=sys.stderr)


def _say_what_the_db_holds(db: Path) -> None:
    """``--db`` names an empty file, or one with a game not finished: said before
    the box takes it (the first becomes a database, the second is resumed)."""
    from ...store.read.readonly import connect_readonly
    try:
        if not db.is_file():
            return
        if db.stat().st_size == 0:
            _warn(f"{shown_path(db)} is an empty file: the box makes its database in it")
            return
        con, _ = connect_readonly(db, 1.0)
        try:
            row = con.execute("SELECT id FROM games WHERE ended_at IS NULL"
                              " ORDER BY id DESC LIMIT 1").fetchone()
        finally:
            con.close()
    except (OSError, sqlite3.Error, UserError):
        return     # the store says what is wrong with it, in its own words
    if row is not None:
        _warn(f"{shown_path(db)} holds game {row[0]}, not finished: the box resumes it "
              "(a new game started on the box stops it, kept as stopped)")


def prepare_frames(frames: Path, *, clear: bool) -> Path:
    """``--frames DIR`` made ready: new or empty, so no old frame mixes with ours.

    ``--frames-clear`` removes the frames (``frame-NNNNN.png``) an earlier run
    left; anything else in DIR is the person's, and DIR is refused.
    """
    try:
        frames.mkdir(parents=True, exist_ok=True)
        if clear:
            for old in frames.glob(FRAME_GLOB):
                old.unlink()
        left = sorted(entry.name for entry in frames.iterdir())
    except OSError as error:
        raise UserError(f"--frames: cannot use {shown_path(frames)}: "
                        f"{error.strerror or error}") from None
    if left:
        ours = all(fnmatch(name, FRAME_GLOB) for name in left)
        raise UserError(f"--frames: {shown_path(frames)} is not empty ({len(left)} files"
                        + (" from an earlier run; --frames-clear removes them)" if ours else
                           ", not all frames: choose an empty or new folder)"))
    return frames


def _run(args: argparse.Namespace, config: Config, db: Path, frames: Path | None,
         *, kept: bool) -> int:
    from ...network.hookup import publishing

    # [network] mqtt: at the end up to 10 s to send what is still queued (none when
    # the broker cannot be reached: the events wait in the database's outbox)
    if args.script:
        with publishing(config, db, _warn, drain_s=10.0) as outbox:
            return _play(args, config, db, frames, outbox, kept=kept)
    from ...sim.terminal import warnings_in_the_pane
    with warnings_in_the_pane() as pane, publishing(config, db, _warn, drain_s=10.0) as outbox:
        return _play(args, config, db, frames, outbox, kept=kept, pane=pane)


def _parts(args: argparse.Namespace, config: Config, db: Path, *, kept: bool,
           threaded: bool) -> tuple[Any, str | None]:
    """The parts the daemon on a Pi has beside the box (commands/box/run.py), for a kept
    record (``--db``) unless left out: the move rater (on the step that woke it when
    ``threaded`` is false, so a script's record is rated when it ends; else the box's
    own thread) and where the phones' claims socket goes (claims/place.py)."""
    if not kept:
        return None, None
    rater: Any = None
    if not args.no_rater:
        from ...skill.rater import InlineRater, RatingWorker
        # the thread is started by the terminal once the box has made the record
        rater = RatingWorker(db) if threaded else InlineRater(db)
    claims = None
    if not args.no_claims:
        from ...claims.place import for_simulator
        from ...claims.server import ClaimsUnavailable
        try:
            claims = for_simulator(config.network, db)
        except ClaimsUnavailable as error:   # said, and the box plays on without it
            say = logging.getLogger("shutbox_hw").warning if threaded else _warn
            say(f"seats from a phone are off: {error}")   # the terminal: in its pane
    return rater, claims


def _play(args: argparse.Namespace, config: Config, db: Path, frames: Path | None,
          outbox: Callable[[], None] | None, *, kept: bool, pane: Any = None) -> int:
    from ...store.read.shown import use_folder
    use_folder(config.runtime)   # the screen's mirror for the TV ([storage] runtime)
    rater, claims = _parts(args, config, db, kept=kept, threaded=not args.script)
    try:
        return _play_with(args, config, db, frames, outbox, kept=kept, pane=pane,
                          rater=rater, claims=claims)
    finally:
        if rater is not None:
            rater.stop()


def _play_with(args: argparse.Namespace, config: Config, db: Path, frames: Path | None,
               outbox: Callable[[], None] | None, *, kept: bool, pane: Any,
               rater: Any, claims: str | None) -> int:
    seed = args.seed if args.seed is not None else 0
    if args.script:
        from ...sim.runner import SimRunner, check_steps
        from ...sim.script import load_script
        steps = load_script(args.script, config.rules.tiles)
        check_steps(steps, config, shown_path(args.script))

        def emit(event: dict[str, Any]) -> None:
            print(json.dumps(event), flush=args.realtime or world is not None)

        world = Path(args.world) if args.world else None
        if world is not None:
            from ...sim.world_file import run_with_world
            made: list[SimRunner] = []

            def make(shut: list[int]) -> SimRunner:
                made.append(SimRunner(config, db, seed=seed, on_event=emit, frames_dir=frames,
                                      realtime=args.realtime, shut=shut, outbox=outbox,
                                      rater=rater, claims_path=claims))
                _say_claims(made[-1])
                return made[-1]
            try:
                runner = run_with_world(make, steps, world)
            except BaseException:
                for each in made:   # its socket's file goes with it
                    each.close()
                raise
        else:
            runner = SimRunner(config, db, seed=seed, on_event=emit, frames_dir=frames,
                               realtime=args.realtime, outbox=outbox, rater=rater,
                               claims_path=claims)
            _say_claims(runner)
            try:
                for step in steps:
                    runner.run(step)
            except KeyboardInterrupt:
                runner.close()
                runner.daemon.store.close()
                sys.stdout.flush()
                _warn("stopped (Ctrl-C) before the script's end: " + (
                    f"the game so far is kept in {shown_path(db)}; a run on it resumes it"
                    if kept else "the temporary database goes with it"))
                return 130
            except BaseException:
                runner.close()      # its socket's file goes with it
                raise
        try:
            unsaved = runner.finish()
        finally:
            runner.close()
        sys.stdout.flush()
        if unsaved:
            print(f"shutbox-hw sim: {unsaved} event(s) not saved at the script's end: "
                  f"{runner.daemon.storage_problem()}", file=sys.stderr)
        runner.daemon.store.close()   # after its last word, before the lock goes
        return 0
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UserError("the interactive simulator needs a terminal; use --script FILE")
    from ...sim.terminal import run_terminal
    return run_terminal(config, db, seed=args.seed, frames_dir=frames, kept=kept,
                        outbox=outbox, pane=pane, rater=rater, claims_path=claims)


def _say_claims(runner: Any) -> None:
    if runner.claims_problem is not None:
        _warn(f"seats from a phone are off: {runner.claims_problem}")
