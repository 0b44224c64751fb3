"""A pub night as a test (issue 18): whole matches on every preset and on house
rules, with software, manual and module dice and 1-8 players, played with
the players' real habits; liveness and truth checked after every step (see
``pub_night.py``, and ``pub_referee.py`` for the independent computation).

The default run plays ``SHORT_MATCHES`` matches; ``pytest --long`` plays
``LONG_MATCHES`` (tests/README.md has the figures).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from pub_night import Figures, play_night

SHORT_MATCHES = 200
LONG_MATCHES = 10_000
MATCHES_PER_NIGHT = 4     # one box (one database) through this many matches


def _scratch() -> str | None:
    """A RAM disk when there is one: the night commits a transaction per step."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def test_a_pub_night_never_stops_a_game_and_the_box_always_tells_the_truth(long_run):
    matches = LONG_MATCHES if long_run else SHORT_MATCHES
    base = int(os.environ.get("SHUTBOX_PUB_SEED", "0"))
    total = Figures()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(dir=_scratch()) as work:
        night = 0
        while total.matches < matches:
            figures = play_night(base + night, Path(work) / f"night-{night}.db",
                                 min(MATCHES_PER_NIGHT, matches - total.matches))
            total.add(figures)
            night += 1
    seconds = time.monotonic() - start
    print(f"\npub night: {total.matches} matches in {night} nights, {total.steps} steps, "
          f"{seconds:.1f} s; end steps shown {total.ends_shown}, given way to the next "
          f"player's play {total.ends_given_way}, cut by the power {total.ends_cut}; "
          f"liveness probes {total.probes}")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(total.by.items())))
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(total.habits.items())))
    assert total.matches == matches


SIM_MATCHES = 12
LONG_SIM_MATCHES = 200


def test_a_pub_night_on_the_whole_simulated_box(long_run, tmp_path):
    """The same players and checks on the real daemon, switches, display and
    dice module firmware (fewer matches: each input runs the simulator)."""
    from pub_night_sim import SimNight
    matches = LONG_SIM_MATCHES if long_run else SIM_MATCHES
    base = int(os.environ.get("SHUTBOX_PUB_SEED", "0")) + 100_000
    total = Figures()
    start = time.monotonic()
    night = 0
    while total.matches < matches:
        total.add(play_night(base + night, tmp_path / f"sim-{night}.db",
                             min(2, matches - total.matches), box=SimNight))
        night += 1
    print(f"\npub night on the simulated box: {total.matches} matches in {night} nights, "
          f"{total.steps} inputs, {time.monotonic() - start:.1f} s; end steps shown "
          f"{total.ends_shown}, given way {total.ends_given_way}, cut by the power "
          f"{total.ends_cut}")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(total.by.items())))
    assert total.matches == matches
