"""The disk cache of solved tables: written once, loaded after, never fatal."""

import json
import os

import pytest

from shutbox_hw import strategy
from shutbox_hw.rules import build_rules, full_board, mask_of
from shutbox_hw.strategy import cache, forget_loaded, solver_for

RULES = build_rules("klappenspiel")


@pytest.fixture(autouse=True)
def cold(tmp_path, monkeypatch):
    """Every test starts with nothing in memory and a private cache home."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    forget_loaded()
    yield
    forget_loaded()


def no_solving(monkeypatch):
    def refuse(rules):
        raise AssertionError("solved although the cache should have answered")
    monkeypatch.setattr(cache, "solve_both", refuse)


def test_cold_solve_writes_one_file_that_later_loads(tmp_path, monkeypatch):
    first = solver_for(RULES, tmp_path)
    files = list(tmp_path.iterdir())
    assert [f.name for f in files] == [cache.cache_file(tmp_path, RULES).name]
    data = json.loads(files[0].read_text())
    assert data["format"] == cache.FORMAT_VERSION
    assert data["rules_key"] == [9, "any-sum", False, "when-high-shut", "sum"]
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
    for f in tmp_path.iterdir():
        f.unlink()
    no_solving(monkeypatch)
    assert solver_for(RULES, tmp_path) is first
    # match keys do not change the tables: the pub preset shares them
    assert solver_for(build_rules("pub"), tmp_path) is first


def test_the_key_tells_rule_sets_apart(tmp_path):
    solver_for(RULES, tmp_path)
    solver_for(build_rules("klappenspiel", {"scoring": "digits"}), tmp_path)
    solver_for(build_rules("klappenspiel", {"one_die": "never"}), tmp_path)
    assert len(list(tmp_path.iterdir())) == 3


@pytest.mark.parametrize("content", [
    b"not json at all",
    b"\xff\xfe\x00 binary",
    b'{"format": 1}',
    b"[1, 2, 3]",
    b"",
])
def test_corrupt_file_is_recomputed_and_rewritten(tmp_path, content):
    path = cache.cache_file(tmp_path, RULES)
    path.write_bytes(content)
    solver = solver_for(RULES, tmp_path)
    assert solver.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)
    assert json.loads(path.read_text())["format"] == cache.FORMAT_VERSION


def edit_file(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def poison(data):
    data["tables"]["max-shut"]["shut_probability"][full_board(9)] = 0.5


@pytest.mark.parametrize("change", [
    lambda d: d.update(format=cache.FORMAT_VERSION + 1),
    lambda d: d.update(rules_key=[9, "any-sum", False, "never", "sum"]),
    lambda d: d["tables"]["max-shut"]["shut_probability"].pop(),
    lambda d: d["tables"]["min-score"]["expected_score"].__setitem__(3, "x"),
    lambda d: d["tables"]["min-score"]["dice_count"].__setitem__(3, 7),
    lambda d: d["tables"].pop("max-shut"),
], ids=["version", "key", "short", "string", "dice", "missing"])
def test_stale_or_damaged_tables_are_not_trusted(tmp_path, change):
    path = cache.cache_file(tmp_path, RULES)
    solver_for(RULES, tmp_path)
    forget_loaded()
    edit_file(path, poison)  # were the file trusted, the answer would be 0.5
    edit_file(path, change)
    solver = solver_for(RULES, tmp_path)
    assert solver.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)


def test_a_valid_file_is_believed(tmp_path):
    """Proof that the test above would notice a file being used."""
    path = cache.cache_file(tmp_path, RULES)
    solver_for(RULES, tmp_path)
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
    cache.cache_file(tmp_path, RULES).mkdir()  # a directory where the file should be
    solver = solver_for(RULES, tmp_path)
    assert solver.shut_probability(full_board(9)) == pytest.approx(0.0976137162, abs=1e-10)
    assert [p.name for p in tmp_path.iterdir()] == [cache.cache_file(tmp_path, RULES).name]


def test_default_directory_follows_xdg(tmp_path, monkeypatch):
    assert cache.default_cache_dir() == tmp_path / "xdg" / "shutbox-hw"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_cache_dir({"XDG_CACHE_HOME": "relative/dir"}) == (
        tmp_path / "home" / ".cache" / "shutbox-hw")
    assert cache.default_cache_dir({}) == tmp_path / "home" / ".cache" / "shutbox-hw"


def test_module_functions_use_the_xdg_cache(tmp_path):
    full = full_board(9)
    assert strategy.best_closure(RULES, "min-score", full, (3, 4)) == mask_of([7])
    assert strategy.best_closure(RULES, "max-shut", mask_of([1]), (3, 4)) is None
    values = strategy.closure_values(RULES, "max-shut", full, (6, 6))
    assert {c for c, _ in values} == {mask_of(t) for t in (
        [3, 9], [4, 8], [5, 7], [1, 2, 9], [1, 3, 8], [1, 4, 7], [1, 5, 6], [2, 3, 7],
        [2, 4, 6], [3, 4, 5], [1, 2, 3, 6], [1, 2, 4, 5])}
    assert strategy.shut_probability(RULES, full) == pytest.approx(0.0976137162, abs=1e-10)
    assert strategy.move_probability(RULES, full) == 1.0
    written = os.listdir(tmp_path / "xdg" / "shutbox-hw")
    assert written == [cache.cache_file(tmp_path, RULES).name]
