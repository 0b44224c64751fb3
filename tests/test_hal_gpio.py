"""The gpiozero adapters on MockFactory pins, driven through the simulated world."""

import os
import random

import pytest
from gpiozero.exc import PinUnknownPi
from gpiozero.pins.mock import MockFactory, MockPin
from hypothesis import given, settings
from hypothesis import strategies as st

from shutbox_hw.base.errors import UserError
from shutbox_hw.base.events import (
    ButtonLevel,
    ButtonPressed,
    FlapChanged,
    InputFault,
    ServiceRequested,
)
from shutbox_hw.hal.adapters.gpio import PiLamps, PiPins, gpio_device_problem, make_pin_factory
from shutbox_hw.hal.adapters.lights import Lights
from shutbox_hw.hal.adapters.switches import Switches
from shutbox_hw.hal.contracts.ports import LedFrame
from shutbox_hw.hal.simulated import SimSwitch, SimWorld, mock_pin_setter

FLAP_PINS = {1: 5, 2: 6, 3: 13}

def presses(events):
    """The events without the buttons' levels (ButtonLevel: the switch test's)."""
    return [e for e in events if not isinstance(e, ButtonLevel)]


def pi_flaps(tile_pins, world, *, read_ms=250, pin_factory):
    """The box's one FlapBank over flap switches on Pi pins, on ``world``'s clock
    and scheduler."""
    pins = PiPins(tile_pins, world.clock, pin_factory, read_ms, timers=world.timers)
    return Switches([pins], timers=world.timers).flaps


def pi_buttons(roll_pin, next_pin, world, *, hold_ms, read_ms=250, pin_factory):
    """The box's one Buttons over ROLL and NEXT on Pi pins."""
    pins = PiPins({"roll": roll_pin, "next": next_pin}, world.clock, pin_factory, read_ms,
                  timers=world.timers)
    return Switches([pins], hold_ms=hold_ms, timers=world.timers).buttons


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


class ClosedSwitchPin(MockPin):
    """A pin whose switch is already closed: the pull-up cannot lift it."""

    def _set_pull(self, value):
        super()._set_pull(value)
        self.drive_low()


def test_shut_at_start_is_in_mask_without_event(factory):
    factory.pin(6, pin_class=ClosedSwitchPin)
    world = SimWorld()
    bank = pi_flaps(FLAP_PINS, world, pin_factory=factory)
    assert bank.tiles == 3
    assert bank.shut_mask() == 0b010
    assert world.run([bank], 1000) == []
    bank.close()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.lists(st.tuples(st.sampled_from([1, 2, 3]),
                                                      st.integers(30, 400)),
                                            min_size=1, max_size=15))
def test_bouncing_flaps_give_one_event_per_real_change(seed, script):
    factory = MockFactory()
    try:
        world = SimWorld()
        bank = pi_flaps(FLAP_PINS, world, pin_factory=factory)
        rng = random.Random(seed)
        switches = {t: SimSwitch(world, mock_pin_setter(factory.pin(p)), rng=rng)
                    for t, p in FLAP_PINS.items()}
        shut = {t: False for t in FLAP_PINS}
        expected = []
        t = 0
        for tile, gap in script:       # gaps >= 30 ms: every change is a real one
            t += gap
            shut[tile] = not shut[tile]
            last = switches[tile].set(shut[tile], t)
            expected.append(FlapChanged(tile, shut[tile], last + 20))
        events = world.run([bank], t + 1000)
        assert sorted(events, key=lambda e: (e.at_ms, e.tile)) == \
            sorted(expected, key=lambda e: (e.at_ms, e.tile))
        assert bank.shut_mask() == sum(1 << (k - 1) for k, v in shut.items() if v)
        bank.close()
    finally:
        factory.reset()


def test_chattering_flap_is_one_fault_not_a_storm(factory):
    world = SimWorld()
    bank = pi_flaps(FLAP_PINS, world, pin_factory=factory)
    pin = factory.pin(13)
    for i in range(300):                 # 3 s of an edge every 10 ms
        world.at(i * 10, (pin.drive_low if i % 2 == 0 else pin.drive_high))
    world.at(3005, pin.drive_low)        # then it rests shut
    events = world.run([bank], 5000)
    assert events == [InputFault("flap 3", "switch chattering", 1000),
                      InputFault("flap 3", "switch settled again", 3255, ok=True),
                      FlapChanged(3, True, 3255)]


