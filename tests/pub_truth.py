"""What the box shows and records, held against the pub night's referee.

:class:`Witness` watches one box: every event goes to the independent
:class:`~pub_referee.Referee`, every screen the box draws is checked against
it and against the flaps, the end steps each turn owes are ticked off as they
appear, and after a match ``history`` and the audits are read back.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from pub_referee import Referee, Untrue

from shutbox_hw.game.presentation import quick_show_ms
from shutbox_hw.game.screens import (
    ConfirmScreen,
    PlayScreen,
    ResultScreen,
    ScoreboardScreen,
    ShutScreen,
    TurnEndScreen,
)
from shutbox_hw.store.audit import audits
from shutbox_hw.store.history import recent_games, scorecard


def lift_tiles(text: str) -> set[int] | None:
    """The flaps a "lift ..." text names (ranges like 3-5), None if it names none."""
    m = re.match(r"lift ([\d, -]+?)( first)?$", text)
    if not m:
        return None
    tiles: set[int] = set()
    for part in m.group(1).split(","):
        a, _, b = part.strip().partition("-")
        tiles |= set(range(int(a), int(b or a) + 1))
    return tiles


def end_step(screen: Any) -> tuple[str, Any] | None:
    """Which step of a turn's end a screen is, with what identifies it."""
    if isinstance(screen, PlayScreen) and screen.prompt == "no move":
        return "no move", (screen.player, screen.dice)
    if isinstance(screen, ShutScreen):
        return "shut", screen.player
    if isinstance(screen, TurnEndScreen):
        return "turn end", (screen.player, screen.score)
    if isinstance(screen, ScoreboardScreen):
        return "scoreboard", screen.round
    if isinstance(screen, ResultScreen):
        return "result", screen.winners
    return None


