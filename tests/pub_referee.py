"""An independent referee for the pub-night suite: the game worked out again
from the events alone, with its own code, from the rules as the seeds and the
README state them (never the engine's ``rules`` functions).

It follows every event of a match and raises :class:`Untrue` the moment the box
says something this computation disagrees with: a score, a round's winners,
a total, a pool's balances or pot, a turn that ended although the throw had a
move, a throw that did not end the turn although it had none.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any


class Untrue(AssertionError):
    """The box said something the independent computation disagrees with."""


def score_of(rules: dict[str, Any], open_tiles: list[int]) -> int:
    """Sum of the open tiles; ``digits``: the open tiles read as one number (1, 5, 9: 159)."""
    if not open_tiles:
        return 0
    if rules["scoring"] == "digits":
        return int("".join(str(t) for t in sorted(open_tiles)))
    return sum(open_tiles)


def one_die_allowed(rules: dict[str, Any], open_tiles: set[int]) -> tuple[int, ...]:
    """How many dice the rules let the next throw use."""
    if rules["one_die"] == "when-high-shut":
        return (1, 2) if not any(t >= 7 for t in open_tiles) else (2,)
    if rules["one_die"] == "below-6":
        return (1,) if sum(open_tiles) < 6 else (2,)
    return (2,)


def legal(rules: dict[str, Any], tiles: set[int], dice: tuple[int, ...]) -> bool:
    """Whether shutting exactly ``tiles`` is a move for this throw."""
    if not tiles:
        return False
    total = sum(dice)
    if rules["closure"] == "sum-or-dice":
        if tiles == {total}:
            return True
        return len(dice) == 2 and dice[0] != dice[1] and tiles == set(dice)
    goals = {total}
    if rules["multiplication"] and len(dice) == 2:
        goals.add(dice[0] * dice[1])
    product = 1
    for t in tiles:
        product *= t
    return sum(tiles) in goals or (rules["multiplication"] and product in goals)


def has_move(rules: dict[str, Any], open_tiles: set[int], dice: tuple[int, ...]) -> bool:
    ordered = sorted(open_tiles)
    return any(legal(rules, set(c), dice) for n in range(1, len(ordered) + 1)
               for c in combinations(ordered, n))


class Referee:
    """One match, worked out from its events."""

    def __init__(self) -> None:
        self.rules: dict[str, Any] = {}
        self.players: list[str] = []
        self.totals: list[int] = []
        self.balances: list[int] = []
        self.pot = 0
        self.last_winners: list[int] = []
        self.out: set[int] = set()
        self.rounds = 0
        self.played: dict[int, list[int]] = {}     # this round: seat -> open tiles
        self.seat: int | None = None               # the turn being played
        self.committed: set[int] = set()
        self.dice: tuple[int, ...] | None = None   # the live throw's faces, when known
        self.must_end = False                      # the last throw had no move
        self.over = False
        self.winners: list[str] = []
        self.shut_turns = 0
        self.scores: list[int] = []                # every turn's score (the audits' best)
        self.ended: dict[str, Any] | None = None   # the game_ended event

    # ------------------------------------------------------------------ questions

    @property
    def board(self) -> set[int]:
        return set(range(1, self.rules["tiles"] + 1))

    def open_tiles(self) -> set[int]:
        return self.board - self.committed

    def active(self) -> list[int]:
        return [p for p in range(len(self.players)) if p not in self.out]

    def next_seat(self) -> int | None:
        return next((p for p in self.active() if p not in self.played), None)

    def round_pot(self) -> int:
        return self.pot + self.rules["stake"] * len(self.active())

    # ------------------------------------------------------------------ events

    def see(self, e: dict[str, Any]) -> None:
        kind = e["event"]
        if self.must_end and kind not in ("turn_ended", "resumed"):
            raise Untrue(f"a throw of {self.dice} had no move on {sorted(self.open_tiles())}"
                         f" but the turn went on ({kind})")
        handler = getattr(self, "_" + kind, None)
        if handler is not None:
            handler(e)

    def _game_started(self, e: dict[str, Any]) -> None:
        self.__init__()   # type: ignore[misc]
        self.rules = dict(e["rules"])
        if self.rules["match"] in ("race", "elimination") and self.rules["threshold"] is None:
            raise Untrue("a race or elimination with no threshold")
        self.players = list(e["players"])
        self.totals = [0] * len(self.players)
        self.balances = [0] * len(self.players)

    def _turn_started(self, e: dict[str, Any]) -> None:
        want = self.next_seat()
        if self.over or self.seat is not None or want is None or e["player"] != self.players[want]:
            raise Untrue(f"turn of {e['player']} started; expected "
                         f"{None if want is None else self.players[want]}")
        if e["round"] != self.rounds + 1:
            raise Untrue(f"turn_started says round {e['round']}, it is {self.rounds + 1}")
        self.seat, self.committed, self.dice = want, set(), None

    def _rolled(self, e: dict[str, Any]) -> None:
        self._is_turn_of(e)
        if e["dice"] is None:
            self.dice = None
            return
        dice = tuple(e["dice"])
        if len(dice) not in one_die_allowed(self.rules, self.open_tiles()) or \
                not all(1 <= f <= 6 for f in dice):
            raise Untrue(f"dice {dice} taken with {sorted(self.open_tiles())} open")
        self.dice = dice
        self.must_end = not has_move(self.rules, self.open_tiles(), dice)

    def _throw_committed(self, e: dict[str, Any]) -> None:
        self._is_turn_of(e)
        closed = set(e["closed"])
        if not closed <= self.open_tiles():
            raise Untrue(f"closed {sorted(closed)} but only {sorted(self.open_tiles())} open")
        if self.dice is not None and not legal(self.rules, closed, self.dice):
            raise Untrue(f"closed {sorted(closed)} is no move for {self.dice}")
        if self.dice is None and not any(
                legal(self.rules, closed, (a, b)) for a in range(1, 7) for b in range(a, 7)) \
                and not any(legal(self.rules, closed, (a,)) for a in range(1, 7)):
            raise Untrue(f"closed {sorted(closed)} fits no throw at all")
        self.committed |= closed
        self.dice = None
        if sorted(self.open_tiles()) != list(e["open"]):
            raise Untrue(f"open after the throw: box {e['open']}, "
                         f"referee {sorted(self.open_tiles())}")

    def _turn_ended(self, e: dict[str, Any]) -> None:
        self._is_turn_of(e)
        assert self.seat is not None
        left = sorted(self.open_tiles())
        if list(e["open"]) != left or e["score"] != score_of(self.rules, left) or \
                e["shut"] != (not left):
            raise Untrue(f"turn_ended {e}; referee: open {left}, "
                         f"score {score_of(self.rules, left)}")
        seen = self.dice is not None
        if left and seen and not self.must_end:
            raise Untrue(f"the turn ended although {self.dice} had a move on {left}")
        self.played[self.seat] = left
        self.shut_turns += not left
        self.scores.append(e["score"])
        self.seat, self.dice, self.must_end = None, None, False
        self.committed = set()

    def _round_ended(self, e: dict[str, Any]) -> None:
        names, rules = self.players, self.rules
        raw = {p: score_of(rules, t) for p, t in self.played.items()}
        shutters = [p for p in self.played if not self.played[p]]
        final = dict(raw)
        if rules["shut_the_box"] == "double-others" and shutters:
            final = {p: v if p in shutters else 2 * v for p, v in raw.items()}
        instant = rules["shut_the_box"] == "instant-win" and bool(shutters)
        low = min(final.values()) if final else None
        winners = shutters[:1] if instant else [p for p, v in final.items() if v == low]
        if not instant and self.next_seat() is not None:
            raise Untrue(f"round {self.rounds + 1} ended before {names[self.next_seat()]} played")
        for p, v in final.items():
            self.totals[p] += v
        if rules["match"] == "pool":
            staking = self.active()
            self.pot += rules["stake"] * len(staking)
            for p in staking:
                self.balances[p] -= rules["stake"]
            if instant:
                extra = rules["stake"] * (len(staking) - 1)
                for p in staking:
                    if p != shutters[0]:
                        self.balances[p] -= rules["stake"]
                self.balances[shutters[0]] += self.pot + extra
                self.pot = 0
            elif winners:
                share = self.pot // len(winners)
                for p in winners:
                    self.balances[p] += share
                self.pot -= share * len(winners)
            self.last_winners = list(winners)
        elif instant:
            self._decide(shutters[:1])
        elif rules["match"] == "single-round":
            self._decide(winners)
        elif rules["match"] == "race":
            if any(self.totals[p] >= rules["threshold"] for p in final):
                lowest = min(self.totals)
                self._decide([p for p, t in enumerate(self.totals) if t == lowest])
        elif rules["match"] == "elimination":
            newly = [p for p in final if self.totals[p] >= rules["threshold"]]
            self.out |= set(newly)
            left = [p for p in final if p not in newly]
            if not left or (len(names) > 1 and len(left) == 1):
                if not left:
                    lowest = min(self.totals[p] for p in newly)
                    left = [p for p in newly if self.totals[p] == lowest]
                self._decide(left)
        self.rounds += 1
        want = {
            "round": self.rounds,
            "scores": {names[p]: v for p, v in sorted(final.items())},
            "raw": {names[p]: v for p, v in sorted(raw.items())},
            "totals": dict(zip(names, self.totals)),
            "out": sorted(names[p] for p in self.out),
            "shut": [names[p] for p in shutters],
            "winners": [names[p] for p in winners]}
        if rules["match"] == "pool":
            want["balances"] = dict(zip(names, self.balances))
            want["pot"] = self.pot
        got = {k: e.get(k) for k in want}
        got["out"] = sorted(got["out"] or [])
        if got != want:
            raise Untrue(f"round_ended {got}\n  referee {want}")
        self.played = {}

    def _decide(self, seats: list[int]) -> None:
        self.over = True
        self.winners = [self.players[p] for p in seats]

    def _game_ended(self, e: dict[str, Any]) -> None:
        self.ended = e
        abandoned = bool(e.get("abandoned"))
        if self.over:
            want = self.winners
            if abandoned:
                raise Untrue("a decided match ended as abandoned")
        elif self.rules["match"] == "pool" and self.rounds:
            # settle-up (docs/play/pools.md): the coins left go one at a time to
            # the last round's winners, first seat first
            takers = sorted(self.last_winners) or list(range(len(self.players)))
            for i in range(self.pot):
                self.balances[takers[i % len(takers)]] += 1
            self.pot = 0
            best = max(self.balances)
            want = [n for n, b in zip(self.players, self.balances) if b == best]
            if abandoned:
                raise Untrue("a settled pool ended as abandoned")
        else:
            want = []
            if not abandoned:
                raise Untrue("an undecided match ended without being abandoned")
        if e["winners"] != want or e["totals"] != dict(zip(self.players, self.totals)):
            raise Untrue(f"game_ended {e}; referee winners {want}, totals {self.totals}")
        if self.rules["match"] == "pool" and e["balances"] != dict(zip(self.players,
                                                                      self.balances)):
            raise Untrue(f"game_ended balances {e['balances']}; referee {self.balances}")
        self.winners = want
        self.over = True

    def _is_turn_of(self, e: dict[str, Any]) -> None:
        if self.seat is None or e["player"] != self.players[self.seat]:
            raise Untrue(f"{e['event']} for {e['player']} outside their turn")
