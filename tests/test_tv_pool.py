"""Issue 42, item 2: the TV says what the box says. A pub pool night played on
the simulated box (the real daemon, a real database): at every throw the pot and
the balance the OLED shows equal ``/live.json``'s (the TV's and Home Assistant's
source); after the players stop and settle, the OLED's result, ``/live.json``'s
last result, ``history --game`` and the TV's drawn text give the same signed
balances and winner. Every figure is also worked out here, independently, from
the scores the script plays. And the odd coin at settle-up (docs/play/pools.md)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from tv_page import chromium, draw, open_page, text

from shutbox_hw.commands.cli import main
from shutbox_hw.config.config_file import load_config
from shutbox_hw.game.display.screens import PlayScreen, ResultScreen
from shutbox_hw.network.live import live
from shutbox_hw.rules import build_rules, finish_round, mask_of, new_match, settle_pot, stop_match
from shutbox_hw.sim.runner import SimRunner
from shutbox_hw.sim.script import parse_script

# a turn as the script plays it: its throws and closes, the flaps it leaves open
# (what the turn scores), then every flap it shut lifted for the next player
TURNS = {
    3: ("6 6:3 9", "6 6:4 8", "6 6:5 7", "3 3:6", "6 6:"),        # leaves 1, 2
    6: ("6 6:4 8", "6 6:5 7", "5 4:9", "3 3:6", "6 6:"),          # leaves 1, 2, 3
    10: ("6 6:5 7", "5 4:9", "4 4:8", "3 3:6", "6 6:"),           # leaves 1-4
}
LEFT_OPEN = {3: {1, 2}, 6: {1, 2, 3}, 10: {1, 2, 3, 4}}
PLAYERS = ("P1", "P2", "P3")
ROUNDS = ((3, 6, 10), (3, 10, 3))    # round 2: P1 and P3 tie, 3 coins for 2: 1 stays
STAKE = 1


def turn_script(score: int) -> str:
    lines = []
    for throw in TURNS[score]:
        dice, close = throw.split(":")
        lines += [f"dice {dice}", "roll"] + ([f"close {close}"] if close else [])
    lines.append("open " + " ".join(str(t) for t in range(1, 10) if t not in LEFT_OPEN[score]))
    return "\n".join(lines) + "\n"


def by_hand() -> tuple[list[int], list[list[int]], list[int]]:
    """The pool worked out from the scores alone: the pot each round is played for,
    the balances after each round, and the balances once settled (the coins left
    go one at a time to the last round's winners, first seat first)."""
    balances, pot, pots, after = [0] * len(PLAYERS), 0, [], []
    winners: list[int] = []
    for scores in ROUNDS:
        pot += STAKE * len(PLAYERS)
        pots.append(pot)
        balances = [b - STAKE for b in balances]
        winners = [p for p, s in enumerate(scores) if s == min(scores)]
        for p in winners:
            balances[p] += pot // len(winners)
        pot %= len(winners)
        after.append(list(balances))
    settled = list(balances)
    for i in range(pot):
        settled[winners[i % len(winners)]] += 1
    return pots, after, settled


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


@pytest.fixture(scope="module")
def night(tmp_path_factory) -> dict[str, Any]:
    """The pool night played; what the OLED and /live.json showed at each throw."""
    db = tmp_path_factory.mktemp("pool") / "box.db"
    script = "start 3\n" + "".join(turn_script(s) for scores in ROUNDS for s in scores)
    script += "hold-next\nroll\n"             # "Stop and settle?": yes
    runner = SimRunner(load_config(preset="pub"), db)
    seen = []
    for step in parse_script(script, 9):
        runner.run(step)                      # at once: the OLED keeps up with the play
        screen = runner.sim.view.screen       # the screen the box last sent the display
        summary = live(runner.daemon.store.db, time.time())
        if isinstance(screen, PlayScreen) and screen.dice is not None and summary["playing"] \
                and screen.prompt != "no move":       # (a step of the last turn's end)
            seen.append((screen, summary))
    runner.finish()                           # the script's end: the steps left are seen
    result = runner.sim.view.screen
    summary = live(runner.daemon.store.db, time.time())
    runner.daemon.store.close()
    return {"db": db, "seen": seen, "result": result, "live": summary}


def test_the_pot_and_balance_at_every_throw_are_the_oled_s(night):
    pots, after, _ = by_hand()
    assert len(night["seen"]) >= 10
    rounds_seen = set()
    for screen, summary in night["seen"]:
        rnd = summary["round"]
        rounds_seen.add(rnd)
        want_balances = [0] * 3 if rnd == 1 else after[rnd - 2]
        players = summary["players"]
        assert summary["pot"] == pots[rnd - 1] == screen.pot, (rnd, summary["pot"], screen.pot)
        assert [p["balance"] for p in players] == want_balances
        me = next(p for p in players if p["name"] == summary["player"])
        assert screen.player == summary["player"] and screen.balance == me["balance"]
    assert rounds_seen == {1, 2}      # round 1's pot too (the TV showed none there)


def test_the_settled_result_is_the_same_on_the_oled_the_tv_and_in_history(night, capsys):
    _, after, settled = by_hand()
    assert sum(after[-1]) == -1 and sum(settled) == 0     # the coin the tie left is paid
    want = dict(zip(PLAYERS, settled, strict=True))
    result = night["result"]
    assert isinstance(result, ResultScreen) and result.winners == ("P1",)
    assert {r.name: r.balance for r in result.rows} == want
    last = night["live"]["last_result"]
    assert last["balances"] == want and last["winners"] == ["P1"] and last["finished"]
    assert main(["history", "--db", str(night["db"]), "--game", "1", "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["balances"] == want and card["winners"] == ["P1"]
    assert card["rounds"][-1]["pot"] == 1          # the coin, as the round left it
    assert main(["history", "--db", str(night["db"]), "--game", "1"]) == 0
    out = capsys.readouterr().out
    words = ", ".join(f"{p} {signed(b)}" for p, b in want.items())
    assert f"balances: {words}\n" in out and f"winners: P1 {signed(want['P1'])}\n" in out
    assert main(["history", "--db", str(night["db"]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"][0]["balances"] == want


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium"))
    yield driver
    driver.quit()


def test_the_tv_draws_the_box_s_words(night, browser, tmp_path):
    pots, after, settled = by_hand()
    open_page(browser, tmp_path)
    screen, summary = night["seen"][-1]               # round 2, being played
    draw(browser, summary)
    # the OLED's header says "pot 3 bal -1": the TV the same pot, in the same words (a
    # line of its own on the TV: with its capital)
    assert text(browser, "pot") == f"Pot {screen.pot}" == f"Pot {pots[1]}"
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#players tr')].slice(1)"
        ".map(r => [...r.children].map(e => e.innerText))")
    assert [r[2] for r in rows] == [signed(b) for b in after[0]]
    draw(browser, night["live"])                      # between games: the settled result
    lines = text(browser, "last").split("\n")
    assert lines[1] == "P1 won"
    assert lines[2] == "\u00a0\u00b7 ".join(f"{p} {signed(b)}" for p, b in
                                       zip(PLAYERS, settled, strict=True))


def test_settle_up_pays_the_odd_coin_to_the_last_round_s_first_tied_winner():
    rules = build_rules("pub", {"stake": 1})
    score = {s: mask_of(sorted(tiles)) for s, tiles in LEFT_OPEN.items()}
    state = new_match(3)
    for scores in ROUNDS:
        state = finish_round(rules, state, [score[s] for s in scores])
    _, after, settled = by_hand()
    assert list(state.balances) == after[-1] and state.pot == 1
    stopped = stop_match(rules, state)
    assert list(stopped.balances) == settled and stopped.pot == 0 and stopped.winners == (0,)
    # the rule alone: coins a seat at a time among the tied, first seat first; with no
    # winner named, every seat in order; an empty pot changes nothing
    assert settle_pot((5, -3, -4), 2, (2, 0)) == (6, -3, -3)
    assert settle_pot((1, -2, 0), 1, ()) == (2, -2, 0)
    assert settle_pot((1, -1), 0, (0,)) == (1, -1)
    # the coin decides: tied on balance before it, the first seat wins after it
    tied = finish_round(rules, new_match(3), [score[3], score[3], score[10]])
    assert tied.balances == (0, 0, -1) and tied.pot == 1
    tied = stop_match(rules, tied)
    assert tied.balances == (1, 0, -1) and tied.winners == (0,)
