"""``shutbox-hw solve`` as a person or a script calls it."""

import json

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.strategy import forget_loaded


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    forget_loaded()
    yield
    forget_loaded()


def run_json(capsys, *argv):
    assert main(["solve", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_full_board_defaults_to_min_score(capsys):
    out = run_json(capsys, "--rules", "klappenspiel")
    assert out["expected_score"] == pytest.approx(11.0092086, abs=1e-7)
    # the min-score policy shuts the box less often than max-shut's 0.0976
    assert 0.09 < out["shut_probability"] < 0.0976137162
    assert "best" not in out and "expected_score_exact" not in out


def test_max_shut_exact(capsys):
    out = run_json(capsys, "--rules", "klappenspiel", "--objective", "max-shut", "--exact")
    assert out["shut_probability"] == pytest.approx(0.0976137162, abs=1e-10)
    assert out["shut_probability_exact"] == "956177159/9795520512"
    numerator, denominator = map(int, out["expected_score_exact"].split("/"))
    assert numerator / denominator == pytest.approx(out["expected_score"], rel=1e-12)


def test_two_dice_always(capsys):
    out = run_json(capsys, "--rules", "klappenspiel", "--set", "one_die=never",
                   "--objective", "max-shut")
    assert out["shut_probability"] == pytest.approx(0.0714316223, abs=1e-10)
    out = run_json(capsys, "--rules", "klappenspiel", "--set", "one_die=never")
    assert out["expected_score"] == pytest.approx(11.1575084, abs=1e-7)


def test_open_tiles_and_dice(capsys):
    # {1, 2} with two dice only: 1+1 leaves {1}, 1+2 shuts both, nothing else moves
    out = run_json(capsys, "--rules", "klappenspiel", "--set", "one_die=never",
                   "--open", "2,1", "--objective", "max-shut", "--dice", "2", "1")
    assert out["open"] == [1, 2]
    assert out["shut_probability"] == pytest.approx(2 / 36)
    assert out["expected_score"] == pytest.approx(1 / 36 * 1 + 33 / 36 * 3)
    assert out["best"] == [1, 2]
    assert out["closures"] == [{"closure": [1, 2], "value": 1.0}]


def test_every_closure_is_listed_best_first(capsys):
    out = run_json(capsys, "--rules", "pub", "--dice", "3", "5")
    assert sorted(c["closure"] for c in out["closures"]) == [
        [1, 2, 5], [1, 3, 4], [1, 7], [2, 6], [3, 5], [8]]
    values = [c["value"] for c in out["closures"]]
    assert values == sorted(values)
    assert out["best"] == out["closures"][0]["closure"]


def test_no_move_gives_null(capsys):
    out = run_json(capsys, "--rules", "klappenspiel", "--set", "one_die=never",
                   "--open", "1", "--dice", "6", "6")
    assert out["best"] is None and out["closures"] == []
    assert out["expected_score"] == 1 and out["shut_probability"] == 0


def test_human_output(capsys):
    assert main(["solve", "--rules", "klappenspiel", "--objective", "max-shut",
                 "--dice", "6", "6", "--exact"]) == 0
    text = capsys.readouterr().out
    assert "956177159/9795520512" in text and "0.0976137162" in text
    assert "6 + 6: shut" in text and "every closure" in text


@pytest.mark.parametrize("argv, message", [
    (["--rules", "nope"], "unknown rules preset 'nope'"),
    (["--set", "tiles=13"], "'tiles': must be 9..12"),
    (["--objective", "win"], "invalid choice: 'win'"),
    (["--open", "1,10"], "tile 10 is outside 1..9"),
    (["--dice", "7", "1"], "die face 7 is outside 1..6"),
    (["--dice", "1", "2", "3"], "a throw has one or two dice, not 3"),
    (["--dice", "4"], "the rules call for two dice"),
    (["--rules", "crafthouse-12", "--open", "1,2", "--dice", "1", "1"], "call for one die"),
])
def test_bad_arguments_exit_2_with_one_line(capsys, argv, message):
    try:
        code = main(["solve", *argv])
    except SystemExit as stop:  # argparse's own mistakes
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_only_the_asked_objective_is_solved(capsys, tmp_path):
    run_json(capsys, "--rules", "klappenspiel", "--objective", "max-shut", "--dice", "3", "4")
    written = sorted(p.name for p in (tmp_path / "shutbox-hw").iterdir())
    assert len(written) == 1 and written[0].endswith("-max-shut.json")
