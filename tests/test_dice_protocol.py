"""The dice module's protocol table (firmware/dice/README.md, "The protocol"),
row by row, from the Pi's side against main.py under the real MicroPython.

Each row names a STATUS before, an event, and STATUS and ERROR after. The
test brings the firmware to that STATUS with the Pi's writes and the
module's button, makes ERROR 2 first where that leaves STATUS alone (so an
"unchanged" ERROR is told apart from a cleared one), plays the event, reads
all 16 registers from 0 and checks the row; and in every row: the CRC
matches, REQUEST and ACK read back 0, the ready line is low exactly when
STATUS is 2.
"""

from __future__ import annotations

import re

import pytest
from micropython_rig import PicoBus, micropython

from shutbox_hw.dice_firmware import dice_anim as anim
from shutbox_hw.dice_firmware import dice_config as cfg
from shutbox_hw.dice_firmware import dice_regs as regs
from shutbox_hw.hal.adapters import dice_module as dm
from shutbox_hw.hal.simulated.dice_module import FIRMWARE_DIR
from shutbox_hw.hal.simulated.pico_bridge import PicoProcess

TUMBLE = sum(anim.TUMBLE_MS)
README = FIRMWARE_DIR / "README.md"
EVENTS = ("REQUEST 0x52", "REQUEST other", "COUNT bad", "COUNT good", "ACK = SEQ",
          "ACK other", "button or shake", "dice land")


def table() -> list[tuple[int, str, int, int | None, str]]:
    """(STATUS before, event, STATUS after, ERROR after or None = unchanged, also)."""
    text = README.read_text()
    section = text[text.index("Every transition"):]
    rows = []
    for line in section.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not re.match(r"\d ", cells[0]):
            continue
        error = None if cells[3] == "unchanged" else int(cells[3])
        rows.append((int(cells[0][0]), cells[1], int(cells[2]), error, cells[4]))
    return rows


ROWS = table()


def test_the_table_covers_every_status_and_event():
    cells = {(before, event) for before, event, *_ in ROWS}
    expected = {(s, e) for s in range(4) for e in EVENTS if e != "dice land"}
    assert cells == expected | {(regs.STATUS_ROLLING, "dice land")}
    assert len(cells) == len(ROWS)


class Module:
    """The Pi's side: raw register writes and checked reads through the driver."""

    def __init__(self, pico: PicoProcess) -> None:
        self.pico = pico
        self.bus = PicoBus(pico)
        self.drv = dm.DiceModule(self.bus, sleep=lambda s: None)

    def write(self, reg: int, value: int) -> None:
        self.bus.write_byte_data(0x42, reg, value)

    def regs(self) -> bytes:
        data = bytes(self.bus.read_i2c_block_data(0x42, 0, 16))
        assert dm.crc_registers(data) == data[regs.CRC]
        self.drv.read_state()           # the driver's checks pass too
        return data

    def press(self) -> None:
        self.pico.set_input(cfg.BUTTON_PIN, 0)
        self.pico.run(60)
        self.pico.set_input(cfg.BUTTON_PIN, 1)
        self.pico.run(40)

    def reach(self, status: int) -> None:
        """From power-on to ``status``, with one result taken before."""
        self.pico.run(10)
        self.write(regs.REQUEST, regs.REQUEST_ROLL)
        self.pico.run(TUMBLE + 10)
        self.write(regs.ACK, self.regs()[regs.SEQ])
        if status == regs.STATUS_ROLLING:
            self.write(regs.REQUEST, regs.REQUEST_ROLL)
        elif status == regs.STATUS_READY:
            self.write(regs.REQUEST, regs.REQUEST_ROLL)
            self.pico.run(TUMBLE + 10)
        elif status == regs.STATUS_ERROR:
            self.write(regs.COUNT, 0)
        if status != regs.STATUS_ERROR:
            self.write(regs.REQUEST, 0x99)      # ERROR 2, STATUS as it was
        assert self.regs()[regs.STATUS] == status

    def play(self, event: str, seq: int) -> None:
        if event == "REQUEST 0x52":
            self.write(regs.REQUEST, regs.REQUEST_ROLL)
        elif event == "REQUEST other":
            self.write(regs.REQUEST, 0x99)
        elif event == "COUNT bad":
            self.write(regs.COUNT, 7)
        elif event == "COUNT good":
            self.write(regs.COUNT, 1)
        elif event == "ACK = SEQ":
            self.write(regs.ACK, seq)
        elif event == "ACK other":
            self.write(regs.ACK, regs.next_seq(seq + 3))
        elif event == "button or shake":
            self.press()
        elif event == "dice land":
            self.pico.run(TUMBLE)
        else:
            raise AssertionError(f"no such event in the protocol: {event}")


@pytest.mark.micropython
@pytest.mark.parametrize("before, event, after, error, also", ROWS,
                         ids=[f"{r[0]}-{r[1]}" for r in ROWS])
def test_every_row_of_the_protocol_table(before, event, after, error, also, tmp_path):
    with PicoProcess(tmp_path, binary=micropython()) as pico:
        m = Module(pico)
        m.reach(before)
        old = m.regs()
        m.play(event, old[regs.SEQ])
        pico.run(4)
        new = m.regs()
        assert new[regs.STATUS] == after
        assert new[regs.ERROR] == (old[regs.ERROR] if error is None else error)
        assert new[regs.REQUEST] == 0 and new[regs.ACK] == 0
        assert (pico.state().ready == 0) == (after == regs.STATUS_READY)
        if "replaces the waiting result" in also or "starts" in also:
            pico.run(TUMBLE + 10)
            landed = m.regs()
            assert landed[regs.SEQ] == regs.next_seq(old[regs.SEQ])
            source = regs.SOURCE_REQUEST if event.startswith("REQUEST") else regs.SOURCE_BUTTON
            assert landed[regs.SOURCE] == source and landed[regs.STATUS] == regs.STATUS_READY
        elif "lands" in also or "SEQ+1" in also:
            if after != regs.STATUS_READY:
                pico.run(TUMBLE + 10)
            assert m.regs()[regs.SEQ] == regs.next_seq(old[regs.SEQ])
        elif "ignored" in also or "refused" in also or after == before:
            pico.run(TUMBLE + 10)
            landed = m.regs()
            rolled = before == regs.STATUS_ROLLING     # the throw that was tumbling lands
            assert landed[regs.SEQ] == (regs.next_seq(old[regs.SEQ]) if rolled
                                        else old[regs.SEQ])
