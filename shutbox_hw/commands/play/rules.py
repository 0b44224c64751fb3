"""``shutbox-hw rules``: the effective rule set and the presets."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ...base.errors import shown_path
from ...rules import KEYS, PRESETS, build_rules, parse_set_options
from ..common import add_rules_options, rules_from_args


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="print the effective rule set and the presets")
    add_rules_options(p)
    p.add_argument("--config", metavar="FILE",
                   help="the box's config: show its effective values and their source")
    p.add_argument("--db", metavar="PATH",
                   help="with --config: the database holding the box's adjustments "
                        "(default: [storage] db)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.config:
        return _effective(args)
    rules = rules_from_args(args)
    presets = {name: build_rules(name).as_dict() for name in PRESETS}
    if args.json:
        print(json.dumps({"rules": rules.as_dict(), "presets": presets}))
        return 0
    print(f"rule set: {rules.named()}")
    for key in KEYS:
        print(f"  {key} = {_plain(key, getattr(rules, key), rules.match)}")
    print("presets:")
    for name in PRESETS:
        preset = build_rules(name)
        print(f"  {name} ({preset.title}): {preset.summary()}")
    return 0


def _plain(key: str, value: object, match: str) -> str:
    """A value as the config file spells it (``true``, not Python's ``True``);
    a key the rule set does not use says so instead of ``None``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return f"not used (match = {match})" if key == "threshold" else "not set"
    return str(value)


def _effective(args: argparse.Namespace) -> int:
    """The config file with the box's adjustments (service menu) over it."""
    # imported here: plain ``rules`` (the startup benchmark) needs neither TOML nor SQLite
    from ...config.config_file import default_db_path, load_config
    from ...config.settings import (
        CONFIG_FILE,
        config_values,
        effective,
        read_settings,
        setting_lines,
    )
    config = load_config(args.config, preset=args.rules, rule_overrides=parse_set_options(args.set))
    db = Path(args.db) if args.db else (config.db or default_db_path())
    config, sources = effective(config, read_settings(db))
    if args.rules and sources.get("preset") == CONFIG_FILE:
        sources["preset"] = "--rules"      # the command line's, over the file's
    values = config_values(config)
    if args.json:
        print(json.dumps({"rules": config.rules.as_dict(),
                          "settings": {k: {"value": v, "from": sources[k]}
                                       for k, v in values.items()}}))
        return 0
    print(f"effective settings ({shown_path(db)} over {shown_path(Path(args.config))}):")
    print("\n".join(setting_lines(config, sources)))
    print(f"rule set: {config.rules.named()}")
    for key in KEYS:
        print(f"  {key} = {_plain(key, getattr(config.rules, key), config.rules.match)}")
    return 0
