"""A bare table for controller tests: events in by hand, effects collected.

Dice asked for with RollDice are taken from a queue the test fills, the way
a player would set the dice in seed 001's practice round.
"""

from __future__ import annotations

from shutbox_hw.base.events import ButtonPressed, DiceRolled, FlapChanged, Tick
from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.game.machine.effects import Emit, Lights, RollDice, Show
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.rules import build_rules


class Table:
    def __init__(self, preset="klappenspiel", overrides=None, shut=0, saved=None,
                 advisor=None, store=None, **game):
        self.rules = build_rules(preset, overrides or {})
        self.game = GameConfig(**game)
        self.advisor = advisor
        self.store = store
        self.controller = Controller(self.rules, self.game, advisor=advisor)
        self.now = 0
        self.shut = shut              # the flaps as the test moved them
        self.events: list[dict] = []
        self.screen = None
        self.shown: list = []         # every screen shown, in order
        self.leds = None
        self.dice: list[tuple[int, ...]] = []
        self.rolls: list[int] = []
        self._apply(self.controller.start(0, shut, saved))

    def _apply(self, effects):
        for effect in effects:
            if isinstance(effect, Emit):
                if self.store is not None:
                    self.store.record(effect.event)
                self.events.append(effect.event.as_json())
            elif isinstance(effect, Show):
                self.screen = effect.screen
                self.shown.append(effect.screen)
            elif isinstance(effect, Lights):
                self.leds = effect.leds
            elif isinstance(effect, RollDice):
                self.rolls.append(effect.count)
                if self.dice:
                    self.send(DiceRolled(self.dice.pop(0), self.now))

    def restart(self):
        """Power cut: a new controller on the same store, flaps as they are."""
        self.controller = Controller(self.rules, self.game, advisor=self.advisor)
        self._apply(self.controller.start(self.step(), self.shut, self.store.unfinished_game()))

    def send(self, event):
        self._apply(self.controller.handle(event))

    def step(self, ms=5):
        self.now += ms
        return self.now

    # the script's verbs
    def press(self, button, long=False):
        self.send(ButtonPressed(button, long, self.step()))

    def roll(self, *faces, long=False):
        if faces:
            self.dice.append(tuple(faces))
        self.press("roll", long)

    def close(self, *tiles):
        for t in tiles:
            self.shut |= 1 << (t - 1)
            self.send(FlapChanged(t, True, self.step()))

    def open(self, *tiles):
        for t in tiles:
            self.shut &= ~(1 << (t - 1))
            self.send(FlapChanged(t, False, self.step()))

    def wait(self, ms):
        self.send(Tick(self.step(ms)))

    def pass_ends(self):
        """Let each queued step of a turn's end show for its pause."""
        while self.controller.showing:
            self.wait(self.game.pause_ms)

    def start(self, players):
        """NEXT until the attract screen lists ``players`` players, then ROLL."""
        while len(self.screen.players) != players:
            self.press("next")
        self.press("roll")

    def names(self, kind):
        return [e for e in self.events if e["event"] == kind]

    def names_of(self):
        """Every event's name, in order."""
        return [e["event"] for e in self.events]
