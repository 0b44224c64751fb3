"""SimRunner's clock: it stops wherever anything is due, as the box's loop would."""

from pathlib import Path

from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner

MCP_BUILD = Path(__file__).parent.parent / "hardware" / "mcp23017-12" / "shutbox.toml"


def chip_reads(runner, address=0x20):
    """The virtual times at which the driver reads the chip at ``address``."""
    times: list[int] = []
    bus = runner.sim.bus
    read = bus.read_i2c_block_data

    def recorded(addr, register, length, force=None):
        if addr == address:
            times.append(runner.world.now_ms())
        return read(addr, register, length)

    bus.read_i2c_block_data = recorded
    return times


def test_an_edge_on_the_current_millisecond_is_read_at_once(tmp_path):
    """Issue 10, point 6: an expander edge due at the very millisecond the runner
    stands on was read at the next periodic read (84-250 ms late), not at its INT."""
    runner = SimRunner(load_config(MCP_BUILD), tmp_path / "db")
    runner.advance(1000)
    reads = chip_reads(runner)
    now = runner.world.now_ms()
    runner.world.at(now, lambda: runner.sim.chips[0x20].set_input(0, False))
    runner.advance(100)
    assert reads and reads[0] == now


def test_an_edge_later_on_is_read_at_its_interrupt(tmp_path):
    runner = SimRunner(load_config(MCP_BUILD), tmp_path / "db")
    runner.advance(1000)
    reads = chip_reads(runner)
    at = runner.world.now_ms() + 37
    runner.world.at(at, lambda: runner.sim.chips[0x20].set_input(0, False))
    runner.advance(100)
    assert reads and reads[0] == at
