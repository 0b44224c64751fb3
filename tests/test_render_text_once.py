"""A text drawn in one call (render/text.py's ``_text_image``) puts the same pixels where
drawing it glyph by glyph did, and ends at the same x."""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

from shutbox_hw.render import text
from shutbox_hw.render.fonts import LARGE, NARROW, SMALL


def _glyph_by_glyph(canvas, x, y, s, font, scale=1, fill=1, spacing=None):
    """The drawing as it was: each glyph's mask at its own x (the independent way)."""
    s = font.normalise(s)
    gap = scale if spacing is None else spacing
    for ch in s:
        canvas.bitmap((x, y), text._glyph_image(font, ch, scale), fill=fill)
        x += font.glyph_width(ch) * scale + gap
    return x - gap if s else x


def test_a_text_in_one_mask_draws_what_its_glyphs_drew_one_by_one():
    rng = random.Random(37)
    letters = "".join(sorted(set(LARGE.glyphs) | set(SMALL.glyphs) | set("ßøŦǅéñ€ 09")))
    for _ in range(1500):
        font = rng.choice((SMALL, LARGE, NARROW))
        scale = rng.choice((1, 1, 2, 3))
        spacing = rng.choice((None, None, 0, 1, 3, -1))
        s = "".join(rng.choice(letters) for _ in range(rng.randint(0, 14)))
        x, y, fill = rng.randint(-30, 120), rng.randint(-15, 60), rng.choice((0, 1))
        before = Image.new("1", (128, 64), rng.choice((0, 1)))
        after = before.copy()
        ends = (_glyph_by_glyph(ImageDraw.Draw(before), x, y, s, font, scale, fill, spacing),
                text.draw(ImageDraw.Draw(after), x, y, s, font, scale, fill, spacing))
        assert ends[0] == ends[1], (s, font.name, scale, spacing)
        assert before.tobytes() == after.tobytes(), (s, font.name, scale, spacing, x, y)
