"""The join code: the referee takes a phone's claim only with the current, unexpired
code, while the game is set up, and not too many at once (game/model/join.py)."""

from __future__ import annotations

from shutbox_hw.base.events import ButtonPressed, JoinCode, SeatClaim, ServiceRequested, Tick
from shutbox_hw.game.display.screens import AttractScreen, ConfirmScreen
from shutbox_hw.game.display.shown import shown
from shutbox_hw.game.machine.controller import Controller
from shutbox_hw.game.model import join
from shutbox_hw.game.model.events import SeatClaimed
from shutbox_hw.rules import DEFAULT_PRESET, build_rules

URL = "http://192.168.1.20:8080/join/K7M2QD"


def box(code: str = "K7M2QD", until: int = 300_000) -> Controller:
    c = Controller(build_rules(DEFAULT_PRESET))
    c.start(0, 0)
    c.handle(JoinCode(code, until, 0, URL))
    return c


def phone(c: Controller, name: str, code: str | None, at: int) -> list[object]:
    effects = c.handle(SeatClaim(name, "phone", at, code))
    return [e.event for e in effects if hasattr(e, "event")]


def test_the_current_code_claims_the_next_free_seat():
    c = box()
    events = phone(c, "Anna", "K7M2QD", 1000)
    assert events == [SeatClaimed(seat=0, player="Anna", source="phone", players=("Anna", "P2"))]
    assert c.last_claim == events[0]
    assert c.screen().players == ("Anna", "P2")   # the box shows the name at once
    assert phone(c, "Bob", "k7m2qd", 2000)[0].seat == 1   # typed in lower case: the same code


def test_a_wrong_code_a_stale_one_and_an_expired_one_are_refused_in_words():
    c = box()
    assert phone(c, "Anna", "AAAAAA", 1000) == [] and c.last_claim == join.WRONG
    assert phone(c, "Anna", None, 1000) == [] and c.last_claim == join.WRONG
    c.handle(JoinCode("ZZZ999", 600_000, 2000, URL))   # a new code: the old one is stale
    assert phone(c, "Anna", "K7M2QD", 3000) == [] and c.last_claim == join.EXPIRED
    assert c.last_claim == "this code has expired: scan the box again"
    assert phone(c, "Anna", "ZZZ999", 600_000) == [] and c.last_claim == join.EXPIRED
    assert c.screen().players == ("P1", "P2")
    assert c.shown.flash == ""     # a phone's wrong code is the phone's business, not the box's


def test_no_claim_reaches_a_game_under_way_nor_with_the_code_of_its_setup():
    c = box()
    phone(c, "Anna", "K7M2QD", 1000)
    c.handle(ButtonPressed("roll", False, 2000))      # the game starts
    assert c.phase == "play"
    assert phone(c, "Bob", "K7M2QD", 3000) == []
    assert c.last_claim == "a game is under way: join the next one"
    assert c.state.join.code is None                   # spent: the next setup gets its own


def test_the_names_rule_still_holds_for_a_phone():
    c = box()
    phone(c, "Anna", "K7M2QD", 1000)
    assert phone(c, "ANNA", "K7M2QD", 1100) == [] and "already at the table" in c.last_claim
    assert phone(c, "x" * 500, "K7M2QD", 1200) == [] and "at most 16" in c.last_claim
    assert phone(c, "An\x07na", "K7M2QD", 1300) == [] and "control" in c.last_claim


def test_more_than_the_limit_within_the_window_wait_a_moment():
    c = box()
    answers = []
    for i in range(join.CLAIMS_PER_WINDOW + 3):
        phone(c, f"Name{i}", "K7M2QD", 1000 + i)
        answers.append(c.last_claim)
    assert all(isinstance(a, SeatClaimed) for a in answers[:join.CLAIMS_PER_WINDOW])
    assert answers[join.CLAIMS_PER_WINDOW:] == [join.BUSY] * 3
    # once the window has passed since the first of them, a claim is looked at again
    assert phone(c, "Late", "K7M2QD", 1000 + join.CLAIM_WINDOW_MS) == []
    assert "every seat is taken" in c.last_claim


