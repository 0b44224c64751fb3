"""Lights first (issue 20, point 4): a flap edge changes its LED before the
step's durable write, and the write still comes before the screen that says
what was taken; the audit counts ride in the step's own transaction."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

MCP_BUILD = Path(__file__).parent.parent / "hardware" / "mcp23017-12" / "shutbox.toml"


def traced(runner):
    """The order in which one daemon step lights, writes and shows."""
    order: list[str] = []
    box, store = runner.daemon.box, runner.daemon.store
    show_lights, record, show = box.indicators.show, store.record_all, box.display.show

    def lights(leds, now):
        order.append("lights")
        return show_lights(leds, now)

    def write(events, tally=None, happened=None):
        events = list(events)
        order.append("write " + ",".join(e.name for e in events))
        return record(events, tally, happened)

    def screen(image, now, activity=True):
        order.append("screen")
        return show(image, now, activity)

    box.indicators.show, store.record_all, box.display.show = lights, write, screen
    return order


def run(runner, text, tiles=12):
    for step in parse_script(text, tiles):
        runner.run(step)


def test_a_flap_edge_lights_before_the_write_and_the_write_comes_before_the_screen(tmp_path):
    runner = SimRunner(load_config(MCP_BUILD), tmp_path / "db")
    run(runner, "start 1\ndice 3 4\nroll\n")
    order = traced(runner)
    run(runner, "close 8\n")                   # 8 does not fit 3+4: rejected, blinks, red
    first_write = next(i for i, o in enumerate(order) if o.startswith("write flap_rejected"))
    assert "lights" in order[:first_write]
    assert "screen" in order[first_write:] and "screen" not in order[:first_write]
    assert runner.sim.lamp_states().red
    order.clear()
    run(runner, "open 8\nclose 3 4\n")         # the closure is taken
    taken = next(i for i, o in enumerate(order) if "throw_committed" in o)
    assert "screen" in order[taken:]
    before = order[:taken]
    assert before.count("screen") < order.count("screen")


def test_the_audit_counts_ride_only_in_the_transaction_of_a_turns_end(tmp_path):
    """A throw's commit carries no page of counts (issue 38: fewer writes to the
    card); the step that ends the turn carries them all, in its one transaction."""
    db = tmp_path / "db"
    runner = SimRunner(load_config(MCP_BUILD), db)
    run(runner, "start 1\ndice 3 4\nroll\n")
    statements: list[str] = []
    runner.daemon.store.db.set_trace_callback(statements.append)
    run(runner, "close 3 4\n")
    assert any(s.startswith("UPDATE throws") for s in statements)   # the throw taken
    assert not any("counters" in s for s in statements)
    assert runner.daemon.tally.pending["switch:flap 3"] == 1
    run(runner, "dice 1 1\nroll\nclose 2\ndice 1 1\n")
    statements.clear()
    run(runner, "roll\n")                        # 1+1 with 2 shut: the turn ends
    # the step's one transaction holds the turn's end and the counts of the flaps;
    # no key of the counts commits on its own (autocommit: one sync each)
    kinds = [s.split()[0] + (" counters" if "counters" in s else "") for s in statements
             if s.split()[0] in ("BEGIN", "COMMIT", "INSERT", "UPDATE")]
    assert kinds.count("BEGIN") == 1 and kinds.count("COMMIT") == 1
    begin, commit = kinds.index("BEGIN"), kinds.index("COMMIT")
    assert "INSERT counters" in kinds[begin:commit]
    assert "INSERT counters" not in kinds[commit:]
    counts = dict(sqlite3.connect(db).execute("SELECT key, count FROM counters"))
    assert [counts.get(f"switch:flap {t}") for t in (2, 3, 4)] == [1, 1, 1]
    assert not runner.daemon.tally.pending


def test_counts_that_the_disk_refused_stay_pending_and_are_not_doubled(tmp_path):
    db = tmp_path / "db"
    runner = SimRunner(load_config(MCP_BUILD), db)
    run(runner, "start 1\ndice 3 4\nroll\nclose 3 4\ndice 1 1\nroll\nclose 2\ndice 1 1\n"
                "disk-full\nroll\n")
    assert runner.daemon.tally.pending["switch:flap 3"] == 1
    run(runner, "disk-ok\nwait 2\n")
    counts = dict(sqlite3.connect(db).execute("SELECT key, count FROM counters"))
    assert [counts.get(f"switch:flap {t}") for t in (2, 3, 4)] == [1, 1, 1]
    assert not runner.daemon.tally.pending


def test_a_cut_between_the_lights_and_the_write_restarts_on_the_flaps_as_they_are(tmp_path):
    """The LEDs showed a shut flap whose step never reached the disk: the new box
    reads the flaps, and the game goes on as if there had been no cut."""
    from shutbox_hw.sim.parts.disk import PowerCut

    script = "start 1\ndice 3 4\nroll\nclose 3 4\ndice 2 5\nroll\nclose 7\ndice 1 1\nroll\n"

    def played(cut: bool, name: str) -> list[dict]:
        events: list[dict] = []
        runner = SimRunner(load_config(MCP_BUILD), tmp_path / name, on_event=events.append)
        steps = parse_script(script, 12)
        for step in steps[:3]:
            runner.run(step)
        if cut:
            store = runner.daemon.store
            real = store._check_write

            def cut_before_commit():     # the step's lights are set, its commit not made
                store._check_write = real
                raise PowerCut()
            store._check_write = cut_before_commit
        for step in steps[3:]:
            runner.run(step)
        if cut:
            assert runner.power_cuts == 1
            assert any(e["event"] == "resumed" for e in events)
        return [e for e in events if e["event"] in ("throw_committed", "turn_ended")]

    assert played(True, "cut.db") == played(False, "plain.db")
