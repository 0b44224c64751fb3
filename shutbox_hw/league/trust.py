"""Trust marks (issue 41, item 7): which games the league can check, and which look
unlikely.

- **Which dice**: every game's record says its dice (``"dice"``: ``software`` and
  ``module`` are dice the box threw or saw itself, ``manual`` dice it never saw, whose
  throws it cannot check). A season made with ``--checked-dice`` counts only games with
  software or module dice (:data:`.standings.CHECKED_DICE`).
- **A closure faster than a hand** (kind ``fast``): a throw whose closure the box
  committed less than :func:`fast_bound` after the dice were shown (``rolled_at`` to
  ``committed_at`` in the record). The bound: :data:`FAST_FIRST_S` for the first flap
  and :data:`FAST_MORE_S` for each further one. Why these: seeing the dice and
  starting to move takes a person at least a visual reaction time (the fastest
  people react to a light in about 0.15-0.2 s; athletics takes 0.1 s as the limit
  of any human reaction, to a gun), and each further flap is one more push of a
  finger (at least about 0.1 s, the fastest tapping rate being about 10 a second). So
  0.25 s for the first flap and 0.1 s more for each further one is faster than any
  hand: what commits sooner was not moved by a hand at the box (a flap wired or
  driven, a box that replays, a clock that jumped). A game with such a throw of a
  league player is flagged once, naming the fastest.
- **Dice far from fair over a player's season** (kind ``dice``): the faces of every die
  thrown in the player's turns of the season's counted games, against fair dice
  (each face 1/6) by Pearson's chi-square with 5 degrees of freedom. Flagged when the
  statistic exceeds :data:`CHI2_CRITICAL` (20.52: fair dice go beyond it once in a
  thousand player-seasons, p < 0.001) and the player threw at least :data:`DICE_MIN`
  dice (10 expected of each face, where the chi-square's approximation holds).

The flags are looked for at every refresh of the kept values (:func:`detect`, in the
refresh's transaction; and by ``shutbox-hw league flags``), among the games some
season may count, and kept in the table ``flags`` with the games each one names
(``flag_games``). A flag nobody decided on is brought up to date (or dropped when it
no longer holds); a decided one is kept as decided: ``cleared`` (the games count as
before) or ``excluded`` (its games count in no season: the standings, ratings and
``league rebuild`` leave them out).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .seats import players_of
from .standings import NOT_EXCLUDED, SEASON_COLUMNS, Season, counts, season_of

FAST_FIRST_S = 0.25       # the first flap of a closure, from the dice shown
FAST_MORE_S = 0.10        # each further flap
CHI2_CRITICAL = 20.515    # chi-square, 5 degrees of freedom, p = 0.001
DICE_MIN = 60             # dice a player's season needs before the dice are judged
DECISIONS = ("cleared", "excluded")


def fast_bound(flaps: int) -> float:
    """The shortest time in which a hand closes ``flaps`` flaps after seeing the dice."""
    return FAST_FIRST_S + FAST_MORE_S * max(flaps - 1, 0)


def chi_square(faces: list[int]) -> float:
    """Pearson's statistic of six face counts against fair dice."""
    n = sum(faces)
    if n == 0:
        return 0.0
    expected = n / 6.0
    return sum((c - expected) ** 2 / expected for c in faces)


def p_value(statistic: float) -> float:
    """The chance of a chi-square (5 degrees of freedom) at least ``statistic``: for odd
    degrees of freedom the survival function has a closed form."""
    x = max(statistic, 0.0)
    return math.erfc(math.sqrt(x / 2.0)) + math.sqrt(2.0 * x / math.pi) \
        * math.exp(-x / 2.0) * (1.0 + x / 3.0)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


@dataclass(frozen=True)
class Fast:
    seat: int
    round: int
    throw: int
    flaps: int
    seconds: float


def fast_throws(record: dict[str, Any]) -> list[Fast]:
    """The throws of ``record`` whose closure was committed faster than a hand can."""
    found = []
    for turn in record.get("turns") or []:
        if not isinstance(turn, dict):
            continue
        for throw in turn.get("throws") or []:
            if not isinstance(throw, dict):
                continue
            closed = throw.get("closed")
            rolled, committed = _number(throw.get("rolled_at")), \
                _number(throw.get("committed_at"))
            if not isinstance(closed, list) or not closed or rolled is None \
                    or committed is None:
                continue
            seconds = committed - rolled
            if seconds < fast_bound(len(closed)):
                found.append(Fast(int(turn.get("seat", -1)), int(turn.get("round") or 0),
                                  int(throw.get("number") or 0), len(closed), seconds))
    return found


