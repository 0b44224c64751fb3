"""Golden frames of the main screens in every language (issue 33, point 4):
one scripted game and the menu (tests/language_sweep.py), each screen
compared pixel for pixel with tests/golden/<language>/<name>.png. After an
intended change, write them anew and LOOK at each one, scaled up:

    SHUTBOX_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_languages_golden.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from language_sweep import golden_screens
from PIL import Image, ImageChops

from shutbox_hw.base.i18n import LANGUAGES, speaking
from shutbox_hw.render import render

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("SHUTBOX_UPDATE_GOLDEN") == "1"
NAMES = sorted(golden_screens("en"))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", NAMES)
def test_golden_frame(language, name):
    with speaking(language):
        image = render(golden_screens(language)[name])
    path = GOLDEN / language / f"{name}.png"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        image.save(path)
        pytest.skip("golden image written")
    expected = Image.open(path)
    diff = ImageChops.logical_xor(image, expected).getbbox()
    assert diff is None, f"{language}/{name}: pixels differ in {diff}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_frame_has_its_screen(language):
    assert {p.stem for p in (GOLDEN / language).glob("*.png")} == set(NAMES)


def test_the_languages_differ_where_words_are_shown():
    en, de, it = (golden_screens(code) for code in LANGUAGES)
    for name in ("play_before_throw", "play_misfit", "confirm", "menu", "result"):
        assert en[name] != de[name] != it[name] != en[name], name
