"""Numbers as the page's language writes them: the one way every surface does
(:func:`shutbox_hw.words.numbers.decimal`: "19,8" in German and Italian)."""

from __future__ import annotations

from ...words.numbers import decimal

__all__ = ["decimal"]
