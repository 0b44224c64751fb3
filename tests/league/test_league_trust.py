"""Trust marks (issue 41, item 7): games crafted to trip each flag and games that must
not, written as the ingest writes them into a real PostgreSQL; the season that counts
only checked dice; the operator's decisions kept, honoured by the standings and by
``league rebuild``; the flags on the league's page. Each figure is worked out here
from the crafted games (the chi-square by its formula, the bounds by hand)."""

from __future__ import annotations

import copy
import datetime as dt
import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from forked import sb_run
from league_parts import PRACTICE, Postgres, need_parts

from shutbox_hw.league.standings import Season, counts
from shutbox_hw.league.trust import (
    CHI2_CRITICAL,
    chi_square,
    faces_of,
    fast_bound,
    fast_throws,
    p_value,
)
from shutbox_hw.store.tables.game_record import game_record

# ------------------------------------------------------------------ the rules alone


def test_the_bounds_and_the_chi_square_by_hand():
    # a hand: 0.25 s for a closure's first flap, 0.1 s for each further one
    assert [fast_bound(n) for n in (1, 2, 4)] == [0.25, 0.35, pytest.approx(0.55)]
    turn = {"round": 1, "seat": 0, "throws": [
        {"number": 1, "dice": [3, 4], "closed": [7], "rolled_at": 10.0, "committed_at": 10.24},
        {"number": 2, "dice": [1, 2], "closed": [1, 2], "rolled_at": 11.0,
         "committed_at": 11.36},      # two flaps in 0.36 s: a hand can
        {"number": 3, "dice": [2], "closed": [], "rolled_at": 12.0, "committed_at": 12.0}]}
    fast = fast_throws({"turns": [turn]})
    assert [(f.throw, f.flaps, round(f.seconds, 2)) for f in fast] == [(1, 1, 0.24)]
    # faces: 3, 4, 1, 2, 2 -> [1, 2, 1, 1, 0, 0]
    assert faces_of({"turns": [turn]}, {0: "anna"}) == {"anna": [1, 2, 1, 1, 0, 0]}
    # Pearson: 60 dice, fair 10 each; faces 20, 8, 8, 8, 8, 8: (100 + 5 * 4) / 10 = 12
    assert chi_square([20, 8, 8, 8, 8, 8]) == pytest.approx(12.0)
    assert chi_square([10] * 6) == 0.0
    # p of the critical value is 0.001; of 11.07 (the 5 % point of 5 df) 0.05
    assert p_value(CHI2_CRITICAL) == pytest.approx(0.001, rel=1e-3)
    assert p_value(11.0705) == pytest.approx(0.05, rel=1e-3)
    # a season of checked dice counts software and module dice only
    season = Season("s", dt.date(2026, 12, 1), dt.date(2026, 12, 31), checked_dice=True)
    game = {"state": "finished", "ended_at": dt.datetime(2026, 12, 5, tzinfo=dt.UTC)
            .timestamp(), "rules": {"preset": "pub"}}
    assert [counts(season, "Crown", {**game, "dice": d})
            for d in ("software", "module", "manual", None)] == [True, True, False, False]
    assert counts(Season("t", season.starts, season.ends), "Crown", {**game, "dice": "manual"})


# ------------------------------------------------------------------ against PostgreSQL

BOX = '[rules]\npreset = "crafthouse-12"\nmatch = "single-round"\n'


