"""``shutbox-hw moves``: the same throws as ``solve`` and the box accept, the
heading names the numbers the rules really use, and ``--open`` mistakes are
refused in one line."""

import json

import pytest
from cli_inprocess import run_cli

from shutbox_hw.cli import main


def cli(*argv):
    return run_cli(*argv)


def one_line_error(proc, *words):
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("command", ["moves", "solve"])
def test_one_die_where_two_are_due_is_refused_by_both_with_the_reason(command):
    line = one_line_error(cli(command, "--rules", "klappenspiel", "--open", "all",
                              "--dice", "4"),
                          "two dice", "not 1", "one_die = when-high-shut")
    assert line.startswith(f"shutbox-hw {command}:")


def test_one_die_is_accepted_where_the_rules_allow_it(capsys):
    # klappenspiel with 7, 8, 9 shut: one or two dice
    assert main(["moves", "--rules", "klappenspiel", "--open", "1,2,3",
                 "--dice", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["closures"] == [[1, 2], [3]] and out["targets"] == [3]


def test_multiplication_heading_names_both_targets(capsys):
    assert main(["moves", "--rules", "crafthouse-12", "--set", "multiplication=true",
                 "--open", "2,12,10", "--dice", "4", "6"]) == 0
    out = capsys.readouterr().out
    assert "4 + 6 (10) or 4 x 6 (24) lets you shut:" in out
    assert "  2, 12\n" in out and "  10\n" in out


def test_plain_heading_names_the_sum(capsys):
    assert main(["moves", "--rules", "pub", "--open", "all", "--dice", "3", "5"]) == 0
    assert "3 + 5 (8) lets you shut:" in capsys.readouterr().out
    assert main(["moves", "--rules", "pub", "--open", "1,5,9", "--dice", "1", "3"]) == 0
    assert "1 + 3 (4): no move, the turn ends" in capsys.readouterr().out


def test_open_none_means_no_tiles(capsys):
    out = json.loads(cli("moves", "--rules", "pub", "--open", "none", "--json").stdout)
    assert out["open"] == [] and out["score"] == 0


@pytest.mark.parametrize("value,words", [
    ("", ("empty", "'none'")),
    ("  ", ("empty",)),
    ("1,1,2", ("tile 1", "twice")),
    ("3,9,3", ("tile 3", "twice")),
    ("1,,2", ("''",)),
])
@pytest.mark.parametrize("command", ["moves", "solve"])
def test_open_mistakes_are_refused(command, value, words):
    one_line_error(cli(command, "--rules", "pub", "--open", value), "--open", *words)
