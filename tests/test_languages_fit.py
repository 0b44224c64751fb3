"""Every screen fits in every language the box speaks (issue 33, point 4).

The sweep (tests/language_sweep.py) plays whole matches through the real
controller in English, German and Italian, with the longest names, big
numbers, 9 and 12 flaps and 1-8 players, and walks the operator menu. Each
screen is rendered with a renderer that records every piece of text; then:

- nothing is drawn outside the 128x64 panel;
- no two pieces of text overlap;
- the box's own words are never cut ("..") nor split inside a word: only a
  player's name may be shortened, as the layout does in every language;
- what a player must read now (prompt, problem, question, menu lines) is
  never drawn below the primary size (10 px capitals).
"""

from __future__ import annotations

from functools import cache

import pytest
from language_sweep import LONG_NAMES, SHORT_NAMES, Drawn, drawn, every_screen, primary_texts

from shutbox_hw.base.i18n import LANGUAGES, speaking
from shutbox_hw.render.fonts import PRIMARY_MIN_PX
from shutbox_hw.render.text import ELLIPSIS

WIDTH, HEIGHT = 128, 64
NAME_WORDS = {w for n in LONG_NAMES + SHORT_NAMES for w in n.split()}


@cache
def sweep(language: str) -> tuple:
    with speaking(language):
        out = []
        seen = set()
        for screen in every_screen(language):
            if screen in seen:
                continue
            seen.add(screen)
            out.append((screen, drawn(screen)))
        return tuple(out)


def _overlap(a: Drawn, b: Drawn) -> bool:
    ax0, ay0, ax1, ay1 = a.box
    bx0, by0, bx1, by1 = b.box
    return ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1


def _cut_inside_a_name(piece: str) -> bool:
    """Whether a piece ending in ".." lost only (part of) a player's name."""
    kept = piece[: -len(ELLIPSIS)].rstrip()
    tail = kept.split(" ")[-1].split(",")[-1].split(":")[-1]
    names = [n.upper() for n in LONG_NAMES + SHORT_NAMES] + list(LONG_NAMES + SHORT_NAMES)
    return tail == "" or any(n.startswith(tail) or tail in n or
                             any(w.startswith(tail) for w in n.split()) for n in names)


def problems(screen, record) -> list[str]:
    out = []
    for d in record.drawn:
        x0, y0, x1, y1 = d.box
        if x0 < 0 or y0 < 0 or x1 > WIDTH or y1 > HEIGHT:
            out.append(f"outside the panel: {d.text!r} at {d.box}")
        if d.text.endswith(ELLIPSIS) and not _cut_inside_a_name(d.text):
            out.append(f"cut: {d.text!r}")
    for i, a in enumerate(record.drawn):
        for b in record.drawn[i + 1:]:
            if _overlap(a, b):
                out.append(f"overlap: {a.text!r} {a.box} and {b.text!r} {b.box}")
    texts = [d.text for d in record.drawn]
    for word, head, rest in record.split:             # split, and drawn so
        drawn_split = any(t.endswith(head) for t in texts) and \
            any(t.startswith(rest) for t in texts)
        if drawn_split and not any(word.startswith(w) or w.startswith(word)
                                   for w in NAME_WORDS):
            out.append(f"word split: {word!r}")
    primaries = [p for p in primary_texts(screen) if p]
    for d in record.drawn:
        piece = d.text.removesuffix(ELLIPSIS).strip()
        if d.cap < PRIMARY_MIN_PX and any(piece.casefold() in p.casefold() and
                                          len(piece) >= min(len(p), 8) for p in primaries):
            out.append(f"shrunk: {d.text!r} at {d.cap} px")
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_screen_fits_in_every_language(language):
    screens = sweep(language)
    assert len(screens) > 300                      # the sweep reached every kind of screen
    kinds = {type(s).__name__ for s, _ in screens}
    assert kinds >= {"AttractScreen", "PlayScreen", "TurnEndScreen", "ScoreboardScreen",
                     "ResultScreen", "ConfirmScreen", "ShutScreen", "MenuScreen",
                     "SwitchTestScreen"}
    bad = {}
    for screen, record in screens:
        found = problems(screen, record)
        if found:
            bad.setdefault(tuple(found), screen)
    assert not bad, "\n".join(f"{'; '.join(k)}\n    in {v}" for k, v in list(bad.items())[:15])


def test_the_sweep_speaks_the_language():
    # the German sweep draws German words (and the English one does not)
    de = {d.text for _, r in sweep("de") for d in r.drawn}
    en = {d.text for _, r in sweep("en") for d in r.drawn}
    assert "ALLE KLAPPEN ÖFFNEN" in de and "LIFT ALL FLAPS" in en
    assert "ALLE KLAPPEN ÖFFNEN" not in en
