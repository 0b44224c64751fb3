"""Carrying out a script's lines on the simulated box: each typed command
(:mod:`.script_commands`) matched to what the person or the world does.

:func:`check_steps` refuses, before anything runs, a line about a part the
config's box does not have; :func:`run_step` does one line.
"""

from __future__ import annotations

from typing import Protocol, assert_never

from ..config.config_file import Config
from .box import SimulatedBox, device_problem, has_int_line
from .clock import VirtualTime
from .parts.disk import SimDisk
from .person import Person
from .script import ScriptError
from .script_commands import (
    Bounce,
    Brownout,
    ButtonPress,
    CutAfterWrites,
    Dice,
    DiskFull,
    HoldBoth,
    I2cFault,
    IntWire,
    MoveFlaps,
    Plug,
    Restart,
    Service,
    Shake,
    Start,
    Step,
    Wait,
)
from .world_commands import Bus, Disk, Glitch, Press


class Actor(Protocol):
    """What a script line is carried out with (:class:`.runner.SimRunner` wires it;
    written out here so this module does not import the runner that imports it): the
    simulated box and its disk, the person at it, its virtual time, and its power."""

    sim: SimulatedBox
    disk: SimDisk
    person: Person
    time: VirtualTime

    def restart(self) -> None: ...


def check_steps(steps: list[Step], config: Config, name: str = "script") -> None:
    """Refuse, before anything runs, a fault on a part this box does not have."""
    for step in steps:
        problem = None
        match step.command:
            case Plug(device):
                problem = device_problem(config.hardware, device)
            case IntWire() if not has_int_line(config.hardware):
                problem = "no expander INT line in this config"
            case Shake() if config.game.dice != "module" or config.hardware.dice is None:
                problem = 'no dice module in play (needs [game] dice = "module")'
            case Service() if config.hardware.service is None:
                problem = "no service button in this config (needs [hardware] service = PIN)"
        if problem:
            raise ScriptError(f"{name}:{step.line}: {step.command.word}: {problem}")


def run_step(runner: Actor, step: Step) -> None:
    """Carry out one script line on ``runner``'s box (a person's act, a fault,
    the world changing)."""
    person = runner.person
    match step.command:
        case Start(players):
            person.start_game(players)
        case Dice(faces):
            person.throw_next(faces)
        case ButtonPress(button, long):
            person.press(button, long=long)
            if button == "roll":
                person.await_module()
        case Shake():
            person.shake(step.line)
        case HoldBoth():
            person.hold_both()
        case Service():
            person.service()
        case MoveFlaps(tiles, shut):
            for tile in tiles:
                person.flap(tile, shut)
        case Wait(seconds):
            runner.time.advance(round(seconds * 1000))
        case Restart():
            runner.restart()
        case I2cFault(rate):
            runner.sim.set_i2c_error_rate(rate)
        case Brownout():
            runner.sim.brownout()
        case Plug(device, plugged):
            runner.sim.set_plugged(device, plugged)
        case Bounce(tile, edges):
            person.bounce(tile, edges)
        case IntWire(cut):
            runner.sim.set_int_cut(cut)
        case CutAfterWrites(writes):
            runner.disk.cut_after(writes)
        case DiskFull(full):
            runner.disk.full = full
        case Glitch(name, ms):
            person.contact(name, ms, bounce=False)
        case Press(name, ms):
            person.contact(name, ms, bounce=True)
        case Disk(profile):
            runner.disk.set_profile(profile)
        case Bus(hz):
            runner.sim.bus.hz = hz
        case _:
            assert_never(step.command)
