"""Power cuts between any two database writes, or between a write and its commit.

``cut-after-writes N`` pulls the plug right after the daemon's N-th write
(every event written and every commit counts), in the middle of a step if
that is where it falls; a new daemon then boots on the same database with the
flaps as they physically are. For every N of a three-player game of up to
three rounds on each match format, the game resumes and ends as the
uninterrupted one did: the same throws, turns, rounds, totals and winners.

The short form (the default) cuts at a spread of N; ``pytest --long`` at
every N (see tests/README.md for the figures).
"""

from __future__ import annotations

import pytest

from shutbox_hw.config import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import Step
from steady_player import SteadyPlayer, record_of

FORMATS = {
    "single-round": {"match": "single-round"},
    "elimination": {"match": "elimination", "threshold": 100},
    "race": {"match": "race"},
    "pool": {"match": "pool"},
}
SHORT_CUTS = 12   # cut points per format in the short form


def long_run(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--long", default=False))


def play(config, db, cut_after: int | None = None) -> tuple[SimRunner, list[dict]]:
    events: list[dict] = []
    runner = SimRunner(config, db, on_event=events.append)
    if cut_after is not None:
        runner.run(Step(0, "cut-after-writes", (cut_after,)))
    SteadyPlayer(runner, players=3, rounds=3, seed=7).play()
    return runner, events


def cut_points(total: int, full: bool) -> list[int]:
    if full or total <= SHORT_CUTS:
        return list(range(1, total + 1))
    step = total / (SHORT_CUTS - 2)
    return sorted({1, 2, total - 1, total, *(round(1 + i * step) for i in range(SHORT_CUTS - 2))})


@pytest.mark.parametrize("name", FORMATS)
def test_a_power_cut_after_any_write_resumes_the_same_game(name, tmp_path, request):
    config = load_config(rule_overrides=FORMATS[name])
    plain, _ = play(config, tmp_path / "plain.db")
    total = plain.disk.writes
    expected = record_of(tmp_path / "plain.db")
    assert expected["games"][0][2] == 1 and expected["integrity"] == "ok"
    tried = survived = 0
    failures = []
    for n in cut_points(total, long_run(request)):
        db = tmp_path / f"cut{n}.db"
        runner, events = play(config, db, cut_after=n)
        tried += 1
        got = record_of(db)
        if runner.power_cuts == 1 and got == expected:
            survived += 1
        else:
            failures.append((n, runner.power_cuts, {k: v for k, v in got.items()
                                                    if v != expected[k]}))
        db.unlink()
    print(f"{name}: {total} writes, cuts tried {tried}, survived {survived}")
    assert not failures, failures[:3]
