"""Tries counted per client address within a window: the join form's claims, the
backup's wrong tokens.

Memory is bounded: at most :data:`MAX_ADDRESSES` addresses are remembered, each with
at most its limit of times. An address is forgotten once its window has passed; when
that many addresses tried within one window (many more than a pub's Wi-Fi has
phones), the one that tried longest ago is forgotten first. The box's own limits
behind the web (game/model/join.py: a claim needs the code, one seat a phone) hold
whatever this forgets.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable

MAX_ADDRESSES = 4096       # about 100 bytes each: well under a megabyte


class AddressLimit:
    """At most ``tries`` an address within ``window_s``."""

    def __init__(self, tries: int, window_s: float,
                 clock: Callable[[], float] = time.monotonic,
                 max_addresses: int = MAX_ADDRESSES) -> None:
        self.limit, self.window_s, self.clock = tries, window_s, clock
        self.max_addresses = max_addresses
        self.tries: OrderedDict[str, deque[float]] = OrderedDict()

    def _times(self, address: str) -> deque[float]:
        """The address's recent times (the most recently seen address last), the
        expired ones and the addresses over the bound forgotten."""
        now = self.clock()
        times = self.tries.pop(address, None) or deque()
        while times and times[0] <= now - self.window_s:
            times.popleft()
        while self.tries:              # the least recently seen first
            oldest, its = next(iter(self.tries.items()))
            if its and its[-1] > now - self.window_s and len(self.tries) < self.max_addresses:
                break
            del self.tries[oldest]
        self.tries[address] = times
        return times

    def full(self, address: str) -> bool:
        """The address has used up its tries for now."""
        return len(self._times(address)) >= self.limit

    def count(self, address: str) -> None:
        """One try more for the address."""
        times = self._times(address)
        if len(times) < self.limit:
            times.append(self.clock())

    def allow(self, address: str) -> bool:
        """Counted and True, or False when the address has used up its tries."""
        if self.full(address):
            return False
        self.count(address)
        return True
