"""Burn-in care for the OLED: the picture moves by a pixel in a 2x2 orbit.

OLEDs age pixel by pixel, so a fixed layout lit for hours burns in.
:class:`~.oled_display.OledDisplay` moves the frame every ``shift_every_ms``
to the next position of :data:`ORBIT`, but only into blank rows and
columns, so nothing lit is ever cut.
"""

from __future__ import annotations

from PIL import Image

# The burn-in orbit: where the picture sits in each period, as far as blank space allows.
ORBIT = ((0, 0), (1, 0), (1, 1), (0, 1))


def _axis_shift(want: int, low: int, high: int, size: int) -> int:
    """+1 or -1 into a blank edge (``low``..``high`` is the lit span), 0 if neither is."""
    if not want:
        return 0
    if high < size:
        return 1
    if low > 0:
        return -1
    return 0


def shift_within_blank(image: Image.Image, want: tuple[int, int]
                       ) -> tuple[Image.Image, tuple[int, int]]:
    """``image`` moved by one pixel on each axis ``want`` asks for, only where the
    edge it moves into is blank: a screen that fills all 128 columns moves only
    up or down, one that fills the whole panel stays put. Nothing lit is cut."""
    box = image.getbbox()
    if box is None:
        return image, (0, 0)
    dx = _axis_shift(want[0], box[0], box[2], image.width)
    dy = _axis_shift(want[1], box[1], box[3], image.height)
    if (dx, dy) == (0, 0):
        return image, (0, 0)
    out = Image.new(image.mode, image.size)
    out.paste(image, (dx, dy))
    return out, (dx, dy)
