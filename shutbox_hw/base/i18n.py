"""The one place that says which language the box speaks, and its words.

Every word a player, a publican or a TV viewer reads goes through
:func:`tr` (or :func:`ngettext`; :func:`N_` marks a word in a table); the
words come from gettext catalogues,
``shutbox_hw/locale/<lang>/LC_MESSAGES/shutbox_hw.po`` compiled to ``.mo``
(docs/develop/translations.md). English is the code's own text, so it needs no
catalogue.

- The **box's** language (``[box] language``, or the operator menu's
  adjustment) is set by whoever configures the box (:func:`set_language`:
  the daemon, the simulator, the web server) and is in force from the next
  screen drawn.
- A **page** may speak another (a browser's ``Accept-Language``): inside
  ``with speaking(code):`` the words are that language's, for this thread or
  task only.

The CLI and the journal stay in English: they do not call :func:`tr`.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

import shutbox_hw

LANGUAGES: tuple[str, ...] = ("en", "de", "it")
"""The languages the box speaks (their catalogues ship in the package)."""
DEFAULT = "en"
NATIVE_NAMES = {"en": "English", "de": "Deutsch", "it": "Italiano"}
"""How the operator menu offers each language: in its own words."""
DOMAIN = "shutbox_hw"
LOCALE_DIR = Path(shutbox_hw.__file__).parent / "locale"
"""The package's own locale/ folder (found from the package, not from this module,
which may sit in a folder of the package's)."""

_box_language = DEFAULT
_page_language: ContextVar[str | None] = ContextVar("page_language", default=None)


def set_language(code: str) -> None:
    """The box's language from now on (one of :data:`LANGUAGES`)."""
    global _box_language
    if code not in LANGUAGES:
        raise ValueError(f"language {code!r} is not one of {', '.join(LANGUAGES)}")
    _box_language = code


def language() -> str:
    """The language in force here: a page's own, else the box's."""
    return _page_language.get() or _box_language


def box_language() -> str:
    """The box's language (what the OLED and the menu speak)."""
    return _box_language


@contextmanager
def speaking(code: str) -> Iterator[str]:
    """Words in ``code`` inside the block (this thread or task only)."""
    token = _page_language.set(code if code in LANGUAGES else None)
    try:
        yield language()
    finally:
        _page_language.reset(token)


@cache
def catalogue(code: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``code`` (English: the code's own words)."""
    if code == DEFAULT:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[code])


def tr(message: str) -> str:
    """``message`` in the language in force."""
    return catalogue(language()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, in the language in force."""
    return catalogue(language()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogue where it is defined (a table of
    labels); :func:`tr` translates it where it is shown."""
    return message


def choose(accept_language: str | None, default: str | None = None) -> str:
    """The language a browser asks for (``Accept-Language: de-CH, it;q=0.8``)
    among those the box speaks, else ``default`` (the box's)."""
    best: tuple[float, int, str] | None = None
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _sep, params = part.strip().partition(";")
        code = tag.strip().lower().split("-")[0]
        quality = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if code in LANGUAGES and quality > 0 and (best is None or (-quality, order) <
                                                   (-best[0], best[1])):
            best = (quality, order, code)
    return best[2] if best else (default or box_language())
