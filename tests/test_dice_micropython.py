"""The dice firmware's own main.py under a real MicroPython (the unix port,
pyproject's test extra) on a fake rp2 board: pins, the I2C target with
rp2's semantics, the watchdog, ticks that wrap at 2**30. The Pi's side is
the real driver (shutbox_hw.hal.adapters.dice_module) through the fake bus."""

from __future__ import annotations

from micropython_rig import PicoBus, micropython, pico  # noqa: F401 - pico is a fixture

from shutbox_hw.dice_firmware import dice_anim as anim
from shutbox_hw.dice_firmware import dice_config as cfg
from shutbox_hw.dice_firmware import dice_regs as regs
from shutbox_hw.hal.adapters import dice_module as dm
from shutbox_hw.hal.simulated.pico_bridge import PicoProcess

TUMBLE = sum(anim.TUMBLE_MS)


def faces_for(*faces: int) -> list[int]:
    """Entropy bytes the firmware's sampler turns into ``faces`` (face f: byte f-1)."""
    return [f - 1 for f in faces]


def test_main_boots_serves_its_identity_and_starts_the_watchdog(pico):
    pico.run(10)
    s = pico.state()
    assert s.target and s.wdt == cfg.WATCHDOG_MS and s.boots == 1
    assert s.mem[:3] == b"SD\x02" and s.mem[regs.STATUS] == regs.STATUS_IDLE
    assert s.mem[regs.CRC] == regs.crc_registers(s.mem)
    assert s.ready == 1 and s.pull22 == 1          # released, with its own pull-up
    assert pico.printed == []


def test_a_request_tumbles_lights_the_faces_and_waits_for_the_ack(pico):
    drv = dm.DiceModule(PicoBus(pico), sleep=lambda s: None)
    assert drv.find()
    pico.queue_entropy(faces_for(3, 5))
    drv.request_roll(2)
    pico.run(TUMBLE - 20)
    assert pico.state().ready == 1 and drv.poll() is None      # still tumbling
    pico.run(30)
    assert pico.ready == 0
    throw = drv.poll()
    assert throw is not None and throw.faces == (3, 5) and throw.source == "request"
    pico.run(2)
    s = pico.state()
    assert s.ready == 1 and s.mem[regs.STATUS] == regs.STATUS_IDLE and s.mem[regs.ACK] == 0
    assert s.leds == (anim.PIPS[3], anim.PIPS[5])


def test_no_pass_of_the_loop_allocates_but_the_one_that_starts_a_throw(pico):
    pico.run(10)
    pico.zero()
    pico.run(1000)                                   # idle
    for _ in range(3):
        pico.write(regs.REQUEST, [regs.REQUEST_ROLL])
        pico.run(TUMBLE + 50)
        pico.write(regs.ACK, [pico.read(regs.SEQ, 1)[0]])
        pico.run(10)
    s = pico.state()
    assert s.passes > 1500
    assert s.alloc_passes == 3, s      # the start of each throw: its faces and its Tumble


def test_a_throw_across_the_ticks_wrap_takes_as_long_as_any_other(tmp_path):
    with PicoProcess(tmp_path, binary=micropython(), start_ms=2**30 - 300) as p:
        p.run(10)
        p.write(regs.REQUEST, [regs.REQUEST_ROLL])
        waited = 0
        while p.ready == 1 and waited < 3000:
            p.run(10)
            waited += 10
        assert TUMBLE <= waited <= TUMBLE + 20
        assert p.state().now > 2**30                # the wrap was crossed


def test_a_stalled_loop_is_reset_by_the_watchdog_and_the_pi_sees_the_reboot(pico):
    drv = dm.DiceModule(PicoBus(pico), sleep=lambda s: None)
    assert drv.find()
    drv.set_count(1)
    pico.run(10)
    before = pico.state()
    pico.hang(cfg.WATCHDOG_MS - 100)                 # under the timeout: nothing happens
    pico.run(10)
    assert pico.state().boots == 1
    pico.hang(cfg.WATCHDOG_MS + 100)
    pico.run(10)
    after = pico.state()
    assert after.boots == 2 and after.cause == 3     # machine.WDT_RESET
    assert after.mem[regs.BOOT] == regs.next_boot(before.mem[regs.BOOT])
    assert after.mem[regs.COUNT] == 2                # power-on default
    assert drv.poll(force=True) is None
    assert drv.restarts == 1 and drv.read_state().count == 1    # the count given back


