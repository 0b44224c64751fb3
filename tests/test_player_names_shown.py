"""Players' names on every screen: the OLED draws or spells them (never a "?"),
a name it cannot draw at all shows its seat's label; the setup screen's roster;
the TV's names as typed, or initials with [players] public = false."""

from __future__ import annotations

import json
import sqlite3

import pytest
from language_sweep import play
from players_night import play_night
from table import Table

from shutbox_hw.base.events import Roster
from shutbox_hw.game.display import service_view
from shutbox_hw.game.display.screens import AttractScreen, MenuScreen
from shutbox_hw.game.model.service import NAMES, REMOVE, ServiceMenu
from shutbox_hw.render import render
from shutbox_hw.render.fonts import LARGE, SMALL
from shutbox_hw.store.tables import roster

# ------------------------------------------------------------------ the OLED


def _patterns() -> list[tuple[tuple[int, ...], ...]]:
    """The "?" of each font at each size it is drawn in, lit and inverted."""
    out = []
    for font, scale in ((LARGE, 1), (SMALL, 1), (SMALL, 2)):
        rows = [tuple(1 if c == "#" else 0 for c in row for _ in range(scale))
                for row in font.glyphs["?"] for _ in range(scale)]
        out.append(tuple(rows))
        out.append(tuple(tuple(1 - v for v in row) for row in rows))
    return out


QUESTION = _patterns()


def question_marks(frame) -> int:
    """How many "?" glyphs the frame shows (read from its pixels: each pattern's
    first row found in a pixel row, then the rows below it compared)."""
    w, h = frame.size
    px = frame.load()
    rows = ["".join("1" if px[x, y] else "0" for x in range(w)) for y in range(h)]
    found = 0
    for pattern in QUESTION:
        wanted = ["".join(map(str, row)) for row in pattern]
        for y in range(h - len(wanted) + 1):
            x = rows[y].find(wanted[0])
            while x >= 0:
                if all(rows[y + j][x:x + len(row)] == row for j, row in enumerate(wanted)):
                    found += 1
                x = rows[y].find(wanted[0], x + 1)
    return found


def _shut_and_result(names) -> list:
    """A scripted round where the first seat shuts the box and the second loses:
    the shut box's screen, the scoreboard and the result, every name on them."""
    t = Table("klappenspiel", {"match": "single-round"}, player_names=tuple(names), pause_ms=10)
    t.start(2)
    for faces, tiles in [((6, 6), (3, 9)), ((6, 6), (4, 8)), ((6, 6), (5, 7)), ((3, 3), (6,)),
                         ((1, 1), (2,))]:
        t.roll(*faces)
        t.close(*tiles)
        t.wait(t.game.settle_ms + 1)
    t.roll(1, long=True)                     # 7, 8 and 9 shut: one die
    t.close(1)
    t.wait(t.game.settle_ms + 1)
    t.pass_ends()
    t.open(*range(1, 10))
    t.roll(1, 1)
    t.close(2)
    t.wait(t.game.settle_ms + 1)
    t.roll(1, 1)                             # no 2 left: the turn, the round, the game end
    t.pass_ends()
    return t.shown


def _frames(names, seed, preset="klappenspiel"):
    screens = [*play(preset, len(names), tuple(names), seed=seed), *_shut_and_result(names)]
    assert {type(s).__name__ for s in screens} >= {
        "AttractScreen", "PlayScreen", "TurnEndScreen", "ShutScreen", "ScoreboardScreen",
        "ResultScreen"}
    return [render(s) for s in screens]


def _same_game(names, plain, seed, preset="klappenspiel"):
    """The frames of one game played with ``names`` and with ``plain``."""
    got, want = _frames(names, seed, preset), _frames(plain, seed, preset)
    assert len(got) == len(want) > 10
    return got, want


def test_the_question_mark_reader_sees_one_when_a_name_has_one():
    got, want = _same_game(("Bob?", "Zoe"), ("Bob", "Zoe"), seed=3)
    assert sum(map(question_marks, got)) > sum(map(question_marks, want))


@pytest.mark.parametrize("seed, preset", [(1, "klappenspiel"), (2, "pub"), (5, "crafthouse-12")])
def test_names_from_the_issue_never_show_a_question_mark(seed, preset):
    names = ("🍺 Bob", "Zoë Ødegård")
    got, plain = _same_game(names, ("Bob", "Zoe Odegard"), seed, preset)
    # the dice's "? ?" before a throw are the only ones, in the same frames
    assert [question_marks(f) for f in got] == [question_marks(f) for f in plain]
    # the beer is left out, nothing drawn for it: exactly Bob's frames
    bob, _ = _same_game(("Bob", "Zoë Ødegård"), ("Bob", "Zoe Odegard"), seed, preset)
    assert [f.tobytes() for f in got] == [f.tobytes() for f in bob]
    # and Zoë's marks are drawn, not dropped: her frames are not plain Zoe's
    assert any(a.tobytes() != b.tobytes() for a, b in zip(got, plain, strict=True))


