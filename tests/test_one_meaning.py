"""Issue 39 item 4: one meaning, one place. Cheap scans of the package's source that
fail when a meaning with a tell-tale is computed again outside its owner (the table
in docs/develop/architecture.md, "One meaning, one place")."""

from __future__ import annotations

import ast
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import pytest

from shutbox_hw.store.tables.capability import Capability, offers, stamped
from shutbox_hw.store.tables.schema import VERSION, steps

PACKAGE = Path(__file__).resolve().parent.parent / "shutbox_hw"
SCHEMA_OWNERS = {"store/tables/schema.py", "store/tables/capability.py",
                 "league/schema.py"}   # the league's PostgreSQL schema: its own numbers
# names a schema's number travels under in the package (``PRAGMA user_version`` read
# into ``version``, a reader's ``schema`` attribute, the result of ``version_of``);
# another attribute ``version`` (an IP address's) is no schema
VERSION_NAMES = {"version", "schema", "old", "user_version"}
VERSION_ATTRIBUTES = {"schema", "user_version"}


@lru_cache(maxsize=1)
def _modules() -> list[tuple[str, ast.Module]]:
    return [(path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(), str(path)))
            for path in sorted(PACKAGE.rglob("*.py"))]


def offenders(scan: Callable[[ast.Module], list[int]], *owners: str) -> list[str]:
    """``path:line`` of every place outside ``owners`` the scan finds."""
    return [f"{path}:{line}" for path, tree in _modules() if path not in owners
            for line in scan(tree)]


def _names_version(node: ast.expr) -> bool:
    """``version``, ``reader.schema``, ``version_of(...)``: a schema's number."""
    if isinstance(node, ast.Name):
        return node.id in VERSION_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in VERSION_ATTRIBUTES
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else ""
        return name in {"version_of", "stamped"}
    return False


def bare_schema_comparisons(tree: ast.Module) -> list[int]:
    """The lines where a schema's number is compared with a number written out."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if any(_names_version(s) for s in sides) and any(
                isinstance(s, ast.Constant) and type(s.value) is int for s in sides):
            found.append(node.lineno)
    return found


def pragma_user_version_reads(tree: ast.Module) -> list[int]:
    """The lines that read ``PRAGMA user_version`` (not those that stamp it: ``=``)."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and "user_version" in node.value.lower() and "=" not in node.value]


def test_no_bare_schema_number_is_compared_outside_the_schema_modules():
    found = offenders(bare_schema_comparisons, *SCHEMA_OWNERS)
    assert found == [], ("compare a schema through store/tables/capability.py's "
                         f"offers(version, Capability.X), not a number: {found}")


def test_the_schema_stamp_is_read_in_one_place():
    found = offenders(pragma_user_version_reads, *SCHEMA_OWNERS)
    assert found == [], f"read the stamp with capability.stamped(db): {found}"


def test_the_scan_sees_what_it_is_meant_to_see():
    # the scan itself must be able to fail: each shape the package once wrote
    for source in ("if version >= 7: pass", "x = 1 if reader.schema < 6 else 2",
                   "if version_of(db, p) >= 1: pass", "ok = 2 <= version",
                   "if version == 0: pass"):
        assert bare_schema_comparisons(ast.parse(source)) == [1], source
    for source in ("if offers(version, Capability.PLAYERS): pass", "if version > VERSION: pass",
                   "if count >= 7: pass", "v6 = ip.version == 6"):
        assert bare_schema_comparisons(ast.parse(source)) == [], source
    assert pragma_user_version_reads(ast.parse('db.execute("PRAGMA user_version")')) == [1]
    assert pragma_user_version_reads(ast.parse('db.execute("PRAGMA user_version = 8")')) == []


