"""The firmware's logic ships inside the installed package (not only in a checkout)."""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

CHECKOUT = Path(__file__).resolve().parents[1]


def build_isolation() -> list[str]:
    """``--no-build-isolation`` where this Python has what pyproject.toml's [build-system]
    asks for and setuptools can write a wheel by itself (70.1 on: the test extra asks for
    it): pip then builds here instead of first installing setuptools into an isolated
    environment of its own (3 s of 4). Otherwise nothing: an isolated build, as before."""
    build = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["build-system"]
    needed = [Requirement(text) for text in build["requires"]]
    needed.append(Requirement("setuptools>=70.1"))
    for requirement in needed:
        try:
            have = md.version(requirement.name)
        except md.PackageNotFoundError:
            return []
        if not requirement.specifier.contains(have, prereleases=True):
            return []
    return ["--no-build-isolation"]


def test_the_wheel_carries_the_firmware_logic_as_shutbox_hw_dice_firmware(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            *build_isolation(), "-q", "-w", str(tmp_path), str(CHECKOUT)],
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
