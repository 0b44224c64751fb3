"""Glitches, presses and bounce bursts on a simulated box, and what the game got.

The property behind it (issue 20): on either reference build, with every
disk profile and any bus clock from 50 to 400 kHz, a contact glitch of at
most 5 ms gives no event, a press of 40 ms or more gives exactly one (a
flap: shut, then lifted), a bounce burst that settles where it was gives
none. The trials are laid on the world's time line ahead of the box, so they
happen while the loop is busy (a disk sync, a frame on the bus) just as
they would on the box. Used by ``tests/test_inputs_in_time.py`` and
``benchmarks/run.py``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..base.events import ButtonPressed, FlapChanged
from ..hal.simulated.timing import DiskProfile
from ..hal.simulated.world import SimSwitch
from .runner import SimRunner

GLITCH_MS = (1, 5)
PRESS_MS = (40, 400)       # under hold_ms: short presses
BURST_EDGES = (2, 20)
BURST_WINDOW_MS = 10
# between one trial's last edge + debounce_ms and the next trial: more than a read
# can wait on the bus (a page of a frame at 50 kHz and the read itself, ~28 ms),
# since a level first seen by a late read settles that much later
GAP_MS = (40, 150)


@dataclass
class Tally:
    """Trials run and how they came out; ``invented`` / ``lost`` count inputs."""
    glitches: int = 0
    presses: int = 0
    bursts: int = 0
    invented: int = 0
    lost: int = 0
    syncs: int = 0
    wrong: list[str] = field(default_factory=list)   # the first few trials that failed

    def add(self, other: Tally) -> None:
        for name in ("glitches", "presses", "bursts", "invented", "lost", "syncs"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.wrong += other.wrong[:10 - len(self.wrong)]


def _seen(event: object) -> tuple[object, ...] | None:
    if isinstance(event, ButtonPressed):
        return ("press", event.button, event.long)
    if isinstance(event, FlapChanged):
        return ("flap", event.tile, event.shut)
    return None


def _setting(switch: SimSwitch, closed: bool) -> Callable[[], None]:
    """The contact set as it is wired when the moment comes."""
    return lambda: switch.setter(closed)


FAST = DiskProfile()   # syncs that cost nothing


def run_trials(runner: SimRunner, rng: random.Random, count: int, *,
               disk: DiskProfile = FAST, hz: int | None = None) -> Tally:
    """``count`` trials (2/5 glitches, 2/5 presses, the rest bursts, in a seeded
    order) on a box that plays a game meanwhile; every event is checked
    against its trial."""
    runner.disk.set_profile(disk)
    if hz is not None:
        runner.sim.bus.hz = hz
    runner.start_game(2)
    sim, world = runner.sim, runner.world
    debounce = runner.config.hardware.debounce_ms
    names: list[int | str] = [*range(1, runner.config.rules.tiles + 1), "roll", "next"]
    syncs_before = runner.disk.syncs
    tally = Tally()
    start = len(sim.seen)
    t = world.now_ms() + 50
    windows: list[tuple[int, str, list[tuple[object, ...]]]] = []
    kinds = ["glitch"] * (count * 2 // 5) + ["press"] * (count * 2 // 5)
    kinds += ["burst"] * (count - len(kinds))
    rng.shuffle(kinds)
    for kind in kinds:
        name = rng.choice(names)
        switch = sim.input_switch(name)
        level = sim.is_shut(name) if isinstance(name, int) else False
        want: list[tuple[object, ...]] = []
        if kind == "glitch":
            ms = rng.randint(*GLITCH_MS)
            world.at(t, _setting(switch, not level))
            world.at(t + ms, _setting(switch, level))
            end = t + ms
            tally.glitches += 1
        elif kind == "press":
            ms = rng.randint(*PRESS_MS)
            switch.set(not level, t)
            end = switch.set(level, t + ms)
            want = ([("flap", name, not level), ("flap", name, level)]
                    if isinstance(name, int) else [("press", name, False)])
            tally.presses += 1
        else:
            edges = rng.randrange(BURST_EDGES[0], BURST_EDGES[1] + 1, 2)
            offsets = sorted(rng.randint(0, BURST_WINDOW_MS) for _ in range(edges))
            for i, offset in enumerate(offsets):
                world.at(t + offset, _setting(switch, level if i % 2 else not level))
            end = t + offsets[-1]
            ms = edges
            tally.bursts += 1
        windows.append((t, f"{kind} {name} {ms}", want))
        t = end + debounce + rng.randint(*GAP_MS)
    runner.advance(t - world.now_ms() + 200)
    got = [(e.at_ms, key) for e in sim.seen[start:] if (key := _seen(e)) is not None]
    for i, (begin, label, want) in enumerate(windows):
        until = windows[i + 1][0] if i + 1 < len(windows) else None
        mine = [key for at, key in got if at >= begin and (until is None or at < until)]
        extra, missing = Counter(mine) - Counter(want), Counter(want) - Counter(mine)
        tally.invented += sum(extra.values())
        tally.lost += sum(missing.values())
        if (extra or missing) and len(tally.wrong) < 10:
            tally.wrong.append(f"{label} at {begin}: got {mine}, wanted {want}")
    tally.syncs = runner.disk.syncs - syncs_before
    return tally
