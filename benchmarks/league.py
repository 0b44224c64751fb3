"""The league at scale (issue 40, item 8): N boxes through pub brokers and bridges into
PostgreSQL with K ingest processes; prints one JSON object.

    .venv/bin/python benchmarks/league.py [--boxes N] [--games G] [--seconds S]
                                          [--pubs P] [--ingests K] [--capacity]

The games are copies of a real played game (``sim`` of tests/scripts/practice-001.txt,
its record as the box sends it), each box's G games spread evenly over S seconds (an
evening at speed: 1,000 boxes x 50 games over five hours at 20x is --boxes 1000
--games 50 --seconds 900). Each pub's broker takes its boxes' messages (one client per
pub, QoS 1, the box's topic) and bridges them to the central broker; K ingests share
the subscription. ``--capacity``: every game offered at once, published as fast as the
publisher goes (``--seconds`` is then not used): the offer is well over what the league
can take, so ``games_per_s`` measures the league, not the offer (``offered_games_per_s``
is then the rate the publisher reached). Each message is the bytes ``json.dumps`` gives
for it, built from a template split once (the boxes' encoding is done on the boxes, not
on the league's cores: this process checks the first against ``json.dumps``). The run
starts once every ingest has connected. Figures:

- ``games_per_s``: games committed per second, from the first publish to the last commit;
- ``latency_ms``: p50 and p99 of a game's commit time minus the time its box published
  it (the commit's time is its transaction's ``now()``: the batch's start, a few ms early);
- ``ingest_cpu_ms_per_game``: the ingests' CPU time (user + system, every thread) from
  the first publish to the last commit, over the games: the ingest's own cost, which the
  machine's other load disturbs far less than the rates;
- ``cpu_ms_per_game``: the same for every part: the ingests, PostgreSQL (its postmaster
  and children), the brokers (central and pubs, bridges included) and the publisher
  (this process: the boxes' side);
- ``ingest_peak_rss_kb``: each ingest's peak resident memory (VmHWM), and its RSS
  after the first tenth of the games (``ingest_rss_early_kb``): flat if equal-ish;
- ``limits``: measured in the same run on the same machine, after it:
  ``broker_qos1_per_s`` (one client publishing the same messages QoS 1 to the central
  broker, one subscriber acknowledging them: one hop), ``bridged_qos1_per_s`` (the same
  messages published as the games are, one client per pub to the pubs' brokers on their
  boxes' topics, bridged to the central broker, to that subscriber: the two hops and the
  bridge the games cross) and ``postgres_batched_insert_per_s`` (the same rows inserted
  BATCH per transaction over one connection);
- ``slower_limit_over_games_per_s``: the slower of the bridged and PostgreSQL limits
  over ``games_per_s``, the figure issue 40's target (at most 2) is about;
- ``exactly_once``: whether the league holds every game once at the end.

Needs Debian's postgresql (15) and mosquitto, the league extra; as root, PostgreSQL
runs as nobody (tests/league/league_parts.py).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "league")]

from league_parts import (  # noqa: E402
    PRACTICE,
    SB,
    IngestProcess,
    LeagueBroker,
    Postgres,
    bridge_lines,
)
from loopback import wait_for  # noqa: E402

from shutbox_hw.league.ingest import BATCH  # noqa: E402
from shutbox_hw.store.tables.game_record import game_record  # noqa: E402

QUEUE = 100_000   # the central broker's max_queued_messages (Mosquitto's default: 1,000)


def template() -> dict[str, Any]:
    """A real game's record, as the box sends it."""
    import sqlite3
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "box.toml"
        config.write_text('[rules]\npreset = "crafthouse-12"\nmatch = "single-round"\n')
        db = Path(folder) / "box.db"
        subprocess.run([*SB, "sim", "--config", str(config), "--db", str(db), "--script",
                        str(PRACTICE)], check=True, capture_output=True, cwd=ROOT)
        con = sqlite3.connect(db)
        record = game_record(con, 1)
        con.close()
    assert record is not None
    return record


