"""The ``[hardware]`` table. (Interim: the hardware issue replaces this with the
full schema; the signature of :func:`parse_hardware` stays.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HardwareConfig:
    backend: str = "gpio"


def parse_hardware(table: Mapping[str, Any], tiles: int, problems: list[str]) -> HardwareConfig:
    """Check the table, append one line per problem to ``problems``, return the config."""
    backend = table.get("backend", "gpio")
    if backend not in ("gpio", "mcp23017"):
        problems.append(f"[hardware] backend: {backend!r} is not one of gpio, mcp23017")
        backend = "gpio"
    return HardwareConfig(backend=backend)