def test_wrong_codes_count_towards_nothing_and_never_keep_the_right_one_out():
    c = box()
    for i in range(10 * join.CLAIMS_PER_WINDOW):       # a guest guessing, as fast as it can
        assert phone(c, f"G{i}", "WRONG1", 1000 + i) == [] and c.last_claim == join.WRONG
    assert phone(c, "Anna", "K7M2QD", 1100)[0].player == "Anna"
    assert c.state.join.recent == type(c.state.join.recent)([1100])


def from_(c: Controller, address: str, name: str, at: int, code: str = "K7M2QD") -> list:
    effects = c.handle(SeatClaim(name, "phone", at, code, address))
    return [e.event for e in effects if hasattr(e, "event")]


def test_a_phone_s_second_claim_is_put_to_the_box_and_roll_seats_it():
    c = box()
    assert from_(c, "192.168.1.31", "Anna", 1000)[0].seat == 0
    assert from_(c, "192.168.1.31", "Bob", 1100) == []          # not seated on its own say
    assert isinstance(c.last_claim, join.Asking) and "seat Bob too" in c.last_claim
    screen = c.screen()                                          # the OLED asks, as "New game?"
    assert isinstance(screen, ConfirmScreen) and screen.question == "Same phone: seat Bob?"
    assert screen.prompt == "ROLL: yes  NEXT: no"
    assert c.state.players == () and c.state.names(2) == ("Anna", "P2")
    assert c.next_deadline_ms() == 1100 + 8000                   # it lapses on its own
    # one question at a time: the same phone again waits; another phone is seated
    assert from_(c, "192.168.1.31", "Cleo", 1200) == [] and c.last_claim == join.ASKING_OTHER
    assert from_(c, "192.168.1.32", "Dan", 1300)[0].seat == 1
    assert c.shown.flash == ""                                   # nothing flashed for a phone
    [seated] = [e.event for e in c.handle(ButtonPressed("roll", False, 2000))
                if hasattr(e, "event")]
    assert seated == SeatClaimed(seat=2, player="Bob", source="phone",
                                 players=("Anna", "Dan", "Bob"))
    assert c.state.join.take_settled() == seated and c.state.join.take_settled() is None
    assert isinstance(c.screen(), AttractScreen) and c.screen().players == ("Anna", "Dan", "Bob")
    assert c.phase == "idle"                                     # the press started no game
    # the phone still holds Anna's seat: a third claim is asked again
    assert from_(c, "192.168.1.31", "Eve", 2100) == [] and isinstance(c.last_claim, join.Asking)


def test_next_refuses_the_second_seat_and_a_long_press_answers_nothing():
    c = box()
    from_(c, "192.168.1.31", "Anna", 1000)
    from_(c, "192.168.1.31", "Bob", 1100)
    c.handle(ButtonPressed("next", True, 1200))
    c.handle(ButtonPressed("roll", True, 1300))
    assert c.state.join.question is not None and c.state.picking is None
    assert [e for e in c.handle(ButtonPressed("next", False, 1400)) if hasattr(e, "event")] == []
    assert c.state.join.take_settled() == join.DECLINED
    assert c.screen().players == ("Anna", "P2") and c.player_count == 2   # NEXT: no seat,
    assert c.state.picking is None                                        # nothing else
    # that phone is not asked about again this setup: a guest cannot keep the box asking
    assert from_(c, "192.168.1.31", "Cleo", 1500) == [] and c.last_claim == join.DECLINED
    assert c.state.join.question is None and isinstance(c.screen(), AttractScreen)
    assert from_(c, "192.168.1.32", "Dan", 1600)[0].seat == 1      # other phones as ever
    c.handle(ButtonPressed("roll", False, 2000))                   # the next game: anew
    assert c.state.join.declined == set()


def test_a_question_nobody_answers_lapses_refused_and_the_bar_says_so():
    c = box()
    from_(c, "192.168.1.31", "Anna", 1000)
    from_(c, "192.168.1.31", "Bob", 1100)
    c.handle(Tick(1100 + 7999))
    assert c.state.join.question is not None and c.state.join.take_settled() is None
    c.handle(Tick(1100 + 8000))
    assert c.state.join.question is None and c.state.join.take_settled() == join.LAPSED
    assert c.shown.flash == "no answer: no seat"
    assert isinstance(c.screen(), AttractScreen) and c.screen().players == ("Anna", "P2")
    # a ROLL after it lapsed is a ROLL again: the game starts, Bob is not in it
    c.handle(ButtonPressed("roll", False, 20_000))
    assert c.phase == "play" and c.state.players == ("Anna", "P2")


