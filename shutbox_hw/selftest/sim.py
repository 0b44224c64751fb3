"""The self-test on the simulated box: a virtual clock and a simulated person.

Faults are planted in the box (:class:`~shutbox_hw.sim.box.SimulatedBox`'s
``swap_inputs``, ``short_inputs``, ``stick_flap``, ``break_switch``, a chip's
``absent``), never in the person, so the person stays a plain stand-in for
someone who does what the prompts say.
"""

from __future__ import annotations

from collections.abc import Callable

from ..sim.box import Lamps, SimulatedBox
from . import Ask, Rig

REACTION_MS = 300   # a person reads the prompt, then moves
PRESS_MS = 80       # a short press of a button


class SimPerson:
    """Does what each prompt asks, ``reaction_ms`` later, on the simulated box.

    Keeps every ask in :attr:`asks` and, for each LED it is asked to look at,
    the lamps lit at that moment in :attr:`looked` (so tests can check that
    the named LED, and only it, was lit).
    """

    def __init__(self, sim: SimulatedBox, *, reaction_ms: int = REACTION_MS,
                 say: Callable[[str], None] | None = None) -> None:
        self.sim = sim
        self.reaction_ms = reaction_ms
        self.say = say
        self.asks: list[Ask] = []
        self.looked: list[tuple[Ask, Lamps]] = []

    def prompt(self, ask: Ask, now_ms: int) -> None:
        self.asks.append(ask)
        if self.say is not None:
            self.say(f"> {ask.text}")
        at = now_ms + self.reaction_ms
        if ask.action in ("shut", "lift"):
            assert isinstance(ask.target, int)
            self.sim.move_flap(ask.target, ask.action == "shut", at)
        elif ask.action == "press" and ask.target == "dice":
            if self.sim.module is not None:   # its own time runs on while pressed
                self.sim.module.sync()
                self.sim.module.press()
        elif ask.action == "press":
            switch = self.sim.button_switch(str(ask.target))
            switch.set(False, switch.set(True, at) + PRESS_MS)
        elif ask.action == "look":
            self.looked.append((ask, self.sim.lamp_states()))

    def status(self, text: str) -> None:
        pass


def simulated_rig(sim: SimulatedBox) -> Rig:
    """The simulated box as a rig: waiting runs the world's scheduled switch
    edges and stops at the next one, so no change is read late."""
    return Rig(hw=sim.hw, clock=sim.world.clock, open_bus=lambda number: sim.bus,
               build_ports=lambda: sim.ports, wait=sim.world.wait, close=sim.box.close)
