"""A year in the pub (issue 29, point 6): one database through a year of nights.

Each night is a :class:`~pub_night.Night` (the referee: a controller on a
real store, players with real habits, power cuts at random moments, every
match checked against the independent referee) on the *same* database, its
store's clock on a virtual calendar (nights a day apart, matches minutes
apart), the presets in turn. Over the year the audits are reset twice (the
menu's ``audits_reset``), the broker goes away for weeks (every event queues
in the outbox; when it is back the publisher's acknowledgements empty it) and
a TV stays connected throughout (the web's :class:`~shutbox_hw.web.content.reader.Reader`
reading the live summary and the audits from the same file).

After every match: tonight's figures as the box reads them equal the TV's and
a recount of tonight's rows; the audits' running record (the witness's,
carried from night to night and zeroed by the resets) equals what the box's
audits say. Every ``RECOUNT_EVERY`` matches and at the end, the audits equal
:func:`recount.recount` of every row. At the end: every match is a game on
disk, none unfinished, the outbox held every event while the broker was away,
and the daemon's reads execute no more SQLite steps (within ``STEPS_RATIO``)
at the year's end than once every preset had had its night: tonight's figures
(a game's end, the menu) per turn in tonight's window, the audit lines (the
menu) in all.
"""

from __future__ import annotations

import random
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pub_night import Night
from pub_referee import Untrue
from recount import recount, shown

from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.game.model.events import AuditsReset
from shutbox_hw.rules import PRESETS, build_rules
from shutbox_hw.store import Store
from shutbox_hw.store.read.audit import TONIGHT_S, audits, outbox_figures
from shutbox_hw.store.tables import outbox as outbox_rows
from shutbox_hw.web.content.reader import Reader
from shutbox_hw.words.audits import audit_lines

DAY_S = 86400
MATCH_S = 600           # a match, from one start to the next, on the store's clock
RECOUNT_EVERY = 50      # matches between two full recounts of the record
STEPS_RATIO = 1.5       # the reads at the year's end, against the first night's


@dataclass
class Year:
    """What the year did and what it checked, for tests/README.md."""
    matches: int = 0
    nights: int = 0
    resets: int = 0
    recounts: int = 0
    outbox_peak: int = 0
    by: Counter = field(default_factory=Counter)
    read_steps: dict[str, tuple[float, int]] = field(default_factory=dict)


class Calendar:
    """The store's clock: a day per night, ``MATCH_S`` a match."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Ledger:
    """The audits' running record the witness keeps, carried from night to night
    (zeroed by a reset): games, rounds, boxes shut, and the best five scores."""
    record: Counter = field(default_factory=Counter)
    best: list[int] = field(default_factory=list)


class YearNight(Night):
    """A night of the year: its preset chosen, its store on the year's calendar."""

    def __init__(self, seed: int, db: Path, preset: str, calendar: Calendar,
                 ledger: Ledger) -> None:
        self.preset, self.calendar, self.ledger = preset, calendar, ledger
        super().__init__(seed, db)

    def _boot(self, db: Path) -> None:
        rng = random.Random(self.seed)
        overrides: dict[str, Any] = {}
        if PRESETS[self.preset]["match"] in ("race", "elimination"):
            overrides["threshold"] = rng.randint(10, 40)   # shorter matches, more of them
        self.rules = build_rules(self.preset, overrides)
        self.store = Store(db, clock=self.calendar)
        self.witness.record, self.witness.best = self.ledger.record, list(self.ledger.best)
        self.controller = Controller(self.rules, self.game)
        self._apply(self.controller.start(0, 0, self.store.unfinished_game()))

    def match(self) -> None:
        super().match()
        self.ledger.best = list(self.witness.best)   # the witness rebinds its list

    def reset_audits(self) -> None:
        """The menu's "reset audits": the box's and the witness's record start again."""
        self.store.record_all([AuditsReset()])
        self.witness.record.clear()
        self.witness.best = self.ledger.best = []


def tonight_recount(path: Path, now: float) -> tuple[int, int, tuple[str, int] | None]:
    """Tonight's figures from the rows, in plain Python: games finished and boxes shut
    in the games started in the last 12 hours, the lowest score (first turn first)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        games = {gid: (ended, abandoned) for gid, started, ended, abandoned in db.execute(
            "SELECT id, started_at, ended_at, abandoned FROM games") if started >= now - TONIGHT_S}
        names = {(g, s): n for g, s, n in db.execute("SELECT game_id, seat, name FROM players")}
        turns = [(score, tid, names.get((gid, seat)), shut) for tid, gid, seat, score, shut in
                 db.execute("SELECT id, game_id, seat, score, shut FROM turns") if gid in games]
    finally:
        db.close()
    finished = sum(1 for ended, abandoned in games.values() if ended is not None and not abandoned)
    scored = sorted((s, t, n) for s, t, n, _ in turns if s is not None and n is not None)
    return (finished, sum(1 for *_, shut in turns if shut),
            (scored[0][2], scored[0][0]) if scored else None)


def read_steps(store: Store, now: float) -> tuple[float, int]:
    """SQLite virtual-machine steps the daemon's reads execute (a count, not a time):
    tonight's figures (read at every game's end and as the menu opens), per turn in
    tonight's window (what they are meant to cost), and the audit lines (the menu)."""
    db = store.db
    assert db is not None
    turns, = db.execute("SELECT COUNT(*) FROM games g JOIN turns t ON t.game_id = g.id"
                        " WHERE g.started_at >= ?", (now - TONIGHT_S,)).fetchone()
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0
    db.set_progress_handler(count, 1)
    try:
        store.tonight()
        tonight = steps[0]
        audit_lines(store.audit_figures())
    finally:
        db.set_progress_handler(None, 1)
    return tonight / max(1, turns), steps[0] - tonight


