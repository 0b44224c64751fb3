"""Solve times of the optimal-play tables (both objectives): cold, from the disk cache, exact.

Run: .venv/bin/python benchmarks/solver.py [--runs N]
Prints medians of N runs (default 7); the machine is shared, so the median
is the figure to quote, not a test threshold.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from shutbox_hw.rules import RuleSet, build_rules, full_board
from shutbox_hw.strategy import OBJECTIVES, Solver, forget_loaded, solve, solver_for

CASES: list[tuple[str, RuleSet]] = [
    ("9 tiles (klappenspiel)", build_rules("klappenspiel")),
    ("9 tiles, multiplication", build_rules("klappenspiel", {"multiplication": "true"})),
    ("12 tiles (crafthouse-12)", build_rules("crafthouse-12")),
    ("12 tiles, multiplication", build_rules("crafthouse-12", {"multiplication": "true"})),
]


def median_seconds(action: Callable[[], object], runs: int,
                   before: Callable[[], object] = lambda: None) -> float:
    times = []
    for _ in range(runs):
        before()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def both(solver: Solver) -> Solver:
    """Make (or load) both objectives' tables, as the hints need them."""
    for objective in OBJECTIVES:
        solver.solution(objective)
    return solver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    print(f"median of {runs} runs, both objectives, milliseconds")
    print(f"{'rule set':<28}{'solve':>9}{'cold+write':>12}{'from disk':>11}{'in memory':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, rules in CASES:
            directory = Path(tmp) / label.replace(" ", "_")

            def empty_cache(directory: Path = directory) -> None:
                forget_loaded()
                for path in directory.glob("*"):
                    path.unlink()

            compute = median_seconds(lambda: both(Solver(rules)), runs)
            cold = median_seconds(lambda: both(solver_for(rules, directory)), runs, empty_cache)
            disk = median_seconds(lambda: both(solver_for(rules, directory)), runs, forget_loaded)
            memory = median_seconds(lambda: both(solver_for(rules, directory)), runs)
            print(f"{label:<28}{compute * 1e3:>9.1f}{cold * 1e3:>12.1f}"
                  f"{disk * 1e3:>11.1f}{memory * 1e3:>11.4f}")
    rules = build_rules("klappenspiel")
    exact = median_seconds(lambda: solve(rules, "max-shut", exact=True), max(3, runs // 2))
    value = solve(rules, "max-shut", exact=True).shut_probability[full_board(9)]
    print(f"exact max-shut, klappenspiel: {exact * 1e3:.1f} ms ({value})")
    rules = build_rules("crafthouse-12", {"multiplication": "true"})
    exact = median_seconds(lambda: solve(rules, "max-shut", exact=True), 3)
    print(f"exact max-shut, 12 tiles with multiplication: {exact * 1e3:.1f} ms")
    forget_loaded()


if __name__ == "__main__":
    main()
