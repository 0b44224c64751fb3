"""The unit's journal, followed live: entries with their time, and the box's game events."""

from __future__ import annotations

import ast
import json
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Entry:
    at: float                     # when journald received it (CLOCK_REALTIME, seconds)
    message: str
    event: dict[str, Any] | None  # the game event the line carries, if any
    as_json: bool                 # whether that event was written as JSON


def parse_event(message: str) -> tuple[dict[str, Any] | None, bool]:
    """The event dict in a daemon line ("INFO {...}"): JSON, or else a Python literal."""
    text = message.split(" ", 1)[1] if message[:1].isupper() and " " in message else message
    if not text.startswith("{"):
        return None, False
    try:
        data = json.loads(text)
        as_json = True
    except ValueError:
        try:
            data = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return None, False
        as_json = False
    if isinstance(data, dict) and "event" in data:
        return data, as_json
    return None, False


class Journal:
    """``journalctl -f`` for one unit on a thread; :meth:`wait` looks at what came since a mark."""

    def __init__(self, unit: str) -> None:
        self.entries: list[Entry] = []
        self._cond = threading.Condition()
        self._proc = subprocess.Popen(
            ["journalctl", "-f", "-n", "0", "-o", "json", "-u", unit],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            message = record.get("MESSAGE", "")
            if isinstance(message, list):
                message = bytes(message).decode(errors="replace")
            event, as_json = parse_event(message)
            stamp = int(record.get("__REALTIME_TIMESTAMP", "0")) / 1e6
            entry = Entry(stamp, message, event, as_json)
            with self._cond:
                self.entries.append(entry)
                self._cond.notify_all()

    def mark(self) -> int:
        with self._cond:
            return len(self.entries)

    def since(self, mark: int) -> list[Entry]:
        with self._cond:
            return list(self.entries[mark:])

    def wait(self, mark: int, pred: Callable[[Entry], bool], timeout: float) -> Entry | None:
        """The first entry after ``mark`` that ``pred`` accepts, or None after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        seen = mark
        with self._cond:
            while True:
                for entry in self.entries[seen:]:
                    if pred(entry):
                        return entry
                seen = len(self.entries)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def wait_event(self, mark: int, name: str, timeout: float, **fields: Any) -> Entry | None:
        return self.wait(mark, lambda e: e.event is not None and e.event.get("event") == name
                         and all(e.event.get(k) == v for k, v in fields.items()), timeout)

    def events(self, mark: int = 0) -> list[dict[str, Any]]:
        return [e.event for e in self.since(mark) if e.event is not None]

    def close(self) -> None:
        self._proc.terminate()
