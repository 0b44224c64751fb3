"""The OLED adapter over luma's dummy device: sending, coalescing, idle, lost display.

No wall-clock assertions: slowness is played by a device that waits on an
Event the test controls, idle time runs on the virtual now_ms.
"""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from luma.core.error import DeviceNotFoundError
from PIL import Image, ImageDraw

from shutbox_hw.base.scheduler import Scheduler
from shutbox_hw.config.config_file import load_config
from shutbox_hw.hal.adapters.burn_in import ORBIT, shift_within_blank
from shutbox_hw.hal.adapters.display import NullDisplay, OledDisplay, dummy_device, make_display
from shutbox_hw.hal.adapters.luma_panel import luma_panel
from shutbox_hw.hal.contracts.config import DisplayConfig, HardwareConfig, parse_hardware

# luma's ssd1306 calls Image.getdata (deprecated in Pillow 13; Pillow<14 is pinned)
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")

ROOT = Path(__file__).resolve().parent.parent
WAIT = 10  # seconds; only a safety net against a hang, never a measurement


class GatedDevice:
    """Wraps a luma device: records every call and can hold ``display`` on an Event.

    Plays a slow bus (``gate`` cleared until the test sets it) and shows
    exactly what reached the panel.
    """

    def __init__(self, device: Any, gate: threading.Event | None = None) -> None:
        self.device = device
        self.gate = gate
        self.calls: list[tuple[str, Any]] = []
        self.entered = threading.Event()  # set when display() is waiting on the gate
        self.fail_next: OSError | None = None

    def _call(self, name: str, arg: Any = None) -> None:
        if self.fail_next is not None:
            error, self.fail_next = self.fail_next, None
            raise error
        self.calls.append((name, arg))

    def display(self, image: Image.Image) -> None:
        self.entered.set()
        if self.gate is not None:
            self.gate.wait()
        self._call("display", image.tobytes())
        self.device.display(image)

    def contrast(self, level: int) -> None:
        self._call("contrast", level)
        self.device.contrast(level)

    def show(self) -> None:
        self._call("show")
        self.device.show()

    def hide(self) -> None:
        self._call("hide")
        self.device.hide()

    def cleanup(self) -> None:
        self.calls.append(("cleanup", None))

    def frames(self) -> list[bytes]:
        return [arg for name, arg in self.calls if name == "display"]


def frame(text: str) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((0, 0), text, fill=1)
    return image


def pixels(image: Image.Image) -> bytes:
    return image.convert("1").tobytes()


@pytest.fixture
def opened():
    displays: list[OledDisplay] = []

    def open_display(factory, **kwargs) -> OledDisplay:
        display = OledDisplay(factory, **kwargs)
        displays.append(display)
        return display

    yield open_display
    for display in displays:
        display.close()


def test_frames_differ_from_each_other():
    # guards the other tests: distinct texts must give distinct pixels
    assert len({pixels(frame(t)) for t in "ABC"}) == 3


def test_unchanged_frame_is_not_sent_again(opened):
    device = GatedDevice(dummy_device())
    display = opened(lambda: device)
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    display.show(frame("A"), 10)
    display.poll(20)
    assert display.wait_idle(WAIT)
    assert device.frames() == [pixels(frame("A"))]
    display.show(frame("B"), 30)
    assert display.wait_idle(WAIT)
    assert device.frames() == [pixels(frame("A")), pixels(frame("B"))]
    assert pixels(device.device.image) == pixels(frame("B"))


def test_the_sender_is_woken_only_when_the_panel_has_something_to_change(opened):
    device = GatedDevice(dummy_device())
    display = opened(lambda: device, idle_dim_ms=1000, idle_off_ms=0)
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    cond, notified = display._cond, []
    notify = cond.notify              # notify_all goes through it too
    cond.notify = lambda n=1: (notified.append(n), notify(n))[1]
    for now in range(1, 1000, 5):    # the loop's polls, the same frame again, a flap
        display.poll(now)
        display.show(frame("A"), now)
        display.wake(now)
    assert notified == []
    display.show(frame("B"), 1000)   # a new frame: one wake-up
    assert len(notified) == 1
    assert display.wait_idle(WAIT)
    notified.clear()
    display.poll(1999)
    assert notified == []
    display.poll(2000)               # idle: dim, i.e. a new contrast to send
    assert len(notified) == 1
    assert display.wait_idle(WAIT)
    assert device.calls[-1] == ("contrast", 16)


