"""``shutbox-hw moves``: a referee's question answered by the rules engine."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ...rules import check_dice, dice_choice, legal_closures, targets, tiles_of, turn_score
from ..common import add_rules_options, parse_dice, parse_tile_list, rules_from_args


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("moves", help="legal closures, dice and score for a position")
    add_rules_options(p)
    p.add_argument("--open", required=True, metavar="LIST",
                   help="open tiles: comma-separated numbers, 'all' or 'none'")
    p.add_argument("--dice", nargs="+", metavar="FACE",
                   help="the throw: two faces, or one where the rules call for one die")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    open_mask = parse_tile_list(args.open, rules.tiles)
    dice = parse_dice(args.dice)
    answer: dict[str, Any] = {
        "open": tiles_of(open_mask),
        "dice_choice": dice_choice(rules, open_mask),
        "score": turn_score(rules, open_mask),
    }
    if dice is not None:
        check_dice(rules, open_mask, dice)   # the same throws as solve and the box accept
        answer["dice"] = list(dice)
        answer["targets"] = list(targets(rules, dice))
        answer["closures"] = sorted(tiles_of(c) for c in legal_closures(rules, open_mask, dice))
    if args.json:
        print(json.dumps(answer))
        return 0
    print(f"open tiles: {', '.join(map(str, answer['open'])) or 'none'}")
    print(f"dice: {answer['dice_choice'].replace('-', ' ')}")
    if dice is not None:
        throw = _throw_words(dice, answer["targets"])
        if answer["closures"]:
            print(f"{throw} lets you shut:")
            for closure in answer["closures"]:
                print("  " + ", ".join(map(str, closure)))
        else:
            print(f"{throw}: no move, the turn ends")
    print(f"score if the turn ended now: {answer['score']}")
    return 0


def _throw_words(dice: tuple[int, ...], goals: list[int]) -> str:
    """The throw as the numbers the rules really use: "4 + 6 (10)", or with
    the multiplication rule "4 + 6 (10) or 4 x 6 (24)"."""
    words = [f"{' + '.join(map(str, dice))} ({goals[0]})" if len(dice) == 2 else str(dice[0])]
    if len(goals) > 1:
        words.append(f"{dice[0]} x {dice[1]} ({goals[1]})")
    return " or ".join(words)
