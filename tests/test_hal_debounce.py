"""The debounce rules on raw edges, without any hardware."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox_hw.base.events import ButtonLevel, ButtonPressed, FlapChanged, InputFault
from shutbox_hw.hal.contracts.debounce import (
    ButtonInputs,
    Chatter,
    Debouncer,
    FlapInputs,
    HoldTimer,
    Settled,
)


def presses(events):
    """The events without the buttons' levels (ButtonLevel: the switch test's)."""
    return [e for e in events if not isinstance(e, ButtonLevel)]


def test_clean_change_settles_after_debounce_time():
    d = Debouncer(False, debounce_ms=20)
    d.edge(True, 100)
    assert d.poll(119) == []
    assert d.timer.when == 120
    assert d.poll(120) == [Settled(True, 120)]
    assert d.poll(500) == []
    assert d.timer.when is None


def test_glitch_back_to_reported_level_gives_nothing():
    d = Debouncer(False)
    d.edge(True, 100)
    d.edge(False, 105)
    assert d.poll(1000) == []
    assert d.level is False


def test_edges_fed_late_still_give_each_settled_change():
    # Two real changes 100 ms apart, but poll only runs after both.
    d = Debouncer(False, debounce_ms=20)
    d.edge(True, 100)
    d.edge(False, 101)
    d.edge(True, 103)
    d.edge(False, 200)
    assert d.poll(1000) == [Settled(True, 123), Settled(False, 220)]


# A real change: at time t the level flips, preceded by a burst of bounce
# edges no more than 5 ms long with gaps under the debounce time.
bursts = st.lists(st.integers(min_value=0, max_value=5), min_size=0, max_size=8)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(min_value=30, max_value=2000), bursts), min_size=1,
                max_size=12),
       st.lists(st.integers(min_value=1, max_value=200), min_size=12, max_size=12))
def test_bounce_bursts_give_exactly_one_event_per_real_change(changes, poll_steps):
    d = Debouncer(False, debounce_ms=20, chatter_ms=1000)
    level = False
    t = 0
    expected = []
    edges = []
    for gap, offsets in changes:
        t += gap
        level = not level
        # bounce: alternating levels at sorted offsets, then the final level
        # edges alternate from the new level; the burst must end on it
        seq = sorted(offsets) or [0]
        lvls = [level if i % 2 == 0 else not level for i in range(len(seq))]
        burst = list(zip(lvls, (t + off for off in seq)))
        if lvls[-1] != level:
            burst.append((level, t + seq[-1] + 1))
        edges += burst
        last = burst[-1][1]
        expected.append(Settled(level, last + 20))
        t = last
    got = []
    now = 0
    steps = itertools.cycle(poll_steps)
    for lvl, at in edges:
        while now + 1 < at:  # poll at irregular times in between
            now = min(at - 1, now + next(steps))
            got += d.poll(now)
        d.edge(lvl, at)
    got += d.poll(t + 10_000)
    assert got == expected


def test_chattering_line_gives_one_fault_then_ok_and_its_level():
    d = Debouncer(False, debounce_ms=20, chatter_ms=1000, recover_ms=250)
    out = []
    level = False
    for t in range(0, 3000, 10):      # an edge every 10 ms for 3 s
        level = not level
        d.edge(level, t)
        out += d.poll(t)
    d.edge(True, 3001)               # 300 edges ended low; it finally rests high
    out += d.poll(10_000)
    assert out == [Chatter(False, 1000), Chatter(True, 3001 + 250), Settled(True, 3251)]


def test_chatter_that_ends_at_reported_level_gives_no_change():
    d = Debouncer(False, chatter_ms=100, recover_ms=50)
    for i, t in enumerate(range(0, 300, 5)):
        d.edge(i % 2 == 0, t)
    d.edge(True, 300)
    d.edge(False, 301)               # last edge: back to the reported level
    assert d.poll(1000) == [Chatter(False, 100), Chatter(True, 351)]


def test_hold_timer_short_long_and_silent_release():
    h = HoldTimer(800)
    h.press(0)
    h.release(799)
    assert h.poll(799) == [(False, 799)]
    h.press(1000)
    assert h.timer.when == 1800
    assert h.poll(1799) == []
    assert h.poll(1800) == [(True, 1800)]
    h.release(5000)
    assert h.poll(6000) == []


def test_hold_reached_before_late_poll_fires_long_not_short():
    h = HoldTimer(800)
    h.press(0)
    h.release(900)       # poll only after the release
    assert h.poll(1000) == [(True, 800)]


def test_buttons_debounced_with_hold():
    b = ButtonInputs({"roll": False, "next": False}, hold_ms=800)
    b.edge("roll", True, 0)
    b.edge("roll", False, 2)
    b.edge("roll", True, 3)     # bounce, then held
    b.edge("next", True, 50)
    b.edge("next", False, 150)
    assert presses(b.poll(1000)) == [ButtonPressed("next", False, 170),
                                     ButtonPressed("roll", True, 23 + 800)]
    b.edge("roll", False, 2000)
    assert presses(b.poll(3000)) == []


def test_button_held_at_start_is_not_a_press():
    b = ButtonInputs({"roll": True, "next": False})
    b.edge("roll", False, 100)
    assert presses(b.poll(1000)) == []


def test_button_chatter_is_one_fault_and_cancels_the_press():
    b = ButtonInputs({"roll": False, "next": False}, chatter_ms=500, recover_ms=100)
    level = False
    for t in range(0, 2000, 7):
        level = not level
        b.edge("roll", level, t)
    b.edge("roll", True, 2001)
    b.edge("roll", False, 2002)      # rests released: no press at all
    assert b.poll(5000) == [InputFault("ROLL", "switch chattering", 500),
                            InputFault("ROLL", "switch settled again", 2102, ok=True)]


def test_flap_inputs_mask_and_order():
    f = FlapInputs({1: False, 2: True, 3: False})
    assert f.shut_mask() == 0b010
    f.edge(3, True, 10)
    f.edge(1, True, 5)
    assert f.timers.next_ms() == 25
    assert f.poll(100) == [FlapChanged(1, True, 25), FlapChanged(3, True, 30)]
    assert f.shut_mask() == 0b111
