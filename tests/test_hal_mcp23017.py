"""The MCP23017 register model and the driver on top of it."""

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


def make(**kw):
    bus = SimBus(1)
    chip = SimMcp23017(**kw)
    bus.attach(0x20, chip)
    return bus, chip


# -- the model, poked through the bus like the datasheet says ---------------------

def test_power_on_values_and_iocon_at_both_addresses():
    bus, _ = make()
    regs = bus.read_i2c_block_data(0x20, 0, 22)
    assert regs[0] == 0xFF and regs[1] == 0xFF
    assert regs[2:0x12] == [0] * 16          # GPIO aside, everything else is zero
    bus.write_byte_data(0x20, 0x0B, 0x44)
    assert bus.read_byte_data(0x20, 0x0A) == 0x44


def test_gpio_reads_level_xor_ipol_and_olat_for_outputs():
    bus, chip = make()
    bus.write_byte_data(0x20, reg.GPPUA, 0x0F)       # pull-ups on GPA0..3
    bus.write_byte_data(0x20, reg.IPOLA, 0x03)       # invert GPA0, GPA1
    chip.set_input(1, False)                         # a closed switch on GPA1
    # GPA0 pulled up 1^1=0, GPA1 low 0^1=1, GPA2/3 pulled up, GPA4..7 floating low
    assert bus.read_byte_data(0x20, reg.GPIOA) == 0b00001110
    bus.write_byte_data(0x20, reg.IODIRB, 0x00)      # port B all outputs
    bus.write_byte_data(0x20, reg.GPIOB, 0xA5)       # writing GPIO writes OLAT
    assert bus.read_byte_data(0x20, reg.OLATB) == 0xA5
    assert bus.read_byte_data(0x20, reg.GPIOB) == 0xA5
    assert chip.output_level(8) is True and chip.output_level(9) is False


def test_interrupt_latches_once_and_clears_on_read(factory):
    int_pin = factory.pin(4)
    bus, chip = make(int_pin=int_pin)
    bus.write_byte_data(0x20, reg.IOCON, reg.IOCON_MIRROR | reg.IOCON_ODR)
    bus.write_i2c_block_data(0x20, reg.GPPUA, [0xFF, 0xFF])
    bus.write_i2c_block_data(0x20, reg.GPINTENA, [0x00, 0x01])   # only GPB0
    assert int_pin.state is True                  # released, pulled up
    chip.set_input(0, False)                      # GPA0 has no interrupt enabled
    assert int_pin.state is True
    chip.set_input(8, False)
    assert int_pin.state is False                 # MIRROR: port B drives the one line
    assert bus.read_byte_data(0x20, reg.INTFB) == 0x01
    chip.set_input(8, None)                       # changes again while latched
    assert bus.read_byte_data(0x20, reg.INTCAPB) == 0xFE   # value when it fired
    assert bus.read_byte_data(0x20, reg.INTFB) == 0       # cleared by the INTCAP read
    assert int_pin.state is True
    assert bus.read_byte_data(0x20, reg.GPIOB) == 0xFF


def test_int_polarity_without_open_drain(factory):
    int_pin = factory.pin(4)
    bus, chip = make(int_pin=int_pin)
    bus.write_byte_data(0x20, reg.IOCON, reg.IOCON_INTPOL)   # active-high driver
    bus.write_byte_data(0x20, reg.GPINTENA, 0x01)
    assert int_pin.state is False
    chip.set_input(0, True)
    assert int_pin.state is True
    bus.read_byte_data(0x20, reg.GPIOA)
    assert int_pin.state is False


def test_defval_compare_reasserts_until_level_returns():
    bus, chip = make()
    bus.write_i2c_block_data(0x20, reg.GPINTENA, [0x01])
    bus.write_byte_data(0x20, reg.INTCONA, 0x01)
    bus.write_byte_data(0x20, reg.DEFVALA, 0x00)
    chip.set_input(0, True)
    assert bus.read_byte_data(0x20, reg.INTCAPA) == 0x01
    assert bus.read_byte_data(0x20, reg.INTFA) == 0x01     # still differs from DEFVAL
    chip.set_input(0, False)
    bus.read_byte_data(0x20, reg.GPIOA)
    assert bus.read_byte_data(0x20, reg.INTFA) == 0


