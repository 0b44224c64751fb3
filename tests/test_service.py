"""The service menu's state machine, its events and the settings table."""

import sqlite3

from shutbox_hw.game.model.events import ServiceExited, SettingChanged
from shutbox_hw.game.model.service import ADJUST_ITEMS, CHOICES, ITEMS, RESET, ServiceMenu
from shutbox_hw.rules import PRESETS
from shutbox_hw.store import Store
from shutbox_hw.store.write.settings import clear_settings, load_settings, save_setting

VALUES = {"preset": "pub", "players": 2, "hints": "off", "settle_ms": 2500, "contrast": 255}


def press(menu, *buttons):
    events = []
    for b in buttons:
        long = b.endswith("!")
        events += menu.button(b.rstrip("!"), long)
    return events


def open_item(menu, item):
    """From the top of the menu: NEXT down to ``item``, ROLL to open it."""
    return press(menu, *["NEXT"] * ITEMS.index(item), "ROLL")


def test_next_moves_and_long_next_leaves():
    menu = ServiceMenu.open(VALUES)
    press(menu, "NEXT")
    assert menu.index == 1
    press(menu, *["NEXT"] * (len(ITEMS) - 1))
    assert menu.index == 0
    assert press(menu, "NEXT!") == [ServiceExited()] and menu.done


def test_changing_the_preset_emits_setting_changed():
    menu = ServiceMenu.open(VALUES)
    open_item(menu, "adjustments")
    assert menu.page == "adjustments"
    press(menu, "ROLL")                            # preset
    assert menu.page == "edit" and CHOICES["preset"][menu.choice] == "pub"
    events = press(menu, "NEXT", "ROLL")
    expected = list(PRESETS)[(list(PRESETS).index("pub") + 1) % len(PRESETS)]
    assert events == [SettingChanged(key="preset", value=expected)]
    assert menu.values["preset"] == expected and menu.page == "adjustments"


def test_long_next_in_edit_keeps_the_value():
    menu = ServiceMenu.open(VALUES)
    open_item(menu, "adjustments")
    press(menu, "NEXT", "ROLL", "NEXT")            # editing players
    assert press(menu, "NEXT!") == [] and menu.values["players"] == 2
    assert menu.page == "adjustments" and ADJUST_ITEMS[menu.index] == "players"


def test_reset_needs_a_confirmation():
    menu = ServiceMenu.open(VALUES)
    open_item(menu, "adjustments")
    press(menu, *["NEXT"] * ADJUST_ITEMS.index(RESET))
    assert press(menu, "ROLL") == [] and menu.page == "confirm"
    assert press(menu, "ROLL") == [SettingChanged(key="all", value=None)]


def test_switch_test_counts_presses_and_flaps():
    menu = ServiceMenu.open(VALUES)
    press(menu, "ROLL")
    assert menu.page == "switch test"
    press(menu, "ROLL", "ROLL", "NEXT")
    for down in (True, False, True):
        menu.switch("flap 7", down)
    assert menu.counts == {"ROLL": 2, "NEXT": 1, "flap 7": 2}
    assert menu.live["flap 7"] is True
    press(menu, "NEXT!")
    assert menu.page == "menu" and not menu.done


def test_settings_table_round_trip(tmp_path):
    path = tmp_path / "box.db"
    store = Store(path)
    save_setting(store.db, "preset", "pub")
    save_setting(store.db, "players", 3)
    save_setting(store.db, "players", 4)
    store.close()
    db = sqlite3.connect(path)
    assert load_settings(db) == {"players": 4, "preset": "pub"}
    clear_settings(db)
    assert load_settings(db) == {}


def test_the_store_keeps_setting_changed_and_reset(tmp_path):
    from shutbox_hw.game.model.events import ServiceEntered
    store = Store(tmp_path / "box.db")
    store.record_all([ServiceEntered(), SettingChanged(key="preset", value="pub"),
                      SettingChanged(key="players", value=3), ServiceExited()])
    assert load_settings(store.db) == {"preset": "pub", "players": 3}
    store.record(SettingChanged(key="all", value=None))
    assert load_settings(store.db) == {}
    store.close()


def test_rules_and_check_config_show_where_each_value_comes_from(tmp_path, capsys):
    import json

    from shutbox_hw.commands.cli import main
    config = tmp_path / "box.toml"
    config.write_text('[rules]\npreset = "pub"\n[game]\nsettle_ms = 2000\n')
    db = tmp_path / "box.db"
    store = Store(db)
    store.record_all([SettingChanged(key="preset", value="klappenspiel"),
                      SettingChanged(key="players", value=3)])
    store.close()
    assert main(["rules", "--config", str(config), "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"]["preset"] == "klappenspiel"
    assert data["settings"]["preset"] == {"value": "klappenspiel", "from": "box"}
    assert data["settings"]["players"] == {"value": 3, "from": "box"}
    assert data["settings"]["settle_ms"] == {"value": 2000, "from": "config file"}
    assert main(["check-config", str(config), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "preset = klappenspiel  (box)" in out and "settle_ms = 2000  (config file)" in out
    assert main(["rules", "--config", str(config), "--db", str(tmp_path / "none.db")]) == 0
    assert "preset = pub  (config file)" in capsys.readouterr().out


def test_both_held_fires_once_after_five_seconds():
    from shutbox_hw.hal.contracts.debounce import BothHeld
    both = BothHeld(5000)
    both.level("ROLL", True, 0)
    assert both.timer.when is None                 # one button alone is no gesture
    both.level("NEXT", True, 100)
    assert both.poll(5099) is None
    assert both.poll(5100) == 5100
    assert both.poll(20_000) is None                # once per gesture
    both.level("NEXT", False, 21_000)
    both.level("NEXT", True, 21_100)                # ROLL never released: no new gesture
    assert both.poll(40_000) is None
    both.level("ROLL", False, 41_000)
    both.level("NEXT", False, 41_000)
    both.level("ROLL", True, 42_000)
    both.level("NEXT", True, 42_000)
    both.level("NEXT", False, 46_000)               # let go too early
    assert both.poll(50_000) is None