def test_the_boot_counter_survives_power_cycles_on_the_flash(pico, tmp_path):
    pico.run(10)
    boots = [pico.state().mem[regs.BOOT]]
    for _ in range(3):
        pico.power_cycle()
        pico.run(10)
        boots.append(pico.state().mem[regs.BOOT])
    assert all(b == regs.next_boot(a) for a, b in zip(boots, boots[1:]))
    assert (tmp_path / cfg.BOOT_FILE).read_text() == str(boots[-1])


def test_a_button_held_with_usb_power_keeps_main_from_starting(tmp_path):
    with PicoProcess(tmp_path, binary=micropython()) as p:
        p.set_input(cfg.BUTTON_PIN, 0)
        p.set_input(cfg.VBUS_PIN, 1)
        p.power_cycle()
        p.run(3000)
        s = p.state()
        assert not s.target and s.wdt == 0 and s.pull22 == 1 and s.ready == 1
        assert p.printed == ["dice: button held with USB power: not starting (flash, then reset)"]


def test_a_button_held_on_the_box_supply_starts_and_throws_nothing_on_release(tmp_path):
    with PicoProcess(tmp_path, binary=micropython()) as p:
        p.set_input(cfg.BUTTON_PIN, 0)               # no VBUS: a player, not a flash
        p.power_cycle()
        p.run(500)
        assert p.state().target and p.state().wdt == cfg.WATCHDOG_MS
        p.set_input(cfg.BUTTON_PIN, 1)
        p.run(TUMBLE + 100)
        assert p.state().mem[regs.SEQ] == 0 and p.ready == 1
        p.set_input(cfg.BUTTON_PIN, 0)               # a press after power-up throws
        p.run(100)
        p.set_input(cfg.BUTTON_PIN, 1)
        p.run(TUMBLE + 100)
        s = p.state()
        assert s.mem[regs.SEQ] == 1 and s.mem[regs.SOURCE] == regs.SOURCE_BUTTON


def test_256_and_more_unread_results_never_acknowledge_themselves(pico):
    pico.run(10)
    seqs = []
    for throw in range(1, 261):
        pico.write(regs.REQUEST, [regs.REQUEST_ROLL])
        pico.run(TUMBLE + 10)
        regs_now = pico.read(0, 16)
        assert regs_now[regs.STATUS] == regs.STATUS_READY and pico.ready == 0, throw
        seqs.append(regs_now[regs.SEQ])
        if throw == 1:                               # the only ACK ever written
            pico.write(regs.ACK, [regs_now[regs.SEQ]])
            pico.run(4)
            assert pico.read(regs.ACK, 1) == [0] and pico.ready == 1
    assert seqs == [(n - 1) % 255 + 1 for n in range(1, 261)]


def test_a_request_while_the_dice_tumble_is_refused_as_busy_and_the_throw_comes(pico):
    drv = dm.DiceModule(PicoBus(pico), sleep=lambda s: None)
    assert drv.find()
    drv.set_count(1)
    pico.set_input(cfg.BUTTON_PIN, 0)
    pico.run(60)
    pico.set_input(cfg.BUTTON_PIN, 1)
    pico.run(60)                                     # a one-die button throw tumbles
    drv.request_roll(2)                              # the box's ROLL, two dice
    state = drv.read_state()
    assert (state.status, state.error) == (regs.STATUS_ROLLING, regs.ERROR_BUSY)
    assert pico.read(regs.COUNT, 2) == [2, 0]        # the count is set, REQUEST cleared
    pico.run(TUMBLE)
    throw = drv.poll()
    assert throw is not None and throw.source == "button" and len(throw.faces) == 1
