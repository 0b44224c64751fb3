"""Charts drawn on the server as SVG text: no script, no library, no CDN.

A chart is a line through a series of values (oldest left), with its axis
from the lowest to the highest value shown and a tooltip (``<title>``) on each
point; every label is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ..content.numbers import decimal

WIDTH, HEIGHT = 640, 200
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 28     # the margins around the plot


def line_chart(points: Sequence[tuple[str, float]], label: str, *, low: float | None = None,
               high: float | None = None, unit: str = "") -> str:
    """``points`` as ``(tooltip, value)``, oldest first; ``low``/``high`` fix the
    axis (the values' own range otherwise)."""
    if not points:
        return ""
    values = [v for _, v in points]
    bottom = min(values) if low is None else low
    top = max(values) if high is None else high
    top = top if top > bottom else bottom + 1
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    step = inner_w / max(len(points) - 1, 1)

    def xy(i: int, v: float) -> tuple[float, float]:
        return LEFT + i * step, TOP + inner_h * (1 - (v - bottom) / (top - bottom))
    coords = [xy(i, v) for i, v in enumerate(values)]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
    dots = "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3"><title>{escape(tip)}</title>'
                   "</circle>" for (x, y), (tip, _) in zip(coords, points, strict=True))
    axis = "".join(
        f'<text x="{LEFT - 6}" y="{y + 5:.1f}" text-anchor="end">'
        f'{decimal(value)}{escape(unit)}</text>'
        f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
        for value, y in ((top, TOP), (bottom, TOP + inner_h)))
    return (f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
            f' aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
            f"<title>{escape(label)}</title>{axis}"
            f'<polyline points="{line}" fill="none"/>{dots}'
            f'<text x="{LEFT}" y="{HEIGHT - 6}">{escape(points[0][0])}</text>'
            f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 6}" text-anchor="end">'
            f"{escape(points[-1][0])}</text></svg>")

