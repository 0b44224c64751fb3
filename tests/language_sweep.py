"""Every screen the box shows, played through the real controller in a
language, and a renderer that records each piece of text it draws (where,
in which font and size, whether it was cut): what the fit test
(tests/test_languages_fit.py) checks.

The games are played with long names (accented, as typed in a Munich or a
Naples pub), big numbers, 9 and 12 flaps, 1-8 players, wrong flaps shut on
purpose, and the operator menu walked page by page.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from table import Table

from shutbox_hw.base import i18n
from shutbox_hw.base.events import Roster, Tonight
from shutbox_hw.game.display import service_view
from shutbox_hw.game.display.screens import (
    AttractScreen,
    ConfirmScreen,
    MenuScreen,
    PlayScreen,
    ResultScreen,
    Screen,
    ShutScreen,
    TurnEndScreen,
)
from shutbox_hw.game.display.view import fault_notice
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.game.model.service import (
    ADJUST_ITEMS,
    CHOICES,
    ITEMS,
    LED_STEPS,
    NAMES,
    REMOVE,
    ServiceMenu,
)
from shutbox_hw.game.model.state import GameState
from shutbox_hw.render import render, text
from shutbox_hw.render.fonts import Font, cap_height
from shutbox_hw.rules import build_rules, tiles_of
from shutbox_hw.words import devices as device_words

LONG_NAMES = ("Maximilian-Alexander", "Niccolò Ferdinando", "Bartholomäus", "Jürgen Größlich",
              "Ælfgifu Østergård", "Françoise-Hélène", "Guðrún", "Zoë Ångström")
SHORT_NAMES = ("Anna", "Ben", "Carla", "Dieter", "Eva", "Franz", "Gino", "Hanna")


@dataclass
class Drawn:
    """One piece of text as drawn."""
    x: int
    y: int
    text: str          # as drawn (in the font's characters)
    font: Font
    scale: int
    width: int

    @property
    def box(self) -> tuple[int, int, int, int]:
        return self.x, self.y, self.x + self.width, self.y + self.font.height * self.scale

    @property
    def cap(self) -> int:
        return _cap(self.font, self.scale)


@functools.cache
def _cap(font: Font, scale: int) -> int:
    """:func:`cap_height`, once per font and scale (asked for every piece drawn: the
    sweep's pieces are counted in hundreds of thousands; a font's glyphs never change)."""
    return cap_height(font, scale)


@dataclass
class Record:
    drawn: list[Drawn] = field(default_factory=list)
    split: list[tuple[str, str, str]] = field(default_factory=list)   # words wrap split


@contextmanager
def recording() -> Iterator[Record]:
    """Record what :func:`render` draws inside the block."""
    record = Record()
    draw, split = text.draw, text.split_word

    def drawing(canvas: Any, x: int, y: int, s: str, font: Font, scale: int = 1,
                fill: int = 1, spacing: int | None = None) -> int:
        end = draw(canvas, x, y, s, font, scale, fill, spacing)
        if s:
            record.drawn.append(Drawn(x, y, font.normalise(s), font, scale,
                                      text.width(s, font, scale, spacing)))
        return end

    def splitting(word: str, font: Font, max_width: int, scale: int = 1) -> tuple[str, str]:
        head, rest = split(word, font, max_width, scale)
        record.split.append((word, font.normalise(head), font.normalise(rest)))
        return head, rest

    text.draw, text.split_word = drawing, splitting
    try:
        yield record
    finally:
        text.draw, text.split_word = draw, split


def drawn(screen: Screen) -> Record:
    with recording() as record:
        render(screen)
    return record


# ------------------------------------------------------------------ the games

def _flaps(t: Table) -> list[int]:
    return list(tiles_of(t.shut))


def _lift_all(t: Table) -> None:
    t.pass_ends()
    shut = _flaps(t)
    if shut:
        t.open(*shut)


def play(preset: str, players: int, names: tuple[str, ...], seed: int,
         overrides: dict[str, Any] | None = None, dice: str = "software",
         steps: int = 400) -> list[Screen]:
    """A match played at random (wrong flaps now and then), every screen shown."""
    rng = random.Random(seed)
    t = Table(preset, overrides or {}, player_names=names[:players], dice=dice, pause_ms=10)
    t.start(players)
    for _ in range(steps):
        s = t.controller.state
        if s.phase == "over":
            t.press("next", long=True)
            break
        turn = s.turn
        if turn is None:
            _lift_all(t)
            if t.controller.state.turn is None and not _flaps(t):
                t.press("next")
            continue
        if turn.throw is None:
            if dice == "manual":
                t.press("roll")
            else:
                t.roll(*(rng.randint(1, 6) for _ in range(2)))
                if t.controller.state.turn is not None and \
                        t.controller.state.turn.throw is None:
                    t.roll(rng.randint(1, 6))       # one die was wanted
            continue
        open_tiles = [x for x in tiles_of(s.open_mask(turn))]
        if dice == "manual":
            if rng.random() < 0.3 or not open_tiles:
                t.press("next")
                t.press("next")
            else:
                t.close(rng.choice(open_tiles))
                t.press("roll")
            continue
        closures = turn.throw.legal_closures()
        if rng.random() < 0.2 and open_tiles:          # a wrong flap, then lifted
            wrong = rng.choice(open_tiles)
            t.close(wrong)
            if t.controller.state.rejected():
                t.press("roll")                         # refused: the bar says why
                t.open(wrong)
            continue
        if closures:
            t.close(*tiles_of(rng.choice(closures)))
            t.wait(t.game.settle_ms + 1)
        else:
            t.pass_ends()
    if t.controller.state.phase == "play":
        t.press("next", long=True)                      # the question
        t.press("next")
    return t.shown


def menu_screens(tiles: int, names: tuple[str, ...]) -> list[Screen]:
    """Every page of the operator menu, each line highlighted in turn."""
    values = {"preset": "crafthouse-12", "players": len(names), NAMES: names,
              "hints": "on-request", "settle_ms": 2500, "contrast": 128, "language": "de"}
    audits = ("games", "played\t123456", "rounds\t987654", "boxes shut\t4321",
              "avg score a turn", "Klappenspiel\t21.3", "1-12 Race\t17", "Pub Pool\t9.5",
              "best turns", f"{names[0]} 2024-05-03\t0", "flap moves",
              *(f"flap {t}\t{20000 + t}" for t in range(1, tiles + 1)), "button presses",
              "ROLL\t40210", "NEXT\t8812", "faults", "expander\t2", "oled\t1", "storage",
              "database\t123.4 MB", "outbox queued\t99999", "outbox dropped\t99999")
    out: list[Screen] = []

    def menu(**kw: Any) -> ServiceMenu:
        return replace(ServiceMenu.open(values, names), **kw)

    for i in range(len(ITEMS)):
        out.append(service_view.screen(menu(index=i), tiles, audits))
    for i in range(len(ADJUST_ITEMS)):
        out.append(service_view.screen(menu(page="adjustments", index=i), tiles, audits))
    for i, key in enumerate(ADJUST_ITEMS):
        if key in CHOICES:
            for c in range(len(CHOICES[key])):
                out.append(service_view.screen(menu(page="edit", _editing_index=i, choice=c),
                                               tiles, audits))
    for i in range(len(names)):
        out.append(service_view.screen(menu(page=NAMES, index=i), tiles, audits))
        out.append(service_view.screen(menu(page="name", seat=i), tiles, audits))
    for first in range(0, len(audits), 3):
        out.append(service_view.screen(menu(page="audits", index=first), tiles, audits))
    out.append(service_view.screen(menu(page="audits"), tiles, ()))
    for step in range(len(LED_STEPS)):
        out.append(service_view.screen(menu(page="LED test", led_step=step), tiles, audits))
    counts = {f"flap {t}": 9999 for t in range(1, tiles + 1)} | {"ROLL": 99999, "NEXT": 99999}
    out.append(service_view.screen(menu(page="switch test", counts=counts,
                                        live={"flap 1": True, "ROLL": True}), tiles, audits))
    out.append(service_view.screen(menu(page="confirm"), tiles, audits))
    out.append(service_view.screen(menu(page="reset audits"), tiles, audits))
    for i in range(len(names) + 1):      # the roster to remove a player from, then "back"
        out.append(service_view.screen(menu(page=REMOVE, roster=names, index=i), tiles, audits))
    for i in range(len(names)):
        out.append(service_view.screen(menu(page="remove", roster=names, choice=i), tiles,
                                       audits))
    return out


def setup_screens(names: tuple[str, ...]) -> list[Screen]:
    """The setup screen's roster: each line highlighted, seated and not, "back",
    and the reasons a press there flashes."""
    t = Table("klappenspiel", player_names=names[:2], pause_ms=10)
    t.press("next", long=True)                  # no roster yet: it says so
    out = [t.screen]
    t.wait(2000)
    t.send(Roster(names, t.step()))
    t.press("next", long=True)
    for _ in range(len(names) + 1):
        out.append(t.screen)
        t.press("roll")                         # sits, or gets up (first two); "back" closes
        out.append(t.screen)
        if t.controller.state.picking is None:
            break
        t.press("next")
    t.press("next", long=True)
    t.press("roll", long=True)                  # one player fewer
    out.append(t.screen)
    return out


def extra_screens(names: tuple[str, ...]) -> list[Screen]:
    """What random play rarely shows: hints and their chances, tonight's
    figures with a long name, the biggest numbers, a dice module's prompts."""
    big = PlayScreen(names[0], 999, 12, tuple(range(1, 13)), 99999, dice=(6, 6),
                     prompt=i18n.tr("shut {throw}").format(
                         throw=i18n.tr("{sum} or {product}").format(sum="6+6", product="6x6")),
                     hint=(12,), shut_chance=0.034, move_chance=0.82)
    return [
        big,
        replace(big, shut_chance=None, move_chance=None, hints_pending=True, dice=None,
                prompt=i18n.tr("ROLL: 2 dice, hold: 1")),
        replace(big, dice=None, prompt=i18n.tr("throw the dice")),
        replace(big, dice=None, prompt=i18n.tr("shut, then ROLL again. No move? NEXT")),
        replace(big, pot=99999, balance=-9999, dice=(3,)),
        # a night of 999 games (a game takes a minute at the very least: a pub
        # night has far fewer), every one a shut box
        AttractScreen(i18n.tr("House rules"), i18n.tr("{n} tiles").format(n=12), names,
                      tonight=Tonight(999, 999, (names[1], 99999))),
        AttractScreen(i18n.tr("Pub Pool"), i18n.tr("{n} tiles").format(n=9), names[:1],
                      tonight=Tonight(1, 1, (names[0], 0))),
        TurnEndScreen(names[2], 78, tuple(range(1, 13)), False,
                      note=i18n.tr("reached {threshold}: out").format(threshold=999)),
        ConfirmScreen(i18n.tr("Stop and settle?")),
        # a second seat from one phone, put to the box (game/referee/phones.py)
        ConfirmScreen(i18n.tr("Same phone: seat {name}?").format(name=names[3])),
        AttractScreen(i18n.tr("House rules"), i18n.tr("{n} tiles").format(n=12), names[:2],
                      message=i18n.tr("no answer: no seat")),
        ResultScreen((), ()),
        *(replace(big, message=device_words.fault(source, problem))
          for source, problem in FAULTS),
        # idle, the fault's own page (game/display/view.py fault_notice)
        *(fault_notice(GameState(rules=build_rules("pub"), game=GameConfig(),
                                 faults={source: problem})) for source, problem in FAULTS),
    ]