def _tables(db: sqlite3.Connection) -> set[str]:
    return {t for t, in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {c for _, c, *_ in db.execute(f"PRAGMA table_info({table})")}


def _indexed(db: sqlite3.Connection, table: str) -> list[list[str]]:
    """The columns of each index on ``table``."""
    return [[c for _, _, c in db.execute(f"PRAGMA index_info({name})")]
            for _, name, *_ in db.execute(f"PRAGMA index_list({table})")]


# what each capability names, looked for in the file itself (an independent account:
# the tables and columns, not the migrations' numbers)
HOLDS = {
    Capability.GAMES: lambda db: {"games", "players", "turns"} <= _tables(db),
    Capability.CLOCK_SYNC: lambda db: "started_synced" in _columns(db, "games"),
    Capability.COUNTERS: lambda db: {"counters", "settings"} <= _tables(db),
    Capability.OUTBOX: lambda db: "outbox" in _tables(db),
    Capability.KEPT_FIGURES: lambda db: {"audit_figures", "audit_best"} <= _tables(db),
    Capability.SHOWN: lambda db: {"shown", "fault_log"} <= _tables(db),
    Capability.PLAYERS: lambda db: {"roster", "player_stats"} <= _tables(db),
    Capability.EPOCH: lambda db: "record" in _tables(db) and "topic" in _columns(db, "outbox"),
    Capability.LEAGUE: lambda db: {"league_roster", "league_claims"} <= _tables(db),
    Capability.FORGOTTEN: lambda db: "league_forgotten" in _tables(db)
    and ["turn_id"] in _indexed(db, "rejected_flaps"),
    Capability.LEAGUE_TABLE: lambda db: "league_table" in _tables(db),
}


def test_the_newest_capability_is_the_schema_s_version():
    assert max(Capability) == VERSION
    assert set(HOLDS) == set(Capability)


@pytest.mark.parametrize("version", range(1, VERSION + 1))
def test_each_schema_offers_exactly_what_its_tables_hold(tmp_path, version):
    """A record migrated only up to ``version``: what ``offers`` says it has is what
    its tables hold, and the stamp reads back as that version."""
    db = sqlite3.connect(tmp_path / "r.db", isolation_level=None)
    try:
        steps(db, 0, version)
        db.execute(f"PRAGMA user_version = {version}")
        assert stamped(db) == version
        for capability, holds in HOLDS.items():
            assert offers(version, capability) == holds(db), (version, capability.name)
    finally:
        db.close()


def sql_fragments(tree: ast.Module, *needles: str) -> list[int]:
    """The lines of string constants (f-strings' parts too) holding every one of ``needles``."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and all(n in node.value for n in needles)]


@pytest.mark.parametrize(("needles", "owner"), [
    (("started_at >=",), "store/read/tonight.py"),          # tonight's (and the week's) window
    (("ended_at IS NOT NULL AND NOT",), "store/tables/finished.py"),   # a finished game
    (("json_each(CASE WHEN json_valid(",), "store/tables/player_stats.py"),   # who won
])
def test_a_meaning_s_sql_is_written_by_its_owner_only(needles, owner):
    found = offenders(lambda tree: sql_fragments(tree, *needles), owner)
    assert found == [], f"ask {owner} for {' ... '.join(needles)}: {found}"


def test_the_sql_scan_sees_what_it_is_meant_to_see():
    assert sql_fragments(ast.parse('q = "SELECT 1 FROM games WHERE started_at >= ?"'),
                         "started_at >=") == [1]
    assert sql_fragments(ast.parse('q = f" WHERE g.ended_at IS NOT NULL AND NOT g.abandoned {a}"'),
                         "ended_at IS NOT NULL AND NOT") == [1]
    assert sql_fragments(ast.parse('q = f"WHERE {started_since_sql()}"'), "started_at >=") == []


def percent_of_best(tree: ast.Module) -> list[int]:
    """The lines that work out a share of best moves: ``100 * best`` in Python (a name
    or attribute ``best``), or ``100.0 * ... best`` in a query's text."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            sides = (node.left, node.right)
            hundred = any(isinstance(s, ast.Constant) and s.value in (100, 100.0)
                          for s in sides)
            best = any(isinstance(s, ast.Name) and s.id == "best" or
                       isinstance(s, ast.Attribute) and s.attr == "best" for s in sides)
            if hundred and best:
                found.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and "100.0 *" in node.value and "best" in node.value:
            found.append(node.lineno)
    return found


# left over, each with its reason (docs/develop/architecture.md, "One meaning, one place")
# the league's own tallies (its standings, its ratings' bands): league/ was another
# helper's room while this was unified
ACCURACY_LEFT = {"league/standings.py", "league/ratings.py"}


def test_the_accuracy_percentage_is_worked_out_in_one_place():
    owner = "strategy/rating.py"
    found = offenders(percent_of_best, owner, *ACCURACY_LEFT)
    assert found == [], f"ask {owner}'s accuracy_percent(best, moves): {found}"
    left = {path for path, tree in _modules() if path in ACCURACY_LEFT and percent_of_best(tree)}
    assert left == ACCURACY_LEFT, \
        "a left-over was unified: take it off ACCURACY_LEFT"
    for source in ("p = round(100.0 * best / moves, 1)", "p = 100 * t.best / t.moves",
                   'q = "SELECT 100.0 * r.best / r.moves FROM x"'):
        assert percent_of_best(ast.parse(source)) == [1], source
    assert percent_of_best(ast.parse("p = 100 * wins / games")) == []


def preset_title_lookups(tree: ast.Module) -> list[int]:
    """The lines that look a preset's title up in ``PRESET_TITLES`` by hand."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "PRESET_TITLES"]


def test_a_preset_s_title_is_looked_up_in_one_place():
    owner = "rules/ruleset.py"
    found = offenders(preset_title_lookups, owner)
    assert found == [], f"ask {owner}'s preset_title(preset): {found}"
    assert preset_title_lookups(ast.parse("t = PRESET_TITLES.get(p, p)")) == [1]


def test_the_high_scores_are_titled_from_one_table():
    """The web page, the TV's script and its words take the titles from words/record.py,
    keyed as store/read/highscores.py names the periods and tables, in its order; the
    OLED's own shorter words name the same keys."""
    from shutbox_hw.render.high_scores import KINDS
    from shutbox_hw.render.high_scores import PERIODS as OLED_PERIODS
    from shutbox_hw.store.read.highscores import PERIODS, TABLES
    from shutbox_hw.web.content.assets import LIVE_JS
    from shutbox_hw.web.content.pages import LIVE_WORDS
    from shutbox_hw.words.record import HIGH_SCORE_PERIODS, HIGH_SCORE_TABLES
    assert tuple(HIGH_SCORE_PERIODS) == PERIODS and tuple(OLED_PERIODS) == PERIODS
    assert tuple(HIGH_SCORE_TABLES) == TABLES and tuple(KINDS) == TABLES
    for titles in (HIGH_SCORE_PERIODS, HIGH_SCORE_TABLES):
        pairs = ", ".join(f'["{key}", "{title}"]' for key, title in titles.items())
        assert f"= [{pairs}];" in LIVE_JS
        assert set(titles.values()) <= set(LIVE_WORDS)
    # no title of a table written out anywhere else in the package's Python
    found = offenders(lambda tree: [node.lineno for node in ast.walk(tree) if isinstance(
        node, ast.Constant) and node.value == "Most wins"], "words/record.py")
    assert found == [], f"take the title from words/record.py: {found}"


def drawn_open_written(tree: ast.Module) -> list[int]:
    """The lines that spell out which flap states are drawn open."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, (ast.Tuple, ast.List, ast.Set))
            and {e.value for e in node.elts if isinstance(e, ast.Constant)} == {"open", "refused"}]


def test_the_open_flaps_are_told_from_the_one_picture():
    """The TV's open flaps are the OLED's (game/model/flaps.py:DRAWN_OPEN, open_tiles)."""
    owner = "game/model/flaps.py"
    found = offenders(drawn_open_written, owner)
    assert found == [], f"ask {owner}'s open_tiles(states): {found}"
    assert drawn_open_written(ast.parse('o = [t for t, s in x if s in ("open", "refused")]')) == [1]


# ---------------------------------------------------------------- one projection of a game

PROJECTION = "store/read/game_summary.py"


def seat_joins(tree: ast.Module) -> list[int]:
    """The lines of SQL that join a game's seats (``players``) with its turns."""
    return [line for needles in (("p.seat = t.seat",), ("t.seat = p.seat",))
            for line in sql_fragments(tree, *needles)]


def totals_summed_or_read(tree: ast.Module) -> list[int]:
    """The lines that work out a game's totals: the turns' final scores summed in a
    query, or a round result's ``totals`` read with ``.get``."""
    summed = sql_fragments(tree, "SUM(t.final_score)")
    read = [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get" and node.args
            and isinstance(node.args[0], ast.Constant) and node.args[0].value == "totals"]
    return summed + read


# where the seat join is still written, each for a figure that is not the projection's
# (what a turn adds to a tally, a rating's moves, a file's rows, a high score, a
# scorecard's throws): a new copy anywhere else fails
SEAT_JOIN_LEFT = {
    "web/content/exports.py",         # the turns CSV: one row per turn, named
    "sim/observed.py",                # the simulator's own check of what was written
    "store/tables/tally.py",          # the kept tallies: which turns count (SCORED)
    "store/tables/ratings.py",        # the moves rated, by player
    "store/read/highscores.py",       # tonight's and the week's best turns, by player
    "store/read/audit.py",            # the best turns' names
}


def test_a_game_s_totals_are_worked_out_by_the_one_projection():
    found = offenders(totals_summed_or_read, PROJECTION)
    assert found == [], f"ask {PROJECTION}'s summaries/summary for a game's totals: {found}"
    assert totals_summed_or_read(ast.parse('t = result.get("totals", {})')) == [1]
    assert totals_summed_or_read(ast.parse(
        'q = "SELECT SUM(t.final_score) FROM turns t WHERE t.game_id = ?"')) == [1]
    assert totals_summed_or_read(ast.parse('t = g["totals"]')) == []


def test_the_seat_join_is_written_nowhere_new():
    found = {path for path, tree in _modules() if seat_joins(tree)}
    assert found - SEAT_JOIN_LEFT - {PROJECTION} == set(), \
        f"a game's seats with their turns: ask {PROJECTION} ({found})"
    assert SEAT_JOIN_LEFT <= found, "a left-over was unified: take it off SEAT_JOIN_LEFT"
    assert PROJECTION in found
    assert seat_joins(ast.parse('q = "FROM turns t JOIN players p ON p.game_id = t.game_id'
                                ' AND p.seat = t.seat"')) == [1]


def test_the_kept_tallies_share_one_mechanism():
    """The audits and each player's statistics are tallies of store/tables/tally.py:
    the writer tells both at once, and neither says again which turns count."""
    from shutbox_hw.store.tables import figures, player_stats, tally
    from shutbox_hw.store.write.game_rows import KEPT
    assert KEPT == (figures.AUDITS, player_stats.PLAYERS)
    for kept in KEPT:
        assert all(callable(getattr(kept, name)) for name in ("add_turn", "add_game", "rebuild"))
    modules = dict(_modules())
    for path in ("store/tables/figures.py", "store/tables/player_stats.py"):
        assert sql_fragments(modules[path], "t.score IS NOT NULL") == [], path
        assert seat_joins(modules[path]) == [], path
    assert sql_fragments(modules["store/tables/tally.py"], "t.score IS NOT NULL") != []
    assert "t.score IS NOT NULL" in tally.SCORED
