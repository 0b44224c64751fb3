"""Pages, not frames (issue 20, point 6): only the changed columns of the changed
pages go to the panel, and the panel's RAM (its register model) ends up as the
frame, for both command sets and both rotations."""

from __future__ import annotations

import random

import pytest
from PIL import Image, ImageDraw

from shutbox_hw.hal.adapters.display import dummy_device
from shutbox_hw.hal.adapters.panel_pages import changed_spans, page_bytes, send_changed
from shutbox_hw.hal.simulated.panel import SimPanel
from shutbox_hw.hal.simulated.timing import i2c_transfer_us


def luma_pages(image: Image.Image) -> bytes:
    """The panel's bytes computed pixel by pixel, as the datasheets lay out GDDRAM."""
    out = bytearray(1024)
    for y in range(64):
        for x in range(128):
            if image.getpixel((x, y)):
                out[(y // 8) * 128 + x] |= 1 << (y % 8)
    return bytes(out)


class Panel:
    """A panel on the wire: a luma dummy for preprocess, the register model for RAM,
    and every transfer's length."""

    def __init__(self, driver: str, rotation: int = 0) -> None:
        self.driver = driver
        self.luma = dummy_device(rotation)
        self.model = SimPanel(driver)
        self.transfers: list[int] = []

    def preprocess(self, image):
        return self.luma.preprocess(image)

    def display(self, image):
        self.model.load(page_bytes(self.preprocess(image)))
        self.transfers += [7, 1025]

    def command(self, *cmds):
        self.transfers.append(1 + len(cmds))
        self.model.command(*cmds)

    def data(self, values):
        self.transfers.append(1 + len(values))
        self.model.data(values)


def random_frame(rng: random.Random, base: Image.Image | None = None) -> Image.Image:
    image = base.copy() if base is not None else Image.new("1", (128, 64))
    draw = ImageDraw.Draw(image)
    for _ in range(rng.randint(1, 3)):
        x, y = rng.randrange(120), rng.randrange(56)
        draw.rectangle((x, y, x + rng.randint(0, 8), y + rng.randint(0, 8)),
                       fill=rng.randint(0, 1))
    return image


def test_page_bytes_lay_out_the_pixels_as_the_panel_ram_does():
    rng = random.Random(1)
    for _ in range(20):
        image = random_frame(rng)
        assert page_bytes(image) == luma_pages(image)


@pytest.mark.parametrize("driver", ["ssd1306", "ssd1309", "sh1106"])
@pytest.mark.parametrize("rotation", [0, 2])
def test_page_updates_leave_the_panel_showing_each_frame(driver, rotation):
    rng = random.Random(f"{driver}{rotation}")
    panel = Panel(driver, rotation)
    frame = random_frame(rng)
    send_changed(panel, frame, None)             # unknown panel: the whole frame
    assert panel.model.shown() == page_bytes(panel.preprocess(frame))
    for _ in range(60):
        shown = frame.tobytes()
        frame = random_frame(rng, frame)
        panel.transfers.clear()
        sent = send_changed(panel, frame, shown)
        assert panel.model.shown() == page_bytes(panel.preprocess(frame))
        pages = len(changed_spans(page_bytes(panel.preprocess(Image.frombytes(
            "1", (128, 64), shown))), page_bytes(panel.preprocess(frame))))
        assert len(panel.transfers) == 2 * pages       # one command and one data per page
        assert sent <= 128 * pages


def test_a_flap_change_is_a_few_ms_on_the_wire_not_a_frame():
    """A change of a few columns in one page: the bytes on the wire at 400 kHz."""
    panel = Panel("sh1106")
    before = Image.new("1", (128, 64))
    after = before.copy()
    ImageDraw.Draw(after).rectangle((40, 20, 52, 30), fill=1)    # a tile drawn shut
    send_changed(panel, before, None)
    panel.transfers.clear()
    send_changed(panel, after, before.tobytes())
    wire_ms = sum(i2c_transfer_us(400_000, n) for n in panel.transfers) / 1000
    full_ms = sum(i2c_transfer_us(400_000, n) for n in [4, 129] * 8) / 1000
    assert len(panel.transfers) == 4 and wire_ms < 1.0 < 20 < full_ms


@pytest.mark.parametrize("build", [None, "mcp23017-12"])
def test_the_simulated_box_sends_pages_and_its_panel_shows_the_last_frame(tmp_path, build):
    from pathlib import Path

    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import parse_script
    path = (Path(__file__).parent.parent / "hardware" / build / "shutbox.toml") if build else None
    config = load_config(path)
    runner = SimRunner(config, tmp_path / "db")
    frames = []
    panel = runner.sim.panel
    real_data = panel.data
    panel.data = lambda values: (frames.append(len(values)), real_data(values))
    for step in parse_script("start 1\ndice 3 4\nroll\nclose 3 4\ndice 1 1\nroll\n",
                             config.rules.tiles):
        runner.run(step)
    runner.sim.settle_display()
    assert frames and max(frames) <= 128 and min(frames) < 128   # pages, some only in part
    assert panel.model.shown() == page_bytes(panel.preprocess(runner.sim.last_frame()))
