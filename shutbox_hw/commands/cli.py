"""The ``shutbox-hw`` command: sub-commands live in :mod:`shutbox_hw.commands`.

Only the module of the command being run is imported (``shutbox-hw rules``
must not pay for gpiozero, Pillow or luma); ``--help`` without a command
lists them all and so imports them all.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from ..base.errors import EXIT_REFUSED, EXIT_RETRY, TransientError, UserError, one_line
from ..rules import RulesError

DESCRIPTION = "The software of a pub's Shut the Box: play, check and look after the box."

# command name -> module under shutbox_hw.commands, in the order --help lists them
COMMANDS = {
    "moves": "play.moves", "rules": "play.rules", "solve": "play.solve",
    "check-config": "box.check_config", "selftest": "box.selftest", "sim": "play.sim",
    "run": "box.run", "history": "record.history", "audit": "record.audit",
    "players": "record.players", "web": "serve.web", "restore": "box.restore",
    "league": "serve.league",
}


class Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, one_line(f"{self.prog}: {message}") + "\n")


def build_parser(only: str | None = None) -> Parser:
    """The parser with every command, or with just ``only`` (a command name)."""
    parser = Parser(prog="shutbox-hw", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, module in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(f"shutbox_hw.commands.{module}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_usage(sys.stderr)  # a command is required: a usage mistake
        print("shutbox-hw: a COMMAND is required (shutbox-hw -h lists them)", file=sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except (UserError, RulesError) as error:
        # every line of a multi-line error (a config's problems) says where it comes from
        for line in str(error).splitlines() or [""]:
            print(one_line(f"shutbox-hw {args.command}: {line}"), file=sys.stderr)
        return EXIT_RETRY if isinstance(error, TransientError) else EXIT_REFUSED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`shutbox-hw history --json | head`): nothing more to say;
        # stdout is pointed at /dev/null so the interpreter's final flush cannot fail again
        import os
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0


if __name__ == "__main__":
    sys.exit(main())
