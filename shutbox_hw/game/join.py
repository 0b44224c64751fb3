"""A seat claimed from a phone: whether the referee takes the claim at all.

The daemon hands the controller the current join code
(:class:`~shutbox_hw.events.JoinCode`: made with ``secrets`` whenever the box
is set up, valid until ``until_ms``); a phone's claim
(:class:`~shutbox_hw.events.SeatClaim` with ``source`` "phone") names the code
its page was opened with. The claim is refused, with a sentence for the phone,
when that code is not the current one or has expired, when a game is under way,
and when more than :data:`CLAIMS_PER_WINDOW` phone claims came within
:data:`CLAIM_WINDOW_MS` (decided from the claims' own ``at_ms``: pure). A claim
let through goes on to the one rule for a seat (:func:`.setup.claim_seat`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ..events import JoinCode, SeatClaim

CLAIMS_PER_WINDOW = 8      # a whole table scanning at once is let through ...
CLAIM_WINDOW_MS = 10_000   # ... within this long; more wait a moment

OLD_CODES = 16            # codes of the setups before: "expired" rather than "wrong"

EXPIRED = "this code has expired: scan the box again"
WRONG = "this is not the box's code: scan the box again"
BUSY = "too many claims at once: try again in a few seconds"


@dataclass
class JoinDesk:
    """The current code (None: none handed in yet, or spent by a game that
    started) and when the recent phone claims came."""
    code: JoinCode | None = None
    recent: deque[int] = field(default_factory=deque)
    old: deque[str] = field(default_factory=lambda: deque(maxlen=OLD_CODES))

    def hand_in(self, code: JoinCode) -> None:
        """The daemon's new code: the one before it is stale from now on."""
        self.spend()
        self.code = code

    def spend(self) -> None:
        """A game started: its code joins nobody any more (the next setup gets a new one)."""
        if self.code is not None:
            self.old.append(self.code.code)
        self.code = None

    def url(self, now: int) -> str | None:
        """The join page's address for the QR code while the code is good."""
        code = self.code
        return code.url if code is not None and now < code.until_ms else None

    def refusal(self, claim: SeatClaim, now: int) -> str | None:
        """Why a phone's claim is not even looked at (None: on to the seat's rule);
        every phone claim counts towards the rate limit, refused or not."""
        while self.recent and self.recent[0] <= now - CLAIM_WINDOW_MS:
            self.recent.popleft()
        if len(self.recent) >= CLAIMS_PER_WINDOW:
            return BUSY
        self.recent.append(now)
        given = (claim.code or "").upper()
        code = self.code
        if code is not None and given == code.code:
            return EXPIRED if now >= code.until_ms else None
        return EXPIRED if given in self.old else WRONG