def test_the_box_asks_in_its_own_language():
    from shutbox_hw.base.i18n import speaking
    c = box()
    from_(c, "192.168.1.31", "Anna", 1000)
    from_(c, "192.168.1.31", "Bob", 1100)
    with speaking("de"):
        assert c.screen() == ConfirmScreen("Gleiches Handy: Bob dazu?", "ROLL: ja  NEXT: nein")
        c.handle(Tick(1100 + 8000))
        assert c.shown.flash == "keine Antwort: kein Platz"
    from_(c, "192.168.1.31", "Cleo", 20_000)
    with speaking("it"):
        assert c.screen().question == "Stesso telefono: Cleo gioca?"
        c.handle(Tick(20_000 + 8000))
        assert c.screen().message == "nessuna risposta: niente posto"


def test_a_name_that_could_not_be_seated_is_refused_at_once_not_asked():
    c = box()
    from_(c, "192.168.1.31", "Anna", 1000)
    assert from_(c, "192.168.1.31", "ANNA", 1100) == []
    assert c.last_claim == "ANNA is already at the table" and c.state.join.question is None
    assert from_(c, "192.168.1.31", "P3", 1200) == [] and "seat's label" in c.last_claim


def test_the_table_changed_while_it_asked_roll_says_why_on_the_box():
    c = box()
    from_(c, "192.168.1.31", "Anna", 1000)
    from_(c, "192.168.1.31", "Bob", 1100)
    c.handle(SeatClaim("bob", "box", 1200))           # Bob seated on the box meanwhile
    assert c.handle(ButtonPressed("roll", False, 1300))
    assert c.state.join.take_settled() == "Bob is already at the table"
    assert c.shown.flash == "already at the table" and c.screen().players == ("Anna", "bob")


def test_one_seat_a_phone_holds_for_the_whole_setup_whatever_its_codes():
    """A setup outlasting its code (5 minutes) gets a new one: the phones' seats
    still count (before, the new code forgot them and a phone took a second seat)."""
    c = box()
    from_(c, "192.168.1.31", "Anna", 1000)
    c.handle(JoinCode("NEW234", 600_000, 300_000, URL))
    assert from_(c, "192.168.1.31", "Bob", 300_100, code="NEW234") == []
    assert isinstance(c.last_claim, join.Asking) and c.screen().question.endswith("Bob?")
    c.handle(Tick(300_100 + join.QUESTION_MS))          # it lapses (may be asked again)
    # the web going or coming hands in the same code again: nothing is forgotten either
    c.handle(JoinCode("NEW234", 600_000, 310_000, None))
    assert from_(c, "192.168.1.31", "Cleo", 310_100, code="NEW234") == []
    assert isinstance(c.last_claim, join.Asking)


def test_the_seated_player_gets_up_and_their_phone_may_claim_again():
    c = box()
    assert from_(c, "192.168.1.31", "Anna", 1000)[0].seat == 0
    assert c.handle(SeatClaim("Cleo", "box", 1300))             # the box seats anyone
    from shutbox_hw.game.referee import setup
    setup.leave_seat(c.state, "Anna", "box")
    assert from_(c, "192.168.1.31", "Ann", 1400)[0].player == "Ann"


def test_a_new_game_gives_every_phone_a_seat_again():
    c = box()
    from_(c, "192.168.1.31", "Anna", 1000)
    c.handle(ButtonPressed("roll", False, 2000))                 # the game starts
    assert c.state.join.phones == {} and c.state.join.question is None


