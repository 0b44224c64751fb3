"""What the simulated box remembers, bounded: a box left running for a week must not grow.

gpiozero's ``MockPin`` appends every state change it ever had to
``pin.states`` (a list, never trimmed: about 70 KB a game with bouncing
switches); the simulated box's pins keep only the newest
:data:`PIN_STATES_KEPT` (:func:`recent_states`). The inputs the box took
(:class:`Recent`) keep the newest :data:`SEEN_KEPT`, read by their position
since the start as before (``seen[start:]`` with ``start = len(seen)``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar, overload

PIN_STATES_KEPT = 64     # a pin's newest state changes (a bounce burst is about ten)
SEEN_KEPT = 4096         # inputs the box took (a game is about a hundred)

T = TypeVar("T")


def recent_states(first: Any) -> deque[Any]:
    """A pin's ``states``: gpiozero's first entry, then the newest changes only."""
    return deque([first], maxlen=PIN_STATES_KEPT)


class Recent(Generic[T]):
    """A list that forgets its oldest items past ``keep`` (in batches, so adding
    stays cheap), still indexed by position since the first item ever added:
    ``len`` counts every item, ``recent[start:]`` is what came after ``start``,
    ``recent[-1]`` the newest. Asking for an item already forgotten is an
    IndexError, never a shorter answer."""

    def __init__(self, keep: int = SEEN_KEPT) -> None:
        self._items: list[T] = []
        self._dropped = 0
        self.keep = keep

    def extend(self, items: Iterable[T]) -> None:
        self._items.extend(items)
        if len(self._items) > 2 * self.keep:
            drop = len(self._items) - self.keep
            del self._items[:drop]
            self._dropped += drop

    def append(self, item: T) -> None:
        self.extend((item,))

    def __len__(self) -> int:
        return self._dropped + len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items))

    def __bool__(self) -> bool:
        return bool(self._items)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            if index.step is not None or (index.start or 0) < 0 or index.stop is not None:
                raise IndexError("Recent takes [start:] from a position since the first")
            return self._items[self._kept(index.start or 0):]
        if index < 0:
            return self._items[index]
        return self._items[self._kept(index)]

    def _kept(self, position: int) -> int:
        if position < self._dropped:
            raise IndexError(f"item {position} is forgotten (the newest {self.keep} are kept)")
        return position - self._dropped
