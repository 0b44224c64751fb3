"""``sim --script --world FILE``: the simulated world outside the daemon's process.

A real power cut (SIGKILL of ``shutbox-hw sim``) takes the daemon and the
simulated person with it, but not the world: the flaps stay where hands left
them and the script is as far as it got. So in this mode the world lives in
a small JSON file, replaced atomically:

- ``shut``: the flaps that are physically shut, written *before* each flap
  moves (the hand moves first, the box sees it after);
- ``line``: the next script line to run, and ``dice``: the throws queued by
  ``dice`` lines so far, written together when a line is done;
- ``before``: what the box showed when the current line began, and
  ``after``: what it showed when the last line was done.

A new process with the same ``--world`` and ``--db`` puts the flaps where they
are, boots the daemon (which resumes the game from the database) and goes on
from the interrupted line. The box does not keep its "New game?" question over
a power cut: a person who had it asked (the last line done left it asking, or
the interrupted line began with it) asks again. A person who pressed a button
just before the cut looks at the box first: if it already shows what the press did (the throw,
the next turn, the game started or ended) the line is done; otherwise they
press again. Flap lines are simply done again: a flap already where it should
be does not move. Flaps shut for a throw whose closure the box had not yet
taken were never saved; the box asks for them to be lifted, and the person
lifts them and shuts them again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.errors import UserError, clip, shown_path
from ..base.textfile import os_problem, read_text_file
from .runner import SimRunner
from .script_commands import ButtonPress, MoveFlaps, Start, Step
from .world_commands import Bus, Disk


class WorldFile:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {"line": 0, "shut": [], "dice": [], "before": None,
                                     "after": None}
        try:
            text = read_text_file(path, "world file", 1 << 20) if path.exists() else None
            if text is not None:
                loaded = json.loads(text)
                if not isinstance(loaded, dict) or not isinstance(loaded.get("line"), int) \
                        or not all(isinstance(t, int) for t in loaded.get("shut", [])):
                    raise ValueError("not a world file")
                self.data.update(loaded)
        except ValueError as error:
            raise UserError(f"--world {shown_path(path)}: not a world file of this "
                            f"simulator ({clip(str(error), 60)})") from None
        except OSError as error:
            raise UserError(f"--world {shown_path(path)}: {os_problem(error, 'world file')}"
                            ) from None

    def save(self) -> None:
        temp = self.path.with_name(self.path.name + ".new")
        temp.write_text(json.dumps(self.data))
        os.replace(temp, self.path)


def run_with_world(make_runner: Callable[[list[int]], SimRunner], steps: list[Step],
                   path: Path) -> SimRunner:
    """Run ``steps`` from where the world file says, keeping it up to date."""
    world = WorldFile(path)
    runner = make_runner(sorted(world.data["shut"]))
    for faces in world.data["dice"]:
        runner.sim.dice.queue(tuple(faces))
    runner.put_right()
    first = world.data["line"]
    for done in steps[:first]:   # the disk and the bus are as the lines before set them
        if isinstance(done.command, (Disk, Bus)):
            runner.run(done)
    seen = world.data["before"] or world.data["after"]   # in a line, or between two
    if seen is not None:
        _ask_again(runner, seen)
    for index in range(first, len(steps)):
        step = steps[index]
        resumed = index == first and world.data["before"] is not None
        if not (resumed and _already_done(runner, step, world.data["before"])):
            if not resumed:
                world.data["before"] = runner.shows()
                world.save()
            _run(runner, step, world)
        world.data["line"] = index + 1
        world.data["dice"] = [list(f) for f in runner.sim.dice.pending]
        world.data["before"] = None
        world.data["after"] = runner.shows()
        world.save()
    return runner


def _already_done(runner: SimRunner, step: Step, before: list[Any]) -> bool:
    """An interrupted press: True if the box shows it was taken (its queued
    throw is then spent)."""
    if not isinstance(step.command, (Start, ButtonPress)):
        return False
    now = runner.shows()
    if now == before:
        return False
    if isinstance(step.command, ButtonPress) and step.command.button == "roll" \
            and runner.sim.dice.pending:
        runner.sim.dice.pending.popleft()
    return True


def _ask_again(runner: SimRunner, seen: list[Any]) -> bool:
    """The box asked "New game?" (``seen``) and plays on since the power came
    back: it does not keep the question, so ask it again (a long NEXT)."""
    if seen[0] == "confirm" and runner.shows()[0] == "play":
        runner.press("next", long=True)
        return True
    return False


def _run(runner: SimRunner, step: Step, world: WorldFile) -> None:
    """One line; a flap's new place is written down before the hand moves it."""
    match step.command:
        case MoveFlaps(tiles, shut):
            flaps = set(world.data["shut"])
            for tile in tiles:
                (flaps.add if shut else flaps.discard)(tile)
                world.data["shut"] = sorted(flaps)
                world.save()
                runner.flap(tile, shut)
        case _:
            runner.run(step)
