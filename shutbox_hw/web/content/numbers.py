"""Numbers as the page's language writes them: "19.8" in English, "19,8" in German
and Italian (Babel's CLDR data, the ``web`` extra), never a grouping separator (a
game's id, a year). Without Babel (an install without the extra), Python's own."""

from __future__ import annotations

from ...base.i18n import language


def decimal(value: float | int) -> str:
    """``value`` with at most two decimals, none when whole (as ``{:g}`` writes it)."""
    try:
        from babel.numbers import format_decimal
    except ImportError:          # pragma: no cover - the web extra brings Babel
        return f"{value:g}"
    return str(format_decimal(value, format="0.##", locale=language()))
