"""The host-independent parts of the rehearsal: its command line and how it reads the journal."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "guest"))

from journal import parse_event  # noqa: E402


def test_rehearse_refuses_an_unknown_mode() -> None:
    out = subprocess.run([str(HERE / "rehearse"), "slow"], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "rehearse: unknown mode 'slow' (quick, full, crash, storage or arm)")


def test_rehearse_help_names_every_mode() -> None:
    out = subprocess.run([str(HERE / "rehearse"), "--help"], capture_output=True, text=True)
    assert out.returncode == 0
    assert all(f"  {mode} " in out.stdout for mode in ("quick", "full", "crash", "storage", "arm"))


def test_event_lines_as_json_and_as_python_dicts() -> None:
    assert parse_event('INFO {"event": "rolled", "dice": null}') == (
        {"event": "rolled", "dice": None}, True)
    assert parse_event("INFO {'event': 'rolled', 'dice': None}") == (
        {"event": "rolled", "dice": None}, False)


def test_other_journal_lines_are_no_events() -> None:
    assert parse_event("INFO shutbox-hw running: 9 flaps") == (None, False)
    assert parse_event("WARNING display: [Errno 95] Operation not supported") == (None, False)
    assert parse_event("INFO {'no': 'event key'}") == (None, False)
    assert parse_event("INFO {broken") == (None, False)
