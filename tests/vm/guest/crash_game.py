"""The crash rehearsal's game: one fixed multi-round game with manual dice.

With manual dice the box never sees the dice: the person marks each throw with
ROLL, shuts flaps, and ends a turn with NEXT twice. :class:`ManualPlayer`
plays such a game on the simulated box by looking at it (its screen, its
lights and the events it printed, or on a resumed box their record; never the
controller's state): the dice of a throw are imagined from (seed, round, seat,
throw number) alone and the closure is the first legal one,
so from any state, after any power cut, it plays the same game on to the same
end. It writes down what it did (presses, flaps, waits) and how many game
events the box had shown after each action: the rehearsal plays that list on
the real daemon through gpio-sim.

Run with the box's own venv (it imports shutbox_hw) and the tests directory on
``sys.path`` (``record_of`` is the power-cut suites' own).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from steady_player import SteadyPlayer, record_of

from shutbox_hw.config.config_file import Config, load_config
from shutbox_hw.rules import (
    allowed_dice_counts,
    dice_choice,
    full_board,
    legal_closures,
    mask_of,
    tiles_of,
)
from shutbox_hw.sim.runner import SimRunner

PLAYERS = 2
MIN_ROUNDS = 3
WAIT_MS = 50


@dataclass
class Action:
    kind: str                  # "press", "flap" or "wait"
    args: tuple[Any, ...]      # (button, long) | (tile, shut) | (ms,)
    events: int = 0            # game events shown once it was done (cumulative)


@dataclass
class Played:
    actions: list[Action] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


def game_config(path: Path) -> Config:
    return load_config(path)


class ManualPlayer(SteadyPlayer):
    """The power-cut suites' steady player (its dice and its look at the disk),
    for manual dice: it presses where that player reads the box's dice."""

    def __init__(self, runner: SimRunner, seed: int, played: Played | None = None) -> None:
        super().__init__(runner, players=PLAYERS, rounds=0, seed=seed)
        self.played = played

    def _act(self, kind: str, *args: Any) -> None:
        if kind == "press":
            self.runner.press(*args)
        elif kind == "flap":
            self.runner.flap(*args)
        else:
            self.runner.advance(*args)
        if self.played is None:
            return
        actions = self.played.actions
        if kind == "wait" and actions and actions[-1].kind == "wait":
            actions[-1].args = (actions[-1].args[0] + args[0],)
            actions[-1].events = len(self.played.events)
        else:
            actions.append(Action(kind, args, len(self.played.events)))

    def play(self, limit: int = 5000) -> None:
        runner = self.runner
        view, rules = runner.sim.view, runner.config.rules
        for _ in range(limit):
            phase = runner.phase_now()
            if phase == "over" or phase == "play" and view.game_ended():
                return
            if phase == "idle":
                if self._game_over_on_disk():
                    return                  # the power went right after the end
                if view.player_count != PLAYERS:
                    self._act("press", "next", False)
                else:
                    self._act("press", "roll", False)
                continue
            if phase != "play":
                raise AssertionError(f"the box is in {phase!r}, which this player never asks for")
            shut = [t for t in range(1, rules.tiles + 1) if runner.sim.is_shut(t)]
            turn = view.turn()
            if turn is None:                # between turns: lift the flaps, wait
                if shut:
                    self._act("flap", shut[0], False)
                else:
                    self._act("wait", WAIT_MS)
                continue
            blinking = view.blinking()
            rejected = [t for t in blinking if t in shut]       # lift these
            reopened = [t for t in blinking if t not in shut]   # shut these again
            if rejected:
                self._act("flap", rejected[0], False)
                continue
            if reopened:
                self._act("flap", reopened[0], True)
                continue
            if not turn.thrown:
                self._act("press", "roll", False)     # mark a throw
                continue
            open_mask = full_board(rules.tiles) & ~mask_of(turn.committed)
            counts = allowed_dice_counts(dice_choice(rules, open_mask))
            dice = self.faces(turn.round, turn.seat, turn.throws + 1, 2 if 2 in counts else 1)
            closures = legal_closures(rules, open_mask, dice)
            if not closures:
                self._act("press", "next", False)     # "No move?", then the turn ends
                continue
            missing = [t for t in tiles_of(min(closures)) if t not in shut]
            if missing:
                self._act("flap", missing[0], True)
            else:
                self._act("press", "roll", False)     # take it and mark the next throw
        raise AssertionError("the game did not end")


def play_reference(config: Config, db: Path, seed: int) -> Played:
    """The uninterrupted game on the simulated box, written down."""
    played = Played()
    runner = SimRunner(config, db, on_event=played.events.append)
    ManualPlayer(runner, seed, played).play()
    runner.daemon.store.close()
    return played


def choose_seed(config: Config, scratch: Path, first: int = 1) -> tuple[int, Played]:
    """The first seed whose game lasts at least MIN_ROUNDS rounds."""
    for seed in range(first, first + 50):
        db = scratch / f"seed-{seed}.db"
        played = play_reference(config, db, seed)
        ended = [e for e in played.events if e["event"] == "game_ended"]
        for f in scratch.glob(f"seed-{seed}.db*"):
            f.unlink()
        if ended and ended[0]["rounds"] >= MIN_ROUNDS:
            return seed, played
    raise AssertionError(f"no game of {MIN_ROUNDS} rounds among 50 seeds")


def play_on(config: Config, db: Path, shut: tuple[int, ...], seed: int) -> list[dict[str, Any]]:
    """Boot the box on ``db`` with the flaps ``shut`` (as a power cut left them),
    play the game on to its end; the events the box showed, from its boot."""
    events: list[dict[str, Any]] = []
    runner = SimRunner(config, db, on_event=events.append, shut=shut)
    ManualPlayer(runner, seed).play()
    runner.daemon.store.close()
    return events


def boot_events(config: Config, found: Path, work: Path,
                shut: tuple[int, ...]) -> list[dict[str, Any]]:
    """The events the simulated box shows when it boots on a copy of the database
    files in ``found`` with the flaps ``shut`` (as JSON gives them back)."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(found, work)
    events: list[dict[str, Any]] = []
    runner = SimRunner(config, work / "shutbox.db", on_event=events.append, shut=shut)
    runner.daemon.store.close()
    return json.loads(json.dumps(events))


__all__ = ["Action", "boot_events", "ManualPlayer", "Played", "choose_seed", "game_config",
           "play_on", "play_reference", "record_of"]
