"""Faults on the simulated I2C bus and MCP23017, as the real driver meets them."""

import errno
import random

import pytest
from gpiozero.pins.mock import MockFactory

from shutbox_hw.hal.adapters import mcp23017 as reg
from shutbox_hw.hal.adapters.mcp23017 import Mcp23017, Mcp23017Error
from shutbox_hw.hal.simulated import SimBus, SimMcp23017


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


def make(seed=0, rate=0.0, **kw):
    bus = SimBus(1, error_rate=rate, rng=random.Random(seed))
    chip = SimMcp23017(**kw)
    bus.attach(0x20, chip)
    return bus, chip


def outcomes(bus, n=200):
    """errno (or None) of ``n`` reads."""
    out = []
    for _ in range(n):
        try:
            bus.read_byte_data(0x20, reg.IODIRA)
            out.append(None)
        except OSError as exc:
            out.append(exc.errno)
    return out


def test_error_rate_fails_transfers_with_121_5_and_11():
    bus, _ = make(rate=1.0)
    assert set(outcomes(bus)) == {errno.EREMOTEIO, errno.EIO, errno.EAGAIN}
    assert bus.errors_injected == 200


def test_errors_are_seeded_and_stop_at_rate_zero():
    a, b = make(seed=4, rate=0.3)[0], make(seed=4, rate=0.3)[0]
    first = outcomes(a)
    assert first == outcomes(b) and 20 < sum(x is not None for x in first) < 110
    a.error_rate = 0
    assert set(outcomes(a)) == {None}


def test_a_late_eio_still_acknowledges_the_interrupt():
    """A read broken after the chip sent GPIO has cleared INTF; a 121 never reached it."""
    bus, chip = make()
    bus.write_byte_data(0x20, reg.GPINTENA, 0x01)
    bus.write_byte_data(0x20, reg.GPPUA, 0x01)
    for code, cleared in ((errno.EREMOTEIO, False), (errno.EIO, True)):
        chip.set_input(0, False)
        assert chip.int_active()[0]
        bus.injected_failure = lambda code=code: OSError(code, "injected")
        with pytest.raises(OSError):
            bus.read_i2c_block_data(0x20, reg.GPIOA, 2)
        assert chip.int_active()[0] is not cleared
        del bus.injected_failure
        bus.read_i2c_block_data(0x20, reg.GPIOA, 2)
        chip.set_input(0, None)
        bus.read_i2c_block_data(0x20, reg.GPIOA, 2)


def test_the_real_driver_retries_through_bus_errors():
    bus, chip = make(seed=7, rate=0.2)
    driver = Mcp23017(bus, 0x20, attempts=12, sleep=lambda s: None)
    driver.configure(0x003F)
    chip.set_input(2, False)
    for _ in range(50):
        assert driver.read_all().gpio & 0x3F == 0x3F & ~(1 << 2)
    assert driver.retries > 10 and driver.configured(driver.read_all())


def test_unplugged_and_plugged_again(factory):
    int_pin = factory.pin(4)
    bus, chip = make(int_pin=int_pin)
    driver = Mcp23017(bus, 0x20, sleep=lambda s: None)
    driver.configure(0x0001)
    chip.set_input(0, False)
    assert int_pin.state == 0                        # interrupt pending: INT low
    chip.unplug()
    assert int_pin.state == 1                        # unpowered: the Pi's pull-up
    with pytest.raises(Mcp23017Error, match="errno 121"):
        driver.read_all()
    with pytest.raises(OSError):
        bus.write_quick(0x20)
    chip.plug()
    assert not driver.configured(driver.read_all())  # back, with power-on registers
    bus.write_quick(0x20)


def test_an_unplugged_address_on_the_bus():
    bus, _ = make()
    bus.unplug(0x20)
    with pytest.raises(OSError) as error:
        bus.read_byte_data(0x20, 0)
    assert error.value.errno == errno.EREMOTEIO
    bus.plug(0x20)
    assert bus.read_byte_data(0x20, 0) == 0xFF


def test_a_cut_int_wire_stays_high_until_mended(factory):
    int_pin = factory.pin(4)
    bus, chip = make(int_pin=int_pin)
    Mcp23017(bus, 0x20, sleep=lambda s: None).configure(0x0001)
    chip.cut_int()
    chip.set_input(0, False)
    assert chip.int_active()[0] and int_pin.state == 1
    chip.mend_int()
    assert int_pin.state == 0
