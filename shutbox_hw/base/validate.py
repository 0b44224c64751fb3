"""One way to check a config table: its keys declared with a rule each, defaults from a dataclass.

Every table of the config file (``[rules]`` aside, which the rules engine
checks) is declared as a :class:`Spec`: the dataclass holding the values, and
for each key a rule that names what a good value is. :meth:`Spec.read`
reports every problem as one line ``[table] key: message`` and falls back to
the dataclass's default, so a default is written once, on the dataclass, and
a builder sees all problems of a file in one go. Checks that tie two keys
together stay in code next to the spec, after the read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Address", "Choice", "Flag", "Integer", "Problems", "Rule", "Spec", "Subtable",
           "Checked", "FilePath", "first_line", "shown"]


def shown(value: Any) -> str:
    """A TOML value as a person typed it, with its kind for a type mistake."""
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, str):
        return f"{value!r} (text)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def first_line(doc: str | None) -> str:
    """A docstring's first line, without its full stop (empty without one)."""
    return (doc or "").strip().split("\n", 1)[0].rstrip(".")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Problems:
    """Where one table's problems go, each as ``[table] key: message``."""

    def __init__(self, lines: list[str], table: str, prefix: str = "") -> None:
        self.lines = lines
        self.table = table
        self.prefix = prefix

    def add(self, key: str, message: str) -> None:
        self.lines.append(f"[{self.table}] {self.prefix}{key}: {message}")

    def under(self, key: str) -> Problems:
        """The problems of a nested table, its keys shown as ``key.name``."""
        return Problems(self.lines, self.table, f"{self.prefix}{key}.")


class Rule:
    """What a good value for one key is; the base rule takes any value."""

    def problem(self, value: Any) -> str | None:
        """The message for a bad value, or None."""
        return None

    def problems(self, value: Any) -> list[str]:
        """Every message for a bad value (a list of names may have several)."""
        message = self.problem(value)
        return [] if message is None else [message]

    def fallback(self, default: Any) -> Any:
        """The value used when the key is missing or bad."""
        return default

    def describe(self) -> str:
        """What a good value is, for the config reference (docs/operate/config-reference.md):
        the first line of the rule's docstring unless a rule says more."""
        words = first_line(type(self).__doc__)
        return words[:1].lower() + words[1:]


@dataclass(frozen=True)
class Integer(Rule):
    """A whole number ``low..high``; ``what`` names it in the type message."""
    low: int
    high: int
    what: str = "a number"
    # one message for any bad value, with {value!r}, {low}, {high}
    message: str | None = None

    def problem(self, value: Any) -> str | None:
        if _is_int(value) and self.low <= value <= self.high:
            return None
        if self.message is not None:
            return self.message.format(value=value, low=self.low, high=self.high)
        if not _is_int(value):
            return f"expected {self.what} {self.low}..{self.high}, got {shown(value)}"
        return f"{value} is outside {self.low}..{self.high}"

    def describe(self) -> str:
        return f"{self.what} {self.low}..{self.high}"


@dataclass(frozen=True)
class Address(Rule):
    """An I2C address in ``valid``; ``chip`` says why the range is what it is."""
    valid: range
    chip: str = ""

    def problem(self, value: Any) -> str | None:
        if not _is_int(value):
            return f"expected an I2C address such as 0x20, got {shown(value)}"
        if value not in self.valid:
            return (f"address 0x{value:02X} is outside "
                    f"0x{self.valid[0]:02X}..0x{self.valid[-1]:02X}{self.chip}")
        return None

    def describe(self) -> str:
        return f"an I2C address 0x{self.valid[0]:02X}..0x{self.valid[-1]:02X}{self.chip}"


@dataclass(frozen=True)
class Flag(Rule):
    """``true`` or ``false``."""

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, bool) else f"expected true or false, got {shown(value)}"

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Choice(Rule):
    """One of a few words."""
    choices: Sequence[str]

    def problem(self, value: Any) -> str | None:
        if value in self.choices:
            return None
        quoted = repr(value) if isinstance(value, str) else shown(value)
        return f"{quoted} is not one of {', '.join(self.choices)}"

    def describe(self) -> str:
        return "one of " + ", ".join(f'"{choice}"' for choice in self.choices)


@dataclass(frozen=True)
class Subtable(Rule):
    """A nested table, read by its own spec; missing or bad, it reads as empty."""
    name: str   # as the file spells it, "hardware.display"

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, dict) else \
            f"expected a table [{self.name}], got {shown(value)}"

    def fallback(self, default: Any) -> Any:
        return {}

    def describe(self) -> str:
        return f"a table [{self.name}] (its keys below)"


class FilePath(Rule):
    """A path to a file, as text."""

    def problem(self, value: Any) -> str | None:
        if isinstance(value, str) and value.strip():
            return None
        return f"expected a file path, got {value!r}"


@dataclass(frozen=True)
class Checked(Rule):
    """A key checked by code beside the spec (it depends on other keys); ``what``
    names a good value for the config reference."""
    what: str = "checked with the table's other keys"

    def describe(self) -> str:
        return self.what

    def fallback(self, default: Any) -> Any:
        return None


@dataclass(frozen=True)
class Spec:
    """A table's keys, in the order they are listed and checked, and their dataclass."""
    table: type
    rules: Mapping[str, Rule]

    def default(self, key: str) -> Any:
        """The dataclass's default for ``key``: the one place it is written."""
        for f in dataclasses.fields(self.table):
            if f.name == key:
                if f.default is not dataclasses.MISSING:
                    return f.default
                if f.default_factory is not dataclasses.MISSING:
                    return f.default_factory()
        raise KeyError(f"{self.table.__name__} has no default for {key}")

    def read(self, table: Mapping[str, Any], problems: Problems) -> dict[str, Any]:
        """Every key checked: good values as given, the rest the default; problems added."""
        for key in table:
            if key not in self.rules:
                problems.add(key, f"unknown key (keys: {', '.join(self.rules)})")
        values: dict[str, Any] = {}
        for key, rule in self.rules.items():
            default = None if isinstance(rule, Checked) else self.default(key)
            if key in table:
                messages = rule.problems(table[key])
                if not messages:
                    values[key] = table[key]
                    continue
                for message in messages:
                    problems.add(key, message)
            values[key] = rule.fallback(default)
        return values
