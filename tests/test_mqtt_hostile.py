"""A hostile broker on loopback (issue 43): ``shutbox-hw run`` (the real box's command, on
mock pins) publishing to a scripted broker that answers CONNECT, waits, then sends one
unsolicited PUBLISH declaring 150 MB and streams it. The box cuts it off when the length
is read: its memory stays where it was (its peak RSS, from /proc), it says why in the
journal, and it connects again.

Bounded: one box, at most a few connections, the waits are safety nets."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from loopback import wait_for

CHECKOUT = Path(__file__).resolve().parent.parent
HOSTILE_BYTES = 150 * 1024 * 1024
CHUNK = 1024 * 1024


def _remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (128 if n else 0))
        if not n:
            return bytes(out)


def _read_packet(conn: socket.socket) -> bytes:
    """One MQTT packet (the fixed header's type byte, then its body)."""
    kind = conn.recv(1)
    length, mult = 0, 1
    while True:
        byte = conn.recv(1)[0]
        length += (byte & 127) * mult
        mult *= 128
        if not byte & 128:
            break
    body = b""
    while len(body) < length:
        chunk = conn.recv(length - len(body))
        if not chunk:
            raise ConnectionError("cut short")
        body += chunk
    return kind + body


class HostileBroker:
    """Accepts the box, answers its CONNECT (in its protocol's version), says nothing
    for ``quiet_s`` (the box's memory is measured then), then sends a PUBLISH that
    declares :data:`HOSTILE_BYTES` and streams it until the box hangs up."""

    def __init__(self, quiet_s: float = 3.0) -> None:
        self.quiet_s = quiet_s
        self.v311_only = False             # answer MQTT 5 with "unsupported protocol version"
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.sent: list[int] = []          # bytes of the hostile packet each connection took
        self.connect_packets: list[bytes] = []
        self.quiet = threading.Event()     # the first connection is accepted and quiet
        self.attacking = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(0.2)
        while not self.stop.is_set() and self.connections < 6:
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            with conn:
                try:
                    self._attack(conn)
                except OSError:
                    pass

    def _attack(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        connect = _read_packet(conn)
        self.connect_packets.append(connect)
        v5 = connect[7] == 5              # protocol name "MQTT" (2 + 4 bytes), then its level
        if v5 and self.v311_only:         # "unsupported protocol version": the box says 3.1.1
            conn.sendall(b"\x20\x03\x00\x84\x00")
            return
        conn.sendall(b"\x20\x03\x00\x00\x00" if v5 else b"\x20\x02\x00\x00")
        if self.stop.wait(self.quiet_s if not self.quiet.is_set() else 0.5):
            return
        self.quiet.set()
        self.attacking.wait(30)
        topic = b"shutbox/anything"
        head = b"\x30" + _remaining_length(HOSTILE_BYTES) + len(topic).to_bytes(2, "big") + topic
        conn.sendall(head)
        sent, zeros = 0, bytes(CHUNK)
        self.sent.append(0)
        while sent < HOSTILE_BYTES - len(topic) - 2 and not self.stop.is_set():
            sent += conn.send(zeros)          # a box that hung up: an OSError ends this
            self.sent[-1] = sent

    def close(self) -> None:
        self.stop.set()
        self.thread.join(15)
        self.listener.close()


def _status(pid: int, field: str) -> int:
    """A /proc/<pid>/status figure in kB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


@pytest.fixture
def hostile():
    pytest.importorskip("paho.mqtt.client", reason="paho-mqtt (the mqtt extra) is not installed")
    if not Path("/proc/self/status").exists():
        pytest.skip("no /proc here to read the box's memory from")
    broker = HostileBroker()
    yield broker
    broker.close()


@pytest.mark.process    # the box's own memory, from /proc/PID
@pytest.mark.parametrize("version", ["5", "3.1.1"])
def test_a_150_mb_packet_from_the_broker_leaves_the_box_s_memory_where_it_was(
        tmp_path, hostile, version):
    config = tmp_path / "box.toml"
    config.write_text(f'[hardware.display]\ndriver = "none"\n[storage]\ndb = "{tmp_path}/box.db"\n'
                      f'[network]\nmqtt = "mqtt://127.0.0.1:{hostile.port}"\nbox = "pub1"\n')
    hostile.v311_only = version == "3.1.1"
    box = subprocess.Popen([sys.executable, "-m", "shutbox_hw.cli", "run", "--config",
                            str(config), "--pin-factory", "mock", "--for-seconds", "40"],
                           cwd=CHECKOUT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        assert hostile.quiet.wait(30), "the box did not connect"
        before = _status(box.pid, "VmRSS")
        hostile.attacking.set()
        attacked = hostile.connections
        assert wait_for(lambda: hostile.sent and hostile.connections > attacked, 30), \
            "the box did not connect again after the packet"
        peak = _status(box.pid, "VmHWM")
        assert box.poll() is None, "the box stopped"
    finally:
        box.terminate()
        out, err = box.communicate(timeout=30)
    print(f"RSS before {before} kB, peak after {peak} kB; the broker sent {hostile.sent[0]} "
          f"bytes of the packet's {HOSTILE_BYTES}")
    assert peak - before < 20 * 1024, (before, peak)          # 150 MB would be 150000 kB
    assert hostile.sent[0] < HOSTILE_BYTES // 4               # cut off, not read whole
    assert "a packet of" in err and "Traceback" not in err, err
    if version == "5":    # the box said its limit in the CONNECT (property 0x27, 4096)
        assert b"\x27\x00\x00\x10\x00" in hostile.connect_packets[0]
