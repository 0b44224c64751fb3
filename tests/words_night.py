"""A night for the tests that look for English left on the German and Italian
pages and TV (issue 42): a pub pool game (Jürgen, Niccolò) played into its third
round (the next game's start ends it, its balances kept), then a klappenspiel game
on house rules (Jürgen, Carla) to its end, on the simulated box into one database;
and the words a page shows, to compare across languages."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path
from typing import Any

from shutbox_hw.config.config_file import parse_config
from shutbox_hw.network.live import live
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

SCRIPT = (Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt").read_text()
GAMES = (({"preset": "pub"}, ["Jürgen", "Niccolò"], "hold-next\nroll\n"),
         ({"preset": "klappenspiel", "threshold": 17}, ["Jürgen", "Carla"], ""))
NAMES = {"Jürgen", "Niccolò", "Carla"}


def play(db: Path) -> list[dict[str, Any]]:
    """The two games played into ``db``; the live summaries (in English, as the web's
    one feed computes them) in round 2 with the dice up, and at each script's end."""
    seen: list[dict[str, Any]] = []
    for rules, names, extra in GAMES:
        config, problems = parse_config({"rules": rules, "game": {"player_names": names}})
        assert config is not None, problems
        runner = SimRunner(config, db)
        for step in parse_script(SCRIPT + extra, 9):
            runner.run(step)
            summary = live(runner.daemon.store.db, time.time())
            if summary["playing"] and summary["dice"] and summary["round"] == 2:
                seen.append(summary)
        runner.finish()
        seen.append(live(runner.daemon.store.db, time.time()))
        runner.daemon.store.close()
    return seen


def visible(page: str) -> str:
    """A page's text as a reader sees it (no script, style or tags), less what is
    code (a config key, a command: ``<code>``), the same in every language."""
    page = re.sub(r"(?s)<(script|style|code)\b.*?</\1>", " ", page)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def words(text: str) -> set[str]:
    """The words of ``text``: no number nor a name with digits (I2C), no file's name
    (games.csv)."""
    text = re.sub(r"\S+\.(?:csv|json)\b", " ", text)
    return {w for w in re.findall(r"[^\W_]+(?:['’][^\W_]+)?", text)
            if not any(c.isdigit() for c in w)}


# words a German or Italian page shares with the English one by right: the box's brand,
# the names of formats and presets, an address's parameter as typed (?limit=0: "Limit:
# ..."), each language's own short words and the loanwords its catalogue chose
SHARED = {"Shut", "the", "Box", "JSON", "Klappenspiel", "Limit",
          "ROLL", "NEXT"}                    # the box's buttons, as printed on it
SHARED_BY = {
    "de": SHARED | {"in", "Export", "Live", "Pub", "Pool"},             # "Pub-Pool"
    "it": SHARED | {"a", "in", "per", "Backup", "server", "TV", "display", "file",
                    "Pool",                                            # "Pool del pub"
                    "round", "Round"},                                 # the catalogue's round
}


def english_left(code: str, page: str, english: str, names: set[str] = NAMES) -> list[str]:
    """The words of the ``code`` page that are the English page's, not a name nor shared."""
    return sorted((words(page) & words(english)) - names - SHARED_BY[code])
