"""Numbers as the language in force writes them, on every surface (the OLED, the
pages): "19.8" in English, "19,8" in German and Italian, never a grouping
separator (a game's id, a year). With Babel (the ``web`` extra) from its CLDR
data; on a box without it the decimal sign of each of the box's languages."""

from __future__ import annotations

from ..base.i18n import language

# the decimal sign where Babel is not installed (the daemon needs no web extra)
DECIMAL_SIGN = {"en": ".", "de": ",", "it": ","}


def decimal(value: float | int) -> str:
    """``value`` with at most two decimals, none when whole (as ``{:g}`` writes it)."""
    try:
        from babel.numbers import format_decimal
    except ImportError:          # the box without the web extra: its own table
        return plain_decimal(value)
    return str(format_decimal(value, format="0.##", locale=language()))


def plain_decimal(value: float | int) -> str:
    """:func:`decimal` without Babel."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text.replace(".", DECIMAL_SIGN.get(language(), "."))


def figure_in_language(figure: str) -> str:
    """A figure already written as the record's English lines write it ("6.5", "0.1 MB",
    "12") with the language's decimal sign ("6,5", "0,1 MB"); anything else as it is."""
    whole, dot, rest = figure.partition(".")
    if not (dot and whole.lstrip("-").isdigit() and rest[:1].isdigit()):
        return figure
    return whole + DECIMAL_SIGN.get(language(), ".") + rest
