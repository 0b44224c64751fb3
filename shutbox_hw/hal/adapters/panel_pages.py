"""Pages, not frames: send the OLED only the columns of the pages that changed.

SSD1306, SSD1309 and SH1106 panels keep the picture in their own RAM as 8
pages of 8 pixel rows; byte ``x`` of page ``p`` holds column ``x`` of rows
``8p..8p+7``, the top row in bit 0. luma sends all 1,024 bytes for every
frame (23 ms of wire time at 400 kHz, 93 at 100 kHz); a flap change alters a
few columns of one or two pages. :func:`send_changed` compares the frame
with the one on the panel and, for each page that differs, sets the panel's
write position to the first changed column and sends up to the last one:

- SSD1306/SSD1309 (horizontal addressing, luma's set-up): ``0x21 c0 c1``
  (column range) ``0x22 p p`` (page range), then the bytes;
- SH1106 (page addressing, columns 2..129 of its 132): ``0xB0|p``, the low
  and high nibbles of the column (``0x0L``, ``0x1H``), then the bytes.

Each page is its own transfer, so a read of the expander on the same bus
waits for one page at most, never for a whole frame. A panel whose contents
are not known (just opened, or after a failure) gets the whole frame.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

WIDTH, PAGES = 128, 8
SH1106_COLUMN_OFFSET = 2
_REVERSED = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def page_bytes(image: Image.Image) -> bytes:
    """A 1-bit 128x64 image as the panel's RAM holds it (page by page, bit 0 on top)."""
    image = image.convert("1")
    out = bytearray()
    for page in range(image.height // 8):
        strip = image.crop((0, 8 * page, image.width, 8 * page + 8))
        # transposed, each column becomes one packed row of 8 pixels, top pixel first (MSB)
        out += strip.transpose(Image.Transpose.TRANSPOSE).tobytes().translate(_REVERSED)
    return bytes(out)


def changed_spans(old: bytes | None, new: bytes, width: int = WIDTH
                  ) -> list[tuple[int, int, int]]:
    """(page, first column, last column) of every page that differs (every page
    when ``old`` is unknown)."""
    spans = []
    for page in range(len(new) // width):
        row = new[page * width:(page + 1) * width]
        before = old[page * width:(page + 1) * width] if old is not None else None
        if before is None:
            spans.append((page, 0, width - 1))
            continue
        changed = [x for x in range(width) if row[x] != before[x]]
        if changed:
            spans.append((page, changed[0], changed[-1]))
    return spans


def span_commands(driver: str, page: int, first: int, last: int) -> list[int]:
    """The commands that make the panel take bytes for columns first..last of ``page``."""
    if driver == "sh1106":
        column = first + SH1106_COLUMN_OFFSET
        return [0xB0 | page, column & 0x0F, 0x10 | column >> 4]
    return [0x21, first, last, 0x22, page, page]


def driver_of(device: Any) -> str | None:
    """The panel's command set: from luma's device class (or a simulated panel's
    ``driver``); None for a device this module cannot address by page."""
    name = getattr(device, "driver", None) or type(device).__name__
    return name if name in ("ssd1306", "ssd1309", "sh1106") else None


def send_changed(device: Any, frame: Image.Image, shown: bytes | None) -> int:
    """Bring ``device`` from the frame ``shown`` (its ``tobytes()``; None: unknown)
    to ``frame``, page by page; returns the data bytes sent. A device that
    cannot be addressed by page, or an unknown panel, gets ``display(frame)``."""
    driver = driver_of(device)
    if driver is None or shown is None or not hasattr(device, "command"):
        device.display(frame)
        return len(frame.tobytes())
    before = page_bytes(device.preprocess(Image.frombytes("1", frame.size, shown)))
    after = page_bytes(device.preprocess(frame))
    sent = 0
    for page, first, last in changed_spans(before, after, frame.width):
        device.command(*span_commands(driver, page, first, last))
        device.data(list(after[page * frame.width + first:page * frame.width + last + 1]))
        sent += last - first + 1
    done = getattr(device, "frame_sent", None)   # a simulated panel keeps the frame
    if done is not None:
        done(frame)
    return sent
