"""The solved tables on disk, so the box never recomputes them at start-up.

One JSON file per rule set and objective under ``$XDG_CACHE_HOME/shutbox-hw``
(default ``~/.cache/shutbox-hw``), named by the rule keys that change the
answer, the objective and a format version. The cache is only a speed-up: a missing, corrupt,
unreadable or unwritable file means "solve again", never an error.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..rules import RuleSet
from .solver import Solver
from .tables import Objective, Solution, rules_key

FORMAT_VERSION = 2
_LOADED: dict[tuple[int, str, bool, str, str], Solver] = {}


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """``$XDG_CACHE_HOME/shutbox-hw``, else ``~/.cache/shutbox-hw``; None if
    there is no home to put it in. A relative XDG path is ignored (XDG spec)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    if base and os.path.isabs(base):
        return Path(base) / "shutbox-hw"
    try:
        return Path.home() / ".cache" / "shutbox-hw"
    except RuntimeError:
        return None


def cache_file(directory: Path, rules: RuleSet, objective: Objective) -> Path:
    tiles, closure, multiplication, one_die, scoring = rules_key(rules)
    product = "times" if multiplication else "plain"
    return directory / (f"solver-v{FORMAT_VERSION}-{tiles}-{closure}-{product}-{one_die}"
                        f"-{scoring}-{objective}.json")


def _encode(rules: RuleSet, table: Solution) -> str:
    return json.dumps({
        "format": FORMAT_VERSION,
        "rules_key": list(rules_key(rules)),
        "objective": table.objective,
        "expected_score": list(table.expected_score),
        "shut_probability": list(table.shut_probability),
        "dice_count": list(table.dice_count),
    })


def _floats(values: Any, size: int) -> list[float] | None:
    if (isinstance(values, list) and len(values) == size
            and all(type(x) is float and math.isfinite(x) for x in values)):
        return values
    return None


def _decode(rules: RuleSet, objective: Objective, text: str) -> Solution | None:
    """The table in ``text`` if it is complete and for these rules and objective."""
    data = json.loads(text)
    if (not isinstance(data, dict) or data.get("format") != FORMAT_VERSION
            or data.get("rules_key") != list(rules_key(rules))
            or data.get("objective") != objective):
        return None
    size = 1 << rules.tiles
    score = _floats(data.get("expected_score"), size)
    shut = _floats(data.get("shut_probability"), size)
    counts = data.get("dice_count")
    if (score is None or shut is None or not isinstance(counts, list)
            or len(counts) != size or any(c not in (0, 1, 2) for c in counts)):
        return None
    return Solution(rules_key(rules), objective, score, shut, bytes(counts))


class DiskTables:
    """One JSON file per rule set and objective in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def load(self, rules: RuleSet, objective: Objective) -> Solution | None:
        try:
            text = cache_file(self.directory, rules, objective).read_text(encoding="utf-8")
            return _decode(rules, objective, text)
        except (OSError, ValueError, TypeError):
            return None

    def save(self, rules: RuleSet, solution: Solution) -> None:
        """Write the file atomically (temp file + rename); give up quietly."""
        path = cache_file(self.directory, rules, solution.objective)
        temp = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(_encode(rules, solution))
            os.replace(temp, path)
            temp = None
        except OSError:
            pass
        finally:
            if temp is not None:
                try:
                    os.unlink(temp)
                except OSError:
                    pass


def solver_for(rules: RuleSet, cache_dir: Path | str | None = None) -> Solver:
    """The solver for ``rules``, kept in memory; its tables come from the disk
    cache, else are solved when first asked for (and then written to the
    cache). ``cache_dir`` overrides the XDG default (tests use it)."""
    key = rules_key(rules)
    if key in _LOADED:
        return _LOADED[key]
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    solver = Solver(rules, DiskTables(directory) if directory is not None else None)
    _LOADED[key] = solver
    return solver


def forget_loaded() -> None:
    """Drop the in-memory tables (tests and benchmarks start cold with it)."""
    _LOADED.clear()
