"""The operator menu end to end: the gesture on the buttons, the controller's
service phase, the idle screen's figures, and a script that changes the rule
set on the box and finds it changed after a power cut."""

from __future__ import annotations

import json
from pathlib import Path

from table import Table

from shutbox_hw.base.events import (
    ButtonLevel,
    ButtonPressed,
    Figures,
    ServiceRequested,
    Tick,
    Tonight,
)
from shutbox_hw.game.display import view
from shutbox_hw.game.display.screens import (
    AttractScreen,
    ConfirmScreen,
    MenuScreen,
    SwitchTestScreen,
)
from shutbox_hw.game.display.view import ATTRACT_PAGE_MS
from shutbox_hw.game.model.service import ITEMS, LED_STEPS
from shutbox_hw.hal.contracts.debounce import SERVICE_HOLD_MS, ButtonInputs
from shutbox_hw.rules import PRESETS, build_rules
from shutbox_hw.store.write.sqlite import TIMESYNC_FLAG

VALUES = {"preset": "klappenspiel", "players": 2, "names": ("P1", "P2"), "hints": "off",
          "settle_ms": 2500, "contrast": 127}


# ---------------------------------------------------------------- the gesture

def held(roll: tuple[int, int], nxt: tuple[int, int], until: int) -> list:
    """ROLL and NEXT pressed and released at these times (ms, raw edges); every
    event the button logic gives up to ``until``."""
    inputs = ButtonInputs({"roll": False, "next": False}, hold_ms=1000, debounce_ms=20)
    edges = sorted([(roll[0], "roll", True), (roll[1], "roll", False),
                    (nxt[0], "next", True), (nxt[1], "next", False)])
    out: list = []
    for at, name, level in edges:
        out += inputs.poll(at)
        inputs.edge(name, level, at)
    for now in range(edges[-1][0], until, 50):
        out += inputs.poll(now)
    return out + inputs.poll(until)


def test_both_buttons_held_five_seconds_ask_for_the_menu_once():
    events = held((0, 7000), (300, 7000), 9000)
    asked = [e for e in events if isinstance(e, ServiceRequested)]
    # both settled down at 300 + 20 ms debounce; the gesture completes 5 s later
    assert asked == [ServiceRequested(320 + SERVICE_HOLD_MS)]
    # each button's own long press still comes (the idle screen ignores those)
    assert {(e.button, e.long) for e in events if isinstance(e, ButtonPressed)} == \
        {("roll", True), ("next", True)}
    # and every settled change of each button, for the switch test
    assert [(e.button, e.down, e.at_ms) for e in events if isinstance(e, ButtonLevel)] == \
        [("roll", True, 20), ("next", True, 320), ("roll", False, 7020), ("next", False, 7020)]


def test_letting_go_early_or_one_button_alone_is_no_gesture():
    early = held((0, 5000), (300, 5000), 12_000)       # 4.68 s together
    assert not [e for e in early if isinstance(e, ServiceRequested)]
    apart = held((0, 3000), (3500, 9500), 12_000)      # never down together
    assert not [e for e in apart if isinstance(e, ServiceRequested)]


# ---------------------------------------------------------------- the controller

def table(**game) -> Table:
    t = Table(**game)
    t.controller.configure(t.rules, t.game, None, VALUES)
    return t


def enter(t: Table) -> None:
    t.send(ServiceRequested(t.step()))


def choose(t: Table, item: str) -> None:
    """From the top of the menu: NEXT down to ``item``, ROLL."""
    for _ in range(ITEMS.index(item)):
        t.press("next")
    t.press("roll")


def test_the_menu_opens_on_the_idle_screen_only():
    t = table()
    t.press("roll")                       # a game starts
    enter(t)
    assert t.controller.phase == "play" and "service_entered" not in t.names_of()
    t.press("next", long=True)            # New game?
    t.press("roll")                       # yes: abandoned, back to idle after the result
    t.press("roll")
    assert t.controller.phase == "idle"
    enter(t)
    assert t.controller.phase == "service" and t.names_of()[-1] == "service_entered"
    assert t.screen == MenuScreen("SERVICE", ITEMS, selected=0)


def test_long_next_at_the_top_leaves_and_the_idle_screen_returns():
    t = table()
    enter(t)
    t.press("next", long=True)
    assert t.names_of()[-1] == "service_exited" and t.controller.phase == "idle"
    assert isinstance(t.screen, AttractScreen)


