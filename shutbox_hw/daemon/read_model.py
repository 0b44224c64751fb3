"""What the daemon's loop reads back from the record for the box's screens, and the
picture of the box it writes for the TV and Home Assistant.

- :meth:`ReadModel.figures`: tonight's figures for the idle screen, with the audit
  lines for the operator menu (only when it opens or they change) and the high
  scores (after a game, or a player removed); every read costs the same at 100,000
  games as at 10 (store/tables/figures.py, store/read/highscores.py);
- :meth:`ReadModel.roster`: the record's players for the setup screen;
- :meth:`ReadModel.mirror`: the box's picture (:mod:`~..game.display.shown`) written
  to the mirror (:mod:`~..store.read.shown`) when it changed, and the MQTT
  publisher told to look again.

A read the disk refuses is logged and answers None: the screen keeps what it had,
and the disk's fault is the journal's to say (:mod:`.journal`).
"""

from __future__ import annotations

import logging
from typing import Any

from ..base.events import Figures, HighScores, Roster
from ..store import StorageFault, Store
from ..store.read.shown import publish
from ..words.audits import audit_lines

log = logging.getLogger("shutbox_hw")


class ReadModel:
    """The record as the box's screens read it, and the box's picture as the TV does."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.audits: tuple[str, ...] = ()   # the audit lines as last read (the menu)
        self.high_scores: tuple[HighScores, ...] = ()   # as last read (the idle screen)
        self._mirrored: dict[str, Any] | None = None   # the picture last written for the TV

    def figures(self, now: int, audits: bool = False, scores: bool = True) -> Figures | None:
        """Tonight's figures; with ``audits`` the audit lines read again, with
        ``scores`` the high scores (else those last read)."""
        try:
            tonight = self.store.tonight()
            if audits:
                self.audits = tuple(audit_lines(self.store.audit_figures()))
            if scores:
                self.high_scores = self.store.high_scores()
        except StorageFault as error:
            log.warning("audits not read: %s", error)
            return None
        return Figures(tonight, self.audits, now, self.high_scores)

    def roster(self, now: int) -> Roster | None:
        """The record's players for the setup screen's roster (a few rows through
        their index, whatever the record's size)."""
        try:
            return Roster(self.store.roster(), now)
        except StorageFault as error:
            log.warning("roster not read: %s", error)
            return None

    def mirror(self, picture: dict[str, Any]) -> None:
        """The picture the box now shows, written for the TV and Home Assistant
        when it changed (and the publisher told: the state follows it)."""
        if picture != self._mirrored and publish(self.store, picture):
            self._mirrored = picture
            if self.store.outbox is not None:
                self.store.outbox()
