"""Argument pieces shared by several commands."""

from __future__ import annotations

import argparse
from typing import Any

from ..base.errors import UserError
from ..rules import RuleSet, mask_of, parse_set_options, rules_from_table


def add_rules_options(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    parser.add_argument("--rules", metavar="PRESET", required=required,
                        help="rule preset (klappenspiel, crafthouse-12, pub)")
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        dest="set", help="override one rule key (repeatable)")


def rules_from_args(args: argparse.Namespace, table: dict[str, Any] | None = None) -> RuleSet:
    """The rule set from a config ``[rules]`` table, ``--rules`` and ``--set``."""
    return rules_from_table(table or {}, parse_set_options(args.set), preset=args.rules)


def parse_tile_list(text: str, n_tiles: int, what: str = "--open") -> int:
    """``"1,5,9"``, ``"all"`` or ``"none"`` -> a mask, checked against the board.

    An empty list and a tile named twice are refused: both are typing
    mistakes more often than intent (``none`` says "no tiles" on purpose)."""
    text = text.strip()
    if text.lower() == "all":
        return mask_of(range(1, n_tiles + 1))
    if text.lower() == "none":
        return 0
    if not text:
        raise UserError(f"{what}: empty; give tile numbers (1,5,9), 'all' or 'none'")
    tiles: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        try:
            tile = int(part)
        except ValueError:
            raise UserError(f"{what}: {part!r} is not a tile number") from None
        if not 1 <= tile <= n_tiles:
            raise UserError(f"{what}: tile {tile} is outside 1..{n_tiles}")
        if tile in tiles:
            raise UserError(f"{what}: tile {tile} is named twice")
        tiles.append(tile)
    return mask_of(tiles)


def parse_dice(values: list[str] | None) -> tuple[int, ...] | None:
    if values is None:
        return None
    dice = []
    for value in values:
        try:
            dice.append(int(value))
        except ValueError:
            raise UserError(f"--dice: {value!r} is not a die face") from None
    if len(dice) > 2:
        raise UserError(f"--dice: a throw has one or two dice, not {len(dice)}")
    for face in dice:
        if not 1 <= face <= 6:
            raise UserError(f"--dice: die face {face} is outside 1..6")
    return tuple(dice)
