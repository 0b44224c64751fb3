"""Luck beside skill (issue 41, item 4): how much of a player's result came from the dice.

The solver knows, before every throw, what the player could expect from here by
playing on as well as possible: with ``n`` dice about to be thrown from the open
tiles ``S``, ``D(S, n)`` (the average over the throws of the best the throw allows),
and, once the dice show, ``B(S, dice)``: the best the throw allows (the best closure's
value, or the turn's end when no closure is left). The dice's share of that throw is
``D - B``: points of expected score the throw gave (positive: kinder than average)
or took (negative). A turn's luck is the sum over its throws, a game's over the
player's turns, a season's over the season's games.

Where a rule set is rated by its penalty (``min-score``: klappenspiel, crafthouse-12)
the figure is in points of turn score, and for every turn

    luck = (expected score at the start + the points the player's own moves lost)
           - the score the turn ended with,

the solver's expected final score of the player's own decisions against what the dice
gave. Where shutting is all (``max-shut``: pub) it is in percentage points of the
chance to shut. A turn with a throw the box did not see (manual dice) has no luck
figure and is left out (``turns`` says how many were measured).

A game's luck is a fact of its record (its throws never change), so the league keeps
it per game once (table ``kept_luck``); ``league rebuild`` computes it again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..rules import Dice, Mask, RuleSet, legal_closures, mask_of, rules_from_dict
from ..strategy.rating import Rater, Tables


class Meter:
    """The luck of throws under one rule set (its rater's table; values memoised)."""

    def __init__(self, rules: RuleSet, tables: Tables) -> None:
        self.rater = Rater(rules, tables)
        self.rules = rules
        self._dice: dict[tuple[Mask, int], float] = {}
        self._best: dict[tuple[Mask, Dice], float] = {}

    def expected(self, open_mask: Mask, count: int) -> float:
        """D: the value of throwing ``count`` dice from ``open_mask``."""
        key = (open_mask, count)
        if key not in self._dice:
            self._dice[key] = self.rater.dice_value(open_mask, count)
        return self._dice[key]

    def given(self, open_mask: Mask, dice: Dice) -> float:
        """B: the best value the thrown ``dice`` allow from ``open_mask``."""
        key = (open_mask, tuple(sorted(dice)))
        if key not in self._best:
            closures = legal_closures(self.rules, open_mask, dice)
            self._best[key] = self.rater.best_of(
                [(c, self.rater._value(open_mask & ~c)) for c in closures])[1] \
                if closures else self.rater._end_value(open_mask)
        return self._best[key]

    def turn(self, throws: list[tuple[Dice | None, Mask]]) -> float | None:
        """The luck of one turn from the full board (None: a throw not seen)."""
        open_mask = self.rater.full
        total = 0.0
        for dice, closed in throws:
            if not dice:
                return None
            d, b = self.expected(open_mask, len(dice)), self.given(open_mask, dice)
            total += d - b if self.rater.objective == "min-score" else (b - d) * 100.0
            open_mask &= ~closed
        return total


def _throws(turn: dict[str, Any]) -> list[tuple[Dice | None, Mask]] | None:
    """A recorded turn's throws as (dice, closed mask) (None: not readable)."""
    found: list[tuple[Dice | None, Mask]] = []
    for throw in turn.get("throws") or []:
        dice, closed = throw.get("dice"), throw.get("closed")
        if dice is not None and not (isinstance(dice, list) and dice and all(
                isinstance(x, int) and 1 <= x <= 6 for x in dice)):
            return None
        if closed is not None and not (isinstance(closed, list) and all(
                isinstance(x, int) and 1 <= x <= 12 for x in closed)):
            return None
        found.append((tuple(dice) if dice else None, mask_of(closed or [])))
    return found


def game_luck(record: dict[str, Any], seats: dict[int, str],
              meter_for: Callable[[RuleSet], Meter]) -> dict[str, tuple[float, int]]:
    """player key -> (luck, turns measured) in the game ``record``, for the players of
    ``seats`` (seat -> key); players without a measured turn left out; an empty map
    for rules this version cannot read."""
    try:
        rules = rules_from_dict(record.get("rules") or {})
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}
    meter = meter_for(rules)
    found: dict[str, tuple[float, int]] = {}
    for turn in record.get("turns") or []:
        key = seats.get(turn.get("seat", -1))
        throws = _throws(turn) if key is not None else None
        luck = meter.turn(throws) if throws else None
        if key is None or luck is None:
            continue
        total, turns = found.get(key, (0.0, 0))
        found[key] = (total + luck, turns + 1)
    return found


class Meters:
    """One :class:`Meter` per rule set (its solver from the disk cache, else solved)."""

    def __init__(self) -> None:
        self._meters: dict[Any, Meter] = {}

    def __call__(self, rules: RuleSet) -> Meter:
        from ..strategy.cache import solver_for
        from ..strategy.rating import objective_for
        from ..strategy.tables import rules_key
        key = (rules_key(rules), objective_for(rules), rules.tiles)
        if key not in self._meters:
            self._meters[key] = Meter(rules, solver_for(rules))
        return self._meters[key]
