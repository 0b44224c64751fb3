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

from ..base.errors import UserError
from ..base.i18n import N_, ngettext, tr
from ..rules.ruleset import RulesError, RuleSet, rules_from_dict
from . import rules as rule_words


def rules_title(table: Any) -> str:
    """The rule set's name as the box's idle screen gives it: the preset's
    title ("Klappenspiel"), or "House rules" once any rule differs from it."""
    rules = _rules(table)
    if rules is None:
        preset = table.get("preset") if isinstance(table, Mapping) else None
        return str(preset) if preset else N_("unknown rules")
    return rules.shown_title


def rules_named(table: Any) -> str:
    """The title with the rules line where the title alone does not say them:
    "Klappenspiel", "House rules (9 tiles, any-sum, single-round)"."""
    rules = _rules(table)
    if rules is None or not rules.changed_keys():
        return rules_title(table)
    return f"{rules.shown_title} ({rules.summary()})"


def rules_shown(table: Any) -> str:
    """:func:`rules_named` in the language in force, for a person to read (the
    record, ``history`` and the JSON keep the English): "Hausregeln (9 Klappen, ...)"."""
    rules = _rules(table)
    if rules is None or not rules.changed_keys():
        return tr(rules_title(table))
    return f"{tr(rules.shown_title)} ({rule_words.summary(rules)})"


def rules_parts(table: Any) -> dict[str, Any] | None:
    """:func:`rules_named`'s words as data for a reader that says them in its own
    language (the TV page: the live summary is one for TVs of every language):
    ``{"title": "House rules", "line": [{"text": "{n} tiles", "n": 12}, ...]}``,
    each ``text`` the catalogue's English, or None where the title alone says it."""
    rules = _rules(table)
    if rules is None or not rules.changed_keys():
        return None
    return {"title": rules.shown_title, "line": rule_words.summary_parts(rules)}


def _rules(table: Any) -> RuleSet | None:
    if not isinstance(table, Mapping):
        return None
    try:
        # each value with its type: True and 1, 9 and 9.0 are equal in Python (and
        # so one key of the cache) but not the same rule (1 is refused)
        return _rules_of(tuple(sorted((k, type(v), v) for k, v in table.items())))
    except TypeError:     # a value that cannot be a rule's (a list, a table)
        return None


@lru_cache(maxsize=64)
def _rules_of(items: tuple[tuple[str, type, Any], ...]) -> RuleSet | None:
    """(Every page and the live summary name a few rule sets again and again.)"""
    try:
        return rules_from_dict({k: v for k, _type, v in items})
    except (RulesError, UserError, TypeError, ValueError):
        return None


# the high scores' periods and tables (store/read/highscores.py's PERIODS and TABLES, in
# their order) under the titles the web page and the TV give them; the OLED has its
# own shorter words (render/high_scores.py)
HIGH_SCORE_PERIODS = {"tonight": N_("Tonight"), "week": N_("This week"),
                      "all_time": N_("All time")}
HIGH_SCORE_TABLES = {"best_turn": N_("Best turn"), "boxes_shut": N_("Boxes shut"),
                     "wins": N_("Most wins"), "accuracy": N_("Best moves")}


def game_state(game: Mapping[str, Any]) -> str:
    """A recorded game's state in one word: playing, finished, stopped (before
    its end: nobody won) or damaged (its record cannot be read back)."""
    if game.get("damaged"):
        return N_("damaged")
    if game.get("abandoned"):
        return N_("stopped")
    return (N_("finished") if game.get("finished", game.get("ended_at") is not None)
            else N_("playing"))


def shown(word: str) -> str:
    """A word of the record (a state above, a rule set's title) in the language in
    force: the record and the JSON keep the English word, a person reads this."""
    return tr(word)


def count(n: int, singular: str, plural: str) -> str:
    """``count(2, "{n} round", "{n} rounds")``: "2 rounds", the form the language in
    force gives ``n`` (gettext's plural rules). The catalogues' template takes the
    two words of each call (docs/develop/translations.md: ``-k count:2,3``)."""
    return ngettext(singular, plural, n).format(n=n)


CLOCK_NOTES = {
    "set": "",
    "not set": N_("The box's clock was not set when some of these games began (no time "
                "server reached yet), so their times are not shown; tonight counts the "
                "last 12 hours by the box's own clock."),
    "unknown": N_("Some of these games were recorded before the box noted whether its clock "
                "was set: their times may be wrong."),
}
"""What a page says under tonight's figures for each clock state they were counted by
(:func:`shutbox_hw.store.read.tonight.clock_state`): the words in one place, marked for
the catalogue, translated with ``tr`` where shown."""
