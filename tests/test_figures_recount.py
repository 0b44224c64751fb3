"""The audits' kept figures equal a recount from the rows (issue 29, point 1).

Random games (hypothesis) written step by step through the store, with power
cuts in the middle of a step, resets of the audits (between games and in the
middle of one, from the menu and as the controller's event), games left
unfinished and abandoned; after each, the figures the box shows equal
:mod:`recount`'s plain recount of the rows. A database written by the
previous schema gets them built by the migration.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from recount import recount, shown

from shutbox_hw.game.model.events import (
    AuditsReset,
    GameEnded,
    GameStarted,
    RoundEnded,
    TurnEnded,
    TurnStarted,
)
from shutbox_hw.store import Store
from shutbox_hw.store.read.audit import audits, tonight
from shutbox_hw.store.tables.schema import VERSION
from shutbox_hw.words.audits import audit_lines

PRESETS = ("klappenspiel", "crafthouse-12", "pub")
NAMES = ("Anna", "Ben", "Cleo", "Dev")


class Cut(BaseException):
    """The plug is pulled after a given number of writes."""


def game(players: int, scores: list[list[int]], preset: str, end: str) -> list[list]:
    """One game's steps (each a list of events written in one transaction)."""
    names = NAMES[:players]
    steps: list[list] = [[GameStarted(players=names, dice="software",
                                      rules={"preset": preset, "tiles": 9})]]
    totals = [0] * players
    for number, round_scores in enumerate(scores, start=1):
        for seat, name in enumerate(names):
            score = round_scores[seat % len(round_scores)]
            steps.append([TurnStarted(seat=seat, player=name, round=number)])
            steps.append([TurnEnded(seat=seat, player=name, score=score, shut=score == 0,
                                    open=(score,) if score else (), round=number)])
            totals[seat] += score
        finals = tuple(round_scores[s % len(round_scores)] for s in range(players))
        steps[-1].append(RoundEnded(players=names, round=number, final=finals, raw=finals,
                                    totals=tuple(totals), out=(), shut=(), winners=(0,)))
    if end != "unfinished":
        steps.append([GameEnded(players=names, winners=(0,), totals=tuple(totals),
                                rounds=len(scores), abandoned=end == "abandoned")])
    return steps


games_st = st.tuples(st.integers(1, 4),
                     st.lists(st.lists(st.integers(0, 45), min_size=1, max_size=4),
                              min_size=1, max_size=3),
                     st.sampled_from(PRESETS),
                     st.sampled_from(("ended", "ended", "abandoned", "unfinished")))
# what happens at a step: nothing, a power cut after n writes, a reset (menu or event)
incident_st = st.one_of(st.just(None), st.tuples(st.just("cut"), st.integers(0, 3)),
                        st.just(("reset", "menu")), st.just(("reset", "event")))


def play(path: Path, plan: list[tuple[tuple, list]]) -> None:
    store = Store(path)
    for spec, incidents in plan:
        for index, step in enumerate(game(*spec)):
            incident = incidents[index % len(incidents)] if incidents else None
            if incident is not None and incident[0] == "reset":
                if incident[1] == "menu":
                    store.reset_audits()
                else:
                    store.record_all([AuditsReset()])
            if incident is not None and incident[0] == "cut":
                writes, committed = [0], [False]

                def cut_after(done, limit=incident[1], writes=writes, committed=committed):
                    writes[0] += 1
                    committed[0] = done is not None
                    if writes[0] > limit:
                        raise Cut
                store.on_write = cut_after
                try:
                    store.record_all(step)
                except Cut:
                    store.db.close()   # the power went: nothing more of this process
                    store = Store(path)   # the box starts again on the unfinished game
                    if not committed[0]:
                        store.record_all(step)   # and the players do that step again
                    continue
                store.on_write = None
            else:
                store.record_all(step)
    store.close()


def assert_figures_match(path: Path) -> None:
    db = sqlite3.connect(path)
    try:
        kept = shown(audits(db))
        counted_in_sql = shown(audits(db, 4))   # what a reader of the old schema does
    finally:
        db.close()
    expected = recount(path)
    assert kept == expected
    assert counted_in_sql == expected


