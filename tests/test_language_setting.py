"""Choosing the box's language (issue 33, point 2): ``[box] language`` in
the config file, or the operator menu's adjustment, in force from the next
screen and kept over a restart like the other adjustments."""

from __future__ import annotations

from pathlib import Path

import pytest

from shutbox_hw.base import i18n
from shutbox_hw.config.config_file import load_config
from shutbox_hw.config.settings import effective
from shutbox_hw.game.display.screens import AttractScreen, MenuScreen
from shutbox_hw.game.model.service import ADJUST_ITEMS, ITEMS
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "box.toml"
    path.write_text(text)
    return path


def _runner(tmp_path: Path, config: Path | None = None) -> SimRunner:
    return SimRunner(load_config(config), tmp_path / "box.db", on_event=lambda e: None)


def _run(runner: SimRunner, text: str) -> None:
    for step in parse_script(text, 9):
        runner.run(step)


def _screen(runner: SimRunner):
    return runner.daemon.controller.screen()


def test_the_config_files_language_is_what_the_box_speaks(tmp_path):
    runner = _runner(tmp_path, _config(tmp_path, '[box]\nlanguage = "it"\n'))
    attract = _screen(runner)
    assert isinstance(attract, AttractScreen)
    assert attract.prompt == "NEXT: +1  tieni: nomi\nROLL: via  tieni: -1"
    assert attract.rules_line == "9 numeri, ogni somma, fuori a 45"


def test_english_by_default(tmp_path):
    assert load_config(None).box.language == "en"
    assert _screen(_runner(tmp_path)).prompt == "NEXT: +1  hold: names\nROLL: start  hold: -1"


@pytest.mark.parametrize("value, shown", [("fr", "'fr' is not one of en, de, it"),
                                          ("DE", "'DE' is not one of en, de, it"),
                                          (3, "3 is not one of en, de, it")])
def test_check_config_refuses_a_language_the_box_does_not_speak(tmp_path, value, shown):
    from shutbox_hw.config.config_file import check_config
    value = f'"{value}"' if isinstance(value, str) else value
    problems = check_config(_config(tmp_path, f"[box]\nlanguage = {value}\n"))
    assert problems == [f"[box] language: {shown}"]


def test_the_menu_switches_the_language_from_the_next_screen_and_keeps_it(tmp_path):
    runner = _runner(tmp_path)
    to_language = ["hold-both", *["next"] * ITEMS.index("adjustments"), "roll",
                   *["next"] * ADJUST_ITEMS.index("language"), "roll"]
    _run(runner, "\n".join(to_language))
    edit = _screen(runner)
    assert isinstance(edit, MenuScreen) and edit.lines == ("English", "Deutsch", "Italiano")
    assert edit.values == ("now", "", "")
    _run(runner, "next\nroll")                    # Deutsch, chosen
    adjust = _screen(runner)                      # the very next screen speaks it
    assert adjust.title == "EINSTELLUNGEN" and "Sprache" in adjust.lines
    assert adjust.values[adjust.lines.index("Sprache")] == "Deutsch"
    _run(runner, "hold-next\nhold-next")          # back to the menu, out of it
    assert _screen(runner).prompt == "NEXT: +1  lang: Namen\nROLL: Start  lang: -1"
    # the plug pulled, the box booted again: still German (the adjustment is stored)
    i18n.set_language("en")                       # (nothing left over in this process)
    runner.restart()
    assert _screen(runner).prompt == "NEXT: +1  lang: Namen\nROLL: Start  lang: -1"
    _, sources = effective(load_config(None), {"language": "de"})
    assert sources["language"] == "box"


def test_a_stored_language_the_version_no_longer_speaks_is_ignored():
    config, sources = effective(load_config(None), {"language": "fr"})
    assert config.box.language == "en" and sources["language"] == "config file"


def test_home_assistants_entities_are_named_in_the_boxs_language():
    import json

    from shutbox_hw.network.discovery import discovery_messages
    topics = {"state": "shutbox/bar/state", "status": "shutbox/bar/status"}
    i18n.set_language("de")
    configs = {topic: json.loads(payload) for topic, payload in
               discovery_messages("bar", topics)}
    names = {c["name"] for c in configs.values()}
    assert {"Zustand", "Spieler", "Störung", "Partien heute Abend"} <= names
    assert {c["device"]["name"] for c in configs.values()} == {"Shut the Box bar"}
    # the ids HA keys its entities on do not change with the language
    assert "shutbox_bar_fault" in {c["unique_id"] for c in configs.values()}
