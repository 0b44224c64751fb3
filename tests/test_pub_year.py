"""A year in the pub as a test (issue 29, point 6): see ``pub_year.py``.

The short form plays ``SHORT_MATCHES`` matches (ten nights per preset, the
audits reset twice, the broker away for a fifth of them); ``pytest --long``
plays ``LONG_MATCHES`` on one database (tests/README.md has the figures).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from pub_year import play_year

from shutbox_hw.rules import PRESETS

SHORT_MATCHES = 4 * 10 * len(PRESETS)
LONG_MATCHES = 10_400


def test_a_year_in_the_pub_loses_nothing_and_every_figure_equals_a_recount(long_run):
    matches = LONG_MATCHES if long_run else SHORT_MATCHES
    seed = int(os.environ.get("SHUTBOX_YEAR_SEED", "0"))
    start = time.monotonic()
    scratch = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(dir=scratch) as work:
        year = play_year(seed, Path(work), matches)
    print(f"\na year in the pub: {year.matches} matches in {year.nights} nights, "
          f"{time.monotonic() - start:.1f} s; {year.resets} resets, {year.recounts} recounts, "
          f"outbox {year.outbox_peak} events at the broker's return; SQLite steps (tonight per"
          f" turn, audits) {year.read_steps}")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(year.by.items())))
    assert year.matches == matches and year.resets == 2
    assert set(year.by) == {f"preset {p}" for p in PRESETS}
