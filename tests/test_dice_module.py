"""The host driver (shutbox_hw.hal.adapters.dice_module) against the firmware's own logic
served by the simulated module on the simulated I2C bus."""

from __future__ import annotations

import errno

import pytest
from gpiozero.pins.mock import MockFactory

from shutbox_hw.hal.adapters import dice_module as dm
from shutbox_hw.hal.contracts.clock import VirtualClock
from shutbox_hw.hal.simulated import SimBus
from shutbox_hw.hal.simulated.dice_module import SimDiceModule

ADDR = 0x42


class Rig:
    def __init__(self, *, clock: VirtualClock | None = None, with_ready: bool = False) -> None:
        self.bus = SimBus(1)
        self.pin = MockFactory().pin(18) if with_ready else None
        self.sim = SimDiceModule(clock=clock, ready_pin=self.pin)
        self.bus.attach(ADDR, self.sim)
        self.sleeps: list[float] = []
        ready = (lambda: not self.pin.state) if with_ready else None
        self.drv = dm.DiceModule(self.bus, ADDR, ready=ready, sleep=self.sleeps.append)

    def roll(self, *faces: int) -> dm.Throw | None:
        """The box's ROLL: set the faces, request, let the animation run, poll."""
        self.sim.next_faces(*faces)
        self.drv.request_roll(len(faces))
        self.sim.settle()
        return self.drv.poll()


def test_the_crc_is_crc8_smbus():
    # the catalogue's check value for CRC-8/SMBUS, and one flipped bit changes it
    assert dm.crc8(b"123456789") == 0xF4
    assert dm.crc8([7, 1, 2, 3, 4, 5]) != dm.crc8([7, 1, 2, 3, 4, 4])


def test_find_checks_the_identity():
    rig = Rig()
    assert rig.drv.find() and rig.drv.present
    other = SimBus(1)
    other.attach(ADDR, _Registers([0x12] * 16))
    drv = dm.DiceModule(other, ADDR, sleep=lambda s: None)
    assert not drv.find() and not drv.present
    with pytest.raises(dm.DiceModuleMissing, match="not the dice module"):
        drv.poll()
    assert not dm.DiceModule(SimBus(1), ADDR, sleep=lambda s: None).find()


class _Registers:
    """Some other chip at the address."""

    def __init__(self, regs: list[int]) -> None:
        self.regs = regs

    def i2c_read(self, register: int, length: int) -> list[int]:
        return self.regs[register:register + length]

    def i2c_write(self, register: int, data: list[int]) -> None:
        pass


def test_a_whole_sequence_of_throws():
    rig = Rig()
    assert rig.drv.find()
    seen = []
    plan = [(3, 4), (6, 6), (1,), (2, 5), (5,), (1, 1), (4, 2)]
    for faces in plan:
        throw = rig.roll(*faces)
        assert throw is not None and throw.faces == faces and throw.source == "request"
        seen.append(throw.seq)
        assert rig.drv.poll() is None             # taken once only
    assert seen == list(range(1, len(plan) + 1))
    # throws made on the module itself, with the count the Pi set
    rig.drv.set_count(2)
    rig.sim.next_faces(2, 3)
    rig.sim.press()
    assert rig.drv.poll() is None                 # still tumbling
    rig.sim.settle()
    assert rig.drv.poll() == dm.Throw(faces=(2, 3), source="button", seq=8,
                                      boot=rig.sim.mem[dm.BOOT])
    rig.drv.set_count(1)
    rig.sim.next_faces(6)
    rig.sim.shake()
    rig.sim.settle()
    throw = rig.drv.poll()
    assert throw.faces == (6,) and throw.source == "shake"
    assert rig.drv.retries == rig.drv.crc_errors == rig.drv.stale == 0


def test_sequence_numbers_wrap_without_zero():
    rig = Rig()
    rig.drv.find()
    seqs = [rig.roll(1).seq for _ in range(257)]
    assert seqs[253:] == [254, 255, 1, 2]


def test_a_corrupted_byte_is_caught_by_the_crc_and_read_again():
    for reg in (dm.SEQ, dm.FACE1, dm.FACE2, dm.SOURCE, dm.CRC, dm.BOOT):
        rig = Rig()
        rig.drv.find()
        rig.sim.next_faces(2, 5)
        rig.drv.request_roll(2)
        rig.sim.settle()
        rig.sim.corrupt_next_read(reg, 0x04)
        throw = rig.drv.poll()
        assert throw is not None and throw.faces == (2, 5) and throw.seq == 1, reg
        assert rig.drv.crc_errors == 1 and rig.drv.retries == 1