def test_switch_test_shows_each_flap_live_and_counts_it():
    t = table()
    enter(t)
    choose(t, "switch test")
    t.close(7)
    t.open(7)
    t.close(7, 2)
    t.press("roll")
    assert t.screen == SwitchTestScreen(tiles=9, down=(2, 7),
                                        counts=(0, 1, 0, 0, 0, 0, 2, 0, 0), roll=1, next=0)
    assert t.leds.flaps[1] == t.leds.flaps[6] == "on" and t.leds.flaps[0] == "off"
    t.send(ButtonLevel("next", True, t.step()))       # NEXT held down now: shown live
    assert t.screen.held == ("NEXT",) and t.screen.next == 0
    t.send(ButtonLevel("next", False, t.step()))
    t.press("next")
    assert t.screen.held == () and t.screen.next == 1
    t.press("next", long=True)
    assert t.screen == MenuScreen("SERVICE", ITEMS, selected=ITEMS.index("switch test"))


def test_led_test_steps_through_every_light():
    t = table()
    enter(t)
    choose(t, "LED test")
    seen = []
    for _ in LED_STEPS:
        seen.append((set(t.leds.flaps), t.leds.green, t.leds.red))
        t.press("next")
    assert seen == [({"on"}, "on", "on"), ({"on"}, "off", "off"), ({"off"}, "on", "off"),
                    ({"off"}, "off", "on"), ({"off"}, "off", "off")]


def test_audits_page_shows_the_lines_the_daemon_read_and_scrolls():
    t = table()
    lines = tuple(f"line {i}" for i in range(8))
    t.send(Figures(Tonight(2, 1, ("Ann", 3)), lines, t.step()))
    enter(t)
    choose(t, "audits")
    assert t.screen.lines == lines and t.screen.selected is None and t.screen.first == 0
    t.press("next")
    t.press("next")
    assert t.screen.first == 6          # a page (three lines) a press


def test_audits_scroll_a_page_a_press_and_roll_goes_back_up_as_the_screen_says():
    # issue 18: twenty lines scrolled one a press, and nothing said ROLL scrolls back
    t = table()
    lines = ("games", "played\t4", "rounds\t9", "boxes shut\t1", "button presses",
             "ROLL\t41", "NEXT\t2")
    t.send(Figures(Tonight(2, 1, ("Ann", 3)), lines, t.step()))
    enter(t)
    choose(t, "audits")
    screen = t.screen
    assert screen.lines == ("games", "played", "rounds", "boxes shut", "button presses",
                            "ROLL", "NEXT")
    assert screen.values == ("", "4", "9", "1", "", "41", "2")
    assert screen.headings == (0, 4)
    assert "ROLL: up" in screen.prompt and "NEXT: down" in screen.prompt
    assert "hold" in screen.title
    firsts = []
    for _ in range(3):
        t.press("next")
        firsts.append(t.screen.first)
    assert firsts == [3, 6, 0]            # the last page, then the top again
    t.press("next")
    t.press("next")
    t.press("roll")
    assert t.screen.first == 3 and t.screen.selected is None


def test_reset_audits_asks_first_and_no_keeps_them():
    t = table()
    enter(t)
    choose(t, "reset audits")
    assert t.screen == ConfirmScreen("Reset audits?")
    t.press("next")                                   # no
    assert "audits_reset" not in t.names_of() and t.screen.title == "SERVICE"
    t.press("roll")                                   # the same item again: yes
    t.press("roll")
    assert t.names_of()[-1] == "audits_reset"


def test_an_adjustment_is_an_event_and_the_values_show_on_the_menu():
    t = table()
    enter(t)
    choose(t, "adjustments")
    assert t.screen.values[:2] == ("Klappenspiel", "2")  # the name the idle screen shows
    t.press("roll")                                   # rules
    t.press("next")
    t.press("roll")
    following = list(PRESETS)[(list(PRESETS).index("klappenspiel") + 1) % len(PRESETS)]
    assert t.events[-1] == {"event": "setting_changed", "key": "preset", "value": following}


def test_the_menu_names_the_presets_as_the_idle_screen_does():
    # issue 18: the box said "1-12 Race" on the idle screen and "crafthouse-12" in the menu
    t = table()
    enter(t)
    choose(t, "adjustments")
    t.press("roll")                                   # rules: the presets to choose from
    titles = {"klappenspiel": "Klappenspiel", "crafthouse-12": "1-12 Race", "pub": "Pub Pool"}
    assert t.screen.lines == tuple(titles[p] for p in PRESETS)
    for preset in PRESETS:
        assert view.title(build_rules(preset)) == titles[preset]


def test_a_seat_is_named_from_the_list():
    t = table(name_list=("Anna", "Ben", "Cleo"))
    enter(t)
    choose(t, "adjustments")
    t.press("next")
    t.press("next")
    t.press("roll")                                   # names
    assert t.screen.title == "NAMES" and t.screen.values == ("P1", "P2")
    t.press("next")
    t.press("roll")                                   # seat 2
    lines = t.screen.lines
    assert lines[:3] == ("Anna", "Ben", "Cleo") and "P1" not in lines   # seat 1 has it
    assert lines[t.screen.selected] == "P2"          # the seat's name to start with
    for _ in range((lines.index("Ben") - t.screen.selected) % len(lines)):
        t.press("next")
    t.press("roll")
    assert t.events[-1] == {"event": "setting_changed", "key": "names", "value": ["P1", "Ben"]}
    assert t.screen.values == ("P1", "Ben")


