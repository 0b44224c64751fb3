"""``shutbox-hw moves`` and ``shutbox-hw rules`` as a referee would call them."""

import json

import pytest
from cli_inprocess import run_cli

from shutbox_hw.cli import main


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_moves_total_eight(capsys):
    out = run_json(capsys, "moves", "--rules", "pub", "--open", "all", "--dice", "3", "5", "--json")
    assert out["open"] == list(range(1, 10))
    assert out["dice_choice"] == "two" and out["score"] == 45
    assert out["closures"] == [[1, 2, 5], [1, 3, 4], [1, 7], [2, 6], [3, 5], [8]]


def test_moves_one_five_nine(capsys):
    out = run_json(capsys, "moves", "--rules", "pub", "--open", "9,1,5", "--dice", "1", "3",
                   "--json")
    assert out["open"] == [1, 5, 9] and out["closures"] == [] and out["score"] == 15
    out = run_json(capsys, "moves", "--rules", "pub", "--set", "scoring=digits",
                   "--open", "1,5,9", "--json")
    assert out["score"] == 159 and "closures" not in out


def test_moves_sum_or_dice_and_multiplication(capsys):
    out = run_json(capsys, "moves", "--rules", "klappenspiel", "--set", "closure=sum-or-dice",
                   "--open", "all", "--dice", "6", "3", "--json")
    assert out["closures"] == [[3, 6], [9]]
    out = run_json(capsys, "moves", "--rules", "crafthouse-12", "--set", "multiplication=true",
                   "--open", "all", "--dice", "4", "6", "--json")
    for closure in ([10], [2, 10, 12], [2, 12], [3, 8]):
        assert closure in out["closures"]


def test_moves_dice_choice(capsys):
    assert run_json(capsys, "moves", "--rules", "crafthouse-12", "--open", "1,2,3",
                    "--json")["dice_choice"] == "two"
    assert run_json(capsys, "moves", "--rules", "crafthouse-12", "--open", "1,3",
                    "--json")["dice_choice"] == "one"
    assert run_json(capsys, "moves", "--rules", "pub", "--open", "1,2,6",
                    "--json")["dice_choice"] == "one-or-two"


@pytest.mark.parametrize("argv,word", [
    (["--rules", "nope", "--open", "1"], "preset"),
    (["--rules", "pub", "--set", "colour=red", "--open", "1"], "colour"),
    (["--rules", "pub", "--set", "tiles=20", "--open", "1"], "tiles"),
    (["--rules", "pub", "--open", "1,10"], "10"),
    (["--rules", "pub", "--open", "1,x"], "'x'"),
    (["--rules", "pub", "--open", "all", "--dice", "7", "1"], "7"),
    (["--rules", "pub", "--open", "all", "--dice", "1", "2", "3"], "3"),
    (["--rules", "crafthouse-12", "--open", "1,3", "--dice", "1", "2"], "one die"),
])
def test_moves_errors_are_one_line_exit_2(argv, word):
    proc = run_cli("moves", *argv)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0] and "Traceback" not in proc.stderr


def test_rules_prints_effective_set_and_presets(capsys):
    out = run_json(capsys, "rules", "--rules", "crafthouse-12", "--set", "match=elimination",
                   "--json")
    assert out["rules"]["tiles"] == 12 and out["rules"]["one_die"] == "below-6"
    assert out["rules"]["threshold"] == 78  # 1 + 2 + ... + 12
    assert set(out["presets"]) == {"klappenspiel", "crafthouse-12", "pub"}
    assert out["presets"]["pub"]["shut_the_box"] == "instant-win"
    assert main(["rules"]) == 0
    assert "klappenspiel" in capsys.readouterr().out


def test_rules_prints_config_words_not_python(capsys):
    assert main(["rules", "--rules", "pub"]) == 0
    out = capsys.readouterr().out
    assert "multiplication = false" in out
    assert "threshold = not used (match = pool)" in out
    for python in ("False", "True", "None"):
        assert python not in out
    assert main(["rules", "--set", "multiplication=true"]) == 0
    assert "multiplication = true" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["yes", "no", "1", "0", "on", ""])
def test_rules_accepts_only_true_or_false(value):
    proc = run_cli("rules", "--set", f"multiplication={value}")
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "expected true or false" in lines[0]


def test_help_shows_no_code_notes():
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "``" not in proc.stdout and ":mod:" not in proc.stdout
    assert "Shut the Box" in proc.stdout
