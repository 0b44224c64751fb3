"""A player who plays one fixed game on the simulated box whatever it goes
through (power cuts, a full disk): the dice of each throw depend only on
(round, seat, throw number) and the closure is the first legal one, so every
run of the same seed is the same game. The player looks at the box before
each move, as a person would: its screen, its lights and the events it printed
(:class:`~shutbox_hw.sim.observed.Observed`), never the controller's state; and
puts right what a power cut undid: a press the box never took is pressed again,
a flap it never counted is lifted and shut again.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

from shutbox_hw.rules import (
    allowed_dice_counts,
    dice_choice,
    full_board,
    legal_closures,
    mask_of,
    tiles_of,
)
from shutbox_hw.sim.runner import SimRunner


class SteadyPlayer:
    def __init__(self, runner: SimRunner, *, players: int, rounds: int, seed: int) -> None:
        self.runner = runner
        self.players = players
        self.rounds = rounds
        self.seed = seed

    def faces(self, round_number: int, seat: int, throw: int, count: int) -> tuple[int, ...]:
        rng = random.Random(f"{self.seed}/{round_number}/{seat}/{throw}")
        return tuple(rng.randint(1, 6) for _ in range(count))

    def _game_over_on_disk(self) -> bool:
        con = sqlite3.connect(self.runner.db_path)
        try:
            return con.execute("SELECT count(*) FROM games WHERE ended_at IS NOT NULL"
                               ).fetchone()[0] > 0
        finally:
            con.close()

    def play(self, limit: int = 4000) -> None:
        runner = self.runner
        view, rules = runner.sim.view, runner.config.rules
        for _ in range(limit):
            phase = runner.phase_now()
            if phase == "over" or phase == "play" and view.game_ended():
                return
            if phase == "confirm":
                runner.press("roll")           # we asked to stop the game
                continue
            if phase == "idle":
                if self._game_over_on_disk():
                    return                     # the power went right after the end
                runner.start_game(self.players)
                continue
            if view.rounds_ended() >= self.rounds:
                runner.press("next", long=True)  # enough rounds: stop the game
                continue
            shut = [t for t in range(1, rules.tiles + 1) if runner.sim.is_shut(t)]
            turn = view.turn()
            if turn is None:
                if shut:
                    runner.flap(shut[0], False)
                else:
                    runner.advance(50)
                continue
            blinking = view.blinking()
            rejected = [t for t in blinking if t in shut]      # lift these
            reopened = [t for t in blinking if t not in shut]  # shut these again
            if rejected:
                runner.flap(rejected[0], False)
                continue
            if reopened:
                runner.flap(reopened[0], True)
                continue
            open_mask = full_board(rules.tiles) & ~mask_of(turn.committed)
            if turn.dice is None:
                counts = allowed_dice_counts(dice_choice(rules, open_mask))
                count = 2 if 2 in counts else 1
                runner.sim.dice.pending.clear()
                runner.sim.dice.queue(self.faces(turn.round, turn.seat, turn.throws + 1, count))
                runner.press("roll")
                continue
            closures = legal_closures(rules, open_mask, turn.dice)
            if not closures:
                raise AssertionError(f"stuck: the box shows {turn.dice}, which has no move")
            closure = min(closures)
            missing = [t for t in tiles_of(closure) if t not in shut]
            if missing:
                runner.flap(missing[0], True)
            else:
                runner.advance(runner.config.game.settle_ms + 50)
        raise AssertionError("the game did not end")


def record_of(db: Path) -> dict[str, Any]:
    """What the database says about its one game: everything a replay must match."""
    con = sqlite3.connect(db)
    try:
        games = con.execute("SELECT winners, abandoned, ended_at IS NOT NULL FROM games"
                            ).fetchall()
        turns = con.execute("SELECT round, seat, open_tiles, score, final_score, shut"
                            " FROM turns ORDER BY id").fetchall()
        throws = con.execute("SELECT t.round, t.seat, h.number, h.dice, h.closed FROM throws h"
                             " JOIN turns t ON t.id = h.turn_id ORDER BY t.id, h.number"
                             ).fetchall()
        rounds = con.execute("SELECT number, result FROM rounds ORDER BY number").fetchall()
        check = con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()
    return {"games": games, "turns": turns, "throws": throws, "rounds": rounds,
            "integrity": check}


class ScriptRecorder(SimRunner):
    """A runner that writes down the person's actions as ``sim`` script lines."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.lines: list[str] = []
        self._depth = 0
        super().__init__(*args, **kwargs)
        real_queue = self.sim.dice.queue

        def queue(faces: tuple[int, ...]) -> None:
            self.lines.append("dice " + " ".join(map(str, faces)))
            real_queue(faces)

        self.sim.dice.queue = queue

    def _top(self, line: str, action, *args: Any) -> None:
        if self._depth == 0:
            self.lines.append(line)
        self._depth += 1
        try:
            action(*args)
        finally:
            self._depth -= 1

    def start_game(self, players: int) -> None:
        self._top(f"start {players}", super().start_game, players)

    def press(self, button: str, long: bool = False) -> None:
        line = {("roll", False): "roll", ("roll", True): "roll1",
                ("next", False): "next", ("next", True): "hold-next"}[(button, long)]
        self._top(line, super().press, button, long)

    def flap(self, tile: int, shut: bool) -> None:
        self._top(f"{'close' if shut else 'open'} {tile}", super().flap, tile, shut)

    def advance(self, ms: int) -> None:
        self._top(f"wait {ms / 1000}", super().advance, ms)
