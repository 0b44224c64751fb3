"""The lifecycle every port and adapter shares, after gpiozero's devices.

gpiozero's ``Device.close`` may be called any number of times, ``closed``
says whether it was, a device is a context manager, and using a closed one
raises ``DeviceClosed`` rather than failing somewhere deep in a pin library.
The box's parts (pins, lamps, switches, lights, the display, the dice, the
box itself, the daemon's store) do the same through :class:`Closable`: the
box is closed once on the way down, but a power cut in the simulator, a
failed start or a test may close a part twice, and a part used after its
pins were given back must say so in one line.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self


class PartClosed(RuntimeError):
    """A part of the box was used after :meth:`Closable.close` (a bug: the one
    line names the part)."""


class Closable:
    """Idempotent :meth:`close`, :attr:`closed`, ``with`` support.

    A part overrides :meth:`_close` (called once, on the first ``close``)
    and calls :meth:`_check_open` where using it closed would be a mistake.
    """

    _closed = False

    @property
    def part_name(self) -> str:
        """How the error names the part (its class, unless it says better)."""
        return type(self).__name__

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release what the part holds; a second call does nothing."""
        if self._closed:
            return
        self._closed = True
        self._close()

    def _close(self) -> None:
        """What closing releases (once)."""

    def _check_open(self) -> None:
        if self._closed:
            raise PartClosed(f"{self.part_name} is closed (used after close())")

    def __enter__(self) -> Self:
        self._check_open()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
