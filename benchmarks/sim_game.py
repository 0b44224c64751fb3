"""How long the simulator takes for whole games on its virtual clock.

Runs seed 001's practice round (crafthouse-12, 21 throws, every flap through
bouncing simulated switches and the debouncer) and the two-player
klappenspiel script, on the direct-GPIO and the MCP23017 reference builds,
and prints the median wall time of several runs: bare (no rater, no claims socket:
what ``sim`` without ``--db`` runs, and ``sim --db`` ran before issue 39 item 8), and as
the whole box ``sim --db`` wires now (the move rater rating on the step that woke it, the
claims socket listening). The solver's tables are the disk cache's (warm after one run).

    .venv/bin/python benchmarks/sim_game.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from shutbox_hw.claims.place import for_simulator
from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script

ROOT = Path(__file__).resolve().parent.parent
CASES = [
    ("practice round, gpio-9 rules crafthouse-12", None, "crafthouse-12",
     "practice-001.txt", {}),
    ("practice round, mcp23017-12", ROOT / "hardware/mcp23017-12/shutbox.toml", None,
     "practice-001.txt", {}),
    ("two-player klappenspiel", None, "klappenspiel", "two-player-klappenspiel.txt",
     {"threshold": "10"}),
]


def run_once(config_path, preset, script, overrides, whole: bool = False) -> tuple[float, int]:
    from shutbox_hw.skill.rater import InlineRater
    config = load_config(config_path, preset=preset, rule_overrides=overrides)
    steps = load_script(ROOT / "tests" / "scripts" / script, config.rules.tiles)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "db"
        start = time.perf_counter()
        rater = InlineRater(db) if whole else None
        runner = SimRunner(config, db, on_event=lambda e: None, rater=rater,
                           claims_path=for_simulator(config.network, db) if whole else None)
        for step in steps:
            runner.run(step)
        elapsed = time.perf_counter() - start
        virtual = runner.world.now_ms()
        runner.close()
        if rater is not None:
            rater.stop()
        runner.sim.box.close()
    return elapsed, virtual


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    for name, config_path, preset, script, overrides in CASES:
        run_once(config_path, preset, script, overrides, True)   # the solver's tables made
        wall: dict[bool, list[float]] = {False: [], True: []}
        cpu: dict[bool, list[float]] = {False: [], True: []}
        virtual = 0
        for _ in range(repeats):   # bare and whole in turn: a busy machine slows both alike
            for whole in (False, True):
                began = time.process_time()   # every thread's: the rater's, the socket's
                elapsed, virtual = run_once(config_path, preset, script, overrides, whole)
                cpu[whole].append(time.process_time() - began)
                wall[whole].append(elapsed)
        for whole in (False, True):
            print(f"{name}, {'whole box (rater, claims)' if whole else 'bare'}: median "
                  f"{statistics.median(wall[whole]) * 1000:.0f} ms wall, "
                  f"{statistics.median(cpu[whole]) * 1000:.0f} ms CPU for "
                  f"{virtual / 1000:.1f} s of virtual time ({repeats} runs)")


if __name__ == "__main__":
    main()
