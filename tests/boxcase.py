"""A small test vocabulary for the whole simulated box, in the spirit of the
Mission Pinball Framework's ``MpfTestCase``: verbs that do what a person does
to the box and let virtual time run, and assertions on what a person sees.

Everything runs on the simulator's virtual clock (the real daemon, debounced
switches, display and lights under :class:`~shutbox_hw.sim.runner.SimRunner`),
and every assertion reads only what the box gives out
(:class:`~shutbox_hw.sim.observed.Observed`): the events it printed, the
screen it was last sent, the LED frame it was last sent. Never the
controller's state: a test written with these keeps working whatever shape
the game's state takes.

    box = BoxCase(tmp_path, players=1)
    box.throw(3, 4)
    box.press_button_and_run("roll")
    box.hit_switch_and_run(9, 100)            # flap 9 shut: no part of 3+4
    box.assert_event("flap_rejected", flap=9)
    box.assert_light_blinking(9)
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from shutbox_hw.config.config_file import Config, load_config
from shutbox_hw.game.display.screens import Screen
from shutbox_hw.sim.observed import Observed
from shutbox_hw.sim.runner import SimRunner

LIGHTS = ("green", "red")


def screen_text(screen: Screen | None) -> str:
    """Every word a screen value holds (its names, prompts, notes, messages,
    numbers), one field after another: what ``assert_screen_says`` searches."""
    if screen is None:
        return ""
    words: list[str] = []

    def walk(value: Any) -> None:
        if is_dataclass(value) and not isinstance(value, type):
            for field in fields(value):
                walk(getattr(value, field.name))
        elif isinstance(value, (tuple, list)):
            for item in value:
                walk(item)
        elif value is not None:
            words.append(str(value))
    walk(screen)
    return " | ".join(words)


class BoxCase:
    """One simulated box, booted, idle (or, with ``players``, a game started)."""

    def __init__(self, tmp_path: Path, config: Config | None = None, *, players: int = 0,
                 seed: int = 0, **runner: Any) -> None:
        """``runner``: more of :class:`SimRunner`'s options (``advisor_for``, ...)."""
        self.config = config or load_config(preset="klappenspiel")
        self.events: list[dict[str, Any]] = []
        self.runner = SimRunner(self.config, tmp_path / "box.db", seed=seed,
                                on_event=self.events.append, **runner)
        self.mark = 0     # assert_event looks at the events from here on
        if players:
            self.runner.start_game(players)

    @property
    def view(self) -> Observed:
        return self.runner.sim.view

    # ------------------------------------------------------------------ doing

    def advance_time_and_run(self, ms: int) -> None:
        """Let ``ms`` of virtual time pass with nobody touching the box."""
        self.runner.advance(ms)

    def hit_switch_and_run(self, name: int | str, ms: int) -> None:
        """Close a flap's switch (a flap number) or hold a button down
        (``roll``, ``next``, ``service``), then let ``ms`` pass. The switch
        bounces as a real one does; ``ms`` counts from its first edge."""
        self._set(name, True, ms)

    def release_switch_and_run(self, name: int | str, ms: int) -> None:
        """Lift the flap or let the button go, then let ``ms`` pass."""
        self._set(name, False, ms)

    def _set(self, name: int | str, closed: bool, ms: int) -> None:
        now = self.runner.world.now_ms()
        if isinstance(name, int):
            self.runner.sim.move_flap(name, closed, now)
        else:
            self.runner.sim.button_switch(name).set(closed, now)
        self.runner.advance(ms)

    def press_button_and_run(self, name: str, long: bool = False) -> None:
        """A short (or long) press of ROLL or NEXT, released, and waited on
        until the box took it (as the script's ``roll``/``next`` lines)."""
        self.runner.press(name, long)

    def throw(self, *faces: int) -> None:
        """The next throw shows these faces (the script's ``dice``)."""
        self.runner.throw_next(tuple(faces))

    # ------------------------------------------------------------------ seeing

    def _led(self, name: int | str) -> str:
        frame = self.view.leds
        assert frame is not None, "the box has sent its lights nothing yet"
        if isinstance(name, int):
            return frame.flaps[name - 1]
        assert name in LIGHTS, f"no light {name!r} (a flap number, green or red)"
        return str(getattr(frame, name))

    def assert_light_on(self, name: int | str) -> None:
        assert self._led(name) == "on", f"light {name} is {self._led(name)}, not on"

    def assert_light_off(self, name: int | str) -> None:
        assert self._led(name) == "off", f"light {name} is {self._led(name)}, not off"

    def assert_light_blinking(self, name: int | str) -> None:
        assert self._led(name) == "blink", f"light {name} is {self._led(name)}, not blinking"

    def assert_screen_says(self, text: str) -> None:
        """``text`` is somewhere on the screen the box was last sent."""
        said = screen_text(self.view.screen)
        assert text in said, f"the screen does not say {text!r}: {said!r}"

    def assert_screen_is(self, kind: type) -> None:
        assert isinstance(self.view.screen, kind), \
            f"the screen is {type(self.view.screen).__name__}, not {kind.__name__}"

    def assert_event(self, name: str, **fields: Any) -> dict[str, Any]:
        """An event ``name`` with these fields was printed since the last
        :meth:`forget_events` (tuples compare with JSON lists). Returns it."""
        want = {k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}
        recent = self.events[self.mark:]
        for event in recent:
            if event["event"] == name and all(event.get(k) == v for k, v in want.items()):
                return event
        raise AssertionError(f"no {name} event with {want}; since the mark: "
                             f"{[e['event'] for e in recent]}")

    def assert_no_event(self, name: str) -> None:
        recent = [e for e in self.events[self.mark:] if e["event"] == name]
        assert not recent, f"unexpected {name}: {recent}"

    def forget_events(self) -> None:
        """From now on :meth:`assert_event` looks only at new events."""
        self.mark = len(self.events)
