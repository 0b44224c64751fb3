"""A scripted night (issue 34, point 5): named players claim seats on the simulated
box, game after game, played with the simulator's script lines; their statistics
and high scores on the OLED (the idle screen's pages), the TV's live data, the web
pages and ``players --json`` equal :mod:`player_truth`'s computation from the
record the night wrote (plain SQL and Python over games, seats, turns and the rated
turns; never the statistics tables).

Some games are moved back 3 and 10 days in the record, so that tonight, this week
and all time differ; the move accuracy is rated as the box's rater does it (off
the loop, :func:`~shutbox_hw.store.tables.ratings.rate_new`).
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import time
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest
from player_truth import accuracy, accuracy_table, high_scores, truth
from sim_play import Player
from test_web_browser import browser  # noqa: F401  (the fixture)
from web_server import InProcessServer, need_web

from shutbox_hw.base.events import SeatClaim
from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.display.attract import ATTRACT_PAGE_MS
from shutbox_hw.game.display.screens import AttractScreen
from shutbox_hw.network.live import live
from shutbox_hw.rules import dice_choice, full_board, legal_closures, tiles_of
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.store.read.highscores import ACCURACY_GAMES, TOP
from shutbox_hw.store.read.tonight import tonight_since, week_since
from shutbox_hw.store.tables import ratings
from shutbox_hw.strategy.cache import solver_for
from shutbox_hw.strategy.rating import rater_for_record

REGULARS = ("Anna", "Ben")
OTHERS = ("Zoë", "cleo", "Dev", "ödön")
GAMES = 12
DAY = 24 * 3600.0


class NightPlayer(Player):
    """Plays whole games to their end (sim_play's player, who stops a game early)."""

    def play_to_end(self, seats: int) -> None:
        self.do(f"start {seats}")
        start = len(self.events)
        while not any(e["event"] == "game_ended" for e in self.events[start:]):
            shut = self._shut()
            if shut and self._turn_over() and not any(
                    e["event"] == "turn_started" for e in self.events[-3:]):
                self.do("open " + " ".join(map(str, shut)))
                continue
            open_mask = full_board(self.rules.tiles) & ~sum(1 << (t - 1) for t in shut)
            count = 1 if dice_choice(self.rules, open_mask) == "one" else 2
            faces = [self.rng.randint(1, 6) for _ in range(count)]
            seen = len(self.events)
            self.do("dice " + " ".join(map(str, faces)))
            self.do("roll")
            if any(e["event"] in ("turn_ended", "game_ended") for e in self.events[seen:]):
                continue
            closures = legal_closures(self.rules, open_mask, tuple(faces))
            if closures:
                self.do("close " + " ".join(map(str, tiles_of(self.rng.choice(closures)))))
        self.runner.let_ends_show()
        if self._shut():
            self.do("open " + " ".join(map(str, self._shut())))
        self.runner.press("roll")          # the result seen: back to setting up


def rater_for(cache: Path):
    return lambda rules_json: rater_for_record(rules_json,
                                               lambda rules: solver_for(rules, cache_dir=cache))


def rate_all(path: Path, cache: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        while ratings.rate_new(db, rater_for(cache), limit=200):
            pass
        while ratings.backfill(db, rater_for(cache), limit=200):
            pass
    finally:
        db.close()


def move_back(path: Path, games: range, seconds: float) -> None:
    db = sqlite3.connect(path)
    with db:
        db.executemany("UPDATE games SET started_at = started_at - ? WHERE id = ?",
                       [(seconds, g) for g in games])
    db.close()


def windows(now: float) -> dict[str, float | None]:
    return {"tonight": tonight_since(now), "week": week_since(now), "all_time": None}


def expected_tables(db: sqlite3.Connection, now: float) -> dict[tuple[str, str], list]:
    out = {}
    for period, since in windows(now).items():
        for kind, entries in high_scores(db, since, TOP).items():
            out[(period, kind)] = [(n, float(v)) for n, v in entries]
        out[(period, "accuracy")] = accuracy_table(db, since, TOP, ACCURACY_GAMES)
    return out


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    """The night played: its database, and the OLED's tables and pages as last shown."""
    need_web()
    folder = tmp_path_factory.mktemp("night")
    path, cache = folder / "box.db", folder / "cache"
    config = load_config(None, preset="klappenspiel", rule_overrides={"threshold": "10"})
    events: list[dict] = []
    runner = SimRunner(config, path, seed=34, on_event=events.append)
    player = NightPlayer(runner, events, seed=34)
    rng = random.Random(34)
    for number in range(1, GAMES + 1):
        names = list(REGULARS) + rng.sample(OTHERS, rng.randint(0, 1))
        rng.shuffle(names)
        for name in names:                      # each claims the next free seat
            runner.daemon.feed(SeatClaim(name, "box", runner.world.now_ms()))
            runner.advance(50)
        player.play_to_end(3)
        if number == 2:
            move_back(path, range(1, 3), 10 * DAY)
        elif number == 5:
            move_back(path, range(3, 6), 3 * DAY)
        elif number == GAMES - 1:
            rate_all(path, cache)            # the rater catches up before the last game
    assert runner.finish() == 0
    state = runner.daemon.controller.state
    oled = {(t.period, t.kind): list(t.entries) for t in state.high_scores}
    pages = []
    shown = runner.daemon.render

    def seen(screen):
        if isinstance(screen, AttractScreen):
            pages.append(screen.high_score)
        return shown(screen)
    runner.daemon.render = seen
    for _ in range(30):
        runner.advance(ATTRACT_PAGE_MS)
    oled_now = time.time()
    runner.daemon.store.close()
    db = sqlite3.connect(path)
    oled_truth = expected_tables(db, oled_now)
    db.close()
    rate_all(path, cache)                    # and then rates the last game too
    return {"path": path, "oled": oled, "pages": pages, "oled_truth": oled_truth,
            "events": events}


def test_the_night_has_regulars_and_newcomers(night):
    db = sqlite3.connect(night["path"])
    names = {n for n, in db.execute("SELECT name FROM roster")}
    games = db.execute("SELECT COUNT(*) FROM games WHERE ended_at IS NOT NULL AND NOT"
                       " abandoned").fetchone()[0]
    db.close()
    assert set(REGULARS) <= names and len(names) >= 4 and games == GAMES
    assert sum(e["event"] == "seat_claimed" for e in night["events"]) >= 2 * GAMES
    regular = accuracy(sqlite3.connect(night["path"]))["Anna"]
    assert regular[0] >= ACCURACY_GAMES          # the best-moves table has somebody


def test_the_oled_shows_the_record_s_high_scores(night):
    expected = night["oled_truth"]
    assert {k: v for k, v in night["oled"].items()} == expected
    assert expected[("tonight", "best_turn")] != expected[("all_time", "best_turn")] or \
        expected[("tonight", "wins")] != expected[("all_time", "wins")]
    assert expected[("all_time", "accuracy")]
    # the idle screen's pages: every table with somebody in it, a longer period's only
    # where it differs from the shorter one's
    wanted, last = [], {}
    for period in ("tonight", "week", "all_time"):
        for kind in ("best_turn", "boxes_shut", "wins", "accuracy"):
            entries = expected[(period, kind)]
            if entries and entries != last.get(kind):
                wanted.append((period, kind, entries))
            last[kind] = entries
    shown = {(p.period, p.kind, tuple(p.entries)) for p in night["pages"] if p is not None}
    assert shown == {(p, k, tuple(e)) for p, k, e in wanted}


def test_players_json_equals_the_record(night, capsys):
    assert main(["players", "--db", str(night["path"]), "--json"]) == 0
    shown = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    db = sqlite3.connect(night["path"])
    expected, rated = truth(db), accuracy(db)
    # the rater has reached every ended turn by now: the accuracy is the whole record's
    unrated = db.execute("SELECT count(*) FROM turns WHERE ended_at IS NOT NULL AND id NOT IN"
                         " (SELECT turn_id FROM turn_ratings)").fetchone()[0]
    db.close()
    assert unrated == 0
    assert set(shown) == set(expected) and rated
    for name, e in expected.items():
        p = shown[name]
        assert (p["games"], p["wins"], p["turns"], p["boxes_shut"], p["best_turn"],
                p["streak"], p["best_streak"]) == (
            e["games"], e["wins"], e["turns"], e["boxes_shut"], e["best_turn"], e["streak"],
            e["best_streak"]), name
        assert p["average_score"] == (round(e["score_sum"] / e["turns"], 1) if e["turns"]
                                      else None)
        assert p["accuracy"] == (rated[name][1] if name in rated else None), name


def test_the_tv_and_the_pages_show_the_same(night):
    path = night["path"]
    db = sqlite3.connect(path)
    now = time.time()
    expected = expected_tables(db, now)
    figures, rated = truth(db), accuracy(db)
    tv = live(db, now)["high_scores"]
    db.close()
    assert {(period, kind): [(r["name"], float(r["value"])) for r in rows]
            for period, tables in tv.items() for kind, rows in tables.items()} == expected
    server = InProcessServer(path)
    try:
        status, _, body = server.get("/live.json")
        assert status == 200 and json.loads(body)["high_scores"] == tv
        status, _, body = server.get("/players?sort=name")
        assert status == 200
        rows = re.findall(r'<tr><td><a href="/players/([^"]+)">[^<]*</a></td>(.*?)</tr>',
                          body.decode())
        assert len(rows) == len(figures)
        for link, cells in rows:
            name = unescape(link)
            values = re.findall(r"<td>(.*?)</td>", cells)
            e = figures[_unquoted(name)]
            assert values[:3] == [str(e["games"]), str(e["wins"]),
                                  f"{round(100 * e['wins'] / e['games'], 1):g} %"
                                  if e["games"] else "–"]
            assert values[4] == str(e["best_turn"]) and values[5] == str(e["boxes_shut"])
            pct = rated.get(_unquoted(name))
            assert values[7] == (f"{pct[1]:g} %" if pct else "–")
        for name, e in figures.items():
            status, _, body = server.get(f"/players/{quote(name, safe='')}")
            text = body.decode()
            assert status == 200 and f"<h1>{name}</h1>" in text
            assert f"<td>Wins</td><td>{e['wins']}</td>" in text
            assert f"<td>Boxes shut</td><td>{e['boxes_shut']}</td>" in text
            assert f"<td>Best run of wins</td><td>{e['best_streak']}</td>" in text
            assert text.count("<svg") == (2 if name in rated else 1)
            status, _, body = server.get(f"/players/{quote(name, safe='')}/games.json")
            games = json.loads(body)["games"]
            assert status == 200 and sum(g["won"] for g in games) == e["wins"]
            assert sum(g["turns"] for g in games) == e["turns"]
            assert sum(g["score_sum"] for g in games) == e["score_sum"]
        status, _, body = server.get("/highscores")
        sections = body.decode().split("<h2>")[1:]
        for section, period in zip(sections, ("tonight", "week", "all_time"), strict=True):
            for block, kind in zip(section.split("<h3>")[1:],
                                   ("best_turn", "boxes_shut", "wins", "accuracy"), strict=True):
                got = [(unescape(n), float(v.rstrip(" %"))) for n, v in re.findall(
                    r'<td>\d+</td><td><a href="[^"]+">([^<]*)</a></td><td>([^<]*)</td>', block)]
                assert got == expected[(period, kind)], (period, kind)
        assert server.get("/players/Nobody%20Here")[0] == 404
    finally:
        server.stop()


def _unquoted(link: str) -> str:
    from urllib.parse import unquote
    return unquote(link)


def test_a_browser_shows_the_tv_s_high_scores_and_the_leaderboard_as_the_record(
        night, browser):
    """Debian's Chromium on the TV page and on /players after the night: what a
    person reads there (the rendered text) equals the independent computation."""
    path = night["path"]
    db = sqlite3.connect(path)
    expected, figures, rated = expected_tables(db, time.time()), truth(db), accuracy(db)
    db.close()
    server = InProcessServer(path)
    try:
        base = f"http://127.0.0.1:{server.port}"
        browser.get(base + "/")
        deadline = time.monotonic() + 20
        read = "return [...document.querySelectorAll('#scores div.scores')].map(c => " \
               "[...c.children].map(e => [e.tagName, e.innerText]))"
        while not (columns := browser.execute_script(read)) and time.monotonic() < deadline:
            time.sleep(0.2)
        titles = {"Tonight": "tonight", "This week": "week", "All time": "all_time"}
        kinds = {"Best turn": "best_turn", "Boxes shut": "boxes_shut", "Most wins": "wins",
                 "Best moves": "accuracy"}
        seen: dict[tuple[str, str], list[tuple[str, float]]] = {}
        for column in columns:
            period, kind = titles[column[0][1]], None
            for tag, words in column[1:]:
                if tag == "H3":
                    kind = kinds[words]
                    seen[(period, kind)] = []
                else:
                    place = re.fullmatch(r"\d+\. (.+?)\s+([\d.]+)( %)?", words.strip())
                    assert place, words
                    seen[(period, kind)].append((place[1], float(place[2])))
        shown_tables = {k: v[:3] for k, v in expected.items() if v}
        assert seen == shown_tables and seen
        browser.get(base + "/players?sort=name")
        rows = browser.execute_script(
            "return [...document.querySelectorAll('table tr')].slice(1).map(r =>"
            " [...r.cells].map(c => c.innerText))")
        assert {r[0] for r in rows} == set(figures)
        for row in rows:
            e, pct = figures[row[0]], rated.get(row[0])
            assert row[1:3] == [str(e["games"]), str(e["wins"])], row
            assert row[8] == (f"{pct[1]:g} %" if pct else "–"), row
    finally:
        server.stop()