# ---------------------------------------------------------------- the idle screen

def test_idle_screen_alternates_with_tonights_figures():
    t = table()
    t.send(Figures(Tonight(3, 1, ("Ann", 2)), (), 0))
    pages = []
    for now in range(0, 4 * ATTRACT_PAGE_MS, ATTRACT_PAGE_MS // 2):
        t.send(Tick(now))
        pages.append(t.screen.tonight)
    assert pages == [None, None, Tonight(3, 1, ("Ann", 2)), Tonight(3, 1, ("Ann", 2))] * 2
    assert t.controller.next_deadline_ms() == 4 * ATTRACT_PAGE_MS


def test_no_figures_no_alternation():
    t = table()
    t.send(Figures(Tonight(0, 0), (), 0))
    t.send(Tick(ATTRACT_PAGE_MS + 1))
    assert t.screen.tonight is None and t.controller.next_deadline_ms() is None


# ---------------------------------------------------------------- a script on the simulated box

def run_sim(capsys, db: Path, text: str, tmp_path: Path) -> list[dict]:
    from shutbox_hw.commands.cli import main
    script = tmp_path / f"s{len(list(tmp_path.glob('s*.txt')))}.txt"
    script.write_text(text)
    code = main(["sim", "--db", str(db), "--script", str(script)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def test_a_script_changes_the_preset_on_the_menu_and_it_survives_restarts(capsys, tmp_path):
    db = tmp_path / "box.db"
    following = list(PRESETS)[(list(PRESETS).index("klappenspiel") + 1) % len(PRESETS)]
    lines = ["hold-both", *["next"] * ITEMS.index("adjustments"), "roll",   # adjustments
             "roll", "next", "roll",          # rules: the next preset, stored
             "hold-next", "hold-next",        # back to the menu, out of it
             "restart", "start 2", "hold-next", "roll"]   # a game, stopped at once
    events = run_sim(capsys, db, "\n".join(lines), tmp_path)
    names = [e["event"] for e in events]
    assert names[:3] == ["service_entered", "setting_changed", "service_exited"]
    assert events[1] == {"event": "setting_changed", "key": "preset", "value": following}
    assert events[3]["event"] == "game_started" and events[3]["rules"]["preset"] == following
    # another run on the same database (the box switched off overnight): still in force
    again = run_sim(capsys, db, "start 2", tmp_path)
    assert again[0]["rules"]["preset"] == following
    # and the commands say where the value comes from
    from shutbox_hw.commands.cli import main
    config = tmp_path / "box.toml"
    config.write_text('[rules]\npreset = "klappenspiel"\n')
    assert main(["rules", "--config", str(config), "--db", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["settings"]["preset"]
    assert shown == {"value": following, "from": "box"}


def test_tonights_figures_after_a_game_and_the_reset_on_the_menu(tmp_path):
    from shutbox_hw.config.config_file import load_config
    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import parse_script
    script = Path(__file__).parent / "scripts" / "two-player-klappenspiel.txt"
    events: list[dict] = []
    runner = SimRunner(load_config(None, preset="klappenspiel", rule_overrides={"threshold": 10}),
                       tmp_path / "box.db", on_event=events.append)
    for step in parse_script(script.read_text(), 9):
        runner.run(step)
    runner.let_ends_show()
    ended = [e for e in events if e["event"] == "turn_ended"]
    best = min(ended, key=lambda e: e["score"])       # the first of the lowest
    state = runner.daemon.controller.state
    # counted by the box's clock, said to be set only where timesyncd says so
    clock = "set" if TIMESYNC_FLAG.exists() else "not set"
    assert state.tonight == Tonight(games=1, boxes_shut=sum(e["shut"] for e in ended),
                                    best=(best["player"], best["score"]), clock=clock)
    assert state.audits == ()                         # read when the menu opens
    for step in parse_script("roll\nhold-both\n", 9):  # the result, idle, the menu
        runner.run(step)
    assert runner.daemon.controller.state.audits[:2] == ("games", "played\t1")
    runner.run(parse_script("hold-next\n", 9)[0])     # out again
    # the menu's reset: the audits start again, the idle screen's figures with them
    assert runner.phase_now() == "idle"
    steps = ["hold-both", *["next"] * ITEMS.index("reset audits"), "roll", "roll", "hold-next"]
    for step in parse_script("\n".join(steps), 9):
        runner.run(step)
    assert [e["event"] for e in events[-3:]] == ["service_entered", "audits_reset",
                                                 "service_exited"]
    assert runner.daemon.controller.state.audits[:4] == ("games", "played\t0", "rounds\t0",
                                                         "boxes shut\t0")
