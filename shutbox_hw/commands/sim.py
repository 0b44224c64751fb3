"""``shutbox-hw sim``: the real daemon on a simulated box, scripted or interactive."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..config import Config, load_config
from ..errors import UserError, shown_path
from ..rules import parse_set_options
from .common import add_rules_options


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sim", help="play on a simulated box (interactive, or --script)")
    p.add_argument("--config", metavar="FILE", help="a config file; its [hardware] picks the "
                   "simulated hardware (direct GPIO by default)")
    add_rules_options(p)
    p.add_argument("--db", metavar="PATH", help="database (default: a fresh temporary one)")
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="seed for the simulated dice and switch bounce")
    p.add_argument("--script", metavar="FILE", help="run a script on a virtual clock and "
                   "print one JSON object per event")
    p.add_argument("--frames", metavar="DIR", help="also save every frame sent to the "
                   "display as a numbered PNG")
    p.add_argument("--realtime", action="store_true", help="run the script on the real "
                   "clock (a 'wait 5' takes five seconds) instead of a virtual one")
    p.add_argument("--world", metavar="FILE", help="with --script and --db: keep the "
                   "flaps and the script's progress in FILE, so a process killed at any "
                   "moment goes on where it stopped when run again")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.realtime and not args.script:
        raise UserError("--realtime runs a --script; the interactive simulator is always "
                        "on the real clock")
    config = load_config(args.config, preset=args.rules,
                         rule_overrides=parse_set_options(args.set))
    if args.db:
        return _run(args, config, Path(args.db))
    if config.db is not None:
        return _run(args, config, config.db)  # the config's [storage] db, as `history` reads
    # no database named: a fresh one, removed afterwards (nothing left in the temp folder)
    with tempfile.TemporaryDirectory(prefix="shutbox-sim-") as scratch:
        return _run(args, config, Path(scratch) / "sim.db")


def _run(args: argparse.Namespace, config: Config, db: Path) -> int:
    from ..network.hookup import publishing

    def warn(text: str) -> None:
        print(f"shutbox-hw sim: {text}", file=sys.stderr)

    # [network] mqtt: at the end up to 10 s to send what is still queued
    with publishing(config, db, warn, drain_s=10.0) as outbox:
        return _play(args, config, db, outbox)


def _play(args: argparse.Namespace, config: Config, db: Path,
          outbox: Callable[[], None] | None) -> int:
    frames = Path(args.frames) if args.frames else None
    if frames is not None:
        try:
            frames.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"--frames: cannot use {frames}: {error}") from None
    seed = args.seed if args.seed is not None else 0
    if args.script:
        from ..sim.runner import SimRunner, check_steps
        from ..sim.script import load_script
        steps = load_script(args.script, config.rules.tiles)
        check_steps(steps, config, shown_path(args.script))

        def emit(event: dict) -> None:
            print(json.dumps(event), flush=args.realtime or world is not None)

        world = Path(args.world) if args.world else None
        if world is not None:
            if not args.db and config.db is None:
                raise UserError("--world needs --db: the world and the database go together")
            from ..sim.world_file import run_with_world
            runner = run_with_world(lambda shut: SimRunner(config, db, seed=seed, on_event=emit,
                                                           frames_dir=frames,
                                                           realtime=args.realtime, shut=shut,
                                                           outbox=outbox),
                                    steps, world)
        else:
            runner = SimRunner(config, db, seed=seed, on_event=emit, frames_dir=frames,
                               realtime=args.realtime, outbox=outbox)
            for step in steps:
                runner.run(step)
        unsaved = runner.finish()
        sys.stdout.flush()
        if unsaved:
            print(f"shutbox-hw sim: {unsaved} event(s) not saved at the script's end: "
                  f"{runner.daemon.storage_problem()}", file=sys.stderr)
        return 0
    if args.world:
        raise UserError("--world needs --script")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UserError("the interactive simulator needs a terminal; use --script FILE")
    from ..sim.terminal import run_terminal
    return run_terminal(config, db, seed=args.seed, frames_dir=frames, outbox=outbox)
