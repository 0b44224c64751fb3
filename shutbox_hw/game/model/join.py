"""A seat claimed from a phone: whether the referee takes the claim at all.

The daemon hands the controller the current join code
(:class:`~shutbox_hw.base.events.JoinCode`: made with ``secrets`` whenever the box
is set up, valid until ``until_ms``); a phone's claim
(:class:`~shutbox_hw.base.events.SeatClaim` with ``source`` "phone") names the code
its page was opened with. The claim is refused, with a sentence for the phone
and never a flash on the box, when that code is not the current one or has
expired (checked first, in every phase: a wrong code counts towards nothing),
when a game is under way, when more than :data:`CLAIMS_PER_WINDOW` claims with
the right code came within :data:`CLAIM_WINDOW_MS` (decided from the claims'
own ``at_ms``: pure). A claim let through goes on to the one rule for a seat
(:func:`.setup.claim_seat`).

One seat a phone a game: when the phone's address (``SeatClaim.phone``, said by
the web) has a seat at this table already, its claim is not refused outright but
put to the box (:meth:`JoinDesk.ask`): the OLED asks its players, ROLL seats the
name, NEXT refuses, and nobody answering within :data:`QUESTION_MS` (the events'
own time: no clock) refuses too. One such question at a time; the phone is told
it waits (:class:`Asking`), and the outcome once it is known
(:meth:`JoinDesk.settle`, taken by the daemon with :meth:`JoinDesk.take_settled`).
A phone the players said no to is refused at once for the rest of the setup: it
cannot keep the box asking (and its ROLL answering instead of starting the game).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ...base.events import JoinCode, SeatClaim
from .events import SeatClaimed

CLAIMS_PER_WINDOW = 8      # a whole table scanning at once is let through ...
CLAIM_WINDOW_MS = 10_000   # ... within this long; more wait a moment

OLD_CODES = 16            # codes of the setups before: "expired" rather than "wrong"

EXPIRED = "this code has expired: scan the box again"
WRONG = "this is not the box's code: scan the box again"
BUSY = "too many claims at once: try again in a few seconds"
UNDER_WAY = "a game is under way: join the next one"
ONE_SEAT = ("this phone has a seat at this table already: the next player joins "
            "from their own phone, or chooses a name on the box")
ASKING = ("this phone has a seat at this table already: the box asks its players to "
          "seat {name} too (ROLL on the box: yes, NEXT: no)")
ASKING_OTHER = ("the box is asking its players about another seat: try again in a "
                "few seconds")
DECLINED = ("the players on the box said no: the next player joins from their own "
            "phone, or chooses a name on the box")
LAPSED = ("nobody answered on the box: the next player joins from their own phone, "
          "or chooses a name on the box")

QUESTION_MS = 8000        # a second seat from one phone is asked this long at most


class Asking(str):
    """The phone's answer while the box asks its players (:data:`ASKING`, the
    name in it): not a seat yet, not a refusal yet."""


@dataclass(frozen=True)
class Question:
    """A phone's second claim, put to the box's players since ``asked_at``."""
    claim: SeatClaim
    asked_at: int

    @property
    def lapses_at(self) -> int:
        return self.asked_at + QUESTION_MS


@dataclass
class JoinDesk:
    """The current code (None: none handed in yet, or spent by a game that
    started), when the recent phone claims came, the name each phone address
    claimed in this setup, the question on the box about a second seat from one
    phone, and the outcome of the last question (until the daemon takes it)."""
    code: JoinCode | None = None
    recent: deque[int] = field(default_factory=deque)
    old: deque[str] = field(default_factory=lambda: deque(maxlen=OLD_CODES))
    phones: dict[str, str] = field(default_factory=dict)
    question: Question | None = None
    settled: SeatClaimed | str | None = None
    declined: set[str] = field(default_factory=set)   # phones the players said no to

    def hand_in(self, code: JoinCode) -> None:
        """The daemon's new code: the one before it is stale from now on. The setup
        goes on: the seats its phones took still count (one seat a phone a game,
        however many codes the setup saw)."""
        if self.code is not None and self.code.code != code.code:
            self.old.append(self.code.code)
        self.code = code

    def spend(self) -> None:
        """A game started: its code joins nobody any more (the next setup gets a new
        one, and each phone a seat again); a question still asked is refused."""
        if self.code is not None:
            self.old.append(self.code.code)
        self.code = None
        self.phones.clear()
        self.declined.clear()
        if self.question is not None:
            self.settle(UNDER_WAY)

    def url(self, now: int) -> str | None:
        """The join page's address for the QR code while the code is good."""
        code = self.code
        return code.url if code is not None and now < code.until_ms else None

    def refusal(self, claim: SeatClaim, now: int, setting_up: bool,
                seated: Callable[[str], bool]) -> str | None:
        """Why a phone's claim is not even looked at (None: on to the seat's rule).
        The code first: only a claim with the right one counts towards the rate
        limit. ``setting_up``: the box is set up (phase idle); ``seated(name)``:
        that name has a seat at the table now."""
        given = (claim.code or "").upper()
        code = self.code
        if code is None or given != code.code:
            if given in self.old and not setting_up:
                return UNDER_WAY
            return EXPIRED if given in self.old else WRONG
        if now >= code.until_ms:
            return EXPIRED
        if not setting_up:
            return UNDER_WAY
        while self.recent and self.recent[0] <= now - CLAIM_WINDOW_MS:
            self.recent.popleft()
        if len(self.recent) >= CLAIMS_PER_WINDOW:
            return BUSY
        self.recent.append(now)
        taken = self.phones.get(claim.phone or "")
        if taken is not None and seated(taken):
            if claim.phone in self.declined:    # said no once: not asked again this setup
                return DECLINED
            return ASKING_OTHER if self.question is not None else ONE_SEAT
        return None

    def seated(self, claim: SeatClaim, name: str) -> None:
        """A phone's claim took a seat as ``name``: its address has had its seat
        (a second seat the box's players allowed keeps the first as the phone's)."""
        if claim.phone:
            self.phones.setdefault(claim.phone, name)

    def ask(self, claim: SeatClaim, now: int) -> Asking:
        """Put a phone's second claim to the box's players: what the phone is told."""
        self.question = Question(claim, now)
        return Asking(ASKING.format(name=claim.name))

    def settle(self, outcome: SeatClaimed | str) -> None:
        """The question is answered (a seat, or why not): the phone is told next. A
        phone the players said no to is not asked about again in this setup (it
        cannot keep the box's buttons busy answering it)."""
        if outcome == DECLINED and self.question is not None and self.question.claim.phone:
            self.declined.add(self.question.claim.phone)
        self.question = None
        self.settled = outcome

    def lapsed(self, now: int) -> bool:
        """The question has waited its time: refused (:data:`LAPSED`)."""
        if self.question is None or now < self.question.lapses_at:
            return False
        self.settle(LAPSED)
        return True

    def take_settled(self) -> SeatClaimed | str | None:
        """The last question's outcome, once (the daemon hands it to the phone)."""
        outcome, self.settled = self.settled, None
        return outcome