class Witness:
    def __init__(self) -> None:
        self.referee = Referee()
        self.expect: list[tuple[str, Any]] = []   # end steps still to be shown, in order
        self.ends_shown = 0
        self.record: Counter[str] = Counter()     # the night so far, for the audits
        self.best: list[int] = []
        self._dice: tuple[int, ...] | None = None  # the live throw's faces
        self._on_screen: tuple[str, Any] | None = None   # the end step on the screen
        self._since = 0                                 # ... since then

    # ------------------------------------------------------------------ events

    def event(self, e: dict[str, Any]) -> None:
        """An event the box reported: the referee's turn, and the end steps it owes."""
        self.referee.see(e)
        kind = e["event"]
        if kind == "turn_ended":
            if e["open"] and self._dice is not None:
                self.expect.append(("no move", (e["player"], self._dice)))
            if e["shut"]:
                self.expect.append(("shut", e["player"]))
            self.expect.append(("turn end", (e["player"], e["score"])))
        elif kind == "round_ended":
            self.expect.append(("scoreboard", e["round"]))
        elif kind == "game_ended":
            self.expect.append(("result", tuple(e["winners"])))
        elif kind == "rolled":
            self._dice = tuple(e["dice"]) if e["dice"] else None
        elif kind in ("turn_started", "throw_committed"):
            self._dice = None

    def power_cut(self) -> int:
        """The steps still queued go with the power; how many."""
        lost, self.expect, self._on_screen = len(self.expect), [], None
        return lost

    # ------------------------------------------------------------------ screens

    def shown(self, screen: Any, state: Any, shut: set[int], now: int) -> None:
        """A screen the box drew: true to the game and the flaps, the next end step,
        and the step it replaces was on long enough to be read?"""
        self._check(screen, state, shut)
        step = end_step(screen)
        if self.expect and step == self.expect[0]:
            self.expect.pop(0)
            self.ends_shown += 1
        if isinstance(screen, ConfirmScreen) or step == self._on_screen:
            return          # the question covers a step, which is shown in full after it
        if self._on_screen is not None and self._on_screen[0] != "result" and \
                now - self._since < quick_show_ms(state.game.pause_ms):
            raise Untrue(f"end step {self._on_screen} shown only {now - self._since} ms")
        self._on_screen, self._since = step, now

    def _check(self, screen: Any, state: Any, shut: set[int]) -> None:
        ref = self.referee
        for text in (getattr(screen, "prompt", ""), getattr(screen, "message", None) or ""):
            if "lift" in text and not shut:
                raise Untrue(f"{type(screen).__name__} says {text!r} with every flap open")
            named = lift_tiles(text)
            if named is not None and not named <= shut:
                raise Untrue(f"{text!r} but shut are {sorted(shut)}")
        if isinstance(screen, PlayScreen) and screen.prompt != "no move" and \
                state.turn is not None:
            self._check_play(screen, shut)
        if isinstance(screen, ResultScreen) and ref.ended is not None:
            if list(screen.winners) != ref.ended["winners"]:
                raise Untrue(f"result shows {screen.winners}; won {ref.ended['winners']}")
            pool = ref.rules["match"] == "pool"
            values = [r.balance if pool else r.total for r in screen.rows]
            if values != (ref.balances if pool else ref.totals):
                raise Untrue(f"result rows {values}")

    def _check_play(self, screen: PlayScreen, shut: set[int]) -> None:
        """The turn on the screen: whose, which round, the money or total, dice, flaps."""
        ref = self.referee
        assert ref.seat is not None
        if screen.player != ref.players[ref.seat] or screen.round != ref.rounds + 1:
            raise Untrue(f"play screen for {screen.player} round {screen.round}; "
                         f"referee {ref.players[ref.seat]} round {ref.rounds + 1}")
        if ref.rules["match"] == "pool":
            if (screen.pot, screen.balance) != (ref.round_pot(), ref.balances[ref.seat]):
                raise Untrue(f"pot {screen.pot} bal {screen.balance}; referee "
                             f"{ref.round_pot()} {ref.balances[ref.seat]}")
        elif screen.total != ref.totals[ref.seat]:
            raise Untrue(f"total {screen.total}; referee {ref.totals[ref.seat]}")
        if ref.dice is not None and screen.dice != ref.dice:
            raise Untrue(f"dice shown {screen.dice}; thrown {ref.dice}")
        drawn_shut = ref.board - set(screen.open_tiles)
        if not ref.committed <= drawn_shut or not drawn_shut <= shut | ref.committed:
            raise Untrue(f"drawn shut {sorted(drawn_shut)}; committed "
                         f"{sorted(ref.committed)}, flaps shut {sorted(shut)}")

    # ------------------------------------------------------------------ the record

    def check_record(self, db: Any) -> None:
        """``history`` and the audits say what was played (the night so far)."""
        ref = self.referee
        assert db is not None and ref.ended is not None
        game = recent_games(db, 1)[0]
        abandoned = bool(ref.ended.get("abandoned"))
        if game["winners"] != ref.winners or game["abandoned"] != abandoned or \
                game["rounds"] != ref.rounds or game["players"] != ref.players or \
                list(game["totals"].values()) != ref.totals:
            raise Untrue(f"history {game}; played winners {ref.winners}, rounds {ref.rounds},"
                         f" totals {ref.totals}")
        if ref.rules["match"] == "pool" and list(game["balances"].values()) != ref.balances:
            raise Untrue(f"history balances {game['balances']}; played {ref.balances}")
        card = scorecard(db, game["id"])
        assert card is not None
        if [r["round"] for r in card["rounds"]] != list(range(1, ref.rounds + 1)):
            raise Untrue(f"scorecard rounds {card['rounds']}")
        self.record["games"] += not abandoned
        self.record["rounds"] += ref.rounds
        self.record["shut"] += ref.shut_turns
        self.best = sorted(self.best + ref.scores)[:5]
        a = audits(db)
        if (a["games"], a["rounds"], a["boxes_shut"]) != \
                (self.record["games"], self.record["rounds"], self.record["shut"]) or \
                [b["score"] for b in a["best"]] != self.best:
            raise Untrue(f"audits {a['games']} games, {a['rounds']} rounds, {a['boxes_shut']}"
                         f" shut, best {a['best']}; played {dict(self.record)}, {self.best}")
