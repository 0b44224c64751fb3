"""A throw as a value: the open tiles and what the dice allow, with its legal moves.

Like a chess position with its legal moves, a :class:`Throw` answers the
questions the box asks flap by flap, so callers stop threading
``(rules, open_mask, dice)`` by hand. :class:`AnyThrow` is the same
question for dice the box cannot see (the players throw real dice): a set
of tiles is legal if some throw the rules allow here makes it legal.
Both satisfy :class:`Position`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from .moves import Dice, dice_choice, legal_closures, throws_for
from .ruleset import RuleSet
from .tiles import Mask, is_subset


class Position(Protocol):
    """The open tiles and a throw (known or not): what may be shut now."""

    @property
    def open_mask(self) -> Mask: ...

    def legal_closures(self) -> tuple[Mask, ...]: ...

    def has_move(self) -> bool: ...

    def can_complete(self, shut: Mask) -> bool: ...

    def is_legal(self, shut: Mask) -> bool: ...

    def can_extend(self, closure: Mask) -> bool: ...


class _Closures:
    """The questions every position answers from its legal closures."""

    def legal_closures(self) -> tuple[Mask, ...]:
        raise NotImplementedError

    def has_move(self) -> bool:
        return bool(self.legal_closures())

    def can_complete(self, shut: Mask) -> bool:
        """Whether ``shut`` (tiles shut since the throw) can still grow into a legal
        closure; for the empty set, whether the throw has any move."""
        return any(is_subset(shut, c) for c in self.legal_closures())

    def is_legal(self, shut: Mask) -> bool:
        return shut in self.legal_closures()

    def can_extend(self, closure: Mask) -> bool:
        """Whether a strictly larger legal closure contains ``closure``."""
        return any(c != closure and is_subset(closure, c) for c in self.legal_closures())


@dataclass(frozen=True)
class Throw(_Closures):
    """Known dice on these open tiles."""
    rules: RuleSet
    open_mask: Mask
    dice: Dice

    def legal_closures(self) -> tuple[Mask, ...]:
        return legal_closures(self.rules, self.open_mask, self.dice)


@dataclass(frozen=True)
class AnyThrow(_Closures):
    """Unseen dice on these open tiles: any throw the rules allow here."""
    rules: RuleSet
    open_mask: Mask

    @cached_property
    def _closures(self) -> tuple[Mask, ...]:
        found: set[Mask] = set()
        for dice in throws_for(dice_choice(self.rules, self.open_mask)):
            found.update(legal_closures(self.rules, self.open_mask, dice))
        return tuple(sorted(found))

    def legal_closures(self) -> tuple[Mask, ...]:
        return self._closures
