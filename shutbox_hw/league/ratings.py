"""The league's two ratings and the values it keeps (issue 41, item 3).

Per season (a rating, like the standings, counts only the games the season counts:
:func:`.standings.counts`), taken in one defined order: the game's ``ended_at`` as
the box recorded it, then box, epoch and game id (:func:`order`), so the same
games always give the same ratings, whenever and in whatever order they arrived.

- **The results rating** (:func:`results`): openskill's Plackett-Luce model with its
  default parameters, every player starting the season at mu 25, sigma 25/3. A game
  counts when at least two distinct league players (named seats, as the standings
  match names) sat at it; its ranks come from the result: the game's winners first,
  tied with each other, every other player second, tied (a rule set names winners,
  not an order of the rest). The figure shown is the ordinal, mu - 3 sigma.
- **The accuracy band** (:func:`bands`): per game, a player's accuracy is the share
  of their rated decisions that were the solver's best (a game without a rated
  decision of theirs does not count here). Their band comes from the **median** of
  these game accuracies so far in the season (a few games thrown on purpose barely
  move a median), given only from the season's ``band_games`` rated games (10 unless
  the season says otherwise) on: A from
  :data:`BANDS`' thresholds down to D. And a band never drops within a season: the one
  shown is the best the player held at any game from their ``band_games``-th on.

:func:`compute` makes every kept value from the games alone (the ratings above and
the standings of every season, league-wide and per venue); :func:`refresh` writes them
into the kept tables (schema 3) in one transaction; ``league rebuild``
(:mod:`.rebuild`) computes them again and compares. :class:`Trigger` is how the
ingest keeps them current (docs/network/league.md says why a separate step).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from statistics import median
from typing import Any

from ..base.errors import UserError
from .schema import LeagueSchemaError, check
from .seats import players_of, seat_key
from .standings import NOT_EXCLUDED, SEASON_COLUMNS, Season, counts, season_of, standings
from .trust import Collector, detect

log = logging.getLogger("shutbox_hw.league")

# (band, the lowest median game accuracy in per cent that reaches it), best first
BANDS: tuple[tuple[str, float], ...] = (("A", 90.0), ("B", 75.0), ("C", 55.0), ("D", 0.0))
BEST = 1e-9               # a decision whose loss is at most this is the solver's best
REFRESH_LOCK = 4042       # the advisory lock of a refresh (one at a time, in order)
ALL_VENUES = ""           # kept_standings' venue of the league-wide table

Game = tuple[str, dict[str, Any]]      # (venue, record with the league's ratings)


def order(box: str, epoch: str, record: dict[str, Any]) -> tuple[float, str, str, int]:
    """The place of a game in the ratings' order: end time, box, epoch, game id."""
    ended = record.get("ended_at")
    return (float(ended) if isinstance(ended, (int, float)) else 0.0, box, epoch,
            int(record.get("game") or 0))


def ranks(record: dict[str, Any]) -> dict[str, int] | None:
    """player key -> rank in the game (1: among the winners, 2: the rest); None when
    fewer than two league players sat at it (no result between players)."""
    keys = list(players_of(record).values())
    if len(keys) < 2:
        return None
    winners = {seat_key(str(w))[0] for w in (record.get("result") or {}).get("winners")
               or []}
    return {key: 1 if key in winners else 2 for key in keys}


@dataclass
class Rating:
    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma


def results(ordered: Iterable[dict[str, Any]]) -> dict[str, Rating]:
    """The results rating of every player from ``ordered`` (a season's counted games,
    in :func:`order`)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise UserError("the league's ratings need openskill: pip install "
                        "'shutbox-hw[league]'") from None
    model = PlackettLuce()
    state: dict[str, Any] = {}
    played: dict[str, int] = {}
    for record in ordered:
        placed = ranks(record)
        if placed is None:
            continue
        keys = list(placed)
        teams = [[state.get(k) or model.rating(name=k)] for k in keys]
        rated = model.rate(teams, ranks=[placed[k] for k in keys])
        for key, (after,) in zip(keys, rated, strict=True):
            state[key] = after
            played[key] = played.get(key, 0) + 1
    return {k: Rating(float(r.mu), float(r.sigma), played[k]) for k, r in state.items()}


def band_of(accuracy: float) -> str:
    return next(band for band, floor in BANDS if accuracy >= floor)


@dataclass
class Band:
    games: int = 0                           # rated games
    accuracies: list[float] = field(default_factory=list)
    best: str | None = None                  # the best band held (None: not yet)

    @property
    def median(self) -> float | None:
        return round(median(self.accuracies), 1) if self.accuracies else None


def game_accuracies(record: dict[str, Any]) -> dict[str, float]:
    """player key -> the share of their rated decisions in the game that were best,
    in per cent (players without a rated decision left out)."""
    seats = players_of(record)
    rated: dict[str, list[int]] = {}
    for rating in record.get("ratings") or []:
        key = seats.get(rating.get("seat", -1))
        loss = rating.get("loss")
        if key is None or not isinstance(loss, (int, float)) or isinstance(loss, bool):
            continue
        tally = rated.setdefault(key, [0, 0])
        tally[0] += 1
        tally[1] += loss <= BEST
    return {key: 100.0 * best / n for key, (n, best) in rated.items()}


def bands(ordered: Iterable[dict[str, Any]], band_games: int) -> dict[str, Band]:
    """Every player's accuracy band from ``ordered`` (see the module's rules)."""
    found: dict[str, Band] = {}
    rank = {name: i for i, (name, _) in enumerate(BANDS)}
    for record in ordered:
        for key, accuracy in game_accuracies(record).items():
            band = found.setdefault(key, Band())
            band.games += 1
            band.accuracies.append(accuracy)
            if band.games >= band_games:
                now = band_of(median(band.accuracies))
                if band.best is None or rank[now] < rank[band.best]:
                    band.best = now
    return found


# ---------------------------------------------------------------- the kept values

@dataclass
class Kept:
    """Everything the league keeps, keyed as its tables are."""
    # (season, player key) -> {field: value for field in FIELDS}
    ratings: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    # (season, venue or ALL_VENUES, player as shown) -> the standings row
    standings: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    # (box, epoch, game, player key) -> (luck, turns measured)
    luck: dict[tuple[str, str, int, str], tuple[float, int]] = field(default_factory=dict)
    games: int = 0                           # finished games the league holds


# a player's kept values per season (kept_ratings' columns, standings' added fields)
FIELDS = ("rating", "mu", "sigma", "rating_games", "band", "band_accuracy",
          "accuracy_games", "luck", "luck_turns")

Row = tuple[str, str, str, dict[str, Any]]          # (venue, box, epoch, record)
LuckOf = dict[tuple[str, str, int], dict[str, tuple[float, int]]]


def season_values(season: Season, games: Sequence[Row], luck: LuckOf | None = None
                  ) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str], dict[str, Any]]]:
    """One season's ratings (player key -> values) and standings ((venue, player) ->
    row) from ``games`` (in any order); ``luck``: each game's luck per player
    ((box, epoch, game) -> player key -> (luck, turns)), summed over the season."""
    counted = sorted(((venue, box, epoch, record) for venue, box, epoch, record in games
                      if counts(season, venue, record)),
                     key=lambda g: order(g[1], g[2], g[3]))
    records = [g[3] for g in counted]
    rated = results(records)
    banded = bands(records, season.band_games)
    lucky: dict[str, tuple[float, int]] = {}
    for _, box, epoch, record in counted:
        for key, (amount, turns) in (luck or {}).get((box, epoch, int(record["game"])),
                                                    {}).items():
            total, measured = lucky.get(key, (0.0, 0))
            lucky[key] = (total + amount, measured + turns)
    values: dict[str, dict[str, Any]] = {}
    for key in sorted(set(rated) | set(banded) | set(lucky)):
        r, b, lk = rated.get(key), banded.get(key), lucky.get(key)
        values[key] = {"mu": r.mu if r else None, "sigma": r.sigma if r else None,
                       "rating": round(r.ordinal, 2) if r else None,
                       "rating_games": r.games if r else 0,
                       "band": b.best if b else None,
                       "band_accuracy": b.median if b else None,
                       "accuracy_games": b.games if b else 0,
                       "luck": round(lk[0], 2) if lk else None,
                       "luck_turns": lk[1] if lk else 0}
    pairs: list[Game] = [(venue, record) for venue, _, _, record in counted]
    by_venue: dict[str, list[Game]] = {}
    for pair in pairs:
        by_venue.setdefault(pair[0], []).append(pair)
    table: dict[tuple[str, str], dict[str, Any]] = {}
    for venue, some in [(None, pairs), *sorted(by_venue.items())]:
        for row in standings(some, season, venue):
            table[(ALL_VENUES if venue is None else venue, row["player"])] = row
    return values, table


def slim(record: dict[str, Any], ratings: list[Any]) -> dict[str, Any]:
    """What the ratings and standings read of a game (a refresh holds every season's
    games at once: their throws and times stay behind)."""
    rules = record.get("rules")
    return {"game": record.get("game"), "state": record.get("state"),
            "dice": record.get("dice"),
            "ended_at": record.get("ended_at"),
            "rules": {"preset": rules.get("preset")} if isinstance(rules, dict) else None,
            "seats": record.get("seats"), "result": record.get("result"),
            "turns": [{"seat": t.get("seat"), "score": t.get("score"), "shut": t.get("shut")}
                      for t in record.get("turns") or [] if isinstance(t, dict)],
            "ratings": [{"seat": r.get("seat"), "loss": r.get("loss")}
                        for r in ratings if isinstance(r, dict)]}


Seen = Callable[[str, str, str, dict[str, Any]], None]


def load(conn: Any, known: LuckOf | None = None, seen: Seen | None = None
         ) -> tuple[list[Season], list[Row], LuckOf]:
    """The seasons, the league's finished games some season may count as (venue, box,
    epoch, :func:`slim` record) and their luck (``known``: games already measured,
    taken as they are; every other game is measured as it is read; ``seen``: called
    with each game's venue, box, epoch and whole record as it is read)."""
    from .luck import Meters, game_luck
    seasons = [season_of(row) for row in conn.execute(
        f"SELECT {SEASON_COLUMNS} FROM seasons ORDER BY name")]
    if not seasons:
        return seasons, [], {}
    # only the games some season may count are read, one at a time (records are large)
    start = dt.datetime.combine(min(s.starts for s in seasons), dt.time(), dt.UTC)
    end = dt.datetime.combine(max(s.ends for s in seasons) + dt.timedelta(days=1), dt.time(),
                              dt.UTC)
    meters = Meters()
    games: list[Row] = []
    luck: LuckOf = {}
    with conn.cursor() as cur:
        for venue, box, epoch, record, ratings in cur.stream(
                "SELECT coalesce(b.venue, g.box), g.box, g.epoch, g.record, g.ratings"
                " FROM games g JOIN boxes b ON b.box = g.box WHERE g.state = 'finished'"
                f" AND g.ended_at >= %s AND g.ended_at < %s AND {NOT_EXCLUDED}",
                (start.timestamp(), end.timestamp())):
            where = (box, epoch, int(record["game"]))
            found = (known or {}).get(where)
            luck[where] = found if found is not None else game_luck(
                record, players_of(record), meters)
            games.append((venue, box, epoch, slim(record, ratings)))
            if seen is not None:
                seen(venue, box, epoch, record)
    return seasons, games, luck


def compute(conn: Any, known: LuckOf | None = None, seen: Seen | None = None) -> Kept:
    """Every kept value, from the seasons and the games alone (``known``: the luck of
    games already measured, taken as it is; every other game's is measured; ``seen``:
    see :func:`load`)."""
    seasons, games, luck = load(conn, known, seen)
    counted, = conn.execute("SELECT count(*) FROM games WHERE state = 'finished'").fetchone()
    kept = Kept(games=int(counted))
    for where, players in luck.items():
        kept.luck.update({(*where, key): value for key, value in players.items()})
    for season in seasons:
        values, table = season_values(season, games, luck)
        kept.ratings.update({(season.name, k): v for k, v in values.items()})
        kept.standings.update({(season.name, venue, player): row
                               for (venue, player), row in table.items()})
    return kept


def read_kept(conn: Any) -> Kept:
    """What the kept tables hold."""
    kept = Kept()
    for season, player, *values in conn.execute(
            f"SELECT season, player, {', '.join(FIELDS)} FROM kept_ratings"):
        kept.ratings[(season, player)] = dict(zip(FIELDS, values, strict=True))
    for season, venue, player, row in conn.execute(
            "SELECT season, venue, player, row FROM kept_standings"):
        kept.standings[(season, venue, player)] = row
    for box, epoch, game, player, luck, turns in conn.execute(   # excluded: counts nowhere
            f"SELECT box, epoch, game, player, luck, turns FROM kept_luck g WHERE {NOT_EXCLUDED}"):
        kept.luck[(box, epoch, game, player)] = (luck, turns)
    found = conn.execute("SELECT games FROM kept_state").fetchone()
    kept.games = int(found[0]) if found else 0
    return kept


def refresh(conn: Any) -> Kept:
    """Compute every kept value and replace the kept tables with them, in one
    transaction; refreshes wait for each other (each sees every game committed before
    it began), so the last one to finish has every game. A game's luck once kept is
    taken as kept (its throws never change); ``league rebuild`` measures it again."""
    import json
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (REFRESH_LOCK,))
        known: LuckOf = {}
        for box, epoch, game, player, luck, turns in conn.execute(
                "SELECT box, epoch, game, player, luck, turns FROM kept_luck"):
            known.setdefault((box, epoch, game), {})[player] = (luck, turns)
        collected = Collector()           # the trust marks' flags, from the same read
        kept = compute(conn, known, collected.add)
        conn.execute("DELETE FROM kept_ratings")
        conn.execute("DELETE FROM kept_standings")
        conn.execute("DELETE FROM kept_state")
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO kept_ratings (season, player, {', '.join(FIELDS)}) VALUES"
                f" (%s, %s{', %s' * len(FIELDS)})",
                [(s, p, *(v[f] for f in FIELDS)) for (s, p), v in sorted(kept.ratings.items())])
            cur.executemany(
                "INSERT INTO kept_standings (season, venue, player, row)"
                " VALUES (%s, %s, %s, %s::jsonb)",
                [(s, v, p, json.dumps(row)) for (s, v, p), row in
                 sorted(kept.standings.items())])
            cur.executemany(
                "INSERT INTO kept_luck (box, epoch, game, player, luck, turns)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                [(*where, *value) for where, value in sorted(kept.luck.items())
                 if where[:3] not in known])
        conn.execute("INSERT INTO kept_state (games, refreshed_at) VALUES (%s, now())",
                     (kept.games,))
        detect(conn, collected)   # the flags brought up to date (league/trust.py)
    return kept


