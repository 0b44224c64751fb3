"""Measuring, drawing, shortening and wrapping text in the bitmap fonts.

Everything here works in whole pixels so layouts can check, before
drawing, that a line fits; nothing is ever clipped by the screen edge.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from .fonts import Font

ELLIPSIS = ".."


@lru_cache(maxsize=2048)
def _glyph_image(font: Font, ch: str, scale: int) -> Image.Image:
    """The glyph's ink as a mode "1" mask, scaled by whole pixels."""
    rows = font.glyphs[ch]
    x0 = font.glyph_offset(ch)
    w = font.glyph_width(ch)
    img = Image.new("1", (w, font.height), 0)
    img.putdata([1 if x0 + x < len(row) and row[x0 + x] == "#" else 0
                 for row in rows for x in range(w)])
    if scale != 1:
        img = img.resize((w * scale, font.height * scale), Image.Resampling.NEAREST)
    return img


@lru_cache(maxsize=4096)
def width(text: str, font: Font, scale: int = 1, spacing: int | None = None) -> int:
    """Pixel width of ``text``; ``spacing`` defaults to one font pixel. (Kept per
    text, font, scale and spacing: a layout measures the same words again and again,
    and a font's glyphs never change.)"""
    text = font.normalise(text)
    if not text:
        return 0
    gap = scale if spacing is None else spacing
    return sum(font.glyph_width(c) * scale for c in text) + gap * (len(text) - 1)


def draw(canvas: ImageDraw.ImageDraw, x: int, y: int, text: str, font: Font,
         scale: int = 1, fill: int = 1, spacing: int | None = None) -> int:
    """Draw ``text`` with its top-left corner at (x, y); returns the x after it."""
    text = font.normalise(text)
    gap = scale if spacing is None else spacing
    if text and gap >= 0:     # the glyphs side by side: one mask for the whole text
        image = _text_image(text, font, scale, gap)
        canvas.bitmap((x, y), image, fill=fill)
        return x + image.width
    for ch in text:
        canvas.bitmap((x, y), _glyph_image(font, ch, scale), fill=fill)
        x += font.glyph_width(ch) * scale + gap
    return x - gap if text else x


@lru_cache(maxsize=1024)
def _text_image(text: str, font: Font, scale: int, gap: int) -> Image.Image:
    """``text`` (normalised, not empty) as one mode "1" mask: each glyph's ink where
    :func:`draw` would put it glyph by glyph (``gap`` >= 0: side by side, none over
    another), so that a screen draws a text in one call and the same text is not
    put together again at every frame."""
    size = (sum(font.glyph_width(c) * scale for c in text) + gap * (len(text) - 1),
            font.height * scale)
    image = Image.new("1", size, 0)
    x = 0
    for ch in text:
        image.paste(1, (x, 0), _glyph_image(font, ch, scale))
        x += font.glyph_width(ch) * scale + gap
    return image


def shorten(text: str, font: Font, max_width: int, scale: int = 1,
            spacing: int | None = None) -> str:
    """``text`` cut to fit ``max_width`` with a trailing "..", if it must be."""
    if width(text, font, scale, spacing) <= max_width:
        return text
    for n in range(len(text) - 1, 0, -1):
        cut = text[:n].rstrip() + ELLIPSIS
        if width(cut, font, scale, spacing) <= max_width:
            return cut
    return ""


def wrap(text: str, font: Font, max_width: int, max_lines: int, scale: int = 1) -> list[str]:
    """Word-wrap into at most ``max_lines`` lines that each fit; a word too
    long for a line is split, and text beyond the last line is shortened."""
    words = text.split()
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if width(candidate, font, scale) <= max_width:
            current = candidate
            continue
        if current:
            lines.append(current)
        while width(word, font, scale) > max_width:      # one very long word
            head, word = split_word(word, font, max_width, scale)
            lines.append(head)
        current = word
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        rest = " ".join(lines[max_lines - 1:])
        lines = lines[:max_lines - 1] + [shorten(rest, font, max_width - 1, scale)]
        if not lines[-1].endswith(ELLIPSIS):
            lines[-1] = mark_cut(lines[-1], font, max_width, scale)
    return lines


def shorten_names(line: str, names: tuple[str, ...] | list[str], font: Font, max_width: int,
                  scale: int = 1) -> str:
    """``line`` made to fit by shortening the players' names in it first (the
    longest one a letter at a time, "Maximil.."), so the words around them
    stay whole; cut at the end (:func:`shorten`) only if that is not enough."""
    shown = {n: n for n in dict.fromkeys(names) if n and n in line}
    while shown and width(line, font, scale) > max_width:
        name, now = max(shown.items(), key=lambda item: (len(item[1]), item[0]))
        base = now.removesuffix(ELLIPSIS)
        if len(base) <= 1:
            break
        shorter = base[:-1].rstrip() + ELLIPSIS
        line = line.replace(now, shorter)
        shown[name] = shorter
    return shorten(line, font, max_width, scale)


def split_word(word: str, font: Font, max_width: int, scale: int = 1) -> tuple[str, str]:
    """A word too long for a line: the most of it that fits, and the rest."""
    n = len(word)
    while n > 1 and width(word[:n], font, scale) > max_width:
        n -= 1
    return word[:n], word[n:]


def mark_cut(line: str, font: Font, max_width: int, scale: int = 1) -> str:
    """``line`` ending in ".." (cut further if needed): shows the reader
    that more text was dropped after it."""
    while line and width(line.rstrip() + ELLIPSIS, font, scale) > max_width:
        line = line[:-1]
    return line.rstrip() + ELLIPSIS


def fit_big(text: str, font: Font, max_width: int) -> tuple[str, int, int]:
    """Pick the biggest way to show ``text`` in ``max_width``: double size
    with normal spacing, double size packed tighter, else double size
    shortened (a name must stay big enough to read from a metre away).
    Returns (text, scale, spacing)."""
    for spacing in (2, 1):
        if width(text, font, 2, spacing) <= max_width:
            return text, 2, spacing
    return shorten(text, font, max_width, 2, 1), 2, 1


def centred_x(text: str, font: Font, left: int, right: int, scale: int = 1,
              spacing: int | None = None) -> int:
    """x that centres ``text`` between ``left`` and ``right`` (exclusive)."""
    return left + max(0, (right - left - width(text, font, scale, spacing)) // 2)