def test_a_phone_s_claim_during_a_game_is_refused_without_a_flash_whatever_its_code():
    c = box()
    phone(c, "Anna", "K7M2QD", 1000)
    c.handle(ButtonPressed("roll", False, 2000))      # the game starts
    for code in ("K7M2QD", "WRONG1", None):
        c.shown.flash = ""
        assert phone(c, "Bob", code, 3000) == []
        assert c.last_claim == (join.UNDER_WAY if code == "K7M2QD" else join.WRONG)
        assert c.shown.flash == ""
    c2 = box()
    c2.handle(ServiceRequested(500))                   # the operator's menu: not set up
    assert c2.phase == "service"
    assert phone(c2, "Bob", "K7M2QD", 600) == [] and c2.last_claim == join.UNDER_WAY
    assert c2.shown.flash == ""


def test_the_setup_screen_and_the_tv_carry_the_join_page_until_the_code_expires():
    c = box(until=50_000)
    screen = c.screen()
    assert isinstance(screen, AttractScreen) and screen.join == URL
    assert shown(c.state, c.shown)["join"] == {"url": URL, "code": "K7M2QD"}
    assert c.next_deadline_ms() is not None and c.next_deadline_ms() <= 50_000
    c.handle(Tick(50_000))
    assert c.screen().join is None and "join" not in shown(c.state, c.shown)
    c.handle(JoinCode("NEW234", 99_000, 50_001, None))   # the web pages are not running
    assert c.screen().join is None


def test_a_claim_from_the_box_needs_no_code():
    c = box()
    assert c.handle(SeatClaim("Anna", "box", 1000)) and c.screen().players[0] == "Anna"


class QuietSocket:
    """The desk's view of the claims socket: a web that said where it runs, no claims."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.codes: list[str | None] = []     # what the desk told the socket a claim must bear

    def web_url(self, now_ms: int, fresh_ms: int) -> str | None:
        return self.url

    def take(self) -> list:
        return []

    def say_code(self, code: str | None) -> None:
        self.codes.append(code)


def test_the_daemon_s_desk_makes_a_new_code_for_every_setup_and_when_one_expires():
    from shutbox_hw.base.scheduler import Scheduler
    from shutbox_hw.claims.desk import CODE_TTL_MS, Desk
    codes = iter(f"CODE{i:02d}" for i in range(10))
    socket = QuietSocket(None)
    desk = Desk(socket, Scheduler().timer("join code"), make_code=lambda: next(codes))
    c = Controller(build_rules(DEFAULT_PRESET))
    c.start(0, 0)

    def step(now: int) -> list:
        events, _ = desk.due(now, c)
        for event in events:
            c.handle(event)
        desk.schedule(c)
        return events

    [first] = step(0)                                  # at start: no web yet, no QR
    assert (first.code, first.url) == ("CODE00", None) and c.screen().join is None
    assert socket.codes[-1] == "CODE00"                # the code a league claim must bear
    assert desk.timer.when == CODE_TTL_MS
    socket.url = "http://10.0.0.5:8080/"                # the web says where it runs
    [again] = step(1000)
    assert again.code == "CODE00" and c.screen().join == "http://10.0.0.5:8080/join/CODE00"
    assert step(2000) == []
    [expired] = step(CODE_TTL_MS)                      # the last one expired: a new one
    assert expired.code == "CODE01" and expired.until_ms == 2 * CODE_TTL_MS
    c.handle(ButtonPressed("roll", False, CODE_TTL_MS + 1))   # a game starts
    assert step(CODE_TTL_MS + 2) == [] and desk.timer.when is None
    assert socket.codes[-1] is None                    # no code while a game is played
    c.handle(ButtonPressed("next", True, CODE_TTL_MS + 3))    # "New game?" ... yes
    c.handle(ButtonPressed("roll", False, CODE_TTL_MS + 4))
    assert step(CODE_TTL_MS + 5) == []                 # the result is shown: not set up yet
    c.handle(ButtonPressed("roll", False, CODE_TTL_MS + 6))   # back to setting up
    [fresh] = step(CODE_TTL_MS + 7)
    assert fresh.code == "CODE02" and c.phase == "idle" and socket.codes[-1] == "CODE02"
    assert phone(c, "Anna", "CODE01", CODE_TTL_MS + 8) == [] and c.last_claim == join.EXPIRED
    assert phone(c, "Anna", "CODE02", CODE_TTL_MS + 9)[0].player == "Anna"
