"""Why the referee refused something, as plain values: the display words them.

The referee never writes a sentence. A flap that does not fit is a
:class:`Misfit` (which flap, what kind of misfit, the flaps it clashes with,
the dice); a press that cannot act is a :class:`WhyNot` (the display reads the
state for what to fix first); a throw of the wrong number of dice a
:class:`WrongDice`; a seat refused on the box a :class:`SeatRefused`; the
other short remarks a :class:`Remark`. ``game/display/words.py`` turns each
into the words of the box's language (the OLED's bar and footer, and a
refused flap's ``reason`` in the ``flap_rejected`` event).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ...rules import Dice, Mask, Position, Throw, tile_bit, tiles_of

MisfitKind = Literal[
    "before-roll",      # shut before the throw (the box sees the dice)
    "roll-as-you-throw",  # shut before ROLL marked the throw (dice the box cannot see)
    "not-this-throw",   # fits no closure of the throw's dice
    "not-with",         # fits the throw's dice, not with the flaps shut since
    "no-throw",         # unseen dice: fits no throw at all
    "not-with-any",     # unseen dice: fits, but not with the flaps shut since
]


@dataclass(frozen=True)
class Misfit:
    """Why ``tile`` may not join the flaps shut since the throw."""
    tile: int
    kind: MisfitKind
    conflicts: tuple[int, ...] = ()   # the flaps it clashes with (lifting them lets it fit)
    dice: Dice | None = None          # the throw's dice, when the box knows them


def misfit(unseen_dice: bool, tile: int, throw: Position | None, pending: Mask) -> Misfit:
    """Why ``tile`` may not join ``pending``, the flaps shut since ``throw``."""
    if throw is None:
        return Misfit(tile, "roll-as-you-throw" if unseen_dice else "before-roll")
    conflicts = conflicting(throw, tile, pending)
    if isinstance(throw, Throw):
        return Misfit(tile, "not-with" if conflicts else "not-this-throw", conflicts,
                      throw.dice)
    return Misfit(tile, "not-with-any" if conflicts else "no-throw", conflicts)


def conflicting(throw: Position, tile: int, pending: Mask) -> tuple[int, ...]:
    """The flaps of ``pending`` that keep ``tile`` out: each one it cannot go
    with; all of them when only together they do. None when ``tile`` fits no
    closure of this throw at all."""
    bit = tile_bit(tile)
    if not throw.can_complete(bit):
        return ()
    clash = [p for p in tiles_of(pending) if not throw.can_complete(bit | tile_bit(p))]
    rest = pending & ~sum(tile_bit(p) for p in clash)
    if not throw.can_complete(bit | rest):
        return tuple(tiles_of(pending))
    return tuple(clash)


@dataclass(frozen=True)
class WhyNot:
    """A press of ``button`` cannot act now (the display says what to fix first)."""
    button: Literal["roll", "next"]


@dataclass(frozen=True)
class WrongDice:
    """A throw of ``thrown`` dice where the rules want one of ``wanted``."""
    thrown: int
    wanted: tuple[int, ...]


@dataclass(frozen=True)
class SeatRefused:
    """A name refused a seat on the box: ``box`` is the refusal's few words, a
    catalogue message (game/referee/setup.py's :class:`~.setup.Refusal`)."""
    box: str


RemarkKind = Literal[
    "no-names",          # a long NEXT with no players in the record yet
    "question-lapsed",   # nobody answered "New game?"
    "seat-question-lapsed",   # nobody answered "Same phone: seat NAME?"
    "dice-flaps-wrong",  # the dice module thrown while flaps must be fixed
    "dice-mid-throw",    # the dice module thrown while a throw is being taken
    "bad-throw",         # faces that are no die's
    "not-whole-move",    # the flaps shut are not a whole move yet
    "no-move-again",     # unseen dice: NEXT asked "No move?"
]


@dataclass(frozen=True)
class Remark:
    """One of the referee's short remarks."""
    kind: RemarkKind


Reason = Misfit | WhyNot | WrongDice | SeatRefused | Remark
"""Anything the referee says why about."""
