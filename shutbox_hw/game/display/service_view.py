"""What the operator menu shows: pure functions from the menu's state to a
screen and the lights (the menu itself is in :mod:`.service`)."""

from __future__ import annotations

from typing import Any

from ...base.i18n import N_, NATIVE_NAMES, tr
from ...base.leds import LedFrame, LedState
from ...players.display import oled_name
from ...players.names import seat_label
from ...rules.ruleset import PRESET_TITLES
from ...words import devices as device_words
from ...words import rules as rule_words
from ...words.numbers import figure_in_language
from ..model.service import (
    ADJUST_ITEMS,
    BACK,
    CHOICES,
    ITEMS,
    LED_STEPS,
    NAMES,
    REMOVE,
    RESET,
    ServiceMenu,
)
from .screens import ConfirmScreen, MenuScreen, Screen, SwitchTestScreen

LABELS = {"preset": N_("rules"), "players": N_("players"), NAMES: N_("names"),
          "hints": N_("hints"), "settle_ms": N_("settle ms"), "contrast": N_("contrast"),
          "language": N_("language"), RESET: N_("reset to config"), BACK: N_("back")}
# the words of the menu's items, LED steps and hint modes, and of the audits'
# headings and rows (words/audits.py writes them in English for the CLI too)
WORDS = (N_("switch test"), N_("LED test"), N_("audits"), N_("adjustments"),
         N_("reset audits"), N_("remove a player"), N_("exit"), N_("all on"), N_("flap LEDs"),
         N_("green"), N_("red"),
         N_("all off"), N_("off"), N_("on-request"), N_("always"))
AUDIT_WORDS = frozenset((N_("games"), N_("played"), N_("rounds"), N_("boxes shut"),
                         N_("avg score a turn"), N_("best turns"), N_("flap moves"),
                         N_("button presses"), N_("faults"), N_("database"),
                         N_("outbox queued"), N_("outbox dropped"), *rule_words.TITLES))


def shown_value(key: str, value: Any) -> str:
    """An adjustment's value as the menu writes it."""
    if key == NAMES:
        return ", ".join(value) if isinstance(value, (list, tuple)) else ""
    return "" if value is None else str(value)


def menu_value(key: str, value: Any) -> str:
    """A value as the box's menu shows it: a preset by the name the idle
    screen shows ("1-12 Race"), not the config file's ("crafthouse-12")."""
    if key == "preset" and isinstance(value, str):
        return tr(PRESET_TITLES[value]) if value in PRESET_TITLES else value
    if key == "language" and isinstance(value, str):
        return NATIVE_NAMES.get(value, value)
    if key == "hints" and isinstance(value, str):
        return tr(value)
    return shown_value(key, value)


def audit_label(label: str) -> str:
    """An audit row's label in the box's language ("flap 3", "played")."""
    return tr(label) if label in AUDIT_WORDS else device_words.device(label)


def _switch_test(menu: ServiceMenu, tiles: int) -> Screen:
    """The switch test: which flaps are down, each flap's and button's count."""
    live = [t for t in range(1, tiles + 1) if menu.live.get(f"flap {t}")]
    return SwitchTestScreen(tiles=tiles, down=tuple(live),
                            counts=tuple(menu.counts.get(f"flap {t}", 0)
                                         for t in range(1, tiles + 1)),
                            roll=menu.counts.get("ROLL", 0), next=menu.counts.get("NEXT", 0),
                            held=tuple(b for b in ("ROLL", "NEXT") if menu.live.get(b)))


def _audits(menu: ServiceMenu, audits: tuple[str, ...]) -> Screen:
    """The audits: "label<TAB>value" rows under headings (words/audits.py)."""
    rows = [line.partition("\t") for line in audits or (tr("no games yet"),)]
    return MenuScreen(tr("hold: back"), tuple(audit_label(label) for label, _, _ in rows),
                      selected=None, first=min(menu.index, len(rows) - 1),
                      values=tuple(figure_in_language(value) for _, _, value in rows),
                      headings=tuple(i for i, (_, sep, _) in enumerate(rows)
                                     if not sep and audits),
                      prompt=tr("NEXT: down  ROLL: up"))