def check_tv(tv: Reader, store: Store, path: Path, now: float) -> None:
    """The box, the TV and a recount say the same about tonight and the audits."""
    from shutbox_hw.network.live import live
    box = store.tonight()
    shown_tv = live(tv.connection(), now)["tonight"]
    tv_tonight = (shown_tv["games"], shown_tv["boxes_shut"],
                  None if shown_tv["best"] is None else
                  (shown_tv["best"]["player"], shown_tv["best"]["score"]))
    counted = tonight_recount(path, now)
    if (box.games, box.boxes_shut, box.best) != tv_tonight or tv_tonight != counted:
        raise Untrue(f"tonight: box {box}, TV {tv_tonight}, recount {counted}")
    assert store.db is not None
    if shown(audits(tv.connection())) != shown(audits(store.db)):
        raise Untrue("the TV's audits differ from the box's")


def play_year(seed: int, work: Path, matches: int, *, per_night: int = 4,
              resets: tuple[float, ...] = (1 / 3, 2 / 3),
              broker_away: tuple[float, float] = (0.4, 0.6)) -> Year:
    """``matches`` matches on one database in ``work``; raises Untrue on anything untrue."""
    path = work / "year.db"
    year, calendar, ledger = Year(), Calendar(), Ledger()
    presets = sorted(PRESETS)
    baseline = min(matches, len(presets) * per_night)   # every preset seen once
    tv: Reader | None = None
    reset_at = [round(f * matches) for f in resets]
    away = (round(broker_away[0] * matches), round(broker_away[1] * matches))
    queued_before = 0
    while year.matches < matches:
        preset = presets[year.nights % len(presets)]
        night = YearNight(seed * 100_000 + year.nights, path, preset, calendar, ledger)
        tv = tv or Reader(path)
        year.nights += 1
        try:
            for _ in range(min(per_night, matches - year.matches)):
                if year.matches in reset_at:
                    night.reset_audits()
                    year.resets += 1
                if year.matches == away[0]:
                    queued_before = _sequence(night.store)
                night.store.outbox = (lambda: None) if away[0] <= year.matches < away[1] \
                    else None
                calendar.now += MATCH_S
                night.match()
                year.matches += 1
                year.by[f"preset {preset}"] += 1
                check_tv(tv, night.store, path, calendar.now)
                if year.matches == away[1]:
                    _broker_back(night.store, queued_before, year)
                if year.matches in (baseline, matches):
                    year.read_steps[str(year.matches)] = read_steps(night.store, calendar.now)
                if year.matches % RECOUNT_EVERY == 0 or year.matches == matches:
                    _check_recount(night.store, path)
                    year.recounts += 1
        except Untrue as error:
            raise Untrue(f"year seed {seed}, night {year.nights} ({preset}), match "
                         f"{year.matches}: {error}\n  last inputs: {night.log[-30:]}") from None
        finally:
            night.close()
        calendar.now += DAY_S - per_night * MATCH_S    # closing time; the next evening
    if tv is not None:
        tv.close()
    _check_end(path, year)
    return year


def _sequence(store: Store) -> int:
    """The outbox's last sequence number ever given (AUTOINCREMENT: never reused)."""
    assert store.db is not None
    row = store.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'outbox'").fetchone()
    return int(row[0]) if row else 0


def _broker_back(store: Store, before: int, year: Year) -> None:
    """The broker is back: every event queued while it was away is there (or counted
    as dropped by the outbox's cap), and the publisher's acknowledgements empty it."""
    assert store.db is not None
    figures = outbox_figures(store.db)
    made = _sequence(store) - before
    if figures["queued"] + figures["dropped"] != made or made == 0:
        raise Untrue(f"outbox: {figures} after {made} events queued while the broker was away")
    year.outbox_peak = figures["queued"]
    while rows := outbox_rows.oldest(store.db, 0, 500):
        outbox_rows.sent(store.db, [seq for seq, *_ in rows])
    if outbox_figures(store.db)["queued"] != 0:
        raise Untrue("outbox not empty after the broker acknowledged everything")


def _check_recount(store: Store, path: Path) -> None:
    assert store.db is not None
    kept, counted = shown(audits(store.db)), recount(path)
    if kept != counted:
        raise Untrue(f"audits {kept}; recount {counted}")


def _check_end(path: Path, year: Year) -> None:
    db = sqlite3.connect(path)
    try:
        games, unfinished = db.execute("SELECT COUNT(*), COUNT(*) - COUNT(ended_at) FROM games"
                                       ).fetchone()
        check = db.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        db.close()
    if (games, unfinished, check) != (year.matches, 0, "ok"):
        raise Untrue(f"{games} games on disk ({unfinished} unfinished, {check}) after "
                     f"{year.matches} matches")
    first, last = year.read_steps[min(year.read_steps, key=int)], \
        year.read_steps[str(year.matches)]
    for name, start, end in zip(("tonight (per turn)", "the audits"), first, last):
        if end > STEPS_RATIO * start:
            raise Untrue(f"{name}: {end} SQLite steps at the year's end, {start} on its "
                         f"first night")
