"""The screenshots in docs/screens from those ``tests/test_web_browser.py`` keeps:

    SHUTBOX_SCREENSHOTS=/tmp/shots .venv/bin/python -m pytest -n 0 tests/test_web_browser.py
    SHUTBOX_SCREENSHOTS=/tmp/shots .venv/bin/python -m pytest -n 0 tests/test_tv_record_pages.py
    SHUTBOX_SCREENSHOTS=/tmp/shots .venv/bin/python -m pytest -n 0 tests/test_tv_fit.py
    .venv/bin/python docs/screens/sheet.py /tmp/shots

The TV page at both sizes as it is, every other page (the players' and the
high-score pages from ``tests/test_tv_record_pages.py`` among them) on one sheet
per size (each a third of its size), in 64 colours to keep the files small; and
from the screenshots ``tests/test_tv_fit.py`` keeps, every state of a night the
TV was fitted to, on one sheet per language and size
(``tv-states-LANG-WIDTHxHEIGHT.png``, each a quarter of its size).
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

PAGES = ("tonight", "history", "game-1", "game-2", "players", "player", "highscores",
         "audits", "faults", "export", "backup", "game-99")
HERE = Path(__file__).parent


def small(image: Image.Image) -> Image.Image:
    return image.convert("RGB").quantize(64, method=Image.Quantize.MEDIANCUT)


def main(shots: Path) -> None:
    for width, height in ((1920, 1080), (1280, 720)):
        size = f"{width}x{height}"
        small(Image.open(shots / f"live-{size}.png")).save(HERE / f"live-{size}.png",
                                                           optimize=True)
        cell = (width // 3, height // 3)
        rows = (len(PAGES) + 2) // 3
        sheet = Image.new("RGB", (cell[0] * 3 + 8, cell[1] * rows + 4 * (rows - 1)), "#333")
        for i, page in enumerate(PAGES):
            image = Image.open(shots / f"{page}-{size}.png").convert("RGB")
            image.thumbnail(cell, Image.Resampling.LANCZOS)
            sheet.paste(image, ((i % 3) * (cell[0] + 4), (i // 3) * (cell[1] + 4)))
        small(sheet).save(HERE / f"pages-{size}.png", optimize=True)
        for code in ("en", "de", "it"):
            states = sorted(shots.glob(f"tv-{code}-{size}-*.png"))
            if states:
                tv_sheet(states).save(HERE / f"tv-states-{code}-{size}.png", optimize=True)


def tv_sheet(states: list[Path]) -> Image.Image:
    """The TV's states, four a row, each a quarter of its size."""
    first = Image.open(states[0])
    cell = (first.width // 4, first.height // 4)
    rows = (len(states) + 3) // 4
    sheet = Image.new("RGB", (cell[0] * 4 + 12, cell[1] * rows + 4 * (rows - 1)), "#333")
    for i, path in enumerate(states):
        image = Image.open(path).convert("RGB")
        image.thumbnail(cell, Image.Resampling.LANCZOS)
        sheet.paste(image, ((i % 4) * (cell[0] + 4), (i // 4) * (cell[1] + 4)))
    return small(sheet)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