def test_slow_display_does_not_block_show_and_newest_frame_wins(opened):
    gate = threading.Event()
    device = GatedDevice(dummy_device(), gate)
    display = opened(lambda: device)
    display.show(frame("A"), 0)
    assert device.entered.wait(WAIT)  # the sender is now stuck inside display()
    display.show(frame("B"), 1)
    display.show(frame("C"), 2)
    # both calls returned while the device was still blocked
    assert not gate.is_set()
    assert device.frames() == []
    gate.set()
    assert display.wait_idle(WAIT)
    assert device.frames() == [pixels(frame("A")), pixels(frame("C"))]


def test_frame_back_to_the_last_sent_one_is_not_sent(opened):
    gate = threading.Event()
    device = GatedDevice(dummy_device(), gate)
    display = opened(lambda: device)
    display.show(frame("A"), 0)
    assert device.entered.wait(WAIT)
    display.show(frame("B"), 1)
    display.show(frame("A"), 2)
    gate.set()
    assert display.wait_idle(WAIT)
    assert device.frames() == [pixels(frame("A"))]


def test_dims_then_blanks_when_idle_and_wakes_on_activity(opened):
    device = GatedDevice(dummy_device())
    display = opened(lambda: device, idle_dim_ms=1000, idle_off_ms=5000, contrast=200,
                     dim_contrast=10)
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    assert display.timer.when == 1000
    display.poll(999)
    assert display.mode == "on"
    display.poll(1000)
    assert display.wait_idle(WAIT)
    assert display.mode == "dim"
    assert device.calls[-1] == ("contrast", 10)
    assert display.timer.when == 5000
    display.poll(5000)
    assert display.wait_idle(WAIT)
    assert display.mode == "off"
    assert device.calls[-1] == ("hide", None)
    assert display.timer.when is None
    display.show(frame("A"), 6000)  # the same frame is not activity
    assert display.wait_idle(WAIT)
    assert display.mode == "off"
    display.wake(7000)  # a flap or a button
    assert display.wait_idle(WAIT)
    assert display.mode == "on"
    assert device.calls[-2:] == [("contrast", 200), ("show", None)]
    assert display.timer.when == 8000


def test_a_frame_the_box_changed_by_itself_does_not_wake_it(opened):
    # the idle screen's pages turn every few seconds: the screen saver must still come
    device = GatedDevice(dummy_device())
    display = opened(lambda: device, idle_dim_ms=1000, idle_off_ms=5000, contrast=200,
                     dim_contrast=10)
    display.show(frame("A"), 0)
    display.poll(1000)
    display.show(frame("B"), 1500, activity=False)
    assert display.wait_idle(WAIT)
    assert display.mode == "dim" and device.frames()[-1] == pixels(frame("B"))
    assert display.timer.when == 5000
    display.show(frame("C"), 2000)
    assert display.wait_idle(WAIT)
    assert display.mode == "on"


def test_set_contrast_applies_now_and_after_dimming(opened):
    device = GatedDevice(dummy_device())
    display = opened(lambda: device, idle_dim_ms=1000, idle_off_ms=0, contrast=200,
                     dim_contrast=10)
    def contrast() -> int:
        return [arg for name, arg in device.calls if name == "contrast"][-1]

    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT) and contrast() == 200
    display.set_contrast(64)
    assert display.wait_idle(WAIT) and contrast() == 64
    display.poll(1000)
    assert display.wait_idle(WAIT) and contrast() == 10
    display.wake(1100)
    assert display.wait_idle(WAIT) and contrast() == 64


