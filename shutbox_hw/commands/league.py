"""``shutbox-hw league``: the league's database (migrate), its ingest, its status.

Needs the ``league`` extra (psycopg 3, paho-mqtt): ``pip install 'shutbox-hw[league]'``.
docs/network/league.md is the organiser's page.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from typing import Any

from ..errors import TransientError, UserError, quoted
from ..netconfig import parse_broker, read_secret

ACTIONS = ("migrate", "ingest", "status")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("league", help="the league: every box's games in one PostgreSQL "
                       "database (migrate, ingest, status)")
    p.add_argument("action", choices=ACTIONS, help="migrate: create or upgrade the "
                   "league's tables; ingest: write the boxes' game messages into the league "
                   "(any number at once, sharing one subscription); status: per box and "
                   "epoch, the games held, the latest, the missing")
    p.add_argument("--dsn", required=True, help="the PostgreSQL connection string")
    p.add_argument("--mqtt", metavar="URL", help="ingest (required): the league's broker, "
                   "mqtt://host[:port] or mqtts://host[:port]")
    p.add_argument("--credentials", metavar="FILE", help="ingest: a file holding "
                   "user:password for the broker")
    p.add_argument("--ca", metavar="FILE", help="ingest with mqtts://: the CA to check the "
                   "broker against (default: the system's)")
    p.add_argument("--grace", type=_seconds, default=60.0, metavar="SECONDS",
                   help="ingest: how long a game may be missing before it is asked for "
                   "(default 60)")
    p.add_argument("--group", default="league", help="ingest: the shared subscription's "
                   "group (default league)")
    p.add_argument("--json", action="store_true", help="status: one JSON object per box "
                   "and epoch")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.action != "ingest":
        given = [f for f, v in (("--mqtt", args.mqtt), ("--credentials", args.credentials),
                                ("--ca", args.ca)) if v is not None]
        if given:
            raise UserError(f"{', '.join(given)} go(es) with league ingest, not {args.action}")
    if args.json and args.action != "status":
        raise UserError("--json goes with league status")
    return {"migrate": run_migrate, "ingest": run_ingest, "status": run_status}[args.action](
        args)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError(f"expected seconds 0..86400, got {quoted(text)}")
    return value


def _connect(dsn: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise UserError("the league needs psycopg: pip install 'shutbox-hw[league]'") from None
    try:
        return psycopg.connect(dsn, connect_timeout=10, autocommit=True)
    except psycopg.ProgrammingError as error:
        raise UserError(f"--dsn is not a connection string PostgreSQL understands: "
                        f"{' '.join(str(error).split())}") from None
    except psycopg.OperationalError as error:
        raise TransientError(f"cannot reach the league's database: "
                             f"{' '.join(str(error).split())}") from None


def run_migrate(args: argparse.Namespace) -> int:
    from ..league.schema import LeagueSchemaError, migrate
    conn = _connect(args.dsn)
    try:
        old, new = migrate(conn)
    except LeagueSchemaError as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    print(f"league schema {new}" + (" (already)" if old == new else f" (was {old})"))
    return 0


def run_status(args: argparse.Namespace) -> int:
    from ..league.schema import LeagueSchemaError, check
    from ..league.status import set_aside, status
    conn = _connect(args.dsn)
    try:
        check(conn)
        rows = status(conn)
        aside = [] if args.json else set_aside(conn)
    except LeagueSchemaError as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    for row in rows:
        missing = row["missing"]
        print(f"{row['box']} epoch {row['epoch']}: {row['games']} game(s) held, latest "
              f"{row['latest'] if row['latest'] is not None else '-'}, "
              + (f"missing {len(missing)} ({_ids(missing)})" if missing else "nothing missing")
              + (f", {row['set_aside']} set aside" if row["set_aside"] else "")
              + f", last seen {row['last_seen']}")
    if not rows:
        print("no box has reported yet")
    for row in aside:
        print(f"set aside #{row['id']} at {row['received_at']} on {row['topic']}: "
              f"{row['reason']}" + (f" (game {row['game']})" if row["game"] is not None
                                    else ""))
    return 0


def _ids(ids: list[int], shown: int = 10) -> str:
    return ", ".join(map(str, ids[:shown])) + (", ..." if len(ids) > shown else "")


def run_ingest(args: argparse.Namespace) -> int:
    from ..league.ingest import Ingest, Options
    from ..league.schema import LeagueSchemaError, check
    try:
        import paho.mqtt.client  # noqa: F401
    except ImportError:
        raise UserError("the league needs paho-mqtt: pip install 'shutbox-hw[league]'") \
            from None
    if not args.mqtt:
        raise UserError("league ingest needs --mqtt URL (the league's broker)")
    try:
        parse_broker(args.mqtt)
    except ValueError as error:
        raise UserError(f"--mqtt: {error}") from None
    credentials = None
    if args.credentials:
        try:
            user, _, password = read_secret(args.credentials, "credentials file").partition(":")
        except (ValueError, OSError) as error:
            raise UserError(str(error)) from None
        credentials = (user, password)
    conn = _connect(args.dsn)   # reachable and migrated, said at once
    try:
        check(conn)
    except LeagueSchemaError as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    ingest = Ingest(Options(dsn=args.dsn, mqtt=args.mqtt, group=args.group,
                            grace_s=args.grace, credentials=credentials, ca_file=args.ca))
    signal.signal(signal.SIGTERM, lambda *_: ingest.stop())
    signal.signal(signal.SIGINT, lambda *_: ingest.stop())
    ingest.run()
    return 0
