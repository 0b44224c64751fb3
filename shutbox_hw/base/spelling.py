"""Letters spelled out where a font or a comparison has no room for them.

The letters that are not a base letter plus a mark (ß æ ø ł ...) and a few
signs, each as the plain letters that stand in for it: the OLED's fonts draw
what they cannot draw this way (:mod:`shutbox_hw.render.latin`), and the roster
compares names through it (:func:`shutbox_hw.players.names.name_key`: "Ødegård"
is "odegard").
"""

from __future__ import annotations

SPELLED: dict[str, str] = {
    "ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ł": "l", "Ł": "L",
    "ħ": "h", "Ħ": "H", "ŧ": "t", "Ŧ": "T", "ı": "i", "ĸ": "k", "ŉ": "'n", "ŋ": "n",
    "Ŋ": "N", "ſ": "s", "€": "EUR", "£": "GBP", "°": "o", "«": '"', "»": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": ",", "\u201c": '"', "\u201d": '"',
    "\u201e": '"', "\u2013": "-", "\u2014": "-", "\u2026": "...", "\u00a0": " ",
    "×": "x", "·": ".",
}
