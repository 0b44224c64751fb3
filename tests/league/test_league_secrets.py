"""Issue 41, item 1 without the league's servers: a league player's secret and the
roster entry that verifies it, the box keeping the roster in its record and
verifying a claim against it on the claims socket, and the ingest's rule for a
seat the box did not verify. The whole way through the real parts (PostgreSQL,
bridged brokers, the ingests): test_league_players.py."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from claims_box import claim_on_socket, short_folder

from shutbox_hw.claims.league import (
    NEEDS_SECRET,
    NOT_IN_LEAGUE,
    TOO_MANY,
    WRONG_CODE,
    WRONG_MAX,
    WRONG_SECRET,
    WRONG_WINDOW_S,
    Vetting,
)
from shutbox_hw.config.config_file import load_config
from shutbox_hw.league.players import unverified_seats
from shutbox_hw.network.league_roster import ROSTER_FILTER, roster_player, take
from shutbox_hw.network.session import MAX_INCOMING
from shutbox_hw.players.league_secret import (
    CODE_LENGTH,
    CODE_LETTERS,
    EntryError,
    make_entry,
    new_code,
    parse_entry,
    shown,
    verify,
)
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script
from shutbox_hw.store import Store
from shutbox_hw.store.tables.game_record import game_record

CHECKOUT = Path(__file__).resolve().parents[2]
PRACTICE = CHECKOUT / "tests" / "scripts" / "practice-001.txt"
ANNA_CODE = "K7M2QDX4PA"


def entry_message(player: int, name: str, code: str) -> bytes:
    return json.dumps(make_entry(player, name, code).as_json()).encode()


# ---------------------------------------------------------------- the secret


def test_a_code_is_ten_letters_of_the_join_alphabet_and_each_is_new():
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_LETTERS) for c in codes)
    assert shown("K7M2QDX4PA") == "K7M2Q-DX4PA"


def test_the_entry_holds_a_salted_scrypt_hash_never_the_code():
    entry = make_entry(7, "Anna", ANNA_CODE)
    text = json.dumps(entry.as_json())
    assert ANNA_CODE not in text and ANNA_CODE.lower() not in text
    # the hash computed here, independently, from what the entry says
    data = json.loads(text)
    expected = hashlib.scrypt(ANNA_CODE.encode(), salt=bytes.fromhex(data["salt"]),
                              n=data["n"], r=data["r"], p=data["p"], dklen=32)
    assert data["hash"] == expected.hex()
    assert data["kdf"] == "scrypt" and len(bytes.fromhex(data["salt"])) == 16
    other = make_entry(8, "Bob", ANNA_CODE)
    assert other.salt != entry.salt and other.hash != entry.hash   # salted: one code, two hashes


def test_the_code_verifies_as_typed_on_a_phone_and_nothing_else_does():
    entry = parse_entry(entry_message(7, "Anna", ANNA_CODE), 7)
    for typed in (ANNA_CODE, "k7m2q-dx4pa", " K7M2Q DX4PA "):
        assert verify(entry, typed), typed
    for wrong in ("K7M2QDX4PB", "K7M2QDX4P", "", "x" * 65, ANNA_CODE + "A"):
        assert not verify(entry, wrong), wrong


@pytest.mark.parametrize("change, words", [
    ({"n": 2 ** 20}, "more than a box computes"),
    ({"n": 3000}, "more than a box computes"),
    ({"r": 64}, "more than a box computes"),
    ({"p": True}, "not whole numbers"),
    ({"player": 8}, "its player id is not its topic's"),
    ({"name": "A" * 17}, "at most 16 characters"),
    ({"name": "Bo\x1bb"}, "control characters"),
    ({"salt": "zz"}, "not hexadecimal"),
    ({"hash": "00"}, "the wrong size"),
    ({"kdf": "md5"}, "with scrypt"),
    ({"v": 2}, "format 1"),
])
def test_an_entry_a_box_must_not_take_is_refused_in_words(change, words):
    data = {**json.loads(entry_message(7, "Anna", ANNA_CODE)), **change}
    with pytest.raises(EntryError, match=words):
        parse_entry(json.dumps(data), 7)
    for junk in (b"not json", b"[1]", b"{}"):
        with pytest.raises(EntryError):
            parse_entry(junk, 7)


def test_one_player_s_message_fits_far_inside_what_the_box_takes_in_a_packet():
    longest = "Ệ" * 16          # 16 characters of three bytes, the longest name there is
    message = entry_message(2 ** 31 - 1, longest, ANNA_CODE)
    topic = f"shutbox/league/roster/{2 ** 31 - 1}"
    assert len(message) + len(topic) + 16 < MAX_INCOMING / 8


def test_only_a_roster_topic_names_a_player():
    assert ROSTER_FILTER == "shutbox/league/roster/+"
    assert roster_player("shutbox/league/roster/7") == 7
    for topic in ("shutbox/league/roster/07", "shutbox/league/roster/", "shutbox/a1/resend",
                  "shutbox/league/roster/7/x", "shutbox/league/roster/-1",
                  "shutbox/league/roster/1234567890"):
        assert roster_player(topic) is None, topic


def test_no_box_may_take_the_league_s_own_topics(tmp_path):
    from shutbox_hw.config.config_file import ConfigError
    path = tmp_path / "box.toml"
    path.write_text('[network]\nmqtt = "mqtt://127.0.0.1"\nbox = "league"\n')
    with pytest.raises(ConfigError, match="'league' is the league's own topic"):
        load_config(path)
    path.write_text('[network]\nmqtt = "mqtt://127.0.0.1"\nbox = "leagues"\n')
    assert load_config(path).network.box_id == "leagues"


# ---------------------------------------------------------------- the box's roster


@pytest.fixture
def record(tmp_path: Path):
    Store(tmp_path / "box.db").close()       # a record of the current schema
    db = sqlite3.connect(tmp_path / "box.db", isolation_level=None)
    try:
        yield tmp_path / "box.db", db
    finally:
        db.close()


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_league_name_needs_its_secret_and_a_guest_plays_as_before(record):
    path, db = record
    assert take(db, "shutbox/league/roster/7", entry_message(7, "Anna", ANNA_CODE), 1.0) is None
    vet = Vetting(path)
    assert vet("anna", "k7m2q-dx4pa") == (None, "Anna")     # seated as the league spells it
    assert vet("Anna", "") == (NEEDS_SECRET.format(name="Anna"), "Anna")
    assert vet("ANNA", "K7M2QDX4PB") == (WRONG_SECRET.format(name="Anna"), "ANNA")
    assert vet("Bob", "") == (None, "Bob")                   # a guest, as today
    assert vet("Bob", "K7M2QDX4PA") == (NOT_IN_LEAGUE.format(name="Bob"), "Bob")
    # the verified claim is noted for the game being set up (the next id: 1)
    assert db.execute("SELECT game, key, player FROM league_claims").fetchall() == [
        (1, "anna", 7)]


def test_five_wrong_secrets_close_the_name_for_a_minute(record):
    path, db = record
    take(db, "shutbox/league/roster/7", entry_message(7, "Anna", ANNA_CODE), 1.0)
    clock = Clock()
    vet = Vetting(path, clock)
    for _ in range(WRONG_MAX):
        assert vet("Anna", "AAAAAAAAAA")[0] == WRONG_SECRET.format(name="Anna")
        clock.now += 1
    assert vet("Anna", ANNA_CODE)[0] == TOO_MANY.format(name="Anna")   # even the right one
    assert vet("Bob", "")[0] is None                                     # others play on
    clock.now += WRONG_WINDOW_S
    assert vet("Anna", ANNA_CODE) == (None, "Anna")


def test_without_the_box_s_join_code_no_secret_is_looked_at(record):
    path, db = record
    take(db, "shutbox/league/roster/7", entry_message(7, "Anna", ANNA_CODE), 1.0)
    vet = Vetting(path, Clock())
    for _ in range(3 * WRONG_MAX):     # a stranger without the code: the name stays open
        assert vet("Anna", "AAAAAAAAAA", False) == (WRONG_CODE, "Anna")
    assert vet("Anna", ANNA_CODE, False) == (WRONG_CODE, "Anna")   # not even the right one
    assert vet("Bob", "", False) == (None, "Bob")      # the referee refuses the code itself
    assert vet("Bob", "XYZ", False) == (None, "Bob")
    assert vet("Anna", ANNA_CODE, True) == (None, "Anna")
    assert db.execute("SELECT count(*) FROM league_claims").fetchone() == (1,)


def test_the_roster_is_replaced_per_player_removed_by_an_empty_message_and_kept_on_disk(record):
    path, db = record
    take(db, "shutbox/league/roster/7", entry_message(7, "Anna", ANNA_CODE), 1.0)
    take(db, "shutbox/league/roster/9", entry_message(9, "Zoë", "ZZZZZ22222"), 1.0)
    take(db, "shutbox/league/roster/7", entry_message(7, "Anna", "NEWCODE234"), 2.0)  # a new card
    # a hostile entry is refused and changes nothing
    hostile = json.loads(entry_message(9, "Zoë", "ZZZZZ22222"))
    hostile["n"] = 2 ** 24
    assert "more than a box computes" in take(db, "shutbox/league/roster/9",
                                              json.dumps(hostile).encode(), 3.0)
    db.close()
    vet = Vetting(path)                      # a box restarted: what the record holds
    assert vet("Anna", ANNA_CODE)[0] == WRONG_SECRET.format(name="Anna")
    assert vet("Anna", "NEWCODE234") == (None, "Anna")
    assert vet("zoe", "ZZZZZ22222") == (None, "Zoë")
    db2 = sqlite3.connect(path, isolation_level=None)
    try:
        assert take(db2, "shutbox/league/roster/9", b"", 4.0) is None    # left the league
    finally:
        db2.close()
    assert vet("Zoë", "") == (None, "Zoë")   # a guest now


def test_the_box_s_setup_roster_leaves_league_players_out(record, tmp_path):
    path, db = record
    store = Store(path)
    try:
        db.execute("INSERT INTO roster (name, key, first_seen, last_seen) VALUES"
                   " ('Anna', 'anna', 1, 2), ('Bob', 'bob', 1, 1)")
        assert store.roster() == ("Anna", "Bob")
        take(db, "shutbox/league/roster/7", entry_message(7, "Anna", ANNA_CODE), 1.0)
        assert store.roster() == ("Bob",)
    finally:
        store.close()


# ---------------------------------------------------------------- through the claims socket


def claim(runner: SimRunner, sock: Path, name: str, secret: str,
          join_code: str | None = None) -> dict:
    """A phone's claim (Bob's from another address) over the real socket while the box's
    loop runs."""
    return claim_on_socket(runner, sock, name, secret, join_code,
                           "10.0.0.9" if name == "Bob" else None)


def test_a_claim_on_the_box_then_the_game_s_message_says_the_seat_was_verified(tmp_path):
    conf = tmp_path / "box.toml"
    conf.write_text('[rules]\npreset = "crafthouse-12"\nmatch = "single-round"\n')
    config = load_config(conf)
    db = tmp_path / "box.db"
    with short_folder() as folder:
        sock = folder / "claims.sock"
        runner = SimRunner(config, db, claims_path=str(sock))
        try:
            con = sqlite3.connect(db, isolation_level=None)
            take(con, "shutbox/league/roster/7", entry_message(7, "Anna", ANNA_CODE), 1.0)
            for _ in range(WRONG_MAX):    # no code, no secret looked at: Anna's stays open
                stranger = claim(runner, sock, "Anna", "K7M2QDX4PB", join_code="ZZZZ22")
                assert stranger == {"ok": False, "reason": WRONG_CODE}
            guest = claim(runner, sock, "Zed", "", join_code="ZZZZ22")   # the referee's words
            assert guest == {"ok": False,
                             "reason": "this is not the box's code: scan the box again"}
            wrong = claim(runner, sock, "Anna", "K7M2QDX4PB")
            assert wrong == {"ok": False, "reason": WRONG_SECRET.format(name="Anna")}
            bare = claim(runner, sock, "anna", "")
            assert bare == {"ok": False, "reason": NEEDS_SECRET.format(name="Anna")}
            assert runner.daemon.controller.screen().players == ("P1", "P2")   # nobody seated
            right = claim(runner, sock, "anna", "k7m2q-dx4pa")
            assert right["ok"] and right["player"] == "Anna" and right["seat"] == 0
            guest = claim(runner, sock, "Bob", "")
            assert guest["ok"] and guest["player"] == "Bob"
            for step in load_script(str(PRACTICE), config.rules.tiles):
                runner.run(step)
            runner.finish()
            record = game_record(con, 1)
            assert record is not None
            assert record["seats"] == [
                {"seat": 0, "name": "Anna", "league": {"player": 7, "verified": True}},
                {"seat": 1, "name": "Bob"}]
            # the league's check of the same message: the seat passes; the same game
            # with the mark taken off, or with another player's id, does not
            players = {"anna": 7}
            assert unverified_seats(record, players) == []
            stripped = {**record, "seats": [{"seat": 0, "name": "Anna"}, record["seats"][1]]}
            assert unverified_seats(stripped, players) == ["Anna"]
            other = {**record, "seats": [
                {"seat": 0, "name": "ANNA", "league": {"player": 8, "verified": True}}]}
            assert unverified_seats(other, players) == ["ANNA"]
            assert unverified_seats(stripped, {}) == []        # no league player: casual
            con.close()
        finally:
            runner.close()


def test_the_join_page_asks_a_league_player_for_their_secret(tmp_path):
    """The real web process and the box's loop: the page's field for the secret, the
    league player's name no longer a button, and the claims refused or seated."""
    from test_join_web import Pub
    from web_server import need_web
    need_web()
    with short_folder() as folder:
        pub = Pub(tmp_path, folder)
        try:
            code = pub.code()
            status, _, page = pub.web.get(f"/join/{code}")
            assert status == 200 and b'value="Anna"' in page and b'name="secret"' in page
            con = sqlite3.connect(pub.box.db, isolation_level=None)
            take(con, "shutbox/league/roster/7", entry_message(7, "Anna", ANNA_CODE), 1.0)
            con.close()
            status, _, page = pub.web.get(f"/join/{code}")
            assert status == 200 and b'value="Anna"' not in page and b'value="Bob"' in page
            status, text = pub.post(code, name="Anna")
            assert status == 409 and "league player&#x27;s name" in text, text
            status, text = pub.post(code, name="Anna", secret="K7M2Q-DX4PB")
            assert status == 409 and "not Anna&#x27;s secret" in text, text
            status, text = pub.post(code, name="anna", secret="k7m2q-dx4pa")
            assert status == 200 and "Anna: seat 1" in text, text
            assert pub.box.daemon.controller.screen().players[0] == "Anna"
        finally:
            assert "Traceback" not in pub.close()


