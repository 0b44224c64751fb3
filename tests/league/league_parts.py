"""The league's real parts, started by the tests (issue 40, item 7).

- :class:`Postgres`: a throwaway PostgreSQL cluster (Debian's 15: initdb and pg_ctl from
  /usr/lib/postgresql/15/bin) run as ``nobody`` through setpriv (PostgreSQL refuses
  root), listening only on a unix socket in a temporary folder that only ``nobody``
  can write;
- :class:`LeagueBroker`: a Mosquitto with per-user passwords and ACLs, and (a pub's
  broker) an MQTT 5 bridge to the central one: the configuration of
  docs/network/league.md;
- :class:`IngestProcess`: ``shutbox-hw league ingest`` as a process (SIGKILL-able);
- :class:`Link`: a TCP link a test can cut (a pub's bridge down for an evening);
- :func:`play`: a box played by ``shutbox-hw sim --publish``;
- :func:`box_games` and :func:`league_games`: the box's record and the league's, for
  the one assertion every fault test ends with.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cli_inprocess import run_cli
from forked import Forked, sb_run
from loopback import free_port, wait_for
from mqtt_broker import MOSQUITTO, Broker
from other_user import NOBODY, setpriv

from shutbox_hw.store.tables.epoch import epoch_of
from shutbox_hw.store.tables.game_record import content, game_record

CHECKOUT = Path(__file__).resolve().parents[2]
PRACTICE = CHECKOUT / "tests" / "scripts" / "practice-001.txt"
SB = [sys.executable, "-m", "shutbox_hw"]
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def need_parts() -> None:
    if not (PG_BIN / "postgres").exists():
        pytest.skip("Debian's postgresql (15) is not installed (.ci/run installs it)")
    if MOSQUITTO is None:
        pytest.skip("Debian's mosquitto is not installed (.ci/run installs it)")
    pytest.importorskip("psycopg", reason="psycopg (the league extra) is not installed")
    pytest.importorskip("paho.mqtt.client", reason="paho-mqtt is not installed")


class Postgres:
    """One cluster; ``stop`` and ``start`` again on the same data and socket."""

    def __init__(self) -> None:
        # /tmp, not tmp_path: nobody cannot enter root's private pytest folder
        self.root = Path(tempfile.mkdtemp(prefix="shutbox-league-pg-"))
        os.chown(self.root, NOBODY, NOBODY)
        self.root.chmod(0o755)                  # root (the tests) enters; only nobody writes
        self.data = self.root / "data"
        self.port = 5432                        # on the socket only: no clash with a server
        self._as_nobody("initdb", "-D", str(self.data), "-U", "league", "--auth=trust",
                        "-E", "UTF8", "--no-sync")

    def _as_nobody(self, tool: str, *args: str) -> subprocess.CompletedProcess[str]:
        out = subprocess.run([*setpriv(), str(PG_BIN / tool), *args], cwd=self.root,
                             capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError(f"{tool}: {out.stdout[-800:]} {out.stderr[-800:]}")
        return out

    @property
    def dsn(self) -> str:
        return f"host={self.root} port={self.port} user=league dbname=postgres"

    def start(self) -> None:
        self._as_nobody("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log.txt"),
                        "-w", "-t", "60", "-o",
                        f"-k {self.root} -c listen_addresses='' -p {self.port} -c fsync=off",
                        "start")

    def stop(self) -> None:
        self._as_nobody("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def destroy(self) -> None:
        try:
            self._as_nobody("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except RuntimeError:
            pass   # not running
        shutil.rmtree(self.root, ignore_errors=True)

    def query(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        import psycopg
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            cursor = conn.execute(sql, params or None)
            return [] if cursor.description is None else cursor.fetchall()


class LeagueBroker(Broker):
    """Mosquitto with a password and an ACL per user; ``bridge_to``: a pub's broker,
    bridged to the central one for its boxes' topics only."""

    def __init__(self, folder: Path, users: dict[str, tuple[str, list[str]]],
                 bridge: str = "", log: bool = True, save_each_change: bool = True,
                 extra: str = "", tls: bool = False) -> None:
        """``log``: every packet in the log; ``save_each_change``: persistence saved at
        every change (as the tests' brokers are), else Mosquitto's own default (1800 s);
        ``extra``: more lines of configuration; ``tls``: TLS only, with a CA of its own
        (``ca``)."""
        super().__init__(folder, secure=tls)
        self.users = users
        passwd = folder / "passwd"
        passwd.write_text("")
        acl = []
        for user, (password, lines) in users.items():
            subprocess.run(["mosquitto_passwd", "-b", str(passwd), user, password],
                           check=True, capture_output=True)
            acl += [f"user {user}", *lines, ""]
        (folder / "acl").write_text("\n".join(acl))
        conf = (folder / "mosquitto.conf").read_text()
        conf = conf.replace("allow_anonymous true", "allow_anonymous false")
        conf = conf.replace(f"password_file {passwd}\n", "")   # Broker's own user: not here
        if not save_each_change:
            conf = conf.replace("autosave_interval 1\nautosave_on_changes true\n",
                                "autosave_interval 1800\n")
        conf += (f"password_file {passwd}\nacl_file {folder / 'acl'}\n"
                 + ("log_type all\n" if log else "") + extra + bridge)
        (folder / "mosquitto.conf").write_text(conf)
        self.anonymous = False


