"""The whole package type-checks under ``mypy --strict`` and lints clean under
ruff, with the settings in pyproject.toml (``.ci/run`` runs both as well).

A type error or a lint finding anywhere in ``shutbox_hw`` fails these tests.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e '.[test]')")
def test_mypy_finds_no_errors():
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "shutbox_hw"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None,
                    reason="ruff is not installed (pip install -e '.[test]')")
def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "shutbox_hw",
                           "tests"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
