"""Issue 42, item 3 on the join page: a phone's refusal in the page's language.

Every sentence a refusal can be made of, produced here by its own source (the
join desk's codes, the rule for a seat, a name's problems, the claims socket,
the web's checks), is said translated on a German and an Italian page, its
values kept (the web/join/words.py table must follow the sources: a sentence
changed there and not here fails), and as it came on an English one. End to
end with a real box and web process: tests/test_join_web.py."""

from __future__ import annotations

import pytest

from shutbox_hw.base.i18n import speaking
from shutbox_hw.claims import league, server
from shutbox_hw.claims.desk import Desk
from shutbox_hw.game.model import join
from shutbox_hw.game.model.config import GameConfig
from shutbox_hw.game.model.state import GameState
from shutbox_hw.game.referee import setup
from shutbox_hw.players.names import MAX_NAME_CHARS, name_problem
from shutbox_hw.rules import build_rules
from shutbox_hw.web.join import routes
from shutbox_hw.web.join.page import refusal_page
from shutbox_hw.web.join.words import said


def _table(names: tuple[str, ...] = (), phase: str = "idle") -> GameState:
    state = GameState(rules=build_rules("klappenspiel"), game=GameConfig(), phase=phase)
    for name in names:
        assert not isinstance(setup.claim_seat(state, name, "phone"), setup.Refusal)
    return state


class _Pending:
    def reply(self, answer):
        self.answer = answer


def _undecided() -> str:
    pending = _Pending()
    Desk(None, None).answer(pending, None)  # type: ignore[arg-type]
    return pending.answer["reason"]


# each refusal as its source makes it, with the values it must keep
REFUSALS = {
    "expired": (join.EXPIRED, ()),
    "wrong code": (join.WRONG, ()),
    "busy desk": (join.BUSY, ()),
    "under way": (join.UNDER_WAY, ()),
    "one seat": (join.ONE_SEAT, ()),
    "game on": (setup.claim_seat(_table(phase="play"), "Anna", "phone"), ()),
    "label": (setup.claim_seat(_table(), "P3", "phone"), ("P3",)),
    "at the table": (setup.claim_seat(_table(("Anna",)), "ANNA", "phone"), ("ANNA",)),
    "full": (setup.claim_seat(_table(tuple(f"N{i}" for i in range(8))), "Zoe", "phone"),
             ("8",)),
    "socket busy": (server.BUSY, ()),
    "not answering": (server.NOT_ANSWERING, ()),
    "web not answering": (routes.NOT_ANSWERING, ()),
    "undecided": (_undecided(), ()),
    "cross site": (routes.CROSS_SITE, ()),
    "too many": (routes.TOO_MANY, ()),
    "not text": (name_problem(17), ()),
    "control": (name_problem("Bo\x1bb"), ()),
    "invisible": (name_problem("Bo\u200bb"), ()),
    "accents": (name_problem("A\u0301\u0301\u0301"), ("2",)),
    "alphabets": (name_problem("Aлиса"), ()),
    "blank": (name_problem("   "), ()),
    "too long": (name_problem("x" * 30), (str(MAX_NAME_CHARS), "30")),
    "no letter": (name_problem("!!!"), ()),
    "league name": (league.NEEDS_SECRET.format(name="Anna"), ("Anna",)),
    "wrong secret": (league.WRONG_SECRET.format(name="Anna"), ("Anna",)),
    "wrong secrets": (league.TOO_MANY.format(name="Anna"), ("Anna",)),
    "not in league": (league.NOT_IN_LEAGUE.format(name="Zoe"), ("Zoe",)),
    "roster unread": (league.UNREADABLE, ()),
}


def test_every_refusal_is_made_by_its_source():
    for what, (english, values) in REFUSALS.items():
        assert isinstance(english, str) and english, what
        assert all(v in english for v in values), (what, english)


@pytest.mark.parametrize("lang", ["de", "it"])
@pytest.mark.parametrize("what", sorted(REFUSALS))
def test_a_refusal_is_said_in_the_page_s_language(what, lang):
    english, values = REFUSALS[what]
    with speaking(lang):
        words = said(str(english))
        page = refusal_page("K7M2QD", str(english))
    assert words != english and "{" not in words, (what, words)
    assert all(v in words for v in values), (what, words)
    # the English sentence's own words are gone (the values may stay)
    rest = english
    for value in values:
        rest = rest.replace(value, "")
    assert rest.strip(" ,.()") not in page
    assert words[:1].upper() + words[1:] in page.replace("&#x27;", "'")


def test_on_an_english_page_a_refusal_is_as_it_came():
    for what, (english, _values) in REFUSALS.items():
        with speaking("en"):
            assert said(str(english)) == english, what


def test_a_sentence_nobody_translated_is_kept_not_dropped():
    with speaking("de"):
        assert said("a reason from a newer box") == "a reason from a newer box"
        assert "A reason from a newer box." in refusal_page("K7M2QD", "a reason from a newer box")
