"""The simulated box is the whole box (issue 39, item 8): ``shutbox-hw sim --db`` wires
the move rater and the phones' claims socket as the daemon on a Pi does, so a scripted
night's ``players --json`` has each player's accuracy, and a phone takes a seat on a
running simulator through the socket ``web --db`` finds beside the same record.

The accuracy is worked out again here from the record's throws with the solver's
table (``shutbox_hw.strategy``), never from the rater's stored figures. No timed
assertions: the waits are safety nets against a hang."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import pytest
from claims_box import short_folder

from shutbox_hw.claims import client
from shutbox_hw.claims.place import beside_record, for_simulator, for_web
from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.rules import rules_from_dict
from shutbox_hw.store.read.shown import mirror_path, use_folder
from shutbox_hw.strategy import solver_for

ROOT = Path(__file__).resolve().parent.parent
NIGHT = ROOT / "tests" / "scripts" / "two-player-klappenspiel.txt"
# two dice always: every move is a closure (one die or two is then no choice)
RULES = ["--rules", "klappenspiel", "--set", "threshold=10", "--set", "one_die=never"]
WEB = "http://127.0.0.1:8080/"


@pytest.fixture
def runtime():
    """``[storage] runtime``, short enough for a socket's path, in force here too (as
    the commands put it in force: the mirror and the socket beside it are found there)."""
    with short_folder() as folder:
        use_folder(folder)
        try:
            yield folder
        finally:
            use_folder(None)


def _config(tmp_path: Path, runtime: Path) -> Path:
    conf = tmp_path / "box.toml"
    conf.write_text(f'[game]\nplayer_names = ["Anna", "Ben"]\n[storage]\nruntime = "{runtime}"\n')
    return conf


def _sums(open_tiles: frozenset[int], total: int) -> list[frozenset[int]]:
    """Every set of open tiles adding up to ``total`` (klappenspiel's any-sum closure)."""
    return [frozenset(c) for n in range(1, len(open_tiles) + 1)
            for c in combinations(sorted(open_tiles), n) if sum(c) == total]


def _mask(tiles: frozenset[int]) -> int:
    return sum(1 << (t - 1) for t in tiles)


def _accuracy_from_the_throws(db: Path, cache: Path) -> dict[str, tuple[int, int]]:
    """Per named player: (moves, best moves) over every ended turn's throws, a move
    being a throw with more than one closure, best when the tiles left open have the
    least expected penalty in the solver's min-score table (ties to 12 digits)."""
    con = sqlite3.connect(db)
    out: dict[str, tuple[int, int]] = {}
    try:
        for turn, name, rules_json in con.execute(
                "SELECT t.id, p.name, g.rules FROM turns t JOIN games g ON g.id = t.game_id"
                " JOIN players p ON p.game_id = t.game_id AND p.seat = t.seat"
                " WHERE t.ended_at IS NOT NULL ORDER BY t.id"):
            rules = rules_from_dict(json.loads(rules_json))
            table = solver_for(rules, cache_dir=cache).solution("min-score")
            open_tiles = frozenset(range(1, rules.tiles + 1))
            moves, best = out.get(name, (0, 0))
            for dice, closed in con.execute("SELECT dice, closed FROM throws WHERE turn_id = ?"
                                            " ORDER BY number", (turn,)):
                if not closed:
                    continue
                shut = frozenset(json.loads(closed))
                options = _sums(open_tiles, sum(json.loads(dice)))
                assert shut in options
                if len(options) > 1:
                    left = {o: format(float(table.value(_mask(open_tiles - o))), ".12g")
                            for o in options}
                    least = min(float(v) for v in left.values())
                    moves += 1
                    best += float(left[shut]) == float(format(least, ".12g"))
                open_tiles -= shut
            out[name] = (moves, best)
    finally:
        con.close()
    return out


def test_a_scripted_night_has_each_player_s_accuracy_in_players_json(tmp_path, capsys,
                                                                      runtime):
    conf, db = _config(tmp_path, runtime), tmp_path / "night.db"
    assert main(["sim", "--config", str(conf), *RULES, "--db", str(db),
                 "--script", str(NIGHT)]) == 0
    assert '"game_ended"' in capsys.readouterr().out
    assert not beside_record(db).exists()     # the socket went with the simulator
    assert main(["players", "--db", str(db), "--json"]) == 0
    shown = {p["name"]: p for p in json.loads(capsys.readouterr().out)}
    truth = _accuracy_from_the_throws(db, tmp_path / "solver")
    assert set(shown) == set(truth) == {"Anna", "Ben"}
    for name, (moves, best) in truth.items():
        percent = round(100 * best / moves, 1)
        assert shown[name]["accuracy"] == percent == shown[name]["accuracy_recent"]
    # the night had moves to rate, best ones and others
    assert sum(m for m, _ in truth.values()) > sum(b for _, b in truth.values()) > 0


def test_without_the_rater_the_night_has_no_accuracy(tmp_path, capsys, runtime):
    conf, db = _config(tmp_path, runtime), tmp_path / "night.db"
    assert main(["sim", "--config", str(conf), *RULES, "--db", str(db), "--no-rater",
                 "--no-claims", "--script", str(NIGHT)]) == 0
    capsys.readouterr()
    assert main(["players", "--db", str(db), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {p["name"]: p["accuracy"] for p in shown} == {"Anna": None, "Ben": None}


def test_the_simulator_s_socket_is_beside_its_record_unless_the_config_names_one(tmp_path,
                                                                                 runtime):
    config = load_config(_config(tmp_path, runtime))
    db = tmp_path / "g.db"
    place = beside_record(db)
    assert place.parent == runtime and place.name.startswith("claims-")
    assert place.stem[len("claims-"):] == mirror_path(db).stem[len("shown-"):]
    assert for_simulator(config.network, db) == str(place)
    assert beside_record(tmp_path / "h.db") != place          # one a record
    named = tmp_path / "named.toml"
    named.write_text(f'[network]\nclaims_socket = "{runtime}/c.sock"\n')
    assert for_simulator(load_config(named).network, db) == f"{runtime}/c.sock"
    assert for_web(load_config(named).network, db) == f"{runtime}/c.sock"
    named.write_text('[network]\nclaims_socket = ""\n')
    assert for_simulator(load_config(named).network, db) is None


def test_the_web_finds_a_simulator_s_socket_else_the_box_s(tmp_path, runtime, monkeypatch):
    import socket

    from shutbox_hw.claims import place as place_module
    network = load_config(_config(tmp_path, runtime)).network
    db = tmp_path / "g.db"
    beside = beside_record(db)
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.setattr(place_module, "DEFAULT_RUNTIME", str(tmp_path / "no-box-here"))
    assert for_web(network, db) == str(beside)        # a simulator started later listens there
    box = tmp_path / "box-run"
    box.mkdir()
    monkeypatch.setattr(place_module, "DEFAULT_RUNTIME", str(box))   # a box runs here
    assert for_web(network, db) == network.claims_path
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listening.bind(str(beside))                   # ... and a simulator on this record
        assert for_web(network, db) == str(beside)
    finally:
        listening.close()


def _until(what, seconds: float = 30.0):
    """What ``what()`` returns once it is truthy (a safety net, not a timing)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the simulator did not get there")


def _join_code(mirror: Path) -> dict | None:
    try:
        return json.loads(mirror.read_text())["data"].get("join")
    except (OSError, ValueError, KeyError):
        return None


def _running_sim(tmp_path: Path, conf: Path, db: Path) -> subprocess.Popen[str]:
    """``sim --db`` running (a realtime script that waits ten minutes), stopped by SIGINT."""
    script = tmp_path / "s.txt"
    script.write_text("wait 600\n")
    return subprocess.Popen(
        [sys.executable, "-m", "shutbox_hw", "sim", "--config", str(conf), "--db", str(db),
         "--realtime", "--script", str(script)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.process    # a running simulator, stopped with a real SIGINT
def test_a_phone_takes_a_seat_through_a_running_simulator_s_socket(tmp_path, runtime):
    conf, db = tmp_path / "box.toml", tmp_path / "g.db"
    conf.write_text(f'[storage]\nruntime = "{runtime}"\n')
    proc = _running_sim(tmp_path, conf, db)
    try:
        sock = for_web(load_config(conf).network, db)   # as `web --db` finds it
        assert sock == str(beside_record(db))
        _until(lambda: Path(sock).exists())
        client.say_web(sock, WEB)                         # the web runs: a QR code
        join = _until(lambda: _join_code(mirror_path(db, runtime)))
        assert join["url"] == f"{WEB}join/{join['code']}"
        answer = client.claim(sock, "Anna", join["code"], "192.168.1.7")
        assert answer == {"ok": True, "seat": 0, "player": "Anna", "players": ["Anna", "P2"]}
        assert client.claim(sock, "Ben", "NOPE99")["ok"] is False
        assert proc.stdout is not None
        claimed = json.loads(proc.stdout.readline())
        assert claimed == {"event": "seat_claimed", "seat": 0, "player": "Anna",
                           "source": "phone", "players": ["Anna", "P2"]}
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    assert not Path(sock).exists()     # closed with the simulator


@pytest.mark.process    # the README's "Trying it without a box": sim --db beside web --db
def test_the_web_on_the_sim_s_record_shows_a_qr_code_that_seats_a_phone(tmp_path, runtime):
    from loopback import free_port
    from web_server import WebServer, need_web
    need_web()
    port = free_port()
    conf, db = tmp_path / "box.toml", tmp_path / "g.db"
    # web_url: the QR code's address (a web on the loopback alone makes none of its own)
    conf.write_text(f'[storage]\nruntime = "{runtime}"\n'
                    f'[network]\nweb_url = "http://127.0.0.1:{port}/"\n')
    proc = _running_sim(tmp_path, conf, db)
    web = None
    try:
        _until(lambda: beside_record(db).exists())
        web = WebServer(db, conf, port)          # no claims_socket: it finds the sim's
        join = _until(lambda: _join_code(mirror_path(db, runtime)))
        assert join["url"] == f"http://127.0.0.1:{port}/join/{join['code']}"
        status, _, page = web.get(f"/join/{join['code']}")
        assert status == 200 and b"Anna" not in page
        status, _, page = web.get(f"/join/{join['code']}", "POST", b"name=Anna",
                                  {"Content-Type": "application/x-www-form-urlencoded"})
        assert status == 200 and b"Anna" in page
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline()) == {
            "event": "seat_claimed", "seat": 0, "player": "Anna", "source": "phone",
            "players": ["Anna", "P2"]}
    finally:
        log = web.stop() if web is not None else ""
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err + log


def _ended_and_rated(db: Path) -> tuple[int, int]:
    con = sqlite3.connect(db)
    try:
        ended = con.execute("SELECT COUNT(*) FROM turns WHERE ended_at IS NOT NULL").fetchone()
        rated = con.execute("SELECT COUNT(*) FROM turn_ratings").fetchone()
    finally:
        con.close()
    return int(ended[0]), int(rated[0])


def test_the_terminal_simulator_rates_on_the_box_s_thread_and_listens(tmp_path, capsys,
                                                                      runtime, monkeypatch):
    import shutbox_hw.sim.terminal as terminal
    from shutbox_hw.sim.script import load_script
    from shutbox_hw.skill.rater import RatingWorker
    conf, db = _config(tmp_path, runtime), tmp_path / "night.db"
    seen: dict[str, object] = {}

    def play(main_fn, runner, log):     # the person at the keys, as the scripted one plays
        seen["socket"] = runner.claims.path if runner.claims is not None else None
        seen["listening"] = Path(str(seen["socket"])).exists()
        seen["rater"] = runner.rater
        for step in load_script(NIGHT, 9):
            runner.run(step)
        runner.let_ends_show()
        # the rater's thread rates off the loop: waited for (a safety net, not a timing)
        _until(lambda: (lambda e, r: e > 0 and e == r)(*_ended_and_rated(db)))
    monkeypatch.setattr(terminal.curses, "wrapper", play)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["sim", "--config", str(conf), *RULES, "--db", str(db)]) == 0
    assert isinstance(seen["rater"], RatingWorker)
    assert seen["socket"] == str(beside_record(db)) and seen["listening"]
    assert not beside_record(db).exists()
    capsys.readouterr()
    assert main(["players", "--db", str(db), "--json"]) == 0
    shown = {p["name"]: p["accuracy"] for p in json.loads(capsys.readouterr().out)}
    assert shown == {name: round(100 * best / moves, 1) for name, (moves, best)
                     in _accuracy_from_the_throws(db, tmp_path / "solver").items()}


def test_the_temporary_folder_is_made_for_the_socket_and_another_user_s_is_refused(
        tmp_path, monkeypatch):
    import os
    import tempfile

    from shutbox_hw.claims.server import ClaimsUnavailable
    from shutbox_hw.store.read import shown
    shared = tmp_path / "shm"            # a folder like /dev/shm: everyone's, sticky
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setattr(shown, "SHARED_RAM", shared)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "none"))
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    use_folder(None)
    network = load_config(None).network
    db = tmp_path / "g.db"
    place = beside_record(db)
    if place.parent.parent != shared:
        pytest.skip("this machine has /run/shutbox-hw: the mirror's folder is that")
    assert not place.parent.exists()
    assert for_simulator(network, db) == str(place)       # made, as the mirror makes it
    assert place.parent.is_dir() and (place.parent.stat().st_mode & 0o777) == 0o755
    if os.geteuid() != 0:
        return                                            # no other user's folder to make
    os.chown(place.parent, 4242, 4242)
    with pytest.raises(ClaimsUnavailable, match="not this user's folder"):
        for_simulator(network, db)


def test_a_socket_that_cannot_be_made_is_said_and_the_night_plays_on(tmp_path, capsys,
                                                                     runtime):
    conf, db = tmp_path / "box.toml", tmp_path / "g.db"
    conf.write_text(f'[storage]\nruntime = "{runtime}"\n'
                    f'[network]\nclaims_socket = "{runtime}/no-such-folder/c.sock"\n')
    assert main(["sim", "--config", str(conf), *RULES, "--db", str(db),
                 "--script", str(NIGHT)]) == 0
    out, err = capsys.readouterr()
    assert err.count("seats from a phone are off") == 1
    assert f"cannot listen on {runtime}/no-such-folder/c.sock" in err
    assert '"game_ended"' in out and "Traceback" not in err
