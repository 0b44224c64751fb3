"""The commands and the box use the same words (issue 18, point 10).

``moves`` required ``--rules`` while ``solve`` and ``rules`` did not;
``rules --set`` said "preset pub" where the box said "House rules"; the
box's preset titles ("1-12 Race", "Pub Pool") appeared nowhere beside the
commands' names; ``run`` on a PC cut its advice at 200 characters mid-word.
"""

from __future__ import annotations

import json

import pytest

from shutbox_hw.base.errors import LINE_LIMIT, one_line
from shutbox_hw.commands.cli import main
from shutbox_hw.hal.adapters.gpio import pin_factory_problem
from shutbox_hw.rules import PRESETS

# the box's idle titles, as README's "Playing on the box" names them
TITLES = {"klappenspiel": "Klappenspiel", "crafthouse-12": "1-12 Race", "pub": "Pub Pool"}


def out_of(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_moves_without_rules_uses_the_default_preset_like_solve_and_rules(capsys):
    plain = out_of(capsys, "moves", "--open", "all", "--dice", "3", "4", "--json")
    named = out_of(capsys, "moves", "--rules", "klappenspiel", "--open", "all", "--dice", "3",
                   "4", "--json")
    assert plain == named
    # and the default is the one `rules` names
    assert json.loads(out_of(capsys, "rules", "--json"))["rules"]["preset"] == "klappenspiel"


def test_rules_with_an_override_says_house_rules_as_the_box_does(capsys):
    from shutbox_hw.game.display.view import title
    from shutbox_hw.rules import build_rules
    head = out_of(capsys, "rules", "--rules", "pub", "--set", "closure=sum-or-dice") \
        .splitlines()[0]
    assert title(build_rules("pub", {"closure": "sum-or-dice"})) == "House rules"
    assert head == "rule set: House rules (preset pub; changed: closure)"
    # an override equal to the preset's own value changes nothing
    head = out_of(capsys, "rules", "--rules", "pub", "--set", "closure=any-sum").splitlines()[0]
    assert head == "rule set: Pub Pool (preset pub)"


@pytest.mark.parametrize("preset", list(PRESETS))
def test_rules_names_each_preset_with_the_title_the_box_shows(capsys, preset):
    out = out_of(capsys, "rules", "--rules", preset)
    assert out.splitlines()[0] == f"rule set: {TITLES[preset]} (preset {preset})"
    assert f"  {preset} ({TITLES[preset]}): " in out


def test_run_on_a_pc_gives_its_whole_advice_within_one_line():
    error = ImportError("No module named 'lgpio'")
    error.name = "lgpio"
    line = one_line(f"shutbox-hw run: pin factory 'lgpio': {pin_factory_problem('lgpio', error)}")
    assert len(line) <= LINE_LIMIT and "…" not in line
    assert "python3-lgpio" in line and line.endswith("on a PC: shutbox-hw sim")


def test_a_line_too_long_is_cut_at_a_whole_word():
    words = ["alpha", "bravo", "charlie", "delta", "echo"] * 12
    text = " ".join(words)
    line = one_line(text)
    assert len(line) <= LINE_LIMIT and line.endswith(" …")
    kept = line[:-2].split(" ")
    assert kept == words[:len(kept)]              # every word whole, in order
    assert len(line) > LINE_LIMIT - 30            # and not cut much shorter than needed
