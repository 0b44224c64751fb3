"""What the box says and how it lays it out (issue 18, point 8).

Each test is named after what it protects; the checks are on what a player
reads: the words, or the pixels where they must (or must not) be.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from PIL import Image, ImageDraw
from table import Table

from shutbox_hw.game.display import view
from shutbox_hw.game.display.screens import PlayScreen, ScoreboardScreen, ScoreRow, TurnEndScreen
from shutbox_hw.render import render, widgets
from shutbox_hw.render.fonts import role
from shutbox_hw.render.play import DICE_Y

NAMES = ("Anna", "Bob", "Carla", "Dieter", "Eva", "Franz", "Gustav", "Hanna")


# ---------------------------------------------------------------- round notes

def test_two_winners_win_a_round_in_the_plural():
    note = view.round_note(NAMES[:3], (0, 2), 4)
    assert note == "Anna & Carla win round 4"          # not "Anna & Carla wins"


def test_one_winner_wins_a_round():
    assert view.round_note(NAMES[:3], (1,), 2) == "Bob wins round 2"


@pytest.mark.parametrize("n", range(3, 9))
def test_a_tie_of_everyone_says_all_of_them_tie(n):
    assert view.round_note(NAMES[:n], tuple(range(n)), 3) == f"round 3: all {n} tie"


def test_a_tie_of_three_or_more_says_how_many_before_the_names():
    # the names may be shortened on the screen: the size of the tie comes first
    note = view.round_note(NAMES, (0, 3, 5, 7), 6)
    assert note.startswith("4-way tie: ") and note.endswith("Anna, Dieter, Franz, Hanna")


def stuck_turn(t: Table) -> None:
    """Shut 2 with 1+1, then 1+1 again: nothing makes 2 now, the turn ends (score 43)."""
    t.roll(1, 1)
    t.close(2)
    t.roll(1, 1)


def test_a_played_round_tie_shows_the_plural_note_on_the_scoreboard():
    t = Table("klappenspiel", {"match": "single-round"})
    t.start(2)
    stuck_turn(t)
    t.pass_ends()
    t.open(2)
    stuck_turn(t)
    t.pass_ends()
    boards = [s for s in t.shown if isinstance(s, ScoreboardScreen)]
    assert t.names("round_ended")[0]["winners"] == ["P1", "P2"]
    assert boards and boards[-1].note == "P1 & P2 win round 1"


# ---------------------------------------------------------------- turn ends

def test_an_elimination_turn_end_says_the_threshold_was_reached_and_the_player_is_out():
    t = Table("klappenspiel", {"threshold": 10})
    t.start(2)
    stuck_turn(t)
    t.pass_ends()
    ends = [s for s in t.shown if isinstance(s, TurnEndScreen)]
    assert ends and ends[0].score == 43 and ends[0].note == "reached 10: out"
    t.open(2)
    stuck_turn(t)
    t.pass_ends()
    assert t.names("round_ended")[0]["out"] == ["P1", "P2"]   # it was true


def test_an_elimination_turn_end_below_the_threshold_says_nothing_of_going_out():
    t = Table("klappenspiel")          # threshold 45
    t.start(2)
    stuck_turn(t)
    t.pass_ends()
    ends = [s for s in t.shown if isinstance(s, TurnEndScreen)]
    assert ends and ends[0].score == 43 and ends[0].note == ""


# ---------------------------------------------------------------- dice words

def test_manual_dice_prompt_reads_in_the_order_the_player_acts():
    t = Table("klappenspiel", dice="manual")
    t.start(1)
    t.press("roll")                    # the players threw real dice
    prompt = t.screen.prompt
    assert prompt == "shut, then ROLL again. No move? NEXT"
    assert widgets.prompt_lines(prompt, 2) == ["shut, then ROLL again.", "No move? NEXT"]


def test_one_die_where_two_are_wanted_names_the_rule_not_a_count():
    from shutbox_hw.base.events import DiceRolled
    t = Table("klappenspiel")
    t.start(1)
    t.send(DiceRolled((4,), t.step()))   # one die from the module (or a queued face)
    assert t.controller.screen().prompt == "throw 2 dice: 1 die only once 7-9 are shut"
    assert not t.names("rolled")
    t.send(DiceRolled((4, 2), t.step()))
    assert t.names("rolled")[0]["dice"] == [4, 2]


def test_two_dice_where_one_is_wanted_say_to_throw_one():
    from shutbox_hw.base.events import DiceRolled
    t = Table("crafthouse-12", {"match": "single-round"})
    t.start(1)
    for faces, tiles in (((6, 6), (12,)), ((5, 6), (11,)), ((4, 6), (10,)), ((4, 5), (9,)),
                         ((3, 5), (8,)), ((3, 4), (7,)), ((3, 3), (6,)), ((2, 3), (5,)),
                         ((2, 2), (4,)), ((1, 2), (3,))):
        t.roll(*faces)
        t.close(*tiles)
    t.send(DiceRolled((1, 1), t.step()))   # 1 and 2 are open: under 6, one die
    assert t.controller.screen().prompt == "throw 1 die: the open flaps add up under 6"


# ---------------------------------------------------------------- layout

def lit(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    region = image.convert("1").crop(box)
    return sum(1 for p in region.get_flattened_data() if p)


def ink_runs(image: Image.Image, top: int, bottom: int, left: int = 0) -> list[tuple[int, int]]:
    """Runs of columns with ink in rows top..bottom-1, split where 3 or more
    dark columns separate them (a word's letters are 1 column apart)."""
    im = image.convert("1")
    cols = [x for x in range(left, im.width)
            if any(im.getpixel((x, y)) for y in range(top, bottom))]
    runs: list[tuple[int, int]] = []
    for x in cols:
        if runs and x - runs[-1][1] <= 3:
            runs[-1] = (runs[-1][0], x)
        else:
            runs.append((x, x))
    return runs


@pytest.mark.parametrize("rows,heads", [
    ((ScoreRow("P1", 4, 4, 4), ScoreRow("P2", 2, 2, 2)), 2),                        # final total
    ((ScoreRow("P1", 4, 8, 14), ScoreRow("P2", 0, 0, 2, shut=True)), 3),       # raw final total
    ((ScoreRow("P1", 7, 7, 9, balance=-2), ScoreRow("P2", 0, 0, 3, balance=4)), 2),  # balance
    ((ScoreRow("P1", 7, 14, 9, balance=-2), ScoreRow("P2", 0, 0, 3, shut=True, balance=4)), 3),
])
def test_scoreboard_column_heads_never_run_together(rows, heads):
    image = render(ScoreboardScreen(2, rows))
    words = ink_runs(image, 0, 8)[-heads:]   # the heads are the row's last words
    assert len(words) == heads
    gaps = [b[0] - a[1] - 1 for a, b in zip(words, words[1:])]
    assert all(gap >= 5 for gap in gaps), gaps          # "final total", not "finaltotal"


def test_an_eight_player_scoreboard_keeps_each_players_round_score():
    rows = tuple(ScoreRow(n, 5, 5, 40) for n in NAMES)
    base = render(ScoreboardScreen(3, rows))
    for seat in range(8):
        changed = rows[:seat] + (replace(rows[seat], final=17),) + rows[seat + 1:]
        other = render(ScoreboardScreen(3, changed))
        diff = [(x, y) for x in range(128) for y in range(64)
                if base.getpixel((x, y)) != other.getpixel((x, y))]
        assert diff, seat                                   # the score is on the screen
        # ... in that player's row, and left of its total (which did not change)
        column, row = divmod(seat, 4)
        assert all(column * 65 <= x < column * 65 + 56 for x, _ in diff)
        assert all(10 + row * 8 <= y < 10 + (row + 1) * 8 for _, y in diff)


def test_the_marks_are_explained_where_there_is_room():
    rows = (ScoreRow("Anna", 4, 4, 30), ScoreRow("Bob", 0, 0, 12, shut=True))
    with_mark = render(ScoreboardScreen(2, rows, note="Bob wins round 2"))
    plain = render(ScoreboardScreen(2, (rows[0], replace(rows[1], shut=False)),
                                    note="Bob wins round 2"))
    # below the rows and above the note: the legend, only when a mark is shown
    band = (0, 34, 127, 52)
    assert lit(plain, band) < lit(with_mark, band)
    legend_rows = ink_runs(with_mark.crop((0, 0, 128, 52)), 34, 52)
    assert legend_rows     # something drawn there: "[] shut"


def test_the_reject_bar_stays_clear_of_the_dice():
    # a lit die touching the lit bar read as cut short: a 6 looked like a 4
    image = render(PlayScreen("Bernhard", 3, 9, (1, 2, 5, 6, 7, 8, 9), 27, dice=(6, 6),
                              message="8 doesn't fit 3+4")).convert("1")
    die_bottom = max(y for y in range(DICE_Y, 40) if image.getpixel((5, y))
                     and all(image.getpixel((x, y)) for x in range(3, 15)) and y < 30)
    gap = [y for y in range(die_bottom + 1, 40) if not any(image.getpixel((x, y))
                                                           for x in range(0, 40))]
    assert len(gap) >= 2 and gap[0] == die_bottom + 1
    # and the six pips are all there: three dark rows inside the die
    pip_rows = {y for y in range(DICE_Y, die_bottom) if not image.getpixel((4, y))
                and image.getpixel((2, y))}
    assert len([y for y in pip_rows if y - 1 not in pip_rows]) == 3


@pytest.mark.parametrize("pool", [False, True])
def test_a_long_name_is_shortened_before_the_header_words_are(pool):
    fields = dict(pot=12, balance=-14) if pool else {}
    screen = PlayScreen("Maximilian-Alexander", 13, 9, tuple(range(1, 10)), 123, dice=(6, 5),
                        prompt="shut 11", **fields)
    words = "pot 12 bal -14" if pool else "R13 total 123"
    small, _ = role("secondary")
    font, scale = role("player")
    expected = Image.new("1", (128, 64))
    y = (font.height * scale - small.height) // 2
    left = widgets.right_text(ImageDraw.Draw(expected), 127, y, words, small)
    got = render(screen).convert("1").crop((left, 0, 128, 10))
    want = expected.crop((left, 0, 128, 10))
    assert list(got.get_flattened_data()) == list(want.get_flattened_data())


@pytest.mark.parametrize("players", [3, 4, 6, 8])
def test_one_kind_of_mark_is_explained_however_full_the_scoreboard(players, monkeypatch):
    from shutbox_hw.render import scoreboard
    drawn = []
    real = scoreboard._legend

    def spy(canvas, rows, x, y):
        drawn.append((x, y))
        real(canvas, rows, x, y)
    monkeypatch.setattr(scoreboard, "_legend", spy)
    rows = tuple(ScoreRow(n, 5, 5, 40) for n in NAMES[:players])
    note = "Anna & Bob win round 12"          # a long note: no room beside it
    marked = ScoreboardScreen(12, (replace(rows[0], shut=True),) + rows[1:], note=note)
    image = render(marked).convert("1")
    assert len(drawn) == 1, drawn
    x, y = drawn[0]
    # the legend's own square is there, and it does not cover the note or the rows' marks
    assert all(image.getpixel((x + i, y + 2)) for i in range(5))
    assert y < 10 or 10 + ((players + 1) // 2 if players > 4 else players) * 8 <= y


def test_both_marks_are_explained_on_a_full_eight_player_scoreboard(monkeypatch):
    from shutbox_hw.render import scoreboard
    explained: list[str] = []
    real = scoreboard._legend

    def spy(canvas, rows, x, y):
        explained.extend(i.name for i in scoreboard._legend_items(rows))
        real(canvas, rows, x, y)
    monkeypatch.setattr(scoreboard, "_legend", spy)
    rows = tuple(ScoreRow(n, 5, 5, 40, shut=n == "Bob", out=n == "Eva") for n in NAMES)
    render(ScoreboardScreen(5, rows, note="Hanna wins round 5"))
    assert sorted(explained) == ["out", "shut"]      # each mark once, wherever it fits