def faces_of(record: dict[str, Any], players: dict[int, str]) -> dict[str, list[int]]:
    """player key -> how often each face 1..6 showed in their throws (dice the box saw)."""
    found: dict[str, list[int]] = {}
    for turn in record.get("turns") or []:
        if not isinstance(turn, dict):
            continue
        key = players.get(turn.get("seat", -1))
        if key is None:
            continue
        for throw in turn.get("throws") or []:
            dice = throw.get("dice") if isinstance(throw, dict) else None
            for die in dice if isinstance(dice, list) else []:
                if isinstance(die, int) and not isinstance(die, bool) and 1 <= die <= 6:
                    found.setdefault(key, [0] * 6)[die - 1] += 1
    return found


@dataclass
class Flag:
    key: str
    kind: str
    reason: str
    games: list[tuple[str, str, int]]
    box: str | None = None
    epoch: str | None = None
    game: int | None = None
    season: str | None = None
    player: str | None = None


@dataclass
class _Seen:
    """What detection keeps of one game."""
    venue: str
    where: tuple[str, str, int]
    record: dict[str, Any]                       # what counts() reads
    faces: dict[str, list[int]] = field(default_factory=dict)


def fast_flag(box: str, epoch: str, game: int, record: dict[str, Any],
              players: dict[int, str]) -> Flag | None:
    """The game's ``fast`` flag (None: no league player's closure was too fast)."""
    fast = [f for f in fast_throws(record) if f.seat in players]
    if not fast:
        return None
    names = {int(s["seat"]): str(s.get("name")) for s in record.get("seats") or []
             if isinstance(s, dict) and "seat" in s}
    quickest = min(fast, key=lambda f: (f.seconds, f.round, f.throw))
    reason = (f"{len(fast)} closure(s) committed faster than a hand can move flaps: the "
              f"fastest {max(quickest.seconds, 0.0):.3f} s after the dice showed "
              f"({names.get(quickest.seat, quickest.seat)}, round {quickest.round} throw "
              f"{quickest.throw}, {quickest.flaps} flap(s); a hand needs at least "
              f"{fast_bound(quickest.flaps):.2f} s)")
    return Flag(f"fast {box} {epoch} {game}", "fast", reason, [(box, epoch, game)],
                box=box, epoch=epoch, game=game)


def dice_flags(season: Season, seen: Iterable[_Seen]) -> list[Flag]:
    """The season's ``dice`` flags: players whose dice were far from fair."""
    totals: dict[str, list[int]] = {}
    games: dict[str, list[tuple[str, str, int]]] = {}
    for game in seen:
        if not counts(season, game.venue, game.record):
            continue
        for key, faces in game.faces.items():
            total = totals.setdefault(key, [0] * 6)
            for i, c in enumerate(faces):
                total[i] += c
            games.setdefault(key, []).append(game.where)
    flags = []
    for key, faces in sorted(totals.items()):
        n, statistic = sum(faces), chi_square(faces)
        if n < DICE_MIN or statistic <= CHI2_CRITICAL:
            continue
        reason = (f"dice far from fair over the season: {n} dice, faces 1-6 shown "
                  f"{', '.join(map(str, faces))} times (fair: {n / 6:.1f} each); "
                  f"chi-square {statistic:.1f} above {CHI2_CRITICAL:.2f} "
                  f"(5 degrees of freedom, p = {p_value(statistic):.1e} < 0.001)")
        flags.append(Flag(f"dice {season.name} {key}", "dice", reason, sorted(games[key]),
                          season=season.name, player=key))
    return flags


class Collector:
    """What detection keeps of each game as the games are read (:meth:`add`: one game;
    the refresh's own read of the games calls it, so nothing is read twice)."""

    def __init__(self) -> None:
        self.flags: list[Flag] = []
        self.seen: list[_Seen] = []

    def add(self, venue: str, box: str, epoch: str, record: dict[str, Any]) -> None:
        players = players_of(record)
        if not players:
            return
        game = int(record["game"])
        flag = fast_flag(box, epoch, game, record, players)
        if flag is not None:
            self.flags.append(flag)
        rules = record.get("rules")
        self.seen.append(_Seen(venue, (box, epoch, game), {
            "state": record.get("state"), "ended_at": record.get("ended_at"),
            "dice": record.get("dice"),
            "rules": {"preset": rules.get("preset")} if isinstance(rules, dict) else None},
            faces_of(record, players)))

    def found(self, seasons: Iterable[Season]) -> list[Flag]:
        """Every flag: the fast games', then each season's dice."""
        flags = sorted(self.flags, key=lambda f: f.key)
        for season in seasons:
            flags += dice_flags(season, self.seen)
        return flags


