"""The journal: the daemon logs every game event as one JSON object a line
(the same object the simulator prints), so `journalctl -u shutbox-hw -o cat`
can be read by tools."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from sim_play import play_script

from shutbox_hw.config.config_file import load_config

SCRIPT = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"


def test_every_game_event_is_logged_as_one_json_line(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="shutbox_hw")
    _, events = play_script(load_config(preset="klappenspiel"), SCRIPT.read_text(),
                            tmp_path / "box.db")
    logged = [json.loads(r.getMessage()) for r in caplog.records
              if r.name == "shutbox_hw" and r.getMessage().startswith("{")]
    assert events and logged == events
