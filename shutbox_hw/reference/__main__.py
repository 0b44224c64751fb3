"""``python -m shutbox_hw.reference [--write]``: check, or write, the generated pages."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import PAGES, REGENERATE, stale_pages

CHECKOUT = Path(__file__).resolve().parent.parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m shutbox_hw.reference",
        description="The docs pages generated from the code: say which are stale, or write them.")
    parser.add_argument("--write", action="store_true", help="write every page")
    parser.add_argument("--checkout", type=Path, default=CHECKOUT, metavar="DIR",
                        help="the checkout whose docs/ to check or write (default: this one)")
    args = parser.parse_args(argv)
    if args.write:
        for page, make in PAGES.items():
            path = args.checkout / page
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(make(), encoding="utf-8")
            print(f"wrote {page}")
        return 0
    stale = stale_pages(args.checkout)
    for page in stale:
        print(f"{page} differs from the code; run: {REGENERATE}", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