FAULTS = (
    ("MCP23017 0x20", "registers were reset (brownout?)"),
    ("dice module", "no answer: software dice"), ("flap 12", "switch chattering"),
    ("display", "answering again"),
    # issue 38's storage words (store/disk/faults.py, salvage.py, mounts.py, backup.py)
    *(("storage", f"cannot save: {why}") for why in sorted(device_words.CAUSES)),
    ("storage", "record damaged: 1,234 of 1,240 games recovered"),   # the issue's
    ("storage", "record damaged: no games recovered"),
    ("record", "kept in RAM, lost at power-off"),
    ("backup", "failed: place on the record's disk"), ("backup", "copy taken"),
    ("software", "cannot save: program error"))


def every_screen(language: str) -> Iterator[Screen]:
    """The sweep, in ``language``: 9 and 12 flaps, each match format, 1-8 players."""
    with i18n.speaking(language):
        for players in range(1, 9):
            for names in (LONG_NAMES, SHORT_NAMES) if players in (2, 3, 5, 8) else (LONG_NAMES,):
                for preset, overrides in (("klappenspiel", {}), ("crafthouse-12", {}),
                                          ("pub", {"stake": 99}),
                                          ("klappenspiel", {"multiplication": True}),
                                          ("klappenspiel", {"closure": "sum-or-dice",
                                                            "threshold": 9999}),
                                          ("crafthouse-12", {"match": "single-round"})):
                    yield from play(preset, players, names, seed=players, overrides=overrides)
            yield from play("crafthouse-12", players, LONG_NAMES, seed=players, dice="manual")
        for tiles in (9, 12):
            yield from menu_screens(tiles, LONG_NAMES)
        yield from extra_screens(LONG_NAMES)
        yield from setup_screens(LONG_NAMES)
        yield from setup_screens(SHORT_NAMES)


