"""The web process's memory and loop while it sends /export/turns.csv of a big record.

    .venv/bin/python benchmarks/web_export.py [--turns 160000] [--runs 3] [--source DIR]

Builds a database from one really played game (``sim --script
two-player-klappenspiel.txt``: its rows copied with shifted ids until the
record holds ``--turns`` turns), starts ``shutbox-hw web`` on it (from
``--source``, a folder holding a ``shutbox_hw`` package: another version, e.g.
``git archive COMMIT shutbox_hw | tar -x -C DIR``; default this checkout), and
per run: the process's peak RSS (VmHWM) before and after downloading the file,
the download's time, and the round trips of ``/health`` asked every 50 ms
while the file is sent (how long the event loop, which every TV's stream
shares, was busy). Prints JSON with the medians over the runs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(CHECKOUT / "tests"))
from loopback import free_port  # noqa: E402

# what to shift when the rows are copied: table -> its id columns
SHIFT = {"games": ("id",), "players": ("game_id",), "rounds": ("game_id",),
         "turns": ("id", "game_id"), "throws": ("id", "turn_id"),
         "rejected_flaps": ("id", "turn_id")}


def build(db: Path, turns: int) -> int:
    """A record of at least ``turns`` turns; the number of turns it holds."""
    script = CHECKOUT / "tests" / "scripts" / "two-player-klappenspiel.txt"
    subprocess.run([sys.executable, "-m", "shutbox_hw", "sim", "--db", str(db),
                    "--script", str(script)], check=True, capture_output=True, cwd=CHECKOUT)
    con = sqlite3.connect(db)
    per_game = con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    while (have := con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]) < turns:
        games = -(-min(have, turns - have) // per_game)    # the last copy: only what is missing
        offsets = {t: con.execute(f"SELECT COALESCE(MAX(id), 0) FROM {t}").fetchone()[0]
                   for t in ("games", "turns", "throws", "rejected_flaps")}
        for table, shifted in SHIFT.items():
            columns = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
            source = [f"{c} + {offsets[_owner(table, c)]}" if c in shifted else c
                      for c in columns]
            con.execute(f"INSERT INTO {table} ({', '.join(columns)}) "
                        f"SELECT {', '.join(source)} FROM {table} WHERE {WHICH[table]}",
                        (games,))
        con.commit()
    con.close()
    return int(have)

WHICH = {"games": "id <= ?", "players": "game_id <= ?", "rounds": "game_id <= ?",
         "turns": "game_id <= ?", "throws": "turn_id IN (SELECT id FROM turns WHERE game_id <= ?)",
         "rejected_flaps": "turn_id IN (SELECT id FROM turns WHERE game_id <= ?)"}


def _owner(table: str, column: str) -> str:
    """Which table's id a column holds."""
    if column == "game_id":
        return "games"
    if column == "turn_id":
        return "turns"
    return table


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def get(port: int, path: str) -> tuple[int, int]:
    """Status and bytes of the body (read in pieces, kept nowhere)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        size = 0
        while chunk := answer.read(65536):
            size += len(chunk)
        return answer.status, size
    finally:
        conn.close()


def one_run(db: Path, source: Path) -> dict[str, float]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(source)}
    proc = subprocess.Popen([sys.executable, "-m", "shutbox_hw", "web", "--db", str(db),
                             "--listen", f"127.0.0.1:{port}"], cwd=source, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):
            try:
                if get(port, "/health")[0] == 200:
                    break
            except OSError:
                time.sleep(0.1)
        assert get(port, "/live.json")[0] == 200
        idle = peak_rss_mb(proc.pid)
        trips: list[float] = []
        done = threading.Event()

        def ask() -> None:
            while not done.is_set():
                start = time.perf_counter()
                get(port, "/health")
                trips.append((time.perf_counter() - start) * 1000)
                done.wait(0.05)
        asker = threading.Thread(target=ask)
        asker.start()
        start = time.perf_counter()
        status, size = get(port, "/export/turns.csv")
        took = time.perf_counter() - start
        done.set()
        asker.join()
        assert status == 200, status
        return {"idle_peak_rss_mb": idle, "export_peak_rss_mb": peak_rss_mb(proc.pid),
                "export_s": took, "export_mb": size / 1e6,
                "health_median_ms": statistics.median(trips), "health_max_ms": max(trips)}
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=160_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--source", type=Path, default=CHECKOUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "big.db"
        turns = build(db, args.turns)
        runs = [one_run(db, args.source.resolve()) for _ in range(args.runs)]
    figures = {key: round(statistics.median(r[key] for r in runs), 1) for key in runs[0]}
    figures["export_above_idle_mb"] = round(
        statistics.median(r["export_peak_rss_mb"] - r["idle_peak_rss_mb"] for r in runs), 1)
    print(json.dumps({"turns": turns, "runs": args.runs, "source": str(args.source),
                      **figures}, indent=1))


if __name__ == "__main__":
    main()
