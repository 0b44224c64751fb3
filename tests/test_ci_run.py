""".ci/run, CI's script: the README's test command, then mypy and ruff (there only, not in
the suite as well), each stage under its own bound inside a budget short of CI's 90 minutes.

The stage helper is taken out of the script and run here on commands that pass, fail and
hang, so what CI prints when a stage hangs is seen, not assumed.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = (ROOT / ".ci" / "run").read_text()
README = (ROOT / "README.md").read_text()
CI_LIMIT = 90 * 60     # s: CI stops the whole submission there


def _words(command: str) -> list[str]:
    return shlex.split(command.replace("\\\n", " "))


def _stages() -> dict[str, tuple[int, list[str]]]:
    """Each `stage NAME BOUND COMMAND...` of the script (continued over lines while a quote
    is open): name -> (bound, command)."""
    found = {}
    lines = SCRIPT.splitlines()
    for at, line in enumerate(lines):
        if not line.strip().startswith("stage "):
            continue
        text = line
        while True:
            try:
                words = shlex.split(text.split("||")[0] if text.count("'") % 2 == 0 else text)
                break
            except ValueError:          # a quote still open: the command goes on
                at += 1
                text += "\n" + lines[at]
        _, name, bound, *command = words
        found[name] = (int(bound), command)
    return found


def test_mypy_and_ruff_run_in_ci_over_the_package_and_the_tests():
    stages = _stages()
    assert stages["mypy"][1] == [".venv/bin/mypy", "--strict", "shutbox_hw"]
    assert stages["ruff"][1] == [".venv/bin/ruff", "check", "shutbox_hw", "tests"]
    # the settings they use are the project's (strict, and a bounded rule set)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["mypy"]["strict"] is True
    assert any(r.startswith("ruff>=") and "<" in r
               for r in project["project"]["optional-dependencies"]["test"])


def test_ci_runs_the_readme_s_test_command_with_the_slowest_tests_printed():
    readme = next(line for line in README.splitlines()
                  if line.startswith("python3 -m venv .venv") and "pytest" in line)
    install, pytest = readme.rsplit(" && ", 1)
    setup = _stages()["setup"][1]
    assert setup[:2] == ["bash", "-c"], setup
    assert _words(setup[2])[-len(_words(install)):] == _words(install), setup
    assert _stages()["tests"][1] == _words(pytest) + ["--durations=25"]


def test_the_league_night_runs_by_its_path_and_the_readme_s_command_leaves_it_out():
    """tests/league_night runs in a stage of its own, named by its path; the default
    collection (testpaths) does not recurse into it."""
    assert _stages()["league night"][1] == [".venv/bin/python", "-m", "pytest", "-p",
                                            "no:cacheprovider", "tests/league_night"]
    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"][
        "ini_options"]
    assert options["testpaths"] == ["tests"] and "league_night" in options["norecursedirs"]
    assert (ROOT / "tests" / "league_night" / "test_league_night.py").is_file()


def test_every_stage_has_a_bound_and_the_budget_ends_before_ci_s_limit():
    budget = int(re.search(r"CI_BUDGET:-(\d+)", SCRIPT)[1])
    stages = _stages()
    assert set(stages) == {"setup", "tests", "mypy", "ruff", "league night", "rehearsal full",
                           "arm"}
    assert all(0 < bound <= budget for bound, _ in stages.values())
    assert budget <= CI_LIMIT - 5 * 60


def _run_stages(*stages: str, budget: int = 600) -> subprocess.CompletedProcess:
    helper = SCRIPT[SCRIPT.index("START=$SECONDS"):SCRIPT.index("trap summary EXIT")]
    script = f"set -euo pipefail\nCI_BUDGET={budget}\n{helper}trap summary EXIT\n" + \
        "\n".join(stages)
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)


def test_a_stage_that_hangs_is_stopped_with_its_name_and_the_reason():
    done = _run_stages("stage quick 30 true", "stage hangs 1 sleep 30", "stage never 30 true")
    assert done.returncode == 124
    lines = done.stdout.splitlines()
    assert any(re.fullmatch(r"== stage quick: [01] s \(bound 30 s\), exit 0", line)
               for line in lines), lines    # 1 s when the run crosses a second of the clock
    assert any(re.fullmatch(r"== stage hangs: STOPPED after [12] s: it ran past its bound "
                            r"of 1 s", line) for line in lines), lines
    assert not any("never" in line for line in lines)     # the run stops there
    table = lines[lines.index(next(x for x in lines if x.startswith("== stages' times"))):]
    assert [line.split()[0] for line in table[1:]] == ["quick", "hangs"]
    assert "STOPPED" in table[2] and "(bound     1 s)" in table[2]


def test_a_failing_stage_fails_the_run_with_its_status_and_its_time():
    done = _run_stages("stage fine 30 true", "stage broken 30 bash -c 'exit 3'")
    assert done.returncode == 3
    assert "== stage broken: 0 s (bound 30 s), exit 3" in done.stdout.splitlines()


def test_a_bound_is_cut_to_what_is_left_of_the_budget():
    # 61 s of budget, 60 of them kept back for the summary: the floor of 60 s applies
    done = _run_stages("stage tight 3000 true", budget=61)
    assert "== stage tight: bound 60 s" in done.stdout.splitlines()
    done = _run_stages("stage roomy 3000 true", budget=1000)
    assert "== stage roomy: bound 940 s" in done.stdout.splitlines()
