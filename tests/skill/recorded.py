"""Games written into a real store event by event, as the controller would emit them."""

from __future__ import annotations

from collections.abc import Sequence

from shutbox_hw.game.model.events import (
    GameEnded,
    GameStarted,
    Rolled,
    ThrowCommitted,
    TurnEnded,
    TurnStarted,
)
from shutbox_hw.rules import build_rules
from shutbox_hw.store.write.sqlite import Store

Throw = tuple[tuple[int, ...] | None, Sequence[int] | None]   # dice, closed (None: no move)


def start(store: Store, preset: str, *names: str, dice: str = "software") -> int:
    store.record(GameStarted(players=names, rules=build_rules(preset).as_dict(), dice=dice))
    assert store.game_id is not None
    return store.game_id


def turn(store: Store, tiles: int, seat: int, name: str, throws: Sequence[Throw],
         round_number: int = 1, end: bool = True) -> int:
    """One turn's events; the turn's id in the record."""
    store.record(TurnStarted(seat=seat, player=name, round=round_number))
    open_tiles = set(range(1, tiles + 1))
    for number, (dice, closed) in enumerate(throws, start=1):
        store.record(Rolled(seat=seat, player=name, dice=dice, round=round_number,
                            throw=number, source="software" if dice else "manual"))
        if closed is not None:
            open_tiles -= set(closed)
            store.record(ThrowCommitted(seat=seat, player=name, dice=dice,
                                        closed=tuple(closed), open=tuple(sorted(open_tiles)),
                                        round=round_number, throw=number))
    if end:
        store.record(TurnEnded(seat=seat, player=name, score=sum(open_tiles),
                               open=tuple(sorted(open_tiles)), shut=not open_tiles,
                               round=round_number))
    assert store.db is not None
    row = store.db.execute("SELECT id FROM turns WHERE game_id = ? AND round = ? AND seat = ?",
                           (store.game_id, round_number, seat)).fetchone()
    return int(row[0])


def end(store: Store, *names: str) -> None:
    store.record(GameEnded(players=names, winners=(0,), totals=tuple(0 for _ in names),
                           rounds=1))


def random_turn(rng, preset: str) -> list[Throw]:
    """A turn of legal throws with closures picked at random (rules from rating_truth)."""
    from rating_truth import closures, dice_counts, full
    open_tiles, throws = full(preset), []
    while open_tiles:
        count = rng.choice(dice_counts(preset, open_tiles))
        dice = tuple(rng.randint(1, 6) for _ in range(count))
        options = closures(open_tiles, sum(dice))
        if not options:
            throws.append((dice, None))
            break
        closed = sorted(rng.choice(options))
        throws.append((dice, closed))
        open_tiles -= set(closed)
    return throws


def expected(throws, preset: str) -> tuple[int, int, float]:
    """The turn's moves, best moves and points lost by the brute force."""
    from rating_truth import closure_loss, dice_loss, full
    open_tiles, moves, best, lost = full(preset), 0, 0, 0.0
    for dice, closed in throws:
        losses = [dice_loss(preset, open_tiles, len(dice))]
        if closed is not None:
            losses.append(closure_loss(preset, open_tiles, dice, frozenset(closed)))
        for loss in losses:
            if loss is not None:
                moves, best, lost = moves + 1, best + (loss == 0), lost + loss
        open_tiles -= set(closed or ())
    return moves, best, lost
