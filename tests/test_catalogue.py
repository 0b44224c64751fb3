"""One source of words (issue 33, point 5): the catalogues hold every word
the code marks for the players, each one translated into every shipped
language with the same placeholders, and the compiled ``.mo`` files the box
reads say the same as their ``.po`` sources.

After changing words in the code (README, "Languages"):

    .venv/bin/pybabel extract -F babel.cfg --no-default-keywords -k tr -k N_ \\
        -k ngettext:1,2 -k count:2,3 -c TRANSLATORS: --no-location --sort-output \\
        -o shutbox_hw/locale/shutbox_hw.pot .
    .venv/bin/pybabel update -i shutbox_hw/locale/shutbox_hw.pot -d shutbox_hw/locale \\
        -D shutbox_hw --no-fuzzy-matching --omit-header
    (translate the new entries in each .po)
    .venv/bin/pybabel compile -d shutbox_hw/locale -D shutbox_hw
"""

from __future__ import annotations

import functools
import gettext
import re
import string
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from shutbox_hw.base import i18n

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"tr": None, "N_": None, "ngettext": (1, 2), "count": (2, 3)}
SHIPPED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]


@functools.cache
def _extracted() -> frozenset[str | tuple[str, str]]:
    """The words marked in the code, extracted once per run (Babel reads every module)."""
    found: set[str | tuple[str, str]] = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT / "shutbox_hw"), method_map=[("**.py", "python")], keywords=KEYWORDS,
            comment_tags=()):
        found.add(message if isinstance(message, str) else tuple(message))
    return frozenset(found)


def _ids(catalogue) -> set:
    return {m.id if isinstance(m.id, str) else tuple(m.id) for m in catalogue if m.id}


def _po(code: str):
    path = i18n.LOCALE_DIR / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.po"
    with path.open("rb") as f:
        return read_po(f, locale=code)


def _fields(s: str) -> set[str]:
    return {name for _text, name, _spec, _conv in string.Formatter().parse(s) if name}


