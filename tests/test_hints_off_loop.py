"""The solver runs off the loop (issue 20, point 3): while the hints' tables are
being made, switch edges are handled, the LEDs follow, the screen says the
hints are not ready, and the game plays on; then the hints appear."""

from __future__ import annotations

import threading

from shutbox_hw.base.events import FlapChanged
from shutbox_hw.config.config_file import load_config
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script
from shutbox_hw.skill.hints import SolverAdvisor, _solver

HINTS = '[rules]\npreset = "klappenspiel"\n[game]\nhints = "always"\n'


def test_edges_are_handled_while_a_solve_runs(tmp_path):
    gate = threading.Event()
    solving = threading.Event()
    advisors: list[SolverAdvisor] = []

    def slow_solver(rules):
        solving.set()
        assert gate.wait(30)          # the solve takes as long as the test wants
        return _solver(rules)

    def advisor_for(config):
        advisor = SolverAdvisor(config.rules, config.game.hint_objective,
                                make_solver=slow_solver)
        advisors.append(advisor)
        return advisor

    path = tmp_path / "box.toml"
    path.write_text(HINTS)
    events: list[dict] = []
    runner = SimRunner(load_config(path), tmp_path / "db", on_event=events.append,
                       advisor_for=advisor_for)
    try:
        assert solving.wait(10) and not advisors[0].ready()
        for step in parse_script("start 1\ndice 3 4\nroll\nclose 3 4\ndice 1 2\nroll\nclose 1\n",
                                 9):
            runner.run(step)
        # the loop took every flap change and the throw while the solver was busy
        assert [(e.tile, e.shut) for e in runner.sim.seen if isinstance(e, FlapChanged)] == [
            (3, True), (4, True), (1, True)]
        assert [e["closed"] for e in events if e["event"] == "throw_committed"] == [[3, 4]]
        assert not any(e["event"] in ("hint", "chances") for e in events)
        screen = runner.daemon.controller.screen()
        assert getattr(screen, "hints_pending", False)
        gate.set()
        assert advisors[0].wait_ready(30)
        runner.advance(200)                           # the loop notices within 100 ms
        assert not getattr(runner.daemon.controller.screen(), "hints_pending", False)
        for step in parse_script("close 2\ndice 6 5\nroll\n", 9):
            runner.run(step)
        assert any(e["event"] == "hint" for e in events)
    finally:
        gate.set()


def test_a_solver_that_fails_leaves_the_game_without_hints(tmp_path):
    def broken(rules):
        raise MemoryError("no room for the tables")

    path = tmp_path / "box.toml"
    path.write_text(HINTS)
    events: list[dict] = []
    runner = SimRunner(load_config(path), tmp_path / "db", on_event=events.append,
                       advisor_for=lambda c: SolverAdvisor(c.rules, make_solver=broken))
    runner.daemon.controller.advisor.wait_ready(10)
    for step in parse_script("start 1\ndice 3 4\nroll\nclose 3 4\n", 9):
        runner.run(step)
    assert [e["closed"] for e in events if e["event"] == "throw_committed"] == [[3, 4]]
    assert not any(e["event"] in ("hint", "chances") for e in events)
    assert not runner.daemon._advisor_pending     # no looking every 100 ms for ever
