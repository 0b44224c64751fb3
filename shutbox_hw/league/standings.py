"""Seasons and standings (issue 41, item 2): ``shutbox-hw league season`` and
``shutbox-hw league standings``.

A season counts only the league's games that are **finished** (an abandoned game
counts for nobody), ended on one of its dates (the UTC date of the game's
``ended_at`` as the box recorded it, both ends inclusive), played under one of its
rule sets (the record's ``rules.preset``) at one of its venues (the box's venue in
the table ``boxes``; a box whose venue is not known is a venue of its own, named
by the box's id); an empty list of rule sets or venues is every one. Casual play
outside these is not counted.

:func:`standings` is pure: the games' records in, one row per player out. Players
are matched by their seat's name as the box's roster compares names (case and
accents folded: "Bén" and "ben" are one player), shown under the spelling their
games use most (of equals, the first in Unicode order): league identities with a
secret are later work (issue 41, item 1).

Per player: ``games``, ``wins`` (the player among the game's winners), ``points``
(:data:`POINTS_WIN` for a sole win, :data:`POINTS_SHARED` for a win shared with
another player, 0 otherwise), ``turn_score`` (the average of the player's turns'
``score``), ``boxes_shut`` (turns that shut the box), ``accuracy`` (the share of
the player's rated decisions whose loss against the solver's best is zero, in per
cent with one decimal; None without any rated decision) and ``rated`` (how many).
Seats nobody named (the box's labels P1, P2, ...) are casual and count for
nobody. A player with fewer than the season's ``min_games`` is not ranked. The order,
and the tie-breaks in it: points, then wins, then boxes shut, then accuracy (none
last), all the more the better; players equal on all four share a rank (1, 2, 2, 4)
and are listed by name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..players.names import is_seat_label, name_key, tidy

POINTS_WIN = 3
POINTS_SHARED = 1
MIN_GAMES = 3            # a season's default minimum of games to be ranked
BAND_GAMES = 10          # a season's default of rated games before an accuracy band
BEST = 1e-9              # a decision whose loss is at most this is the solver's best


@dataclass(frozen=True)
class Season:
    name: str
    starts: dt.date
    ends: dt.date
    rules: tuple[str, ...] = ()
    venues: tuple[str, ...] = ()
    min_games: int = MIN_GAMES
    band_games: int = BAND_GAMES     # the accuracy band's minimum (league/ratings.py)
    checked_dice: bool = False       # only games with dice the box saw (league/trust.py)

    def as_json(self) -> dict[str, Any]:
        return {"season": self.name, "from": self.starts.isoformat(),
                "to": self.ends.isoformat(), "rules": list(self.rules),
                "venues": list(self.venues), "min_games": self.min_games,
                "band_games": self.band_games, "checked_dice": self.checked_dice}


class SeasonError(Exception):
    """A season that cannot be made or found (message: why, in one line)."""


CHECKED_DICE = ("software", "module")   # the dice a season of checked dice counts

# a game the operator excluded (``league flags --exclude``) counts in no season
NOT_EXCLUDED = ("NOT EXISTS (SELECT 1 FROM flag_games fg JOIN flags f ON f.id = fg.flag"
                " WHERE f.decision = 'excluded' AND fg.box = g.box AND fg.epoch = g.epoch"
                " AND fg.game = g.game)")


def counts(season: Season, venue: str, record: dict[str, Any]) -> bool:
    """Whether the game ``record`` (played at ``venue``) counts in ``season``."""
    if record.get("state") != "finished":
        return False
    if season.checked_dice and record.get("dice") not in CHECKED_DICE:
        return False
    ended = record.get("ended_at")
    if not isinstance(ended, (int, float)) or isinstance(ended, bool):
        return False
    day = dt.datetime.fromtimestamp(float(ended), dt.UTC).date()
    if not season.starts <= day <= season.ends:
        return False
    rules = record.get("rules")
    preset = rules.get("preset") if isinstance(rules, dict) else None
    if season.rules and preset not in season.rules:
        return False
    return not season.venues or venue in season.venues


def win_points(winners: int) -> int:
    """The points of a win among ``winners`` players who won (the game's result)."""
    return POINTS_WIN if winners == 1 else POINTS_SHARED


@dataclass
class _Tally:
    games: int = 0
    wins: int = 0
    points: int = 0
    turns: int = 0
    score_sum: float = 0.0
    boxes_shut: int = 0
    rated: int = 0
    best: int = 0
    spellings: dict[str, int] = field(default_factory=dict)

    @property
    def shown(self) -> str:
        return min(self.spellings, key=lambda name: (-self.spellings[name], name))


def _tally_game(tallies: dict[str, _Tally], record: dict[str, Any],
                key_of: Callable[[str], str]) -> None:
    """One game of the season counted into each of its players' tallies: played, won
    (the points), turns and their scores, boxes shut, moves rated and the best ones."""
    winners = {key_of(str(w)) for w in record["result"].get("winners") or []}
    names: dict[int, str] = {}       # seat -> the player's key
    for seat in record["seats"]:
        name = tidy(str(seat["name"]))
        key = key_of(name)
        if key and not is_seat_label(name) and key not in names.values():
            names[int(seat["seat"])] = key
            spellings = tallies.setdefault(key, _Tally()).spellings
            spellings[name] = spellings.get(name, 0) + 1
    for key in names.values():
        tally = tallies[key]
        tally.games += 1
        if key in winners:
            tally.wins += 1
            tally.points += win_points(len(winners))
    for turn in record.get("turns") or []:
        player = names.get(turn.get("seat", -1))
        if player is None:
            continue
        tally = tallies[player]
        if isinstance(turn.get("score"), (int, float)):
            tally.turns += 1
            tally.score_sum += turn["score"]
        if turn.get("shut") is True:
            tally.boxes_shut += 1
    for rating in record.get("ratings") or []:
        rater = names.get(rating.get("seat", -1))
        if rater is None or not isinstance(rating.get("loss"), (int, float)):
            continue
        tallies[rater].rated += 1
        tallies[rater].best += rating["loss"] <= BEST


def standings(games: Iterable[tuple[str, dict[str, Any]]], season: Season,
              venue: str | None = None) -> list[dict[str, Any]]:
    """The ranked players of ``season`` from ``games`` ((venue, record) pairs: the
    league's games as the boxes recorded them, ratings included), best first;
    ``venue``: only that venue's games."""
    tallies: dict[str, _Tally] = {}
    keys: dict[str, str] = {}       # name -> its key (a league's few names, many games)

    def key_of(name: str) -> str:
        found = keys.get(name)
        if found is None:
            found = keys[name] = name_key(name)
        return found
    for where, record in games:
        if (venue is not None and where != venue) or not counts(season, where, record):
            continue
        _tally_game(tallies, record, key_of)
    rows = []
    for t in tallies.values():
        if t.games < season.min_games:
            continue
        rows.append({"player": t.shown, "games": t.games, "wins": t.wins, "points": t.points,
                     "turn_score": round(t.score_sum / t.turns, 2) if t.turns else None,
                     "boxes_shut": t.boxes_shut,
                     "accuracy": round(100.0 * t.best / t.rated, 1) if t.rated else None,
                     "rated": t.rated})

    def merit(row: dict[str, Any]) -> tuple[float, ...]:
        accuracy = row["accuracy"]
        return (-row["points"], -row["wins"], -row["boxes_shut"],
                1.0 if accuracy is None else 0.0, -(accuracy or 0.0))
    rows.sort(key=lambda row: (merit(row), row["player"]))
    for index, row in enumerate(rows):
        before = rows[index - 1] if index else None
        row["rank"] = before["rank"] if before and merit(before) == merit(row) else index + 1
    return rows


# ---------------------------------------------------------------- the database's side

def make_season(conn: Any, season: Season) -> None:
    """Record a new season (a name already taken is refused)."""
    if not season.name.strip():
        raise SeasonError("--name must not be empty")
    if season.ends < season.starts:
        raise SeasonError(f"--to {season.ends} is before --from {season.starts}")
    row = conn.execute(
        "INSERT INTO seasons (name, starts, ends, rules, venues, min_games, band_games,"
        " checked_dice) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (name) DO NOTHING"
        " RETURNING name",
        (season.name, season.starts, season.ends, list(season.rules), list(season.venues),
         season.min_games, season.band_games, season.checked_dice)).fetchone()
    if row is None:
        raise SeasonError(f"a season named {season.name!r} exists already")


def season_of(row: tuple[Any, ...]) -> Season:
    name, starts, ends, rules, venues, min_games, band_games, checked_dice = row
    return Season(name, starts, ends, tuple(rules), tuple(venues), int(min_games),
                  int(band_games), bool(checked_dice))


SEASON_COLUMNS = "name, starts, ends, rules, venues, min_games, band_games, checked_dice"


def find_season(conn: Any, name: str | None, today: dt.date) -> Season:
    """The season ``name``; without a name, the one running ``today`` (of several, the
    latest started, then the last made), else the latest started before today."""
    if name is not None:
        row = conn.execute(f"SELECT {SEASON_COLUMNS} FROM seasons WHERE name = %s",
                           (name,)).fetchone()
        if row is None:
            known = [n for n, in conn.execute("SELECT name FROM seasons ORDER BY starts")]
            raise SeasonError(f"no season named {name!r} (known: "
                              + (", ".join(known) if known else "none") + ")")
        return season_of(row)
    row = conn.execute(
        f"SELECT {SEASON_COLUMNS} FROM seasons WHERE starts <= %s"
        " ORDER BY (ends >= %s) DESC, starts DESC, created_at DESC, name LIMIT 1",
        (today, today)).fetchone()
    if row is None:
        raise SeasonError("no season has started yet: make one with shutbox-hw league "
                          "season, or name one with --season")
    return season_of(row)


def season_games(conn: Any, season: Season) -> list[tuple[str, dict[str, Any]]]:
    """The league's finished games ended within ``season``'s dates (none the operator
    excluded), as (venue, the parts of its record the standings read, with the stored
    ratings: each turn's seat, score and shut, each rating's seat and loss);
    :func:`counts` decides the rest."""
    start = dt.datetime.combine(season.starts, dt.time(), dt.UTC).timestamp()
    end = dt.datetime.combine(season.ends + dt.timedelta(days=1), dt.time(),
                              dt.UTC).timestamp()
    # only what the standings read of each game (its throws stay in the database)
    rows = conn.execute(
        "SELECT coalesce(b.venue, g.box), jsonb_build_object('game', g.record->'game',"
        " 'state', g.record->'state', 'ended_at', g.record->'ended_at', 'rules',"
        " jsonb_build_object('preset', g.record->'rules'->'preset'), 'dice',"
        " g.record->'dice', 'seats', g.record->'seats', 'result', g.record->'result',"
        " 'turns', coalesce((SELECT jsonb_agg(jsonb_build_object('seat', t->'seat', 'score',"
        " t->'score', 'shut', t->'shut')) FROM jsonb_array_elements(CASE WHEN"
        " jsonb_typeof(g.record->'turns') = 'array' THEN g.record->'turns' ELSE '[]' END)"
        " t), '[]'), 'ratings', coalesce((SELECT jsonb_agg(jsonb_build_object('seat',"
        " r->'seat', 'loss', r->'loss')) FROM jsonb_array_elements(CASE WHEN"
        " jsonb_typeof(g.ratings) = 'array' THEN g.ratings ELSE '[]' END) r), '[]'))"
        " FROM games g JOIN boxes b ON b.box = g.box WHERE g.state = 'finished'"
        f" AND g.ended_at >= %s AND g.ended_at < %s AND {NOT_EXCLUDED}"
        " ORDER BY g.box, g.epoch, g.game", (start, end)).fetchall()
    return [(venue, record) for venue, record in rows]
