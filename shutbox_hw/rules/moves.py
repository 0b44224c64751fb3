"""What a player may do: the dice to throw and the tiles a throw lets them shut.

All functions are pure and work on masks (see :mod:`.tiles`). The questions
the box asks flap by flap, given the legal closures, are a throw's methods
(:mod:`.position`).
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import combinations_with_replacement
from typing import Literal

from .ruleset import RulesError, RuleSet
from .tiles import Mask, full_board, is_subset, tile_bit, tiles_of

DiceChoice = Literal["two", "one-or-two", "one"]
Dice = tuple[int, ...]

TWO_DICE_THROWS: tuple[Dice, ...] = tuple(combinations_with_replacement(range(1, 7), 2))
ONE_DIE_THROWS: tuple[Dice, ...] = tuple((face,) for face in range(1, 7))


def dice_choice(rules: RuleSet, open_mask: Mask) -> DiceChoice:
    """How many dice the next throw uses for these open tiles."""
    if rules.one_die == "when-high-shut":
        high_open = open_mask >> 6  # tiles 7 and up
        return "two" if high_open else "one-or-two"
    if rules.one_die == "below-6":
        return "one" if sum(tiles_of(open_mask)) < 6 else "two"
    return "two"


def allowed_dice_counts(choice: DiceChoice) -> tuple[int, ...]:
    return {"two": (2,), "one": (1,), "one-or-two": (1, 2)}[choice]


def throws_for(choice: DiceChoice) -> tuple[Dice, ...]:
    """Every distinct throw (faces ascending) the choice allows."""
    throws: tuple[Dice, ...] = ()
    if 1 in allowed_dice_counts(choice):
        throws += ONE_DIE_THROWS
    if 2 in allowed_dice_counts(choice):
        throws += TWO_DICE_THROWS
    return throws


_ONE_DIE_REASONS = {
    "never": "one_die = never: always two dice",
    "when-high-shut": "one_die = when-high-shut: one die only once every tile from 7 up is shut",
    "below-6": "one_die = below-6: one die only when the open tiles add up to less than 6",
}


def check_dice(rules: RuleSet, open_mask: Mask, dice: Dice, *,
               allow_one_die: bool = False) -> None:
    """Raise :class:`RulesError` unless ``dice`` is a throw the rules allow here.

    ``allow_one_die`` lets a referee ask about a single face even where the
    rules call for two dice (the seeds speak of "a 4").
    """
    if len(dice) not in (1, 2):
        raise RulesError(f"a throw has one or two dice, not {len(dice)}")
    for face in dice:
        if not 1 <= face <= 6:
            raise RulesError(f"die face {face} is outside 1..6")
    choice = dice_choice(rules, open_mask)
    counts = allowed_dice_counts(choice) + ((1,) if allow_one_die else ())
    if len(dice) not in counts:
        wanted = "one die" if choice == "one" else "two dice"
        raise RulesError(f"the rules call for {wanted} with these tiles open, not {len(dice)}"
                         f" ({_ONE_DIE_REASONS[rules.one_die]})")


@cache
def _subsets_by_sum_and_product(n_tiles: int) -> tuple[dict[int, tuple[Mask, ...]],
                                                       dict[int, tuple[Mask, ...]]]:
    """Every non-empty set of tiles, indexed by its sum and by its product."""
    by_sum: dict[int, list[Mask]] = {}
    by_product: dict[int, list[Mask]] = {}
    for mask in range(1, full_board(n_tiles) + 1):
        tiles = tiles_of(mask)
        product = 1
        for tile in tiles:
            product *= tile
        by_sum.setdefault(sum(tiles), []).append(mask)
        if product <= 36:  # no pair of dice multiplies to more
            by_product.setdefault(product, []).append(mask)
    return ({k: tuple(v) for k, v in by_sum.items()},
            {k: tuple(v) for k, v in by_product.items()})


def targets(rules: RuleSet, dice: Dice) -> tuple[int, ...]:
    """The numbers a throw lets the player make (the sum; with the
    multiplication rule also the product of two dice)."""
    total = sum(dice)
    if rules.multiplication and len(dice) == 2 and dice[0] * dice[1] != total:
        return (total, dice[0] * dice[1])
    return (total,)


@lru_cache(maxsize=1 << 16)
def _closures(tiles: int, closure: str, multiplication: bool,
              open_mask: Mask, dice: Dice) -> tuple[Mask, ...]:
    found: set[Mask] = set()
    if closure == "sum-or-dice":
        total = sum(dice)
        if total <= tiles:
            found.add(tile_bit(total))
        if len(dice) == 2 and dice[0] != dice[1]:
            found.add(tile_bit(dice[0]) | tile_bit(dice[1]))
    else:
        by_sum, by_product = _subsets_by_sum_and_product(tiles)
        total = sum(dice)
        goals = [total]
        if multiplication and len(dice) == 2:
            goals.append(dice[0] * dice[1])
        for goal in goals:
            found.update(by_sum.get(goal, ()))
            if multiplication:
                found.update(by_product.get(goal, ()))
    return tuple(sorted(m for m in found if is_subset(m, open_mask)))


def legal_closures(rules: RuleSet, open_mask: Mask, dice: Dice) -> tuple[Mask, ...]:
    """Every set of open tiles the throw lets the player shut (ascending masks)."""
    dice = tuple(sorted(dice))
    return _closures(rules.tiles, rules.closure, rules.multiplication,
                     open_mask & full_board(rules.tiles), dice)


def has_any_move(rules: RuleSet, open_mask: Mask, dice: Dice) -> bool:
    return bool(legal_closures(rules, open_mask, dice))
