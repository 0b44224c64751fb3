"""The package's layers: each folder imports only from the folders below it.

The folders are the layers (docs/develop/architecture.md), from the bottom: plain values,
time and errors (``base/``); the rules, a player's name and the hardware (its contracts,
then the adapters behind them, then the simulated parts); the words every surface says; the
referee and what it shows, and the solver; the pixels and the record; the config file; the
phones' seats and the rater; the daemon and MQTT; the surfaces (web, the simulator, the
self-test, the commands). Only the package's face sits at its top. The pure layers must not
drag in hardware, imaging or storage libraries.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parent.parent / "shutbox_hw"

LAYERS: dict[str, float] = {    # a folder of the package (or a name at its top) -> its layer
    "base": 0,              # plain values, time and errors, the language in force
    "__version__": 0,       # the package's version (shutbox_hw/__init__.py), a plain value
    "dice_firmware": 0,     # firmware/dice/, mapped in by setup.py
    "rules": 1,             # the rules engine, pure
    "players": 1,           # a player's name and when two names are one player
    "hal": 1,               # (its __init__ only)
    "hal/contracts": 1,     # the ports, the I2C bus, the clock, what every backend shares
    "hal/adapters": 1.2,    # Pi pins, expanders, the dice module, the OLED behind the ports
    "hal/simulated": 1.4,   # register-level simulated parts the adapters drive
    "words": 1.5,           # what every surface says: rule sets, devices, the record
    "game/model": 2,        # what the referee knows: the state, the [game] table, the events
    "game/referee": 2.1,    # the referee: the state machine and a turn's flow (it shows nothing)
    "game/display": 2.2,    # what is shown, as pure functions of the referee's state
    "game/machine": 2.3,    # the controller: the referee and the display stepped together
    "game": 2.4,            # (its __init__ only)
    "strategy": 2,
    "render": 3,
    "store/tables": 3,      # what the file holds: the schema, a game's record, the kept tallies
    "store/read": 3.1,      # the read side: history, the audit, high scores, tonight
    "store/disk": 3.2,      # the disk's care: faults, salvage, mounts, backups, the lock
    "store/write": 3.3,     # the write side: the Store, each event's rows
    "store": 3.4,           # its __init__: the Store and its faults, the face of the record
    "config": 3.5,          # the config file, the effective settings (over the store's)
    "claims": 4,            # seats from a phone: the daemon's socket and desk, the web's client
    "skill": 4.5,           # the rater, the bots and the hints (over the store and the solver)
    "daemon": 5, "network": 5,
    "web/gate": 6,          # what a request passes before a page: guard, limits, refusals
    "web/content": 6.1,     # what the pages hold: the reader, pages, views, assets, the feed
    "web/join": 6.2, "web/players": 6.2,   # the phones' join page; the players' pages
    "web": 6.3,             # the application (app.py) over all of them
    "sim": 6,
    "league": 6,            # the league's server (issue 40), never on the box
    "selftest": 7,          # runs on the simulator too
    "commands": 8,          # the command line: its parser (cli.py), what commands share
    "commands/record": 8.1,  # history, players, audit
    "commands/box": 8.2, "commands/play": 8.2, "commands/serve": 8.2,
    "reference": 10,        # the docs pages generated from the config specs and the parser
}
FACE = {"__init__.py", "__main__.py"}
"""All the package's top holds: its version and ``python -m shutbox_hw``."""
HEAVY = ("PIL", "gpiozero", "luma", "smbus2", "sqlite3", "tomllib")


def part_of(module: str) -> str:
    """``shutbox_hw.game.machine.controller`` -> ``game``, ``shutbox_hw.hal.adapters.gpio`` ->
    ``hal/adapters``: the longest folder of :data:`LAYERS` the module is in."""
    parts = module.split(".")[1:]
    for n in range(len(parts), 0, -1):
        if "/".join(parts[:n]) in LAYERS:
            return "/".join(parts[:n])
    return "/".join(parts)


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
    found = imports_of(PACKAGE / "daemon" / "daemon.py")
    assert {"shutbox_hw.game.machine.controller", "shutbox_hw.store",
            "shutbox_hw.config.config_file"} <= found
    assert "shutbox_hw.render.text" in imports_of(PACKAGE / "render" / "play.py")
    assert part_of("shutbox_hw.hal.adapters.gpio") == "hal/adapters"
    assert part_of("shutbox_hw.hal.__init__") == "hal"
    assert part_of("shutbox_hw.base.errors") == "base"


MOST_MODULES = 15
"""Issue 39: no folder of the package holds more than this many modules (its
``__init__.py`` counted)."""