def test_changed_frame_wakes_a_blank_screen_with_the_new_frame_first(opened):
    device = GatedDevice(dummy_device())
    display = opened(lambda: device, idle_dim_ms=0, idle_off_ms=100)
    display.show(frame("A"), 0)
    display.poll(100)
    assert display.wait_idle(WAIT)
    assert display.mode == "off"
    mark = len(device.calls)
    display.show(frame("B"), 150)
    assert display.wait_idle(WAIT)
    names = [name for name, _ in device.calls[mark:]]
    # the new frame is drawn before the panel comes back: no flash of the old one
    assert names.index("display") < names.index("show")
    assert display.mode == "on"


def test_missing_display_is_retried_every_retry_ms(opened):
    attempts: list[int] = []
    device = GatedDevice(dummy_device())

    def factory():
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError(121, "Remote I/O error")
        return device

    display = opened(factory, retry_ms=3000, attempts=1)  # no immediate retry here
    assert display.wait_idle(WAIT)  # the first attempt (at start) has failed
    assert not display.connected
    assert "Remote I/O" in display.last_error
    display.show(frame("A"), 0)  # the first time seen after the failure
    assert display.timer.when == 3000
    display.show(frame("B"), 20)  # the box plays on; the newest frame is kept
    display.poll(2999)
    assert display.wait_idle(WAIT)
    assert len(attempts) == 1
    display.poll(3000)
    assert display.wait_idle(WAIT)
    assert len(attempts) == 2
    assert display.connected
    assert display.timer.when == 20 + 60_000  # only the dim timer is left
    assert device.frames() == [pixels(frame("B"))]


def test_a_failing_send_drops_the_device_and_a_retry_resends_everything(opened):
    devices = [GatedDevice(dummy_device()), GatedDevice(dummy_device())]
    made: list[GatedDevice] = []

    def factory():
        made.append(devices[len(made)])
        return made[-1]

    display = opened(factory, retry_ms=500, attempts=1)
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    devices[0].fail_next = OSError(5, "Input/output error")
    display.show(frame("B"), 10)
    assert display.wait_idle(WAIT)
    assert not display.connected
    display.poll(20)
    display.poll(520)
    assert display.wait_idle(WAIT)
    assert display.connected and len(made) == 2
    # the new device starts blank: contrast, frame and power all go out again
    assert [name for name, _ in devices[1].calls] == ["contrast", "display", "show"]
    assert devices[1].frames() == [pixels(frame("B"))]


def test_luma_device_not_found_is_survived(opened):
    def factory():
        raise DeviceNotFoundError("I2C device not found on address: 0x3C")

    display = opened(factory)
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    assert not display.connected and "0x3C" in display.last_error


def test_wrong_frame_size_is_a_programming_error(opened):
    display = opened(dummy_device)
    with pytest.raises(ValueError):
        display.show(Image.new("1", (64, 32)), 0)


def test_make_display_uses_the_config():
    hw = HardwareConfig(display=DisplayConfig(contrast=99, dim_contrast=5, dim_after_s=2,
                                              off_after_s=0, retry_s=1, shift_every_s=0))
    device = GatedDevice(dummy_device())
    display = make_display(hw, device_factory=lambda: device)
    try:
        display.show(frame("A"), 0)
        assert display.wait_idle(WAIT)
        assert device.calls[0] == ("contrast", 99)
        assert display.timer.when == 2000
        display.poll(2000)
        assert display.wait_idle(WAIT)
        assert device.calls[-1] == ("contrast", 5)
        assert display.timer.when is None  # off_after_s = 0: never blank
    finally:
        display.close()
    assert device.calls[-1] == ("cleanup", None)


def test_make_display_without_a_display():
    timers = Scheduler()
    display = make_display(HardwareConfig(display=DisplayConfig(driver="none")), timers=timers)
    assert isinstance(display, NullDisplay)
    display.show(frame("A"), 0)
    assert display.poll(0) == [] and timers.next_ms() is None   # nothing to wake the loop for


