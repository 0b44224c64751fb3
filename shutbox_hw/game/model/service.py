"""The operator's service menu on the two buttons: pure state and transitions.

Entered by holding ROLL and NEXT together on the idle screen (or the service
button inside the box). NEXT moves, ROLL chooses, a long NEXT goes back
(from the top: leaves). Nothing here touches the hardware or the store:
:meth:`ServiceMenu.button` returns the game events (``setting_changed``,
``audits_reset``, ``service_exited``) and the caller applies them, as with
the controller.

Pages: ``menu``; ``switch test``; ``LED test``; ``audits`` (lines to read,
NEXT scrolls); ``adjustments`` (a value per line); ``edit`` (the values of
one adjustment); ``names`` (one line a seat) and ``name`` (the names offered
for that seat); ``confirm`` (reset the adjustments) and ``reset audits``;
``remove a player`` (the roster, most recent first) and ``remove`` (asks
"Remove NAME?": ROLL gives ``player_removed``, the store anonymises the
player's games).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...base.i18n import LANGUAGES
from ...players.names import seat_label
from ...rules import PRESETS
from .config import HINT_MODES, MAX_PLAYERS, seat_names
from .events import AnyGameEvent, AuditsReset, PlayerRemoved, ServiceExited, SettingChanged

AUDIT_PAGE = 3   # the audit lines the screen shows at once: NEXT and ROLL move a page
REMOVE = "remove a player"
ITEMS: tuple[str, ...] = ("switch test", "LED test", "audits", "adjustments", "reset audits",
                          REMOVE, "exit")

RESET = "reset to config"
BACK = "back"
NAMES = "names"

# the keys the operator may adjust and the values offered, in menu order
CHOICES: dict[str, tuple[Any, ...]] = {
    "preset": tuple(PRESETS),
    "players": tuple(range(1, MAX_PLAYERS + 1)),
    "hints": HINT_MODES,
    "settle_ms": (1000, 1500, 2000, 2500, 3000, 4000, 5000),
    "contrast": (32, 64, 128, 192, 255),
    "language": LANGUAGES,
}
ADJUST_ITEMS: tuple[str, ...] = ("preset", "players", NAMES, "hints", "settle_ms", "contrast",
                                 "language", RESET, BACK)

LED_STEPS: tuple[str, ...] = ("all on", "flap LEDs", "green", "red", "all off")


@dataclass
class ServiceMenu:
    """Where the operator is in the menu, and what the switch test has counted."""
    values: dict[str, Any]          # the effective value of every adjustable key
    offered: tuple[str, ...] = ()   # the names a seat may be given
    page: str = "menu"
    index: int = 0                  # the highlighted line of the page (audits: the top one)
    choice: int = 0                 # edit / name: the highlighted value
    led_step: int = 0
    seat: int = 0                   # name: the seat being named
    counts: dict[str, int] = field(default_factory=dict)
    live: dict[str, bool] = field(default_factory=dict)   # switch test: down now
    done: bool = False
    audit_lines: int = 0            # how many audit lines there are to scroll through
    roster: tuple[str, ...] = ()    # the record's players, most recent first (remove one)
    _editing_index: int = 0

    @classmethod
    def open(cls, values: Mapping[str, Any], offered: Sequence[str] = (),
             roster: Sequence[str] = ()) -> ServiceMenu:
        return cls(values=dict(values), offered=tuple(offered), roster=tuple(roster))

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
        if button == "NEXT" and self.page in ("confirm", "reset audits", "remove"):
            return self._back(*self._came_from())     # NEXT: no
        if button == "NEXT":
            self._move()
            return []
        return self._choose()

    def switch(self, name: str, down: bool) -> None:
        """A flap or button changed (the switch test shows it live and counts closures)."""
        self.live[name] = down
        if down and self.page == "switch test":
            self.counts[name] = self.counts.get(name, 0) + 1

    def hold(self, button: str, down: bool) -> None:
        """ROLL or NEXT is down now (or up): the switch test shows it; its count
        goes up with the press itself (:meth:`button`)."""
        self.live[button] = down

    # ------------------------------------------------------------------ what is shown

    @property
    def key(self) -> str:
        """The adjustment being edited."""
        return ADJUST_ITEMS[self._editing_index]

    def names(self) -> tuple[str, ...]:
        """The seats' names, as many as there are players."""
        names = tuple(self.values.get(NAMES, ()))
        return seat_names(names, int(self.values.get("players", len(names)) or 1))

    def name_choices(self) -> tuple[str, ...]:
        """What the seat being named may be called: the offered names its
        neighbours do not have, and its own."""
        taken = set(self.names()) - {self._seat_name()}
        return tuple(n for n in dict.fromkeys((*self.offered, self._seat_name(),
                                               *(seat_label(i) for i in range(MAX_PLAYERS))))
                     if n not in taken)

    def removing(self) -> str:
        """The player the menu asks about removing."""
        return self.roster[self.choice] if self.choice < len(self.roster) else ""

    def _seat_name(self) -> str:
        names = self.names()
        return names[self.seat] if self.seat < len(names) else seat_label(self.seat)

    # ------------------------------------------------------------------ transitions

    def _count(self, button: str) -> None:
        self.counts[button] = self.counts.get(button, 0) + 1

    def _back(self, page: str, index: int) -> list[AnyGameEvent]:
        self.page, self.index = page, index
        return []

    def _came_from(self) -> tuple[str, int]:
        """The page (and line) a long NEXT goes back to."""
        if self.page in ("edit", "confirm"):
            return "adjustments", self._editing_index
        if self.page == "name":
            return NAMES, self.seat
        if self.page == NAMES:
            return "adjustments", ADJUST_ITEMS.index(NAMES)
        if self.page == "remove":
            return REMOVE, self.choice
        return "menu", ITEMS.index(self.page) if self.page in ITEMS else 0

    def _long_next(self) -> list[AnyGameEvent]:
        if self.page == "menu":
            return self._exit()
        return self._back(*self._came_from())

    def _move(self) -> None:
        if self.page == "menu":
            self.index = (self.index + 1) % len(ITEMS)
        elif self.page == "adjustments":
            self.index = (self.index + 1) % len(ADJUST_ITEMS)
        elif self.page == "edit":
            self.choice = (self.choice + 1) % len(CHOICES[self.key])
        elif self.page == NAMES:
            self.index = (self.index + 1) % max(1, len(self.names()))
        elif self.page == "name":
            self.choice = (self.choice + 1) % max(1, len(self.name_choices()))
        elif self.page == REMOVE:    # the roster, then "back"
            self.index = (self.index + 1) % (len(self.roster) + 1)
        elif self.page == "LED test":
            self.led_step = (self.led_step + 1) % len(LED_STEPS)
        elif self.page == "audits":   # a page down; from the last page back to the top
            more = self.index + AUDIT_PAGE < self.audit_lines
            self.index = self.index + AUDIT_PAGE if more else 0

    def _choose(self) -> list[AnyGameEvent]:
        if self.page == "menu":
            return self._open_item(ITEMS[self.index])
        if self.page == "adjustments":
            return self._adjust(ADJUST_ITEMS[self.index])
        if self.page == "edit":
            key, value = self.key, CHOICES[self.key][self.choice]
            self.values[key] = value
            self._back("adjustments", self._editing_index)
            return [SettingChanged(key=key, value=value)]
        if self.page == NAMES:
            self.seat, self.page = self.index, "name"
            choices = self.name_choices()
            self.choice = choices.index(self._seat_name()) if self._seat_name() in choices else 0
            return []
        if self.page == "name":
            names = list(self.names())
            names[self.seat] = self.name_choices()[self.choice]
            self.values[NAMES] = tuple(names)
            self._back(NAMES, self.seat)
            return [SettingChanged(key=NAMES, value=tuple(names))]
        if self.page == "confirm":
            self._back("adjustments", self._editing_index)
            return [SettingChanged(key="all", value=None)]
        if self.page == "reset audits":
            self._back("menu", ITEMS.index("reset audits"))
            return [AuditsReset()]
        if self.page == REMOVE:
            if self.index >= len(self.roster):
                return self._back("menu", ITEMS.index(REMOVE))
            self.page, self.choice = "remove", self.index    # "Remove NAME?"
            return []
        if self.page == "remove":
            name = self.roster[self.choice]
            self.roster = self.roster[:self.choice] + self.roster[self.choice + 1:]
            self._back(REMOVE, min(self.choice, len(self.roster)))
            return [PlayerRemoved(player=name)]
        if self.page == "LED test":
            self.led_step = (self.led_step + 1) % len(LED_STEPS)
        if self.page == "audits":
            self.index = max(0, self.index - AUDIT_PAGE)      # ROLL: a page back up
        return []

    def _open_item(self, item: str) -> list[AnyGameEvent]:
        if item == "exit":
            return self._exit()
        self.page, self.index, self.led_step = item, 0, 0
        if item == "switch test":
            self.counts = {}
        return []

    def _adjust(self, item: str) -> list[AnyGameEvent]:
        if item == BACK:
            return self._back("menu", ITEMS.index("adjustments"))
        self._editing_index = self.index
        if item == RESET:
            self.page = "confirm"
        elif item == NAMES:
            self.page, self.index = NAMES, 0
        else:
            self.page = "edit"
            options = CHOICES[item]
            current = self.values.get(item)
            self.choice = options.index(current) if current in options else 0
        return []

    def _exit(self) -> list[AnyGameEvent]:
        self.done = True
        return [ServiceExited()]
