"""The league's game message (issue 40, item 3): queued whole when a game ends,
in the transaction of the event that ends it, and again on a resend request.

The record is checked against the events the simulator printed while the
game was played (an independent account of the same game).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import load_script
from shutbox_hw.store.tables.game_record import (
    TOPIC,
    content,
    game_record,
    queue_resend,
    resend_request,
)

CHECKOUT = Path(__file__).resolve().parent.parent
PRACTICE = CHECKOUT / "tests" / "scripts" / "practice-001.txt"


def play(tmp_path: Path, match: str, steps_cut: int | None = None) -> tuple[Path, list[dict]]:
    path = tmp_path / "box.toml"
    path.write_text(f'[rules]\npreset = "crafthouse-12"\nmatch = "{match}"\n'
                    '[network]\nmqtt = "mqtt://127.0.0.1:9"\nbox = "pub1"\n')
    config = load_config(path)
    steps = load_script(str(PRACTICE), config.rules.tiles)
    printed: list[dict] = []
    db = tmp_path / "box.db"
    runner = SimRunner(config, db, on_event=printed.append, outbox=lambda: None)
    for step in steps[:steps_cut]:
        runner.run(step)
    runner.finish()
    return db, printed


def outbox(db: Path) -> list[tuple[int, str, str | None]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT seq, event, topic FROM outbox ORDER BY seq").fetchall()
    finally:
        con.close()


def test_a_finished_game_is_queued_whole_after_the_event_that_ended_it(tmp_path):
    db, printed = play(tmp_path, "single-round")
    rows = outbox(db)
    games = [(seq, json.loads(text)) for seq, text, topic in rows if topic == TOPIC]
    assert len(games) == 1
    seq, record = games[0]
    events = [json.loads(text) for _, text, topic in rows if topic is None]
    assert [e["event"] for e in events] == [e["event"] for e in printed]
    ended = [s for s, text, topic in rows if topic is None and '"game_ended"' in text]
    assert ended == [seq - 1]          # right after game_ended, in its transaction
    started = next(e for e in printed if e["event"] == "game_started")
    over = next(e for e in printed if e["event"] == "game_ended")
    assert record["game"] == 1 and record["state"] == "finished"
    assert [s["name"] for s in record["seats"]] == started["players"]
    assert record["rules"] == started["rules"]
    assert record["result"] == {"winners": over["winners"], "abandoned": False}
    assert len(record["rounds"]) == over["rounds"]
    # every committed throw, in order, with its dice and closure
    commits = [(e["player"], e["dice"], e["closed"]) for e in printed
               if e["event"] == "throw_committed"]
    names = [s["name"] for s in record["seats"]]
    throws = [(names[t["seat"]], th["dice"], th["closed"]) for t in record["turns"]
              for th in t["throws"] if th["closed"] is not None]
    assert throws == commits
    scores = [(e["player"], e["score"]) for e in printed if e["event"] == "turn_ended"]
    assert [(names[t["seat"]], t["score"]) for t in record["turns"]] == scores
    # the record read again says the same
    con = sqlite3.connect(db)
    assert game_record(con, 1) == record
    con.close()


def test_an_abandoned_game_is_queued_when_the_next_game_starts(tmp_path):
    # the practice game cut short: nothing ended yet, no game message
    db, _ = play(tmp_path, "single-round", steps_cut=6)
    assert [t for _, _, t in outbox(db) if t == TOPIC] == []
    con = sqlite3.connect(db)
    assert game_record(con, 1) is None       # not ended: nothing for the league
    con.close()
    # the same database, a new game played: the first is abandoned and queued with it
    _, printed = play(tmp_path, "single-round")
    games = [json.loads(text) for _, text, topic in outbox(db) if topic == TOPIC]
    assert [(g["game"], g["state"], g["result"]["abandoned"]) for g in games] == [
        (1, "abandoned", True), (2, "finished", False)]
    assert games[0]["result"]["winners"] == []


def test_a_resend_request_queues_the_games_the_record_has(tmp_path):
    db, _ = play(tmp_path, "single-round")
    con = sqlite3.connect(db, isolation_level=None)
    epoch, = con.execute("SELECT epoch FROM record").fetchone()
    first = [json.loads(t) for _, t, topic in outbox(db) if topic == TOPIC]
    assert resend_request(b"[1, 7]", epoch) == [1, 7]
    assert resend_request(json.dumps({"epoch": epoch, "games": [1]}).encode(), epoch) == [1]
    assert resend_request(json.dumps({"epoch": "0" * 16, "games": [1]}).encode(), epoch) is None
    assert resend_request(b"not json", epoch) is None
    assert resend_request(b'{"games": "1"}', epoch) is None
    assert queue_resend(con, [1, 7], 0.0) == 1          # game 7 was never played
    con.close()
    again = [json.loads(t) for _, t, topic in outbox(db) if topic == TOPIC]
    assert len(again) == 2 and content(again[1]) == content(first[0])
