"""What the box on the network costs: the outbox and publisher per step, the web process idle.

    .venv/bin/python benchmarks/network.py [--steps N] [--idle SECONDS]

1. A step's durable write (on a tmpfs by default: the disk's fsync, the
   same with or without the outbox, would drown the difference in noise) (``Store.record_all`` of a throw: Rolled +
   ThrowCommitted) without the outbox, with the outbox (the same transaction
   also queues both events, then wakes the publisher), and with the outbox
   while the publisher thread is busy sending to a real Mosquitto (its
   thread competes for the GIL and the disk). Medians; the difference is the
   publisher's cost per step on the box's loop.
2. ``shutbox-hw web``: CPU share and RSS idle (no client), and with one TV on
   the live stream; the delay from a commit to the stream's next summary.
3. A day's backlog: how long 10,000 queued events take to reach the broker.

Needs the mqtt and web extras, and Debian's mosquitto for 1 and 3 (skipped
with a note without it).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from mqtt_broker import MOSQUITTO, Broker, Consumer  # noqa: E402
from web_server import WebServer  # noqa: E402

from shutbox_hw.config.network import NetworkConfig  # noqa: E402
from shutbox_hw.game.model.events import GameStarted, Rolled, ThrowCommitted, TurnStarted  # noqa: E402
from shutbox_hw.rules import build_rules  # noqa: E402
from shutbox_hw.store import Store  # noqa: E402
from shutbox_hw.store.tables.outbox import queue  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def step_times(db: Path, steps: int, outbox=None) -> list[float]:
    store = Store(db)
    store.outbox = outbox
    store.record(GameStarted(players=("P1",), rules=build_rules("klappenspiel").as_dict(),
                             dice="software"))
    store.record(TurnStarted(seat=0, player="P1", round=1))
    times = []
    for throw in range(1, steps + 1):
        events = [Rolled(seat=0, player="P1", dice=(3, 4), round=1, throw=throw),
                  ThrowCommitted(seat=0, player="P1", dice=(3, 4), closed=(7,), open=(1,),
                                 round=1, throw=throw)]
        start = time.perf_counter()
        store.record_all(events)
        times.append(time.perf_counter() - start)
        time.sleep(0.002)   # a player is slower than this: the publisher gets its turn
    store.close()
    return times


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.2f} ms"


def p90(values: list[float]) -> str:
    return f"{sorted(values)[int(len(values) * 0.9)] * 1000:.2f} ms"


def publisher_cost(tmp: Path, steps: int, rounds: int = 3) -> None:
    """The three kinds of step write, interleaved round by round (a busy disk or CPU
    then weighs on all three alike)."""
    if MOSQUITTO is None:
        print("publisher against a broker: SKIPPED (Debian's mosquitto is not installed)")
        return
    from shutbox_hw.network.publisher import Publisher
    broker = Broker(tmp / "broker")
    broker.start()
    consumer = Consumer(broker)
    times: dict[str, list[float]] = {"plain": [], "queued": [], "sending": []}
    try:
        for n in range(rounds):
            times["plain"] += step_times(tmp / f"plain{n}.db", steps // rounds)
            times["queued"] += step_times(tmp / f"queued{n}.db", steps // rounds,
                                          outbox=lambda: None)
            db = tmp / f"live{n}.db"
            Store(db).close()
            publisher = Publisher(db, NetworkConfig(mqtt=broker.url, box="bench")).start()
            times["sending"] += step_times(db, steps // rounds, outbox=publisher.wake)
            left = publisher.stop(drain_s=30)
            assert left == 0, left
        base = statistics.median(times["plain"])
        for key, text in (("plain", "no outbox"), ("queued", "outbox (queue + wake, no thread)"),
                          ("sending", "outbox + publisher sending to the broker")):
            extra = statistics.median(times[key]) - base
            print(f"step write (2 events), {text}: median {ms(times[key])}"
                  + ("" if key == "plain" else f" ({extra * 1000:+.2f} ms)")
                  + f", 90th percentile {p90(times[key])}")
        print(f"  ({len(times['plain'])} steps each, {rounds} interleaved rounds; "
              f"{len(consumer.events())} messages reached the broker)")
        backlog(tmp, broker, consumer)
    finally:
        consumer.close()
        broker.kill()


class _Event:
    def __init__(self, n: int) -> None:
        self.n = n

    def as_json(self) -> dict:
        return {"event": "rolled", "player": "P1", "dice": [3, 4], "round": 1, "throw": self.n}


def backlog(tmp: Path, broker: Broker, consumer: Consumer, count: int = 10_000) -> None:
    from shutbox_hw.network.publisher import Publisher
    db = tmp / "backlog.db"
    store = Store(db)
    assert store.db is not None
    with store.db:
        queue(store.db, [_Event(i) for i in range(count)], 1.0)
    store.close()
    before = len(consumer.events())
    start = time.monotonic()
    publisher = Publisher(db, NetworkConfig(mqtt=broker.url, box="backlog")).start()
    consumer.wait(lambda: len(consumer.events()) - before >= count, 600)
    took = time.monotonic() - start
    publisher.stop()
    print(f"backlog: {count} queued events at the broker in {took:.1f} s "
          f"({count / took:.0f} a second)")


def cpu_rss(pid: int) -> tuple[float, int]:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text()
               .splitlines() if line.startswith("VmRSS:"))
    return cpu, rss


def web_idle(tmp: Path, idle_s: float) -> None:
    db = tmp / "web.db"
    out = subprocess.run([sys.executable, "-m", "shutbox_hw", "sim", "--db", str(db),
                          "--rules", "crafthouse-12", "--script",
                          str(Path(__file__).parent.parent / "tests/scripts/practice-001.txt")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    server = WebServer(db)
    try:
        for name, client in (("no client", False), ("one TV on the live stream", True)):
            sock = None
            if client:
                sock = socket.create_connection(("127.0.0.1", server.port))
                sock.sendall(b"GET /live/stream HTTP/1.1\r\nHost: x\r\n\r\n")
                sock.recv(65536)
            time.sleep(1)
            cpu0, _ = cpu_rss(server.proc.pid)
            t0 = time.monotonic()
            time.sleep(idle_s)
            cpu1, rss = cpu_rss(server.proc.pid)
            share = (cpu1 - cpu0) / (time.monotonic() - t0) * 100
            print(f"web idle, {name}: CPU {share:.2f} % over {idle_s:.0f} s, RSS {rss / 1024:.1f} MB")
            if sock is not None:
                sock.close()
        latency(server, db)
    finally:
        server.stop()


def latency(server: WebServer, db: Path, rounds: int = 20) -> None:
    """Commit to the stream's next summary (the TV is at most this far behind the box)."""
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(b"GET /live/stream HTTP/1.1\r\nHost: x\r\n\r\n")
    reader = sock.makefile("rb")
    got = threading.Event()

    def listen() -> None:
        for raw in reader:
            if raw.startswith(b"data: "):
                got.set()
    threading.Thread(target=listen, daemon=True).start()
    got.wait(5)
    store = Store(db)
    delays = []
    for n in range(rounds):
        got.clear()
        start = time.monotonic()
        store.record_all([TurnStarted(seat=0, player="P1", round=100 + n)])
        got.wait(5)
        delays.append(time.monotonic() - start)
        time.sleep(0.1)
    store.close()
    sock.close()
    print(f"live stream: commit to summary median {ms(delays)}, "
          f"max {max(delays) * 1000:.0f} ms ({rounds} commits)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--idle", type=float, default=20.0)
    parser.add_argument("--dir", default="/dev/shm" if Path("/dev/shm").is_dir() else None,
                        help="where the databases go (default /dev/shm: a tmpfs, where "
                             "fsync costs nothing, so the figures are the CPU's alone)")
    args = parser.parse_args()
    print(f"databases in {args.dir or tempfile.gettempdir()}")
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        tmp = Path(folder)
        publisher_cost(tmp, args.steps)
        web_idle(tmp, args.idle)


if __name__ == "__main__":
    main()
