"""``shutbox-hw check-config FILE``: every problem in a config file, before the box runs it.

A builder edits the file on a laptop or over ssh; finding all mistakes in
one go (not one per restart of the daemon) is the point, so every table is
checked and every problem printed, one line each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import check_config, default_db_path, load_config
from ..errors import one_line, shown_path
from ..settings import effective, read_settings, setting_lines


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check-config", help="validate a config file (every table)")
    p.add_argument("file", metavar="FILE", help="the TOML config file")
    p.add_argument("--db", metavar="PATH",
                   help="the database with the box's adjustments (default: [storage] db)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.file)
    problems = check_config(path)
    if problems:
        name = shown_path(path)  # a path too long to open is too long to print whole
        for line in problems:
            line = line if line.startswith(f"{name}:") else f"{name}: {line}"
            print(one_line(line), file=sys.stderr)
        return 2
    config = load_config(path)
    db = Path(args.db) if args.db else (config.db or default_db_path())
    config, sources = effective(config, read_settings(db))
    print(f"{path}: ok")
    dice = config.game.dice
    print(f"rules {config.rules.preset} ({config.rules.summary()}); "
          f"{config.hardware.summary()}; dice {dice}")
    print("\n".join(setting_lines(config, sources)))
    return 0
