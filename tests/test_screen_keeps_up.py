"""Issue 42, item 4: a screen that keeps up. The box's own example scripts played
on the simulated box (the real daemon, the real display driver and a simulated
panel), with no waits at all and then at slower paces: every screen the daemon
drew is held against what a person at the box knows from the events it printed
and the flaps under their hands. Once a player has thrown, the OLED is theirs:
their play screen, their dice, never the previous player's end with a "lift"
naming flaps the new player has legitimately shut. After every script line the
panel's pixels are the last screen drawn (the OLED is not behind the daemon).
At a pub's pace the previous end's steps are still all seen (issue 18)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.display.screens import PlayScreen, ScoreboardScreen, Screen, TurnEndScreen
from shutbox_hw.hal.adapters.panel_pages import page_bytes
from shutbox_hw.render import render
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

SCRIPTS = Path(__file__).parent / "scripts"


def lift_named(text: str) -> set[int]:
    """The flaps a "lift ..." text names (ranges like 3-5 too)."""
    m = re.search(r"lift ([\d, -]+)", text)
    tiles: set[int] = set()
    if m:
        for part in m.group(1).strip(" ,-").split(","):
            a, _, b = part.strip().partition("-")
            tiles |= set(range(int(a), int(b or a) + 1))
    return tiles


class Person:
    """What a person at the box knows: the printed events and the flaps."""

    def __init__(self) -> None:
        self.player: str | None = None     # whose turn is under way
        self.thrown = False                # ... and they have thrown in it
        self.dice: tuple[int, ...] | None = None
        self.committed: set[int] = set()   # flaps the turn's committed throws shut
        self.ended: list[tuple[str, int]] = []        # each turn's end (player, score)
        self.rounds: list[int] = []

    def event(self, e: dict[str, Any]) -> None:
        kind = e["event"]
        if kind == "turn_started":
            self.player, self.thrown, self.dice, self.committed = e["player"], False, None, set()
        elif kind == "rolled" and e["player"] == self.player:
            self.thrown, self.dice = True, tuple(e["dice"]) if e["dice"] else None
        elif kind == "throw_committed":
            self.dice = None
            self.committed |= set(e["closed"])
        elif kind == "turn_ended":
            self.ended.append((e["player"], e["score"]))
            self.player, self.thrown = None, False
        elif kind == "round_ended":
            self.rounds.append(e["round"])


def play(script: str, pace_s: float, tmp_path: Path, preset: str | None = None,
         tiles: int = 9) -> tuple[list[Screen], Person]:
    """The script with ``wait pace_s`` after every line; each screen drawn is checked."""
    person = Person()
    runner = SimRunner(load_config(preset=preset), tmp_path / f"{pace_s}.db",
                       on_event=person.event)
    drawn: list[Screen] = []
    real = runner.daemon.render

    def draw(screen: Screen) -> Any:
        check(screen, person, set(runner.sim.shut))
        drawn.append(screen)
        return real(screen)
    runner.daemon.render = draw
    lines = [line for line in script.splitlines() if line.strip() and not line.startswith("#")]
    if pace_s:
        lines = [part for line in lines for part in (line, f"wait {pace_s}")]
    panel = runner.sim.panel
    for step in parse_script("\n".join(lines) + "\n", tiles):
        runner.run(step)
        # the OLED keeps up: its pixels are the last screen the daemon drew
        assert panel.model.shown() == page_bytes(panel.device.preprocess(render(drawn[-1]))), \
            (step, drawn[-1])
    runner.finish()
    runner.daemon.store.close()
    return drawn, person


def check(screen: Screen, person: Person, shut: set[int]) -> None:
    """One screen against what the person knows as it is drawn."""
    words = f"{getattr(screen, 'prompt', '') or ''} {getattr(screen, 'message', '') or ''}"
    named = lift_named(words)
    assert named <= shut, f"{words!r} names {sorted(named - shut)}, open; shut: {sorted(shut)}"
    if person.player is None or not person.thrown:
        return
    # a turn has begun: the screen is that player's play, their dice, their flaps
    assert isinstance(screen, PlayScreen), (person.player, screen)
    assert screen.player == person.player and screen.prompt != "no move", screen
    assert screen.dice == person.dice, (screen.dice, person.dice)
    assert not named & person.committed, (words, sorted(person.committed))
    assert set(screen.open_tiles).isdisjoint(person.committed)


PACES = (0, 0.05, 0.3, 0.7, 2.5)     # no waits at all, up to a pub's pace


@pytest.mark.parametrize("pace", PACES)
def test_the_two_player_script_at_any_pace(pace, tmp_path):
    drawn, person = play((SCRIPTS / "two-player-klappenspiel.txt").read_text(), pace, tmp_path)
    assert person.ended[:2] == [("P1", 0), ("P2", 9)] and person.rounds[:1] == [1]
    ends = [s for s in drawn if isinstance(s, (TurnEndScreen, ScoreboardScreen))]
    assert ends                       # the steps of an end are drawn between turns
    if pace >= 2.5:
        # a pub's pace: every turn's score and every round's scoreboard are seen
        seen = {(s.player, s.score) for s in drawn if isinstance(s, TurnEndScreen)}
        assert seen == set(person.ended)
        boards = [s.round for s in drawn if isinstance(s, ScoreboardScreen)]
        assert sorted(set(boards)) == sorted(set(person.rounds))


@pytest.mark.parametrize("pace", (0, 0.3))
def test_a_pool_night_played_at_once(pace, tmp_path):
    """A three-player pool's round played with no waits: the pot and the balance
    stay on each player's own screen."""
    turn = ("dice 6 6\nroll\nclose 3 9\ndice 6 6\nroll\nclose 4 8\ndice 6 6\nroll\n"
            "close 5 7\ndice 6 6\nroll\nopen 3 4 5 7 8 9\n")
    drawn, person = play("start 3\n" + turn * 6, pace, tmp_path, preset="pub")
    assert [p for p, _ in person.ended] == ["P1", "P2", "P3"] * 2
    plays = [s for s in drawn if isinstance(s, PlayScreen) and s.dice is not None]
    assert plays and all(s.pot is not None and s.balance is not None for s in plays)