class Encoder:
    """A box's game message as ``json.dumps`` writes it, from a template split once at
    its four fields that vary (the box, its epoch, the game id and seq, the time)."""

    MARK = "@@shutbox-bench-{}@@"

    def __init__(self, record: dict[str, Any]) -> None:
        fields = ("box", "epoch", "seq", "at", "game")
        marks = {name: self.MARK.format(name) for name in fields}
        text = json.dumps({"box": marks["box"], "epoch": marks["epoch"], "seq": marks["seq"],
                           "at": marks["at"], **record, "game": marks["game"]})
        self.parts: list[str] = []
        self.order: list[str] = []
        for name in fields:
            assert text.count(json.dumps(marks[name])) == 1, name
        rest = text
        while True:
            found = [(rest.find(json.dumps(m)), n) for n, m in marks.items()
                     if json.dumps(m) in rest]
            if not found:
                break
            at, name = min(found)
            self.parts.append(rest[:at])
            self.order.append(name)
            rest = rest[at + len(json.dumps(marks[name])):]
        self.parts.append(rest)
        self.record = record
        self.checked = False

    def __call__(self, box: str, epoch: str, game: int, at: float) -> str:
        values = {"box": json.dumps(box), "epoch": json.dumps(epoch), "seq": repr(game),
                  "game": repr(game), "at": repr(at)}
        out = [self.parts[0]]
        for name, part in zip(self.order, self.parts[1:], strict=True):
            out += [values[name], part]
        text = "".join(out)
        if not self.checked:       # the same bytes as json.dumps of the message
            assert text == json.dumps({"box": box, "epoch": epoch, "seq": game, "at": at,
                                       **self.record, "game": game})
            self.checked = True
        return text