@pytest.mark.slow      # seconds of work: pytest -m 'not slow' leaves it out
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(games_st, st.lists(incident_st, max_size=4)), min_size=1,
                max_size=6))
def test_kept_figures_equal_a_recount(plan):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "box.db"
        play(path, plan)
        assert_figures_match(path)


def as_schema_4(path: Path) -> None:
    """Take a database back to what schema 4 wrote: no figures, no new indexes,
    none of schema 6's and 7's tables (the box's mirror, the fault log, the roster)."""
    db = sqlite3.connect(path, isolation_level=None)
    # every table and index later schemas made, and the seats' player column (schema 7)
    later = [(kind, name) for kind, name in db.execute(
        "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'index')"
        " AND name NOT LIKE 'sqlite_%'") if name not in SCHEMA_4_TABLES]
    for kind, name in sorted(later, key=lambda k: k[0] != "index"):
        db.execute(f"DROP {kind.upper()} IF EXISTS {name}")
    db.executescript("""
        CREATE TABLE players_4 (game_id INTEGER NOT NULL REFERENCES games(id),
            seat INTEGER NOT NULL, name TEXT NOT NULL, PRIMARY KEY (game_id, seat));
        INSERT INTO players_4 SELECT game_id, seat, name FROM players;
        DROP TABLE players;
        ALTER TABLE players_4 RENAME TO players;
        PRAGMA user_version = 4;""")
    db.close()


SCHEMA_4_TABLES = {"games", "players", "rounds", "turns", "throws", "rejected_flaps", "counters",
                   "settings", "outbox"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(games_st, st.lists(incident_st, max_size=3)), min_size=1,
                max_size=5),
       st.lists(st.tuples(games_st, st.just([])), max_size=2))
def test_the_migration_builds_the_figures_once(plan, later):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "box.db"
        play(path, plan)
        as_schema_4(path)
        Store(path).close()          # the new version opens it: schema 5, figures built
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA user_version").fetchone() == (VERSION,)
        db.close()
        assert_figures_match(path)
        play(path, later)            # and kept up to date from there
        assert_figures_match(path)


def test_tonight_counts_only_the_window(tmp_path):
    """Tonight's figures through the index: only games started in the last 12 hours."""
    clock = [1_000_000.0]
    store = Store(tmp_path / "box.db", clock=lambda: clock[0])
    for spec in ((2, [[0, 7]], "klappenspiel", "ended"), (2, [[3, 0]], "pub", "ended")):
        for step in game(*spec):
            store.record_all(step)
    clock[0] += 13 * 3600
    for step in game(2, [[5, 4]], "pub", "ended"):
        store.record_all(step)
    figures = tonight(store.db, clock[0])
    store.close()
    assert (figures.games, figures.boxes_shut, figures.best) == (1, 0, ("Ben", 4))


def test_the_audits_show_the_outbox_and_the_database_size(tmp_path, capsys):
    """``audit --json`` has ``"outbox": {"queued": N, "dropped": M}`` and the file's
    size; the menu's lines show them under "storage"."""
    from shutbox_hw.commands.cli import main
    from shutbox_hw.store.read.audit import OUTBOX_DROPPED
    path = tmp_path / "box.db"
    store = Store(path)
    store.outbox = lambda: None          # the broker is away: every event waits
    steps = game(2, [[0, 7]], "klappenspiel", "ended")
    for step in steps:
        store.record_all(step)
    with store.db:
        # what the outbox's limits dropped: an audit counter (store/tables/outbox.py)
        store.db.execute("INSERT INTO counters (key, count) VALUES (?, 12)", (OUTBOX_DROPPED,))
    lines = audit_lines(store.audit_figures())
    store.close()
    # every event, and the ended game as one message for the league (store/tables/game_record.py)
    events = sum(len(step) for step in steps) + 1
    assert main(["audit", "--db", str(path), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["outbox"] == {"queued": events, "dropped": 12}
    assert figures["database_bytes"] == path.stat().st_size
    assert lines[-4:] == ["storage", f"database\t{path.stat().st_size / 1e6:.1f} MB",
                          f"outbox queued\t{events}", "outbox dropped\t12"]