def box_user(box: str) -> list[str]:
    """A box's ACL on its pub's broker: its own topics only (a phone's request to join
    the league among them), the league's roster, its tombstones (players deleted) and the
    box's own TV table."""
    return [f"topic write shutbox/{box}/event", f"topic write shutbox/{box}/state",
            f"topic write shutbox/{box}/status", f"topic write shutbox/{box}/game",
            f"topic read shutbox/{box}/resend", f"topic write shutbox/{box}/league/join",
            "topic read shutbox/league/roster/#",
            "topic read shutbox/league/forget/#", f"topic read shutbox/league/table/{box}"]


def bridge_lines(name: str, central: Broker, password: str, boxes: list[str]) -> str:
    """A pub's bridge to the central broker (its boxes' topics only, QoS 1, MQTT 5; TLS
    when the central broker has it)."""
    topics = "".join(f"topic shutbox/{box}/{kind} out 1\n"
                     for box in boxes for kind in ("event", "state", "status", "game"))
    topics += "".join(f"topic shutbox/{box}/resend in 1\n" for box in boxes)
    topics += "".join(f"topic shutbox/{box}/league/join out 1\n" for box in boxes)
    topics += "topic shutbox/league/roster/# in 1\n"      # the league's players, retained
    topics += "topic shutbox/league/forget/# in 1\n"      # players deleted, retained
    topics += "".join(f"topic shutbox/league/table/{box} in 1\n"    # each box's TV table
                      for box in boxes)
    return (f"\nconnection {name}\naddress 127.0.0.1:{central.port}\n"
            f"bridge_protocol_version mqttv50\nremote_clientid {name}\n"
            + (f"bridge_cafile {central.ca}\n" if central.ca else "")
            + f"remote_username {name}\nremote_password {password}\n"
            "cleansession false\nrestart_timeout 1 2\nkeepalive_interval 5\n" + topics)


