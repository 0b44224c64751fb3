"""A simulated SSD1306 panel at the command level: what the screen shows.

It stands in for luma's serial interface (``command(*bytes)``, ``data(bytes)``,
``cleanup()``) under the real luma ``ssd1306``/``ssd1309`` driver, and keeps
what the chip keeps: display on/off, the charge pump, the addressing mode,
the column and page windows and pointers, the contrast, and the 128x8 pages
of display RAM (SSD1306 datasheet rev 1.1, section 10 "Command
descriptions"). :meth:`Ssd1306.power_on_reset` puts it back at its reset
state (display off, charge pump off, page addressing, contrast 0x7F), as a
supply dip or an ESD hit does to a panel that still acknowledges its address:
the screen is dark until the driver sends its setup again, and a frame sent
without it lands garbled. :meth:`picture` is what a player would see.

Every time the picture a player sees changes, it is noted in
:attr:`seen` (``None``: dark), so a test can tell a flicker (a dark or wrong
picture in between) from a clean refresh.
"""

from __future__ import annotations

from collections.abc import Iterable

WIDTH, PAGES = 128, 8
# commands and how many argument bytes follow each (SSD1306 datasheet, table 9-1)
ARGS = {0x81: 1, 0x20: 1, 0x21: 2, 0x22: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1,
        0xDB: 1, 0x8D: 1, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0xA3: 2}
HORIZONTAL, VERTICAL, PAGE = 0, 1, 2


class Ssd1306:
    """One SSD1306 behind luma's serial interface (see the module)."""

    def __init__(self) -> None:
        self.ram = [bytearray(WIDTH) for _ in range(PAGES)]
        self.commands: list[int] = []       # every command byte received
        self.seen: list[bytes | None] = []  # the picture each time it changed
        self.power_on_reset()
        self.seen.clear()

    # -- the chip's state ----------------------------------------------------------

    def power_on_reset(self) -> None:
        """Registers back at their reset values; the RAM keeps what it had."""
        self.on = False
        self.charge_pump = False
        self.mode = PAGE
        self.contrast = 0x7F
        self.columns = (0, WIDTH - 1)
        self.pages = (0, PAGES - 1)
        self.column, self.page = 0, 0
        self._pending: list[int] = []
        self._note()

    def picture(self) -> bytes | None:
        """The RAM as a player sees it, or None while the panel is dark."""
        if not (self.on and self.charge_pump):
            return None
        return b"".join(bytes(page) for page in self.ram)

    def _note(self) -> None:
        now = self.picture()
        if not self.seen or self.seen[-1] != now:
            self.seen.append(now)

    # -- luma's serial interface ---------------------------------------------------

    def command(self, *cmd: int) -> None:
        for byte in cmd:
            self.commands.append(byte)
            self._pending.append(byte)
            head = self._pending[0]
            if len(self._pending) > ARGS.get(head, 0):
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

    def _run(self, cmd: list[int]) -> None:
        op, args = cmd[0], cmd[1:]
        if op in (0xAE, 0xAF):
            self.on = op == 0xAF
        elif op == 0x8D:
            self.charge_pump = bool(args[0] & 0x04)
        elif op == 0x20:
            self.mode = args[0] & 0x03
        elif op == 0x81:
            self.contrast = args[0]
        elif op == 0x21:
            self.columns = (args[0] & 0x7F, args[1] & 0x7F)
            self.column = self.columns[0]
        elif op == 0x22:
            self.pages = (args[0] & 0x07, args[1] & 0x07)
            self.page = self.pages[0]
        elif 0xB0 <= op <= 0xB7 and self.mode == PAGE:
            self.page = op & 0x07
        elif op <= 0x0F and self.mode == PAGE:
            self.column = (self.column & 0xF0) | op
        elif 0x10 <= op <= 0x1F and self.mode == PAGE:
            self.column = (self.column & 0x0F) | ((op & 0x0F) << 4)

    def _advance(self) -> None:
        """The RAM pointer after one data byte, as each addressing mode moves it."""
        first_col, last_col = self.columns
        first_page, last_page = self.pages
        if self.mode == PAGE:   # wraps within the page
            self.column = 0 if self.column >= WIDTH - 1 else self.column + 1
        elif self.mode == HORIZONTAL:
            if self.column >= last_col:
                self.column = first_col
                self.page = first_page if self.page >= last_page else self.page + 1
            else:
                self.column += 1
        else:
            if self.page >= last_page:
                self.page = first_page
                self.column = first_col if self.column >= last_col else self.column + 1
            else:
                self.page += 1