@pytest.mark.skipif(Path("/dev/i2c-31").exists(), reason="a real bus 31 exists here")
def test_real_factory_on_a_machine_without_the_bus_keeps_running():
    display = make_display(HardwareConfig(display=DisplayConfig(port=31)))
    try:
        display.show(frame("A"), 0)
        assert display.wait_idle(WAIT)
        assert not display.connected
        assert display.last_error and "i2c-31" in display.last_error
    finally:
        display.close()


class FakeBus:
    """The two smbus2 calls luma's i2c interface makes when handed a bus."""

    def __init__(self) -> None:
        self.writes: list[tuple[int, int, list[int]]] = []
        self.fail: OSError | None = None

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if self.fail is not None:
            raise self.fail
        self.writes.append((address, register, list(data)))

    def data_bytes(self) -> list[int]:
        return [b for _, register, data in self.writes if register == 0x40 for b in data]


def test_real_ssd1306_driver_on_a_fake_bus(opened):
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    bus = FakeBus()
    display = opened(lambda: ssd1306(i2c(bus=bus, address=0x3C)))
    assert display.wait_idle(WAIT)
    bus.writes.clear()
    image = Image.new("1", (128, 64))
    image.putpixel((5, 10), 1)
    display.show(image, 0)
    assert display.wait_idle(WAIT)
    sent = bus.data_bytes()
    # SSD1306 page layout: byte x + 128 * (y // 8), bit y % 8
    expected = [0] * 1024
    expected[5 + 128 * 1] = 1 << 2
    assert sent == expected
    assert all(address == 0x3C for address, _, _ in bus.writes)
    display.show(image.copy(), 10)
    assert display.wait_idle(WAIT)
    assert len(bus.data_bytes()) == 1024  # the same frame again: nothing on the bus


def test_real_ssd1306_bus_error_is_survived(opened):
    from luma.core.interface.serial import i2c
    from luma.oled.device import ssd1306

    bus = FakeBus()
    display = opened(lambda: ssd1306(i2c(bus=bus, address=0x3C)), retry_ms=100)
    assert display.wait_idle(WAIT) and display.connected
    bus.fail = OSError(121, "Remote I/O error")
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    assert not display.connected
    bus.fail = None
    bus.writes.clear()
    display.poll(1)
    display.poll(101)
    assert display.wait_idle(WAIT)
    assert display.connected
    assert bus.data_bytes()[-1024:] == list(_ssd1306_bytes(frame("A")))


