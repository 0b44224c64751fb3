"""Rule sets: immutable values built from a preset plus overrides.

The three seed documents disagree on purpose; every point where they differ
is one key here. The same keys are used in the config's ``[rules]`` table
and in ``--set KEY=VALUE`` on the command line.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

CLOSURES = ("any-sum", "sum-or-dice")
ONE_DIE = ("never", "when-high-shut", "below-6")
SCORINGS = ("sum", "digits")
SHUT_THE_BOX = ("score-zero", "instant-win", "double-others")
MATCHES = ("single-round", "elimination", "race", "pool")
MIN_TILES, MAX_TILES = 9, 12
RACE_DEFAULT_THRESHOLD = 100


class RulesError(ValueError):
    """A rule key, value or combination that the engine cannot play (the
    command line reports it like any user's mistake: one line, exit 2)."""


@dataclass(frozen=True)
class RuleSet:
    """One complete, validated rule set. Build it with :func:`build_rules`."""

    preset: str
    tiles: int
    closure: str
    multiplication: bool
    one_die: str
    scoring: str
    shut_the_box: str
    match: str
    threshold: int | None
    stake: int

    def as_dict(self) -> dict[str, Any]:
        """The rule set as plain values (for JSON and the database)."""
        return dataclasses.asdict(self)

    @property
    def title(self) -> str:
        """The preset's name for the attract screen (fits 128 pixels in big type)."""
        return preset_title(self.preset)

    def changed_keys(self) -> tuple[str, ...]:
        """The keys whose value is not its preset's (every key: a preset this
        version does not know, e.g. in a game restored from an older box)."""
        return _changed_keys(self)

    def uses(self, key: str) -> bool:
        """Whether ``key`` plays any part under this match: the threshold only in a
        race or an elimination, the stake only in a pool (a value set for an unused
        key changes no rule, so the preset's name stays true)."""
        if key == "threshold":
            return self.match in ("race", "elimination")
        if key == "stake":
            return self.match == "pool"
        return True

    @property
    def shown_title(self) -> str:
        """The name the box shows: the preset's, unless overrides changed its
        rules; then no preset's name would be true, and it is "House rules"."""
        return HOUSE_RULES if self.changed_keys() else self.title

    def named(self) -> str:
        """How the commands name the rule set, matching the box: its shown
        title with the preset's name (and what differs from it)."""
        changed = self.changed_keys()
        if not changed:
            return f"{self.title} (preset {self.preset})"
        return f"{HOUSE_RULES} (preset {self.preset}; changed: {', '.join(changed)})"

    def summary(self) -> str:
        """A short human line, e.g. for the attract screen."""
        parts = [f"{self.tiles} tiles", self.closure]
        if self.multiplication:
            parts.append("x allowed")
        parts.append(f"{self.match}")
        if self.threshold is not None and self.match in ("elimination", "race"):
            parts[-1] += f" {self.threshold}"
        return ", ".join(parts)


@functools.lru_cache(maxsize=64)
def _changed_keys(rules: RuleSet) -> tuple[str, ...]:
    """(Asked at every step: the screen's title, the mirror's, the live summary's. Equal
    rule sets, equal answers: the cache is keyed by the rule set's values.)"""
    if rules.preset not in PRESETS:
        return KEYS
    plain = build_rules(rules.preset)
    return tuple(k for k in KEYS if getattr(rules, k) != getattr(plain, k)
                 and rules.uses(k))


# Each preset follows one seed document. threshold=None means "the default
# for the match format" (elimination: the sum of all tiles, race: 100).
PRESETS: dict[str, dict[str, Any]] = {
    # seed 000 (German): any split of the total, one die once 7-9 are shut,
    # penalties add up until all but one player reach 45.
    "klappenspiel": dict(
        tiles=9, closure="any-sum", multiplication=False, one_die="when-high-shut",
        scoring="sum", shut_the_box="score-zero", match="elimination",
        threshold=None, stake=1,
    ),
    # seed 001 (English, Creative Crafthouse 1-12): one die below a total of
    # 6, shutting doubles everyone else, race to 100.
    "crafthouse-12": dict(
        tiles=12, closure="any-sum", multiplication=False, one_die="below-6",
        scoring="sum", shut_the_box="double-others", match="race",
        threshold=None, stake=1,
    ),
    # seed 002 (Italian, English pubs): a pool per round, shutting wins at once.
    "pub": dict(
        tiles=9, closure="any-sum", multiplication=False, one_die="when-high-shut",
        scoring="sum", shut_the_box="instant-win", match="pool",
        threshold=None, stake=1,
    ),
}

DEFAULT_PRESET = "klappenspiel"
PRESET_TITLES = {"klappenspiel": "Klappenspiel", "crafthouse-12": "1-12 Race",
                 "pub": "Pub Pool"}

HOUSE_RULES = "House rules"


def preset_title(preset: str) -> str:
    """A preset's title by its key ("pub": "Pub Pool"); a key this version does not
    know stands as it is (a record from a newer box, a damaged one)."""
    return PRESET_TITLES.get(preset, preset)

_CHOICES: dict[str, tuple[str, ...]] = {
    "closure": CLOSURES,
    "one_die": ONE_DIE,
    "scoring": SCORINGS,
    "shut_the_box": SHUT_THE_BOX,
    "match": MATCHES,
}
_BOOLS = ("multiplication",)
_INTS = ("tiles", "threshold", "stake")
LIMITS = {"threshold": 1_000_000_000, "stake": 10_000}
"""The largest threshold (digit scoring's turns reach 987654321) and stake (coins a
round: a pot of 8 players' stakes still fits the OLED's pot); more is a typing mistake."""
KEYS = ("tiles", "closure", "multiplication", "one_die", "scoring",
        "shut_the_box", "match", "threshold", "stake")


def _coerce(key: str, value: Any) -> Any:
    """Turn a TOML value or a ``--set`` string into the key's type."""
    if key in _BOOLS:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise RulesError(f"rules key {key!r}: expected true or false, got {value!r}")
    if key in _INTS:
        if isinstance(value, bool):
            raise RulesError(f"rules key {key!r}: expected a whole number, got {value!r}")
        if isinstance(value, int):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                raise RulesError(
                    f"rules key {key!r}: expected a whole number, got {value!r}") from None
        if key == "tiles" and not MIN_TILES <= number <= MAX_TILES:
            raise RulesError(
                f"rules key 'tiles': must be {MIN_TILES}..{MAX_TILES}, got {number}")
        if key in LIMITS and not 0 < number <= LIMITS[key]:
            raise RulesError(f"rules key {key!r}: must be 1..{LIMITS[key]}, got {number}")
        return number
    choices = _CHOICES[key]
    if not isinstance(value, str) or value not in choices:
        raise RulesError(
            f"rules key {key!r}: {value!r} is not one of {', '.join(choices)}")
    return value


def describe_key(key: str) -> str:
    """What a good value of a rule key is, in words (the config reference's column;
    :func:`_coerce` is the check itself)."""
    if key in _BOOLS:
        return "true or false"
    if key == "tiles":
        return f"a whole number {MIN_TILES}..{MAX_TILES}"
    if key in LIMITS:
        return f"a whole number 1..{LIMITS[key]}"
    return "one of " + ", ".join(f'"{choice}"' for choice in _CHOICES[key])


def build_rules(preset: str = DEFAULT_PRESET,
                overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The rule set of ``preset`` with ``overrides`` applied and checked."""
    if preset not in PRESETS:
        raise RulesError(
            f"unknown rules preset {preset!r} (presets: {', '.join(PRESETS)})")
    values = dict(PRESETS[preset])
    for key, raw in (overrides or {}).items():
        if key not in KEYS:
            raise RulesError(f"unknown rules key {key!r} (keys: {', '.join(KEYS)})")
        values[key] = _coerce(key, raw)
    if values["multiplication"] and values["closure"] != "any-sum":
        raise RulesError(
            "rules key 'multiplication': only works with closure = \"any-sum\"")
    if values["threshold"] is None:
        if values["match"] == "elimination":
            values["threshold"] = values["tiles"] * (values["tiles"] + 1) // 2
        elif values["match"] == "race":
            values["threshold"] = RACE_DEFAULT_THRESHOLD
    return RuleSet(preset=preset, **values)


def rules_from_dict(values: Mapping[str, Any]) -> RuleSet:
    """The rule set that :meth:`RuleSet.as_dict` wrote (e.g. back from the database)."""
    overrides = {k: v for k, v in values.items() if k in KEYS and v is not None}
    return build_rules(values.get("preset", DEFAULT_PRESET), overrides)


def parse_set_options(pairs: list[str] | None) -> dict[str, str]:
    """``["tiles=12", "match=race"]`` -> ``{"tiles": "12", "match": "race"}``.

    Each key and value is checked here, so that a mistake is named as what was
    typed (``--set treshold=30``), never as if it came from the config's ``[rules]``."""
    overrides: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise RulesError(f"--set {pair!r}: expected KEY=VALUE")
        if key not in KEYS:
            raise RulesError(f"--set {pair!r}: unknown rules key {key!r} "
                             f"(keys: {', '.join(KEYS)})")
        try:
            _coerce(key, value.strip())
        except RulesError as error:
            raise RulesError(f"--set {pair!r}: {error}") from None
        overrides[key] = value.strip()
    return overrides


def rules_from_table(table: Mapping[str, Any],
                     overrides: Mapping[str, Any] | None = None,
                     preset: str | None = None) -> RuleSet:
    """The rule set of a config ``[rules]`` table, then command-line overrides.

    ``preset`` (from ``--rules``) replaces the table's preset; the table's
    other keys still apply unless overridden.
    """
    values = dict(table)
    chosen = preset or values.pop("preset", DEFAULT_PRESET)
    values.pop("preset", None)
    if not isinstance(chosen, str):
        raise RulesError(f"rules key 'preset': expected a name, got {chosen!r}")
    values.update(overrides or {})
    return build_rules(chosen, values)
