"""The disk cache of solved tables: written once, loaded after, never fatal."""

import json

import pytest

from shutbox_hw import strategy
from shutbox_hw.rules import build_rules, full_board, mask_of
from shutbox_hw.strategy import cache, forget_loaded, solver, solver_for

RULES = build_rules("klappenspiel")


@pytest.fixture(autouse=True)
def cold(tmp_path, monkeypatch):
    """Every test starts with nothing in memory and a private cache home."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    forget_loaded()
    yield
    forget_loaded()


def no_solving(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("solved although the cache should have answered")
    monkeypatch.setattr(solver, "solve", refuse)


def names(directory):
    return sorted(p.name for p in directory.iterdir())


def both_files(directory, rules=RULES):
    return sorted(cache.cache_file(directory, rules, o).name for o in strategy.OBJECTIVES)


def test_each_objective_is_solved_and_written_when_first_asked_for(tmp_path):
    first = solver_for(RULES, tmp_path)
    assert list(tmp_path.iterdir()) == []
    first.solution("min-score")
    assert names(tmp_path) == [cache.cache_file(tmp_path, RULES, "min-score").name]
    assert list(first.tables) == ["min-score"]
    moves = first.moves()
    first.shut_probability(full_board(9))  # hints need max-shut: now it is made
    assert names(tmp_path) == both_files(tmp_path)
    assert first.moves() is moves  # both objectives used one set of closure lists


def test_cold_solve_writes_files_that_later_load(tmp_path, monkeypatch):
    first = solver_for(RULES, tmp_path)
    for objective in strategy.OBJECTIVES:
        first.solution(objective)
    assert names(tmp_path) == both_files(tmp_path)
    data = json.loads(cache.cache_file(tmp_path, RULES, "max-shut").read_text())
    assert data["format"] == cache.FORMAT_VERSION
    assert data["rules_key"] == [9, "any-sum", False, "when-high-shut", "sum"]
    assert data["objective"] == "max-shut"
    forget_loaded()
    no_solving(monkeypatch)
    loaded = solver_for(RULES, tmp_path)
    assert loaded is not first
    for objective in strategy.OBJECTIVES:
        assert list(loaded.solution(objective).expected_score) == list(
            first.solution(objective).expected_score)
        assert list(loaded.solution(objective).shut_probability) == list(
            first.solution(objective).shut_probability)
        assert loaded.solution(objective).dice_count == first.solution(objective).dice_count
    assert loaded.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)


def test_tables_stay_in_memory(tmp_path, monkeypatch):
    first = solver_for(RULES, tmp_path)
    first.solution("max-shut")
    for f in tmp_path.iterdir():
        f.unlink()
    no_solving(monkeypatch)
    assert solver_for(RULES, tmp_path) is first
    assert first.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)
    # match keys do not change the tables: the pub preset shares them
    assert solver_for(build_rules("pub"), tmp_path) is first


def test_the_key_tells_rule_sets_apart(tmp_path):
    for rules in (RULES, build_rules("klappenspiel", {"scoring": "digits"}),
                  build_rules("klappenspiel", {"one_die": "never"})):
        solver_for(rules, tmp_path).solution("min-score")
    assert len(list(tmp_path.iterdir())) == 3


@pytest.mark.parametrize("content", [
    b"not json at all",
    b"\xff\xfe\x00 binary",
    b'{"format": 1}',
    b"[1, 2, 3]",
    b"",
])
def test_corrupt_file_is_recomputed_and_rewritten(tmp_path, content):
    path = cache.cache_file(tmp_path, RULES, "max-shut")
    path.write_bytes(content)
    solver = solver_for(RULES, tmp_path)
    assert solver.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)
    assert json.loads(path.read_text())["format"] == cache.FORMAT_VERSION


def edit_file(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def poison(data):
    data["shut_probability"][full_board(9)] = 0.5


@pytest.mark.parametrize("change", [
    lambda d: d.update(format=cache.FORMAT_VERSION + 1),
    lambda d: d.update(rules_key=[9, "any-sum", False, "never", "sum"]),
    lambda d: d.update(objective="min-score"),
    lambda d: d["shut_probability"].pop(),
    lambda d: d["expected_score"].__setitem__(3, "x"),
    lambda d: d["dice_count"].__setitem__(3, 7),
    lambda d: d.pop("shut_probability"),
], ids=["version", "key", "objective", "short", "string", "dice", "missing"])
def test_stale_or_damaged_tables_are_not_trusted(tmp_path, change):
    path = cache.cache_file(tmp_path, RULES, "max-shut")
    solver_for(RULES, tmp_path).solution("max-shut")
    forget_loaded()
    edit_file(path, poison)  # were the file trusted, the answer would be 0.5
    edit_file(path, change)
    solver = solver_for(RULES, tmp_path)
    assert solver.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)


def test_a_valid_file_is_believed(tmp_path):
    """Proof that the test above would notice a file being used."""
    path = cache.cache_file(tmp_path, RULES, "max-shut")
    solver_for(RULES, tmp_path).solution("max-shut")
    forget_loaded()
    edit_file(path, poison)
    assert solver_for(RULES, tmp_path).shut_probability(full_board(9)) == 0.5


def test_unwritable_cache_is_not_fatal(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache directory cannot live under a file")
    solver = solver_for(RULES, blocker / "cache")
    assert solver.move_probability(mask_of([1, 2])) == pytest.approx(0.5)
    assert blocker.read_text().startswith("the cache")
    assert list(tmp_path.iterdir()) == [blocker]  # no temp file left behind


def test_unreadable_cache_entry_is_not_fatal(tmp_path):
    path = cache.cache_file(tmp_path, RULES, "max-shut")
    path.mkdir()  # a directory where the file should be
    solver = solver_for(RULES, tmp_path)
    assert solver.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)
    assert names(tmp_path) == [path.name]


def test_default_directory_follows_xdg(tmp_path, monkeypatch):
    assert cache.default_cache_dir() == tmp_path / "xdg" / "shutbox-hw"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_cache_dir({"XDG_CACHE_HOME": "relative/dir"}) == (
        tmp_path / "home" / ".cache" / "shutbox-hw")
    assert cache.default_cache_dir({}) == tmp_path / "home" / ".cache" / "shutbox-hw"


def test_the_default_solver_uses_the_xdg_cache(tmp_path):
    full = full_board(9)
    solver = solver_for(RULES)
    assert solver.best_closure("min-score", full, (3, 4)) == mask_of([7])
    assert solver.best_closure("max-shut", mask_of([1]), (3, 4)) is None
    values = solver.closure_values("max-shut", full, (6, 6))
    assert {c for c, _ in values} == {mask_of(t) for t in (
        [3, 9], [4, 8], [5, 7], [1, 2, 9], [1, 3, 8], [1, 4, 7], [1, 5, 6], [2, 3, 7],
        [2, 4, 6], [3, 4, 5], [1, 2, 3, 6], [1, 2, 4, 5])}
    assert solver.shut_probability(full) == pytest.approx(0.0976137162, abs=1e-10)
    assert solver.move_probability(full) == 1.0
    directory = tmp_path / "xdg" / "shutbox-hw"
    assert names(directory) == both_files(directory)
