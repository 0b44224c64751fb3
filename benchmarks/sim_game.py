"""How long the simulator takes for whole games on its virtual clock.

Runs seed 001's practice round (crafthouse-12, 21 throws, every flap through
bouncing simulated switches and the debouncer) and the two-player
klappenspiel script, on the direct-GPIO and the MCP23017 reference builds,
and prints the median wall time of several runs.

    .venv/bin/python benchmarks/sim_game.py [repeats]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

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


def run_once(config_path, preset, script, overrides) -> tuple[float, int]:
    config = load_config(config_path, preset=preset, rule_overrides=overrides)
    steps = load_script(ROOT / "tests" / "scripts" / script, config.rules.tiles)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        runner = SimRunner(config, Path(tmp) / "db", on_event=lambda e: None)
        for step in steps:
            runner.run(step)
        elapsed = time.perf_counter() - start
        virtual = runner.world.now_ms()
        runner.sim.box.close()
    return elapsed, virtual


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    for name, config_path, preset, script, overrides in CASES:
        times, virtual = [], 0
        for _ in range(repeats):
            elapsed, virtual = run_once(config_path, preset, script, overrides)
            times.append(elapsed)
        print(f"{name}: median {statistics.median(times) * 1000:.0f} ms wall "
              f"for {virtual / 1000:.1f} s of virtual time ({repeats} runs)")


if __name__ == "__main__":
    main()
