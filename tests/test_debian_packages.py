"""systemd/debian_packages.py: which dependency the installer takes from Debian's
packages, by the project's own pins (pyproject.toml) and apt's candidate versions."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import CHECKOUT, FAKE_APT_CACHE

sys.path.insert(0, str(CHECKOUT / "systemd"))
import debian_packages as dp  # noqa: E402


def test_the_pins_are_read_from_pyproject():
    reqs = dict(dp.requirements(CHECKOUT / "pyproject.toml", ["pi", "web", "mqtt"]))
    assert reqs == {"gpiozero": ">=2.0.1", "smbus2": ">=0.4", "luma.oled": ">=3.13",
                    "Pillow": "<14", "segno": ">=1.4", "lgpio": ">=0.2", "paho-mqtt": ">=2.0,<3",
                    "starlette": ">=0.37", "uvicorn": ">=0.30,<0.60", "Babel": ">=2.10"}
    # the test extra's self-reference (shutbox-hw[mqtt,web]) is no dependency of its own
    assert "shutbox-hw" not in dict(dp.requirements(CHECKOUT / "pyproject.toml", ["test"]))


@pytest.mark.parametrize("debian, upstream", [
    ("9.4.0-1.1+deb12u1", "9.4.0"), ("1:2.0.1-0+rpt1", "2.0.1"), ("0.2.2-1~rpt1", "0.2.2"),
    ("3.5+dfsg-2", "3.5"), ("0.4.2-1", "0.4.2"), ("1.6.2", "1.6.2")])
def test_the_upstream_version_of_a_debian_version(debian, upstream):
    assert dp.upstream(debian) == upstream


@pytest.mark.parametrize("spec, version, ok", [
    ("<14", "9.4.0", True), ("<14", "14.0", False), ("<14", "14.0.1", False),
    (">=3.13", "3.10.0", False), (">=3.13", "3.13", True), (">=3.13", "3.13.0", True),
    (">=2.0.1", "2.0", False), (">=2.0.1", "2.0.1", True), (">=0.4", "0.4.2", True),
    (">=0.37,<1", "0.40", True), (">=0.37,<1", "1.0", False), ("", "1.6.2", True),
    ("==1.6", "1.6.0", True), ("!=1.6", "1.6.0", False), ("~=2.0", "2.9", True),
    ("~=2.0", "3.0", False), ("~=2.0.1", "2.1", False), (">0.17", "0.17.6", True),
    ("<=0.17", "0.17.6", False), ("==1.*", "1.2", False), (">=1", "unknown", False)])
def test_a_version_against_a_pin(spec, version, ok):
    assert dp.accepts(spec, version) is ok


def test_each_dependency_is_debians_or_pypis(monkeypatch):
    bookworm = ("python3-pil=9.4.0-1.1+deb12u1 python3-luma.oled=3.10.0-1 python3-smbus2=0.4.2-1"
                " python3-segno=1.4.1-1")
    out = subprocess.run([sys.executable, str(CHECKOUT / "systemd/debian_packages.py"),
                          str(CHECKOUT / "pyproject.toml"), "pi"],
                         capture_output=True, text=True, check=True,
                         env={"SHUTBOX_APT_CACHE": str(FAKE_APT_CACHE), "FAKE_APT": bookworm})
    rows = {line.split("\t")[2]: line.split("\t") for line in out.stdout.splitlines()}
    assert rows["Pillow"] == ["debian", "python3-pil", "Pillow", "9.4.0", "Pillow<14"]
    assert rows["smbus2"][0] == "debian"
    assert rows["segno"] == ["debian", "python3-segno", "segno", "1.4.1", "segno>=1.4"]
    assert rows["luma.oled"] == ["pypi", "python3-luma.oled", "luma.oled", "3.10.0",
                                 "luma.oled>=3.13"]
    assert rows["lgpio"] == ["pypi", "python3-lgpio", "lgpio", "-", "lgpio>=0.2"]
    assert rows["gpiozero"][:2] == ["pypi", "python3-gpiozero"]


def test_no_apt_at_all_means_pypi_for_everything():
    out = subprocess.run([sys.executable, str(CHECKOUT / "systemd/debian_packages.py"),
                          str(CHECKOUT / "pyproject.toml"), ""],
                         capture_output=True, text=True, check=True,
                         env={"SHUTBOX_APT_CACHE": "/nonexistent/apt-cache"})
    assert {line.split("\t")[0] for line in out.stdout.splitlines()} == {"pypi"}
