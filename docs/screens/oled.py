"""The README's picture of the OLED, from four of the golden frames in tests/golden:

    .venv/bin/python docs/screens/oled.py

Each 128x64 frame drawn four times its size, pixel for pixel, on one sheet.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image

HERE = Path(__file__).parent
GOLDEN = HERE.parent.parent / "tests" / "golden"
FRAMES = ("attract", "play_one_die", "turn_end_open", "scoreboard_4_doubled")
SCALE, GAP = 4, 16


def main() -> None:
    w, h = 128 * SCALE, 64 * SCALE
    sheet = Image.new("L", (2 * w + GAP, 2 * h + GAP), 60)
    for k, name in enumerate(FRAMES):
        frame = Image.open(GOLDEN / f"{name}.png").convert("L")
        sheet.paste(frame.resize((w, h), Image.Resampling.NEAREST),
                    ((k % 2) * (w + GAP), (k // 2) * (h + GAP)))
    sheet.save(HERE / "oled.png", optimize=True)


if __name__ == "__main__":
    main()
