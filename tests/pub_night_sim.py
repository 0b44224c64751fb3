"""The pub night's players on the whole simulated box: the real daemon, the
debounced switches, the display and, with module dice, the dice module's
firmware on the simulated I2C bus (``shutbox-hw sim`` underneath).

:class:`SimNight` is :class:`~pub_night.Night` with the box swapped: the same
players and the same checks (no liveness probe: a whole simulator cannot be
copied), each input a thing a person does to the simulated box. The players
look at the box as people do (:class:`Looks`: its screen, its lights, the
events it printed); only the checks read the controller's state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pub_night import Night

import shutbox_hw.render as render_module
from shutbox_hw.config.config_file import parse_config
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.rules import RuleSet, full_board, mask_of
from shutbox_hw.sim.runner import SimRunner


@dataclass(frozen=True)
class SeenTurn:
    """The turn under way as the players see it (the fields ``pub_night``'s players use)."""
    throw: bool | None        # None: no throw yet (the dice may be unknown: manual dice)
    dice: tuple[int, ...] | None
    pending: int              # flaps shut for this throw that the box took (not blinking)
    committed: int            # flaps taken by the turn's earlier throws


class Looks:
    """What a pub night's player sees on the simulated box: the screen (the
    phase, the players chosen), the lights (flaps to lift or shut again) and
    the events it printed (the turn, its dice and taken flaps); the rules and
    the dice are those on the box's card, the flaps where the player left them."""

    def __init__(self, night: SimNight) -> None:
        self.view = night.runner.sim.view
        self.shut = night.shut
        self.rules: RuleSet = night.rules
        self.game: GameConfig = night.game
        self.board = full_board(night.rules.tiles)
        self.unseen_dice = night.game.dice == "manual"

    @property
    def phase(self) -> str:
        return self.view.phase

    @property
    def player_count(self) -> int | None:
        return self.view.player_count

    def _blinking(self) -> int:
        return mask_of(self.view.blinking()) if self.turn is not None else 0

    def rejected(self) -> int:
        return self._blinking() & self.shut

    def reopened(self) -> int:
        return self._blinking() & ~self.shut

    @property
    def turn(self) -> SeenTurn | None:
        turn = self.view.turn()
        if turn is None or self.view.game_ended():
            return None
        committed = mask_of(turn.committed)
        blinking = mask_of(self.view.blinking())
        return SeenTurn(throw=True if turn.thrown else None, dice=turn.dice,
                        pending=self.shut & ~committed & ~blinking if turn.thrown else 0,
                        committed=committed)


class SimNight(Night):
    def _boot(self, db: Path) -> None:
        # every dice source in turn (the module: its firmware on the simulated bus)
        self.game = replace(self.game, dice=("software", "manual", "module")[self.seed % 3])
        rules = {k: v for k, v in self.rules.as_dict().items() if v is not None}
        game = {"dice": self.game.dice, "settle_ms": self.game.settle_ms,
                "pause_ms": self.game.pause_ms}
        hardware: dict[str, Any] = {"dice": {}} if self.game.dice == "module" else {}
        config, problems = parse_config({"rules": rules, "game": game, "hardware": hardware})
        assert config is not None, problems
        self.probe_every = 0
        self._real_render = render_module.render
        render_module.render = self._render      # every screen the daemon draws
        self.runner = SimRunner(config, db, seed=self.seed, on_event=self._event)

    def _render(self, screen: Any) -> Any:
        if hasattr(self, "runner"):    # (the first boot's idle screen comes before it)
            self._shown(screen)
        return self._real_render(screen)

    def _event(self, data: dict[str, Any]) -> None:
        self.witness.event(data)

    def close(self) -> None:
        render_module.render = self._real_render
        store = self.runner.daemon.store
        store.close()

    # ------------------------------------------------------------------ the box

    @property
    def state(self):
        """The referee's truth, for the checks only."""
        return self.runner.daemon.controller.state

    @property
    def seen(self) -> Looks:
        return Looks(self)

    def clock(self) -> int:
        return self.runner.world.now_ms()

    def database(self):
        return self.runner.daemon.store.db

    def wall(self) -> float:
        return float(self.runner.daemon.store._clock())

    def press(self, button: str, long: bool = False) -> None:
        self.log.append(f"{button}{' long' if long else ''}")
        self.figures.steps += 1
        self.runner.press(button, long)
        if button == "roll":
            self.runner.await_module()
        self._surfaces()

    def flap(self, tile: int, shut: bool) -> None:
        self.log.append(f"{'close' if shut else 'open'} {tile}")
        self.figures.steps += 1
        bit = 1 << (tile - 1)
        # the box sees a flap after its debounce: until then it may still ask
        # for a lifted flap, so it counts as lifted once the box has seen it
        if shut:
            self.shut |= bit
        self.runner.flap(tile, shut)
        if not shut:
            self.shut &= ~bit
        self._surfaces()

    def wait(self, ms: int) -> None:
        self.log.append(f"wait {ms}")
        self.figures.steps += 1
        self.runner.advance(ms)
        self._surfaces()

    def module_throw(self, count: int) -> None:
        if self.runner.sim.playing_module is not None:
            self.log.append("shake")
            self.figures.steps += 1
            self.runner.shake()
            self._surfaces()

    def power_cut(self) -> None:
        self.log.append("power cut")
        self.figures.habits["power cut"] += 1
        self.figures.steps += 1
        self.figures.ends_cut += self.witness.power_cut()
        self.runner.restart()
        self._surfaces()
