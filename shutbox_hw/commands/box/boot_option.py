"""``--boot-config FILE``: the Pi's config.txt, for ``check-config`` and ``run``.

Kept apart from both commands so that ``run`` does not import ``check-config``'s
module (and what it pulls in) just for one option.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ...base.errors import UserError, shown_path


def add_boot_config_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--boot-config", metavar="FILE",
                   help="the Pi's config.txt, for the pins its overlays give the kernel "
                        "(default: /boot/firmware/config.txt, else /boot/config.txt)")


def boot_config(args: argparse.Namespace) -> Path | None:
    """The boot config to read: ``--boot-config``, else the Pi's own (None off a Pi)."""
    from ...config.boot_config import find_boot_config
    if args.boot_config is None:
        return find_boot_config()
    path = Path(args.boot_config)
    if not path.is_file():
        raise UserError(f"--boot-config: no file {shown_path(path)}")
    return path
