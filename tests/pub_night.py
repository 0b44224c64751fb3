"""A pub night on the referee: whole matches played by players with real
habits, the box checked after every step (the suite is ``test_pub_night.py``).

:class:`Night` is one box (a controller on a real SQLite store) through
several matches. Its players throw random dice, shut any legal closure or a
wrong flap first, lift flaps at any moment (one at a time, during the end
steps, before the roll), press ROLL and NEXT at every screen (short and
long), throw the dice module when nobody asked, and the power goes at random
moments (a new controller on the same store, the flaps as they are). After
every step it checks:

- liveness: no state where nothing is shut and no turn can start, no throw
  without a move left standing; now and then a helpful player on a copy of
  the box must reach the next turn (or the match's end) within
  ``PROBE_INPUTS`` inputs; every match ends within ``MAX_STEPS`` steps;
- truth (:class:`~pub_truth.Witness`): the events agree with
  :class:`~pub_referee.Referee`, which works the game out again on its own;
  what the screen says agrees with it and with the flaps (no "lift" with
  nothing shut; the player, round, dice, total, pot and balance shown);
  every end step of every turn is shown at least once (the no-move throw,
  the shut box, the score, the scoreboard, the result), unless a power cut
  took it; ``history`` and the audits report what was played.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pub_referee import Untrue
from pub_truth import Witness

from shutbox_hw.base.events import ButtonPressed, DiceRolled, FlapChanged, Tick
from shutbox_hw.game.display.shown import shown
from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.game.machine.effects import Emit, RollDice, Show
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.network.live import live
from shutbox_hw.rules import (
    PRESETS,
    RuleSet,
    allowed_dice_counts,
    build_rules,
    dice_choice,
    legal_closures,
    tiles_of,
)
from shutbox_hw.store import Store
from shutbox_hw.store.read.shown import publish

MAX_STEPS = 20_000      # a match longer than this is a match that does not end
PROBE_INPUTS = 200      # a helpful player reaches the next turn within this many inputs
PROBE_EVERY = 25        # on average, steps between two liveness probes
HOUSE_RULES = {"closure": ("any-sum", "sum-or-dice"), "scoring": ("sum", "digits"),
               "one_die": ("never", "when-high-shut", "below-6"),
               "multiplication": (False, True),
               "shut_the_box": ("score-zero", "instant-win", "double-others"),
               "match": ("single-round", "elimination", "race", "pool"),
               "tiles": (9, 10, 12)}


def random_rules(rng: random.Random) -> RuleSet:
    """A preset as it is, or house rules: some of its keys changed."""
    preset = rng.choice(sorted(PRESETS))
    overrides: dict[str, Any] = {}
    if rng.random() < 0.6:
        for key in rng.sample(sorted(HOUSE_RULES), rng.randint(1, 4)):
            overrides[key] = rng.choice(HOUSE_RULES[key])
    closure = overrides.get("closure", PRESETS[preset]["closure"])
    if closure != "any-sum" and overrides.get("multiplication", PRESETS[preset]["multiplication"]):
        overrides["multiplication"] = False     # it only works with any-sum
    match = overrides.get("match", PRESETS[preset]["match"])
    if match in ("race", "elimination") and rng.random() < 0.7:
        overrides["threshold"] = rng.randint(10, 60)   # shorter matches, more of them
    if match == "pool" and rng.random() < 0.5:
        overrides["stake"] = rng.randint(1, 5)
    return build_rules(preset, overrides)


@dataclass
class Figures:
    """What a night did, for tests/README.md."""
    matches: int = 0
    steps: int = 0
    by: Counter = field(default_factory=Counter)     # preset, dice, match, players
    habits: Counter = field(default_factory=Counter)
    ends_shown: int = 0
    ends_cut: int = 0          # end steps a power cut took before they were shown
    ends_given_way: int = 0    # end steps the next player's play came before (issue 42)
    probes: int = 0

    def add(self, other: Figures) -> None:
        self.matches += other.matches
        self.steps += other.steps
        self.by.update(other.by)
        self.habits.update(other.habits)
        self.ends_shown += other.ends_shown
        self.ends_cut += other.ends_cut
        self.ends_given_way += other.ends_given_way
        self.probes += other.probes


class Night:
    """One box through ``matches`` matches of one config (rules and dice)."""

    def __init__(self, seed: int, db: Path) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        rng = self.rng
        self.rules = random_rules(rng)
        self.game = GameConfig(dice=rng.choice(("software", "software", "manual", "module")),
                               settle_ms=rng.choice((500, 2500)),
                               pause_ms=rng.choice((300, 2000)))
        self.shut = 0
        self.now = 0
        self.figures = Figures()
        self.probe_every = PROBE_EVERY
        self.witness = Witness()
        self.referee = self.witness.referee
        self.log: list[str] = []          # the last inputs, for a failure's message
        self.plan: set[int] = set()       # the closure the player is shutting
        self.faces: tuple[int, ...] | None = None   # manual dice: what the players threw
        self.stop_after = 0               # rounds after which the players stop the match
        self.stopping = False
        self._boot(db)

    def _boot(self, db: Path) -> None:
        """Power on the box: the referee on a real store."""
        self.store = Store(db)
        self.controller = Controller(self.rules, self.game)
        self._apply(self.controller.start(0, 0, self.store.unfinished_game()))

    def close(self) -> None:
        self.store.close()

    # ------------------------------------------------------------------ the box

    @property
    def state(self):
        """What the referee knows (the checks read it)."""
        return self.controller.state

    @property
    def seen(self):
        """What the players look at. On the referee the box is its state; on the
        simulated box (``pub_night_sim.py``) only its screen, lights and events."""
        return self.state

    def database(self):
        """The box's database connection (``history`` and the audits read it)."""
        return self.store.db

    def _apply(self, effects: list) -> None:
        emits = [e.event for e in effects if isinstance(e, Emit)]
        if emits:
            self.store.record_all(emits)   # one step, one transaction, as the daemon
        # in the daemon's order: the events, the screen, then the dice
        for effect in sorted(effects, key=lambda e: isinstance(e, RollDice)):
            if isinstance(effect, Emit):
                self.witness.event(effect.event.as_json())
            elif isinstance(effect, Show):
                self._shown(effect.screen)
            elif isinstance(effect, RollDice):
                faces = tuple(self.rng.randint(1, 6) for _ in range(effect.count))
                source = "module" if self.game.dice == "module" else "software"
                self.send(DiceRolled(faces, self.now, source))
        # as the daemon after each step: the picture mirrored for the TV (store/read/shown.py)
        publish(self.store, shown(self.controller.state, self.controller.shown))
        self._surfaces()

    def _surfaces(self) -> None:
        """The live JSON the TV draws from, held to the box and the game at this step."""
        db = self.database()
        if db is not None:
            self.witness.surfaces(live(db, self.wall()), set(tiles_of(self.shut)))

    def wall(self) -> float:
        """The box's wall clock (its store's: a year's calendar in ``pub_year.py``)."""
        return float(self.store._clock())

    def _shown(self, screen) -> None:
        self.witness.shown(screen, self.state, set(tiles_of(self.shut)), self.clock())

    def clock(self) -> int:
        return self.now

    def send(self, event) -> None:
        self.figures.steps += 1
        self._apply(self.controller.handle(event))

    # ------------------------------------------------------------------ liveness

    def _check_live(self) -> None:
        s = self.state
        if s.phase == "play" and s.turn is None and not self.shut and s.match is not None \
                and not s.match.over:
            raise Untrue("dead end: every flap open and no turn under way")
        if s.phase == "play" and s.turn is not None and self.referee.must_end:
            raise Untrue("a throw with no move left standing")

    def _probe(self) -> None:
        """A helpful player on a copy of the box reaches the next turn or the end."""
        self.figures.probes += 1
        twin = copy.copy(self)
        twin.controller = copy.deepcopy(self.controller)
        twin.witness = copy.deepcopy(self.witness)
        twin.witness.expect = []
        twin.referee = twin.witness.referee
        twin.rng = random.Random(self.rng.random())
        twin.figures, twin.plan, twin.log = Figures(), set(self.plan), []
        twin.store = _NoStore()
        twin.stopping = False
        turns = self.referee.shut_turns, len(self.referee.scores), self.referee.rounds
        start_seat = self.referee.seat
        for _ in range(PROBE_INPUTS):
            twin._helpful()
            r = twin.referee
            if (r.shut_turns, len(r.scores), r.rounds) != turns or r.over or \
                    (r.seat is not None and r.seat != start_seat) or \
                    twin.controller.state.phase in ("over", "idle"):
                return
            if start_seat is None and r.seat is not None:
                return
        raise Untrue(f"a helpful player made no progress in {PROBE_INPUTS} inputs")

    # ------------------------------------------------------------------ the players

    def press(self, button: str, long: bool = False) -> None:
        self.log.append(f"{button}{' long' if long else ''}")
        self.now += self.rng.choice((5, 80, 300))
        self.send(ButtonPressed(button, long, self.now))

    def flap(self, tile: int, shut: bool) -> None:
        self.log.append(f"{'close' if shut else 'open'} {tile}")
        bit = 1 << (tile - 1)
        self.shut = self.shut | bit if shut else self.shut & ~bit
        self.now += self.rng.choice((5, 40, 200))
        self.send(FlapChanged(tile, shut, self.now))

    def module_throw(self, count: int) -> None:
        """The dice module throws by itself (its button, a shake)."""
        self.log.append("module throws")
        self.now += 50
        self.send(DiceRolled(tuple(self.rng.randint(1, 6) for _ in range(count)), self.now,
                             "module"))

    def wait(self, ms: int) -> None:
        self.log.append(f"wait {ms}")
        self.now += ms
        self.send(Tick(self.now))

    def power_cut(self) -> None:
        self.log.append("power cut")
        self.figures.habits["power cut"] += 1
        self.figures.ends_cut += self.witness.power_cut()
        self.now += 3000
        self.controller = Controller(self.rules, self.game)
        self._apply(self.controller.start(self.now, self.shut, self.store.unfinished_game()))

    def _helpful(self) -> None:
        """What a player who wants to get on does now."""
        s = self.seen
        rejected, reopened = tiles_of(s.rejected()), tiles_of(s.reopened())
        if s.phase == "idle":
            self.press("roll")
        elif s.phase == "over":
            self.press("roll")
        elif s.phase == "confirm":
            self.press("roll" if self.stopping else "next")
        elif s.turn is None:
            shut = tiles_of(self.shut)
            if shut:
                self.flap(self.rng.choice(shut), False)
            else:
                self.wait(s.game.pause_ms)
        elif rejected:
            self.flap(self.rng.choice(rejected), False)
        elif reopened:
            self.flap(self.rng.choice(reopened), True)
        else:
            self._play(s)

    def _play(self, s) -> None:
        turn = s.turn
        open_mask = s.board & ~turn.committed
        if turn.throw is None:
            self.plan = set()
            counts = allowed_dice_counts(dice_choice(s.rules, open_mask))
            one = 1 in counts and (counts == (1,) or self.rng.random() < 0.3)
            if s.unseen_dice:
                self.faces = tuple(self.rng.randint(1, 6) for _ in range(1 if one else 2))
            if self.game.dice == "module" and self.rng.random() < 0.5:
                self.module_throw(1 if one else 2)   # the module's own button
            else:
                self.press("roll", long=one and 2 in counts)
            return
        dice = turn.dice if turn.dice is not None else self.faces
        pending = set(tiles_of(turn.pending))
        closures = legal_closures(s.rules, open_mask, dice) if dice else ()
        plan = sum(1 << (t - 1) for t in self.plan)
        if plan not in closures:
            if not closures:
                if pending:
                    self.flap(self.rng.choice(sorted(pending)), False)
                elif s.unseen_dice:
                    self.press("next")           # "No move?", then again
                else:
                    self.wait(s.game.pause_ms)
                return
            grown = [c for c in closures if set(tiles_of(c)) >= pending]
            self.plan = set(tiles_of(self.rng.choice(grown or closures)))
        todo = sorted(self.plan - pending)
        if pending - self.plan:                  # shut by mistake: taken back
            self.flap(self.rng.choice(sorted(pending - self.plan)), False)
        elif todo:
            self.flap(self.rng.choice(todo), True)
        elif s.unseen_dice or self.rng.random() < 0.5:
            if s.unseen_dice:                    # they throw again as they press
                left = open_mask & ~turn.pending
                one = allowed_dice_counts(dice_choice(s.rules, left)) == (1,)
                self.faces = tuple(self.rng.randint(1, 6) for _ in range(1 if one else 2))
            self.press("roll")                   # done: the next throw takes this one
        else:
            self.wait(s.game.settle_ms)

    def _habit(self) -> None:
        """One step of a real player: mostly getting on, now and then anything."""
        rng, s = self.rng, self.seen
        r = rng.random()
        habits = self.figures.habits
        if r < 0.06:
            habits["stray press"] += 1
            button = rng.choice(("roll", "next"))
            long = rng.random() < 0.25
            if button == "next" and long and not self.stopping:
                habits["long NEXT"] += 1
            self.press(button, long)
        elif r < 0.09 and s.phase == "play":
            habits["wrong flap"] += 1
            open_now = [t for t in range(1, s.rules.tiles + 1) if not self.shut >> (t - 1) & 1]
            if open_now:
                self.flap(rng.choice(open_now), True)
        elif r < 0.11 and s.phase == "play":
            habits["lift any flap"] += 1
            shut = tiles_of(self.shut)
            if shut:
                self.flap(rng.choice(shut), False)
        elif r < 0.16:
            self.wait(rng.choice((50, 300, 1000, 2500)))
        elif r < 0.163:
            self.power_cut()
        elif r < 0.17 and self.game.dice == "module":
            habits["module unasked"] += 1
            self.module_throw(rng.choice((1, 2)))
        else:
            self._helpful()

    # ------------------------------------------------------------------ a match

    def match(self) -> None:
        """Choose the players, play until the match ends (stopping a pool, or now
        and then any match), check the record."""
        rng, s = self.rng, self.seen
        players = rng.randint(1, 8)
        self.figures.by.update([f"preset {self.rules.preset}", f"dice {self.game.dice}",
                                f"match {self.rules.match}", f"{players} players"])
        while s.player_count != players:
            self.press("next")
        stop = self.rules.match == "pool" or rng.random() < 0.1
        self.stop_after = rng.randint(0, 4) if stop else 10**9
        self.stopping = False
        self.press("roll")
        for _step in range(MAX_STEPS):
            s = self.seen
            if s.phase in ("over", "idle") and self.referee.ended is not None:
                break
            if not self.stopping and self.referee.rounds >= self.stop_after:
                self.stopping = True
                self.figures.habits["matches stopped"] += 1
            if self.stopping and s.phase == "play":
                self.press("next", long=True)
                continue
            self._habit()
            self._check_live()
            if self.probe_every and self.rng.random() < 1 / self.probe_every:
                self._probe()
        else:
            raise Untrue(f"the match did not end in {MAX_STEPS} steps")
        while self.seen.phase != "idle":     # the result, then idle
            self._helpful()
        if self.witness.expect:
            raise Untrue(f"end steps never shown: {self.witness.expect}")
        self.figures.matches += 1
        self.figures.ends_shown = self.witness.ends_shown
        self.figures.ends_given_way = self.witness.ends_given_way
        self.witness.check_record(self.database(), self.wall())

class _NoStore:
    """The probe's copy writes nothing."""
    db = None

    def record_all(self, events) -> None:
        pass


def play_night(seed: int, db: Path, matches: int, box: type[Night] = Night) -> Figures:
    """``matches`` matches on one box; raises :class:`Untrue` with the seed and
    the last inputs when the box stops or says something untrue."""
    night = box(seed, db)
    try:
        for _ in range(matches):
            night.match()
    except Untrue as error:
        raise Untrue(f"seed {seed}, {night.rules.as_dict()}, dice {night.game.dice}: {error}"
                     f"\n  last inputs: {night.log[-30:]}") from None
    finally:
        night.close()
    return night.figures
