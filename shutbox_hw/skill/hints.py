"""Hints on the box: the solver's tables behind the controller's Advisor port.

The real daemon and the simulator both get their advisor here. Tables come
from the disk cache (see :mod:`shutbox_hw.strategy.cache`), so start-up does
not recompute them; when they must be solved (a cold cache, rules changed on
the operator menu) that takes 0.1-0.3 s here and seconds on a Zero 2 W, so it
happens on a worker thread, never on the loop: until the tables are ready
the advisor says so (:meth:`SolverAdvisor.ready`), the hints show "not ready"
and the game plays on. The solve itself runs in a child process that writes
the disk cache, which the worker then reads: a pure-Python solve on a thread
of the daemon would hold the GIL, and every step of the loop would wait for
it (measured: steps of 200-370 ms instead of under 35).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..rules import Dice, Mask, RuleSet

if TYPE_CHECKING:
    from ..config.config_file import Config
    from ..strategy.solver import Solver

log = logging.getLogger("shutbox_hw")


SOLVE_TIMEOUT_S = 600   # a Zero 2 W solves the largest rule set in well under this


def _solver(rules: RuleSet, objectives: tuple[str, ...] = ("min-score", "max-shut")) -> Solver:
    """The rule set's solver with its tables on disk: solved in a child process
    (then read from the cache) unless they are in memory or on disk already."""
    from ..strategy import default_cache_dir, solver_for
    from ..strategy.cache import _LOADED, cache_file
    from ..strategy.tables import rules_key
    directory = default_cache_dir()
    if directory is not None and rules_key(rules) not in _LOADED and not all(
            cache_file(directory, rules, o).exists() for o in objectives):  # type: ignore[arg-type]
        try:
            subprocess.run([sys.executable, "-c", "from shutbox_hw.skill.hints import solve_child; "
                            "solve_child()"], input=json.dumps(
                                {"rules": rules.as_dict(), "objectives": list(objectives)}),
                           text=True, check=True, timeout=SOLVE_TIMEOUT_S, capture_output=True)
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("hints: solving in a child process failed (%s); solving here", exc)
    return solver_for(rules)


def solve_child() -> None:
    """The child process: solve the tables named on stdin into the disk cache, at a
    low priority, so that on a busy CPU the daemon's loop goes first."""
    import os
    try:
        os.nice(10)
    except OSError:
        pass
    from ..rules import rules_from_dict
    from ..strategy import solver_for
    request = json.loads(sys.stdin.read())
    solver = solver_for(rules_from_dict(request["rules"]))
    for objective in request["objectives"]:
        solver.solution(objective)


class SolverAdvisor:
    """Best closures for one objective; chances always under max-shut play.

    ``make_solver(rules)`` builds the solver on the worker thread, where both
    tables the hints read are made before :meth:`ready` turns true.
    """

    def __init__(self, rules: RuleSet, objective: str = "min-score", *,
                 make_solver: Callable[[RuleSet], Any] = _solver) -> None:
        self.objective = objective
        self.rules = rules
        self.solver: Solver | None = None
        self.failed: str | None = None
        self._ready = threading.Event()
        self._worker = threading.Thread(target=self._prepare, args=(make_solver,),
                                        name="hint-solver", daemon=True)
        self._worker.start()

    def _prepare(self, make_solver: Callable[[RuleSet], Any]) -> None:
        try:
            solver = make_solver(self.rules)
            for objective in sorted({self.objective, "max-shut"}):
                solver.solution(objective)
            self.solver = solver
        except Exception as exc:  # noqa: BLE001 - hints are optional; the game is not
            self.failed = f"{type(exc).__name__}: {exc}"
            log.exception("hints: the solver failed; the box plays without hints")
        finally:
            self._ready.set()

    def ready(self) -> bool:
        """The tables are made (read by the loop: never waits)."""
        return self._ready.is_set() and self.solver is not None

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until the worker is done (the simulator, tests, benchmarks)."""
        self._ready.wait(timeout)
        return self.ready()

    def best_closure(self, open_mask: Mask, dice: Dice) -> Mask | None:
        if not self.ready() or self.solver is None:
            return None
        return self.solver.best_closure(self.objective, open_mask, dice)

    def shut_probability(self, open_mask: Mask) -> float:
        return float(self._made().shut_probability(open_mask))

    def move_probability(self, open_mask: Mask) -> float:
        return float(self._made().move_probability(open_mask))

    def _made(self) -> Solver:
        """The solver, once its tables are made (the controller asks only then)."""
        if self.solver is None:
            raise RuntimeError("hints asked for before their tables were made")
        return self.solver


def advisor_for(config: Config) -> SolverAdvisor | None:
    """None when hints are off (the solver is not even loaded); else an advisor
    whose tables are being made on a worker thread."""
    if config.game.hints == "off":
        return None
    return SolverAdvisor(config.rules, config.game.hint_objective)


def ready_advisor_for(config: Config) -> SolverAdvisor | None:
    """:func:`advisor_for`, waited for: on the simulator's virtual clock a solve
    takes no time, so its games are the same on any machine."""
    advisor = advisor_for(config)
    if advisor is not None:
        advisor.wait_ready()
    return advisor
