"""Short texts for a 128-pixel-wide screen: tile lists, throws, reasons."""

from __future__ import annotations

from collections.abc import Iterable

from ...base.i18n import ngettext, tr
from ...rules import Dice, RuleSet


def signed(n: int) -> str:
    """A pool's balance as every screen writes it: "+2", "0", "-3" (the OLED's
    scoreboard, the TV, ``history --game``)."""
    return f"{n:+d}" if n else "0"


def tile_ranges(tiles: Iterable[int]) -> str:
    """``[1, 2, 3, 4, 7]`` -> ``"1-4, 7"`` (a runs of three or more become a range)."""
    tiles = sorted(tiles)
    parts: list[str] = []
    i = 0
    while i < len(tiles):
        j = i
        while j + 1 < len(tiles) and tiles[j + 1] == tiles[j] + 1:
            j += 1
        if j - i >= 2:
            parts.append(f"{tiles[i]}-{tiles[j]}")
        else:
            parts.extend(str(t) for t in tiles[i:j + 1])
        i = j + 1
    return ", ".join(parts)


def throw_text(rules: RuleSet, dice: Dice) -> str:
    """``3+4``; ``4+6 or 4x6`` with the multiplication rule; ``5`` for one die."""
    if len(dice) == 1:
        return str(dice[0])
    text = f"{dice[0]}+{dice[1]}"
    if rules.multiplication:
        text = tr("{sum} or {product}").format(sum=text, product=f"{dice[0]}x{dice[1]}")
    return text


def shut_text(rules: RuleSet, dice: Dice) -> str:
    """What to shut for a throw, in words that cannot be read as flap numbers
    ("shut 5+4" read as "shut flaps 5 and 4", and "shut 1+1" as nothing):
    ``shut flaps: total 9``; ``shut: total 10 or 24`` with the multiplication rule;
    under sum-or-dice, where the dice's own flaps are a move too,
    ``shut 9, or 5 and 4`` (``shut flap 9`` for a double or one die)."""
    total = sum(dice)
    if rules.closure == "sum-or-dice":
        if len(dice) == 2 and dice[0] != dice[1]:
            return tr("shut {total}, or {a} and {b}").format(total=total, a=dice[0], b=dice[1])
        return tr("shut flap {total}").format(total=total)
    if rules.multiplication and len(dice) == 2:
        return tr("shut: total {total} or {product}").format(total=total,
                                                           product=dice[0] * dice[1])
    return tr("shut flaps: total {total}").format(total=total)


def throw_sum_text(rules: RuleSet, dice: Dice) -> str:
    """What a throw makes: ``4+6 is 10``; ``4+6 is 10 or 4x6 is 24``; ``the die is 5``."""
    if len(dice) == 1:
        return tr("the die is {n}").format(n=dice[0])
    text = tr("{dice} is {n}").format(dice=f"{dice[0]}+{dice[1]}", n=dice[0] + dice[1])
    if rules.multiplication:
        product = tr("{dice} is {n}").format(dice=f"{dice[0]}x{dice[1]}", n=dice[0] * dice[1])
        text = tr("{sum} or {product}").format(sum=text, product=product)
    return text


def flaps_word(tiles: Iterable[int]) -> str:
    tiles = list(tiles)
    return ngettext("flap {flaps}", "flaps {flaps}", len(tiles)).format(
        flaps=tile_ranges(tiles))


def wrong_dice_text(rules: RuleSet, thrown: int, wanted: tuple[int, ...]) -> str:
    """Why a throw of ``thrown`` dice is refused, and what to throw instead:
    the rule that decides, not just the count ("1 dice: 2 wanted" told nothing)."""
    if thrown == 1:
        why = {"never": tr("this game never uses 1 die"),
               "when-high-shut": tr("1 die only once 7-{last} are shut").format(last=rules.tiles),
               "below-6": tr("1 die only when under 6 is open")}[rules.one_die]
        return tr("throw 2 dice: {why}").format(why=why)
    if wanted == (1,):
        return tr("throw 1 die: the open flaps add up under 6")
    want = tr(" or ").join(str(n) for n in wanted)
    return tr("throw {wanted} dice, not {thrown}").format(wanted=want, thrown=thrown)
