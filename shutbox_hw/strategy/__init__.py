"""Optimal play: exact single-turn strategy for every rule set the engine takes.

The game and ``shutbox-hw solve`` ask :func:`solver_for` for a rule set's
:class:`Solver` (tables from memory, then disk, then a solve of well under
a second, one objective at a time).
"""

from __future__ import annotations

from .cache import default_cache_dir, forget_loaded, solver_for
from .solver import Solver, TableStore
from .tables import OBJECTIVES, Moves, Number, Objective, ObjectiveError, Solution, moves_for, solve

__all__ = [
    "OBJECTIVES", "Moves", "Number", "Objective", "ObjectiveError", "Solution", "Solver",
    "TableStore", "default_cache_dir", "forget_loaded", "moves_for", "solve", "solver_for",
]
