"""The simulated time line and bouncing switches."""

import random

from shutbox_hw.hal.simulated import SimSwitch, SimWorld


def test_actions_run_in_time_order_with_the_clock_set():
    world = SimWorld()
    seen = []
    world.at(30, lambda: seen.append(("b", world.now_ms())))
    world.at(10, lambda: seen.append(("a", world.now_ms())))
    world.at(30, lambda: seen.append(("c", world.now_ms())))
    world.advance_to(20)
    assert seen == [("a", 10)] and world.now_ms() == 20
    world.advance_to(100)
    assert seen == [("a", 10), ("b", 30), ("c", 30)] and world.now_ms() == 100
    assert world.next_action_ms() is None


def test_switch_bursts_start_and_end_on_the_new_level_within_bounce_time():
    world = SimWorld()
    levels = []
    sw = SimSwitch(world, lambda closed: levels.append((world.now_ms(), closed)),
                   rng=random.Random(5), bounce_ms=5, max_bounces=6)
    bursts = 0
    for i in range(50):
        levels.clear()
        t = 1000 * (i + 1)
        last = sw.set(i % 2 == 0, t)
        world.advance_to(t + 100)
        assert levels[-1] == (last, i % 2 == 0)
        assert all(t <= at <= t + 5 for at, _ in levels)
        alternating = [(i % 2 == 0) == (k % 2 == 0) for k in range(len(levels))]
        assert [lv for _, lv in levels] == alternating
        bursts += len(levels) > 1
    assert bursts > 20          # most changes do bounce


def test_run_polls_ports_at_their_deadlines():
    world = SimWorld()

    class Port:
        """Registers its next deadline in the world's scheduler at each poll."""

        def __init__(self):
            self.polls = []
            self.timer = world.timers.timer("port")
            self.timer.at(150)

        def poll(self, now):
            self.polls.append(now)
            self.timer.at(next((t for t in (150, 300) if t > now), None))
            return [now] if now in (150, 300) else []

    port = Port()
    assert world.run([port], 400) == [150, 300]
    assert port.polls == [0, 150, 300, 400]


def test_the_world_registers_its_next_action_and_a_power_cut_keeps_only_that():
    world = SimWorld()
    world.at(70, lambda: None)
    world.at(30, lambda: None)
    world.timers.at("daemon", 50)
    assert world.timers.next_ms() == 30
    world.advance_to(40)
    assert world.timers.next_ms() == 50
    world.power_cut()                 # the box's deadlines go; the world's action stays
    assert world.timers.next_ms() == 70 and world.timers.when("daemon") is None
    world.advance_to(100)
    assert world.timers.next_ms() is None
