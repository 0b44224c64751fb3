"""How long a whole simulated self-test takes (wall time, medians), and how much
virtual time the simulated person spends on it.

Run: .venv/bin/python benchmarks/selftest_sim.py
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from shutbox_hw.config.config_file import load_config
from shutbox_hw.selftest import SelfTest
from shutbox_hw.selftest.sim import SimPerson, simulated_rig
from shutbox_hw.sim.box import SimulatedBox

ROOT = Path(__file__).resolve().parent.parent


def one_run(config) -> tuple[float, int]:
    t0 = time.perf_counter()
    sim = SimulatedBox(config)
    try:
        code = SelfTest(simulated_rig(sim), SimPerson(sim), lambda line: None).run()
    finally:
        sim.box.close()
    assert code == 0
    return time.perf_counter() - t0, sim.world.now_ms()


for build in ("gpio-9", "mcp23017-12"):
    config = load_config(ROOT / "hardware" / build / "shutbox.toml")
    runs = [one_run(config) for _ in range(11)]
    wall = statistics.median(r[0] for r in runs)
    print(f"{build}: median {wall * 1000:.0f} ms wall for {runs[0][1] / 1000:.1f} s "
          f"of virtual time (11 runs)")