def test_buttons_short_and_long(factory):
    world = SimWorld()
    buttons = pi_buttons(17, 27, world, hold_ms=800, pin_factory=factory)
    roll = SimSwitch(world, mock_pin_setter(factory.pin(17)), rng=random.Random(1))
    nxt = SimSwitch(world, mock_pin_setter(factory.pin(27)), rng=random.Random(2))
    p1 = roll.set(True, 100)
    r1 = roll.set(False, 400)
    p2 = nxt.set(True, 1000)
    nxt.set(False, 3000)
    events = presses(world.run([buttons], 4000))
    assert events == [ButtonPressed("roll", False, r1 + 20),
                      ButtonPressed("next", True, p2 + 20 + 800)]
    assert p1 < r1
    buttons.close()


def test_long_press_fires_while_still_held(factory):
    world = SimWorld()
    buttons = pi_buttons(17, 27, world, hold_ms=800, pin_factory=factory)
    world.at(100, factory.pin(27).drive_low)
    assert presses(world.run([buttons], 919)) == []
    assert presses(world.run([buttons], 920)) == [ButtonPressed("next", True, 920)]


def test_service_button_on_a_pi_pin_asks_once_at_the_settled_press(factory):
    world = SimWorld()
    pins = PiPins({"roll": 17, "next": 27, "service": 22}, world.clock, factory,
                  timers=world.timers)
    buttons = Switches([pins], hold_ms=800, timers=world.timers).buttons
    service = SimSwitch(world, mock_pin_setter(factory.pin(22)), rng=random.Random(4))
    pressed = service.set(True, 100)            # bouncing, like every switch
    released = service.set(False, 3000)         # held far past the hold time: still one
    again = service.set(True, 4000)
    events = world.run([buttons], 6000)
    assert events == [ServiceRequested(pressed + 20), ServiceRequested(again + 20)]
    assert pressed < released
    buttons.close()


def test_a_chattering_service_button_is_a_fault_named_service(factory):
    world = SimWorld()
    pins = PiPins({"roll": 17, "next": 27, "service": 22}, world.clock, factory,
                  timers=world.timers)
    buttons = Switches([pins], hold_ms=800, timers=world.timers).buttons
    pin = factory.pin(22)
    for i in range(300):                 # 3 s of an edge every 10 ms, ending released
        world.at(i * 10, (pin.drive_low if i % 2 == 0 else pin.drive_high))
    events = world.run([buttons], 5000)
    assert events == [InputFault("SERVICE", "switch chattering", 1000),
                      InputFault("SERVICE", "switch settled again", 2990 + 250, ok=True)]
    buttons.close()


def test_leds_on_pins_follow_frames_and_blink(factory):
    world = SimWorld()
    leds = Lights([PiLamps({1: 20, 2: 21, "green": 22, "red": 23}, factory)], blink_ms=400,
                  timers=world.timers)
    pins = {k: factory.pin(p) for k, p in {1: 20, 2: 21, "g": 22, "r": 23}.items()}
    assert [pins[k].state for k in pins] == [False] * 4
    leds.show(LedFrame(flaps=("on", "blink", "on"), green="on", red="off"), 100)
    assert [pins[k].state for k in pins] == [True, True, True, False]
    assert leds.timer.when == 400
    for pin in pins.values():
        pin.clear_states()
    world.advance_to(100)
    world.run([leds], 1700)
    # flap 2 blinks with period 800 from time 0: off at 400, on at 800, off 1200, on 1600
    assert [s.state for s in pins[2].states] == [True, False, True, False, True]
    assert [s.state for s in pins[1].states] == [True]        # untouched
    leds.show(LedFrame(flaps=("off", "off"), green="off", red="blink"), 1700)
    assert [pins[k].state for k in pins] == [False, False, False, True]
    leds.close()


def test_pin_factory_by_name():
    assert type(make_pin_factory("mock")).__name__ == "MockFactory"
    with pytest.raises(UserError, match="not one of lgpio, rpigpio, mock"):
        make_pin_factory("pigpio")