class IngestProcess:
    """``shutbox-hw league ingest``, a process forked from the warm interpreter
    (tests/forked.py) (``code``: other Python to run instead, for a fault)."""

    def __init__(self, folder: Path, dsn: str, url: str, credentials: Path,
                 grace_s: float = 2.0, code: str | None = None,
                 ca: Path | None = None, retry_max_s: float | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.log = folder / f"ingest-{time.monotonic_ns()}.txt"
        args = ["league", "ingest", "--dsn", dsn, "--mqtt", url, "--credentials",
                str(credentials), "--grace", str(grace_s)]
        if ca is not None:
            args += ["--ca", str(ca)]
        if retry_max_s is not None:
            args += ["--retry-max", str(retry_max_s)]
        self.proc = Forked(args, cwd=CHECKOUT, stderr=self.log, code=code)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


class Link:
    """A TCP link on 127.0.0.1 to ``port`` (bytes passed as they come, TLS included):
    :meth:`cut` closes its connections and refuses new ones, :meth:`mend` listens
    again on the same port."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self.mend()

    def mend(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(8)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            listener, self._listener = self._listener, None
            pairs, self._pairs = self._pairs, []
        if listener is not None:
            try:    # wakes the accept() blocked on it: a close alone leaves it accepting
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for a, b in pairs:
            for end in (a, b):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                near, _ = listener.accept()
            except OSError:
                return      # cut
            try:
                far = socket.create_connection(("127.0.0.1", self.target), 5)
            except OSError:
                near.close()
                continue
            with self._lock:
                if self._listener is not listener:
                    near.close()
                    far.close()
                    return
                self._pairs.append((near, far))
            threading.Thread(target=self._pass, args=(near, far), daemon=True).start()

    @staticmethod
    def _pass(a: socket.socket, b: socket.socket) -> None:
        ends = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select(list(ends), [], [], 1)
                for end in ready:
                    data = end.recv(65536)
                    if not data:
                        return
                    ends[end].sendall(data)
        except (OSError, ValueError):
            return      # cut
        finally:
            for end in (a, b):
                try:
                    end.close()
                except OSError:
                    pass


def box_config(folder: Path, box: str, broker: Broker, password: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    secret = folder / f"{box}.credentials"
    secret.write_text(f"{box}:{password}\n")
    secret.chmod(0o600)
    path = folder / f"{box}.toml"
    path.write_text('[rules]\npreset = "crafthouse-12"\nmatch = "single-round"\n'
                    f'[network]\nmqtt = "{broker.url}"\nbox = "{box}"\n'
                    f'credentials_file = "{secret}"\n')
    return path


def play(config: Path, db: Path, games: int = 1) -> None:
    """``games`` games of the practice script on the box (one ``shutbox-hw sim --publish``
    run each, a process of its own: in the test's process, beside its threads reading the
    brokers' and ingests' output, the sim's publisher missed its 10 s to send the game on
    a loaded machine, and the league waited for a game no box was left to resend)."""
    for _ in range(games):
        out = sb_run(["sim", "--publish", "--config", str(config), "--db",
                      str(db), "--script", str(PRACTICE)], timeout=120)
        assert out.returncode == 0, out.stderr


def box_games(db: Path) -> tuple[str, dict[int, dict[str, Any]]]:
    """The box's epoch and every ended game of its record (as the league keeps it)."""
    con = sqlite3.connect(db)
    try:
        epoch = epoch_of(con)
        assert epoch is not None
        ids = [g for g, in con.execute("SELECT id FROM games WHERE ended_at IS NOT NULL")]
        games = {}
        for game in ids:
            record = game_record(con, game)
            assert record is not None
            games[game] = json.loads(json.dumps(content(record)))
        return epoch, games
    finally:
        con.close()


def league_games(pg: Postgres, box: str, epoch: str) -> dict[int, Any]:
    return {game: record for game, record in pg.query(
        "SELECT game, record FROM games WHERE box = %s AND epoch = %s", box, epoch)}


def league_status(dsn: str) -> list[dict[str, Any]]:
    out = run_cli("league", "status", "--dsn", dsn, "--json", cwd=CHECKOUT)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def all_in(pg: Postgres, dbs: dict[str, list[Path]], seconds: float) -> bool:
    """Wait until every ended game of every box's record is in the league."""
    def done() -> bool:
        for box, paths in dbs.items():
            for path in paths:
                epoch, games = box_games(path)
                if set(league_games(pg, box, epoch)) != set(games):
                    return False
        return True
    return wait_for(done, seconds, step=0.5)


def exactly_once(pg: Postgres, dbs: dict[str, list[Path]]) -> None:
    """Every ended game of every box's record in the league once, equal to the record,
    and nothing else there."""
    expected = 0
    for box, paths in dbs.items():
        for path in paths:
            epoch, games = box_games(path)
            assert league_games(pg, box, epoch) == games, (box, epoch)
            expected += len(games)
    assert pg.query("SELECT count(*) FROM games") == [(expected,)]


class Answering:
    """The boxes back on (their publishers, on their records) to answer resend requests,
    as ``with Answering(configs, dbs):``."""

    def __init__(self, configs: dict[str, Path], dbs: dict[str, Path]) -> None:
        from shutbox_hw.config.config_file import load_config
        from shutbox_hw.network.publisher import Publisher
        self.publishers = [Publisher(db, load_config(configs[box]).network)
                           for box, db in dbs.items()]

    def __enter__(self) -> Answering:
        for publisher in self.publishers:
            publisher.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for publisher in self.publishers:
            publisher.stop()

    @property
    def resent(self) -> int:
        return sum(p.resent for p in self.publishers)


def message_of(db: Path, box: str, game_id: int, **changes: Any) -> bytes:
    """A game message as the box sends it (``changes``: the record altered)."""
    con = sqlite3.connect(db)
    try:
        record = game_record(con, game_id)
        epoch = epoch_of(con)
    finally:
        con.close()
    assert record is not None
    return json.dumps({"box": box, "epoch": epoch, "seq": 1, "at": 0.0,
                       **record, **changes}).encode()


def publish_as(broker: Broker, user: str, password: str, topic: str,
               payload: bytes) -> Any:
    """One QoS 1 message as ``user`` (MQTT 5): the broker's PUBACK reason."""
    import paho.mqtt.client as mqtt
    answers: list[Any] = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"t-{user}-{time.time()}",
                         protocol=mqtt.MQTTv5)
    client.username_pw_set(user, password)
    if broker.ca is not None:
        client.tls_set(ca_certs=str(broker.ca))
    client.on_publish = lambda c, u, mid, reason, props: answers.append(reason)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1)
        assert wait_for(lambda: answers, 10)
        return answers[0]
    finally:
        client.disconnect()
        client.loop_stop()
