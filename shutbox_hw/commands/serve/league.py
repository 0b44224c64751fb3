"""``shutbox-hw league``: the league's database (migrate), its ingest, its status, its
seasons and standings.

Needs the ``league`` extra (psycopg 3, paho-mqtt): ``pip install 'shutbox-hw[league]'``.
docs/network/league.md is the organiser's page.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import signal
import sys
from typing import Any

from ...base.errors import TransientError, UserError, quoted
from ...config.network import parse_broker, read_secret

ACTIONS = ("migrate", "ingest", "status", "season", "standings", "ratings", "rebuild",
           "flags", "web", "players", "player")


class _Intermixed(argparse.ArgumentParser):
    """The league's parser: its words may come after the options
    (``league players add --dsn DSN NAME``), as argparse's intermixed parsing reads them."""

    _inside = False

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if self._inside:
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    made_by = sub._parser_class
    sub._parser_class = type("LeagueParser", (_Intermixed, made_by), {})
    try:
        _add_parser(sub)
    finally:
        sub._parser_class = made_by


def _add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("league", help="the league: every box's games in one PostgreSQL "
                       "database (migrate, ingest, status, season, standings, ratings, rebuild,"
                       " flags, web, players, player)")
    p.add_argument("action", choices=ACTIONS, help="migrate: create or upgrade the "
                   "league's tables; ingest: write the boxes' game messages into the league "
                   "(any number at once, sharing one subscription); status: per box and "
                   "epoch, the games held, the latest, the missing; season: make a season; "
                   "standings: a season's ranked players; ratings: compute every season's "
                   "ratings and standings from the games and keep them (the ingest does "
                   "it as games arrive); rebuild: compute them again and compare with "
                   "what was kept (exit 0 only when equal); flags: the games flagged as "
                   "unlikely, and the operator's decision on one; web: the league's own "
                   "pages (read-only); players add NAME: a league player, whose secret (a "
                   "card code) is printed once; players renew NAME: a new secret for a lost "
                   "card; player export NAME: everything the league holds on a player, as "
                   "JSON; player delete NAME: the player anonymised in the league and on "
                   "every box; player privacy NAME --public|--initials|--hidden: how the "
                   "league's tables show them")
    p.add_argument("words", nargs="*", metavar="VERB NAME", help="players: add or "
                   "renew, then the player's name (in quotes if it has a space); player: "
                   "export, delete or privacy, then the name")
    shown = p.add_mutually_exclusive_group()
    for flag, what in (("public", "their name in full (the default)"),
                       ("initials", "their initials instead of their name"),
                       ("hidden", "left out of the tables (the others keep their ranks)")):
        shown.add_argument(f"--{flag}", dest="privacy", action="store_const", const=flag,
                           help=f"player privacy: {what}")
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
    p.add_argument("--retry-max", type=_seconds, default=10.0, metavar="SECONDS",
                   help="ingest: the longest pause between tries while PostgreSQL is away "
                   "(default 10)")
    p.add_argument("--group", default="league", help="ingest: the shared subscription's "
                   "group (default league)")
    p.add_argument("--json", action="store_true", help="status: one JSON object per box "
                   "and epoch; season: the season made, as JSON; standings: one JSON object per "
                   "ranked player; rebuild: one JSON object, the differences in it; flags: "
                   "one JSON object per flag")
    p.add_argument("--name", help="season (required): the season's name")
    p.add_argument("--from", dest="starts", type=_date, metavar="DATE", help="season "
                   "(required): its first day, YYYY-MM-DD (UTC)")
    p.add_argument("--to", dest="ends", type=_date, metavar="DATE", help="season "
                   "(required): its last day, YYYY-MM-DD (UTC)")
    p.add_argument("--rules", action="append", metavar="R", help="season: a rule set "
                   "(preset) whose games count; repeat for more (default: every one)")
    p.add_argument("--venue", action="append", metavar="V", help="season: a venue whose "
                   "games count, repeat for more (default: every one); standings: only "
                   "this venue's games")
    p.add_argument("--min-games", type=_min_games, metavar="N", help="season: the games a "
                   "player needs to be ranked (default 3)")
    p.add_argument("--band-games", type=_min_games, metavar="N", help="season: the rated "
                   "games a player needs for an accuracy band (default 10)")
    p.add_argument("--checked-dice", action="store_true", help="season: count only games "
                   "with software or module dice (dice the box saw), not manual ones")
    p.add_argument("--clear", type=_flag_id, metavar="ID", help="flags: the flag ID is "
                   "cleared (its games count as before)")
    p.add_argument("--exclude", type=_flag_id, metavar="ID", help="flags: the games of "
                   "the flag ID are excluded (they count in no season)")
    p.add_argument("--listen", metavar="HOST:PORT", help='web: where to serve (default '
                   '"127.0.0.1:8090")')
    p.add_argument("--host", metavar="NAME", action="append", default=[],
                   help="web: a further name the pages may be opened by (their addresses "
                   "and localhost are always accepted); may be given again")
    p.add_argument("--join-code", metavar="CODE", help="web: a join form on /join makes "
                   "league players for whoever gives CODE (4 to 40 letters or digits, the "
                   "organiser hands it out at the venues); default: no join form")
    p.add_argument("--season", metavar="S", help="standings: the season (default: the "
                   "one running today, else the latest started)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    _check_actions(args)
    _check_scopes(args)
    return {"migrate": run_migrate, "ingest": run_ingest, "status": run_status,
            "season": run_season, "standings": run_standings, "ratings": run_ratings,
            "rebuild": run_rebuild, "flags": run_flags, "web": run_web,
            "players": run_players, "player": run_player}[args.action](args)


def _check_actions(args: argparse.Namespace) -> None:
    """Words and options that go with one action only (a UserError naming them)."""
    if args.words and args.action not in ("players", "player"):
        raise UserError(f"league {args.action} takes no more words "
                        f"({quoted(' '.join(args.words))})")
    if args.action != "ingest":
        given = [f for f, v in (("--mqtt", args.mqtt), ("--credentials", args.credentials),
                                ("--ca", args.ca)) if v is not None]
        if given:
            raise UserError(f"{', '.join(given)} go(es) with league ingest, not {args.action}")
    if args.privacy is not None and not (args.action == "player" and args.words[:1]
                                         == ["privacy"]):
        raise UserError(f"--{args.privacy} goes with league player privacy")
    if args.json and args.action not in ("status", "season", "standings", "rebuild", "flags"):
        raise UserError("--json goes with league status, season, standings, rebuild or flags")
    if args.checked_dice and args.action != "season":
        raise UserError(f"--checked-dice goes with league season, not {args.action}")
    decided = [f for f, v in (("--clear", args.clear), ("--exclude", args.exclude))
               if v is not None]
    if decided and args.action != "flags":
        raise UserError(f"{', '.join(decided)} go(es) with league flags, not {args.action}")
    if len(decided) > 1:
        raise UserError("league flags takes one decision at a time: --clear ID or "
                        "--exclude ID")


def _check_scopes(args: argparse.Namespace) -> None:
    """The web's, a season's and the standings' options given to another action."""
    web_only = [f for f, v in (("--listen", args.listen), ("--host", args.host or None),
                               ("--join-code", args.join_code)) if v is not None]
    if web_only and args.action != "web":
        raise UserError(f"{', '.join(web_only)} go(es) with league web, not {args.action}")
    season_only = [f for f, v in (("--name", args.name), ("--from", args.starts),
                                  ("--to", args.ends), ("--rules", args.rules),
                                  ("--min-games", args.min_games),
                                  ("--band-games", args.band_games)) if v is not None]
    if season_only and args.action != "season":
        raise UserError(f"{', '.join(season_only)} go(es) with league season, "
                        f"not {args.action}")
    if args.season is not None and args.action != "standings":
        raise UserError(f"--season goes with league standings, not {args.action}")
    if args.venue is not None and args.action not in ("season", "standings"):
        raise UserError(f"--venue goes with league season or standings, not {args.action}")


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {quoted(text)}") \
            from None


def _min_games(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10000:
        raise argparse.ArgumentTypeError(f"expected a number of games 1..10000, got "
                                         f"{quoted(text)}")
    return int(text)


def _flag_id(text: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 18 and int(text) >= 1):
        raise argparse.ArgumentTypeError(f"expected a flag's number (league flags lists "
                                         f"them), got {quoted(text)}")
    return int(text)


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
    from ...league.schema import LeagueSchemaError, migrate
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
    from ...league.schema import LeagueSchemaError, check
    from ...league.status import set_aside, status
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


def run_season(args: argparse.Namespace) -> int:
    from ...league.ratings import refresh
    from ...league.schema import LeagueSchemaError, check
    from ...league.standings import BAND_GAMES, MIN_GAMES, Season, SeasonError, make_season
    lacking = [f for f, v in (("--name", args.name), ("--from", args.starts),
                              ("--to", args.ends)) if v is None]
    if lacking:
        raise UserError(f"league season needs {', '.join(lacking)}")
    season = Season(args.name.strip(), args.starts, args.ends,
                    tuple(dict.fromkeys(r.strip() for r in args.rules or [])),
                    tuple(dict.fromkeys(v.strip() for v in args.venue or [])),
                    args.min_games or MIN_GAMES, args.band_games or BAND_GAMES,
                    args.checked_dice)
    conn = _connect(args.dsn)
    try:
        check(conn)
        make_season(conn, season)
        refresh(conn)        # the new season's ratings and standings kept at once
    except (LeagueSchemaError, SeasonError) as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    print(json.dumps(season.as_json()) if args.json else
          f"season {season.name}: {season.starts} to {season.ends}, rules "
          f"{', '.join(season.rules) or 'any'}, venues {', '.join(season.venues) or 'any'}, "
          f"ranked from {season.min_games} game(s), accuracy bands from "
          f"{season.band_games} rated game(s)"
          + (", only games with software or module dice" if season.checked_dice else ""))
    return 0


def run_standings(args: argparse.Namespace) -> int:
    from ...league.schema import LeagueSchemaError, check
    from ...league.standings import SeasonError
    from ...league.tables import season_table
    if args.venue is not None and len(args.venue) > 1:
        raise UserError("league standings takes one --venue")
    venue = args.venue[0].strip() if args.venue else None
    conn = _connect(args.dsn)
    try:
        check(conn)
        season, rows = season_table(conn, args.season, venue,
                                    dt.datetime.now(dt.UTC).date())
    except (LeagueSchemaError, SeasonError) as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(f"season {season.name} ({season.starts} to {season.ends})"
          + (f", venue {venue}" if venue else "") + f": ranked from {season.min_games} "
          "game(s)")
    if not rows:
        print("nobody is ranked yet")
        return 0
    print(f"{'rank':>4}  {'player':<20} {'games':>5} {'wins':>4} {'points':>6} "
          f"{'turn':>6} {'shut':>4} {'accuracy':>8} {'rating':>6} {'band':>4} {'luck':>6}")
    for row in rows:
        turn = "-" if row["turn_score"] is None else f"{row['turn_score']:.2f}"
        accuracy = "-" if row["accuracy"] is None else f"{row['accuracy']:.1f} %"
        rating = "-" if row["rating"] is None else f"{row['rating']:.1f}"
        luck = "-" if row["luck"] is None else f"{row['luck']:+.1f}"
        print(f"{row['rank']:>4}  {row['player'][:20]:<20} {row['games']:>5} "
              f"{row['wins']:>4} {row['points']:>6} {turn:>6} {row['boxes_shut']:>4} "
              f"{accuracy:>8} {rating:>6} {row['band'] or '-':>4} {luck:>6}")
    return 0




def run_ratings(args: argparse.Namespace) -> int:
    from ...league.ratings import refresh
    from ...league.schema import LeagueSchemaError, check
    conn = _connect(args.dsn)
    try:
        check(conn)
        kept = refresh(conn)
    except LeagueSchemaError as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    seasons = len({season for season, _ in kept.ratings})
    print(f"kept the ratings of {len(kept.ratings)} player(s) in {seasons} season(s) and "
          f"{len(kept.standings)} standings row(s), from {kept.games} finished game(s)")
    return 0


def run_rebuild(args: argparse.Namespace) -> int:
    from ...league.rebuild import rebuild
    from ...league.schema import LeagueSchemaError, check
    conn = _connect(args.dsn)
    try:
        check(conn)
        rebuilt, found = rebuild(conn)
    except LeagueSchemaError as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    if args.json:
        print(json.dumps({"equal": not found, "games": rebuilt.games,
                          "ratings": len(rebuilt.ratings),
                          "standings": len(rebuilt.standings), "luck": len(rebuilt.luck),
                          "differences": [d.as_json() for d in found]}))
    else:
        for difference in found:
            print(difference.line())
        print(f"rebuilt from {rebuilt.games} finished game(s): {len(rebuilt.ratings)} "
              f"rating(s), {len(rebuilt.standings)} standings row(s); "
              + ("equal to what was kept" if not found else
                 f"{len(found)} difference(s) from what was kept (shutbox-hw league "
                 "ratings --dsn DSN keeps the rebuilt values)"))
    return 0 if not found else 1


def run_flags(args: argparse.Namespace) -> int:
    from ...league.ratings import REFRESH_LOCK, refresh
    from ...league.schema import LeagueSchemaError, check
    from ...league.trust import FlagError, decide, detect, flags
    conn = _connect(args.dsn)
    try:
        check(conn)
        if args.clear is not None or args.exclude is not None:
            decision = "cleared" if args.clear is not None else "excluded"
            with conn.transaction():
                shown = [decide(conn, args.clear or args.exclude, decision)]
            refresh(conn)        # the kept values honour the decision at once
        else:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (REFRESH_LOCK,))
                detect(conn)
            shown = flags(conn)
    except (LeagueSchemaError, FlagError) as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    if args.json:
        for flag in shown:
            print(json.dumps(flag))
        return 0
    for flag in shown:
        where = (f"box {flag['box']} epoch {flag['epoch']} game {flag['game']}"
                 if flag["kind"] == "fast" else
                 f"season {flag['season']} player {flag['player']} "
                 f"({len(flag['games'])} game(s))")
        print(f"#{flag['id']} {flag['kind']} {where}: {flag['reason']}; "
              + (f"{flag['decision']} {flag['decided_at']}" if flag["decision"] else
                 "undecided (--clear ID or --exclude ID)"))
    if not shown:
        print("no game is flagged")
    return 0


def run_web(args: argparse.Namespace) -> int:
    from ...config.network import parse_listen
    try:
        import uvicorn  # noqa: F401  (installed? the web extra)

        from .league_web import make_app
    except ImportError:
        raise UserError("shutbox-hw league web needs the web extra: "
                        "pip install 'shutbox-hw[web,league]'") from None
    from ...league.schema import LeagueSchemaError, check
    from ...web.gate.guard import box_names
    from .web import listening_socket, make_server
    join_code = args.join_code
    if join_code is not None and not (4 <= len(join_code) <= 40 and join_code.isascii()
                                      and join_code.isalnum()):
        raise UserError("--join-code: 4 to 40 letters or digits (it is typed on a phone)")
    try:
        host, port = parse_listen(args.listen or "127.0.0.1:8090")
    except ValueError as error:
        raise UserError(f"--listen: {error}") from None
    conn = _connect(args.dsn)   # reachable and migrated, said at once
    try:
        check(conn)
    except LeagueSchemaError as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    sock = listening_socket(host, port)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    logging.getLogger("shutbox_hw.league").info("the league's pages on http://%s:%d/",
                                                host, port)
    make_server(make_app(args.dsn, box_names(host, args.host), join_code)).run(sockets=[sock])
    return 0


def run_players(args: argparse.Namespace) -> int:
    from ...league.players import PlayerError, add_player, checked_name, renew_code
    from ...league.schema import LeagueSchemaError, check
    from ...players.league_secret import shown
    if not args.words or args.words[0] not in ("add", "renew"):
        raise UserError("league players needs: add NAME, or renew NAME")
    verb = args.words[0]
    if len(args.words) != 2:
        raise UserError(f"league players {verb} takes one NAME (in quotes if it has a space)")
    try:
        checked_name(args.words[1])
    except PlayerError as error:
        raise UserError(str(error)) from None
    conn = _connect(args.dsn)
    try:
        check(conn)
        done = (add_player if verb == "add" else renew_code)(conn, args.words[1])
    except (LeagueSchemaError, PlayerError) as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    print(f"league player {done.name} (id {done.player}); their "
          + ("" if verb == "add" else "new ") + "secret, shown this once "
          f"(the league keeps only its hash): {shown(done.code)}")
    return 0


def run_player(args: argparse.Namespace) -> int:
    from ...league.players import PlayerError, checked_name
    from ...league.rights import export, forget, set_privacy
    from ...league.schema import LeagueSchemaError, check
    verbs = ("export", "delete", "privacy")
    if not args.words or args.words[0] not in verbs:
        raise UserError("league player needs: export NAME, delete NAME, or privacy NAME "
                        "--public|--initials|--hidden")
    verb = args.words[0]
    if len(args.words) != 2:
        raise UserError(f"league player {verb} takes one NAME (in quotes if it has a space)")
    if verb == "privacy" and args.privacy is None:
        raise UserError("league player privacy needs --public, --initials or --hidden")
    try:
        checked_name(args.words[1])
    except PlayerError as error:
        raise UserError(str(error)) from None
    conn = _connect(args.dsn)
    try:
        check(conn)
        if verb == "export":
            for piece in export(conn, args.words[1]):
                sys.stdout.write(piece)
            sys.stdout.flush()
        elif verb == "delete":
            done = forget(conn, args.words[1])
            print(f"league player {done.player} deleted: {done.pseudonym} in their "
                  f"{done.games} game(s) now; the boxes remove them as the tombstone "
                  "reaches them (an ingest publishes it)")
        else:
            player, name = set_privacy(conn, args.words[1], args.privacy)
            print(f"league player {name} (id {player}): {args.privacy} in the tables")
    except (LeagueSchemaError, PlayerError) as error:
        raise UserError(str(error)) from None
    finally:
        conn.close()
    return 0


def _ids(ids: list[int], shown: int = 10) -> str:
    return ", ".join(map(str, ids[:shown])) + (", ..." if len(ids) > shown else "")


def run_ingest(args: argparse.Namespace) -> int:
    from ...league.ingest import Ingest, Options
    from ...league.schema import LeagueSchemaError, check
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
                            grace_s=args.grace, credentials=credentials, ca_file=args.ca,
                            retry_max_s=args.retry_max))
    signal.signal(signal.SIGTERM, lambda *_: ingest.stop())
    signal.signal(signal.SIGINT, lambda *_: ingest.stop())
    ingest.run()
    return 0