def crowded_folders(package: Path) -> list[str]:
    """Every folder of ``package`` holding more than :data:`MOST_MODULES` modules,
    spelled ``store: 27 modules``."""
    return sorted(f"{folder.relative_to(package.parent)}: {count} modules"
                  for folder in [package, *(p for p in package.rglob("*") if p.is_dir())]
                  if (count := len(list(folder.glob("*.py")))) > MOST_MODULES)


def test_no_folder_holds_more_than_15_modules():
    assert crowded_folders(PACKAGE) == []


def test_the_folder_count_sees_a_crowded_folder(tmp_path):
    """A folder of 16 modules is named, one of 15 is not (so the test above can fail)."""
    for n in range(MOST_MODULES):
        (tmp_path / "pkg" / "full").mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / "full" / f"m{n}.py").write_text("")
        (tmp_path / "pkg" / "over" / "deep").mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / "over" / "deep" / f"m{n}.py").write_text("")
    (tmp_path / "pkg" / "over" / "deep" / "__init__.py").write_text("")
    assert crowded_folders(tmp_path / "pkg") == ["pkg/over/deep: 16 modules"]


def test_only_the_face_at_the_top():
    """Every module lives in the folder of its layer; the top holds the package's face."""
    assert {p.name for p in PACKAGE.glob("*.py")} == FACE


def modules_of(package: Path) -> dict[str, Path]:
    """Every module of ``package`` by its dotted name (a package by its own name)."""
    found = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(package: Path) -> dict[str, dict[str, int]]:
    """Module -> {module it imports: the line of the first such import}, for every
    import anywhere in the file: at the top, inside a function (a lazy import) or
    under ``if TYPE_CHECKING``. ``from .x import y`` is an import of ``x.y`` when
    ``y`` is a module, else of ``x``."""
    modules = modules_of(package)
    root = package.name

    def known(name: str) -> str | None:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in modules else None

    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        here = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]
            for target in targets:
                if target.split(".")[0] == root and (found := known(target)) not in (None, module):
                    assert found is not None
                    edges.setdefault(found, node.lineno)
        graph[module] = edges
    return graph


