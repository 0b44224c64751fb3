"""The link the MQTT publisher and its sessions share (network/link.py), on its own:
how it stands after a refused event, a broker away, a session's end; no broker."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator

import pytest

from shutbox_hw.config.network import NetworkConfig
from shutbox_hw.network.link import Ending, Link
from shutbox_hw.network.publisher import topics
from shutbox_hw.network.session import Session


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    os.set_blocking(read, False)
    yield read, write
    os.close(read)
    os.close(write)


def _link(pipe: tuple[int, int], *, grace_s: float = 60.0, woken: list[int] | None = None,
          stop: threading.Event | None = None) -> Link:
    return Link(None, NetworkConfig(mqtt="mqtt://localhost", box="pub1"), "shutbox-pub1-x",
                topics("pub1"), wake_fd=pipe[0], stop=stop or threading.Event(),
                clock=lambda: 50.0, grace_s=grace_s, refresh_s=60.0,
                wake_box=None if woken is None else (lambda: woken.append(1)))


def test_a_refused_event_is_a_fault_until_the_broker_takes_it(pipe):
    woken: list[int] = []
    link = _link(pipe, woken=woken)
    link.was_refused(7, "not authorized")
    assert link.health.fault == link.problem
    assert link.problem == ("the broker refused event 7 on shutbox/pub1/event "
                            "(not authorized): it stays in the outbox")
    link.working()                  # other rounds went through: still refused
    link.acknowledged([5, 6])       # rows before it taken: still refused
    assert link.health.fault is not None and link.refused == 1 and link.sent == 2
    link.acknowledged([7, 8])
    assert link.health.fault is None and link.sent == 4
    assert [(r.ok, r.message) for r in link.health.take(0)] == [
        (False, link.problem), (True, "sending again")]
    assert woken == [1, 1]          # the box's loop woken for the fault and its end


def test_a_broker_away_is_a_fault_only_past_the_grace(pipe):
    away = _link(pipe, grace_s=3600.0)
    away.unreachable("cannot reach localhost:1883: refused")
    assert away.problem == "cannot reach localhost:1883: refused" and away.health.fault is None
    gone = _link(pipe, grace_s=0.0)
    gone.unreachable("cannot reach localhost:1883: refused")
    assert gone.health.fault == "cannot reach localhost:1883: refused"
    gone.connected()                # back: the problem is over, the fault once a round goes
    assert gone.problem is None and gone.attempt == 0 and gone.health.fault is not None
    gone.working()
    assert gone.health.fault is None


def test_the_thread_s_signals_reach_a_session_through_the_link(pipe):
    stop = threading.Event()
    link = _link(pipe, stop=stop)
    os.write(pipe[1], b"\0\0\0")
    link.drain_pipe()
    with pytest.raises(BlockingIOError):
        os.read(pipe[0], 1)         # drained
    assert not link.stopping()
    stop.set()
    assert link.stopping() and link.wake_fd == pipe[0] and link.now() == 50.0


def test_a_session_that_never_connected_ends_with_nothing_to_act_on(pipe, tmp_path):
    db = sqlite3.connect(tmp_path / "box.db")
    try:
        assert Session(_link(pipe), db).close() == Ending(
            accepted=False, refused=None, too_big=None, downgrade=False)
    finally:
        db.close()


def test_the_state_s_faults_follow_the_events_sent_and_the_link_s_own(pipe):
    link = _link(pipe, grace_s=0.0)
    link.note_event('{"event":"fault","device":"MCP23017 0x20","detail":"gone"}')
    link.note_event('{"event":"fault","device":"display","detail":"no answer"}')
    link.note_event('{"event":"recovered","device":"display"}')
    link.note_event('{"event":"fault"')          # not JSON: ignored
    assert link.faults == {"MCP23017 0x20": "gone"}
    link.unreachable("away")
    summary = {"playing": False, "tonight": {"games": 0, "best": None}}
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE games (id INTEGER, ended_at REAL)")
    try:
        state = link.state(db, lambda db, now: summary, lambda db: {"waiting": 0})
    finally:
        db.close()
    assert state is not None and state["state"] == "fault"
    assert state["faults"] == [{"device": "MCP23017 0x20", "detail": "gone"},
                               {"device": "mqtt", "detail": "away"}]
    assert state["fault_parts"] == "MCP23017 0x20, mqtt" and state["box"] == "pub1"
