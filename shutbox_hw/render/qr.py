"""The join page's QR code: one encoding (segno), drawn for the OLED and the TV.

The address is encoded in QR's alphanumeric mode where that is safe (the
scheme, the host and ``/JOIN/<code>`` are case-blind: the web serves both
spellings), which halves it: ``HTTP://192.168.178.123:8080/JOIN/K7M2QD`` is a
version 2 code, 25 modules, at error level L (raised where the same size
allows). On the OLED (:func:`draw`) each module is 2x2 pixels, dark on a lit
quiet zone (a phone reads the usual polarity best) of up to 4 modules, at least
1; a code that would need more than the screen's 62 rows at that size is not
drawn (a ``[network] web_url`` past about 75 characters). The TV's
(:func:`svg`) is the same matrix, scaled by the browser.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

import segno
from PIL import ImageDraw

MODULE_PX = 2        # the OLED's pixels a module: read from a metre away
MAX_QUIET = 4        # the standard's quiet zone, in modules
Matrix = tuple[tuple[bool, ...], ...]


def qr_text(url: str) -> str:
    """What the code holds: ``url`` in capitals when nothing in it minds the case
    (its path is ``/join/<code>`` alone), else ``url`` as it is."""
    parts = urlsplit(url)
    path = parts.path.rsplit("/join/", 1)
    case_blind = len(path) == 2 and path[0] == "" and not parts.query and not parts.fragment
    return url.upper() if case_blind else url


@lru_cache(maxsize=8)
def matrix(url: str) -> Matrix:
    """The code's modules, True dark, without a quiet zone."""
    code = segno.make_qr(qr_text(url), error="l", boost_error=True)
    return tuple(tuple(bool(m) for m in row) for row in code.matrix)


def size_px(url: str, height: int) -> int:
    """The drawn square's edge within ``height`` rows, quiet zone included (0: none)."""
    n = len(matrix(url))
    quiet = min(MAX_QUIET, (height // MODULE_PX - n) // 2)
    return (n + 2 * quiet) * MODULE_PX if quiet >= 1 else 0


def draw(canvas: ImageDraw.ImageDraw, x: int, y: int, url: str, height: int) -> int:
    """The code at (x, y), as large a quiet zone as ``height`` allows; returns the
    width drawn (0: the address is too long for the screen)."""
    edge = size_px(url, height)
    if not edge:
        return 0
    modules = matrix(url)
    offset = (edge - len(modules) * MODULE_PX) // 2
    canvas.rectangle((x, y, x + edge - 1, y + edge - 1), fill=1)
    for r, row in enumerate(modules):
        for c, dark in enumerate(row):
            if dark:
                px, py = x + offset + c * MODULE_PX, y + offset + r * MODULE_PX
                canvas.rectangle((px, py, px + MODULE_PX - 1, py + MODULE_PX - 1), fill=0)
    return edge


def svg(url: str) -> str:
    """The code as an SVG image (a quiet zone of 4 modules; one path of dark squares)."""
    modules = matrix(url)
    n = len(modules) + 2 * MAX_QUIET
    dark = "".join(f"M{c + MAX_QUIET} {r + MAX_QUIET}h1v1h-1z"
                   for r, row in enumerate(modules) for c, on in enumerate(row) if on)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {n} {n}" '
            f'shape-rendering="crispEdges"><rect width="{n}" height="{n}" fill="#fff"/>'
            f'<path d="{dark}" fill="#000"/></svg>')
