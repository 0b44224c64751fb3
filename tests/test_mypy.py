"""The whole package type-checks clean, with the settings in pyproject.toml.

Strict for the pure layers (see ``[tool.mypy]``), clean everywhere else: a
type error anywhere in ``shutbox_hw`` fails this test.
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
    done = subprocess.run([sys.executable, "-m", "mypy", "shutbox_hw"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout
