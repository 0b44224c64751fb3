"""The package list lives here only because pyproject.toml cannot both find
packages and map one from elsewhere: ``shutbox_hw.dice_firmware`` is the dice
module's firmware directory (firmware/dice/), so the host driver and the
simulated module import the very files that are flashed onto the Pico."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["shutbox_hw", "shutbox_hw.*"]), "shutbox_hw.dice_firmware"],
      package_dir={"shutbox_hw.dice_firmware": "firmware/dice"})
