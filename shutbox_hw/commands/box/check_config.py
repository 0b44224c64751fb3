"""``shutbox-hw check-config FILE``: every problem in a config file, before the box runs it.

A builder edits the file on a laptop or over ssh; finding all mistakes in
one go (not one per restart of the daemon) is the point, so every table is
checked and every problem printed, one line each.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ...base.errors import UserError, one_line, shown_path
from ...config.config_file import check_config, default_db_path, load_config
from ...config.settings import effective, read_settings, setting_lines
from .boot_option import add_boot_config_option, boot_config


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("check-config", help="validate a config file (every table)")
    p.add_argument("file", metavar="FILE", help="the TOML config file")
    p.add_argument("--db", metavar="PATH",
                   help="the database with the box's adjustments (default: [storage] db)")
    add_boot_config_option(p)
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
    from ...config.boot_config import kernel_pin_problems
    kernel = kernel_pin_problems(config.hardware, boot_config(args))
    if kernel:
        for line in kernel:
            print(one_line(f"{shown_path(path)}: {line}"), file=sys.stderr)
        return 2
    from ...config.network import network_file_problems, web_file_problems
    # readable by others, or a token too short: refused
    secrets = network_file_problems(config.network) + web_file_problems(config.web)
    if secrets:
        for line in secrets:
            print(one_line(f"{shown_path(path)}: {line}"), file=sys.stderr)
        return 2
    db = Path(args.db) if args.db else (config.db or default_db_path())
    if db.exists():
        # what the box's database holds must be readable by this version (an upgrade
        # checks it before switching: a newer schema or a foreign file is refused)
        from ..record.history import open_read_only
        try:
            open_read_only(db)[0].close()
        except UserError as error:
            print(one_line(f"{shown_path(path)}: [storage] db: {error}"), file=sys.stderr)
            return 2
    config, sources = effective(config, read_settings(db))
    print(f"{path}: ok")
    from ...store.disk.mounts import WAY_OUT, forgets
    forgetful = forgets(db)   # not the file's mistake, but every game would be lost
    if forgetful is not None:
        print(one_line(f"{shown_path(path)}: warning: [storage] db: the record "
                       f"{shown_path(db)} would be lost at every power-off: {forgetful}"),
              f"  the way out: {WAY_OUT}", sep="\n", file=sys.stderr)
    dice = config.game.dice
    print(f"rules {config.rules.preset} ({config.rules.summary()}); "
          f"{config.hardware.summary()}; dice {dice}")
    print("\n".join(setting_lines(config, sources)))
    return 0