class _Owner:
    """What a session asks of its publisher when a message comes (network/session.py)."""
    topics = {"resend": "shutbox/a1/resend"}
    epoch = "e1"

    def __init__(self) -> None:
        self.problems: list[str] = []

    def roster_problem(self, text: str) -> None:
        self.problems.append(text)

    def now(self) -> float:
        return 5.0


def test_the_session_keeps_roster_messages_and_connects_again_when_it_cannot(record, tmp_path):
    from types import SimpleNamespace

    from shutbox_hw.network.session import Session
    path, db = record
    owner = _Owner()
    session = Session(owner, db)       # type: ignore[arg-type]
    message = SimpleNamespace(topic="shutbox/league/roster/7",
                              payload=entry_message(7, "Anna", ANNA_CODE))
    session._on_message(None, None, message)
    assert Vetting(path)("Anna", ANNA_CODE) == (None, "Anna") and not session.lost
    hostile = json.loads(message.payload)
    hostile["r"] = 1000
    session._on_message(None, None, SimpleNamespace(topic=message.topic,
                                                    payload=json.dumps(hostile).encode()))
    assert "more than a box computes" in owner.problems[-1] and not session.lost
    # a record not upgraded yet (schema 8: no roster table): kept nowhere, said, and
    # the connection ended so that the broker gives the retained entries again
    old = sqlite3.connect(tmp_path / "old.db", isolation_level=None)
    try:
        session = Session(owner, old)  # type: ignore[arg-type]
        session._on_message(None, None, message)
        assert session.lost and "connecting again" in owner.problems[-1]
    finally:
        old.close()


@pytest.mark.parametrize("args, words", [
    (["players", "--dsn", "x"], "league players needs: add NAME, or renew NAME"),
    (["players", "remove", "--dsn", "x", "Anna"], "league players needs: add NAME"),
    (["players", "add", "--dsn", "x"], "league players add takes one NAME"),
    (["players", "add", "--dsn", "x", "Anna", "Bob"], "league players add takes one NAME"),
    (["players", "add", "--dsn", "x", "P3"], "NAME: P3 is a seat's label"),
    (["players", "add", "--dsn", "x", "x" * 20], "NAME: a name has at most 16 characters"),
    (["players", "add", "--dsn", "x", "Bo\x1bb"], "NAME: a name cannot hold control"),
    (["status", "--dsn", "x", "Anna"], "league status takes no more words ('Anna')"),
])
def test_the_players_command_s_mistakes_are_one_line_each(args, words):
    from cli_inprocess import run_cli
    out = run_cli("league", *args)
    assert out.returncode == 2 and words in out.stderr, out.stderr
    assert len(out.stderr.splitlines()) == 1 and "Traceback" not in out.stderr
