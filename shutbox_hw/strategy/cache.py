"""The solved tables on disk, so the box never recomputes them at start-up.

One JSON file per rule set under ``$XDG_CACHE_HOME/shutbox-hw`` (default
``~/.cache/shutbox-hw``), named by the rule keys that change the answer and
a format version. The cache is only a speed-up: a missing, corrupt,
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
from .tables import OBJECTIVES, Solution, rules_key, solve_all

FORMAT_VERSION = 1
_LOADED: dict[tuple, Solver] = {}


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


def cache_file(directory: Path, rules: RuleSet) -> Path:
    tiles, closure, multiplication, one_die, scoring = rules_key(rules)
    product = "times" if multiplication else "plain"
    return directory / f"solver-v{FORMAT_VERSION}-{tiles}-{closure}-{product}-{one_die}-{scoring}.json"


def _encode(rules: RuleSet, solver: Solver) -> str:
    return json.dumps({
        "format": FORMAT_VERSION,
        "rules_key": list(rules_key(rules)),
        "tables": {
            name: {
                "expected_score": list(table.expected_score),
                "shut_probability": list(table.shut_probability),
                "dice_count": list(table.dice_count),
            }
            for name, table in solver.tables.items()
        },
    })


def _floats(values: Any, size: int) -> list[float] | None:
    if (isinstance(values, list) and len(values) == size
            and all(type(x) is float and math.isfinite(x) for x in values)):
        return values
    return None


def _decode(rules: RuleSet, text: str) -> Solver | None:
    """The tables in ``text`` if they are complete and for these rules."""
    data = json.loads(text)
    if (not isinstance(data, dict) or data.get("format") != FORMAT_VERSION
            or data.get("rules_key") != list(rules_key(rules))
            or not isinstance(data.get("tables"), dict)):
        return None
    size = 1 << rules.tiles
    tables: dict[str, Solution] = {}
    for objective in OBJECTIVES:
        entry = data["tables"].get(objective)
        if not isinstance(entry, dict):
            return None
        score = _floats(entry.get("expected_score"), size)
        shut = _floats(entry.get("shut_probability"), size)
        counts = entry.get("dice_count")
        if (score is None or shut is None or not isinstance(counts, list)
                or len(counts) != size or any(c not in (0, 1, 2) for c in counts)):
            return None
        tables[objective] = Solution(rules_key(rules), objective, score, shut, bytes(counts))
    return Solver(rules, tables)


def _load(path: Path, rules: RuleSet) -> Solver | None:
    try:
        return _decode(rules, path.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None


def _save(path: Path, rules: RuleSet, solver: Solver) -> None:
    """Write the file atomically (temp file + rename); give up quietly."""
    temp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(_encode(rules, solver))
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


def solve_both(rules: RuleSet) -> Solver:
    """Both objectives' float tables, computed now."""
    return Solver(rules, solve_all(rules))


def solver_for(rules: RuleSet, cache_dir: Path | str | None = None) -> Solver:
    """The tables for ``rules``: from memory, else from the disk cache, else
    solved (and then written to the cache). ``cache_dir`` overrides the XDG
    default (tests use it)."""
    key = rules_key(rules)
    if key in _LOADED:
        return _LOADED[key]
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    path = cache_file(directory, rules) if directory is not None else None
    solver = _load(path, rules) if path is not None else None
    if solver is None:
        solver = solve_both(rules)
        if path is not None:
            _save(path, rules, solver)
    _LOADED[key] = solver
    return solver


def forget_loaded() -> None:
    """Drop the in-memory tables (tests and benchmarks start cold with it)."""
    _LOADED.clear()