def league(dsn: str, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    out = sb_run(["league", *args, "--dsn", dsn], timeout=120)
    assert out.returncode == code, (out.stdout, out.stderr)
    return out


def base_record(folder: Path) -> dict[str, Any]:
    """One game as a box records it (practice-001: two seats, P2 wins)."""
    db, config = folder / "base.db", folder / "base.toml"
    config.write_text(BOX)
    out = sb_run(["sim", "--config", str(config), "--db", str(db), "--script",
                  str(PRACTICE)], timeout=120)
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(db) as con:
        record = game_record(con, 1)
    assert record is not None
    return record


def crafted(base: dict[str, Any], game: int, names: list[str], *, ended: float,
            faces: dict[int, Any] | None = None, gap: float = 1.5,
            quick: float | None = None, dice: str = "software") -> bytes:
    """``base`` as game ``game`` of box t1 with ``names`` in its seats, each closure
    committed ``gap`` s after its roll and 0.1 s more for each further flap (``quick``:
    the first two-flap closure that fast),
    ``faces``: seat -> a face every die shows or a list cycled, ``dice``: the game's dice
    (manual: no throw seen)."""
    record = copy.deepcopy(base)
    record.update(game=game, dice=dice, ended_at=ended, started_at=ended - 600)
    record["seats"] = [{"seat": i, "name": n} for i, n in enumerate(names)]
    winners = [names[int(w[1:]) - 1] if w in ("P1", "P2") else w
               for w in base["result"]["winners"]]
    record["result"] = {**base["result"], "winners": winners}
    at, used = ended - 500, False
    cycle: dict[int, int] = {}
    for turn in record["turns"]:
        for throw in turn["throws"]:
            at += 3.0
            throw["rolled_at"] = at
            throw["committed_at"] = at + gap + 0.1 * max(len(throw["closed"] or []) - 1, 0)
            if quick is not None and not used and len(throw["closed"] or []) == 2:
                throw["committed_at"], used = at + quick, True
            want = (faces or {}).get(turn["seat"])
            if dice == "manual":
                throw["dice"] = None
            elif isinstance(want, int):
                throw["dice"] = [want] * len(throw["dice"])
            elif isinstance(want, list):
                shown = []
                for _ in throw["dice"]:
                    n = cycle.get(turn["seat"], 0)
                    shown.append(want[n % len(want)])
                    cycle[turn["seat"]] = n + 1
                throw["dice"] = shown
    assert quick is None or used
    return json.dumps({"box": "t1", "epoch": "feedfacefeedface", "seq": 1, "at": 0.0,
                       **record}).encode()


def write(dsn: str, payloads: list[bytes]) -> None:
    import psycopg

    from shutbox_hw.league.record import write as ingest_write
    with psycopg.connect(dsn, autocommit=True) as conn:
        for payload in payloads:
            assert ingest_write(conn, "shutbox/t1/game", payload).kind == "stored"


def flags(dsn: str) -> list[dict]:
    return [json.loads(line) for line in league(dsn, "flags", "--json").stdout.splitlines()]


def table(dsn: str, season: str) -> dict[str, int]:
    out = league(dsn, "standings", "--json", "--season", season)
    return {row["player"]: row["games"] for row in map(json.loads, out.stdout.splitlines())}


@pytest.mark.league
@pytest.mark.other_user
@pytest.mark.slow
def test_flags_checked_dice_and_decisions(tmp_path):
    need_parts()
    base = base_record(tmp_path)
    day = dt.datetime(2026, 12, 5, 20, tzinfo=dt.UTC).timestamp()
    even = [1, 2, 3, 4, 5, 6]
    games = []
    # Dan's dice: every one a six, three games (21 dice a turn: 63): far from fair.
    # Eve's: 1..6 in turn, 63 dice: as fair as dice get
    for n in (1, 2, 3):
        games.append(crafted(base, n, ["Dan", "Eve"], ended=day + n * 60,
                             faces={0: 6, 1: even}))
    # Fay: sixes too, but 42 dice: too few to judge
    for n in (4, 5):
        games.append(crafted(base, n, ["Fay", "Gus"], ended=day + n * 60, faces={0: 6}))
    # Hal and Ivy: a two-flap closure 0.34 s after the dice (a hand needs 0.35): flagged;
    # every one-flap closure at 0.26 s (a hand needs 0.25) and two-flap one at 0.36 s
    # (0.35): not
    games.append(crafted(base, 6, ["Hal", "Ivy"], ended=day + 360, quick=0.34))
    games.append(crafted(base, 7, ["Hal", "Ivy"], ended=day + 420, gap=0.26))
    # manual dice: the box never saw the throws
    games.append(crafted(base, 8, ["Hal", "Ivy"], ended=day + 480, dice="manual"))
    dsn = _database(tmp_path)
    league(dsn, "migrate")
    write(dsn, games)
    league(dsn, "season", "--name", "All", "--from", "2026-12-01", "--to", "2026-12-31",
           "--min-games", "1")
    league(dsn, "season", "--name", "Checked", "--from", "2026-12-01", "--to",
           "2026-12-31", "--min-games", "1", "--checked-dice")
    # the checked season leaves the manual game out, the other counts it
    assert table(dsn, "All")["Hal"] == 3 and table(dsn, "Checked")["Hal"] == 2
    found = flags(dsn)
    by = {(f["kind"], f["player"] or f["game"], f["season"]) for f in found}
    # a fast game: 6 only; the dice: Dan, in each season (his games count in both)
    assert by == {("fast", 6, None), ("dice", "dan", "All"), ("dice", "dan", "Checked")}
    fast = next(f for f in found if f["kind"] == "fast")
    assert "0.340 s after the dice showed" in fast["reason"] and "2 flap(s)" in fast["reason"]
    assert "at least 0.35 s" in fast["reason"] and fast["games"] == [
        {"box": "t1", "epoch": "feedfacefeedface", "game": 6}]
    dice = next(f for f in found if f["kind"] == "dice" and f["season"] == "All")
    # Dan's 63 sixes: fair is 10.5 a face; (52.5² + 5 · 10.5²) / 10.5 = 315
    assert "63 dice" in dice["reason"] and "chi-square 315.0" in dice["reason"]
    assert [g["game"] for g in dice["games"]] == [1, 2, 3]
    assert all(f["decision"] is None for f in found)
    # the text form names each flag's number and says how to decide
    text = league(dsn, "flags").stdout
    assert f"#{fast['id']} fast box t1 epoch feedfacefeedface game 6:" in text
    assert "undecided (--clear ID or --exclude ID)" in text
    # the operator excludes the fast game: it counts in no season, and rebuild agrees
    decided = league(dsn, "flags", "--exclude", str(fast["id"]), "--json")
    assert json.loads(decided.stdout)["decision"] == "excluded"
    assert table(dsn, "All")["Hal"] == 2 and table(dsn, "Checked")["Hal"] == 1
    rebuilt = json.loads(league(dsn, "rebuild", "--json").stdout)
    assert rebuilt["equal"], rebuilt
    # and clears Dan's dice in All: kept cleared, the games counting as before
    league(dsn, "flags", "--clear", str(dice["id"]))
    league(dsn, "ratings")                   # a refresh keeps the decisions
    after = {f["id"]: f["decision"] for f in flags(dsn)}
    assert after[fast["id"]] == "excluded" and after[dice["id"]] == "cleared"
    assert table(dsn, "All")["Dan"] == 3
    # a decision undone: the game counts again
    league(dsn, "flags", "--clear", str(fast["id"]))
    assert table(dsn, "All")["Hal"] == 3
    assert json.loads(league(dsn, "rebuild", "--json").stdout)["equal"]
    # mistakes: one line each
    out = league(dsn, "flags", "--exclude", "999", code=2)
    assert out.stderr.strip().startswith("shutbox-hw league: no flag 999 (known: ")
    out = league(dsn, "flags", "--exclude", "x", code=2)
    assert "expected a flag's number" in out.stderr
    out = league(dsn, "standings", "--clear", "1", code=2)
    assert "--clear go(es) with league flags, not standings" in out.stderr


_PG: list[Postgres] = []


def _database(folder: Path) -> str:
    pg = Postgres()
    _PG.append(pg)
    pg.start()
    return pg.dsn


@pytest.fixture(autouse=True)
def _clusters():
    yield
    while _PG:
        _PG.pop().destroy()
