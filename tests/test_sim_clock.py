"""The simulator's virtual time (sim/clock.py) on its own: the loop stepped wherever
something is due, on a world with nothing but its own actions."""

from __future__ import annotations

from shutbox_hw.hal.simulated.world import SimWorld
from shutbox_hw.sim.clock import VirtualTime


def test_time_stops_at_each_action_due_and_at_the_end():
    world = SimWorld()
    steps: list[int] = []
    acted: list[int] = []
    settled: list[int] = []
    time = VirtualTime(world, lambda: steps.append(world.now_ms()),
                       lambda: settled.append(world.now_ms()))
    for at in (70, 30, 30):
        world.at(at, lambda: acted.append(world.now_ms()))
    time.advance(100)
    # a step at the start, one after the actions due at 30 ms (both run first), one
    # at 70 ms, one at the end; the display settled once, when time stopped
    assert acted == [30, 30, 70]
    assert steps == [0, 30, 70, 100]
    assert settled == [100] and time.now_ms() == 100


def test_a_negative_wait_steps_once_and_never_goes_back():
    world = SimWorld(start_ms=500)
    steps: list[int] = []
    time = VirtualTime(world, lambda: steps.append(world.now_ms()), lambda: None)
    time.advance(-20)
    assert steps == [500] and world.now_ms() == 500


def test_an_action_a_step_schedules_for_now_is_stepped_at_once():
    """An edge due at the very millisecond of a step (a switch the step moved):
    run and polled again before time moves on, as the box's interrupt would be."""
    world = SimWorld()
    steps: list[int] = []
    acted: list[int] = []

    def step() -> None:
        steps.append(world.now_ms())
        if len(steps) == 1:
            world.at(world.now_ms(), lambda: acted.append(world.now_ms()))

    VirtualTime(world, step, lambda: None).advance(10)
    assert acted == [0] and steps == [0, 0, 10]
