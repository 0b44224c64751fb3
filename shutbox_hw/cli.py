"""The ``shutbox-hw`` command: sub-commands live in :mod:`shutbox_hw.commands`."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from .commands import check_config, history, moves, rules, run, selftest, sim, solve
from .errors import UserError
from .rules import RulesError

COMMANDS = [moves, rules, solve, check_config, selftest, sim, run, history]


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser() -> Parser:
    parser = Parser(prog="shutbox-hw", description=__doc__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except (UserError, RulesError) as error:
        print(f"shutbox-hw {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