def test_missing_backend_library_is_a_user_error(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_lgpio(name, *a, **k):
        if name == "gpiozero.pins.lgpio":
            raise ImportError("No module named 'lgpio'")
        return real_import(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_lgpio)
    with pytest.raises(UserError, match="lgpio library is not installed.*python3-lgpio"):
        make_pin_factory("lgpio")


class RaisesOnCreate:
    """A backend module whose factory fails the way a real one does."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __call__(self, name, *a, **k):
        if name == "gpiozero.pins.lgpio":
            exc = self.exc

            class Module:
                @staticmethod
                def LGPIOFactory():
                    raise exc
            return Module
        return self.real(name, *a, **k)


@pytest.mark.parametrize("exc,words", [
    # gpiozero off a Pi (seen here, x86) and under ProcSubset=pid (seen with unshare)
    (PinUnknownPi("unable to locate Pi revision in /proc/device-tree or /proc/cpuinfo"),
     ["cannot tell which board", "ProcSubset=pid"]),
    (FileNotFoundError(2, "No such file or directory", "/proc/cpuinfo"),
     ["cannot tell which board", "/proc/cpuinfo"]),
    # RPi.GPIO on a Pi 5
    (RuntimeError("Cannot determine SOC peripheral base address"), ["--pin-factory lgpio"]),
    (ValueError("something\nnew"), ["cannot start here: ValueError: something new"]),
])
def test_a_backend_that_cannot_start_is_one_line_with_the_cause(monkeypatch, exc, words):
    import builtins
    fake = RaisesOnCreate(exc)
    fake.real = builtins.__import__
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(UserError) as info:
        make_pin_factory("lgpio")
    message = str(info.value)
    assert message.startswith("pin factory 'lgpio': ") and "\n" not in message
    assert all(w in message for w in words), message


def test_lgpio_failing_at_import_names_the_directory(monkeypatch, tmp_path):
    # the real lgpio raises this from its import when it cannot make its FIFO
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LG_WD", raising=False)
    fake = RaisesOnCreate(FileNotFoundError(2, "No such file or directory", ".lgd-nfy-3"))
    import builtins
    fake.real = builtins.__import__
    monkeypatch.setattr(builtins, "__import__", fake)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    with pytest.raises(UserError, match="FIFO .* in .*set LG_WD") as info:
        make_pin_factory("lgpio")
    # with no LG_WD the box gave lgpio a private folder, and the line names it
    private = os.environ["LG_WD"]
    assert os.path.dirname(private) == str(tmp_path) and f"in {private} " in str(info.value)
    monkeypatch.setenv("LG_WD", "/run/shutbox-hw")
    with pytest.raises(UserError, match="in /run/shutbox-hw "):
        make_pin_factory("lgpio")


def test_gpiochip_without_permission_names_the_gpio_group(tmp_path, monkeypatch):
    dev = tmp_path / "dev"
    assert "no " + str(dev) + "/gpiochip*" in gpio_device_problem(str(dev))
    dev.mkdir()
    assert "no " + str(dev) + "/gpiochip*" in gpio_device_problem(str(dev))
    chip = dev / "gpiochip0"
    chip.write_text("")
    assert "another program" in gpio_device_problem(str(dev))
    chip.chmod(0o000)
    if os.geteuid() == 0:   # root may open anything: answer as a plain user would
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda p, m: real_access(p, m) and
                            os.stat(p).st_mode & 0o777 != 0)
    assert "no permission on " + str(chip) + ": add the user to the gpio group" \
        in gpio_device_problem(str(dev))


def test_lgpio_error_opening_the_chip_adds_what_is_wrong(monkeypatch):
    import builtins
    fake = RaisesOnCreate(Exception("can not open gpiochip"))
    fake.real = builtins.__import__
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(UserError) as info:
        make_pin_factory("lgpio")
    assert str(info.value) == f"pin factory 'lgpio': can not open gpiochip: {gpio_device_problem()}"


def drop_edge(pin: MockPin, level: bool) -> None:
    """The pin changes but the backend never calls back (a lost edge)."""
    pin._change_state(level)


def test_a_lost_flap_edge_is_repaired_by_the_periodic_read(factory):
    world = SimWorld()
    bank = pi_flaps(FLAP_PINS, world, read_ms=250, pin_factory=factory)
    pin = factory.pin(13)
    assert world.run([bank], 1000) == []          # levels agree: nothing invented
    world.at(1100, lambda: drop_edge(pin, False))  # tile 3 shut, no callback
    events = world.run([bank], 1100 + 250 + 20)    # one read interval plus debounce
    assert events == [FlapChanged(3, True, 1250 + 20)]   # read at 1250, settled 20 ms on
    assert bank.shut_mask() == 0b100
    world.at(2010, lambda: drop_edge(pin, True))   # lifted, lost again
    events = world.run([bank], 3000)
    assert events == [FlapChanged(3, False, 2250 + 20)]
    bank.close()


def test_the_read_interval_follows_the_config(factory):
    world = SimWorld()
    bank = pi_flaps(FLAP_PINS, world, read_ms=100, pin_factory=factory)
    world.run([bank], 0)
    world.at(30, lambda: drop_edge(factory.pin(5), False))
    assert world.run([bank], 200) == [FlapChanged(1, True, 120)]
    bank.close()


def test_a_lost_button_release_still_gives_the_press(factory):
    world = SimWorld()
    buttons = pi_buttons(23, 24, world, hold_ms=800, read_ms=250, pin_factory=factory)
    pin = factory.pin(23)
    world.run([buttons], 0)
    world.at(100, pin.drive_low)                   # pressed, seen
    world.at(300, lambda: drop_edge(pin, True))    # released, lost
    assert presses(world.run([buttons], 1000)) == [ButtonPressed("roll", False, 520)]
    buttons.close()
