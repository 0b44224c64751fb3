"""The firmware's logic ships inside the installed package (not only in a checkout)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]


def test_the_wheel_carries_the_firmware_logic_as_shutbox_hw_dice_firmware(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "-q", "-w", str(tmp_path), str(CHECKOUT)],
                           capture_output=True, text=True, timeout=300)
    if built.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {built.stderr.strip()[-200:]}")
    wheel, = tmp_path.glob("shutbox_hw-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for module in ("__init__", "dice_regs", "dice_core", "dice_faces", "dice_anim",
                   "dice_debounce", "dice_config"):
        assert f"shutbox_hw/dice_firmware/{module}.py" in names
    # installed on its own (-S: not even the editable install), the simulated module runs
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("from shutbox_hw.hal.simulated.dice_module import SimDiceModule, FIRMWARE_DIR;"
            "from shutbox_hw.hal.dice_module import DiceModule;"
            "from shutbox_hw.hal.simulated import SimBus;"
            "bus = SimBus(); sim = SimDiceModule(); bus.attach(0x42, sim);"
            "drv = DiceModule(bus, sleep=lambda s: None); assert drv.find();"
            "sim.next_faces(3, 5); drv.request_roll(2); sim.settle();"
            "print(drv.poll().faces, FIRMWARE_DIR)")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path, env={"PYTHONPATH": str(site)})
    assert out.returncode == 0, out.stderr
    faces, where = out.stdout.split(") ")
    assert faces == "(3, 5" and where.strip().startswith(str(site))
