"""The host-side parts of the arm rehearsal (tests/vm/arm.py) that need no emulation:
how it reads pip's log, the game's expected totals, and its measurements."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

import arm  # noqa: E402

CHECKOUT = HERE.parent.parent


def test_a_wheel_pip_built_is_found_in_its_log_and_the_checkout_is_not_counted():
    log = """\
2026-12-01T20:40:01 Processing /home/pi/shutbox-hw
2026-12-01T20:40:03   Building wheel for shutbox-hw (pyproject.toml): started
2026-12-01T20:40:04   Created wheel for shutbox-hw: filename=shutbox_hw-0.1.0-py3-none-any.whl
2026-12-01T20:40:05 Building wheels for collected packages: RPi.GPIO, spidev
2026-12-01T20:40:05   Building wheel for RPi.GPIO (setup.py): started
2026-12-01T20:40:09   Running setup.py install for spidev: started
2026-12-01T20:40:09   Building wheel for RPi.GPIO (setup.py): finished with status 'done'
"""
    assert arm.built_from_source(log) == ["rpi-gpio", "spidev"]
    assert arm.built_from_source(log.split("2026-12-01T20:40:05")[0]) == []


def test_the_four_player_game_totals_come_from_the_script():
    # each turn closes 3+9, 4+8, 5+7 of 1..9: 1+2+6 = 9 left open, two rounds: 18 each
    script = (CHECKOUT / arm.GAME).read_text()
    assert arm.expected_totals(script) == {"P1": 18, "P2": 18, "P3": 18, "P4": 18}
    uneven = "start 2\nclose 9\nopen 9\nclose 1 2\nopen 1 2\nclose 8\nopen 8\n"
    assert arm.expected_totals(uneven) == {"P1": 36 + 37, "P2": 42}


def test_the_last_round_ended_gives_the_totals_and_other_lines_are_skipped():
    text = ('> press ROLL\n{"event": "round_ended", "totals": {"P1": 9}}\n{broken\n'
            '{"event": "turn_started", "player": "P1"}\n'
            '{"event": "round_ended", "totals": {"P1": 18}}\n')
    events = arm.json_events(text)
    assert [e["event"] for e in events] == ["round_ended", "turn_started", "round_ended"]
    assert arm.round_totals(events) == {"P1": 18}
    assert arm.round_totals([]) == {}


def test_a_process_is_measured_by_its_own_memory_and_cpu(tmp_path):
    """A child that touches 64 MB shows at least that as its peak; one that sleeps uses
    next to no CPU. The numbers come from /proc and the kernel's accounting, so only
    bounds that hold on any machine are asserted."""
    big = arm.Measured([sys.executable, "-c", "b = bytearray(64 << 20); import time; "
                        "[b.__setitem__(i, 1) for i in range(0, len(b), 4096)]; time.sleep(0.3)"])
    assert big.returncode == 0 and big.hwm_kb >= 64 * 1024
    small = arm.Measured(["sleep", "0.3"])
    assert small.returncode == 0 and small.hwm_kb < 64 * 1024 and small.cpu < big.cpu
    out = arm.Measured([sys.executable, "-c", "import sys; print('out'); "
                        "print('err', file=sys.stderr); sys.exit(3)"])
    assert (out.returncode, out.stdout, out.stderr) == (3, "out\n", "err\n")


def test_it_refuses_to_mount_anything_in_the_hosts_namespace(tmp_path):
    import subprocess
    out = subprocess.run([sys.executable, str(HERE / "arm.py"), "--arch", "arm64", "--root",
                          str(tmp_path), "--run", str(tmp_path / "run"), "--cache",
                          str(tmp_path / "cache"), "--src", str(CHECKOUT)],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "mount namespace of its own" in out.stderr
    assert not (tmp_path / "run").exists()
