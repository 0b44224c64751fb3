"""The suite passes from a checkout that no other user can enter.

CI clones into a fresh folder that may be private (root's home, a ``mktemp -d``: mode 0700).
The tests that act as another user (``nobody``, through setpriv) once ran the venv's files
from the checkout and failed there. Each of them carries ``@pytest.mark.other_user``
(conftest.py refuses a test that uses ``public_copy`` without it); this finds them all by
that marker in this run's own collection and runs them (their files only, in one process)
from a copy of the checkout in a 0700 folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from other_user import CHECKOUT

PARTS = ("pyproject.toml", "setup.py", "shutbox_hw", "firmware", "systemd", "hardware", "tests")
# the tests known to switch user when this was written (three of history, the installer's,
# five of lgpio, the web's): the marker may find more, never fewer
AT_LEAST = 10
# the league's tests act as nobody only to run PostgreSQL (from /usr/lib, on a folder made
# in the temporary directory): nobody reads nothing of the checkout there, so a private
# checkout cannot change them, and they cost minutes (the league night, which the suite
# leaves to its own stage of .ci/run, among them); the league's command tests
# (test_league_cli.py, which start the same cluster) and any league test that uses
# public_copy (the league's installer) still run from the copy
KEPT = "tests/league/test_league_cli.py"


def _apart(path: Path) -> bool:
    name = path.relative_to(CHECKOUT).as_posix()
    return name.startswith("tests/league") and name != KEPT \
        and "public_copy" not in path.read_text()


def _pytest(checkout: Path, *args: str) -> subprocess.CompletedProcess:
    # one process (no xdist workers: a handful of tests), nothing of this run's workers
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = str(checkout)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "-n", "0", "--rootdir", str(checkout), *args], cwd=checkout,
                          env=env, capture_output=True, text=True, timeout=900)


def test_tests_as_another_user_pass_from_a_private_checkout(tmp_path, request):
    # the files that mark tests so (the marker is written where it applies), not the whole
    # suite: the copy collects and runs only those
    marked = [path for path in (CHECKOUT / "tests").rglob("test_*.py")
              if "mark.other_user" in path.read_text()]
    apart = {path.relative_to(CHECKOUT).as_posix() for path in marked if _apart(path)}
    files = sorted(path.relative_to(CHECKOUT).as_posix() for path in marked
                   if not _apart(path))
    assert KEPT in files and "tests/league/test_league_install.py" in files, files
    # the marked tests as this run collected them: when it collected all those files (the
    # whole suite), the copy must run exactly as many
    collected = {item.path for item in request.session.items}
    found = [item.nodeid for item in request.session.items
             if item.get_closest_marker("other_user") is not None
             and item.nodeid.split("::", 1)[0] not in apart]
    assert {nodeid.split("::", 1)[0] for nodeid in found} <= set(files), found
    whole = all(CHECKOUT / file in collected for file in files)
    private = tmp_path / "private"
    checkout = private / "shutbox-hw"
    checkout.mkdir(parents=True)
    private.chmod(0o700)
    for part in PARTS:
        source = CHECKOUT / part
        if source.is_dir():
            shutil.copytree(source, checkout / part,
                            ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
        else:
            shutil.copy2(source, checkout / part)
    done = _pytest(checkout, "-rs", "-m", "other_user", *files)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    # each one ran from the copy (not skipped: a skip here would hide the failure)
    ran = re.search(r"\b(\d+) passed\b", summary)
    assert ran is not None and int(ran[1]) >= AT_LEAST, done.stdout[-3000:]
    if whole:
        assert int(ran[1]) == len(found), (found, done.stdout[-3000:])
    assert "skipped" not in summary, done.stdout[-3000:]
