"""The controller under random play: flaps, buttons, dice, ticks and power cuts
in any order, with the game's invariants checked after every step.

- committed tiles only grow within a turn (a power cut keeps them: they are saved);
- a turn's score is its open tiles scored under the rules;
- every total is the sum of that player's round scores;
- the box can always make progress: some inputs lead to the next turn.

Each step's events go to a real store in one transaction, as the daemon writes
them, and a restart resumes from that store. ``pytest --long`` runs more and
longer examples (tests/README.md).
"""

from __future__ import annotations

import copy
import random
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from shutbox_hw.base.events import ButtonPressed, DiceRolled, FlapChanged, Tick
from shutbox_hw.game.display.presentation import QUICK_SHOW_MS
from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.game.model.events import GameEnded, GameStarted, TurnEnded, TurnStarted
from shutbox_hw.game.referee.effects import Emit, RollDice
from shutbox_hw.rules import build_rules, legal_closures, mask_of, tiles_of, turn_score
from shutbox_hw.store import Store

PRESETS = ("klappenspiel", "crafthouse-12", "pub")
MATCHES = ("single-round", "elimination", "race", "pool")
PROGRESS_INPUTS = 300   # a helpful player reaches the next turn within this many inputs


class Box:
    """A controller, the flaps it sits on, and the dice the next ROLL shows."""

    def __init__(self, controller: Controller, shut: int, rng: random.Random) -> None:
        self.controller = controller
        self.shut = shut
        self.rng = rng
        self.now = 0
        self.events: list = []
        self.store: Store | None = None

    def apply(self, effects) -> None:
        emits = [e.event for e in effects if isinstance(e, Emit)]
        if self.store is not None and emits:
            self.store.record_all(emits)     # one step, one transaction
        self.events += emits
        for effect in effects:
            if isinstance(effect, RollDice):
                faces = tuple(self.rng.randint(1, 6) for _ in range(effect.count))
                self.send(DiceRolled(faces, self.now))

    def send(self, event) -> None:
        self.apply(self.controller.handle(event))

    def tick(self, ms: int) -> None:
        self.now += ms
        self.send(Tick(self.now))

    def flap(self, tile: int, shut: bool) -> None:
        bit = 1 << (tile - 1)
        if bool(self.shut & bit) == shut:
            return
        self.shut ^= bit
        self.now += 5
        self.send(FlapChanged(tile, shut, self.now))

    def press(self, button: str, long: bool = False) -> None:
        self.now += 5
        self.send(ButtonPressed(button, long, self.now))

    def helpful_input(self) -> None:
        """What a player who wants the game to go on does next."""
        s = self.controller.state
        if s.phase == "idle":
            if s.shut & s.board:
                self.flap(tiles_of(s.shut)[0], False)
            else:
                self.press("roll")
            return
        if s.phase == "over":
            self.now += QUICK_SHOW_MS   # each step of the end is seen before a press moves on
            self.press("roll")
            return
        if s.phase == "confirm":
            self.press("next")
            return
        rejected, reopened = tiles_of(s.rejected()), tiles_of(s.reopened())
        turn = s.turn
        if rejected:
            self.flap(rejected[0], False)
        elif reopened:
            self.flap(reopened[0], True)
        elif turn is None:
            shut = tiles_of(s.shut)
            self.flap(shut[0], False) if shut else self.tick(10)
        elif turn.dice is None:
            self.press("roll")
        elif turn.settle_at is not None:
            self.tick(max(1, turn.settle_at - self.now))
        else:
            closures = [c for c in legal_closures(s.rules, s.open_mask(turn), turn.dice)
                        if c & turn.pending == turn.pending]
            if not closures:       # what is shut so far fits no move: take one back
                self.flap(tiles_of(turn.pending)[0], False)
                return
            missing = [t for t in tiles_of(min(closures)) if not s.shut & (1 << (t - 1))]
            if missing:
                self.flap(missing[0], True)
            else:
                self.press("roll")   # taken early: settles the closure


class ControllerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
        self.box: Box | None = None
        self.turn_key = None
        self.committed = 0
        self.checked = 0

    def teardown(self) -> None:
        if self.box is not None and self.box.store is not None:
            self.box.store.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    @initialize(preset=st.sampled_from(PRESETS), match=st.sampled_from(MATCHES),
                players=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
    def boot(self, preset, match, players, seed) -> None:
        self.rules = build_rules(preset, {"match": match})
        self.game = GameConfig(settle_ms=200)
        controller = Controller(self.rules, self.game)
        self.box = Box(controller, 0, random.Random(seed))
        self.box.store = Store(self.dir / "box.db")
        self.box.apply(controller.start(0, 0, None))
        for _ in range((players - controller.player_count) % 8):
            self.box.press("next")
        self.box.press("roll")

    # ------------------------------------------------------------------ inputs

    @rule(tile=st.integers(1, 12), shut=st.booleans())
    def move_flap(self, tile, shut) -> None:
        if tile <= self.rules.tiles:
            self.box.flap(tile, shut)

    @rule(button=st.sampled_from(("roll", "next")), long=st.booleans())
    def press(self, button, long) -> None:
        self.box.press(button, long)

    @rule(faces=st.lists(st.integers(1, 6), min_size=1, max_size=2))
    def dice_module(self, faces) -> None:
        """A throw arriving unasked (the dice module), or a bad one."""
        self.box.now += 5
        self.box.send(DiceRolled(tuple(faces), self.box.now))

    @rule(ms=st.integers(1, 3000))
    def tick(self, ms) -> None:
        self.box.tick(ms)

    @rule(steps=st.integers(1, 12))
    def play_on(self, steps) -> None:
        for _ in range(steps):
            self.box.helpful_input()

    @rule()
    def power_cut(self) -> None:
        box = self.box
        box.store.close()
        box.store = Store(self.dir / "box.db")
        box.controller = Controller(self.rules, self.game)
        box.now += 5
        box.apply(box.controller.start(box.now, box.shut, box.store.unfinished_game()))

    # ------------------------------------------------------------------ invariants

    @invariant()
    def committed_tiles_only_grow_within_a_turn(self) -> None:
        if self.box is None:
            return
        s = self.box.controller.state
        turn = s.turn
        games = sum(isinstance(e, GameStarted) for e in self.box.events)
        key = (games, s.round_number(), turn.player) if turn is not None else None
        if key is not None and key == self.turn_key:
            assert turn.committed & self.committed == self.committed, \
                (tiles_of(self.committed), tiles_of(turn.committed))
        self.turn_key, self.committed = key, (turn.committed if turn else 0)

    @invariant()
    def turn_scores_are_the_open_tiles_scored(self) -> None:
        if self.box is None:
            return
        for event in self.box.events[self.checked:]:
            if isinstance(event, TurnEnded):
                assert event.score == turn_score(self.rules, mask_of(event.open))
                assert event.shut == (not event.open)
        self.checked = len(self.box.events)

    @invariant()
    def totals_are_the_sums_of_the_round_scores(self) -> None:
        if self.box is None or self.box.controller.state.match is None:
            return
        match = self.box.controller.state.match
        for p in range(match.players):
            assert match.totals[p] == sum(r.final[p] or 0 for r in match.rounds)

    @invariant()
    def the_box_can_always_make_progress(self) -> None:
        if self.box is None:
            return
        trial = copy.copy(self.box)
        trial.controller = copy.deepcopy(self.box.controller)
        trial.store, trial.events, trial.rng = None, [], random.Random(1)
        start_phase = trial.controller.state.phase
        for _ in range(PROGRESS_INPUTS):
            trial.helpful_input()
            if any(isinstance(e, (TurnStarted, TurnEnded, GameEnded)) for e in trial.events):
                return
            if trial.controller.state.phase != start_phase == "over":
                return
        raise AssertionError(f"stuck: {trial.controller.state.phase}, "
                             f"turn {trial.controller.state.turn}, shut {tiles_of(trial.shut)}")


def test_random_play_keeps_the_games_invariants(long_run):
    long = long_run
    run_state_machine_as_test(ControllerMachine, settings=settings(
        max_examples=400 if long else 20, stateful_step_count=80 if long else 25,
        deadline=None, suppress_health_check=[HealthCheck.too_slow]))


def test_flaps_lifted_while_new_game_is_asked_start_the_turn_on_no(tmp_path):
    """Found by the machine above: "New game?" answered no, with every flap
    lifted meanwhile, left no turn and nothing to lift (ROLL did nothing)."""
    controller = Controller(build_rules("klappenspiel", {"match": "single-round"}))
    box = Box(controller, 0, random.Random(0))
    box.apply(controller.start(0, 0, None))
    box.flap(6, True)                          # a flap left shut ...
    box.press("roll")                          # a game: no turn until it is lifted
    assert controller.state.phase == "play" and controller.state.turn is None
    box.press("next", long=True)               # "New game?"
    box.flap(6, False)                         # ... lifted while it asks
    box.press("next")                          # no
    assert controller.state.turn is not None
