"""Shared fixtures: seed 001's practice round, stores, and the box installed
by systemd/install.sh into a scratch tree."""

from __future__ import annotations

import fcntl
import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import bytecode_cache  # noqa: F401  (first, for what it does on import: its docstring)
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


# the parts a developer can leave out or run alone (pytest -m "not slow", -m broker, ...;
# docs/develop/testing-speed.md): a test that uses one of these fixtures is marked for it
MARK_BY_FIXTURE = {"broker": "broker", "consumer": "broker", "browser": "browser",
                   "chromium": "browser",
                   "installed": "install", "pico": "micropython"}
# ... and every test in these files is (each file is about that part as a whole)
MARK_BY_FILE = {"test_mqtt.py": "broker", "test_web_browser.py": "browser",
                "test_install.py": "install", "test_upgrade.py": "install",
                "test_web_unit.py": "install", "test_dice_micropython.py": "micropython",
                "test_dice_package.py": "install", "test_dice_in_the_loop.py": "micropython"}
# these parts start a process or a server each time: slow, whatever else they are
SLOW_PARTS = {"browser", "broker", "install", "micropython", "other_user"}
# and these, by what the baseline's --durations showed (docs/develop/testing-speed.md)
SLOW_FILES = {"test_private_checkout.py", "test_pub_night.py", "test_pub_year.py",
              "test_power_cuts.py", "test_sigkill.py", "test_web_stays_up.py",
              "test_languages_fit.py", "test_storage_faults.py", "test_sim_suites.py"}
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that acts as another user says so (``@pytest.mark.other_user``), so that
    test_private_checkout.py finds it and runs it from a private folder. The parts' markers
    are added here (above)."""
    unmarked = [item.nodeid for item in items if "public_copy" in getattr(
        item, "fixturenames", ()) and item.get_closest_marker("other_user") is None]
    if unmarked:
        raise pytest.UsageError("these tests use public_copy (another user) without "
                                "@pytest.mark.other_user: " + ", ".join(unmarked))
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        parts = {MARK_BY_FIXTURE[f] for f in fixtures if f in MARK_BY_FIXTURE}
        parts |= {MARK_BY_FILE[item.path.name]} if item.path.name in MARK_BY_FILE else set()
        for part in sorted(parts):
            item.add_marker(part)
        if item.path.name in SLOW_FILES or any(item.get_closest_marker(p) for p in SLOW_PARTS):
            item.add_marker("slow")


class _SlowFirst:
    """Under xdist (--dist loadfile: a file is one worker's), the files with slow tests are
    handed out first: one started last would keep its worker busy long after the other had
    finished. Last of the collection's hooks (after -m and pytest's own reordering); the
    order is otherwise kept, and every worker sorts alike."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items.sort(key=_hand_out_order)


# the files that take a worker longest (tens of seconds each: .ci/run's 25 slowest), handed
# out first in this order, then the other files with slow tests, then the rest
LONGEST_FIRST = ("test_league_faults.py", "test_pub_night.py", "test_pub_year.py",
                 "test_catalogue.py", "test_private_checkout.py", "test_league_standings.py",
                 "test_install.py", "test_web_stays_up.py", "test_web_guests.py")


def _hand_out_order(item: pytest.Item) -> tuple[int, bool]:
    file = item.nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    rank = LONGEST_FIRST.index(file) if file in LONGEST_FIRST else len(LONGEST_FIRST)
    return rank, item.get_closest_marker("slow") is None


# files whose tests share what one process computed and cached (functools.cache): under
# --dist loadfile a file is one worker's; these go to one worker together, or each worker
# would compute it again (the language sweep: 40 s of CPU in a whole run)
SAME_WORKER = {"test_catalogue.py": "the language sweep",
               "test_languages_fit.py": "the language sweep"}


