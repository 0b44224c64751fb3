"""The words every surface uses for what the record holds: a rule set's title, a
game's state, a count with its noun. ``history``, the web pages, the live JSON
(the TV) and Home Assistant's state all take them from here, and the OLED
names the rule set with the same :attr:`~.rules.ruleset.RuleSet.shown_title`,
so that no two of them can drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .errors import UserError
from .rules.ruleset import RulesError, RuleSet, rules_from_dict


def rules_title(table: Any) -> str:
    """The rule set's name as the box's idle screen gives it: the preset's
    title ("Klappenspiel"), or "House rules" once any rule differs from it."""
    rules = _rules(table)
    if rules is None:
        preset = table.get("preset") if isinstance(table, Mapping) else None
        return str(preset) if preset else "unknown rules"
    return rules.shown_title


def rules_named(table: Any) -> str:
    """The title with the rules line where the title alone does not say them:
    "Klappenspiel", "House rules (9 tiles, any-sum, single-round)"."""
    rules = _rules(table)
    if rules is None or not rules.changed_keys():
        return rules_title(table)
    return f"{rules.shown_title} ({rules.summary()})"


def _rules(table: Any) -> RuleSet | None:
    if not isinstance(table, Mapping):
        return None
    try:
        return _rules_of(tuple(sorted(table.items())))
    except TypeError:     # a value that cannot be a rule's (a list, a table)
        return None


@lru_cache(maxsize=64)
def _rules_of(items: tuple[tuple[str, Any], ...]) -> RuleSet | None:
    """(Every page and the live summary name a few rule sets again and again.)"""
    try:
        return rules_from_dict(dict(items))
    except (RulesError, UserError, TypeError, ValueError):
        return None


def game_state(game: Mapping[str, Any]) -> str:
    """A recorded game's state in one word: playing, finished, stopped (before
    its end: nobody won) or damaged (its record cannot be read back)."""
    if game.get("damaged"):
        return "damaged"
    if game.get("abandoned"):
        return "stopped"
    return "finished" if game.get("finished", game.get("ended_at") is not None) else "playing"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 round``, ``2 rounds``, ``1 box shut``, ``3 boxes shut``."""
    if n == 1:
        return f"{n} {noun}"
    if plural is None:
        head, _, tail = noun.partition(" ")
        plural = (head + ("es" if head.endswith(("x", "s", "ch", "sh")) else "s")
                  + (" " + tail if tail else ""))
    return f"{n} {plural}"