def _seasons(conn: Any) -> list[Season]:
    return [season_of(row) for row in conn.execute(
        f"SELECT {SEASON_COLUMNS} FROM seasons ORDER BY name")]


def find(conn: Any) -> list[Flag]:
    """Every flag the games some season may count give now (excluded games left out),
    from a read of their own."""
    seasons = _seasons(conn)
    if not seasons:
        return []
    start = dt.datetime.combine(min(s.starts for s in seasons), dt.time(), dt.UTC)
    end = dt.datetime.combine(max(s.ends for s in seasons) + dt.timedelta(days=1), dt.time(),
                              dt.UTC)
    collected = Collector()
    with conn.cursor() as cur:
        for venue, box, epoch, record in cur.stream(
                "SELECT coalesce(b.venue, g.box), g.box, g.epoch, g.record"
                " FROM games g JOIN boxes b ON b.box = g.box WHERE g.state = 'finished'"
                f" AND g.ended_at >= %s AND g.ended_at < %s AND {NOT_EXCLUDED}",
                (start.timestamp(), end.timestamp())):
            collected.add(venue, box, epoch, record)
    return collected.found(seasons)


def detect(conn: Any, collected: Collector | None = None) -> tuple[int, int]:
    """Bring the kept flags up to date (inside the caller's transaction): new ones added,
    undecided ones updated or, when they no longer hold, dropped; decided ones kept as
    they are (``collected``: the games as a refresh read them; without, read here).
    (flags found, new)."""
    found = find(conn) if collected is None else collected.found(_seasons(conn))
    keys = [f.key for f in found]
    conn.execute("DELETE FROM flags WHERE decision IS NULL AND NOT (key = ANY(%s))", (keys,))
    new = 0
    for flag in found:
        row = conn.execute(
            "INSERT INTO flags (key, kind, box, epoch, game, season, player, reason)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (key) DO UPDATE"
            " SET reason = EXCLUDED.reason WHERE flags.decision IS NULL"
            " RETURNING id, (xmax = 0)",
            (flag.key, flag.kind, flag.box, flag.epoch, flag.game, flag.season, flag.player,
             flag.reason)).fetchone()
        if row is None:
            continue            # decided: kept as it was
        flag_id, inserted = row
        new += bool(inserted)
        conn.execute("DELETE FROM flag_games WHERE flag = %s", (flag_id,))
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO flag_games (flag, box, epoch, game)"
                            " VALUES (%s, %s, %s, %s)",
                            [(flag_id, *where) for where in flag.games])
    return len(found), new


def flags(conn: Any) -> list[dict[str, Any]]:
    """Every kept flag, newest first, with its games."""
    rows = conn.execute(
        "SELECT f.id, f.kind, f.box, f.epoch, f.game, f.season, f.player, f.reason,"
        " to_char(f.found_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"
        " f.decision,"
        " to_char(f.decided_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"
        " coalesce((SELECT json_agg(json_build_object('box', fg.box, 'epoch', fg.epoch,"
        "  'game', fg.game) ORDER BY fg.box, fg.epoch, fg.game) FROM flag_games fg"
        "  WHERE fg.flag = f.id), '[]')"
        " FROM flags f ORDER BY f.id DESC").fetchall()
    return [{"id": i, "kind": kind, "box": box, "epoch": epoch, "game": game,
             "season": season, "player": player, "reason": reason, "found_at": found,
             "decision": decision, "decided_at": decided, "games": games}
            for i, kind, box, epoch, game, season, player, reason, found, decision, decided,
            games in rows]


class FlagError(Exception):
    """A decision that cannot be made (message: why, in one line)."""


def decide(conn: Any, flag_id: int, decision: str) -> dict[str, Any]:
    """Record the operator's ``decision`` (cleared or excluded) on flag ``flag_id``."""
    if decision not in DECISIONS:
        raise FlagError(f"a decision is one of {', '.join(DECISIONS)}, not {decision!r}")
    row = conn.execute("UPDATE flags SET decision = %s, decided_at = now() WHERE id = %s"
                       " RETURNING id", (decision, flag_id)).fetchone()
    if row is None:
        known = [str(i) for i, in conn.execute("SELECT id FROM flags ORDER BY id")]
        raise FlagError(f"no flag {flag_id} (known: {', '.join(known) or 'none'})")
    return next(f for f in flags(conn) if f["id"] == flag_id)
