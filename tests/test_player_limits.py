"""check-config's limits on the names ([game] player_names, name_list) and [players] public."""

from __future__ import annotations

import pytest

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.players.display import hide_names, initials, public_name


def _check(tmp_path, capsys, text: str) -> tuple[int, list[str]]:
    path = tmp_path / "box.toml"
    path.write_text(text, encoding="utf-8")
    code = main(["check-config", str(path)])
    return code, capsys.readouterr().err.splitlines()


def test_a_41_character_name_is_refused_with_its_reason(tmp_path, capsys):
    name = "Maximilian Alexander von Hohenzollern-Ab"   # 40 ...
    name += "c"
    assert len(name) == 41
    code, err = _check(tmp_path, capsys, f'[game]\nplayer_names = ["Anna", "{name}"]\n')
    assert code == 2 and len(err) == 1
    line = err[0]
    assert "[game] player_names" in line and "Maximilian" in line
    assert "at most 16 characters" in line and "41" in line


def test_every_bad_name_is_one_line_naming_key_name_and_why(tmp_path, capsys):
    code, err = _check(tmp_path, capsys, (
        '[game]\nplayer_names = ["Anna", "anna", "Bo\\u001bb", "  ", "Zoë"]\n'
        'name_list = ["Zoë", "ZOE", "Ødegård", "odegard", 7]\n'))
    assert code == 2
    expected = [("player_names", "'anna'", "'Anna' is the same player"),
                ("player_names", "'Bo\\x1bb'", "control characters"),
                ("player_names", "'  '", "blank"),
                ("name_list", "'ZOE'", "'Zoë' is the same player"),
                ("name_list", "'odegard'", "'Ødegård' is the same player"),
                ("name_list", "name 5", "expected text, got 7")]
    assert len(err) == len(expected), err
    for key, name, why in expected:
        assert any(f"[game] {key}: " in ln and name in ln and why in ln for ln in err), \
            (key, name, why, err)
    # no raw control character reaches the terminal
    assert not any("\x1b" in ln for ln in err)


def test_names_at_the_limit_load_tidied(tmp_path):
    path = tmp_path / "box.toml"
    path.write_text('[game]\nplayer_names = ["  Zoë   Ødegård ", "🍺 Bob", "x234567890123456"]\n',
                    encoding="utf-8")
    assert load_config(path).game.player_names == ("Zoë Ødegård", "🍺 Bob", "x234567890123456")


@pytest.mark.parametrize("value, ok", [("true", True), ("false", True), ('"no"', False),
                                       ("0", False)])
def test_players_public_is_a_flag(tmp_path, capsys, value, ok):
    code, err = _check(tmp_path, capsys, f"[players]\npublic = {value}\n")
    assert (code == 0) == ok
    if not ok:
        assert err == [f"{tmp_path / 'box.toml'}: [players] public: expected true or false, "
                       f"got {'0' if value == '0' else repr(value.strip(chr(34))) + ' (text)'}"]


def test_players_public_defaults_to_true_and_reads_false(tmp_path):
    path = tmp_path / "box.toml"
    path.write_text("", encoding="utf-8")
    assert load_config(path).players.public is True
    path.write_text("[players]\npublic = false\n", encoding="utf-8")
    assert load_config(path).players.public is False
    path.write_text("[players]\nshow = 1\n", encoding="utf-8")
    with pytest.raises(Exception, match=r"\[players\] show: unknown key"):
        load_config(path)


@pytest.mark.parametrize("name, shown", [
    ("Anna Lena", "A. L."), ("  anna   lena ", "A. L."), ("Zoë Ødegård", "Z. Ø."),
    ("🍺 Bob", "B."), ("Jean-Luc", "J."), ("P3", "P3"), ("李小龙", "李."), ("ßaß", "SS.")])
def test_initials(name, shown):
    assert initials(name) == shown


def test_public_name_and_the_summary_with_names_hidden():
    assert public_name("Anna Lena", True) == "Anna Lena"
    assert public_name("Anna Lena", False) == "A. L."
    summary = {"player": "Anna Lena", "title": "Klappenspiel",
               "players": [{"name": "Anna Lena", "total": 3}, {"name": "P2", "total": 5}],
               "tonight": {"best": {"player": "Bob Bo", "score": 3}},
               "last_result": {"players": ["Anna Lena", "Bob Bo"], "winners": ["Bob Bo"],
                               "totals": {"Anna Lena": 9, "Bob Bo": 4}}}
    hidden = hide_names(summary)
    assert hidden == {"player": "A. L.", "title": "Klappenspiel",
                      "players": [{"name": "A. L.", "total": 3}, {"name": "P2", "total": 5}],
                      "tonight": {"best": {"player": "B. B.", "score": 3}},
                      "last_result": {"players": ["A. L.", "B. B."], "winners": ["B. B."],
                                      "totals": {"A. L.": 9, "B. B.": 4}}}
    assert summary["player"] == "Anna Lena"     # a copy: the original is left as it was
