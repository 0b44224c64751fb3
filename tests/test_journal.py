"""The daemon's journal on its own (shutbox_hw/daemon/journal.py): what the loop's tests
(test_storage_faults.py, test_sd_card.py, test_effect_order.py) do not show, the events
held in order with their times across two different faults of the disk, each said once,
nothing tried before the retry time, and a bug in the write said once and cleared."""

from __future__ import annotations

from typing import Any

from shutbox_hw.daemon.journal import BUG_PART, BUG_WORDS, STORE_RETRY_MS, Journal
from shutbox_hw.game.model.events import Rolled, TurnStarted
from shutbox_hw.store import StorageFault


class Disk:
    """A store whose writes are refused with the problems queued in ``refuse``
    (an exception instance: raised as it is), and which keeps what it took."""

    def __init__(self) -> None:
        self.fault: str | None = None
        self.refuse: list[BaseException] = []
        self.tries: list[list[str]] = []
        self.taken: list[tuple[str, float]] = []
        self.clock = 100.0

    def now(self) -> float:
        return self.clock

    def record_all(self, events: Any, tally: Any = None, happened: Any = None) -> None:
        events = list(events)
        self.tries.append([e.player for e in events])
        if self.refuse:
            raise self.refuse.pop(0)
        self.taken += [(e.player, at) for e, at in zip(events, happened, strict=True)]

    def write_counts(self, tally: Any) -> None:
        tally.written()


def throw(who: str) -> Rolled:
    return Rolled(seat=0, player=who, dice=(3, 4), round=1, throw=1)


def words(said: list[Any]) -> list[tuple[str, str, bool]]:
    return [(f.source, f.message, f.ok) for f in said]


def test_events_held_across_two_faults_are_written_in_order_with_their_times():
    disk = Disk()
    journal = Journal(disk)
    disk.refuse = [StorageFault("disk full"), StorageFault("disk full"),
                   StorageFault("database locked")]
    assert words(journal.save((throw("a"),), 0)) == [("storage", "cannot save: disk full", False)]
    assert journal.retry_at == STORE_RETRY_MS and journal.problem() == "disk full"
    disk.clock = 101.0
    assert journal.save((throw("b"),), 10) == []      # before the retry time: not tried
    assert disk.tries == [["a"]]
    assert not journal.retry_due(STORE_RETRY_MS - 1) and journal.retry_due(STORE_RETRY_MS)
    # the same problem again: not said twice
    assert journal.save((), STORE_RETRY_MS) == []
    # another problem: said, the events still held in order
    disk.clock = 102.0
    said = journal.save((throw("c"),), 2 * STORE_RETRY_MS)
    assert words(said) == [("storage", "cannot save: database locked", False)]
    assert [e.player for e in journal.unsaved] == ["a", "b", "c"]
    assert journal.unsaved_at == [100.0, 101.0, 102.0]
    assert journal.retry_at == 3 * STORE_RETRY_MS
    # the disk takes them: all in one write, in order, each with its own time; said once
    said = journal.save((), 3 * STORE_RETRY_MS)
    assert words(said) == [("storage", "saved", True)]
    assert disk.tries[-1] == ["a", "b", "c"]
    assert disk.taken == [("a", 100.0), ("b", 101.0), ("c", 102.0)]
    assert journal.unsaved == [] and journal.retry_at is None and journal.problem() == ""
    assert journal.save((throw("d"),), 3 * STORE_RETRY_MS + 1) == []   # nothing more to say


def test_a_bug_in_the_write_is_said_once_its_events_dropped_and_cleared_by_a_write():
    disk = Disk()
    journal = Journal(disk)
    disk.refuse = [ValueError("a bug"), ValueError("a bug")]
    said = journal.save((throw("a"),), 0)
    assert words(said) == [(BUG_PART, BUG_WORDS, False)]
    assert journal.unsaved == [] and journal.retry_at is None   # a retry would block the rest
    assert journal.save((throw("b"),), 5) == []   # the same bug again: not said twice
    assert words(journal.save((throw("c"),), 6)) == [(BUG_PART, "saved", True)]
    assert disk.taken == [("c", 100.0)]
    assert journal.problem() == ""   # never called the disk's


def test_a_store_opened_degraded_holds_events_from_the_first_frame():
    disk = Disk()
    disk.fault = "disk full"
    journal = Journal(disk)
    fault = journal.opened(50)
    assert fault is not None and (fault.source, fault.message) == ("storage",
                                                                   "cannot save: disk full")
    assert journal.save((throw("a"),), 60) == [] and disk.tries == []
    assert words(journal.save((), 50 + STORE_RETRY_MS)) == [("storage", "saved", True)]
    assert disk.taken == [("a", 100.0)]


def test_events_are_reported_in_order_after_their_write():
    reported: list[dict[str, Any]] = []
    journal = Journal(Disk(), reported.append)
    journal.report((TurnStarted(seat=0, player="a", round=1), throw("a")))
    assert [r["event"] for r in reported] == ["turn_started", "rolled"]
    assert "seat" not in reported[0]   # the contract's fields, as as_json() gives them
