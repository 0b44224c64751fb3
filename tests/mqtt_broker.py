"""A real Mosquitto for the tests: Debian's ``mosquitto`` on a free loopback port,
with its own config and persistence in a temporary folder; and a consumer that
records every message and drops duplicates by ``seq`` as a real one would."""

from __future__ import annotations

import functools
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from loopback import free_port, wait_for

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto"
                                          if Path("/usr/sbin/mosquitto").exists() else None)


def need_broker() -> None:
    if MOSQUITTO is None:
        pytest.skip("Debian's mosquitto is not installed (.ci/run installs it where it can)")
    pytest.importorskip("paho.mqtt.client", reason="paho-mqtt (the mqtt extra) is not installed")


class Broker:
    """One mosquitto process; kill() and start() again on the same port and folder."""

    def __init__(self, folder: Path, secure: bool = False, *, passwords: bool = False,
                 acl: str | None = None) -> None:
        """``secure``: TLS with a CA of its own (``ca`` the file) and one user,
        ``user``/``password`` (anonymous clients refused). ``passwords``: the
        same user on plain TCP. ``acl``: Mosquitto's ``acl_file`` text (for
        anonymous clients write its lines before any ``user`` line)."""
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        self.ca: Path | None = None
        self.user, self.password = "box", "pa:ss w0rd"
        self.anonymous = not (secure or passwords)
        extra = ""
        if secure:
            self.ca = _certificates(folder)
            extra = (f"cafile {self.ca}\ncertfile {folder / 'server.pem'}\n"
                     f"keyfile {folder / 'server.key'}\n")
        if secure or passwords:
            subprocess.run(["mosquitto_passwd", "-c", "-b", str(folder / "passwd"), self.user,
                            self.password], check=True, capture_output=True)
            extra += f"password_file {folder / 'passwd'}\n"
        if acl is not None:
            (folder / "acl").write_text(acl)
            extra += f"acl_file {folder / 'acl'}\n"
        # persistence saved at every change: a subscriber's session survives a SIGKILL
        (folder / "mosquitto.conf").write_text(
            # as root mosquitto would drop to the user "mosquitto", who cannot write here
            f"user {pwd.getpwuid(os.getuid()).pw_name}\n"
            f"listener {self.port} 127.0.0.1\n{extra}"
            f"allow_anonymous {'true' if self.anonymous else 'false'}\n"
            f"persistence true\npersistence_location {folder}/\n"
            "autosave_interval 1\nautosave_on_changes true\nlog_dest stderr\n")

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.ca else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self) -> None:
        assert MOSQUITTO is not None
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.folder / "mosquitto.conf")],
                                     stdout=subprocess.DEVNULL,
                                     stderr=open(self.folder / "log.txt", "ab"))
        end = time.monotonic() + 10
        while time.monotonic() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError((self.folder / "log.txt").read_text()[-500:]) from None
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start listening")

    def log(self) -> str:
        """The broker's log's end (for a failing test's message)."""
        return (self.folder / "log.txt").read_text(errors="replace")[-1500:]

    def stop(self) -> None:
        """SIGTERM: a clean stop (clients see their connection closed)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None


def _certificates(folder: Path) -> Path:
    """A CA and a server certificate for 127.0.0.1 signed by it (openssl); the CA's file.
    Made once per process (two RSA keys cost a second of CPU; each broker of a test
    has its own folder, with its own copy of them)."""
    made = _made_certificates()
    for made_file in made.iterdir():
        shutil.copy2(made_file, folder / made_file.name)
    return folder / "ca.pem"


@functools.cache
def _made_certificates() -> Path:
    scratch = tempfile.TemporaryDirectory(prefix="shutbox-test-ca-")
    _KEEP.append(scratch)          # removed when the process ends
    folder = Path(scratch.name)

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
            "ca.pem", "-days", "2", "-subj", "/CN=shutbox test CA")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
            "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext")
    return folder


_KEEP: list[tempfile.TemporaryDirectory[str]] = []


class Consumer:
    """Subscribes to everything (QoS 1, a persistent session) and keeps every message."""

    def __init__(self, broker: Broker, topic: str = "#") -> None:
        import paho.mqtt.client as mqtt
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self._events: list[dict[str, Any]] = []    # the event messages parsed so far
        self._parsed = 0                           # ... up to this many messages
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-consumer",
                                  clean_session=False)
        self.client.reconnect_delay_set(0.1, 0.5)
        if broker.ca is not None:
            self.client.tls_set(ca_certs=str(broker.ca))
        if not broker.anonymous:
            self.client.username_pw_set(broker.user, broker.password)
        self.client.on_connect = lambda c, u, f, r, p: c.subscribe(topic, qos=1)
        self.client.on_message = self._got
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()
        self.wait(lambda: self.client.is_connected(), 10)

    def _got(self, client: Any, userdata: Any, message: Any) -> None:
        with self.lock:
            self.messages.append((message.topic, message.payload, bool(message.retain)))

    def close(self) -> None:
        # disconnect first: it wakes the network thread, which then ends at once;
        # loop_stop() first would wait out the thread's 1 s select (1 s per test)
        self.client.disconnect()
        self.client.loop_stop()

    def on(self, suffix: str) -> list[bytes]:
        with self.lock:
            return [p for t, p, _ in self.messages if t.endswith(suffix)]

    def events(self) -> list[dict[str, Any]]:
        """Every event message as received (duplicates included). Each is parsed once:
        a test polling for 10,000 events (every 20 ms) would otherwise parse them all at
        each poll, holding the lock the network thread needs and taking the CPU from
        the publisher."""
        with self.lock:
            new, self._parsed = self.messages[self._parsed:], len(self.messages)
        self._events.extend(json.loads(p) for t, p, _ in new if t.endswith("/event"))
        return list(self._events)

    def wait(self, condition: Any, seconds: float) -> bool:
        return wait_for(condition, seconds)


def dedup(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a consumer keeps: per box, a message whose seq it has seen is dropped
    (the publisher resends from the oldest unacknowledged, so seen = at most the last)."""
    last: dict[str, int] = {}
    kept = []
    for m in messages:
        if m["seq"] > last.get(m["box"], 0):
            last[m["box"]] = m["seq"]
            kept.append(m)
    return kept


