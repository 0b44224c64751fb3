"""A player's name: one rule for the config file, the box's roster and a phone."""

from __future__ import annotations

import pytest

from shutbox_hw.game.model.config import GameConfig, seat_names
from shutbox_hw.game.model.state import GameState
from shutbox_hw.game.referee.setup import claim_seat
from shutbox_hw.players.names import MAX_NAME_CHARS, is_seat_label, name_key, name_problem, tidy
from shutbox_hw.rules import DEFAULT_PRESET, build_rules


@pytest.mark.parametrize("a, b", [("Zoë Ødegård", "zoe odegard"), ("ANNA", "anna"),
                                  ("  Anna   Lena ", "anna lena"), ("Straße", "STRASSE"),
                                  ("🍺 Bob", "bob"), ("Łukasz", "lukasz")])
def test_names_are_the_same_player_whatever_their_case_and_accents(a, b):
    assert name_key(a) == name_key(b)


def test_compatibility_forms_fold_before_case_as_unicode_says():
    # independent: the key of the plain spelling, typed by hand
    assert name_key("\U0001d400nna") == name_key("Anna") == "anna"     # a bold mathematical A
    assert name_key("\uff21\uff4e\uff4e\uff41") == "anna"              # full-width letters
    assert name_key("\u2160") == name_key("I")                          # Roman numeral one
    assert tidy("\U0001d400nna") == "Anna"                              # shown as it is read


@pytest.mark.parametrize("name, words", [
    ("\u0410nna", "one alphabet"),         # a Cyrillic A, then Latin: looks like Anna
    ("Ann\u03b1", "one alphabet"),         # a Greek alpha at the end
    ("\u3164", "invisible"), ("Anna\u3164", "invisible"), ("\u115fBob", "invisible"),
    ("Bo\u2800b", "invisible"), ("Bob\ufe0f", "invisible"), ("\ue000Bob", "invisible"),
    ("An\u200bna", "control"), ("An\u2060na", "control"),
    ("Ze" + "\u0301" * 15, "at most 2 accents"), ("Zo\u0308\u0301\u0300e", "at most 2"),
    # marks of combining class 0 stack too: enclosing circles, a spacing sign
    ("Bob" + "\u20dd" * 3, "at most 2"), ("A" + "\u0903" * 5, "at most 2")])
def test_look_alike_and_invisible_names_are_refused(name, words):
    assert words in (name_problem(name) or "")


@pytest.mark.parametrize("name", ["Борис", "Ελένη", "山田太郎", "Ken太郎", "김민준", "Nguyễn",
                                  "श्रीनिवास", "สมศักดิ์",     # a sign or two on a letter
                                  "Zoë Ødegård", "O'Brien", "Anna-Lena", "🍺 Bob", "Łukasz"])
def test_names_of_one_script_or_a_language_s_mix_are_taken(name):
    assert name_problem(name) is None


def test_different_names_stay_different():
    assert len({name_key(n) for n in ["Anna", "Anne", "Ann", "Zoe", "Zoë O", "Bob"]}) == 6


@pytest.mark.parametrize("name, words", [
    ("", "blank"), ("   ", "blank"), ("x" * (MAX_NAME_CHARS + 1), f"at most {MAX_NAME_CHARS}"),
    ("a" * 500, f"at most {MAX_NAME_CHARS}"), ("An\x00na", "control"), ("An\nna", "control"),
    ("An\u202ena", "control"), ("🍺🍺", "a letter or a digit"), (42, "text")])
def test_a_name_that_cannot_be_a_player_s_says_why(name, words):
    assert words in (name_problem(name) or "")


def test_a_name_at_the_limit_is_taken_tidied():
    assert name_problem("x" * MAX_NAME_CHARS) is None
    assert name_problem("  Zoë   Ødegård ") is None
    assert tidy("  Zoe\u0308   Ødegård ") == "Zoë Ødegård"


def test_seat_labels_are_nobody():
    assert [is_seat_label(n) for n in ["P1", "P8", "P12", "P0", "p1", "Pia", "P"]] == [
        True, True, True, False, False, False, False]


def test_seat_names_put_claims_first_and_never_repeat_a_name():
    assert seat_names((), 3) == ("P1", "P2", "P3")
    assert seat_names(("Anna", "Ben"), 3) == ("Anna", "Ben", "P3")
    assert seat_names(("Anna", "Ben"), 3, {2: "Cleo"}) == ("Anna", "Ben", "Cleo")
    # Ben claimed the first seat: his configured seat falls back to a label
    assert seat_names(("Anna", "Ben"), 2, {0: "Ben"}) == ("Ben", "P2")


def _state(names=(), count=2):
    return GameState(rules=build_rules(DEFAULT_PRESET), game=GameConfig(player_names=tuple(names)),
                     player_count=count)


def test_claims_fill_the_free_seats_then_add_seats_up_to_eight():
    state = _state()
    got = [claim_seat(state, n, "phone") for n in ["Anna", "Ben", "Cleo"]]
    assert [e.seat for e in got] == [0, 1, 2]
    assert got[-1].players == ("Anna", "Ben", "Cleo") and state.player_count == 3
    for n in ["D", "E", "F", "G", "H"]:
        assert not isinstance(claim_seat(state, n, "box"), str)
    assert "every seat is taken" in claim_seat(state, "Ida", "phone")
    assert state.names(state.player_count) == ("Anna", "Ben", "Cleo", "D", "E", "F", "G", "H")


def test_a_claim_keeps_the_configured_names_and_refuses_who_is_seated():
    state = _state(["Anna"], 2)
    claimed = claim_seat(state, "Zoë", "phone")
    assert (claimed.seat, claimed.players) == (1, ("Anna", "Zoë"))
    assert "already at the table" in claim_seat(state, "ZOE", "box")
    assert "already at the table" in claim_seat(state, "anna", "phone")
    assert "seat's label" in claim_seat(state, "P3", "phone")
    assert "control" in claim_seat(state, "Bo\x1bb", "phone")


def test_no_claim_reaches_a_game_under_way():
    state = _state()
    state.phase = "play"
    assert "under way" in claim_seat(state, "Anna", "phone")
    assert state.claimed == {}
