"""The package's layers: each imports only from the layers below it.

From the bottom: plain values (events, lights, errors, the scheduler); the rules and,
beside them, the hardware and systemd's notify socket; the game, the solver and the words every
surface names the record with; the renderer, the
store and the config file; the daemon and the hints; the simulator, then
the self-test (which runs on it), then the commands. The pure layers must
not drag in hardware, imaging or storage libraries.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "shutbox_hw"

LAYERS: dict[str, float] = {
    "events": 0, "leds": 0, "errors": 0, "validate": 0, "scheduler": 0, "lifecycle": 0,
    "i18n": 0,              # the language in force and its catalogues (gettext only)
    "dice_firmware": 0,     # firmware/dice/, mapped in by setup.py
    "__version__": 0,       # the package's version (shutbox_hw/__init__.py), a plain value
    "spelling": 0,          # letters spelled out (the fonts and the roster's name key)
    "rules": 1, "hal": 1, "textfile": 1, "sdnotify": 1,
    "players": 1,           # a player's name and when two names are one player
    "game": 2, "strategy": 2, "netconfig": 2,
    "words": 2.5,           # what surfaces say: above the game (its rule words), below the store
    "render": 3, "store": 3, "config": 3, "steps": 3,
    "hints": 4, "settings": 4,
    "skill": 4.5,           # the rater (over the store and the hints' solver) and the bots
    "claims": 4,            # seats from a phone: the daemon's socket and desk, the web's client
    "daemon": 5, "network": 5, "web": 6,
    "sim": 6, "selftest": 7, "commands": 8, "cli": 9,
    "reference": 10,        # the docs pages generated from the config specs and the parser
}
HEAVY = ("PIL", "gpiozero", "luma", "smbus2", "sqlite3", "tomllib")


def part_of(module: str) -> str:
    """``shutbox_hw.game.controller`` -> ``game``."""
    return module.split(".")[1]


def imports_of(path: Path) -> set[str]:
    """The ``shutbox_hw`` modules a file imports (relative imports resolved)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        module = module.rsplit(".", 1)[0] + ".__init__"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("shutbox_hw."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[:-node.level]
                target = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # from . import text
                    found.update(f"{target}.{a.name}" for a in node.names)
                    continue
            else:
                target = node.module or ""
            if target.startswith("shutbox_hw."):
                found.add(target)
    return found


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "__main__.py")


def test_every_part_has_a_layer():
    parts = {part_of(".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts))
             for p in SOURCES if p.parent != PACKAGE or p.name != "__init__.py"}
    assert parts <= set(LAYERS), parts - set(LAYERS)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_only_downwards(path):
    own = part_of(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)) \
        if path != PACKAGE / "__init__.py" else None
    if own is None:
        return
    for target in imports_of(path):
        other = part_of(target)
        if other == own:
            continue
        assert LAYERS[other] < LAYERS[own], \
            f"{path.relative_to(PACKAGE)} ({own}, layer {LAYERS[own]}) imports {target} " \
            f"(layer {LAYERS[other]})"


def test_the_layer_test_sees_imports():
    """The scanner finds relative, absolute and package imports (so the test above can fail)."""
    found = imports_of(PACKAGE / "daemon.py")
    assert {"shutbox_hw.game.controller", "shutbox_hw.store", "shutbox_hw.config"} <= found
    assert "shutbox_hw.render.text" in imports_of(PACKAGE / "render" / "play.py")


@pytest.mark.parametrize("package", ["shutbox_hw.rules", "shutbox_hw.game",
                                     "shutbox_hw.game.controller", "shutbox_hw.strategy"])
def test_pure_layers_load_no_hardware_imaging_or_storage(package):
    code = (f"import sys, json; import {package}; "
            f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out) == []


TESTS = Path(__file__).parent
PERSON = sorted(PACKAGE.glob("sim/*.py")) + [
    TESTS / name for name in ("steady_player.py", "sim_play.py", "boxcase.py",
                               "vm/guest/crash_game.py")]
"""The simulated person: the simulator's script runner and the test players.
They decide from what the box gives out (the events, the screen, the lights:
``sim/observed.py``), never from the game's state, so reshaping the state
cannot change how they play."""


def reads_of_game_state(path: Path) -> list[str]:
    """Every ``<x>.controller.state`` (and ``.controller.state.<y>``) in a file,
    and in the players every use of the controller at all."""
    tree = ast.parse(path.read_text())
    player = PACKAGE not in path.parents
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "controller" and (player or node.attr == "state"):
            found.append(f"{path.name}:{node.lineno}: .controller.{node.attr}")
    return found


@pytest.mark.parametrize("path", PERSON, ids=lambda p: p.name)
def test_the_simulated_person_never_reads_the_game_state(path):
    assert reads_of_game_state(path) == []


def test_the_person_test_sees_state_reads(tmp_path):
    """The scanner finds a read of the state (so the test above can fail)."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f(runner):\n    return runner.daemon.controller.state.phase\n")
    assert reads_of_game_state(sample) == ["sample.py:2: .controller.state"]


PLAYER_METHODS = ("_helpful", "_play", "_habit", "match")
"""The pub night's players (``pub_night.py``): on the simulated box they look
through ``Night.seen`` (``pub_night_sim.Looks``); ``Night.state`` is for the checks."""


def state_reads_in(path: Path, methods: tuple[str, ...]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef) and node.name in methods:
            found += [f"{node.name}:{n.lineno}" for n in ast.walk(node)
                      if isinstance(n, ast.Attribute) and n.attr == "state"]
    return found


def test_the_pub_nights_players_look_only_at_what_they_see():
    assert state_reads_in(TESTS / "pub_night.py", PLAYER_METHODS) == []
    assert state_reads_in(TESTS / "pub_night.py", ("_check_live",)) != []   # the scanner works
    looks = (TESTS / "pub_night_sim.py").read_text()
    looks = looks[looks.index("class Looks"):looks.index("class SimNight")]
    assert "controller" not in looks and ".state" not in looks