def import_circles(package: Path) -> list[str]:
    """One circle of imports through each knot of modules that import each other,
    spelled ``a (line 3) -> b (line 9) -> a``; none in a package without circles."""
    graph = import_graph(package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    knots: list[set[str]] = []

    def visit(module: str) -> None:      # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            knot = {stack.pop()}
            while module not in knot:
                knot.add(stack.pop())
            if len(knot) > 1:
                knots.append(knot)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    circles = []
    for knot in knots:
        start = min(knot)
        paths = {start: [start]}
        todo = [start]
        circle: list[str] | None = None
        while circle is None:            # the shortest way round, back to start
            module = todo.pop(0)
            for other in sorted(graph[module]):
                if other == start:
                    circle = paths[module] + [start]
                    break
                if other in knot and other not in paths:
                    paths[other] = paths[module] + [other]
                    todo.append(other)
        steps = [f"{a} (line {graph[a][b]})" for a, b in zip(circle, circle[1:])]
        circles.append(" -> ".join(steps + [start]))
    return sorted(circles)


def test_no_import_circles():
    """No module imports, directly or round a circle, a module that imports it,
    inside a folder too, lazy and ``TYPE_CHECKING`` imports included."""
    assert import_circles(PACKAGE) == []


def test_the_circle_check_sees_hidden_circles(tmp_path):
    """A circle closed by a lazy import, one under ``TYPE_CHECKING`` and one through
    a package's ``__init__`` are all named (so the test above can fail)."""
    package = tmp_path / "shutbox_hw"
    files = {
        "__init__.py": "",
        "a.py": "from . import b\n",
        "b.py": "def f():\n    from .c import g\n    return g\n",
        "c.py": "import shutbox_hw.a\ndef g(): pass\n",
        "d/__init__.py": "from .e import E\n",
        "d/e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                  "    from shutbox_hw.d import E\nclass E: pass\n",
        "f.py": "from .a import b\nfrom .d.e import E\n",   # into circles, not round one
    }
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    assert import_circles(package) == [
        "shutbox_hw.a (line 1) -> shutbox_hw.b (line 2) -> shutbox_hw.c (line 1) -> shutbox_hw.a",
        "shutbox_hw.d (line 1) -> shutbox_hw.d.e (line 3) -> shutbox_hw.d",
    ]
    (package / "b.py").write_text("def f():\n    return None\n")
    (package / "d/e.py").write_text("class E: pass\n")
    assert import_circles(package) == []


PYPROJECT = PACKAGE.parent / "pyproject.toml"


def lint_imports(config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[bool, str]:
    """import-linter's ``lint-imports`` in this process on ``config`` (no cache): whether
    every contract is kept, and what it printed (each contract KEPT or BROKEN, and why).
    Its own function, not the command's: the command also sets up logging for the whole
    process (``dictConfig``, which would silence the other tests' loggers)."""
    from importlinter import api  # noqa: F401  (sets import-linter up: its config readers)
    from importlinter.application import use_cases

    capsys.readouterr()
    kept = use_cases.lint_imports(config_filename=str(config), cache_dir=None, no_logo=True)
    return kept, capsys.readouterr().out


def test_the_import_contracts_are_kept(capsys):
    """pyproject.toml's [tool.importlinter] contracts: the layers, the independent surfaces
    and the layers inside game/, store/, web/, commands/ and hal/."""
    kept, out = lint_imports(PYPROJECT, capsys)
    broken = [line for line in out.splitlines() if "BROKEN" in line]
    assert kept and "0 broken" in out, "\n".join(broken) + "\n\n" + out


def test_the_import_contracts_see_a_broken_layer(tmp_path, monkeypatch, capsys):
    """A lazy import and one under ``TYPE_CHECKING`` upwards both break a layers contract,
    named with its import (so the test above can fail)."""
    package = tmp_path / "layered"
    files = {
        "__init__.py": "",
        "low.py": "def f():\n    from . import high\n    return high\n",
        "high.py": "from . import low\n",
        "other/__init__.py": "",
        "other/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                      "    from layered.other import b\n",
        "other/b.py": "",
    }
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    config = tmp_path / "pyproject.toml"
    config.write_text(
        '[tool.importlinter]\nroot_package = "layered"\n\n'
        '[[tool.importlinter.contracts]]\nid = "one"\nname = "high over low"\n'
        'type = "layers"\nlayers = ["layered.high", "layered.low"]\n\n'
        '[[tool.importlinter.contracts]]\nid = "two"\nname = "b over a"\n'
        'type = "layers"\ncontainers = ["layered.other"]\nlayers = ["b", "a"]\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    kept, out = lint_imports(config, capsys)
    assert not kept
    assert "high over low BROKEN" in out and "b over a BROKEN" in out
    assert "layered.low is not allowed to import layered.high" in out
    assert "layered.other.a is not allowed to import layered.other.b" in out


MOST_COMPLEX = 30
"""Issue 39: no function ranks worse than D in radon (cyclomatic complexity <= 30)."""


def too_complex(package: Path) -> list[str]:
    """Every function, method and closure of ``package`` whose cyclomatic complexity
    (radon's) is above :data:`MOST_COMPLEX`, spelled ``sim/steps.py:77 run_step 31``."""
    from radon.complexity import add_inner_blocks, cc_visit
    from radon.visitors import Function

    found = set()
    for path in sorted(package.rglob("*.py")):
        for block in add_inner_blocks(cc_visit(path.read_text())):
            if isinstance(block, Function) and block.complexity > MOST_COMPLEX:
                found.add(f"{path.relative_to(package)}:{block.lineno} {block.fullname} "
                          f"{block.complexity}")
    return sorted(found)


def test_no_function_ranks_worse_than_d_in_radon():
    assert too_complex(PACKAGE) == []


def test_the_complexity_check_names_a_function_above_30(tmp_path):
    """McCabe's count is one more than a function's decisions: 30 ``if`` are 31 and named,
    29 are 30 and not; a method and a closure are looked at too (so the test above can
    fail)."""
    def ifs(n: int, indent: str) -> str:
        return "".join(f"{indent}if x == {i}:\n{indent}    x += 1\n" for i in range(n))
    (tmp_path / "pkg" / "deep").mkdir(parents=True)
    (tmp_path / "pkg" / "fine.py").write_text("def f(x):\n" + ifs(29, "    "))
    (tmp_path / "pkg" / "deep" / "over.py").write_text(
        "def g(x):\n" + ifs(30, "    ")
        + "class C:\n    def m(self, x):\n" + ifs(31, "        ")
        + "def outer(x):\n    def inner(x):\n" + ifs(30, "        ") + "    return inner\n")
    assert sorted(too_complex(tmp_path / "pkg"), key=lambda s: int(s.split(":")[1].split()[0])) \
        == ["deep/over.py:1 g 31", "deep/over.py:63 C.m 32", "deep/over.py:127 outer.inner 31"]


@pytest.mark.parametrize("package", ["shutbox_hw.rules", "shutbox_hw.game",
                                     "shutbox_hw.game.machine.controller", "shutbox_hw.strategy"])
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


@pytest.mark.parametrize("module", ["shutbox_hw", "shutbox_hw.commands.cli"])
def test_the_command_runs_from_the_package(module):
    """``python -m shutbox_hw`` is the ``shutbox-hw`` command, wherever its parser sits."""
    done = subprocess.run([sys.executable, "-m", module, "rules", "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: shutbox-hw rules")