def _ssd1306_bytes(image: Image.Image) -> bytes:
    """The frame in SSD1306 page order, computed here independently of luma."""
    out = bytearray(1024)
    for y in range(64):
        for x in range(128):
            if image.getpixel((x, y)):
                out[x + 128 * (y // 8)] |= 1 << (y % 8)
    return bytes(out)


def test_rotation_2_turns_the_picture_upside_down():
    # 1 and 3 (on its side) are refused by the config: frames are always 128x64
    hw = HardwareConfig(display=DisplayConfig(rotation=2))
    device = dummy_device(rotation=2)
    display = make_display(hw, device_factory=lambda: device)
    try:
        assert (display.width, display.height) == (128, 64)
        image = Image.new("1", (128, 64))
        image.putpixel((0, 0), 1)
        display.show(image, 0)
        assert display.wait_idle(WAIT)
        # a half turn: the top-left pixel lands bottom-right on the panel
        assert device.image.getpixel((127, 63)) and not device.image.getpixel((0, 0))
    finally:
        display.close()


def test_a_driver_bug_does_not_kill_the_sender(opened):
    calls: list[int] = []

    class Broken:
        def contrast(self, level):
            calls.append(level)
            if len(calls) == 1:
                raise AssertionError("size mismatch")

        display = show = hide = cleanup = lambda self, *a: None

    display = opened(Broken, retry_ms=50)
    assert display.wait_idle(WAIT)
    assert "AssertionError" in display.last_error
    display.show(frame("A"), 0)
    display.poll(50)
    assert display.wait_idle(WAIT)
    assert display.connected and len(calls) == 2


# -- the real luma path: one serial interface, reused ------------------------------------


class FdBus:
    """Stands in for smbus2.SMBus(port): holds a real file descriptor like the real one,
    and a panel that does not answer (121) or a bus that refuses i2c_rdwr."""

    opened: list[FdBus] = []

    def __init__(self, port: int) -> None:
        self.port = port
        self.fd = os.open("/dev/null", os.O_RDWR)
        self.commands_fail: OSError | None = OSError(121, "Remote I/O error")
        self.rdwr_fail: OSError | None = None
        self.writes: list[tuple[int, int, list[int]]] = []
        self.frames: list[bytes] = []
        FdBus.opened.append(self)

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if self.commands_fail is not None:
            raise self.commands_fail
        self.writes.append((address, register, list(data)))

    def i2c_rdwr(self, *messages) -> None:
        if self.rdwr_fail is not None:
            raise self.rdwr_fail
        for m in messages:
            self.frames.append(bytes(m)[1:])

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


@pytest.fixture
def fd_bus(monkeypatch):
    import smbus2
    FdBus.opened = []
    monkeypatch.setattr(smbus2, "SMBus", FdBus)
    return FdBus


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def panels() -> int:
    from luma.oled.device import ssd1306
    return sum(1 for o in gc.get_objects() if isinstance(o, ssd1306))


def retry(display: OledDisplay, times: int, every_ms: int) -> None:
    now = 0
    for _ in range(times):
        display.poll(now)
        assert display.wait_idle(WAIT)
        now += every_ms
        display.poll(now)   # due: the sender tries again
        assert display.wait_idle(WAIT)


def test_a_thousand_failed_retries_leave_the_open_descriptors_unchanged(fd_bus):
    gc.collect()
    fds, devices = open_fds(), panels()
    panel = luma_panel("ssd1306", 1, 0x3C)
    display = OledDisplay(panel, retry_ms=1000, attempts=1)
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    after_first = open_fds()
    assert after_first == fds + 1               # the bus, opened once
    retry(display, 1000, 1000)
    assert not display.connected and "0x3C" in display.last_error
    assert open_fds() == after_first
    assert len(fd_bus.opened) == 1 and panel.serials_opened == 1
    gc.collect()
    assert panels() == devices + 1               # and one luma device, not a thousand
    display.close()
    assert open_fds() == fds


def test_the_panel_answering_again_gets_its_init_contrast_and_frame(fd_bus):
    panel = luma_panel("ssd1306", 1, 0x3C)
    display = OledDisplay(panel, retry_ms=1000, attempts=1)
    display.show(frame("A"), 0)
    retry(display, 3, 1000)
    bus = fd_bus.opened[0]
    bus.commands_fail = None                     # plugged back in
    display.poll(10_000)
    display.poll(11_000)
    assert display.wait_idle(WAIT) and display.connected
    commands = [b for _, reg, data in bus.writes if reg == 0x00 for b in data]
    assert commands[0] == 0xAE                   # the ssd1306 init sequence, replayed
    # luma's init sets 0xCF; our contrast (the SSD1306's reset value 0x7F) comes after it
    at = [i for i, b in enumerate(commands) if b == 0x81]
    assert [commands[i + 1] for i in at] == [0xCF, 0x7F]
    assert bus.frames[-1] == _ssd1306_bytes(frame("A"))
    display.close()
    assert bus.fd is None


def test_a_bus_refusing_frames_is_a_display_fault_and_leaks_nothing(fd_bus):
    # i2c-stub (the VM rehearsal) takes commands but refuses i2c_rdwr: the frame data
    attempts = [0]

    def refusing(port):
        attempts[0] += 1
        bus = FdBus(port)
        bus.commands_fail = None
        bus.rdwr_fail = OSError(95, "Operation not supported")
        return bus
    import smbus2
    smbus2.SMBus = refusing
    fds = open_fds()
    display = OledDisplay(luma_panel("ssd1306", 1, 0x3C), retry_ms=1000)
    display.show(frame("A"), 0)
    retry(display, 50, 1000)
    assert not display.connected and "Operation not supported" in display.last_error
    assert open_fds() == fds                     # each failed bus was closed again
    assert len(fd_bus.opened) == attempts[0]     # a new bus for every attempt
    assert attempts[0] >= 50
    display.close()


def test_the_oled_on_its_own_bus(fd_bus):
    # the expander on bus 1, the OLED alone on bus 3 (and at an address the expander
    # could take: on another bus that is no conflict)
    problems: list[str] = []
    hw = parse_hardware({"backend": "mcp23017", "display": {"port": 3, "address": 0x20}},
                        9, problems)
    assert problems == [] and hw.mcp23017.bus == 1 and hw.display.port == 3

    class Answering(FdBus):
        def __init__(self, port):
            super().__init__(port)
            self.commands_fail = None
    import smbus2
    smbus2.SMBus = Answering
    display = make_display(hw)
    try:
        display.show(frame("A"), 0)
        assert display.wait_idle(WAIT) and display.connected
        assert [b.port for b in FdBus.opened] == [3]
        bus = FdBus.opened[0]
        assert {address for address, _, _ in bus.writes} == {0x20}
        assert bus.frames[-1] == _ssd1306_bytes(frame("A"))
    finally:
        display.close()


def test_eagain_is_tried_again_at_once(opened):
    device = GatedDevice(dummy_device())
    sleeps: list[float] = []
    display = opened(lambda: device, sleep=sleeps.append)
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    device.fail_next = OSError(11, "Resource temporarily unavailable")  # Pi 5 arbitration
    display.show(frame("B"), 10)
    assert display.wait_idle(WAIT)
    assert display.connected and device.frames()[-1] == pixels(frame("B"))
    assert sleeps == [0.001]


def test_the_default_contrast_is_at_most_the_ssd1306_reset_value():
    assert DisplayConfig().contrast <= 0x7F
    for build in ("gpio-9", "mcp23017-12"):
        hw = load_config(str(ROOT / "hardware" / build / "shutbox.toml")).hardware
        assert hw.display.contrast <= 0x7F and hw.display.shift_every_s > 0


# -- burn-in: the picture moves within blank space -----------------------------------------


def lit(data: bytes) -> int:
    return sum(bin(b).count("1") for b in data)


def boxed(bbox: tuple[int, int, int, int]) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle(bbox, outline=1)
    return image


def test_frames_move_round_a_2x2_orbit_every_shift_period(opened):
    device = GatedDevice(dummy_device())
    display = opened(lambda: device, shift_every_ms=180_000, idle_dim_ms=0, idle_off_ms=0)
    image = boxed((10, 10, 100, 50))
    display.show(image, 0)
    assert display.wait_idle(WAIT)
    assert display.timer.when == 180_000
    seen = []
    for minute in range(0, 13):
        display.poll(minute * 60_000)
        assert display.wait_idle(WAIT)
        seen.append(display.offset)
    # every 3 minutes one step round (0,0) (1,0) (1,1) (0,1), then again
    assert seen == [(0, 0)] * 3 + [(1, 0)] * 3 + [(1, 1)] * 3 + [(0, 1)] * 3 + [(0, 0)]
    frames = device.frames()
    assert len(frames) == 5
    for data, (dx, dy) in zip(frames, [(0, 0), (1, 0), (1, 1), (0, 1), (0, 0)]):
        moved = Image.frombytes("1", (128, 64), data)
        assert moved.getbbox() == (10 + dx, 10 + dy, 101 + dx, 51 + dy)
        assert lit(data) == lit(image.tobytes())


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "tests" / "golden").glob("*.png")))
def test_no_screen_loses_a_lit_pixel_anywhere_in_the_orbit(name):
    image = Image.open(ROOT / "tests" / "golden" / f"{name}.png").convert("1")
    for want in ORBIT:
        moved, (dx, dy) = shift_within_blank(image, want)
        assert lit(moved.tobytes()) == lit(image.tobytes()), (name, want)
        assert abs(dx) <= 1 and abs(dy) <= 1
        if (dx, dy) != (0, 0):
            assert moved.tobytes() != image.tobytes()


