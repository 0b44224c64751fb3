"""Shared fixtures: seed 001's practice round, stores, and the box installed
by systemd/install.sh into a scratch tree."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import pytest
from other_user import PublicCopy, make_public_copy

from shutbox_hw.store import Store

Throws = list[tuple[tuple[int, ...], list[int] | None]]

# seed 001's practice round: (dice, closed) per throw; None = no move
_SEVEN: Throws = [((6, 6), [12]), ((5, 6), [11]), ((4, 6), [10]), ((4, 5), [9]),
                  ((3, 5), [8]), ((3, 4), [7]), ((3, 3), [6])]


class PracticeRound(NamedTuple):
    """Both players' throws in seed 001's practice round on crafthouse-12."""
    player_a: Throws
    player_b: Throws


@pytest.fixture
def practice() -> PracticeRound:
    return PracticeRound(
        player_a=_SEVEN + [((2, 3), [5]), ((2, 2), [4]), ((1, 1), [2]), ((2,), None)],
        player_b=_SEVEN + [((3, 4), [3, 4]), ((3, 3), [1, 5]), ((1,), None)])


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[Callable[[str], Store]]:
    """Opens stores in the test's directory by file name; closes them afterwards."""
    opened: list[Store] = []

    def make(name: str = "box.db") -> Store:
        store = Store(tmp_path / name)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


CHECKOUT = Path(__file__).resolve().parent.parent
INSTALLER = CHECKOUT / "systemd" / "install.sh"
# the Python the installer builds its venv with (as on a Pi)
INSTALLER_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
# a config.txt as Raspberry Pi OS ships it: I2C commented out, sections present
SHIPPED_CONFIG_TXT = "#dtparam=i2c_arm=on\n#dtparam=spi=on\n[pi4]\narm_boost=1\n"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--long", action="store_true",
                     help="run the fault suites at full length (see tests/README.md)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that acts as another user says so (``@pytest.mark.other_user``), so that
    test_private_checkout.py finds it and runs it from a private folder."""
    unmarked = [item.nodeid for item in items if "public_copy" in getattr(
        item, "fixturenames", ()) and item.get_closest_marker("other_user") is None]
    if unmarked:
        raise pytest.UsageError("these tests use public_copy (another user) without "
                                "@pytest.mark.other_user: " + ", ".join(unmarked))


@pytest.fixture(scope="session")
def public_copy() -> Iterator[PublicCopy]:
    """The package and its dependencies where ``nobody`` can run them (tests/other_user.py)."""
    yield from make_public_copy()


@pytest.fixture(scope="session")
def long_run(request: pytest.FixtureRequest) -> bool:
    """True with ``pytest --long``: suites use their full-length figures."""
    return bool(request.config.getoption("--long"))


def run_installer(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(INSTALLER), *map(str, args)],
                          capture_output=True, text=True, timeout=600)


@dataclass
class Installed:
    root: Path             # the scratch tree
    wheels: Path           # the folder of wheels it was installed from
    first: subprocess.CompletedProcess
    second: subprocess.CompletedProcess
    edited: str            # the config as edited between the two runs


def _wheel_folder(dest: Path) -> None:
    """The project and its dependencies as wheels, made here with no network
    (tests/wheel_folder.py); the installer then runs with no index. Skips, with
    the reason, where they cannot be made."""
    from wheel_folder import make_wheel_folder
    version = subprocess.run([INSTALLER_PYTHON, "-c",
                              "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    why = make_wheel_folder(CHECKOUT, dest, version)
    if why is not None:
        pytest.skip(f"installer tests: no wheels to install from offline: {why}")


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    """The checkout installed by systemd/install.sh into a scratch tree, then
    installed again over it after the config was edited. The one venv build
    of the test run (pip takes seconds even from wheels)."""
    wheels = tmp_path_factory.mktemp("wheels")
    _wheel_folder(wheels)
    root = tmp_path_factory.mktemp("root")
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text(SHIPPED_CONFIG_TXT)
    first = run_installer("--root", root, "--wheels", wheels)
    assert first.returncode == 0, first.stderr
    config = root / "etc" / "shutbox-hw" / "shutbox.toml"
    edited = config.read_text().replace('player_names = ["Anna", "Ben"]',
                                        'player_names = ["Maud", "Ted"]') + "[hardware.dice]\n"
    assert edited != config.read_text()
    config.write_text(edited)
    second = run_installer("--root", root, "--wheels", wheels, "--skip-system-packages",
                           "--build", "mcp23017-12")
    assert second.returncode == 0, second.stderr
    return Installed(root, wheels, first, second, edited)
