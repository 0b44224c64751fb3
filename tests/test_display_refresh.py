"""A screen that comes back by itself: the real luma drivers over a simulated
SSD1306 (hal/simulated/panel.py) that is reset to its power-on state without
any bus error, as a supply dip or an ESD hit does; the box sends the setup
again within the refresh period, on waking from blank and right after a bus
error, and a panel that was fine sees no flicker."""

from __future__ import annotations

import errno

import pytest
from luma.oled.device import sh1106, ssd1306, ssd1309
from PIL import Image, ImageDraw

from shutbox_hw.hal.adapters.display import OledDisplay
from shutbox_hw.hal.adapters.luma_panel import DISPLAY_OFF, LumaPanel
from shutbox_hw.hal.simulated.panel import SimPanel

EVERY_MS = 60_000


def frame(text: str) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).text((10, 20), text, fill=1)
    ImageDraw.Draw(image).rectangle((0, 0, 127, 63), outline=1)
    return image


def ram_of(image: Image.Image) -> bytes:
    """The SSD1306's RAM for ``image``, computed here: page p, column x, bit y is
    the pixel at (x, 8p + y) (datasheet, figure 8-13: GDDRAM pages)."""
    out = bytearray()
    for page in range(8):
        for x in range(128):
            out.append(sum(1 << y for y in range(8) if image.getpixel((x, 8 * page + y))))
    return bytes(out)


def at_power_on() -> SimPanel:
    """An SSD1306 as it powers up, every picture and command byte recorded."""
    return SimPanel("ssd1306", set_up=False, record=True)


class FlakyPanel(SimPanel):
    """A panel whose next ``fail`` data transfers end with errno 121 halfway."""

    def __init__(self) -> None:
        super().__init__("ssd1306", set_up=False, record=True)
        self.fail = 0

    def data(self, data) -> None:
        data = list(data)
        if self.fail:
            self.fail -= 1
            super().data(data[:100])
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        super().data(data)


@pytest.fixture
def box():
    opened = []

    def make(chip=ssd1306, panel=None, **kwargs):
        panel = panel or at_power_on()
        factory = LumaPanel(chip, lambda: panel)
        display = OledDisplay(factory, shift_every_ms=0, idle_dim_ms=0, sleep=lambda s: None,
                              refresh_every_ms=EVERY_MS, **kwargs)
        opened.append(display)
        return display, panel

    yield make
    for display in opened:
        display.close()


def settle(display: OledDisplay, now_ms: int) -> None:
    display.poll(now_ms)
    assert display.wait_idle(5)


def test_the_panel_shows_what_was_sent(box):
    display, panel = box()
    display.show(frame("one"), 0)
    settle(display, 0)
    assert panel.picture() == ram_of(frame("one"))
    assert panel.contrast == 0x7F


@pytest.mark.parametrize("chip", [ssd1306, ssd1309, sh1106])
def test_each_luma_driver_brings_the_one_panel_model_up_from_power_on(box, chip):
    panel = SimPanel(chip.__name__, set_up=False, record=True)
    assert panel.picture() is None
    display, _ = box(chip, panel)
    display.show(frame("up"), 0)
    settle(display, 0)
    assert panel.picture() == ram_of(frame("up"))
    # dark, luma's init's blank frame, then the frame (the SH1106's page by page):
    # every page of every picture on the way is blank or the frame's, never garbled
    want = ram_of(frame("up"))
    assert panel.seen[:2] == [None, bytes(1024)] and panel.seen[-1] == want
    for picture in panel.seen[1:]:
        for page in range(8):
            assert picture[page * 128:(page + 1) * 128] in (
                bytes(128), want[page * 128:(page + 1) * 128])


def test_a_panel_reset_without_a_bus_error_comes_back_within_the_refresh_period(box):
    display, panel = box()
    display.show(frame("one"), 0)
    settle(display, 0)
    before = len(panel.seen)
    panel.power_on_reset()              # still acknowledges: no error anywhere
    assert panel.picture() is None
    settle(display, EVERY_MS - 1)
    assert panel.picture() is None      # nothing has told the box yet
    settle(display, EVERY_MS)
    assert panel.picture() == ram_of(frame("one"))
    assert panel.contrast == 0x7F and panel.charge_pump and panel.mode == 0
    # dark, then straight back to the frame: no garbled picture in between
    assert panel.seen[before:] == [None, ram_of(frame("one"))]


@pytest.mark.parametrize("chip", [ssd1306, ssd1309])
def test_a_refresh_of_a_panel_that_was_fine_changes_nothing_on_screen(box, chip):
    display, panel = box(chip)
    display.show(frame("one"), 0)
    settle(display, 0)
    seen, sent = list(panel.seen), len(panel.commands)
    for minute in range(1, 4):
        settle(display, minute * EVERY_MS)
    assert display.refreshes == 3
    assert panel.seen == seen                               # no flicker
    assert DISPLAY_OFF not in panel.commands[sent:]         # never switched off
    assert 0x8D in panel.commands[sent:]                    # the setup did go out again


def test_waking_from_blank_replays_the_setup_and_shows_the_new_frame(box):
    display, panel = box(idle_off_ms=600_000)
    display.show(frame("one"), 0)
    settle(display, 0)
    settle(display, 600_000)
    assert display.mode == "off" and panel.picture() is None
    panel.power_on_reset()              # while dark: nobody could see it
    display.show(frame("two"), 601_000)  # a flap: the screen wakes with a new frame
    settle(display, 601_000)
    assert panel.picture() == ram_of(frame("two"))
    assert panel.mode == 0 and panel.charge_pump


def test_after_a_bus_error_the_setup_is_replayed_at_once(box):
    panel = FlakyPanel()
    display, _ = box(panel=panel)
    display.show(frame("one"), 0)
    settle(display, 0)
    panel.power_on_reset()
    panel.fail = 1                      # the next frame's transfer fails once, then passes
    display.show(frame("two"), 1_000)
    settle(display, 1_000)
    settle(display, 1_001)
    assert display.refreshes == 1 and display.connected
    assert panel.picture() == ram_of(frame("two"))    # long before the next minute


def test_the_sh1106_setup_is_replayed_without_display_off():
    recorded = []

    class Recorder:
        def command(self, *cmd):
            recorded.append(cmd)

        def data(self, data):
            pass

        def cleanup(self):
            pass

    for chip in (ssd1306, ssd1309, sh1106):
        recorded.clear()
        factory = LumaPanel(chip, Recorder)
        factory()
        init = list(recorded)
        recorded.clear()
        factory.refresh()
        # every luma driver's init starts with display-off and its setup: the refresh
        # is that setup alone
        assert init[0][0] == DISPLAY_OFF and recorded == [init[0][1:]]
