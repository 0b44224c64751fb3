"""Shared fixtures: seed 001's practice round, stores, and the import path for table.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from shutbox_hw.store import Store

Throws = list[tuple[tuple[int, ...], list[int] | None]]

# seed 001's practice round: (dice, closed) per throw; None = no move
_SEVEN: Throws = [((6, 6), [12]), ((5, 6), [11]), ((4, 6), [10]), ((4, 5), [9]),
                  ((3, 5), [8]), ((3, 4), [7]), ((3, 3), [6])]


class PracticeRound(NamedTuple):
    """Both players' throws in seed 001's practice round on crafthouse-12."""
    player_a: Throws
    player_b: Throws


@pytest.fixture
def practice() -> PracticeRound:
    return PracticeRound(
        player_a=_SEVEN + [((2, 3), [5]), ((2, 2), [4]), ((1, 1), [2]), ((2,), None)],
        player_b=_SEVEN + [((3, 4), [3, 4]), ((3, 3), [1, 5]), ((1,), None)])


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[Callable[[str], Store]]:
    """Opens stores in the test's directory by file name; closes them afterwards."""
    opened: list[Store] = []

    def make(name: str = "box.db") -> Store:
        store = Store(tmp_path / name)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()