def test_a_screen_as_wide_as_the_panel_moves_only_up_and_down():
    image = boxed((0, 5, 127, 40))
    assert shift_within_blank(image, (1, 1))[1] == (0, 1)
    assert shift_within_blank(boxed((0, 5, 127, 63)), (1, 1))[1] == (0, -1)
    assert shift_within_blank(boxed((0, 0, 127, 63)), (1, 1))[1] == (0, 0)
    assert shift_within_blank(Image.new("1", (128, 64)), (1, 1))[1] == (0, 0)


def test_shift_every_s_zero_never_moves(opened):
    device = GatedDevice(dummy_device())
    display = opened(lambda: device, shift_every_ms=0)
    display.show(boxed((10, 10, 20, 20)), 0)
    for minute in range(10):
        display.poll(minute * 60_000)
    assert display.wait_idle(WAIT)
    assert display.offset == (0, 0) and len(device.frames()) == 1


# -- a lost display is a fault the game shows ------------------------------------------

def test_a_lost_display_is_reported_once_and_its_return_once(opened):
    failing = [True]
    device = GatedDevice(dummy_device())

    def factory():
        if failing[0]:
            raise OSError(121, "Remote I/O error")
        return device

    display = opened(factory, retry_ms=1000, attempts=1)
    assert display.wait_idle(WAIT)      # the attempt at start has failed
    (lost,) = display.poll(0)
    assert (lost.source, lost.ok, lost.at_ms) == ("display", False, 0)
    assert "Remote I/O" in lost.message and len(lost.message) <= 60
    display.poll(500)
    display.poll(1000)                  # the retry fails too: nothing new to report
    assert display.wait_idle(WAIT)
    assert display.poll(1001) == []
    failing[0] = False
    display.poll(2001)                  # the next retry finds it
    assert display.wait_idle(WAIT) and display.connected
    (back,) = display.poll(2002)
    assert (back.source, back.ok, back.at_ms) == ("display", True, 2002)
    assert display.poll(2003) == []


