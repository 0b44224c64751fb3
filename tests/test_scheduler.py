"""The one scheduler every deadline of the box goes through (shutbox_hw/base/scheduler.py)."""

from __future__ import annotations

import random
import threading

from shutbox_hw.base.scheduler import Scheduler


def test_the_earliest_deadline_comes_first_whatever_the_order_of_registration() -> None:
    timers = Scheduler()
    timers.at("blink", 400)
    timers.at("debounce", 20)
    timers.at("read", 250)
    assert timers.next_ms() == 20
    assert timers.due(300) == ["debounce", "read"]
    assert timers.due(19) == []


def test_asking_changes_nothing() -> None:
    timers = Scheduler()
    timers.at("a", 10)
    timers.at("b", 5)
    for _ in range(3):
        assert timers.next_ms() == 5
        assert timers.due(100) == ["b", "a"]
        assert timers.when("a") == 10
    assert len(timers) == 2


def test_cancel_takes_a_deadline_back_and_none_cancels_too() -> None:
    timers = Scheduler()
    timers.at("a", 10)
    timers.at("b", 30)
    timers.cancel("a")
    assert timers.next_ms() == 30 and timers.when("a") is None
    timers.at("b", None)
    assert timers.next_ms() is None and timers.due(10**9) == []
    timers.cancel("never registered")   # nothing to take back: no error


def test_registering_a_key_again_moves_its_deadline_later_or_earlier() -> None:
    timers = Scheduler()
    timers.at("read", 250)
    timers.at("read", 500)
    assert timers.next_ms() == 500 and timers.due(300) == []
    timers.at("read", 100)
    assert timers.next_ms() == 100 and timers.due(100) == ["read"]
    assert len(timers) == 1


def test_keys_due_at_the_same_time_keep_the_order_they_were_registered_in() -> None:
    timers = Scheduler()
    for key in ("c", "a", "b"):
        timers.at(key, 50)
    assert timers.due(50) == ["c", "a", "b"]
    timers.at("c", 50)          # registered again: now the last of the three
    assert timers.due(50) == ["a", "b", "c"]


def test_next_after_skips_what_is_already_due() -> None:
    timers = Scheduler()
    timers.at("late", 90)
    timers.at("now", 40)
    assert timers.next_ms(after_ms=40) == 90
    assert timers.next_ms(after_ms=90) is None
    assert timers.next_ms(after_ms=39) == 40


def test_it_agrees_with_sorting_every_deadline_by_hand() -> None:
    rng = random.Random(23)
    timers = Scheduler()
    model: dict[str, int] = {}
    for _ in range(2000):
        key = f"k{rng.randrange(12)}"
        if rng.random() < 0.25:
            timers.cancel(key)
            model.pop(key, None)
        else:
            when = rng.randrange(1000)
            timers.at(key, when)
            model[key] = when
        now = rng.randrange(1000)
        assert timers.next_ms() == min(model.values(), default=None)
        assert set(timers.due(now)) == {k for k, t in model.items() if t <= now}
        assert [model[k] for k in timers.due(now)] == sorted(
            t for t in model.values() if t <= now)


def test_timers_are_handles_on_keys_of_their_own() -> None:
    timers = Scheduler()
    first, second = timers.timer("pins"), timers.timer("pins")
    assert first.key != second.key
    first.at(100)
    second.at(50)
    assert (first.when, second.when) == (100, 50)
    assert timers.due(75) == [second.key]
    assert second.due(75) and not first.due(75)
    second.cancel()
    assert second.when is None and timers.next_ms() == 100


def test_clear_forgets_every_deadline() -> None:
    timers = Scheduler()
    timer = timers.timer("retry")
    timer.at(5)
    timers.at("x", 6)
    timers.clear()
    assert timers.next_ms() is None and timer.when is None


def test_registrations_from_other_threads_are_all_kept() -> None:
    timers = Scheduler()

    def register(n: int) -> None:
        for i in range(500):
            timers.at((n, i), n * 1000 + i)

    threads = [threading.Thread(target=register, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(timers) == 2000 and timers.next_ms() == 0
