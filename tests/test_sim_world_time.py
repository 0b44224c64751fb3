"""Time in the simulated world: wire time on the I2C bus, one transfer at a
time; disk syncs that take time; glitches and presses of a given length; the
script commands that set them (issue 20)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from shutbox_hw.base.events import ButtonPressed, FlapChanged
from shutbox_hw.config.config_file import load_config
from shutbox_hw.hal.simulated import SimBus, SimWorld
from shutbox_hw.hal.simulated.timing import BusTimeline, DiskProfile, SyncLatency, i2c_transfer_us
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import ScriptError, Step, parse_script
from shutbox_hw.sim.world_commands import Bus, Disk, Glitch, Press

MCP_BUILD = Path(__file__).parent.parent / "hardware" / "mcp23017-12" / "shutbox.toml"


def test_wire_time_counts_start_address_data_ack_and_stop():
    # a one-byte register write: START, address+W+ACK, register+ACK, data+ACK, STOP
    assert i2c_transfer_us(100_000, 2) == round((2 + 27) * 10)
    # the MCP23017's 22-register read: the register, a repeated START, address+R, 22 bytes
    bits = 2 + 9 * 2 + 1 + 9 * 23
    assert i2c_transfer_us(400_000, 1, 22) == round(bits * 2.5)
    # a full SSD1306 frame in one transfer at 100 kHz: the 93 ms
    assert 92_000 < i2c_transfer_us(100_000, 1 + 1024) < 94_000
    assert i2c_transfer_us(100_000, 2, stretch_us=50) == i2c_transfer_us(100_000, 2) + 100


def test_a_waited_transfer_goes_after_the_one_on_the_wire_and_before_the_rest():
    line = BusTimeline()
    end = line.queue(0, [1000, 1000, 1000])           # a frame in three transfers
    assert end == 3000
    assert line.take(500, 200) == (1000, 1200)        # after the first, not the frame
    line2 = BusTimeline()
    line2.queue(0, [1000, 1000])
    start, stop = line2.take(100, 300)
    assert (start, stop) == (1000, 1300)
    assert line2.free_at(1300) == 2300                # the second transfer moved behind it


def test_the_loop_waits_for_its_transfers_and_the_world_goes_on_meanwhile():
    world = SimWorld()
    bus = SimBus(1, world=world, hz=50_000)
    seen = []
    world.at(3, lambda: seen.append(world.now_ms()))
    bus.timeline.queue(0, [10_000])                   # 10 ms of a frame on the wire
    bus.attach(0x20, type("Chip", (), {"i2c_read": lambda self, r, n: [0] * n,
                                       "i2c_write": lambda self, r, d: None})())
    bus.read_i2c_block_data(0x20, 0, 22)
    # 10 ms behind the frame, then 4.6 ms of its own at 50 kHz
    assert world.now_ms() == (10_000 + i2c_transfer_us(50_000, 1, 22)) // 1000
    assert seen == [3]                               # an edge at 3 ms happened meanwhile


def test_sd_card_syncs_take_5_to_20_ms_with_a_stall_every_few_hundred():
    latency = SyncLatency(DiskProfile("sd-card"), random.Random(1))
    draws = [latency.next_ms() for _ in range(2000)]
    stalls = [i for i, ms in enumerate(draws) if ms == 200]
    assert all(5 <= ms <= 20 for ms in draws if ms != 200)
    assert 4 <= len(stalls) <= 10
    assert all(200 <= b - a <= 400 for a, b in zip(stalls, stalls[1:]))
    assert SyncLatency(DiskProfile("stall", 70)).next_ms() == 70
    assert SyncLatency(DiskProfile()).next_ms() == 0


def test_world_commands_parse_into_typed_commands():
    text = "glitch roll 3\npress 7 80\ndisk sd-card\ndisk stall 150\nDISK FAST\nbus 50000\n"
    steps = parse_script(text, 9)
    assert [s.command for s in steps] == [
        Glitch("roll", 3), Press(7, 80), Disk(DiskProfile("sd-card")),
        Disk(DiskProfile("stall", 150)), Disk(DiskProfile("fast")), Bus(50_000)]
    assert steps[0] == Step(1, Glitch("roll", 3))


@pytest.mark.parametrize("line,word", [
    ("glitch", "flap number, roll or next"),
    ("glitch roll", "flap number, roll or next"),
    ("glitch 10 3", "flap number"),
    ("glitch up 3", "flap number"),
    ("press next 0", "milliseconds 1..60000"),
    ("press next soon", "milliseconds"),
    ("disk", "fast, sd-card or stall MS"),
    ("disk floppy", "fast, sd-card or stall MS"),
    ("disk stall", "fast, sd-card or stall MS"),
    ("disk stall -5", "milliseconds 0..10000"),
    ("disk fast 3", "fast, sd-card or stall MS"),
    ("bus", "bus clock"),
    ("bus 5", "bus clock in Hz 10000..1000000"),
    ("bus 400k", "bus clock in Hz"),
])
def test_bad_world_lines_name_the_line(line, word):
    with pytest.raises(ScriptError) as error:
        parse_script(f"start 1\n\n{line}\n", 9, name="s.txt")
    message = str(error.value)
    assert message.startswith("s.txt:3: ") and word in message and "\n" not in message


def run(runner, text, tiles):
    for step in parse_script(text, tiles):
        runner.run(step)


@pytest.mark.parametrize("build", [None, MCP_BUILD])
def test_glitches_are_nothing_and_presses_are_presses(tmp_path, build):
    config = load_config(build)
    runner = SimRunner(config, tmp_path / "db")
    start = len(runner.sim.seen)
    run(runner, "bus 50000\ndisk sd-card\nglitch roll 3\nglitch 2 5\npress next 45\n"
                "press 4 60\nglitch next 1\n", config.rules.tiles)
    got = [(type(e).__name__, getattr(e, "button", getattr(e, "tile", None)))
           for e in runner.sim.seen[start:] if isinstance(e, (ButtonPressed, FlapChanged))]
    assert got == [("ButtonPressed", "next"), ("FlapChanged", 4), ("FlapChanged", 4)]


def test_a_sync_blocks_the_loop_for_its_latency(tmp_path):
    def longest_step_ms(profile):
        runner = SimRunner(load_config(), tmp_path / f"{profile}.db")
        spans = []
        real_step = runner.daemon.step

        def step():
            before = runner.world.now_ms()
            real_step()
            spans.append(runner.world.now_ms() - before)
        runner.daemon.step = step
        run(runner, f"disk {profile}\nstart 1\ndice 3 4\nroll\nclose 3 4\n", 9)
        return max(spans), runner.disk.syncs

    assert longest_step_ms("fast")[0] == 0     # GPIO build: the panel's frames do not block
    longest, syncs = longest_step_ms("stall 300")
    assert syncs >= 3 and longest >= 300


def test_a_world_file_resumes_with_the_disk_and_bus_the_script_set(tmp_path):
    from shutbox_hw.sim.world_file import run_with_world
    config = load_config()
    steps = parse_script("bus 50000\ndisk stall 70\nstart 1\n", 9)

    def make(shut):
        return SimRunner(config, tmp_path / "db", shut=shut)

    first = run_with_world(make, steps, tmp_path / "world.json")
    assert first.sim.bus.hz == 50_000
    again = run_with_world(make, steps, tmp_path / "world.json")   # every line done: resumed
    assert again.sim.bus.hz == 50_000
    assert again.disk.latency.next_ms() == 70