def test_the_template_holds_exactly_the_words_marked_in_the_code():
    with (i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot").open("rb") as f:
        template = _ids(read_po(f))
    code = _extracted()
    assert code - template == set(), "words in the code missing from the catalogue"
    assert template - code == set(), "words in the catalogue no longer in the code"


@pytest.mark.parametrize("code", SHIPPED)
def test_every_word_is_translated_with_its_placeholders(code):
    catalogue = _po(code)
    assert _ids(catalogue) == _extracted()
    assert catalogue.num_plurals == 2
    for m in catalogue:
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        assert all(s.strip() for s in strings), f"{code}: {m.id!r} untranslated"
        assert "fuzzy" not in m.flags, f"{code}: {m.id!r} is fuzzy"
        for s in strings:     # a placeholder lost or misspelt would break .format()
            assert _fields(s) == _fields(ids[0]), f"{code}: {m.id!r} -> {s!r}"
            assert s.count("  ") == ids[0].count("  "), f"{code}: {m.id!r}: the halves' gap"
            assert s.count("\n") == ids[0].count("\n"), f"{code}: {m.id!r}: its lines"


@pytest.mark.parametrize("code", SHIPPED)
def test_the_compiled_catalogue_says_what_its_source_says(code):
    source = _po(code)
    with (i18n.LOCALE_DIR / code / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo").open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    for m in source:
        if not m.id:
            continue
        if isinstance(m.id, str):
            assert compiled.gettext(m.id) == m.string, m.id
        else:
            assert [compiled.ngettext(m.id[0], m.id[1], n) for n in (1, 2)] == list(m.string)


def test_the_buttons_keep_their_printed_names():
    # ROLL and NEXT are written on the box: every language says them so
    for code in SHIPPED:
        for m in _po(code):
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            strings = [m.string] if isinstance(m.string, str) else list(m.string)
            for word in ("ROLL", "NEXT"):
                assert all(s.count(word) == ids[0].count(word) for s in strings), m.id


def test_a_language_the_box_does_not_speak_is_refused():
    with pytest.raises(ValueError, match="not one of en, de, it"):
        i18n.set_language("fr")


def test_a_browser_chooses_among_the_languages_the_box_speaks():
    assert i18n.choose("de-CH, de;q=0.9, en;q=0.8") == "de"
    assert i18n.choose("fr-FR, it;q=0.5, en;q=0.4") == "it"
    assert i18n.choose("en;q=0.2, de;q=0.7") == "de"
    assert i18n.choose("fr, es", default="it") == "it"
    assert i18n.choose(None, default="de") == "de"
    assert i18n.choose("it;q=0, de;q=garbage", default="en") == "en"


WORD = re.compile(r"[^\W\d_]{3,}")
ALWAYS = {"ROLL", "NEXT", "LED", "LEDS", "POOL", "KLAPPENSPIEL", "PUB"}


@pytest.mark.slow      # seconds of work: pytest -m 'not slow' leaves it out
def test_no_english_word_is_left_on_the_german_and_italian_screens():
    """The screens of the fit test's sweep, read word by word: a word that is
    only English (in the code's words, in no translation) would be a string
    the catalogue missed."""
    from language_sweep import LONG_NAMES, SHORT_NAMES
    from test_languages_fit import sweep

    names = {w.upper() for n in LONG_NAMES + SHORT_NAMES for w in WORD.findall(n)}
    english = {w.upper() for m in _extracted()
               for s in ([m] if isinstance(m, str) else m) for w in WORD.findall(s)}
    for code in SHIPPED:
        native = {w.upper() for m in _po(code) if m.id
                  for s in ([m.string] if isinstance(m.string, str) else m.string)
                  for w in WORD.findall(s)}
        only_english = english - native - ALWAYS - names
        seen = {w.upper() for _screen, record in sweep(code) for d in record.drawn
                for w in WORD.findall(d.text)}
        assert seen & only_english == set(), code


def test_the_parts_words_the_screen_translates_are_the_parts_own():
    # a part reporting new words would be shown in English: name them here
    from shutbox_hw.hal.adapters import dice_source, expander, oled_display
    from shutbox_hw.hal.contracts import debounce
    from shutbox_hw.words import devices as device_words
    assert {dice_source.MODULE, oled_display.SOURCE, "storage"} <= device_words.DEVICES
    assert {debounce.CHATTER_MESSAGE, debounce.SETTLED_MESSAGE, expander.BROWNOUT_MESSAGE,
            expander.RECONFIGURED_MESSAGE, expander.BACK_MESSAGE, oled_display.BACK_MESSAGE,
            "no answer: software dice", "answers again", "saved"} <= device_words.MESSAGES


def test_the_storage_words_are_the_stores_own_and_said_in_the_boxs_language():
    """Issue 38's words on the screen: each part's own text, translated whole."""
    from shutbox_hw.base import i18n
    from shutbox_hw.daemon.journal import BUG_PART, BUG_WORDS
    from shutbox_hw.store.disk import backup, faults, mounts
    from shutbox_hw.words import devices as device_words
    assert {faults.READ_ONLY, faults.DAMAGED_WORDS, faults.NOT_A_DATABASE,
            faults.FOLDER_GONE, faults.FILE_GONE, "disk full", "disk error",
            "database locked", BUG_WORDS.removeprefix("cannot save: ")} <= device_words.CAUSES
    assert {mounts.PART, backup.PART, BUG_PART} <= device_words.DEVICES
    assert mounts.WORDS in device_words.MESSAGES
    with i18n.speaking("de"):
        assert device_words.fault("storage", f"cannot save: {faults.READ_ONLY}") == \
            "Speicher: Speichern fehlgeschlagen: SD-Karte nur lesbar"
        assert device_words.fault(
            "storage", "record damaged: 1,234 of 1,240 games recovered") == \
            "Speicher: Daten beschädigt: 1.234/1.240 Spiele gerettet"
        assert device_words.fault(mounts.PART, mounts.WORDS) == \
            "Daten: nur im RAM, beim Ausschalten weg"
        # an operating system's words after "failed: " are shown as they came
        assert device_words.fault(backup.PART, "failed: permission denied") == \
            "Sicherung: fehlgeschlagen: permission denied"
    with i18n.speaking("it"):
        assert device_words.fault(backup.PART, "failed: place not there") == \
            "backup: non riuscito: destinazione assente"
    with i18n.speaking("en"):
        assert device_words.fault(
            "storage", "record damaged: 1,234 of 1,240 games recovered") == \
            "storage: record damaged: 1,234 of 1,240 games recovered"