def client(port: int, user: str, password: str, name: str) -> Any:
    import paho.mqtt.client as mqtt
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=name, protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)
    c.max_inflight_messages_set(100)
    c.max_queued_messages_set(0)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def rss(pid: int, field: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_pids(pg: Postgres) -> list[int]:
    """The cluster's postmaster and its children (the backends, the writers)."""
    master = int((pg.data / "postmaster.pid").read_text().split()[0])
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == master:
                children.append(int(stat.parent.name))
        except (OSError, ValueError):
            pass     # gone meanwhile
    return [master, *children]


def cpu_of(pids: list[int]) -> dict[int, float]:
    out = {}
    for pid in pids:
        try:
            out[pid] = cpu_s(pid)
        except OSError:
            pass     # gone meanwhile
    return out


def broker_limit(central: LeagueBroker, payloads: list[bytes],
                 senders: dict[str, LeagueBroker] | None = None,
                 boxes: dict[str, list[str]] | None = None) -> float:
    """Messages per second QoS 1 to one subscriber of the central broker (acknowledging
    each as paho does): published to the central broker itself (one hop), or, with
    ``senders``, to the pubs' brokers on their boxes' topics, one client per pub as the
    games are, and bridged (the two hops and the bridge the games cross)."""
    got = threading.Event()
    count = [0]
    sub = client(central.port, "league", "league-secret", f"bench-sub-{len(senders or ())}")

    def on_message(c: Any, u: Any, m: Any) -> None:
        count[0] += 1
        if count[0] == len(payloads):
            got.set()
    sub.on_message = on_message
    sub.subscribe("shutbox/+/game", qos=1)
    time.sleep(0.5)
    if senders is None or boxes is None:
        pubs = [client(central.port, "bench", "bench-secret", "bench-pub")]
        topics = [[f"shutbox/limit{n}/game" for n in range(50)]]
    else:
        pubs = [client(b.port, "pub", "pub-secret", f"bench-limit-{name}")
                for name, b in senders.items()]
        topics = [[f"shutbox/{box}/game" for box in boxes[name]] for name in senders]
    time.sleep(0.5)
    start = time.monotonic()
    for i, payload in enumerate(payloads):
        n = i % len(pubs)
        pubs[n].publish(topics[n][(i // len(pubs)) % len(topics[n])], payload, qos=1)
    got.wait(300)
    took = time.monotonic() - start
    for c in [*pubs, sub]:
        c.disconnect()
        c.loop_stop()
    return count[0] / took


def postgres_limit(pg: Postgres, rows: list[tuple[Any, ...]]) -> float:
    import psycopg
    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE bench_games (LIKE games INCLUDING ALL)")
        start = time.monotonic()
        for i in range(0, len(rows), BATCH):
            with conn.transaction(), conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO bench_games (box, epoch, game, state, started_at, ended_at,"
                    " seq, record, ratings) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
                    " ON CONFLICT DO NOTHING", rows[i:i + BATCH])
        took = time.monotonic() - start
        conn.execute("DROP TABLE bench_games")
    return len(rows) / took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, default=200)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pubs", type=int, default=4)
    parser.add_argument("--ingests", type=int, default=2)
    parser.add_argument("--capacity", action="store_true",
                        help="offer every game at once, as fast as the publisher goes: "
                        "the league's capacity, not the pace of an evening")
    parser.add_argument("--profile", metavar="DIR", type=Path,
                        help="sample each ingest with py-spy (pip install py-spy) into "
                        "DIR/ingest-N.txt (collapsed stacks, every thread)")
    args = parser.parse_args()
    # a SIGTERM (timeout, CI) stops the parts below as an error would
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    record = template()
    folder = Path(tempfile.mkdtemp(prefix="shutbox-league-bench-"))
    pg = Postgres()
    brokers: list[LeagueBroker] = []
    ingests: list[IngestProcess] = []
    try:
        pg.start()
        subprocess.run([*SB, "league", "migrate", "--dsn", pg.dsn], check=True,
                       capture_output=True, cwd=ROOT)
        pubs = {f"pub{p}": [f"box{b}" for b in range(args.boxes) if b % args.pubs == p]
                for p in range(args.pubs)}
        users = {"league": ("league-secret", ["topic read shutbox/+/game",
                                              "topic read shutbox/+/state",
                                              "topic write shutbox/+/resend"]),
                 "bench": ("bench-secret", ["topic write shutbox/#"])}
        for pub, boxes in pubs.items():
            users[pub] = (f"{pub}-secret", [f"topic readwrite shutbox/{b}/#" for b in boxes])
        # the ingests' queues on the central broker as docs/network/league.md advises
        central = LeagueBroker(folder / "central", users, log=False, save_each_change=False,
                               extra=f"max_queued_messages {QUEUE}\n")
        central.start()
        brokers.append(central)
        senders = {}
        for pub, boxes in pubs.items():
            # its bridge's queue too: a pub here is 250 boxes, and --capacity gives it
            # 2,500 games at once; Mosquitto's default of 1,000 queued per client (the
            # bridge is one) dropped about 100 of a pub's games in such a run (a real
            # league asks the boxes for them again; these boxes do not answer)
            broker = LeagueBroker(folder / pub, {"pub": ("pub-secret", ["topic write shutbox/#"])},
                                  bridge_lines(pub, central, f"{pub}-secret", boxes),
                                  log=False, save_each_change=False,
                                  extra=f"max_queued_messages {QUEUE}\n")
            broker.start()
            brokers.append(broker)
            senders[pub] = broker
        credentials = folder / "league.credentials"
        credentials.write_text("league:league-secret\n")
        credentials.chmod(0o600)
        for _ in range(args.ingests):
            ingests.append(IngestProcess(folder / "ingest", pg.dsn, central.url, credentials,
                                         grace_s=600))
        ready = wait_for(lambda: all("connected to" in ing.text() for ing in ingests), 120,
                         step=0.2)
        if not ready:
            raise SystemExit("the ingests did not connect within 120 s: "
                             + " | ".join(ing.text()[-300:] for ing in ingests))
        time.sleep(2)    # their subscriptions taken (a game before them would be dropped)
        spies = []
        if args.profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
            spies = [subprocess.Popen(
                [str(Path(sys.executable).parent / "py-spy"), "record", "--pid",
                 str(ing.proc.pid), "--format", "raw", "--rate", "250", "--threads", "--idle",
                 "--output", str(args.profile / f"ingest-{n}.txt")],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for n, ing in enumerate(ingests, 1)]
            time.sleep(1)
        clients = {pub: client(b.port, "pub", "pub-secret", f"bench-{pub}")
                   for pub, b in senders.items()}
        time.sleep(1)
        total = args.boxes * args.games
        # box b's game g at (g + b / boxes) * seconds / games: every box paced alike
        pace = 0.0 if args.capacity else args.seconds
        plan = sorted(((g + b / args.boxes) * pace / args.games, b, g + 1)
                      for b in range(args.boxes) for g in range(args.games))
        encode = Encoder(record)
        early: list[int] = []
        sent: dict[tuple[str, int], float] = {}
        cpu_before = [cpu_s(ing.proc.pid) for ing in ingests]
        # every part's CPU over the run: where a game's cost goes on the shared cores
        parts = {"ingests": [ing.proc.pid for ing in ingests],
                 "postgres": postgres_pids(pg),
                 "brokers": [b.proc.pid for b in brokers if b.proc is not None],
                 "publisher": [os.getpid()]}
        parts_before = {name: cpu_of(pids) for name, pids in parts.items()}
        start_wall, start = time.time(), time.monotonic()
        for i, (due, b, game) in enumerate(plan):
            delay = start + due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            at = sent[(f"box{b}", game)] = time.time()
            clients[f"pub{b % args.pubs}"].publish(f"shutbox/box{b}/game",
                                                   encode(f"box{b}", f"bench{b:012d}", game, at),
                                                   qos=1)
            if i == total // 10:
                early = [rss(ing.proc.pid) for ing in ingests]
        offered_s = time.time() - start_wall
        done = wait_for(lambda: pg.query("SELECT count(*) FROM games")[0][0] >= total,
                        args.seconds + 600, step=0.5)
        if not done:     # which are missing, by pub and by game: where they were lost
            held = {(box, game) for box, game in pg.query("SELECT box, game FROM games")}
            lost = [key for key in sent if key not in held]
            by_pub: dict[str, int] = {}
            for box, _ in lost:
                pub = f"pub{int(box[3:]) % args.pubs}"
                by_pub[pub] = by_pub.get(pub, 0) + 1
            print(json.dumps({"missing": len(lost), "by_pub": by_pub,
                              "first": sorted(lost)[:10]}), file=sys.stderr)
        cpu = sum(cpu_s(ing.proc.pid) - b for ing, b in zip(ingests, cpu_before, strict=True))
        parts["postgres"] = postgres_pids(pg)     # a backend that came since: from 0
        parts_ms = {}
        for name, pids in parts.items():
            now = cpu_of(pids)
            parts_ms[name] = round(sum(t - parts_before[name].get(pid, 0.0)
                                       for pid, t in now.items()) * 1000 / total, 3)
        commits = pg.query("SELECT box, game, extract(epoch FROM received_at) FROM games")
        last_commit = max(float(t) for _, _, t in commits)
        latencies = sorted((float(t) - sent[(box, game)]) * 1000 for box, game, t in commits)
        peak = [rss(ing.proc.pid, "VmHWM") for ing in ingests]
        count = pg.query("SELECT count(*), count(DISTINCT (box, game)) FROM games")[0]
        payloads = [json.dumps({"box": f"limit{i % 50}", **record}).encode()
                    for i in range(min(total, 20000))]
        for spy in spies:
            spy.send_signal(signal.SIGINT)
            spy.wait(30)
        for c in clients.values():
            c.disconnect()
            c.loop_stop()
        for ing in ingests:
            ing.stop()
        broker_rate = broker_limit(central, payloads)
        bridged_rate = broker_limit(central, payloads, senders, pubs)
        pg_rows = [(f"box{i % args.boxes}", "e", i, "finished", 0.0, 0.0, i,
                    json.dumps(record), "[]") for i in range(min(total, 20000))]
        pg_rate = postgres_limit(pg, pg_rows)
        games_per_s = total / (last_commit - start_wall)
        # the target's limit: the slower of the path the games take (bridged) and
        # PostgreSQL's (benchmarks/README.md says why not the one hop)
        slower = min(bridged_rate, pg_rate)
        print(json.dumps({
            "boxes": args.boxes, "games": total, "seconds": args.seconds,
            "pubs": args.pubs, "ingests": args.ingests, "all_in": done,
            "exactly_once": count == (total, total), "committed": count[0],
            "capacity": args.capacity,
            "offered_games_per_s": round(total / (offered_s if args.capacity else args.seconds),
                                         1),
            "games_per_s": round(games_per_s, 1),
            "latency_ms": {"p50": round(statistics.median(latencies), 1),
                           "p99": round(latencies[int(len(latencies) * 0.99) - 1], 1)},
            "ingest_cpu_ms_per_game": round(cpu * 1000 / total, 3),
            "cpu_ms_per_game": parts_ms,
            "ingest_rss_early_kb": early, "ingest_peak_rss_kb": peak,
            "limits": {"broker_qos1_per_s": round(broker_rate, 1),
                       "bridged_qos1_per_s": round(bridged_rate, 1),
                       "postgres_batched_insert_per_s": round(pg_rate, 1)},
            "slower_limit_over_games_per_s": round(slower / games_per_s, 2),
            "message_bytes": len(json.dumps(record)),
        }))
        return 0 if done else 1
    finally:
        for ing in ingests:
            ing.stop()
        for broker in brokers:
            broker.kill()
        pg.destroy()


if __name__ == "__main__":
    sys.exit(main())