def test_absent_device_and_address_raise_121():
    bus, chip = make()
    with pytest.raises(OSError) as e:
        bus.read_byte_data(0x21, 0)
    assert e.value.errno == 121
    chip.absent = True
    with pytest.raises(OSError) as e:
        bus.write_byte_data(0x20, 0, 0)
    assert e.value.errno == 121


def test_injected_errors_follow_the_rate():
    bus, chip = make(error_rate=0.25, rng=random.Random(7))
    codes = []
    for _ in range(2000):
        try:
            bus.read_byte_data(0x20, 0)
        except OSError as exc:
            codes.append(exc.errno)
    assert set(codes) == {121, 5}
    assert 400 < len(codes) < 600                 # 500 expected; binomial sd ~19


def test_brownout_resets_every_register():
    bus, chip = make()
    bus.write_i2c_block_data(0x20, 0, [0x0F, 0x0F, 1, 1, 1, 1, 1, 1, 1, 1, 0x44, 0x44, 3, 3])
    chip.brownout()
    assert bus.read_i2c_block_data(0x20, 0, 22)[:0x0E] == [0xFF, 0xFF] + [0] * 12


# -- the driver -------------------------------------------------------------------

def test_configure_sets_inputs_pullups_interrupts_and_open_drain(factory):
    int_pin = factory.pin(4)
    bus, chip = make(int_pin=int_pin)
    drv = Mcp23017(bus, 0x20, sleep=lambda s: None)
    drv.configure(0b0011_1111_0111_1111, olat=0x8000)
    regs = bus.read_i2c_block_data(0x20, 0, 22)
    assert regs[reg.IODIRA:reg.IODIRB + 1] == [0x7F, 0x3F]
    assert regs[reg.GPPUA:reg.GPPUB + 1] == [0x7F, 0x3F]
    assert regs[reg.GPINTENA:reg.GPINTENB + 1] == [0x7F, 0x3F]
    assert regs[reg.INTCONA:reg.INTCONB + 1] == [0, 0]
    assert regs[reg.IOCON] == 0x40 | 0x04
    assert chip.output_level(15) is True and chip.output_level(7) is False
    assert int_pin.state is True
    chip.set_input(3, False)
    assert int_pin.state is False                 # interrupt on change, open drain low
    snap = drv.read_all()
    assert drv.configured(snap)
    assert snap.intf == 1 << 3 and not (snap.intcap >> 3 & 1)
    assert int_pin.state is True


@pytest.mark.parametrize("pin", [7, 15])
def test_gpa7_gpb7_cannot_be_inputs(pin):
    bus, _ = make()
    drv = Mcp23017(bus, 0x20)
    with pytest.raises(ValueError, match="must be outputs"):
        drv.configure(1 << pin)


def test_brownout_is_seen_as_lost_configuration():
    bus, chip = make()
    drv = Mcp23017(bus, 0x20)
    drv.configure(0x00FF & ~0x80)
    assert drv.configured(drv.read_all())
    chip.brownout()
    assert not drv.configured(drv.read_all())


def test_transient_errors_are_retried_with_growing_backoff():
    bus, chip = make()
    sleeps = []
    drv = Mcp23017(bus, 0x20, attempts=5, backoff_s=0.001, sleep=sleeps.append)
    # 11 is EAGAIN: the Pi 5's I2C driver lost arbitration
    fails = iter([OSError(121, "x"), OSError(5, "x"), OSError(110, "x"), OSError(11, "x")])
    real = chip.i2c_read

    def flaky(register, length):
        e = next(fails, None)
        if e:
            raise e
        return real(register, length)
    chip.i2c_read = flaky
    assert drv.read_all().gpio == 0
    assert sleeps == [0.001, 0.002, 0.004, 0.008]
    assert drv.retries == 4


def test_device_that_stays_absent_raises_clear_error():
    bus, chip = make()
    chip.absent = True
    sleeps = []
    drv = Mcp23017(bus, 0x20, attempts=3, sleep=sleeps.append)
    with pytest.raises(Mcp23017Error,
                       match=r"MCP23017 0x20: no answer after 3 attempts \(errno 121\)"):
        drv.read_all()
    assert len(sleeps) == 2


def test_other_errnos_are_not_retried():
    bus, chip = make(error_rate=1.0, errnos=(22,))
    sleeps = []
    drv = Mcp23017(bus, 0x20, sleep=sleeps.append)
    with pytest.raises(Mcp23017Error, match="bus error"):
        drv.read_all()
    assert sleeps == []