def test_bus_errors_are_retried_then_reported_missing():
    rig = Rig()
    rig.drv.find()
    rig.sim.next_faces(4, 4)
    rig.drv.request_roll(2)
    rig.sim.settle()
    rig.sim.fail_next(errno.EREMOTEIO, errno.EIO, errno.EAGAIN)
    assert rig.drv.poll().faces == (4, 4)
    assert rig.drv.retries == 3 and rig.sleeps == [0.001, 0.002, 0.004]
    rig.sim.fail_next(*[errno.ETIMEDOUT] * 4)
    with pytest.raises(dm.DiceModuleMissing, match="no answer after 4 attempts"):
        rig.drv.poll()
    assert not rig.drv.present
    rig.sim.fail_next(errno.ENODEV)     # not a transient error: no retry
    with pytest.raises(dm.DiceModuleMissing, match="bus error"):
        rig.drv.set_count(1)


def test_a_persistently_corrupted_read_counts_as_missing():
    rig = Rig()
    rig.drv.find()
    rig.roll(3)
    for _ in range(4):
        rig.sim.corrupt_next_read(dm.FACE1, 0x80)
    with pytest.raises(dm.DiceModuleMissing, match="CRC mismatch after 4 attempts"):
        rig.drv.poll(force=True)


def test_a_stale_sequence_number_is_ignored():
    rig = Rig()
    rig.drv.find()
    rig.sim.next_faces(5, 1)
    rig.drv.request_roll(2)
    rig.sim.settle()
    rig.sim.fail_next(0, *[errno.EREMOTEIO] * 4)   # the read works, every ACK is lost
    first = rig.drv.poll()
    assert first.faces == (5, 1) and rig.sim.ready_active
    assert rig.sim.mem[dm.STATUS] == dm.STATUS_READY     # the same result, still waiting
    assert rig.drv.poll() is None and rig.drv.stale == 1
    assert rig.sim.mem[dm.STATUS] == dm.STATUS_IDLE      # acknowledged again
    assert rig.roll(2, 2).seq == first.seq + 1


def test_a_result_waiting_before_find_is_not_used():
    rig = Rig()
    rig.sim.next_faces(6, 6)
    rig.sim.press()
    rig.sim.settle()
    assert rig.sim.ready_active
    assert rig.drv.find()
    assert rig.drv.poll() is None and not rig.sim.ready_active
    assert rig.roll(1, 2).faces == (1, 2)


def test_unplugged_is_missing_and_plugged_back_is_found_again():
    rig = Rig()
    rig.drv.find()
    assert rig.roll(3, 3).seq == 1
    rig.sim.unplug()
    with pytest.raises(dm.DiceModuleMissing, match="errno 121"):
        rig.drv.request_roll(2)
    assert not rig.drv.present and not rig.drv.find()
    rig.sim.plug()                      # the Pico boots again: SEQ starts over at 1
    assert rig.drv.find() and rig.drv.present
    throw = rig.roll(4, 5)
    assert throw.faces == (4, 5) and throw.seq == 1


def test_a_reboot_between_polls_is_a_new_result_not_a_stale_one():
    rig = Rig()
    rig.drv.find()
    rig.sim.rng.seed(1)
    assert rig.roll(2, 2).seq == 1
    rig.sim.power_on()                  # brownout: SEQ 1 again, but another BOOT
    assert rig.sim.mem[dm.BOOT] != rig.drv.last[0]
    assert rig.roll(6, 1).faces == (6, 1)


def test_the_ready_line_falls_with_a_result_and_rises_on_ack():
    rig = Rig(with_ready=True)
    rig.drv.find()
    assert rig.pin.state                               # released: pulled up
    rig.sim.next_faces(3, 1)
    rig.drv.request_roll(2)
    before = rig.bus.transactions
    rig.sim.advance(200)
    assert rig.pin.state and rig.drv.poll() is None    # no result: no bus traffic
    assert rig.bus.transactions == before
    rig.sim.settle()
    assert not rig.pin.state
    assert rig.drv.poll().faces == (3, 1)
    assert rig.pin.state
    rig.sim.unplug()
    assert rig.drv.poll() is None                      # the line alone cannot tell...
    with pytest.raises(dm.DiceModuleMissing):
        rig.drv.poll(force=True)                       # ...a forced poll can


def test_the_module_keeps_pace_with_a_clock():
    clock = VirtualClock()
    rig = Rig(clock=clock)
    rig.drv.find()
    rig.sim.next_faces(5, 2)
    rig.drv.request_roll(2)
    clock.advance(500)
    assert rig.drv.poll() is None and rig.drv.read_state().status == dm.STATUS_ROLLING
    clock.advance(600)
    assert rig.drv.poll().faces == (5, 2)