@pytest.mark.parametrize("nobody", ["🍺🍺", "Ζωή", "李小龙"])
def test_a_name_the_oled_cannot_draw_shows_its_seat_label(nobody):
    got, labelled = _same_game(("Anna", nobody), ("Anna", "P2"), seed=4)
    assert [f.tobytes() for f in got] == [f.tobytes() for f in labelled]


def test_the_menus_names_are_drawn_the_same_way():
    menu = ServiceMenu.open({"players": 2, NAMES: ("🍺 Bob", "Ζωή")}, ("Zoë Ødegård",),
                            roster=("🍺 Bob", "Zoë Ødegård"))
    plain = ServiceMenu.open({"players": 2, NAMES: ("Bob", "P2")}, ("Zoë Ødegård",),
                             roster=("Bob", "Zoë Ødegård"))
    for page in ({"page": NAMES}, {"page": REMOVE},
                 {"page": "remove", "choice": 0}):
        for key, value in page.items():
            setattr(menu, key, value)
            setattr(plain, key, value)
        a = render(service_view.screen(menu, 9, ()))
        b = render(service_view.screen(plain, 9, ()))
        assert a.tobytes() == b.tobytes(), page


def test_the_tv_keeps_the_name_as_typed():
    t = Table("klappenspiel", player_names=("🍺 Bob", "Zoë Ødegård"))
    t.start(2)
    from shutbox_hw.game.display.shown import shown
    assert shown(t.controller.state)["player"] == "🍺 Bob"
    assert t.events[0]["players"] == ["🍺 Bob", "Zoë Ødegård"]


# ------------------------------------------------------------------ the setup screen's roster

def _table(names=("Anna",), roster_names=("Zoë", "anna", "Ben")):
    t = Table("klappenspiel", player_names=names)
    t.send(Roster(roster_names, t.step()))
    return t


def test_a_long_next_opens_the_roster_most_recent_first_and_roll_seats_a_name():
    t = _table()
    assert isinstance(t.screen, AttractScreen) and t.screen.players == ("Anna",)
    t.press("next", long=True)
    assert isinstance(t.screen, MenuScreen)
    assert t.screen.lines == ("Zoë", "anna", "Ben", "back") and t.screen.selected == 0
    assert t.screen.values == ("", "seat 1", "", "")     # Anna is seated: shown as such
    assert t.screen.prompt == "NEXT: move  ROLL: sit"
    t.press("roll")
    assert t.events[-1] == {"event": "seat_claimed", "seat": 1, "player": "Zoë",
                            "source": "box", "players": ["Anna", "Zoë"]}
    assert t.screen.values[0] == "seat 2" and t.screen.prompt == "NEXT: move  ROLL: leave"
    t.press("next")
    t.press("next")
    t.press("roll")                                      # Ben: a third seat
    assert t.events[-1]["players"] == ["Anna", "Zoë", "Ben"]
    t.press("next", long=True)                           # back to the idle screen
    assert isinstance(t.screen, AttractScreen) and t.screen.players == ("Anna", "Zoë", "Ben")
    t.press("roll")
    assert t.events[-1]["event"] == "turn_started"
    assert t.names("game_started")[0]["players"] == ["Anna", "Zoë", "Ben"]


def test_roll_on_a_seated_name_takes_it_off_its_seat():
    t = _table()
    t.press("next", long=True)
    t.press("next")                                      # anna (Anna, configured at seat 1)
    assert t.screen.prompt == "NEXT: move  ROLL: leave"
    t.press("roll")
    assert t.events[-1] == {"event": "seat_left", "seat": 0, "player": "Anna", "source": "box",
                            "players": ["P1"]}
    t.press("roll")                                      # and back: the first free seat
    assert t.events[-1]["event"] == "seat_claimed"
    assert t.events[-1]["players"] == ["anna"]          # the first seat


