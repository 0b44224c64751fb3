"""A turn's flow: the flaps, the dice, the commits, the settle timer and the
ends they lead to.

Part of the referee (:mod:`.referee`, which owns one :class:`Turns` and
hands it the inputs of a match in play). Pure like it: time is ``state.now``,
dice arrive as faces.
"""

from __future__ import annotations

from typing import Literal

from ...rules import AnyThrow, Dice, Throw, allowed_dice_counts, dice_choice, tile_bit, tiles_of
from ..model.events import FlapRejected, FlapReopened, Rolled, ThrowCommitted, TurnStarted
from ..model.state import GameState, Turn
from . import advice, endings
from .advice import Advisor
from .effects import Effect, Emit, RollDice
from .observer import Observer
from .reasons import Remark, WhyNot, WrongDice, misfit


class Turns:
    """The turns of the match in ``state``; what happens in them is told to
    ``observer`` (the display, on the box)."""

    def __init__(self, state: GameState, observer: Observer,
                 advisor: Advisor | None = None) -> None:
        self.state = state
        self.observer = observer
        self.advisor = advisor

    # ------------------------------------------------------------------ start and end

    def maybe_start(self) -> list[Effect]:
        """A turn starts as soon as every flap is open, with no button press."""
        s = self.state
        if s.phase != "play" or s.turn is not None or s.shut:
            return []
        if s.match is None or s.match.over:
            return []
        player = s.next_player()
        if player is None:
            return []
        s.turn = Turn(player=player)
        self.observer.new_turn()
        out: list[Effect] = [Emit(TurnStarted(seat=player, player=s.players[player],
                                              round=s.round_number()))]
        return out + self._after_board_change(s.turn)

    def _after_board_change(self, turn: Turn) -> list[Effect]:
        """At a turn's start and after each commit: end the turn if nothing can
        follow (the box is shut; with unseen dice, no throw could move)."""
        s = self.state
        open_mask = s.open_mask(turn)
        if open_mask == 0:
            return self.end_turn(turn)
        if s.unseen_dice and not AnyThrow(s.rules, open_mask).has_move():
            return self.end_turn(turn)
        return advice.chances(s, self.advisor, turn)

    def end_turn(self, turn: Turn) -> list[Effect]:
        """The turn is over: its score and screens, and the round's end if it came."""
        ended = endings.end_turn(self.state, turn)
        self.observer.turn_ended(self.state, turn, ended)
        out: list[Effect] = [Emit(ended)]
        if endings.round_over(self.state, ended):
            out += self.end_round()
        return out

    def end_round(self) -> list[Effect]:
        """Every turn of the round is played: the scoreboard, and the game's end."""
        s = self.state
        ended = endings.end_round(s)
        self.observer.round_ended(s, ended)
        out: list[Effect] = [Emit(ended)]
        if s.match is not None and s.match.over:
            out += self.end_game(abandoned=False)
        return out

    def end_game(self, abandoned: bool) -> list[Effect]:
        ended = endings.end_game(self.state, abandoned)
        self.observer.game_ended()
        return [Emit(ended)]

    # ------------------------------------------------------------------ dice

    def rolled(self, turn: Turn, dice: Dice | None, source: str) -> Rolled:
        s = self.state
        return Rolled(seat=turn.player, player=s.players[turn.player], dice=dice,
                      round=s.round_number(), throw=turn.throws + 1, source=source)

    def dice(self, faces: Dice, source: str = "software") -> list[Effect]:
        s = self.state
        turn = s.turn
        if s.phase != "play" or turn is None or s.unseen_dice:
            return []  # nobody asked: a stray throw of the dice module, no turn to tell
        counts = allowed_dice_counts(dice_choice(s.rules, s.open_mask(turn)))
        if turn.throw is not None or s.problems():
            # thrown on the dice module at the wrong moment: refused, and said so
            self.observer.note(s, Remark("dice-flaps-wrong") if s.problems()
                            else Remark("dice-mid-throw"))
            return []
        if len(faces) not in counts or not all(1 <= f <= 6 for f in faces):
            self.observer.note(s, WrongDice(len(faces), counts)
                            if all(1 <= f <= 6 for f in faces) else Remark("bad-throw"))
            return []
        turn.throw = throw = Throw(s.rules, s.open_mask(turn), faces)
        self.observer.note(s, None)
        out: list[Effect] = [Emit(self.rolled(turn, faces, source))]
        if not throw.has_move():
            return out + self.end_turn(turn)
        advice.prepare_hint(s, self.advisor, turn)
        return out + advice.hint_effects(s, turn)

    def commit(self, turn: Turn) -> list[Effect]:
        s = self.state
        assert turn.pending
        turn.committed |= turn.pending
        closed, turn.pending = turn.pending, 0
        turn.throws += 1
        turn.settle_at = None
        out: list[Effect] = [Emit(ThrowCommitted(
            seat=turn.player, player=s.players[turn.player], dice=turn.dice,
            closed=tuple(tiles_of(closed)), open=tuple(tiles_of(s.open_mask(turn))),
            round=s.round_number(), throw=turn.throws))]
        turn.throw = None
        self.observer.note(s, None)
        turn.hint = None
        turn.hint_shown = False
        return out + self._after_board_change(turn)

    # ------------------------------------------------------------------ flaps

    def flap(self, tile: int, shut: bool) -> list[Effect]:
        """A flap moved: taken into the throw, taken back, refused or restored."""
        s = self.state
        bit = tile_bit(tile)
        was = s.shut
        s.shut = (s.shut | bit) if shut else (s.shut & ~bit)
        if s.shut == was:
            return []
        turn = s.turn
        if s.phase != "play" or turn is None:
            return self.maybe_start()
        self.disarm(turn)
        if not shut:
            self.observer.flap_lifted(tile)
            if turn.pending & bit:
                turn.pending &= ~bit          # taken back
                return self._settle_check(turn, changed=True)
            if turn.committed & bit:
                return [Emit(FlapReopened(seat=turn.player, round=s.round_number(),
                                          player=s.players[turn.player], flap=tile))]
            return self._settle_check(turn, changed=False)
        if turn.committed & bit:              # shut again after a lift: restored
            return self._settle_check(turn, changed=False)
        candidate = turn.pending | bit
        if turn.throw is not None and turn.throw.can_complete(candidate):
            turn.pending = candidate
            return self._settle_check(turn, changed=True)
        why = misfit(s.unseen_dice, tile, turn.throw, turn.pending)
        reason = self.observer.flap_rejected(s, why)     # the words the box shows it with
        return [Emit(FlapRejected(seat=turn.player, round=s.round_number(),
                                  player=s.players[turn.player], flap=tile, reason=reason,
                                  conflicts=why.conflicts))]

    def closure_state(self, turn: Turn) -> tuple[bool, bool]:
        """(legal, extendable) for the flaps pending in this throw."""
        if not turn.pending or turn.throw is None:
            return False, False
        return turn.throw.is_legal(turn.pending), turn.throw.can_extend(turn.pending)

    def _settle_check(self, turn: Turn, changed: bool) -> list[Effect]:
        """Commit a closure no flap could extend; time one that could still grow
        (with unseen dice, the player says when: ROLL or NEXT)."""
        legal, extendable = self.closure_state(turn)
        if changed:
            turn.settle_at = None
        if not legal or self.state.problems():
            return []
        if not extendable:
            return self.commit(turn)
        if isinstance(turn.throw, Throw) and (changed or turn.settle_at is None):
            turn.settle_at = self.state.now + self.state.game.settle_ms
        return []

    def settle(self) -> list[Effect]:
        """Time passed: a closure that could have grown is taken once it settled."""
        s = self.state
        turn = s.turn
        if s.phase != "play" or turn is None or turn.settle_at is None:
            return []
        if s.now >= turn.settle_at:
            legal, _ = self.closure_state(turn)
            if legal and not s.problems():
                return self.commit(turn)
            turn.settle_at = None
        return []

    # ------------------------------------------------------------------ buttons in a turn

    def refuse(self, button: Literal["roll", "next"]) -> list[Effect]:
        """A press that cannot act now: the problem bar flashes why."""
        self.observer.refuse(self.state, WhyNot(button))
        return []

    def disarm(self, turn: Turn) -> None:
        """Anything but a second NEXT takes back the "No move?" question."""
        if turn.next_armed:
            turn.next_armed = False
            self.observer.note(self.state, None)

    def roll(self, turn: Turn, long: bool) -> list[Effect]:
        """ROLL in a turn: take the closure and throw again, the hint on a long
        press, or the throw (marked, with dice the box cannot see)."""
        s = self.state
        if s.problems():
            return self.refuse("roll")
        if turn.throw is not None:
            legal, _ = self.closure_state(turn)
            if legal:
                # settle early (or, with unseen dice, the next throw is under
                # way): this throw is done, and the same press throws again
                out = self.commit(turn)
                if s.turn is turn:
                    out += self.roll(turn, long)
                return out
            if long and turn.dice is not None and s.game.hints == "on-request":
                turn.hint_shown = True
                return advice.hint_effects(s, turn)
            if isinstance(turn.throw, AnyThrow) and turn.pending:
                self.observer.note(s, Remark("not-whole-move"))
            return self.refuse("roll")
        open_mask = s.open_mask(turn)
        if s.unseen_dice:      # the players throw now: the box only marks it
            turn.throw = AnyThrow(s.rules, open_mask)
            self.observer.note(s, None)
            return [Emit(self.rolled(turn, None, "manual"))]
        counts = allowed_dice_counts(dice_choice(s.rules, open_mask))
        count = 1 if (long and 1 in counts) or counts == (1,) else 2
        return [RollDice(count)]

    def next_pressed(self, turn: Turn) -> list[Effect]:
        """Unseen dice: NEXT, asked twice, ends the turn when the player cannot move."""
        s = self.state
        if not s.unseen_dice or s.problems():
            return self.refuse("next")
        legal, _ = self.closure_state(turn)
        out: list[Effect] = []
        if turn.pending and not legal:
            self.observer.note(s, Remark("not-whole-move"))
            return self.refuse("next")
        if not turn.next_armed:
            turn.next_armed = True
            self.observer.note(s, Remark("no-move-again"))
            self.observer.refuse(s, Remark("no-move-again"))
            return []
        turn.next_armed = False
        self.observer.note(s, None)
        if turn.pending:
            out += self.commit(turn)
            if s.turn is not turn:
                return out
        return out + self.end_turn(turn)