@pytest.hookimpl(optionalhook=True)     # pytest-xdist's hook: absent without it
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per core and one more. A third of the suite's time on
    two cores is spent waiting (a server's timeout, a broker's reconnect, a browser's
    page, PostgreSQL's start), and a worker that waits leaves its core to the others.
    ``SHUTBOX_TEST_WORKERS`` sets the number where a machine wants another."""
    wanted = os.environ.get("SHUTBOX_TEST_WORKERS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(optionalhook=True)     # pytest-xdist's hook: absent without it
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadfile, but the files of SAME_WORKER are one unit of work."""
    if config.getoption("dist", None) != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class _LoadFileTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            file = super()._split_scope(nodeid)
            return SAME_WORKER.get(file.rsplit("/", 1)[-1], file)

    return _LoadFileTogether(config, log)


@pytest.hookimpl(tryfirst=True)    # before pytest's tmp_path reads the folder
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        config.pluginmanager.register(_SlowFirst(), "shutbox-slow-first")
        # a worker's tmp_path as short as one process's, near enough: RUN/0/test_x0, not
        # RUN/popen-gw0/test_x0 (messages name a path whole up to errors.PATH_LIMIT
        # characters, and the tests that read them expect the whole path)
        given = Path(config.option.basetemp or "")
        if given.name.startswith("popen-gw"):
            config.option.basetemp = str(given.parent / given.name[len("popen-gw"):])


@pytest.fixture(scope="session")
def public_copy() -> Iterator[PublicCopy]:
    """The package and its dependencies where ``nobody`` can run them (tests/other_user.py)."""
    yield from make_public_copy()


@pytest.fixture(scope="session")
def long_run(request: pytest.FixtureRequest) -> bool:
    """True with ``pytest --long``: suites use their full-length figures."""
    return bool(request.config.getoption("--long"))


# apt-cache for the installer's choice of Debian packages: a stand-in, so that what it
# would install does not depend on this machine's archive (tests/fake_apt_cache)
FAKE_APT_CACHE = Path(__file__).resolve().parent / "fake_apt_cache" / "apt-cache"


def run_installer(*args: str | Path, apt: str | None = None) -> subprocess.CompletedProcess:
    """install.sh with ARGS; APT: the archive's candidates ("pkg=version ..."), by
    default a Raspberry Pi OS Bookworm's."""
    env = {**os.environ, "SHUTBOX_APT_CACHE": str(FAKE_APT_CACHE)}
    if apt is not None:
        env["FAKE_APT"] = apt
    return subprocess.run(["bash", str(INSTALLER), *map(str, args)],
                          capture_output=True, text=True, timeout=600, env=env)


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


def _build_installed(tmp_path_factory) -> Installed:
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


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    """The checkout installed by systemd/install.sh into a scratch tree, then
    installed again over it after the config was edited. The one venv build
    of the test run (pip takes seconds even from wheels): under xdist the first
    worker to need it builds it, under a lock, and the others read what it made."""
    run = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        run = run.parent            # the run's folder, above each worker's own
    with open(run / "installed.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = run / "installed.pickle"
        if made.exists():
            return pickle.loads(made.read_bytes())
        tree = _build_installed(tmp_path_factory)
        made.write_bytes(pickle.dumps(tree))
        return tree


@pytest.fixture(autouse=True)
def box_speaks_english():
    """The box's language is the process's (shutbox_hw.base.i18n): a test that
    switches it (a daemon configured in German) leaves English behind."""
    from shutbox_hw.base import i18n
    yield
    i18n.set_language(i18n.DEFAULT)


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One headless Chromium for a worker's browser tests, quit after its last; each
    test takes a fresh tab of it as ``browser`` (tests/test_web_browser.py: cookies
    cleared, the origin's storage cleared and the window's size put back after it). A
    start and quit is 2 to 4 s of CPU (its zygote, GPU and network processes); one per
    module was six of them in a run."""
    from test_web_browser import start_chromium
    driver = start_chromium(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()


@pytest.fixture
def broker(tmp_path: Path):
    """A real Mosquitto on a free loopback port (tests/mqtt_broker.py), killed after."""
    from mqtt_broker import Broker, need_broker
    need_broker()
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.kill()


@pytest.fixture
def consumer(broker):
    """A subscriber to everything on ``broker`` that keeps every message."""
    from mqtt_broker import Consumer
    c = Consumer(broker)
    yield c
    c.close()
