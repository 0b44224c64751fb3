"""The simulated OLED panel: its command set, its RAM and what its frames cost on the wire.

:class:`SimPanel` is one SSD1306, SSD1309 or SH1106 at the command level. It
stands in for luma's serial interface (``command(*bytes)``, ``data(bytes)``,
``cleanup()``) under the real luma drivers, or takes the page updates of
:mod:`~shutbox_hw.hal.adapters.panel_pages` directly, and keeps what the chip keeps:
display on/off, the charge pump, the addressing mode, the column and page
windows and pointers, the contrast, and the pages of display RAM (SSD1306
datasheet rev 1.1, section 10 "Command descriptions"; the SH1106 has 132
columns, of which luma shows 2..129, and addresses by page only; its DC-DC
converter is not modelled, so only display on/off darkens it).

:meth:`SimPanel.power_on_reset` puts it back at its reset state (display
off, charge pump off, page addressing, contrast 0x7F), as a supply dip or an
ESD hit does to a panel that still acknowledges its address: the screen is
dark until the driver sends its setup again, and a frame sent without it
lands garbled. ``set_up=True`` (the default) starts it as luma's init leaves
it instead: on, and for the SSD130x horizontal addressing. :meth:`picture`
is what a player would see; with ``record=True`` every change of it is noted
in :attr:`~SimPanel.seen` (``None``: dark) and every command byte in
:attr:`~SimPanel.commands`, so a test can tell a flicker from a clean refresh.

Wire time: luma sends an SSD1306/SSD1309 frame as one command transfer
(column and page range) and all 1,024 bytes in one transfer (smbus2's
``i2c_rdwr``), an SH1106 frame page by page (a command transfer of three
bytes, then the page's 128 bytes). Each transfer carries luma's control byte
(0x00 commands, 0x40 data) after the address.
"""

from __future__ import annotations

from collections.abc import Iterable

from .bus import SimBus

PAGES, WIDTH = 8, 128
SH1106_COLUMNS, SH1106_OFFSET = 132, 2
HORIZONTAL, VERTICAL, PAGE = 0, 1, 2
# commands and how many argument bytes follow each (SSD1306 datasheet, table 9-1)
SSD1306_ARGS = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1,
                0xDA: 1, 0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2}
# the SH1106 has no addressing modes, windows or scrolling; 0xAD sets its DC-DC
SH1106_ARGS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1}


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
    """One panel behind luma's serial interface (see the module)."""

    def __init__(self, driver: str = "ssd1306", *, set_up: bool = True,
                 record: bool = False) -> None:
        self.driver = driver
        self.sh1106 = driver == "sh1106"
        self.ram_width = SH1106_COLUMNS if self.sh1106 else WIDTH
        self.offset = SH1106_OFFSET if self.sh1106 else 0    # the first visible column
        self._args = SH1106_ARGS if self.sh1106 else SSD1306_ARGS
        self.ram = [bytearray(self.ram_width) for _ in range(PAGES)]
        self.record = record
        self.commands: list[int] = []       # every command byte received (``record``)
        self.seen: list[bytes | None] = []  # the picture each time it changed (``record``)
        self.power_on_reset()
        if set_up:
            self.on = self.charge_pump = True
            self.mode = PAGE if self.sh1106 else HORIZONTAL
        self.seen.clear()
        self._note()

    # -- the chip's state ----------------------------------------------------------

    def power_on_reset(self) -> None:
        """Registers back at their reset values; the RAM keeps what it had."""
        self.on = False
        self.charge_pump = self.sh1106     # the SH1106's DC-DC (0xAD) is not modelled
        self.mode = PAGE
        self.contrast = 0x7F
        self.column_window = (0, WIDTH - 1)
        self.page_window = (0, PAGES - 1)
        self.column, self.page = 0, 0
        self._pending: list[int] = []
        self._note()

    def shown(self) -> bytes:
        """The visible columns of every page, as the RAM holds them."""
        return b"".join(bytes(row[self.offset:self.offset + WIDTH]) for row in self.ram)

    def picture(self) -> bytes | None:
        """What a player sees: the visible RAM, or None while the panel is dark."""
        return self.shown() if self.on and self.charge_pump else None

    def _note(self) -> None:
        if not self.record:
            return
        now = self.picture()
        if not self.seen or self.seen[-1] != now:
            self.seen.append(now)

    # -- luma's serial interface ---------------------------------------------------

    def command(self, *cmd: int) -> None:
        for byte in cmd:
            if self.record:
                self.commands.append(byte)
            self._pending.append(byte)
            if len(self._pending) > self._args.get(self._pending[0], 0):
                self._run(self._pending)
                self._pending = []
        self._note()

    def data(self, data: Iterable[int]) -> None:
        for byte in data:
            self.ram[self.page][self.column] = byte
            self._advance()
        self._note()

    def cleanup(self) -> None:
        pass

    def load(self, pages: bytes) -> None:
        """A whole frame (the visible columns, page by page) as luma's ``display``
        sends it: the SSD130x's full windows then every byte, the SH1106's pages
        one after another."""
        if self.sh1106:
            for page in range(PAGES):
                self.command(0xB0 | page, self.offset & 0x0F, 0x10 | self.offset >> 4)
                self.data(pages[page * WIDTH:(page + 1) * WIDTH])
        else:
            self.command(0x21, 0, WIDTH - 1, 0x22, 0, PAGES - 1)
            self.data(pages)

    def _run(self, cmd: list[int]) -> None:
        op, args = cmd[0], cmd[1:]
        if op in (0xAE, 0xAF):
            self.on = op == 0xAF
        elif op == 0x81:
            self.contrast = args[0]
        elif not self.sh1106 and op in (0x8D, 0x20, 0x21, 0x22):
            self._ssd1306_command(op, args)
        elif self.mode == PAGE:
            self._page_mode_command(op)

    def _ssd1306_command(self, op: int, args: list[int]) -> None:
        """The charge pump, the addressing mode and the windows (SSD1306/SSD1309)."""
        if op == 0x8D:
            self.charge_pump = bool(args[0] & 0x04)
        elif op == 0x20:
            self.mode = args[0] & 0x03
        elif op == 0x21:
            self.column_window = (args[0] & 0x7F, args[1] & 0x7F)
            self.column = self.column_window[0]
        else:
            self.page_window = (args[0] & 0x07, args[1] & 0x07)
            self.page = self.page_window[0]

    def _page_mode_command(self, op: int) -> None:
        """The page and column nibbles, which only page addressing has."""
        if 0xB0 <= op <= 0xB7:
            self.page = op & 0x07
        elif op <= 0x0F:
            self.column = (self.column & 0xF0) | op
        elif 0x10 <= op <= 0x1F:
            self.column = (self.column & 0x0F) | ((op & 0x0F) << 4)

    def _advance(self) -> None:
        """The RAM pointer after one data byte, as each addressing mode moves it."""
        first_col, last_col = self.column_window
        first_page, last_page = self.page_window
        if self.mode == PAGE:   # wraps within the page
            self.column = 0 if self.column >= self.ram_width - 1 else self.column + 1
        elif self.mode == HORIZONTAL:
            if self.column >= last_col:
                self.column = first_col
                self.page = first_page if self.page >= last_page else self.page + 1
            else:
                self.column += 1
        elif self.page >= last_page:
            self.page = first_page
            self.column = first_col if self.column >= last_col else self.column + 1
        else:
            self.page += 1
