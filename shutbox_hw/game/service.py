"""The operator's service menu on the two buttons: pure state and transitions.

Entered by holding ROLL and NEXT together on the idle screen. NEXT moves,
ROLL chooses, a long NEXT goes back (from the top: leaves). Nothing here
touches the hardware or the store: :meth:`ServiceMenu.button` returns the
game events (``setting_changed``, ``service_exited``) and the caller applies
them, as with the controller.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..rules import PRESETS
from .config import HINT_MODES, MAX_PLAYERS
from .events import AnyGameEvent, ServiceExited, SettingChanged

ITEMS: tuple[str, ...] = ("switch test", "LED test", "adjustments", "exit")

RESET = "reset to config"
BACK = "back"

# the keys the operator may adjust and the values offered, in menu order
CHOICES: dict[str, tuple[Any, ...]] = {
    "preset": tuple(PRESETS),
    "players": tuple(range(1, MAX_PLAYERS + 1)),
    "hints": HINT_MODES,
    "settle_ms": (1000, 1500, 2000, 2500, 3000, 4000, 5000),
    "contrast": (32, 64, 128, 192, 255),
}
ADJUST_ITEMS: tuple[str, ...] = (*CHOICES, RESET, BACK)

LED_STEPS = 4   # all on, the flap LEDs one by one, the button LEDs, all off


@dataclass
class ServiceMenu:
    """Where the operator is in the menu, and what the switch test has counted."""
    values: dict[str, Any]          # the effective value of every adjustable key
    page: str = "menu"              # menu, switch test, LED test, adjustments, edit, confirm
    index: int = 0                  # the highlighted line of the page
    choice: int = 0                 # edit: the highlighted value
    led_step: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    live: dict[str, bool] = field(default_factory=dict)   # switch test: down now
    done: bool = False

    @classmethod
    def open(cls, values: Mapping[str, Any]) -> ServiceMenu:
        return cls(values=dict(values))

    # ------------------------------------------------------------------ inputs

    def button(self, button: str, long: bool) -> list[AnyGameEvent]:
        """A ROLL/NEXT press; the events it causes."""
        if self.page == "switch test":
            if button == "NEXT" and long:
                return self._back("menu", ITEMS.index("switch test"))
            self._count(button)
            return []
        if button == "NEXT" and long:
            return self._long_next()
        if button == "NEXT":
            self._move()
            return []
        return self._choose()

    def switch(self, name: str, down: bool) -> None:
        """A flap or button changed (the switch test shows it live and counts closures)."""
        self.live[name] = down
        if down and self.page == "switch test":
            self.counts[name] = self.counts.get(name, 0) + 1

    # ------------------------------------------------------------------ transitions

    def _count(self, button: str) -> None:
        self.counts[button] = self.counts.get(button, 0) + 1

    def _back(self, page: str, index: int) -> list[AnyGameEvent]:
        self.page, self.index = page, index
        return []

    def _long_next(self) -> list[AnyGameEvent]:
        if self.page == "menu":
            return self._exit()
        if self.page in ("edit", "confirm"):
            return self._back("adjustments", self._adjust_index())
        return self._back("menu", ITEMS.index(self.page) if self.page in ITEMS else 0)

    def _adjust_index(self) -> int:
        return self.index if self.page == "adjustments" else self._editing_index

    _editing_index: int = 0

    def _move(self) -> None:
        if self.page == "menu":
            self.index = (self.index + 1) % len(ITEMS)
        elif self.page == "adjustments":
            self.index = (self.index + 1) % len(ADJUST_ITEMS)
        elif self.page == "edit":
            self.choice = (self.choice + 1) % len(CHOICES[self.key])
        elif self.page == "LED test":
            self.led_step = (self.led_step + 1) % LED_STEPS

    def _choose(self) -> list[AnyGameEvent]:
        if self.page == "menu":
            item = ITEMS[self.index]
            if item == "exit":
                return self._exit()
            self.page, self.index, self.led_step = item, 0, 0
            if item == "switch test":
                self.counts = {}
            return []
        if self.page == "adjustments":
            item = ADJUST_ITEMS[self.index]
            if item == BACK:
                return self._back("menu", ITEMS.index("adjustments"))
            self._editing_index = self.index
            if item == RESET:
                self.page = "confirm"
                return []
            self.page = "edit"
            options = CHOICES[item]
            current = self.values.get(item)
            self.choice = options.index(current) if current in options else 0
            return []
        if self.page == "edit":
            key, value = self.key, CHOICES[self.key][self.choice]
            self.values[key] = value
            self._back("adjustments", self._editing_index)
            return [SettingChanged(key=key, value=value)]
        if self.page == "confirm":
            self._back("adjustments", self._editing_index)
            return [SettingChanged(key="all", value=None)]
        if self.page == "LED test":
            self.led_step = (self.led_step + 1) % LED_STEPS
        return []

    def _exit(self) -> list[AnyGameEvent]:
        self.done = True
        return [ServiceExited()]

    @property
    def key(self) -> str:
        """The adjustment being edited."""
        return ADJUST_ITEMS[self._editing_index]
