"""``/join/<code>``: a seat claimed from a phone (issue 34), and the TV's QR code.

No login, no script, no internet: the page offers the roster's recent names as
buttons and a field for a new one; its POST goes to the daemon over the claims
socket (:mod:`shutbox_hw.claims.client`, in a worker thread, at most
:data:`ASKS_AT_ONCE` at a time), and the answer page says the seat and the name,
or the reason in plain words: a stale or wrong code, a name refused, too many
tries from one address (429), the box not answering (503). The web process stays
read-only on the database; the daemon decides everything.

Here: :mod:`.routes` (the page, the claim, the TV's QR code), :mod:`.page` (their
HTML), :mod:`.address` (where phones find the pages, said to the daemon).
"""

from __future__ import annotations

from .address import Announcer, web_base
from .routes import TRIES_PER_ADDRESS, Join

__all__ = ["Announcer", "Join", "TRIES_PER_ADDRESS", "web_base"]
