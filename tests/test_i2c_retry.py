"""The one retry for transient I2C errors, and the three drivers that use it."""

import errno

import pytest
from luma.core.error import DeviceNotFoundError

from shutbox_hw.hal.adapters.dice_module import DiceModule, DiceModuleMissing
from shutbox_hw.hal.adapters.luma_panel import no_answer, transient_panel_error
from shutbox_hw.hal.adapters.mcp23017 import Mcp23017, Mcp23017Error
from shutbox_hw.hal.contracts.i2c_retry import TRANSIENT_ERRNOS, I2cRetry, transient_errno


class Flaky:
    """An operation that fails with ``errors`` in turn, then returns ``value``."""

    def __init__(self, *errors: BaseException, value: object = "done") -> None:
        self.errors = list(errors)
        self.value = value
        self.calls = 0

    def __call__(self) -> object:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return self.value


def oserror(code: int) -> OSError:
    return OSError(code, "x")


def test_the_transient_errnos_are_the_kernels_numbers_for_the_box_adapters():
    # Linux asm-generic numbering: EIO 5, EAGAIN 11, ETIMEDOUT 110, EREMOTEIO 121
    assert TRANSIENT_ERRNOS == {121, 5, 110, 11}
    assert not transient_errno(oserror(errno.ENXIO))     # i2c-gpio: nothing at the address
    assert not transient_errno(ValueError("x"))


def test_a_success_first_time_never_sleeps():
    sleeps: list[float] = []
    retry = I2cRetry(4, sleep=sleeps.append)
    op = Flaky()
    assert retry.run(op) == "done"
    assert op.calls == 1 and sleeps == [] and retry.retries == 0


@pytest.mark.parametrize("code", sorted(TRANSIENT_ERRNOS))
def test_each_transient_errno_is_tried_again_with_doubling_pauses(code):
    sleeps: list[float] = []
    heard: list[BaseException] = []
    retry = I2cRetry(4, 0.002, sleep=sleeps.append)
    op = Flaky(oserror(code), oserror(code), oserror(code))
    assert retry.run(op, on_retry=heard.append) == "done"
    assert op.calls == 4 and sleeps == [0.002, 0.004, 0.008]
    assert retry.retries == 3 and [e.errno for e in heard] == [code] * 3


def test_the_last_error_is_raised_unchanged_when_the_tries_run_out():
    sleeps: list[float] = []
    retry = I2cRetry(3, sleep=sleeps.append)
    last = oserror(errno.EAGAIN)
    op = Flaky(oserror(errno.EREMOTEIO), oserror(errno.EIO), last)
    with pytest.raises(OSError) as caught:
        retry.run(op)
    assert caught.value is last and op.calls == 3
    assert sleeps == [0.001, 0.002] and retry.retries == 2


@pytest.mark.parametrize("error", [oserror(errno.ENXIO), oserror(errno.EBADF),
                                   ValueError("not a bus error")])
def test_other_errors_are_raised_at_once(error):
    sleeps: list[float] = []
    retry = I2cRetry(4, sleep=sleeps.append)
    op = Flaky(error)
    with pytest.raises(type(error)) as caught:
        retry.run(op)
    assert caught.value is error and op.calls == 1 and sleeps == [] and retry.retries == 0


def test_a_driver_may_say_what_else_is_transient():
    retry = I2cRetry(2, sleep=lambda s: None, transient=lambda e: isinstance(e, KeyError))
    assert retry.run(Flaky(KeyError("garbled"))) == "done"
    with pytest.raises(OSError):
        retry.run(Flaky(oserror(errno.EIO)))     # not transient for this driver


def test_one_attempt_means_no_retry_and_none_is_refused():
    op = Flaky(oserror(errno.EIO))
    with pytest.raises(OSError):
        I2cRetry(1, sleep=lambda s: None).run(op)
    assert op.calls == 1
    with pytest.raises(ValueError, match="at least 1"):
        I2cRetry(0)


def test_luma_reports_a_nak_as_device_not_found_and_that_is_transient_too():
    assert transient_panel_error(DeviceNotFoundError("I2C device not found on address: 0x3C"))
    assert transient_panel_error(oserror(errno.EREMOTEIO))
    assert not transient_panel_error(oserror(errno.ENXIO))
    assert no_answer(oserror(errno.ENXIO)) and not no_answer(oserror(errno.EBADF))


# -- the drivers: each goes through the one helper ------------------------------------

class FailingBus:
    """Every transfer fails with ``code`` until ``failures`` have been raised."""

    def __init__(self, code: int, failures: int) -> None:
        self.code, self.left = code, failures
        self.transfers = 0

    def _transfer(self) -> None:
        self.transfers += 1
        if self.left:
            self.left -= 1
            raise oserror(self.code)

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int, /) -> list[int]:
        self._transfer()
        return [0] * length

    def write_byte_data(self, i2c_addr: int, register: int, value: int, /) -> None:
        self._transfer()

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int], /) -> None:
        self._transfer()


def test_the_three_drivers_share_the_helper():
    from shutbox_hw.hal.adapters.display import OledDisplay, dummy_device
    chip = Mcp23017(FailingBus(errno.EIO, 0), 0x20)
    module = DiceModule(FailingBus(errno.EIO, 0), 0x42)
    display = OledDisplay(dummy_device)
    try:
        assert all(type(d._retry) is I2cRetry for d in (chip, module, display))
        assert display._retry.transient is transient_panel_error
    finally:
        display.close()


DRIVERS = {   # how to make each, one operation on the bus, what it raises in the end
    "expander": (lambda bus, **kw: Mcp23017(bus, 0x20, **kw), lambda d: d.read_all(),
                 Mcp23017Error),
    "dice module": (lambda bus, **kw: DiceModule(bus, 0x42, **kw), lambda d: d.set_count(2),
                    DiceModuleMissing),
}


@pytest.mark.parametrize("code", sorted(TRANSIENT_ERRNOS))
@pytest.mark.parametrize("driver", sorted(DRIVERS))
def test_each_driver_retries_then_names_the_errno(driver, code):
    make, operate, raised = DRIVERS[driver]
    sleeps: list[float] = []
    bus = FailingBus(code, 2)
    device = make(bus, attempts=3, sleep=sleeps.append)
    operate(device)
    assert device.retries == 2 and sleeps == [0.001, 0.002] and bus.transfers == 3
    bus.left = 3
    with pytest.raises(raised, match=rf"no answer after 3 attempts \(errno {code}\)"):
        operate(device)
    assert device.retries == 4 and bus.transfers == 6


def test_a_not_transient_errno_is_a_bus_error_at_once_for_both_drivers():
    chip_bus, dice_bus = FailingBus(errno.ENXIO, 1), FailingBus(errno.ENXIO, 1)
    with pytest.raises(Mcp23017Error, match="bus error"):
        Mcp23017(chip_bus, 0x20, sleep=lambda s: None).read_all()
    module = DiceModule(dice_bus, 0x42, sleep=lambda s: None)
    with pytest.raises(DiceModuleMissing, match="bus error"):
        module.set_count(1)
    assert chip_bus.transfers == dice_bus.transfers == 1