def test_the_end_of_the_list_goes_back_and_a_long_roll_is_one_player_fewer():
    t = _table()
    t.press("next", long=True)
    for _ in range(3):
        t.press("next")
    assert t.screen.selected == 3 and t.screen.prompt == "NEXT: move  ROLL: back"
    t.press("next")                                      # past the end: back
    assert isinstance(t.screen, AttractScreen)
    t.press("next", long=True)
    t.press("next", long=True)                           # a long NEXT: back too
    assert isinstance(t.screen, AttractScreen)
    t.press("next")
    t.press("next")
    assert len(t.screen.players) == 3
    t.press("roll", long=True)                           # one fewer, said on the prompt
    assert len(t.screen.players) == 2 and "-1" in t.screen.prompt
    assert [e["event"] for e in t.events] == []          # nothing started, nothing stored


def test_with_no_roster_yet_a_long_next_says_so_in_the_bar():
    t = Table("klappenspiel")
    before = render(t.screen).tobytes()
    t.press("next", long=True)
    assert isinstance(t.screen, AttractScreen)
    assert t.screen.message == "no names yet: play with names"
    assert render(t.screen).tobytes() != before
    t.wait(2000)                                         # the flash is over
    assert t.screen.message is None and render(t.screen).tobytes() == before


def test_a_ninth_player_is_refused_with_the_box_s_words():
    t = _table(names=("A", "B", "C", "D", "E", "F", "G", "H"),
               roster_names=("Ida", "A"))
    t.press("next", long=True)
    t.press("roll")
    assert t.screen.prompt == "every seat is taken"
    assert not any(e["event"] == "seat_claimed" for e in t.events)


# ------------------------------------------------------------------ the daemon's roster

def test_the_daemon_hands_the_roster_in_at_start_and_after_each_game(tmp_path):
    from players_night import GAME, config_for

    from shutbox_hw.sim.runner import SimRunner
    from shutbox_hw.sim.script import parse_script
    db = tmp_path / "box.db"
    play_night(db, [("Anna", "Bob")])
    runner = SimRunner(config_for(("Cleo", "Bob")), db)
    assert runner.daemon.controller.state.roster == ("Bob", "Anna")   # at start
    for step in parse_script(GAME, 9):
        runner.run(step)
    with sqlite3.connect(db) as con:
        assert runner.daemon.controller.state.roster == tuple(p.name for p in roster.recent(con))
    assert set(runner.daemon.controller.state.roster) == {"Anna", "Bob", "Cleo"}
    runner.daemon.store.close()


# ------------------------------------------------------------------ the TV

@pytest.mark.parametrize("public", [True, False])
def test_the_tv_page_shows_initials_only_when_players_are_not_public(tmp_path, public):
    from web_server import WebServer, need_web
    need_web()
    db = tmp_path / "box.db"
    play_night(db, [("Anna Lena", "Bob Bo")])
    config = tmp_path / "box.toml"
    config.write_text(f"[players]\npublic = {str(public).lower()}\n")
    server = WebServer(db, config)
    try:
        live = json.loads(server.get("/live.json")[2])
    finally:
        server.stop()
    result = live["last_result"]
    if public:
        assert result["players"] == ["Anna Lena", "Bob Bo"] and result["winners"] == ["Anna Lena"]
    else:
        assert result["players"] == ["A. L.", "B. B."] and result["winners"] == ["A. L."]
        assert set(result["totals"]) == {"A. L.", "B. B."}
        assert "Anna" not in json.dumps(live) and "Bob" not in json.dumps(live)


def test_the_setup_screen_s_roster_draws_names_the_same_way():
    frames = []
    for names in (("🍺 Bob", "Zoë Ødegård", "Ζωή"), ("Bob", "Zoë Ødegård", "#3")):
        t = Table("klappenspiel", player_names=names[:1])
        t.send(Roster(names, t.step()))
        t.press("next", long=True)
        frames.append([render(t.screen).tobytes()])
        for _ in range(3):
            t.press("next")
            frames[-1].append(render(t.screen).tobytes())
    assert frames[0] == frames[1]


def test_the_pages_show_the_names_as_typed_and_escaped(tmp_path):
    from web_server import InProcessServer, need_web
    need_web()
    db = tmp_path / "box.db"
    play_night(db, [("🍺 Bob", "Zoë <i>Ø")])
    web = InProcessServer(db)
    try:
        history = web.get("/history")[2].decode()
        game = web.get("/game/1")[2].decode()
        live = json.loads(web.get("/live.json")[2])
    finally:
        web.stop()
    for page in (history, game):
        assert "🍺 Bob" in page and "Zoë &lt;i&gt;Ø" in page and "<i>Ø" not in page
    assert live["last_result"]["players"] == ["🍺 Bob", "Zoë <i>Ø"]
