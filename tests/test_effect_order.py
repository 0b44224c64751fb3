"""The daemon's effect queue (issue 23, point 1): a write that fails in the
middle of a step is an effect's result, handled as part of that step and never
by calling back into the controller while saving. What the box did, in order,
is recorded on the simulated box: the LEDs, each write tried, each screen
drawn and each event reported."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from shutbox_hw.config.config_file import load_config
from shutbox_hw.daemon import daemon as daemon_module
from shutbox_hw.daemon.journal import STORE_RETRY_MS
from shutbox_hw.game.display.screens import PlayScreen
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script
from shutbox_hw.store import StorageFault

GPIO_BUILD = Path(__file__).parent.parent / "hardware" / "gpio-9" / "shutbox.toml"


class Recorder:
    """Wraps the box's LEDs, display, renderer and store of one runner and
    writes down each call; the store refuses the next ``refuse`` writes."""

    def __init__(self, runner: SimRunner) -> None:
        self.order: list[tuple[str, Any]] = []
        self.refuse = 0
        daemon = runner.daemon
        show_lights, show, render = (daemon.box.indicators.show, daemon.box.display.show,
                                     daemon.render)
        record_all = daemon.store.record_all

        def lights(leds: Any, now: int) -> None:
            self.order.append(("lights", leds))
            show_lights(leds, now)

        def draw(screen: Any) -> Any:
            self.order.append(("render", screen))
            return render(screen)

        def screen(image: Any, now: int, activity: bool = True) -> None:
            self.order.append(("screen", image))
            show(image, now, activity)

        def write(events: Any, tally: Any = None, happened: Any = None) -> None:
            names = [e.name for e in events]
            if self.refuse:
                self.refuse -= 1
                self.order.append(("write refused", names))
                raise StorageFault("disk full")
            record_all(events, tally, happened)
            self.order.append(("write", names))

        daemon.box.indicators.show, daemon.box.display.show = lights, screen
        daemon.render, daemon.store.record_all = draw, write
        daemon.on_event = lambda data: self.order.append(("event", data["event"]))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.order]

    def index(self, kind: str, test: Any = lambda _: True) -> int:
        return next(i for i, (k, what) in enumerate(self.order) if k == kind and test(what))


def run(runner: SimRunner, text: str) -> None:
    for step in parse_script(text, runner.config.rules.tiles):
        runner.run(step)


def taken(screen: Any) -> bool:
    """The play screen once 3 and 4 are taken for the throw 3+4: no dice, both shut."""
    return isinstance(screen, PlayScreen) and screen.dice is None and \
        3 not in screen.open_tiles and 4 not in screen.open_tiles


def says_the_disk(screen: Any) -> bool:
    return isinstance(screen, PlayScreen) and "cannot save" in (screen.message or "")


def test_a_write_refused_mid_step_is_shown_in_that_step_and_saved_in_order_later(tmp_path):
    runner = SimRunner(load_config(GPIO_BUILD), tmp_path / "box.db")
    run(runner, "start 1\ndice 3 4\nroll\n")
    box = Recorder(runner)
    box.refuse = 1
    run(runner, "close 3 4\n")                 # 3+4 is taken: throw_committed, refused

    refused = box.index("write refused", lambda names: "throw_committed" in names)
    # the step's LEDs changed before its write was tried
    assert "lights" in box.kinds()[:refused]
    # the refused step drew one screen, after the write: the fault's, naming the disk
    after = box.order[refused:]
    drawn = [what for kind, what in after if kind == "render"]
    assert drawn and says_the_disk(drawn[0]), drawn[:1]
    assert not any(taken(s) and not says_the_disk(s) for s in drawn)
    # reported in order: the commit, then the fault; the red LED came on with it
    events = [what for kind, what in after if kind == "event"]
    assert events[:2] == ["throw_committed", "fault"]
    fault_lights = [what for kind, what in after if kind == "lights"]
    assert fault_lights and fault_lights[-1].red == "on"
    assert runner.sim.lamp_states().red

    box.order.clear()
    run(runner, "dice 6 2\nroll\nclose 8\n")   # plays on; nothing tried before the retry time
    assert "write" not in box.kinds() and "write refused" not in box.kinds()
    run(runner, f"wait {STORE_RETRY_MS / 1000 + 0.2}\n")
    saved = box.index("write")
    # the retry saves everything in the order it happened, in one go (the disk's own
    # fault with them, for the outbox: the store keeps none of it)
    assert box.order[saved][1] == ["throw_committed", "fault", "rolled", "throw_committed"]
    # the recovery is reported and shown after the write, the fault's words gone
    recovered = box.index("event", lambda e: e == "recovered")
    assert recovered > saved
    last = [what for kind, what in box.order[saved:] if kind == "render"]
    assert last and not says_the_disk(last[-1])
    assert not runner.sim.lamp_states().red
    assert runner.daemon.unsaved == []


def test_no_screen_says_a_throw_is_taken_before_it_is_durable(tmp_path):
    """Without a fault, too: every screen showing the closure taken comes after
    the write that holds it."""
    runner = SimRunner(load_config(GPIO_BUILD), tmp_path / "box.db")
    run(runner, "start 1\ndice 3 4\nroll\n")
    box = Recorder(runner)
    run(runner, "close 3 4\n")
    written = box.index("write", lambda names: "throw_committed" in names)
    first_taken = box.index("render", taken)
    assert written < first_taken
    assert box.kinds().index("lights") < written


SCRIPTS = Path(__file__).parent / "scripts"


def daemon_frames() -> list[Any]:
    """The daemon's functions on the call stack now, innermost first."""
    frame, found = sys._getframe(1), []
    while frame is not None:
        if frame.f_code.co_filename == daemon_module.__file__:
            found.append(frame.f_code)
        frame = frame.f_back
    return found