def primary_texts(screen: Screen) -> list[str]:
    """What a player must read now on ``screen``: its primary roles' words."""
    if isinstance(screen, PlayScreen):
        return [screen.prompt, screen.message or ""]
    if isinstance(screen, TurnEndScreen):
        return [screen.prompt]
    if isinstance(screen, ConfirmScreen):
        return [screen.question, screen.prompt]
    if isinstance(screen, ResultScreen):
        return [screen.prompt]
    if isinstance(screen, AttractScreen):
        return [screen.prompt]
    if isinstance(screen, MenuScreen):
        return [screen.prompt, *(line for i, line in enumerate(screen.lines)
                                 if i not in screen.headings)]
    return []


# ------------------------------------------------------------------ golden frames

def golden_screens(language: str) -> dict[str, Screen]:
    """The main screens of one scripted game and the menu, in ``language``:
    each language's golden frames (tests/golden/<language>/)."""
    with i18n.speaking(language):
        t = Table("klappenspiel", {"match": "single-round"},
                  player_names=("Jürgen", "Niccolò"), pause_ms=10)
        out: dict[str, Screen] = {"attract": t.screen}
        t.start(2)
        out["play_before_throw"] = t.screen
        t.roll(3, 4)
        out["play_shut"] = t.screen
        t.close(8)
        out["play_misfit"] = t.screen
        t.open(8)
        t.close(7)
        t.wait(t.game.settle_ms + 1)
        t.roll(1, 1)
        t.close(2)
        t.wait(t.game.settle_ms + 1)
        t.roll(1, 1)                           # nothing makes 2 now: the turn ends
        out["no_move"] = t.screen
        t.pass_ends()
        out["turn_end"] = next(s for s in t.shown if isinstance(s, TurnEndScreen))
        out["lift_flaps"] = t.screen
        t.open(2, 7)
        t.roll(6, 6)
        t.close(3, 9)
        t.wait(t.game.settle_ms + 1)
        t.roll(1, 2)
        t.close(1, 2)
        t.wait(t.game.settle_ms + 1)
        t.roll(1, 1)                           # 4, 5, 6, 8 open: no 2
        t.pass_ends()
        out["scoreboard"] = next(s for s in t.shown if type(s).__name__ == "ScoreboardScreen")
        out["result"] = t.screen
        t.press("roll")
        t.start(2)
        t.press("next", long=True)
        out["confirm"] = t.screen
        menu = ServiceMenu.open({"preset": "klappenspiel", "players": 2,
                                 NAMES: ("Jürgen", "Niccolò"), "hints": "off",
                                 "settle_ms": 2500, "contrast": 128, "language": language})
        out["menu"] = service_view.screen(menu, 9, ())
        out["menu_adjust"] = service_view.screen(replace(menu, page="adjustments", index=6),
                                                 9, ())
        out["menu_audits"] = service_view.screen(
            replace(menu, page="audits"), 9,
            ("games", "played\t1234", "rounds\t5012", "boxes shut\t87"))
        out["shut"] = replace(ShutScreen("Niccolò", note=i18n.tr("others score double")))
        return out
