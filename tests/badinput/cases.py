"""The bad-input corpus: what a person can get wrong, and the word the one-line error must say.

Each case is ``(id, argv, keyword, setup, proc)``. ``argv`` follows ``shutbox-hw``;
``{t}`` stands for the case's own temporary directory, where ``setup`` makes
the files first (see :func:`make`). ``proc`` cases run as a real subprocess
with a timeout (those that could hang: FIFOs, devices, locks); the others
run ``main()`` in-process, which proves the same (no exception escapes it).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from shutbox_hw.store.tables.schema import VERSION

LONG = "x" * 5000                      # a value far longer than any message may quote
DIGITS = "9" * 30                      # beyond 64 bits
TOO_LONG_NAME = "n" * 300 + ".toml"    # one path component over NAME_MAX (255)
OK_SCRIPT = "start 1\n"


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    keyword: str
    setup: tuple[tuple, ...] = ()
    proc: bool = False


def case(id: str, argv: str | list[str], keyword: str, *setup: tuple,
         proc: bool = False) -> Case:
    args = tuple(argv.split()) if isinstance(argv, str) else tuple(argv)
    return Case(id, args, keyword, setup, proc)


def text(name: str, content: str) -> tuple:
    return ("text", name, content)


def raw(name: str, content: bytes) -> tuple:
    return ("raw", name, content)


CASES: list[Case] = [
    # ------------------------------------------------------------ config files
    case("config-missing", "check-config {t}/none.toml", "no such config file"),
    case("config-directory", "check-config {t}", "is a directory"),
    case("config-fifo", "check-config {t}/pipe.toml", "FIFO", ("fifo", "pipe.toml"), proc=True),
    case("config-dev-zero", "check-config /dev/zero", "character device", proc=True),
    case("config-dev-null", "check-config /dev/null", "character device"),
    case("config-symlink-loop", "check-config {t}/loop.toml", "symbolic links",
         ("loop", "loop.toml")),
    case("config-enotdir", "check-config {t}/file.toml/box.toml", "not a directory",
         text("file.toml", "")),
    case("config-name-too-long", f"check-config {{t}}/{TOO_LONG_NAME}", "too long"),
    case("config-huge", "check-config {t}/huge.toml", "too large",
         ("big", "huge.toml", 2 << 20)),
    case("config-not-utf8", "check-config {t}/bin.toml", "not a text file",
         raw("bin.toml", b"\xff\xfe\x00garbage\x80")),
    case("config-not-toml", "check-config {t}/bad.toml", "not valid TOML",
         text("bad.toml", "[rules\ntiles = \n")),
    case("config-nul-bytes", "check-config {t}/nul.toml", "not valid TOML",
         text("nul.toml", "[rules]\x00\n")),
    case("config-unknown-table", "check-config {t}/t.toml", "unknown table",
         text("t.toml", "[rulez]\n")),
    case("config-long-value", "check-config {t}/v.toml", "dice",
         text("v.toml", f'[game]\ndice = "{LONG}"\n')),
    case("config-tiles", "check-config {t}/v.toml", "tiles",
         text("v.toml", "[rules]\ntiles = 99\n")),
    case("config-backend", "check-config {t}/v.toml", "backend",
         text("v.toml", '[hardware]\nbackend = "nope"\n')),
    case("config-storage-db", "check-config {t}/v.toml", "[storage] db",
         text("v.toml", "[storage]\ndb = 5\n")),
    case("config-same-names", "check-config {t}/v.toml", "different",
         text("v.toml", '[game]\nplayer_names = ["Ann", "Ann"]\n')),
    case("config-table-is-value", "check-config {t}/v.toml", "expected a table",
         text("v.toml", "rules = 3\n")),
    case("sim-config-fifo", "sim --config {t}/pipe.toml --script {t}/s.txt", "FIFO",
         ("fifo", "pipe.toml"), text("s.txt", OK_SCRIPT), proc=True),
    case("sim-config-missing", "sim --config {t}/none.toml", "no such config file"),
    case("sim-config-loop", "sim --config {t}/loop.toml", "symbolic links", ("loop", "loop.toml")),
    case("sim-config-bad-key", "sim --config {t}/v.toml", "settle_ms",
         text("v.toml", "[game]\nsettle_ms = -5\n")),
    case("run-config-missing", "run --config {t}/none.toml", "no such config file"),
    case("run-config-dev-zero", "run --config /dev/zero", "character device", proc=True),
    case("history-config-fifo", "history --config {t}/pipe.toml", "FIFO", ("fifo", "pipe.toml"),
         proc=True),
    # ------------------------------------------------------------ --set and --rules
    case("set-not-a-number", "moves --rules pub --open all --set tiles=abc", "whole number"),
    case("set-no-equals", "moves --rules pub --open all --set noequals", "KEY=VALUE"),
    case("set-unknown-key", "moves --rules pub --open all --set colour=red", "unknown rules key"),
    case("set-huge-number", f"moves --rules pub --open all --set tiles={DIGITS}", "9..12"),
    case("set-long-value", ["moves", "--rules", "pub", "--open", "all", "--set", LONG],
         "KEY=VALUE"),
    case("set-bad-match", "sim --set match=nope --script {t}/s.txt", "match",
         text("s.txt", OK_SCRIPT)),
    case("rules-unknown-preset", "moves --rules nope --open all", "preset"),
    # ------------------------------------------------------------ options
    case("history-limit-64bit", f"history --limit {DIGITS}", "whole number"),
    case("history-game-64bit", f"history --game {DIGITS}", "whole number"),
    case("history-limit-negative", "history --limit -1", "whole number"),
    case("history-game-long", ["history", "--game", "9" * 5000], "whole number"),
    case("history-limit-word", "history --limit many", "whole number"),
    case("sim-seed-word", "sim --seed x", "invalid int"),
    case("unknown-option", "history --bogus", "unrecognized"),
    case("unknown-command", "frobnicate", "invalid choice"),
    case("long-command", [LONG], "invalid choice"),
    case("sim-frames-is-a-file", "sim --frames {t}/f --script {t}/s.txt", "--frames",
         text("f", ""), text("s.txt", OK_SCRIPT)),
    case("moves-open-outside", "moves --rules pub --open 99", "outside"),
    case("moves-die-face", "moves --rules pub --open all --dice 7", "die face"),
    case("moves-long-die", ["moves", "--rules", "pub", "--open", "all", "--dice", LONG],
         "not a die face"),
    case("moves-no-open", "moves --rules pub", "required"),
    # ------------------------------------------------------------ scripts
    case("script-missing", "sim --script {t}/none.txt", "no such script file"),
    case("script-directory", "sim --script {t}", "is a directory"),
    case("script-fifo", "sim --script {t}/pipe", "FIFO", ("fifo", "pipe"), proc=True),
    case("script-dev-zero", "sim --script /dev/zero", "character device", proc=True),
    case("script-huge", "sim --script {t}/huge.txt", "too large", ("big", "huge.txt", 9 << 20)),
    case("script-megabyte-line", "sim --script {t}/line.txt", "unknown command",
         text("line.txt", "q" * (1 << 20) + "\n")),
    case("script-not-utf8", "sim --script {t}/bin.txt", "not a text file",
         raw("bin.txt", b"start 2\n\xff\xff\n")),
    case("script-unknown-command", "sim --script {t}/s.txt", "unknown command",
         text("s.txt", "start 2\njump\n")),
    case("script-flap-off-board", "sim --script {t}/s.txt", "not on this 9-flap box",
         text("s.txt", "start 1\nclose 13\n")),
    case("script-huge-flap", "sim --script {t}/s.txt", "not on this",
         text("s.txt", f"start 1\nclose {'7' * 3000}\n")),
    case("script-die-face", "sim --script {t}/s.txt", "die face", text("s.txt", "dice 7\n")),
    case("script-players", "sim --script {t}/s.txt", "players", text("s.txt", "start 0\n")),
    case("script-wait", "sim --script {t}/s.txt", "seconds", text("s.txt", "wait -1\n")),
    case("script-not-a-number", "sim --script {t}/s.txt", "whole number",
         text("s.txt", f"close {LONG}\n")),
    case("script-extra-words", "sim --script {t}/s.txt", "takes no arguments",
         text("s.txt", "roll now\n")),
    case("script-loop", "sim --script {t}/loop", "symbolic links", ("loop", "loop")),
    case("script-enotdir", "sim --script {t}/s.txt/more.txt", "not a directory",
         text("s.txt", OK_SCRIPT)),
    case("script-name-too-long", f"sim --script {{t}}/{'s' * 300}", "too long"),
    # ------------------------------------------------------------ database files
    case("history-db-missing", "history --db {t}/none.db", "no game database"),
    case("history-db-garbage", "history --db {t}/g.db", "not a shutbox-hw database",
         raw("g.db", b"definitely not sqlite " * 100)),
    case("history-db-empty", "history --db {t}/e.db", "an empty file", raw("e.db", b"")),
    case("history-db-foreign", "history --db {t}/f.db", "not a shutbox-hw database",
         ("db", "f.db", "foreign")),
    case("history-db-newer", "history --db {t}/n.db",
         f"newer shutbox-hw (schema {VERSION + 1}); upgrade",
         ("db", "n.db", "newer")),
    case("history-db-lookalike", "history --db {t}/l.db", "not a shutbox-hw database",
         ("db", "l.db", "lookalike")),
    case("history-db-stamped-empty", "history --db {t}/s.db", "damaged",
         ("db", "s.db", "stamped-empty")),
    case("sim-db-lookalike", "sim --db {t}/l.db --script {t}/s.txt", "not a shutbox-hw database",
         ("db", "l.db", "lookalike"), text("s.txt", OK_SCRIPT)),
    case("history-db-directory", "history --db {t}", "is a directory"),
    case("history-db-fifo", "history --db {t}/pipe.db", "FIFO", ("fifo", "pipe.db"), proc=True),
    case("history-db-dev-zero", "history --db /dev/zero", "character device", proc=True),
    case("history-db-loop", "history --db {t}/loop.db", "symbolic links", ("loop", "loop.db")),
    case("history-db-enotdir", "history --db {t}/f.db/x.db", "not a directory", raw("f.db", b"")),
    case("history-db-too-long", f"history --db {{t}}/{'d' * 300}", "too long"),
    case("history-db-locked", "history --db {t}/l.db", "locked", ("db", "l.db", "locked"),
         proc=True),
    case("history-db-damaged-rules", "history --db {t}/d.db --game 1", "damaged",
         ("db", "d.db", "damaged")),
    case("history-no-such-game", "history --db {t}/ok.db --game 5", "no game 5",
         ("db", "ok.db", "ok")),
    case("sim-db-garbage", "sim --db {t}/g.db --script {t}/s.txt", "not a shutbox-hw database",
         raw("g.db", b"definitely not sqlite " * 100), text("s.txt", OK_SCRIPT)),
    case("sim-db-foreign", "sim --db {t}/f.db --script {t}/s.txt", "not a shutbox-hw database",
         ("db", "f.db", "foreign"), text("s.txt", OK_SCRIPT)),
    case("sim-db-newer", "sim --db {t}/n.db --script {t}/s.txt", "newer shutbox-hw",
         ("db", "n.db", "newer"), text("s.txt", OK_SCRIPT)),
    case("sim-db-fifo", "sim --db {t}/pipe.db --script {t}/s.txt", "FIFO",
         ("fifo", "pipe.db"), text("s.txt", OK_SCRIPT), proc=True),
    case("sim-db-directory", "sim --db {t} --script {t}/s.txt", "is a directory",
         text("s.txt", OK_SCRIPT)),
    case("sim-db-enotdir", "sim --db {t}/f/x.db --script {t}/s.txt", "not a directory",
         raw("f", b""), text("s.txt", OK_SCRIPT)),
    case("sim-db-loop", "sim --db {t}/loop.db --script {t}/s.txt", "symbolic links",
         ("loop", "loop.db"), text("s.txt", OK_SCRIPT)),
    case("sim-db-too-long", f"sim --db {{t}}/{'d' * 300} --script {{t}}/s.txt", "too long",
         text("s.txt", OK_SCRIPT)),
]


def make(tmp: Path, spec: tuple, hold: list) -> None:
    """Create one setup item in ``tmp``; open handles that must stay open go into ``hold``."""
    kind, name, *rest = spec
    path = tmp / name
    if kind == "text":
        path.write_text(rest[0], encoding="utf-8")
    elif kind == "raw":
        path.write_bytes(rest[0])
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "loop":
        path.symlink_to(tmp / (name + ".other"))
        (tmp / (name + ".other")).symlink_to(path)
    elif kind == "big":
        with open(path, "wb") as f:
            f.truncate(rest[0])  # sparse: costs no disk
    elif kind == "db":
        make_db(path, rest[0], hold)
    else:
        raise ValueError(kind)


def make_db(path: Path, kind: str, hold: list) -> None:
    from shutbox_hw.game.model.events import GameStarted
    from shutbox_hw.store import Store
    from shutbox_hw.store.tables.schema import APP_ID, VERSION
    if kind in ("foreign", "lookalike", "stamped-empty"):
        con = sqlite3.connect(path)
        if kind == "foreign":
            con.execute("CREATE TABLE games (name TEXT, score INTEGER)")
        elif kind == "lookalike":  # our table names, but games has other columns
            for table in ("games", "players", "rounds", "turns", "throws", "rejected_flaps"):
                con.execute(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY)")
        else:  # our stamp on a file without our tables
            con.execute(f"PRAGMA application_id = {APP_ID}")
            con.execute(f"PRAGMA user_version = {VERSION}")
        con.close()
        return
    store = Store(path)
    if kind in ("damaged", "ok", "locked"):
        store.record(GameStarted(players=("Ann",), rules={"preset": "klappenspiel"},
                                 dice="software"))
    store.close()
    con = sqlite3.connect(path, isolation_level=None)
    if kind == "newer":
        con.execute(f"PRAGMA application_id = {APP_ID}")
        con.execute(f"PRAGMA user_version = {VERSION + 1}")
    elif kind == "damaged":
        con.execute("UPDATE games SET rules = '{not json'")
    elif kind == "locked":
        # what another program does when it takes the file for itself
        con.execute("PRAGMA locking_mode = EXCLUSIVE")
        con.execute("BEGIN EXCLUSIVE")
        con.execute("UPDATE games SET abandoned = 0")
        hold.append(con)
        return
    con.close()