def season_ratings(conn: Any, season: str) -> dict[str, dict[str, Any]]:
    """player key -> the season's kept ratings (for ``league standings``)."""
    return {player: dict(zip(FIELDS, values, strict=True)) for player, *values in
            conn.execute(f"SELECT player, {', '.join(FIELDS)} FROM kept_ratings"
                         " WHERE season = %s", (season,))}


# ---------------------------------------------------------------- the ingest's trigger

REFRESH_S = 5.0           # an ingest starts a refresh at most this often


class Trigger:
    """The ingest's hook: after games were written (``changed`` grew), start
    ``python -m shutbox_hw.league.ratings`` (one :func:`refresh`) as a process of its
    own, at most once every :data:`REFRESH_S` (and after one that took longer, after as
    long a rest as it took) and one at a time, so a refresh never
    holds an acknowledgement back; games written while one runs start another after
    it. The DSN goes in the environment (never on a command line others can read)."""

    def __init__(self, dsn: str, every_s: float = REFRESH_S) -> None:
        self.dsn = dsn
        self.every_s = every_s
        self.seen = 0
        self.child: subprocess.Popen[bytes] | None = None
        self.started = -every_s
        self.rest_until = 0.0     # no refresh before (a long one earns a long rest)

    def tick(self, changed: int) -> None:
        now = time.monotonic()
        if self.child is not None and self.child.poll() is not None:
            if self.child.returncode != 0:
                self.seen = -1          # failed: tried again at the next tick
            self.child = None
            # as long a rest as the refresh took: refreshes use half a core at most
            self.rest_until = now + (now - self.started)
        if changed == self.seen or self.child is not None or now < self.rest_until \
                or now - self.started < self.every_s:
            return
        self.seen, self.started = changed, now
        try:
            self.child = subprocess.Popen(
                [sys.executable, "-m", "shutbox_hw.league.ratings"],
                env={**os.environ, "SHUTBOX_LEAGUE_DSN": self.dsn}, stdin=subprocess.DEVNULL)
        except OSError as error:     # tried again at the next tick
            self.seen = -1
            log.warning("league ingest: cannot start the ratings' refresh: %s", error)

    def close(self, wait_s: float = 30.0) -> None:
        if self.child is not None:
            try:
                self.child.wait(wait_s)
            except subprocess.TimeoutExpired:
                self.child.kill()
                self.child.wait()


def main() -> int:
    """One refresh of the kept values (the DSN from ``SHUTBOX_LEAGUE_DSN``)."""
    import psycopg
    dsn = os.environ.get("SHUTBOX_LEAGUE_DSN", "")
    try:
        with psycopg.connect(dsn, connect_timeout=10, autocommit=True) as conn:
            check(conn)
            kept = refresh(conn)
    except (psycopg.Error, UserError, LeagueSchemaError) as error:
        print(f"league ratings: {' '.join(str(error).split())}", file=sys.stderr)
        return 1
    print(f"league ratings: {kept.games} game(s), {len(kept.ratings)} rating(s) kept",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
