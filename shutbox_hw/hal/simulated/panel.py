"""The OLED panel's side of the simulated I2C bus: what its frames cost in wire time.

luma sends an SSD1306/SSD1309 frame as one command transfer (column and page
range) and all 1,024 bytes in one transfer (smbus2's ``i2c_rdwr``), an SH1106
frame page by page (a command transfer of three bytes, then the page's 128
bytes). Each transfer carries luma's control byte (0x00 commands, 0x40 data)
after the address.
"""

from __future__ import annotations

from .bus import SimBus

PAGES, WIDTH = 8, 128


def frame_transfers(driver: str, pages: int = PAGES) -> list[int]:
    """The bytes after the address of each transfer of a frame of ``pages`` pages."""
    if driver == "sh1106":
        return [1 + 3, 1 + WIDTH] * pages
    return [1 + 6, 1 + WIDTH * pages]


def queue_frame(bus: SimBus, address: int, transfers: list[int]) -> int:
    """Put a frame's transfers on the bus's time line from now, as the display's
    sender thread does (nobody waits for it); returns when it is off the wire."""
    if bus.world is None:
        return 0
    return bus.timeline.queue(bus.world.now_us(), [bus.cost_us(address, n) for n in transfers])


class SimPanel:
    """The panel's RAM and write position, driven by the commands and data bytes
    it is sent: the register model the page updates are checked against.

    Only what the box sends after the panel is set up is modelled: the
    SSD1306's column and page ranges (horizontal addressing: the position
    wraps to the next page of the range) and the SH1106's page and column
    nibbles (page addressing: the position stays on its page); any other
    command raises, so a sender that strays is caught.
    """

    def __init__(self, driver: str) -> None:
        self.driver = driver
        self.columns = 132 if driver == "sh1106" else WIDTH
        self.ram = [bytearray(self.columns) for _ in range(PAGES)]
        self.page = self.column = 0
        self.col_range = (0, WIDTH - 1)
        self.page_range = (0, PAGES - 1)

    def command(self, *cmds: int) -> None:
        i = 0
        while i < len(cmds):
            c = cmds[i]
            if self.driver != "sh1106" and c in (0x21, 0x22):
                low, high = cmds[i + 1], cmds[i + 2]
                if c == 0x21:
                    self.col_range, self.column = (low, high), low
                else:
                    self.page_range, self.page = (low, high), low
                i += 3
                continue
            if self.driver == "sh1106" and 0xB0 <= c <= 0xB7:
                self.page = c & 0x07
            elif self.driver == "sh1106" and c <= 0x0F:
                self.column = (self.column & 0xF0) | c
            elif self.driver == "sh1106" and 0x10 <= c <= 0x1F:
                self.column = (self.column & 0x0F) | (c & 0x0F) << 4
            else:
                raise ValueError(f"command 0x{c:02x} is not modelled")
            i += 1

    def data(self, values: list[int]) -> None:
        for value in values:
            if self.column < self.columns:
                self.ram[self.page][self.column] = value
            self.column += 1
            if self.driver != "sh1106" and self.column > self.col_range[1]:
                self.column = self.col_range[0]
                self.page = self.page + 1 if self.page < self.page_range[1] else self.page_range[0]

    def load(self, pages: bytes) -> None:
        """A whole frame as luma's ``display`` writes it."""
        offset = 2 if self.driver == "sh1106" else 0
        for page in range(PAGES):
            self.ram[page][offset:offset + WIDTH] = pages[page * WIDTH:(page + 1) * WIDTH]

    def shown(self) -> bytes:
        """The 128 visible columns of every page."""
        offset = 2 if self.driver == "sh1106" else 0
        return b"".join(bytes(row[offset:offset + WIDTH]) for row in self.ram)
