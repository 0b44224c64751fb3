"""The bytes the MCP23017 driver puts on the wire, against the datasheet's register map.

The map and the IOCON bits are read from docs/hardware-facts.md (the rows
that cite DS20001952 Table 3-5 and Register 3-6), not from the driver, so a
wrong constant in the driver and the test cannot agree by accident.
"""

import re
from pathlib import Path

import pytest

from shutbox_hw.hal.adapters import mcp23017 as reg
from shutbox_hw.hal.adapters.mcp23017 import Mcp23017

FACTS = Path(__file__).resolve().parent.parent / "docs" / "build" / "hardware-facts.md"


def fact_row(starts: str) -> str:
    rows = [line for line in FACTS.read_text().splitlines() if line.startswith(f"| {starts}")]
    assert len(rows) == 1, starts
    return rows[0]


def register_map() -> dict[str, tuple[int, int]]:
    """{"IODIR": (0x00, 0x01), ...} from the BANK = 0 row."""
    row = fact_row("Register map with `IOCON.BANK = 0`")
    pairs = re.findall(r"\b([A-Z]+) ([0-9A-F]{2})/([0-9A-F]{2})", row)
    return {name: (int(a, 16), int(b, 16)) for name, a, b in pairs}


def iocon_bits() -> dict[str, int]:
    """{"BANK": 0x80, ...} from the IOCON row (bits named from 7 down)."""
    row = fact_row("IOCON bits, 7 to 0:")
    names = row.split("7 to 0:")[1].split(".")[0].split(",")
    return {name.strip(): 1 << (7 - i) for i, name in enumerate(names)
            if not name.strip().startswith("(")}


class RecordingBus:
    """Every transfer, as (kind, address, register, payload); reads return zeros."""

    def __init__(self) -> None:
        self.transfers: list[tuple[str, int, int, object]] = []

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int, /) -> list[int]:
        self.transfers.append(("read", i2c_addr, register, length))
        return [0] * length

    def write_byte_data(self, i2c_addr: int, register: int, value: int, /) -> None:
        self.transfers.append(("byte", i2c_addr, register, value))

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int], /) -> None:
        self.transfers.append(("block", i2c_addr, register, list(data)))


def test_the_docs_map_is_the_drivers_map():
    regs = register_map()
    assert len(regs) == 11
    for name, (a, b) in regs.items():
        assert (getattr(reg, f"{name}A", None), getattr(reg, f"{name}B", None)) in \
            ((a, b), (None, None)), name
    assert (reg.IOCON, reg.IOCON_B) == regs["IOCON"]
    bits = iocon_bits()
    assert bits == {"BANK": 0x80, "MIRROR": 0x40, "SEQOP": 0x20, "DISSLW": 0x10,
                    "HAEN": 0x08, "ODR": 0x04, "INTPOL": 0x02}
    for name, bit in bits.items():
        assert getattr(reg, f"IOCON_{name}") == bit


@pytest.mark.parametrize("address, inputs, olat", [
    (0x20, 0b0011_1111_0111_1111, 0x8000),    # the 12-flap build: 14 inputs, red LED on
    (0x27, 0x0001, 0x0000),
    (0x21, 0x0000, 0x7F80),                   # an LED chip: every pin an output
])
def test_configure_writes_iocon_first_then_the_setup_block_then_the_latches(address, inputs,
                                                                            olat):
    regs, bits = register_map(), iocon_bits()
    bus = RecordingBus()
    Mcp23017(bus, address, sleep=lambda s: None).configure(inputs, olat=olat)
    lo, hi = inputs & 0xFF, inputs >> 8
    iocon = bits["MIRROR"] | bits["ODR"]          # BANK 0, open-drain INT shared by both ports
    wanted = {"IODIR": (lo, hi), "IPOL": (0, 0), "GPINTEN": (lo, hi), "DEFVAL": (0, 0),
              "INTCON": (0, 0), "IOCON": (iocon, iocon), "GPPU": (lo, hi)}
    by_address = {regs[name][port]: value[port] for name, value in wanted.items()
                  for port in (0, 1)}
    first, last = regs["IODIR"][0], regs["GPPU"][1]
    assert sorted(by_address) == list(range(first, last + 1))   # one contiguous block
    assert bus.transfers == [
        ("byte", address, regs["IOCON"][0], iocon),
        ("block", address, first, [by_address[r] for r in range(first, last + 1)]),
        ("block", address, regs["OLAT"][0], [olat & 0xFF, olat >> 8]),
        ("read", address, regs["INTCAP"][0], 4),    # INTCAP and GPIO: clears a latched INT
    ]


def test_a_read_is_every_register_from_zero_and_outputs_go_to_olat():
    regs = register_map()
    bus = RecordingBus()
    chip = Mcp23017(bus, 0x20, sleep=lambda s: None)
    chip.read_all()
    chip.write_outputs(0x0180, mask=0x0180)
    count = max(b for _, b in regs.values()) + 1
    assert bus.transfers == [("read", 0x20, 0x00, count),
                             ("block", 0x20, regs["OLAT"][0], [0x80, 0x01])]
