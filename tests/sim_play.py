"""Helpers for whole games on the simulated box: the comparison of two runs'
game events, and a player who plays long games by looking at the box."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from shutbox_hw.config.config_file import Config
from shutbox_hw.rules import dice_choice, full_board, legal_closures, tiles_of
from shutbox_hw.sim.runner import SimRunner, check_steps
from shutbox_hw.sim.script import parse_script

NOT_GAME = ("fault", "recovered", "resumed")


def game_events(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The game as the players saw it: from the first ``game_started`` to the
    last ``game_ended``, leaving out ``fault``, ``recovered`` and ``resumed``
    and an event that merely repeats the one before it (a screen shown again).

    Two runs of one script, with and without hardware faults, must give equal lists.
    """
    events = [e for e in events if e["event"] not in NOT_GAME]
    starts = [i for i, e in enumerate(events) if e["event"] == "game_started"]
    ends = [i for i, e in enumerate(events) if e["event"] == "game_ended"]
    if starts and ends:
        events = events[starts[0]:ends[-1] + 1]
    out: list[dict[str, Any]] = []
    for event in events:
        if not out or event != out[-1]:
            out.append(event)
    return out


def with_restarts(text: str) -> str:
    """The script with ``restart`` after every command line."""
    out = []
    for line in text.splitlines():
        out.append(line)
        if line.split("#")[0].strip():
            out.append("restart")
    return "\n".join(out) + "\n"


def play_script(config: Config, text: str, db: Path, *, seed: int = 0
                ) -> tuple[SimRunner, list[dict[str, Any]]]:
    """Run a script as ``shutbox-hw sim --script`` does; the runner and its events."""
    events: list[dict[str, Any]] = []
    steps = parse_script(text, config.rules.tiles)
    check_steps(steps, config)
    runner = SimRunner(config, db, seed=seed, on_event=events.append)
    for step in steps:
        runner.run(step)
    return runner, events


class Player:
    """Plays a game on a runner by looking at what the box shows (its events)
    and the flaps, and writes down every script line it used, so the same game
    can be played again line by line (with faults mixed in)."""

    def __init__(self, runner: SimRunner, events: list[dict[str, Any]], seed: int) -> None:
        self.runner = runner
        self.events = events
        self.rules = runner.config.rules
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.throws = 0

    def do(self, line: str) -> None:
        self.lines.append(line)
        for step in parse_script(line, self.rules.tiles):
            self.runner.run(step)

    def _shut(self) -> list[int]:
        return [t for t in range(1, self.rules.tiles + 1) if self.runner.sim.is_shut(t)]

    def play(self, players: int, throws: int, *, every: int = 0,
             marker: str = "wait 0.3") -> list[str]:
        """Start a game and throw ``throws`` times, then stop it (long NEXT, ROLL).
        With ``every``, the line ``marker`` follows every ``every``-th throw."""
        self.do(f"start {players}")
        while self.throws < throws:
            if not any(e["event"] == "turn_started" for e in self.events[-3:]) and \
                    self._shut() and self._turn_over():
                self.do("open " + " ".join(map(str, self._shut())))
                continue
            open_mask = full_board(self.rules.tiles) & ~sum(1 << (t - 1) for t in self._shut())
            count = 1 if dice_choice(self.rules, open_mask) == "one" else 2
            faces = [self.rng.randint(1, 6) for _ in range(count)]
            seen = len(self.events)
            self.do("dice " + " ".join(map(str, faces)))
            self.do("roll")
            self.throws += 1
            if every and self.throws % every == 0:
                self.do(marker)
            new = [e["event"] for e in self.events[seen:]]
            if "turn_ended" in new:
                continue
            closures = legal_closures(self.rules, open_mask, tuple(faces))
            if closures:
                self.do("close " + " ".join(map(str, tiles_of(self.rng.choice(closures)))))
        self.do("hold-next")
        self.do("roll")
        return self.lines

    def _turn_over(self) -> bool:
        kinds = [e["event"] for e in self.events]
        last_end = max((i for i, k in enumerate(kinds) if k == "turn_ended"), default=-1)
        last_start = max((i for i, k in enumerate(kinds) if k == "turn_started"), default=-1)
        return last_end > last_start

