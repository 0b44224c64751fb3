"""The generated references in docs/operate/ are what the code makes, and what they
say holds: every config key they list is one the config check takes (with the
default they give), every flag one the command's --help lists."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from shutbox_hw.base.validate import Spec
from shutbox_hw.commands import cli
from shutbox_hw.config.config_file import check_config
from shutbox_hw.reference import PAGES, REGENERATE, stale_pages
from shutbox_hw.reference.config_page import SPECS

ROOT = Path(__file__).resolve().parent.parent
CONFIG_PAGE = ROOT / "docs" / "operate" / "config-reference.md"
COMMANDS_PAGE = ROOT / "docs" / "operate" / "commands.md"


def test_the_generated_pages_are_what_the_code_makes():
    stale = stale_pages(ROOT)
    assert not stale, (f"{', '.join(stale)} differ from what the code makes; "
                       f"regenerate with: {REGENERATE}")


def test_every_spec_in_the_package_is_in_the_config_reference():
    """A table added anywhere (``NAME = Spec(...)``) must be listed in SPECS."""
    found = []
    for path in (ROOT / "shutbox_hw").rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and getattr(node.value.func, "id", None) == "Spec"):
                module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
                for target in node.targets:
                    assert isinstance(target, ast.Name)
                    found.append((module, target.id))
    assert len(found) >= 11
    listed = [id(spec) for spec in SPECS.values()]
    for module, name in found:
        spec = getattr(importlib.import_module(module), name)
        assert isinstance(spec, Spec)
        assert id(spec) in listed, f"{module}.{name} is not in reference/config_page.py SPECS"


def page_rows(page: Path) -> dict[str, list[list[str]]]:
    """Each `## ` section's table rows, cells split (escaped pipes kept together)."""
    sections: dict[str, list[list[str]]] = {}
    current = ""
    for line in page.read_text().splitlines():
        if line.startswith("## "):
            current = line[3:].strip("`")
            sections[current] = []
        elif line.startswith("| `") and current:
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            sections[current].append(cells)
    return sections


def table_file(tmp_path: Path, table: str, line: str) -> Path:
    path = tmp_path / "box.toml"
    path.write_text(f"[{table}]\n{line}\n")
    return path


def config_rows():
    for section, rows in page_rows(CONFIG_PAGE).items():
        table = section.strip("[]")
        if table == "rules":
            continue
        for cells in rows:
            yield table, cells[0].strip("`"), cells[2]


@pytest.mark.parametrize("table,key,default", list(config_rows()))
def test_every_key_the_reference_lists_is_one_the_check_takes(tmp_path, table, key, default):
    problems = check_config(table_file(tmp_path, table, f"{key} = []" if default == "not set"
                                       else f"{key} = {default.strip('`')}"))
    assert not [p for p in problems if "unknown" in p], problems
    if default not in ("not set", "`[]`"):
        # the default the page gives is a good value: no problem names this key
        assert not [p for p in problems if f"] {key}:" in p], problems


def test_a_key_the_reference_does_not_list_is_refused(tmp_path):
    listed = {(table, key) for table, key, _ in config_rows()}
    assert ("network", "outbox_max") in listed and ("hardware.display", "contrast") in listed
    problems = check_config(table_file(tmp_path, "network", "outbox_maximum = 5"))
    assert any("unknown key" in p for p in problems)


def test_the_rules_rows_are_the_keys_the_engine_takes(capsys):
    """Each rule key the page lists, set to the value it gives for klappenspiel, is taken."""
    rows = [cells for cells in page_rows(CONFIG_PAGE)["[rules]"] if cells[0] != "`preset`"]
    assert len(rows) >= 9
    for cells in rows:
        key, shown = cells[0].strip("`"), cells[2]
        value = "30" if shown == "by `match`" else shown.strip("`").strip('"')
        assert cli.main(["rules", "--rules", "klappenspiel", "--set", f"{key}={value}"]) == 0
    capsys.readouterr()
    assert cli.main(["rules", "--set", "treshold=3"]) == 2
    assert "unknown rules key" in capsys.readouterr().err


def test_every_command_and_flag_of_the_reference_is_in_the_help(capsys):
    sections = {name: rows for name, rows in page_rows(COMMANDS_PAGE).items()
                if name.startswith("shutbox-hw ")}
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    listed = capsys.readouterr().out
    assert {name.removeprefix("shutbox-hw ") for name in sections} == set(cli.COMMANDS)
    for name, rows in sections.items():
        command = name.removeprefix("shutbox-hw ")
        assert command in listed
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        usage = capsys.readouterr().out
        flags = [f.strip("`") for cells in rows for f in cells[0].split(", ")
                 if f.startswith("`-")]
        assert flags, name
        for flag in flags:
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", usage), (name, flag)
        # and the other way round: every flag --help lists is on the page
        shown = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", usage)) - {"--help"}
        assert shown <= set(flags), (name, shown - set(flags))


def test_regenerating_is_one_command(tmp_path):
    """The command the failure message names writes every page."""
    from shutbox_hw.reference.__main__ import main
    assert main(["--checkout", str(tmp_path)]) == 1
    assert main(["--write", "--checkout", str(tmp_path)]) == 0
    assert main(["--checkout", str(tmp_path)]) == 0
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.md")) == sorted(PAGES)


def test_the_installer_section_is_what_its_help_prints_and_every_option_is_taken():
    import subprocess
    installer = ROOT / "systemd" / "install.sh"
    printed = subprocess.run(["bash", str(installer), "--help"], capture_output=True, text=True,
                             check=True).stdout
    page = COMMANDS_PAGE.read_text()
    section = page[page.index("## `systemd/install.sh`"):]
    block = section.split("```text\n", 1)[1].split("\n```", 1)[0]
    assert block + "\n" == printed
    # each option the help lists is one the installer's own argument loop takes
    script = installer.read_text()
    start = script.index("while (($#)); do")
    loop = script[start:script.index("\ndone", start)]
    options = re.findall(r"^  (?:-h, )?(--[a-z-]+)", block, re.M)
    assert len(options) >= 10
    for option in options:
        assert re.search(rf"(^|[\s|]){re.escape(option)}[)|=]", loop, re.M), option
