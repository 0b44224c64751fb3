"""``shutbox-hw selftest``: check the I2C devices, LEDs and every switch's wiring,
with a person at the box (or, with ``--simulated``, a simulated one)."""

from __future__ import annotations

import argparse
import sys

from ...base.errors import UserError
from ...config.config_file import load_config
from ...hal.adapters.gpio import PIN_FACTORIES, default_pin_factory


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("selftest", help="check the box's wiring, LEDs and I2C devices")
    p.add_argument("--config", metavar="FILE", help="the config file whose [hardware] "
                   "table says how the box is wired (default: reference build (a))")
    p.add_argument("--simulated", action="store_true",
                   help="run against the simulated box, with a simulated person")
    p.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                   help="how long to wait for each flap or button (default 20)")
    p.add_argument("--pin-factory", choices=[f for f in PIN_FACTORIES if f != "mock"],
                   default=default_pin_factory(),
                   help="gpiozero pin factory on the box (default lgpio, or "
                        "$GPIOZERO_PIN_FACTORY)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.timeout <= 600:
        raise UserError(f"--timeout: {args.timeout:g} is outside 1..600 seconds")
    config = load_config(args.config)
    from ...selftest import Person, SelfTest
    from ...selftest.terminal import TerminalPerson, real_rig
    terminal = TerminalPerson(sys.stdout)
    person: Person
    if args.simulated:
        from ...selftest.sim import SimPerson, simulated_rig
        from ...sim.box import SimulatedBox
        sim = SimulatedBox(config)
        rig = simulated_rig(sim)
        person = SimPerson(sim, say=terminal.say)
    else:
        # a pin the kernel took at boot (config.txt) would only show up as "busy"
        from ...config.boot_config import find_boot_config, kernel_pin_problems
        kernel = kernel_pin_problems(config.hardware, find_boot_config())
        if kernel:
            raise UserError("\n".join(kernel))
        rig = real_rig(config.hardware, args.pin_factory)
        person = terminal
    try:
        from ...config.config_file import default_db_path
        record = None if args.simulated else config.db or default_db_path()
        return SelfTest(rig, person, terminal.say, timeout_ms=round(args.timeout * 1000),
                        record=record).run()
    except KeyboardInterrupt:
        terminal.say("selftest: aborted")
        return 130
    finally:
        rig.close()
