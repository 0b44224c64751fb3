"""Does the OLED keep up with quick play (issue 42, item 4)?

Plays the README's two-player example script (tests/scripts/two-player-klappenspiel.txt)
on the simulated box (the real daemon, display driver and panel, on the virtual
clock) with ``wait PACE`` after every line, and prints for each pace:

- screens: the screens the daemon drew;
- stale: those drawn while a player's turn had begun (they had thrown) that were
  not that player's play screen (the previous end, its "lift ..." over their flaps);
- dice shown: the throws whose dice a screen showed the player before the throw
  was taken, of all throws (a throw with no move ends the turn at once: its dice
  are on the "no move" step, not counted here);
- throw->dice: the longest, in virtual ms, from a player's throw (its ``rolled``
  event) to the first screen showing them their dice;
- ends seen: distinct turn ends and scoreboards drawn, of those the game owed.

    .venv/bin/python benchmarks/oled_keeps_up.py [PACE ...]   (s; default 0 0.05 0.3 0.7 2.5)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.display.screens import PlayScreen, ScoreboardScreen, Screen, TurnEndScreen
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

SCRIPT = Path(__file__).resolve().parent.parent / "tests" / "scripts" / \
    "two-player-klappenspiel.txt"


def measure(pace_s: float, folder: Path) -> dict[str, Any]:
    turn: dict[str, Any] = {"player": None, "thrown": False, "dice": None, "at": 0}
    owed: set[tuple[str, Any]] = set()
    waits: list[int] = []
    throws: list[int] = []

    def event(e: dict[str, Any]) -> None:
        kind = e["event"]
        if kind == "turn_started":
            turn.update(player=e["player"], thrown=False, dice=None)
        elif kind == "rolled" and e["player"] == turn["player"] and e["dice"]:
            turn.update(thrown=True, dice=tuple(e["dice"]), at=runner.world.now_ms())
            throws.append(turn["at"])
        elif kind == "turn_ended":
            turn.update(player=None, thrown=False, dice=None)
            owed.add(("turn end", (e["player"], e["score"])))
        elif kind == "round_ended":
            owed.add(("scoreboard", e["round"]))

    runner = SimRunner(load_config(), folder / f"{pace_s}.db", on_event=event)
    drawn: list[Screen] = []
    stale = 0
    real = runner.daemon.render

    def draw(screen: Screen) -> Any:
        nonlocal stale
        drawn.append(screen)
        if turn["player"] is not None and turn["thrown"]:
            mine = isinstance(screen, PlayScreen) and screen.player == turn["player"] \
                and screen.prompt != "no move"
            stale += not mine
            if mine and turn["dice"] is not None and screen.dice == turn["dice"]:
                waits.append(runner.world.now_ms() - turn["at"])
                turn["dice"] = None
        return real(screen)
    runner.daemon.render = draw
    lines = [line for line in SCRIPT.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    if pace_s:
        lines = [part for line in lines for part in (line, f"wait {pace_s}")]
    for step in parse_script("\n".join(lines) + "\n", 9):
        runner.run(step)
    runner.finish()
    runner.daemon.store.close()
    seen = {("turn end", (s.player, s.score)) for s in drawn if isinstance(s, TurnEndScreen)}
    seen |= {("scoreboard", s.round) for s in drawn if isinstance(s, ScoreboardScreen)}
    return {"pace_s": pace_s, "screens": len(drawn), "stale": stale,
            "throw_to_dice_ms": max(waits, default=0), "throws": len(throws),
            "throws_shown": len(waits), "ends_seen": len(seen & owed),
            "ends_owed": len(owed)}


def main(argv: list[str]) -> None:
    paces = [float(a) for a in argv] or [0, 0.05, 0.3, 0.7, 2.5]
    with tempfile.TemporaryDirectory() as work:
        print(f"{'pace s':>7} {'screens':>8} {'stale':>6} {'dice shown':>11} "
              f"{'throw->dice ms':>15} {'ends seen':>10}")
        for pace in paces:
            r = measure(pace, Path(work))
            print(f"{r['pace_s']:>7g} {r['screens']:>8} {r['stale']:>6} "
                  f"{r['throws_shown']:>7}/{r['throws']:<3} {r['throw_to_dice_ms']:>15} "
                  f"{r['ends_seen']:>6}/{r['ends_owed']}")


if __name__ == "__main__":
    main(sys.argv[1:])