def test_a_display_that_works_reports_nothing(opened):
    display = opened(lambda: GatedDevice(dummy_device()))
    display.show(frame("A"), 0)
    assert display.wait_idle(WAIT)
    assert [display.poll(t) for t in (0, 10_000, 700_000)] == [[], [], []]


def test_the_box_shows_a_lost_display_with_the_red_light_until_it_is_back(tmp_path):
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import parse_script

    events: list[dict] = []
    runner = SimRunner(load_config(), tmp_path / "db", on_event=events.append)
    for step in parse_script("start 1\n", 9):
        runner.run(step)
    panel = runner.sim.panel
    real_transfer = panel.transfer

    def broken():
        raise OSError(121, "Remote I/O error")

    panel.transfer = broken     # every transfer to the panel: a whole frame or a page
    for step in parse_script("dice 3 4\nroll\n", 9):   # a new screen: its send fails
        runner.run(step)
    runner.advance(50)
    faults = [e for e in events if e["event"] in ("fault", "recovered")]
    assert [(f["event"], f["device"]) for f in faults] == [("fault", "display")]
    assert runner.sim.lamp_states().red
    assert runner.daemon.controller.screen().message.startswith("display: ")
    panel.transfer = real_transfer
    runner.advance(10_000 + 50)          # [hardware.display] retry_s = 10: found again
    runner.advance(10)                   # ... and the next poll reports it
    faults = [e for e in events if e["event"] in ("fault", "recovered")]
    assert [(f["event"], f["device"]) for f in faults] == [("fault", "display"),
                                                            ("recovered", "display")]
    assert not runner.sim.lamp_states().red
    assert runner.daemon.controller.screen().message is None
    runner.sim.box.close()
