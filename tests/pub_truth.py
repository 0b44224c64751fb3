"""What the box shows and records, held against the pub night's referee.

:class:`Witness` watches one box: every event goes to the independent
:class:`~pub_referee.Referee`, every screen the box draws is checked against
it and against the flaps, the end steps each turn owes are ticked off as they
appear, and after a match ``history`` and the audits are read back.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from typing import Any

from pub_referee import Referee, Untrue

from shutbox_hw.game.display.presentation import quick_show_ms
from shutbox_hw.game.display.screens import (
    AttractScreen,
    ConfirmScreen,
    PlayScreen,
    ResultScreen,
    ScoreboardScreen,
    ShutScreen,
    TurnEndScreen,
)
from shutbox_hw.players.display import oled_name
from shutbox_hw.players.names import seat_label
from shutbox_hw.rules import PRESETS
from shutbox_hw.rules.ruleset import PRESET_TITLES
from shutbox_hw.store.read.audit import audits
from shutbox_hw.store.read.history import recent_games, scorecard
from shutbox_hw.store.tables.schema import VERSION
from shutbox_hw.web.content.views import history_html, tonight_html, tonight_of

TONIGHT_S = 12 * 3600   # "tonight": the last 12 hours (README), said here again


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


def turn_begun(state: Any) -> bool:
    """The turn under way has had a throw or a flap shut in it (said here again)."""
    turn = state.turn
    return state.phase == "play" and turn is not None and (
        turn.throw is not None or turn.throws > 0 or bool(turn.committed) or bool(state.shut))


def own_play(screen: Any, state: Any) -> bool:
    """The screen is the play of the turn under way (its player's, not a step of an end)."""
    turn = state.turn
    return (state.phase == "play" and turn is not None and isinstance(screen, PlayScreen)
            and screen.prompt != "no move"
            and screen.player == oled_name(state.players[turn.player], seat_label(turn.player)))


class Witness:
    def __init__(self) -> None:
        self.referee = Referee()
        self.expect: list[tuple[str, Any]] = []   # end steps still to be shown, in order
        self.ends_shown = 0
        self.ends_given_way = 0   # steps the next player's play came before (issue 42)
        self.record: Counter[str] = Counter()     # the night so far, for the audits
        self.best: list[int] = []
        self._dice: tuple[int, ...] | None = None  # the live throw's faces
        self._on_screen: tuple[str, Any] | None = None   # the end step on the screen
        self._since = 0                                 # ... since then
        self.screen: Any = None                         # the OLED's last screen
        # each game checked: its recorded start, finished, boxes shut, turn scores
        self.played: list[tuple[float, bool, int, list[int]]] = []
        self.surfaces_checked = 0                       # steps the live JSON was held to

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
        self.screen = screen
        step = end_step(screen)
        if step is not None and turn_begun(state):
            # issue 42: the previous end never covers the turn being played
            raise Untrue(f"end step {step} over {state.players[state.turn.player]}'s turn")
        if self.expect and step == self.expect[0]:
            self.expect.pop(0)
            self.ends_shown += 1
        if isinstance(screen, ConfirmScreen) or step == self._on_screen:
            return          # the question covers a step, which is shown in full after it
        played = own_play(screen, state)
        if played and self.expect:
            # the next player played before these steps came up: they gave way
            self.ends_given_way += len(self.expect)
            self.expect = []
        if self._on_screen is not None and self._on_screen[0] != "result" and \
                not played and now - self._since < quick_show_ms(state.game.pause_ms):
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

    # ------------------------------------------------------------------ the other screens

    def title(self) -> str:
        """The rule set's title, worked out here: the preset's title where every
        rule is the preset's (a threshold left to the match's default), else
        "House rules" and the rules line, as the box's idle screen gives them."""
        rules = self.referee.rules
        preset = PRESETS[rules["preset"]]
        default = {"elimination": rules["tiles"] * (rules["tiles"] + 1) // 2,
                   "race": 100}.get(preset["match"])
        # a key the match does not use (a pool's threshold, a race's stake) changes nothing
        unused = {"threshold"} if rules["match"] not in ("elimination", "race") else set()
        unused |= {"stake"} if rules["match"] != "pool" else set()
        house = any(rules[k] != (default if k == "threshold" and v is None else v)
                    for k, v in preset.items() if k not in unused)
        if not house:
            return PRESET_TITLES[rules["preset"]]
        line = f"{rules['tiles']} tiles, {rules['closure']}"
        if rules["multiplication"]:
            line += ", x allowed"
        line += f", {rules['match']}"
        if rules["match"] in ("elimination", "race"):
            line += f" {rules['threshold']}"
        return f"House rules ({line})"

    def surfaces(self, live: dict[str, Any], shut: set[int]) -> None:
        """At every step: the live JSON (what the TV draws and Home Assistant
        states) says what was played and what the OLED shows: who is playing,
        the dice or none, each flap's state, the scores, the rule set's title."""
        ref, screen = self.referee, self.screen
        self.surfaces_checked += 1
        under_way = bool(ref.rules) and ref.ended is None
        if live["playing"] != under_way:
            raise Untrue(f"live says playing {live['playing']}; a game under way {under_way}")
        if not under_way:
            if isinstance(screen, AttractScreen):
                if live["title"] != screen.title:
                    raise Untrue(f"TV title {live['title']!r}; the box {screen.title!r}")
                t = screen.tonight
                if t is not None and (t.games, t.boxes_shut, t.best and t.best[1]) != (
                        live["tonight"]["games"], live["tonight"]["boxes_shut"],
                        live["tonight"]["best"] and live["tonight"]["best"]["score"]):
                    raise Untrue(f"the box's tonight {t}; the TV's {live['tonight']}")
            return
        if live["title"] != self.title():
            raise Untrue(f"TV title {live['title']!r}; played under {self.title()!r}")
        if [p["name"] for p in live["players"]] != ref.players:
            raise Untrue(f"TV players {live['players']}; playing {ref.players}")
        pool = ref.rules["match"] == "pool"
        scores = [p["balance"] if pool else p["total"] for p in live["players"]]
        if scores != (ref.balances if pool else ref.totals):
            raise Untrue(f"TV scores {scores}; played {ref.balances if pool else ref.totals}")
        if live["round"] != ref.rounds + 1:
            raise Untrue(f"TV round {live['round']}; it is {ref.rounds + 1}")
        states = dict(enumerate(live["flaps"], start=1))
        if len(states) != ref.rules["tiles"]:
            raise Untrue(f"TV flaps {live['flaps']}")

        def tiles(*names: str) -> set[int]:
            return {t for t, s in states.items() if s in names}
        if ref.seat is not None:
            want = (ref.players[ref.seat], False, list(ref.dice) if ref.dice else None)
            if (live["player"], live["turn_over"], live["dice"]) != want:
                raise Untrue(f"TV turn {live['player']}, over {live['turn_over']}, dice "
                             f"{live['dice']}; played {want}")
            if tiles("shut", "lifted") != ref.committed or \
                    tiles("lifted") != ref.committed - shut or \
                    tiles("pending", "refused") != shut - ref.committed:
                raise Untrue(f"TV flaps {live['flaps']}; taken {sorted(ref.committed)}, "
                             f"shut {sorted(shut)}")
            if set(map(int, live["reasons"])) != tiles("refused") or \
                    not all(live["reasons"].values()):
                raise Untrue(f"TV reasons {live['reasons']} for flaps {live['flaps']}")
        else:
            if not live["turn_over"] or live["dice"] is not None or tiles("shut") != shut:
                raise Untrue(f"between two turns the TV shows {live}; shut {sorted(shut)}")
            nxt = ref.next_seat()
            if nxt is not None and live["player"] != ref.players[nxt]:
                raise Untrue(f"TV says {live['player']} plays next; {ref.players[nxt]} does")
        if isinstance(screen, PlayScreen) and screen.prompt != "no move" and \
                screen.player == live["player"]:
            drawn = (screen.round, list(screen.dice) if screen.dice else None,
                     list(screen.open_tiles))
            if drawn != (live["round"], live["dice"], live["open"]):
                raise Untrue(f"the box draws round, dice, open {drawn}; the TV "
                             f"{live['round']}, {live['dice']}, {live['open']}")

    def pages(self, db: Any, now: float) -> None:
        """After a game: the history and tonight pages say what was played, and
        tonight's figures are those of the games played in the 12 hours before ``now``."""
        ref = self.referee
        game = recent_games(db, 1)[0]
        row = _first_row(history_html(recent_games(db, 5, VERSION), 5))
        pool = ref.rules["match"] == "pool"
        scores = ", ".join(f"{p} {v:+d}" if pool else f"{p} {v}" for p, v in zip(
            ref.players, ref.balances if pool else ref.totals, strict=True))
        want = [f"Game {game['id']}", self.title(),
                "stopped" if ref.ended and ref.ended.get("abandoned") else "finished",
                str(ref.rounds), scores, ", ".join(ref.winners) or "\u2013",
                str(ref.shut_turns)]
        got = [row[0], row[2], row[3], row[4], row[5], row[6], row[7]]
        if got != [w.replace("&", "&amp;") for w in want]:
            raise Untrue(f"history page {got}; played {want}")
        page = tonight_html(*tonight_of(db, now), recent_games(db, 50, VERSION))
        m = re.search(r'class="figures">(\d+) games? finished, (\d+) box(?:es)? shut'
                      r"(?:, best turn (\d+) by [^.]*)?\.", page)
        tonight = [g for g in self.played if g[0] >= now - TONIGHT_S]   # the README's 12 hours
        scores = [s for g in tonight for s in g[3]]
        figures = (sum(g[1] for g in tonight), sum(g[2] for g in tonight),
                   str(min(scores)) if scores else None)
        if m is None or (int(m[1]), int(m[2]), m[3]) != figures or \
                f'href="/game/{game["id"]}"' not in page:
            raise Untrue(f"tonight page {m and m.groups()}; the night {figures}")

    # ------------------------------------------------------------------ the record

    def check_record(self, db: Any, now: float | None = None) -> None:
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
        start, = db.execute("SELECT started_at FROM games WHERE id = ?", (game["id"],)).fetchone()
        self.played.append((start, not abandoned, ref.shut_turns, list(ref.scores)))
        self.pages(db, time.time() if now is None else now)


def _first_row(page: str) -> list[str]:
    """The cells of a page's first table row (links and tags taken out)."""
    row = re.findall(r"<tr><td>(.*?)</td></tr>", page)[0]
    return [re.sub(r"<[^>]+>", "", c) for c in row.split("</td><td>")]