def bare(message: dict[str, Any]) -> dict[str, Any]:
    """The event as the simulator prints it (without box, epoch, seq and time)."""
    return {k: v for k, v in message.items() if k not in ("box", "epoch", "seq", "at")}


class Mqtt311Only:
    """A broker that speaks only MQTT 3.1.1 (as Mosquitto before 1.6 did): a CONNECT
    of protocol level 5 is answered ``CONNACK`` return code 1 ("unacceptable
    protocol version") and closed; any other connection is passed on to the real
    ``broker`` byte for byte. ``v5_refused`` counts the refusals."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self.port = free_port()
        self.v5_refused = 0
        self._server = socket.create_server(("127.0.0.1", self.port))
        self._server.settimeout(0.2)
        self._closing = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closing:
            try:
                conn, _ = self._server.accept()
            except OSError:
                continue
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(10)
            first = _read_packet(conn)
            # CONNECT: fixed header, remaining length, "\0\4MQTT", protocol level
            body = first[1 + _length_bytes(first):]
            if body[:6] == b"\x00\x04MQTT" and body[6] == 5:
                self.v5_refused += 1
                conn.sendall(b"\x20\x02\x00\x01")
                conn.close()
                return
            upstream = socket.create_connection(("127.0.0.1", self.broker.port), 5)
            upstream.sendall(first)
            for a, b in ((conn, upstream), (upstream, conn)):
                threading.Thread(target=_pipe, args=(a, b), daemon=True).start()
        except OSError:
            conn.close()

    def close(self) -> None:
        self._closing = True
        self._server.close()


def _read_packet(conn: socket.socket) -> bytes:
    data = b""
    while len(data) < 2 or (data[-1] & 0x80 and len(data) < 5):
        chunk = conn.recv(1)
        if not chunk:
            raise OSError("closed")
        data += chunk
    length, shift = 0, 0
    for byte in data[1:]:
        length |= (byte & 0x7F) << shift
        shift += 7
    while len(data) < 1 + _length_bytes(data) + length:
        chunk = conn.recv(4096)
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


def _length_bytes(packet: bytes) -> int:
    n = 1
    while packet[n] & 0x80:
        n += 1
    return n


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
