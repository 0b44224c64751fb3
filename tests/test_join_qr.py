"""The join page's QR code, read back by a real decoder (zxing-cpp) from the OLED's
frame as the display sends it (the burn-in orbit's every position) and from the
TV's SVG; the address it holds opens the join page."""

from __future__ import annotations

import io

import pytest
import zxingcpp
from PIL import Image

from shutbox_hw.base.events import JoinCode
from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.hal.adapters.burn_in import ORBIT, shift_within_blank
from shutbox_hw.render import qr, render
from shutbox_hw.render.widgets import BOTTOM, RIGHT
from shutbox_hw.rules import DEFAULT_PRESET, build_rules

ADDRESSES = ["http://192.168.178.123:8080/join/K7M2QD", "http://10.0.0.5/join/ABCDEF",
             "http://shutbox.local:8080/join/ZZ23QP", "http://[fd00::12]:8080/join/K7M2QD"]


def decoded(image: Image.Image) -> list[str]:
    """What the decoder reads in the OLED frame, as a camera sees it: lit pixels light."""
    big = image.convert("L").resize((image.width * 4, image.height * 4), Image.NEAREST)
    return [r.text for r in zxingcpp.read_barcodes(big)]


def same_page(read: str, url: str) -> bool:
    return read.lower() == url.lower()


def setup_screen(url: str) -> Image.Image:
    c = Controller(build_rules(DEFAULT_PRESET))
    c.start(0, 0)
    c.handle(JoinCode(url.rsplit("/", 1)[1], 300_000, 0, url))
    return render(c.screen())


@pytest.mark.parametrize("url", ADDRESSES)
def test_the_setup_screen_s_code_reads_as_the_join_page_in_every_orbit_position(url):
    frame = setup_screen(url)
    for want in ORBIT:
        moved, _ = shift_within_blank(frame, want)
        [read] = decoded(moved)
        assert same_page(read, url)


def test_on_the_oled_a_module_is_2_pixels_with_a_quiet_zone_and_the_edges_stay_blank():
    url = ADDRESSES[0]
    frame = setup_screen(url)
    n = len(qr.matrix(url))
    edge = qr.size_px(url, BOTTOM - 1)
    quiet = (edge // qr.MODULE_PX - n) // 2
    assert n == 25 and quiet >= 2 and edge <= BOTTOM - 1
    px = frame.load()
    # the quiet zone is lit all round; the first finder pattern's dark corner is 2x2 px
    assert all(px[x, 0] and px[x, edge - 1] for x in range(edge))
    corner = quiet * qr.MODULE_PX
    assert [px[corner + dx, corner + dy] for dx in (0, 1) for dy in (0, 1)] == [0] * 4
    module = qr.MODULE_PX
    assert px[corner + module, corner + module] == 1          # the finder's light ring
    assert px[corner + 2 * module, corner + 2 * module] == 0  # ... and its dark centre
    assert px[corner - 1, corner] == 1
    # the burn-in orbit can move it: the last column and row are blank
    box = frame.getbbox()
    assert box[2] <= RIGHT and box[3] <= BOTTOM


def test_a_code_for_an_address_too_long_for_the_screen_is_left_out():
    url = "http://a-very-long-host-name.in-the-pubs-own-network.example.org:8080/join/K7M2QD"
    assert qr.size_px(url, BOTTOM - 1) == 0
    frame = setup_screen(url)
    assert decoded(frame) == []
    assert frame.getbbox() is not None     # the idle screen without its code


def test_an_address_with_a_path_of_its_own_keeps_its_case():
    url = "http://pub.example/Shutbox/join/K7M2QD"
    assert qr.qr_text(url) == url
    assert qr.qr_text(ADDRESSES[0]) == ADDRESSES[0].upper()


def test_the_tv_s_svg_is_the_same_code():
    url = ADDRESSES[2]
    svg = qr.svg(url)
    from xml.etree import ElementTree
    root = ElementTree.fromstring(svg)
    assert root.tag.endswith("svg")
    image = _raster(svg, 8)
    [read] = [r.text for r in zxingcpp.read_barcodes(image)]
    assert same_page(read, url)


def _raster(svg: str, scale: int) -> Image.Image:
    """The SVG's squares drawn by hand: a viewBox of n modules, one path of 1x1 squares."""
    import re
    n = int(re.search(r'viewBox="0 0 (\d+) ', svg).group(1))
    image = Image.new("L", (n * scale, n * scale), 255)
    from PIL import ImageDraw
    draw = ImageDraw.Draw(image)
    for x, y in re.findall(r"M(\d+) (\d+)h1v1h-1z", svg):
        x0, y0 = int(x) * scale, int(y) * scale
        draw.rectangle((x0, y0, x0 + scale - 1, y0 + scale - 1), fill=0)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return Image.open(buffer)
