"""The suite passes from a checkout that no other user can enter.

CI clones into a fresh folder that may be private (root's home, a ``mktemp -d``: mode 0700).
The tests that act as another user (``nobody``, through setpriv) once ran the venv's files
from the checkout and failed there. This runs exactly those tests from a copy of the
checkout in a 0700 folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from other_user import CHECKOUT

# every test that runs something as another user
AS_ANOTHER_USER = [
    "tests/test_badinput.py::test_history_reads_a_database_in_a_read_only_directory",
    "tests/test_badinput.py::test_history_says_a_read_only_copy_with_a_wal_file_must_be_copied",
    "tests/test_badinput.py::test_history_says_an_unreadable_database_is_unreadable",
    "tests/test_install.py::test_without_root_it_refuses",
    "tests/test_run.py::test_lgpio_in_a_read_only_directory_is_one_line_naming_it",
    "tests/test_run.py::test_lgpio_starts_from_a_read_only_directory_with_lg_wd",
    "tests/test_run.py::test_lgpio_starts_from_a_writable_working_directory",
    "tests/test_run.py::test_a_pin_held_by_another_program_is_one_line",
]
PARTS = ("pyproject.toml", "setup.py", "shutbox_hw", "firmware", "systemd", "hardware", "tests")


def test_tests_as_another_user_pass_from_a_private_checkout(tmp_path):
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
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--rootdir", str(checkout), *AS_ANOTHER_USER], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=600)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    # each one ran from the copy (not skipped: a skip here would hide the failure)
    assert re.search(rf"\b{len(AS_ANOTHER_USER)} passed\b", summary), done.stdout[-3000:]
