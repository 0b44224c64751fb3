"""The JSON event lines of every script, pinned byte for byte.

The expected files in ``tests/events/`` were written by the code before the
controller was split; any refactoring of the game must leave them unchanged.
A deliberate change to the contract regenerates them with
``python tests/test_events_golden.py`` (and the diff shows what changed).
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

import pytest
from sim_play import with_restarts

from shutbox_hw.commands.cli import main

TESTS = Path(__file__).parent
SCRIPTS = TESTS / "scripts"
EXPECTED = TESTS / "events"
HARDWARE = TESTS.parent / "hardware"

CONFIGS = {
    "manual": '[rules]\npreset = "klappenspiel"\n[game]\ndice = "manual"\n',
    "on-request": '[rules]\npreset = "klappenspiel"\n[game]\nhints = "on-request"\n',
    "always": '[rules]\npreset = "klappenspiel"\n[game]\nhints = "always"\n'
              'hint_objective = "max-shut"\nplayer_names = ["Ann"]\n',
}

# name: (script, arguments, a config of CONFIGS or a path, restart after every line)
CASES: dict[str, tuple[str, list[str], str | Path | None, bool]] = {
    "practice-001": ("practice-001.txt", ["--rules", "crafthouse-12"], None, False),
    "practice-001-mcp23017-12": ("practice-001.txt", [],
                                 HARDWARE / "mcp23017-12" / "shutbox.toml", False),
    "practice-001-restarts": ("practice-001.txt",
                              ["--rules", "crafthouse-12", "--set", "match=single-round"],
                              None, True),
    "two-player": ("two-player-klappenspiel.txt",
                   ["--rules", "klappenspiel", "--set", "threshold=10"], None, False),
    "two-player-gpio-9": ("two-player-klappenspiel.txt", ["--set", "threshold=10"],
                          HARDWARE / "gpio-9" / "shutbox.toml", False),
    "two-player-restarts": ("two-player-klappenspiel.txt",
                            ["--rules", "klappenspiel", "--set", "threshold=10"], None, True),
    "manual": ("manual-klappenspiel.txt", [], "manual", False),
    "manual-restarts": ("manual-klappenspiel.txt", [], "manual", True),
    "hints-on-request": ("hints-klappenspiel.txt", [], "on-request", False),
    "hints-always": ("hints-klappenspiel.txt", [], "always", False),
    "hints-restarts": ("hints-klappenspiel.txt", [], "on-request", True),
}


def run_case(name: str, work: Path) -> str:
    """``shutbox-hw sim --script`` for one case: its standard output."""
    script, args, config, restarts = CASES[name]
    script_path = SCRIPTS / script
    if restarts:
        script_path = work / f"{name}.txt"
        script_path.write_text(with_restarts((SCRIPTS / script).read_text()))
    if isinstance(config, str):
        config_path = work / f"{name}.toml"
        config_path.write_text(CONFIGS[config])
        args = ["--config", str(config_path), *args]
    elif config is not None:
        args = ["--config", str(config), *args]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["sim", *args, "--db", str(work / f"{name}.db"),
                     "--script", str(script_path)])
    assert code == 0, name
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(CASES))
def test_events_are_byte_identical(name, tmp_path):
    expected = (EXPECTED / f"{name}.jsonl").read_text()
    assert run_case(name, tmp_path) == expected


def test_every_script_is_pinned():
    assert {script for script, *_ in CASES.values()} == \
        {p.name for p in SCRIPTS.glob("*.txt")}


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as work:
        for case in sorted(CASES):
            (EXPECTED / f"{case}.jsonl").write_text(run_case(case, Path(work)))
            print(case, file=sys.stderr)
