"""The league's systemd units (systemd/league/): the commands of issue 40 as written,
with the settings of league.env.example, run as their own user and hardened as the
box's units are."""

from __future__ import annotations

import shlex
from pathlib import Path

from test_systemd_unit import last, parse

from shutbox_hw.commands.cli import build_parser

UNITS = Path(__file__).resolve().parents[2] / "systemd" / "league"
HARDENING = {"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
             "PrivateTmp": "yes", "CapabilityBoundingSet": "", "LockPersonality": "yes"}


def settings() -> dict[str, str]:
    pairs = [line.split("=", 1) for line in (UNITS / "league.env.example").read_text()
             .splitlines() if line and not line.startswith("#")]
    return {key: value for key, value in pairs}


def command(unit: dict) -> list[str]:
    """The unit's command line, ${VAR} replaced as systemd does (one word each)."""
    words = shlex.split(last(unit, "Service", "ExecStart") or "")
    env = settings()
    for key, value in env.items():
        words = [value if w == "${" + key + "}" else w for w in words]
    return words


def test_the_units_run_the_league_commands_with_their_settings():
    ingest = parse((UNITS / "shutbox-league-ingest@.service").read_text())
    migrate = parse((UNITS / "shutbox-league-migrate.service").read_text())
    env = settings()
    assert set(env) == {"LEAGUE_DSN", "LEAGUE_MQTT", "LEAGUE_GRACE", "LEAGUE_WEB_LISTEN",
                        "LEAGUE_WEB_HOSTS", "LEAGUE_WEB_JOIN_CODE"}
    words = command(ingest)
    assert words[0].endswith("/shutbox-hw") and words[1:3] == ["league", "ingest"]
    args = build_parser().parse_args(words[1:])        # the flags exist and parse
    assert (args.action, args.dsn, args.mqtt, args.grace) == (
        "ingest", env["LEAGUE_DSN"], env["LEAGUE_MQTT"], float(env["LEAGUE_GRACE"]))
    args = build_parser().parse_args(command(migrate)[1:])
    assert (args.action, args.dsn) == ("migrate", env["LEAGUE_DSN"])
    assert "shutbox-league-migrate.service" in last(ingest, "Unit", "Requires")


def test_the_units_run_as_their_own_user_hardened():
    for name in ("shutbox-league-ingest@.service", "shutbox-league-migrate.service",
                 "shutbox-league-web.service"):
        unit = parse((UNITS / name).read_text())
        assert last(unit, "Service", "User") == "shutbox-league", name
        for key, value in HARDENING.items():
            assert last(unit, "Service", key) == value, (name, key)