def _adjustments(menu: ServiceMenu) -> Screen:
    """The adjustments, each with its value now."""
    return MenuScreen(tr("ADJUST"), tuple(tr(LABELS[i]) for i in ADJUST_ITEMS),
                      selected=menu.index,
                      values=tuple(menu_value(i, menu.values.get(i)) if i in LABELS
                                   and i not in (RESET, BACK) else ""
                                   for i in ADJUST_ITEMS))


def _edit(menu: ServiceMenu) -> Screen:
    """One adjustment's choices, the one in force marked."""
    options = CHOICES[menu.key]
    current = menu.values.get(menu.key)
    return MenuScreen(tr(LABELS[menu.key]).upper(),
                      tuple(menu_value(menu.key, o) for o in options), selected=menu.choice,
                      values=tuple(tr("now") if o == current else "" for o in options))


def _names(menu: ServiceMenu) -> Screen:
    """Each seat with its player's name."""
    names = menu.names()
    return MenuScreen(tr("NAMES"), tuple(tr("seat {n}").format(n=i + 1)
                                         for i in range(len(names))),
                      selected=menu.index,
                      values=tuple(oled_name(n, seat_label(i)) for i, n in enumerate(names)))


def screen(menu: ServiceMenu, tiles: int, audits: tuple[str, ...]) -> Screen:
    page = menu.page
    if page == "switch test":
        return _switch_test(menu, tiles)
    if page == "LED test":
        return MenuScreen(tr("LED TEST"), tuple(tr(step) for step in LED_STEPS),
                          selected=menu.led_step, prompt=tr("NEXT: next  hold: back"))
    if page == "audits":
        return _audits(menu, audits)
    if page == "adjustments":
        return _adjustments(menu)
    if page == "edit":
        return _edit(menu)
    if page == NAMES:
        return _names(menu)
    if page == "name":
        return MenuScreen(tr("SEAT {n}").format(n=menu.seat + 1),
                          tuple(oled_name(n, seat_label(menu.seat))
                                for n in menu.name_choices()), selected=menu.choice)
    if page == "confirm":
        return ConfirmScreen(tr("Reset adjustments?"))
    if page == "reset audits":
        return ConfirmScreen(tr("Reset audits?"))
    if page == REMOVE:
        return MenuScreen(tr("REMOVE A PLAYER"),
                          (*(oled_name(n, f"#{i + 1}") for i, n in enumerate(menu.roster)),
                           tr("back")), selected=menu.index)
    if page == "remove":
        return ConfirmScreen(tr("Remove {name}?").format(
            name=oled_name(menu.removing(), f"#{menu.choice + 1}")))
    return MenuScreen(tr("SERVICE"), tuple(tr(item) for item in ITEMS), selected=menu.index)


def leds(menu: ServiceMenu, tiles: int) -> LedFrame:
    """The LED test's step; in the switch test each flap's light follows its switch."""
    off: LedState = "off"
    flaps: list[LedState] = [off] * tiles
    if menu.page == "switch test":
        flaps = ["on" if menu.live.get(f"flap {t}") else off for t in range(1, tiles + 1)]
        return LedFrame(flaps=tuple(flaps), green="on", red=off)
    if menu.page == "LED test":
        step = LED_STEPS[menu.led_step]
        lit = {"all on": ("flaps", "green", "red"), "flap LEDs": ("flaps",),
               "green": ("green",), "red": ("red",)}.get(step, ())
        return LedFrame(flaps=tuple(["on" if "flaps" in lit else off] * tiles),
                        green="on" if "green" in lit else off, red="on" if "red" in lit else off)
    return LedFrame(flaps=tuple(flaps), green="on", red=off)
