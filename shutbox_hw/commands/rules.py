"""``shutbox-hw rules``: the effective rule set and the presets."""

from __future__ import annotations

import argparse
import json

from ..rules import KEYS, PRESETS, build_rules
from .common import add_rules_options, rules_from_args


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="print the effective rule set and the presets")
    add_rules_options(p)
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = rules_from_args(args)
    presets = {name: build_rules(name).as_dict() for name in PRESETS}
    if args.json:
        print(json.dumps({"rules": rules.as_dict(), "presets": presets}))
        return 0
    print(f"rule set (preset {rules.preset}):")
    for key in KEYS:
        print(f"  {key} = {_plain(key, getattr(rules, key), rules.match)}")
    print("presets:")
    for name in PRESETS:
        print(f"  {name}: {build_rules(name).summary()}")
    return 0


def _plain(key: str, value: object, match: str) -> str:
    """A value as the config file spells it (``true``, not Python's ``True``);
    a key the rule set does not use says so instead of ``None``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return f"not used (match = {match})" if key == "threshold" else "not set"
    return str(value)
