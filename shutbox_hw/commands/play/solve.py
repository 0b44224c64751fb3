"""``shutbox-hw solve``: the value of a position under optimal play."""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import Any

from ...rules import check_dice, full_board, tiles_of
from ...strategy import OBJECTIVES, Solver, solve, solver_for
from ..common import add_rules_options, parse_dice, parse_tile_list, rules_from_args


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("solve", help="expected score and chance to shut under optimal play")
    add_rules_options(p)
    p.add_argument("--objective", choices=OBJECTIVES, default="min-score",
                   help="what optimal play aims for (default min-score)")
    p.add_argument("--open", metavar="LIST", default="all",
                   help="open tiles: comma-separated numbers, or 'all' (default)")
    p.add_argument("--dice", nargs="+", metavar="FACE",
                   help="a throw: rank its legal closures")
    p.add_argument("--exact", action="store_true", help="also give exact fractions")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(run=run)


def _fraction(value: float | Fraction) -> str:
    """``value`` from an exact solve is a Fraction already; Fraction() keeps it exact."""
    exact = Fraction(value)
    return f"{exact.numerator}/{exact.denominator}"


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    open_mask = parse_tile_list(args.open, rules.tiles)
    dice = parse_dice(args.dice)
    if dice is not None:
        check_dice(rules, open_mask, dice)
    objective = args.objective
    solver: Solver = solver_for(rules)
    table = solver.solution(objective)
    answer: dict[str, Any] = {
        "objective": objective,
        "open": tiles_of(open_mask),
        "expected_score": float(table.expected_score[open_mask]),
        "shut_probability": float(table.shut_probability[open_mask]),
    }
    if args.exact:
        exact = solve(rules, objective, exact=True, moves=solver.moves())
        answer["expected_score_exact"] = _fraction(exact.expected_score[open_mask])
        answer["shut_probability_exact"] = _fraction(exact.shut_probability[open_mask])
    if dice is not None:
        ranked = solver.closure_values(objective, open_mask, dice)
        answer["dice"] = list(dice)
        answer["best"] = tiles_of(ranked[0][0]) if ranked else None
        answer["closures"] = [{"closure": tiles_of(c), "value": float(v)} for c, v in ranked]
    if args.json:
        print(json.dumps(answer))
        return 0
    _print(answer, full=open_mask == full_board(rules.tiles))
    return 0


def _print(answer: dict[str, Any], *, full: bool) -> None:
    where = "the full board" if full else (", ".join(map(str, answer["open"])) or "no tiles")
    print(f"open: {where}; optimal play for {answer['objective']}")
    exact_score = answer.get("expected_score_exact")
    exact_shut = answer.get("shut_probability_exact")
    print(f"expected score: {answer['expected_score']:.7f}"
          + (f" ({exact_score})" if exact_score else ""))
    print(f"chance to shut the box: {answer['shut_probability']:.10f}"
          + (f" ({exact_shut})" if exact_shut else ""))
    if "dice" in answer:
        throw = " + ".join(map(str, answer["dice"]))
        if answer["best"] is None:
            print(f"{throw}: no move, the turn ends")
            return
        what = "expected score" if answer["objective"] == "min-score" else "chance to shut"
        print(f"{throw}: shut {', '.join(map(str, answer['best']))}")
        print(f"every closure ({what} after it, best first):")
        for entry in answer["closures"]:
            print(f"  {', '.join(map(str, entry['closure'])):<12} {entry['value']:.7f}")
