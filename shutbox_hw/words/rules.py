"""A rule set in the words of the box's language: its title and the short
line under it on the idle screen. (The commands keep the rules engine's own
English: :meth:`~shutbox_hw.rules.RuleSet.summary`.)"""

from __future__ import annotations

from typing import Any

from ..base.i18n import N_, tr
from ..rules import RuleSet
from ..rules.ruleset import HOUSE_RULES, PRESET_TITLES

# the catalogue's entries for the presets' titles (rules/ruleset.py holds them)
TITLES = (N_("Klappenspiel"), N_("1-12 Race"), N_("Pub Pool"), N_("House rules"))
CLOSURE = {"any-sum": N_("any-sum"), "sum-or-dice": N_("sum-or-dice")}
MATCH = {"single-round": N_("single-round"), "elimination": N_("elimination"),
         "race": N_("race"), "pool": N_("pool")}
# a match played up to a number: each language says it its own way ("raus ab 45")
UP_TO = {"elimination": N_("elimination {threshold}"), "race": N_("race {threshold}")}


def title(rules: RuleSet) -> str:
    """The name the box shows (the preset's, or "House rules" when changed)."""
    shown = rules.shown_title
    known = shown == HOUSE_RULES or shown in PRESET_TITLES.values()
    return tr(shown) if known else shown


def summary_parts(rules: RuleSet) -> list[dict[str, Any]]:
    """:func:`summary`'s parts as data, each its catalogue's English words (``text``)
    with the numbers its ``{placeholders}`` take: a reader in another language
    (the TV page, :func:`shutbox_hw.words.record.rules_parts`) says them in its own."""
    parts: list[dict[str, Any]] = [{"text": N_("{n} tiles"), "n": rules.tiles},
                                   {"text": CLOSURE[rules.closure]}]
    if rules.multiplication:
        parts.append({"text": N_("x allowed")})
    if rules.threshold is not None and rules.match in UP_TO:
        parts.append({"text": UP_TO[rules.match], "threshold": rules.threshold})
    else:
        parts.append({"text": MATCH[rules.match]})
    return parts


def summary(rules: RuleSet) -> str:
    """What the rules are, in a line: "9 tiles, any-sum, elimination 45"."""
    return ", ".join(tr(part["text"]).format(**part) for part in summary_parts(rules))
