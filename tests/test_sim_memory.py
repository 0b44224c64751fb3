"""The simulator does not grow (issue 29, point 4): a simulated box left running
for a week keeps no unbounded history.

gpiozero's ``MockPin`` appends every state change to ``pin.states``; the
simulated box's pins keep the newest only, and so do the inputs it took and
the events it printed. The short form measures what stays allocated per game
(tracemalloc) once the bounded histories have filled; ``pytest --long`` plays
2,000 games in one simulated box in a process of its own and compares its peak
RSS with the peak after its first 100 games.
"""

from __future__ import annotations

import gc
import json
import logging
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.parts import recent
from shutbox_hw.sim.parts.recent import Recent
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script, parse_script

SCRIPT = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"
WARM_GAMES = 3          # the short form's bounded histories fill up in these
SHORT_GAMES = 4
SHORT_KEEP = 64          # the short form's bounds (inputs kept, states a pin keeps):
SHORT_PIN_STATES = 8     # reached in a game or two, not a dozen
LONG_GAMES = 2000
LONG_FIRST = 100
GROWTH_PER_GAME = 8192       # bytes; gpiozero's own pin history alone was ~70 KB a game
PEAK_MARGIN_MB = 5


class Games:
    """One simulated box playing the scripted two-player game again and again."""

    def __init__(self, db: Path) -> None:
        config = load_config(None, preset="klappenspiel", rule_overrides={"threshold": "10"})
        self.game = (parse_script("open 1 2 3 4 5 6 7 8 9\n", 9)   # the table cleared
                     + load_script(SCRIPT, config.rules.tiles))
        self.to_idle = parse_script("roll\n", 9)
        self.runner = SimRunner(config, db, on_event=lambda e: None)

    def play(self, games: int) -> None:
        for _ in range(games):
            for step in self.game:
                self.runner.run(step)
            self.runner.let_ends_show()
            for step in self.to_idle:
                self.runner.run(step)
            assert self.runner.phase_now() == "idle"

    def close(self) -> None:
        self.runner.daemon.store.close()
        self.runner.sim.box.close()


def test_recent_keeps_positions_and_forgets_the_oldest():
    seen: Recent[int] = Recent(keep=10)
    seen.extend(range(5))
    start = len(seen)
    seen.extend(range(5, 40))
    assert len(seen) == 40 and seen[-1] == 39
    assert seen[len(seen) - 3:] == [37, 38, 39]
    assert list(seen)[0] >= 40 - 2 * 10                 # the oldest forgotten
    with pytest.raises(IndexError):
        seen[start:]                                    # ... and never half an answer
    later = len(seen)
    seen.append(40)
    assert seen[later:] == [40] and seen[later] == 40


@pytest.mark.slow      # seconds of work: pytest -m 'not slow' leaves it out
def test_a_simulated_box_keeps_no_growing_history(tmp_path, monkeypatch, caplog):
    """Traced from the start (tracemalloc sees only what it traced: an old block
    replaced by a new one would look like growth), with smaller bounds than the
    box's so that they are reached in a few games; the long form has the box's.
    The journal's lines are not kept by pytest meanwhile (they are the test's
    memory, not the box's)."""
    monkeypatch.setattr(recent, "PIN_STATES_KEPT", SHORT_PIN_STATES)
    caplog.set_level(logging.WARNING, logger="shutbox_hw")
    tracemalloc.start()
    try:
        games = Games(tmp_path / "box.db")
        games.runner.sim.seen.keep = SHORT_KEEP
        games.play(WARM_GAMES)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        games.play(SHORT_GAMES)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    try:
        pins = games.runner.sim.factory.pins.values()
        assert pins and max(len(pin.states) for pin in pins) <= SHORT_PIN_STATES
        assert len(games.runner.sim.view.events) < 200     # the last game's, not all
    finally:
        games.close()
    assert grown / SHORT_GAMES < GROWTH_PER_GAME, f"{grown / SHORT_GAMES:.0f} bytes a game"


CHILD = """
import json, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_sim_memory import Games
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
games = Games(Path({db!r}))
games.play({first})
first = peak()
games.play({rest})
print(json.dumps({{"first": first, "end": peak()}}))
games.close()
"""


def test_two_thousand_games_in_one_simulated_box(long_run, tmp_path):
    """``--long``: the peak after 2,000 games stays within a few MB of the first 100's."""
    if not long_run:
        pytest.skip("pytest --long plays the 2,000 games (the short form is the test above)")
    first, rest = LONG_FIRST, LONG_GAMES - LONG_FIRST
    out = subprocess.run([sys.executable, "-c", CHILD.format(
        tests=str(Path(__file__).parent), db=str(tmp_path / "box.db"), first=first,
        rest=rest)], check=True, capture_output=True, text=True, timeout=7200)
    peaks = json.loads(out.stdout.splitlines()[-1])
    print(f"\nsimulated box: peak RSS {peaks['first']:.1f} MB after {first} games, "
          f"{peaks['end']:.1f} MB after {first + rest}")
    assert peaks["end"] - peaks["first"] <= PEAK_MARGIN_MB
