"""The references that cannot drift: pages of ``docs/`` generated from the code.

``docs/operate/config-reference.md`` from the config tables' specs
(:mod:`.config_page`), ``docs/operate/commands.md`` from the command line's
parser (:mod:`.commands_page`). ``tests/test_docs_reference.py`` fails when a
page differs from what the code makes; one command writes them again::

    .venv/bin/python -m shutbox_hw.reference --write
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .commands_page import commands_page
from .config_page import config_page
from .regenerate import REGENERATE

__all__ = ["PAGES", "REGENERATE", "stale_pages"]

# page (relative to the checkout) -> the function that makes its text
PAGES: dict[str, Callable[[], str]] = {
    "docs/operate/config-reference.md": config_page,
    "docs/operate/commands.md": commands_page,
}


def stale_pages(checkout: Path) -> list[str]:
    """The pages whose text in ``checkout`` is not what the code makes now."""
    stale = []
    for page, make in PAGES.items():
        path = checkout / page
        if not path.is_file() or path.read_text(encoding="utf-8") != make():
            stale.append(page)
    return stale