def test_nothing_reenters_the_controller_while_a_step_is_carried_out(tmp_path):
    """A whole game (dice thrown by ROLL, its end re-reading tonight's figures)
    with the disk refusing writes now and then. Whenever the controller is
    asked anything, no function of the daemon is on the stack twice (no step
    inside a step), and the one that writes is not on it at all (no answer
    to a write handed back from inside saving); and the game is the same."""
    config = load_config(GPIO_BUILD, rule_overrides={"threshold": 10})
    text = (SCRIPTS / "two-player-klappenspiel.txt").read_text()
    plain: list[dict[str, Any]] = []
    runner = SimRunner(config, tmp_path / "plain.db", on_event=plain.append)
    for step in parse_script(text, config.rules.tiles):
        runner.run(step)

    events: list[dict[str, Any]] = []
    runner = SimRunner(config, tmp_path / "box.db", on_event=events.append)
    daemon, controller = runner.daemon, runner.daemon.controller
    writers: set[Any] = set()      # the daemon's functions that called the store's write
    stacks: list[list[Any]] = []   # the daemon's functions on the stack at each question
    writes = 0
    record_all = daemon.store.record_all

    def refusing(batch: Any, tally: Any = None, happened: Any = None) -> None:
        nonlocal writes
        writers.add(daemon_frames()[0])
        writes += 1
        if writes % 4 == 0:                       # every fourth write the disk is full
            raise StorageFault("disk full")
        record_all(batch, tally, happened)

    def watched(call: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            stacks.append(daemon_frames())
            return call(*args, **kwargs)
        return run

    daemon.store.record_all = refusing
    for name in ("handle", "refresh", "configure", "hints_ready"):
        setattr(controller, name, watched(getattr(controller, name)))
    for step in parse_script(text + f"wait {STORE_RETRY_MS / 1000 + 0.2}\n", config.rules.tiles):
        runner.run(step)

    assert writes >= 8 and any(e["event"] == "fault" for e in events)
    assert writers and len(stacks) > 100
    for stack in stacks:
        names = [code.co_name for code in stack]
        assert len(set(stack)) == len(stack), f"a step inside a step: {names}"
        assert not writers & set(stack), f"asked from inside a write: {names}"
    game = [e for e in events if e["event"] not in ("fault", "recovered")]
    assert game == plain
    said = [e["event"] for e in events if e["event"] in ("fault", "recovered")]
    assert said == ["fault", "recovered"] * (len(said) // 2)      # each fault put right
    assert daemon.unsaved == [] and daemon.storage_problem() == ""


def test_a_step_sorts_its_effects_into_the_stated_order():
    """Whatever order the controller returned them in: the last frame of the
    lights and of the screen, every event in order, and after the step the
    settings, then the figures, then the dice."""
    from shutbox_hw.base.leds import LedFrame
    from shutbox_hw.daemon.work import ReadFigures, Reconfigure, Roll, Step
    from shutbox_hw.game.display.screens import ConfirmScreen, NoticeScreen
    from shutbox_hw.game.machine.effects import Emit, Lights, RollDice, Show
    from shutbox_hw.game.model.events import GameEnded, SettingChanged, TurnStarted

    first, last = LedFrame(flaps=("on",)), LedFrame(flaps=("off",), red="on")
    started = TurnStarted(seat=0, player="Ann", round=1)
    ended = GameEnded(players=("Ann",), winners=(0,), totals=(3,), rounds=1)
    change = SettingChanged(key="pause_ms", value=900)
    step = Step.of([RollDice(2), Show(NoticeScreen("a")), Lights(first), Emit(started),
                    Show(ConfirmScreen("b")), Emit(ended), Lights(last), Emit(change)])
    assert step.lights == last and step.screen == ConfirmScreen("b")
    assert step.events == (started, ended, change) and step.dice == (2,)
    after = [q.work for q in step.leads_to(5)]
    assert after == [Reconfigure((change,)), ReadFigures(audits=False), Roll(2)]
    assert Step.of([]).leads_to(5) == []


def test_the_disks_answer_goes_before_the_next_step_and_keeps_the_screen_waiting():
    from shutbox_hw.base.events import Tick
    from shutbox_hw.daemon.work import Carry, Queued, Roll, WorkQueue

    queue, seen = WorkQueue(), []
    queue.add(Queued(Carry(), 0))
    for item in queue.drain(lambda: seen.append("end of step")):
        seen.append(type(item.work).__name__)
        if isinstance(item.work, Carry):          # the step queues a roll, then the disk
            queue.add(Queued(Roll(2), 0))        # answers its write
            queue.add(Queued(Tick(0), 0, same_step=True))
    assert seen == ["end of step", "Carry", "Tick", "end of step", "Roll", "end of step"]