def test_the_count_is_checked_on_both_sides():
    rig = Rig()
    rig.drv.find()
    with pytest.raises(ValueError):
        rig.drv.set_count(3)
    rig.bus.write_byte_data(ADDR, dm.COUNT, 0)
    state = rig.drv.read_state()
    assert state.status == dm.STATUS_ERROR and state.error == 1
    assert rig.roll(4, 4).faces == (4, 4)       # writing a good count clears it


# -- DiceLink: the module on the daemon's clock, with fallback and recovery ----

class LinkRig(Rig):
    """The daemon's side: a virtual clock, the link ticking every 10 ms."""

    def __init__(self, with_ready: bool = False, poll_ms: int = 250) -> None:
        self.clock = VirtualClock()
        super().__init__(clock=self.clock, with_ready=with_ready)
        self.link = dm.DiceLink(self.drv, poll_ms=poll_ms, retry_ms=2000)

    def run(self, ms: int, step: int = 10) -> list[dm.LinkEvent]:
        events = []
        for _ in range(ms // step):
            self.clock.advance(step)
            self.sim.sync()
            events += self.link.tick(self.clock.now_ms())
        return events


def kinds(events: list[dm.LinkEvent]) -> list[str]:
    return [e.kind for e in events]


def test_link_plays_throws_from_roll_and_from_the_module_on_the_ready_line():
    rig = LinkRig(with_ready=True, poll_ms=60_000)     # only the ready line brings results
    assert rig.link.start(0) == [] and rig.link.online
    rig.sim.next_faces(2, 6)
    assert rig.link.request_roll(2, 0) == (True, [])
    before = rig.bus.transactions
    events = rig.run(1200)
    assert kinds(events) == ["throw"] and events[0].throw.faces == (2, 6)
    assert rig.bus.transactions - before == 2          # one read, one ACK
    assert rig.link.set_count(1, rig.clock.now_ms()) == []
    rig.sim.next_faces(3)
    rig.sim.button_down = True
    assert rig.run(100) == []
    rig.sim.button_down = False
    events = rig.run(1200)
    assert [(e.throw.faces, e.throw.source) for e in events] == [((3,), "button")]
    with pytest.raises(ValueError):
        rig.link.set_count(0, rig.clock.now_ms())


def test_link_without_a_ready_line_polls_every_poll_ms():
    rig = LinkRig()
    rig.link.start(0)
    before = rig.bus.transactions
    assert rig.run(1000) == []
    assert rig.bus.transactions - before == 4       # at 250, 500, 750, 1000 ms
    rig.sim.next_faces(1, 1)
    rig.link.request_roll(2, rig.clock.now_ms())
    events = rig.run(1300)
    assert kinds(events) == ["throw"] and events[0].throw.faces == (1, 1)


def test_link_unplugged_mid_game_falls_back_and_returns_when_plugged():
    rig = LinkRig(with_ready=True)
    rig.link.start(0)
    rig.link.set_count(1, 0)
    rig.sim.unplug()
    ok, events = rig.link.request_roll(1, rig.clock.now_ms())
    assert not ok and kinds(events) == ["lost"] and "errno 121" in events[0].reason
    assert not rig.link.online
    assert rig.link.request_roll(1, rig.clock.now_ms()) == (False, [])   # software dice
    rig.link.set_count(2, rig.clock.now_ms())        # the rules moved on meanwhile
    assert rig.run(5000) == []                       # still away: looked for, quietly
    rig.sim.plug()
    events = rig.run(2000)
    assert kinds(events) == ["recovered"] and rig.link.online
    assert rig.sim.mem[dm.COUNT] == 2
    rig.sim.next_faces(5, 4)
    assert rig.link.request_roll(2, rig.clock.now_ms()) == (True, [])
    assert [e.throw.faces for e in rig.run(1200)] == [(5, 4)]


def test_link_notices_a_silent_module_by_its_liveness_poll():
    rig = LinkRig(with_ready=True)
    rig.link.start(0)
    rig.sim.unplug()
    events = rig.run(300)
    assert kinds(events) == ["lost"]


def test_link_reports_a_module_missing_at_start():
    rig = LinkRig()
    rig.sim.unplug()
    events = rig.link.start(0)
    assert kinds(events) == ["lost"] and not rig.link.online
    rig.sim.plug()
    assert kinds(rig.run(2500)) == ["recovered"]


def test_a_module_that_reboots_gets_its_dice_count_back():
    rig = LinkRig(with_ready=True)
    rig.link.start(0)
    rig.link.set_count(1, 0)
    rig.sim.rng.seed(3)
    rig.sim.power_on()                      # a brownout: COUNT back to 2
    assert rig.sim.mem[dm.COUNT] == 2
    rig.run(300)                            # the liveness poll sees the new BOOT
    assert rig.sim.mem[dm.COUNT] == 1 and rig.drv.restarts == 1 and rig.link.online
