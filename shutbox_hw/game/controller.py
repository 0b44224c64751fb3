"""The referee: a pure state machine from box events to effects.

No I/O, no clock reads, no random numbers. Time arrives in the events'
``at_ms``; dice arrive as :class:`~shutbox_hw.events.DiceRolled`; what the
box should do comes back as effects (:mod:`.effects`). The real daemon, the
simulator and the tests all drive this one class.

The physical flaps are the truth the controller keeps: ``shut`` is every
flap the switches report shut. During a turn the tiles the rules account
for are ``committed`` (earlier throws) and ``pending`` (accepted since the
throw). Everything else follows from those three masks:

- a shut flap in neither set was rejected and must be lifted;
- a committed flap that is not shut was lifted and must be shut again.

So the box asks for exactly the difference, whatever caused it: a wrong
flap, a flap shut before the roll, a cheeky lift, or a power cut.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from ..events import ButtonPressed, DiceRolled, Event, FlapChanged, InputFault, Tick
from ..leds import LedFrame, LedState
from ..rules import (Dice, Mask, MatchState, RuleSet, allowed_dice_counts, rules_from_dict,
                     can_complete, can_complete_any_throw, can_extend, dice_choice,
                     ends_round_at_once, finish_round, full_board, is_legal, new_match,
                     stop_match, throws_for, tile_bit, tiles_of, turn_score)
from ..rules import legal_closures
from .config import MAX_PLAYERS, GameConfig
from .effects import Effect, Emit, Lights, RollDice, Show
from .events import (Chances, Fault, FlapRejected, FlapReopened, GameEnded, GameStarted, Hint,
                     Resumed, Rolled, RoundEnded, ThrowCommitted, TurnEnded, TurnStarted)
from .saved import SavedGame
from .screens import (AttractScreen, ConfirmScreen, PlayScreen, ResultScreen, ScoreboardScreen,
                      ScoreRow, Screen, TurnEndScreen)
from .text import flaps_word, throw_text, tile_ranges

DEFAULT_PLAYERS = 2


class Advisor(Protocol):
    """Optimal-play figures for hints (the solver); optional."""

    def best_closure(self, open_mask: Mask, dice: Dice) -> Mask | None: ...

    def shut_probability(self, open_mask: Mask) -> float: ...

    def move_probability(self, open_mask: Mask) -> float: ...


@dataclass
class Turn:
    player: int
    committed: Mask = 0
    pending: Mask = 0
    dice: Dice | None = None
    throw_started: bool = False   # manual dice: ROLL marked the current throw
    throws: int = 0               # committed throws so far
    settle_at: int | None = None
    hint: Mask | None = None
    hint_shown: bool = False      # on-request hints: asked for this throw
    shut_chance: float | None = None
    move_chance: float | None = None
    note: str = ""                # a passing remark for the footer


class Controller:
    """One game box's referee. Feed :meth:`start` once, then :meth:`handle`."""

    def __init__(self, rules: RuleSet, game: GameConfig | None = None,
                 advisor: Advisor | None = None) -> None:
        self.rules = rules
        self.game = game or GameConfig()
        self.advisor = advisor if self.game.hints != "off" else None
        self.board = full_board(rules.tiles)
        self.phase = "idle"            # idle | play | confirm | over
        self.player_count = len(self.game.player_names) or DEFAULT_PLAYERS
        self.players: tuple[str, ...] = ()
        self.match: MatchState | None = None
        self.round_played: dict[int, Mask] = {}
        self.turn: Turn | None = None
        self.between: Screen | None = None   # turn end / scoreboard, until flaps are lifted
        self.shut: Mask = 0
        self.faults: dict[str, str] = {}
        self.reasons: dict[int, str] = {}
        self.now = 0
        self._last_screen: Screen | None = None
        self._last_leds: LedFrame | None = None

    # ------------------------------------------------------------------ entry points

    def start(self, now_ms: int, shut_mask: Mask, saved: SavedGame | None = None) -> list[Effect]:
        """Power on: the flaps as read now, and the unfinished game if there is one."""
        self.now = now_ms
        out: list[Effect] = []
        if saved is not None:
            self._restore(saved)   # the saved game's rules, and so its board size
        self.shut = shut_mask & self.board
        if saved is not None:
            turn_player = self.turn.player if self.turn else self._next_player()
            out.append(Emit(Resumed(
                seat=turn_player,
                player=self.players[turn_player] if turn_player is not None else None,
                round=self.match.round_number if self.match else 1)))
            out += self._maybe_start_turn()
        return out + self._refresh()

    def handle(self, event: Event) -> list[Effect]:
        self.now = max(self.now, event.at_ms)
        out: list[Effect] = []
        if isinstance(event, FlapChanged):
            out += self._flap(event.tile, event.shut)
        elif isinstance(event, ButtonPressed):
            out += self._button(event.button, event.long)
        elif isinstance(event, DiceRolled):
            out += self._dice(tuple(event.faces))
        elif isinstance(event, InputFault):
            out += self._fault(event)
        elif isinstance(event, Tick):
            out += self._tick()
        return out + self._refresh()

    def next_deadline_ms(self) -> int | None:
        """When the controller next needs a :class:`Tick` (the settle timer)."""
        return self.turn.settle_at if self.turn else None

    # ------------------------------------------------------------------ state queries

    def rejected(self) -> Mask:
        """Shut flaps the rules do not account for: they must be lifted."""
        if self.phase != "play" or self.turn is None:
            return 0
        return self.shut & ~(self.turn.committed | self.turn.pending)

    def reopened(self) -> Mask:
        """Committed flaps that were lifted: they must be shut again."""
        if self.phase != "play" or self.turn is None:
            return 0
        return self.turn.committed & ~self.shut

    def _problems(self) -> bool:
        return bool(self.rejected() or self.reopened())

    @property
    def dice_mode(self) -> str:
        return self.game.dice

    # ------------------------------------------------------------------ game setup

    def _names(self, count: int) -> tuple[str, ...]:
        configured = list(self.game.player_names[:count])
        taken = set(configured)
        for i in range(len(configured), count):
            name, n = f"P{i + 1}", i + 1
            while name in taken:
                n += 1
                name = f"P{n}"
            configured.append(name)
            taken.add(name)
        return tuple(configured)

    def _new_game(self) -> list[Effect]:
        self.players = self._names(self.player_count)
        self.match = new_match(len(self.players))
        self.round_played = {}
        self.turn = None
        self.between = None
        self.reasons = {}
        self.phase = "play"
        out: list[Effect] = [Emit(GameStarted(players=self.players, rules=self.rules.as_dict(),
                                              dice=self.dice_mode))]
        return out + self._maybe_start_turn()

    def _restore(self, saved: SavedGame) -> None:
        self.rules = rules_from_dict(saved.rules)  # the game goes on under its own rules
        self.board = full_board(self.rules.tiles)
        self.players = tuple(saved.players)
        self.match = new_match(len(self.players))
        for open_masks in saved.rounds:
            self.match = finish_round(self.rules, self.match, list(open_masks))
        self.round_played = dict(saved.played)
        self.phase = "play"
        self.between = None
        if saved.turn is not None:
            committed = 0
            for closed in saved.turn.closed:
                committed |= closed
            self.turn = Turn(player=saved.turn.player, committed=committed,
                             dice=saved.turn.dice, throw_started=saved.turn.throw_started,
                             throws=len(saved.turn.closed))
            self._prepare_hint()

    # ------------------------------------------------------------------ turn flow

    def _next_player(self) -> int | None:
        if self.match is None:
            return None
        for p in self.match.active():
            if p not in self.round_played:
                return p
        return None

    def _maybe_start_turn(self) -> list[Effect]:
        """A turn starts as soon as every flap is open, with no button press."""
        if self.phase != "play" or self.turn is not None or self.shut:
            return []
        if self.match is None or self.match.over:
            return []
        player = self._next_player()
        if player is None:
            return []
        self.turn = Turn(player=player)
        self.between = None
        self.reasons = {}
        out: list[Effect] = [Emit(TurnStarted(seat=player, player=self.players[player],
                                              round=self.match.round_number))]
        return out + self._after_board_change()

    def _after_board_change(self) -> list[Effect]:
        """At a turn's start and after each commit: end the turn if nothing can
        follow (the box is shut; with manual dice, no throw could move)."""
        turn = self.turn
        assert turn is not None
        open_mask = self.board & ~turn.committed
        if open_mask == 0:
            return self._end_turn()
        if self.dice_mode == "manual" and not can_complete_any_throw(self.rules, open_mask, 0):
            return self._end_turn()
        return self._chances(open_mask)

    def _chances(self, open_mask: Mask) -> list[Effect]:
        """After a commit: the chance to shut from here, and that the next throw moves."""
        turn = self.turn
        if self.advisor is None or turn is None:
            return []
        turn.shut_chance = self.advisor.shut_probability(open_mask)
        turn.move_chance = self.advisor.move_probability(open_mask)
        return [Emit(Chances(seat=turn.player, player=self.players[turn.player],
                             open=tuple(tiles_of(open_mask)),
                             shut_probability=turn.shut_chance,
                             move_probability=turn.move_chance))]

    def _dice(self, faces: Dice) -> list[Effect]:
        turn = self.turn
        if self.phase != "play" or turn is None or turn.dice is not None \
                or self.dice_mode == "manual":
            return []  # nobody asked: a stray throw of the dice module
        open_mask = self.board & ~turn.committed
        counts = allowed_dice_counts(dice_choice(self.rules, open_mask))
        if len(faces) not in counts or not all(1 <= f <= 6 for f in faces):
            turn.note = "bad throw: roll again"
            return []
        turn.dice = faces
        turn.note = ""
        out: list[Effect] = [Emit(Rolled(seat=turn.player, player=self.players[turn.player],
                                         dice=faces, round=self.match.round_number,
                                         throw=turn.throws + 1))]
        if not legal_closures(self.rules, open_mask, faces):
            return out + self._end_turn()
        self._prepare_hint()
        return out + self._hint_effects()

    def _prepare_hint(self) -> None:
        turn = self.turn
        if self.advisor is None or turn is None:
            return
        open_mask = self.board & ~turn.committed
        if turn.shut_chance is None:
            turn.shut_chance = self.advisor.shut_probability(open_mask)
            turn.move_chance = self.advisor.move_probability(open_mask)
        if turn.dice is not None:
            turn.hint = self.advisor.best_closure(open_mask, turn.dice)

    def _hint_visible(self, turn: Turn) -> bool:
        return self.advisor is not None and turn.hint is not None and (
            self.game.hints == "always" or turn.hint_shown)

    def _hint_effects(self) -> list[Effect]:
        turn = self.turn
        if turn is None or not self._hint_visible(turn):
            return []
        return [Emit(Hint(seat=turn.player, player=self.players[turn.player],
                          dice=turn.dice or (), closure=tuple(tiles_of(turn.hint or 0)),
                          shut_probability=turn.shut_chance,
                          move_probability=turn.move_chance))]

    def _commit(self) -> list[Effect]:
        turn = self.turn
        assert turn is not None and turn.pending
        turn.committed |= turn.pending
        closed, turn.pending = turn.pending, 0
        turn.throws += 1
        turn.settle_at = None
        out: list[Effect] = [Emit(ThrowCommitted(
            seat=turn.player, player=self.players[turn.player], dice=turn.dice or None,
            closed=tuple(tiles_of(closed)), open=tuple(tiles_of(self.board & ~turn.committed)),
            round=self.match.round_number, throw=turn.throws))]
        turn.dice = None
        turn.throw_started = False
        turn.hint = None
        turn.hint_shown = False
        return out + self._after_board_change()

    def _end_turn(self) -> list[Effect]:
        turn = self.turn
        match = self.match
        assert turn is not None and match is not None
        open_mask = self.board & ~turn.committed
        score = turn_score(self.rules, open_mask)
        name = self.players[turn.player]
        self.round_played[turn.player] = open_mask
        self.turn = None
        out: list[Effect] = [Emit(TurnEnded(seat=turn.player, player=name, score=score,
                                            open=tuple(tiles_of(open_mask)),
                                            shut=open_mask == 0, round=match.round_number))]
        note = ""
        if open_mask == 0:
            note = {"instant-win": "wins at once!" if self.rules.match != "pool"
                    else "wins the pot x2!",
                    "double-others": "others score double"}.get(self.rules.shut_the_box, "")
        self.between = TurnEndScreen(player=name, score=score, open_tiles=tuple(tiles_of(open_mask)),
                                     shut=open_mask == 0, note=note)
        if ends_round_at_once(self.rules, open_mask) or self._next_player() is None:
            out += self._end_round()
        return out

    def _end_round(self) -> list[Effect]:
        match = self.match
        assert match is not None
        open_masks = [self.round_played.get(p) for p in range(len(self.players))]
        self.match = finish_round(self.rules, match, open_masks)
        result = self.match.rounds[-1]
        self.round_played = {}
        names = self.players
        pool = self.rules.match == "pool"
        out: list[Effect] = [Emit(RoundEnded(
            players=names, round=result.number, final=result.final, raw=result.raw,
            totals=self.match.totals, out=tuple(sorted(self.match.out)),
            shut=result.shutters, winners=result.winners,
            balances=self.match.balances if pool else None,
            pot=self.match.pot if pool else None))]
        if self.match.over:
            return out + self._end_game(abandoned=False)
        winners = " & ".join(names[p] for p in result.winners)
        note = f"{winners} wins round {result.number}" if winners else ""
        if self.rules.match == "pool" and self.match.pot:
            note += f", pot {self.match.pot}"
        self.between = ScoreboardScreen(round=result.number, rows=self._rows(result),
                                        note=note, prompt="lift all flaps")
        return out

    def _rows(self, result=None) -> tuple[ScoreRow, ...]:
        match = self.match
        assert match is not None
        rows = []
        for p, name in enumerate(self.players):
            rows.append(ScoreRow(
                name=name,
                raw=result.raw[p] if result else None,
                final=result.final[p] if result else None,
                total=match.totals[p], out=p in match.out,
                shut=bool(result and p in result.shutters),
                balance=match.balances[p] if self.rules.match == "pool" else None))
        return tuple(rows)

    def _end_game(self, abandoned: bool) -> list[Effect]:
        match = self.match
        assert match is not None
        if not match.over:
            self.match = match = stop_match(self.rules, match)
        self.phase = "over"
        self.turn = None
        self.between = None
        names = self.players
        return [Emit(GameEnded(
            players=names, winners=match.winners, totals=match.totals, rounds=len(match.rounds),
            balances=match.balances if self.rules.match == "pool" else None,
            abandoned=abandoned))]

    # ------------------------------------------------------------------ inputs

    def _flap(self, tile: int, shut: bool) -> list[Effect]:
        if not 1 <= tile <= self.rules.tiles:
            return []
        bit = tile_bit(tile)
        was = self.shut
        self.shut = (self.shut | bit) if shut else (self.shut & ~bit)
        if self.shut == was:
            return []
        turn = self.turn
        if self.phase != "play" or turn is None:
            return self._maybe_start_turn()
        if not shut:
            self.reasons.pop(tile, None)
            if turn.pending & bit:
                turn.pending &= ~bit          # taken back
                return self._settle_check(changed=True)
            if turn.committed & bit:
                return [Emit(FlapReopened(seat=turn.player, round=self.match.round_number,
                                          player=self.players[turn.player], flap=tile))]
            return self._settle_check(changed=False)
        if turn.committed & bit:              # shut again after a lift: restored
            return self._settle_check(changed=False)
        reason = self._check_new_flap(tile)
        if reason is None:
            turn.pending |= bit
            return self._settle_check(changed=True)
        self.reasons[tile] = reason
        return [Emit(FlapRejected(seat=turn.player, round=self.match.round_number,
                                  player=self.players[turn.player], flap=tile, reason=reason))]

    def _check_new_flap(self, tile: int) -> str | None:
        """None if ``tile`` may join the flaps shut since the throw, else why not."""
        turn = self.turn
        assert turn is not None
        open_mask = self.board & ~turn.committed
        candidate = turn.pending | tile_bit(tile)
        if self.dice_mode == "manual":
            if not turn.throw_started:
                return f"{tile}: press ROLL as you throw"
            if can_complete_any_throw(self.rules, open_mask, candidate):
                return None
            if not turn.pending:
                return f"{tile} doesn't fit any throw"
            return f"{tile} doesn't fit with {tile_ranges(tiles_of(turn.pending))}"
        if turn.dice is None:
            return f"{tile} was shut before the roll"
        if can_complete(self.rules, open_mask, turn.dice, candidate):
            return None
        return f"{tile} doesn't fit {throw_text(self.rules, turn.dice)}"

    def _closure_state(self) -> tuple[bool, bool]:
        """(legal, extendable) for the flaps pending in this throw."""
        turn = self.turn
        assert turn is not None
        open_mask = self.board & ~turn.committed
        if not turn.pending:
            return False, False
        if self.dice_mode == "manual":
            throws = throws_for(dice_choice(self.rules, open_mask))
            legal = any(is_legal(self.rules, open_mask, d, turn.pending) for d in throws)
            extend = any(can_extend(self.rules, open_mask, d, turn.pending) for d in throws)
            return legal, extend
        if turn.dice is None:
            return False, False
        return (is_legal(self.rules, open_mask, turn.dice, turn.pending),
                can_extend(self.rules, open_mask, turn.dice, turn.pending))

    def _settle_check(self, changed: bool) -> list[Effect]:
        """Commit a closure no flap could extend; time one that could still grow."""
        turn = self.turn
        assert turn is not None
        legal, extendable = self._closure_state()
        if changed:
            turn.settle_at = None
        if not legal or self._problems():
            return []
        if not extendable:
            return self._commit()
        if self.dice_mode != "manual" and (changed or turn.settle_at is None):
            turn.settle_at = self.now + self.game.settle_ms
        return []

    def _tick(self) -> list[Effect]:
        turn = self.turn
        if self.phase != "play" or turn is None or turn.settle_at is None:
            return []
        if self.now >= turn.settle_at:
            legal, _ = self._closure_state()
            if legal and not self._problems():
                return self._commit()
            turn.settle_at = None
        return []

    def _button(self, button: str, long: bool) -> list[Effect]:
        if self.phase == "idle":
            if button == "next" and not long:
                self.player_count = self.player_count % MAX_PLAYERS + 1
            elif button == "roll" and not long:
                return self._new_game()
            return []
        if self.phase == "over":
            if button == "roll" and not long:
                self.phase = "idle"
            return []
        if self.phase == "confirm":
            if button == "roll" and not long:
                return self._end_game(abandoned=self.rules.match != "pool")
            if button == "next" and not long:
                self.phase = "play"
            return []
        # play
        if button == "next" and long:
            self.phase = "confirm"
            return []
        turn = self.turn
        if turn is None:
            return []
        if button == "roll":
            return self._roll(turn, long)
        return self._next_pressed(turn)

    def _roll(self, turn: Turn, long: bool) -> list[Effect]:
        if self._problems():
            return []  # the screen already says what to fix first
        if turn.dice is not None or (self.dice_mode == "manual" and turn.throw_started):
            legal, extendable = self._closure_state()
            if legal:
                # settle early (or, with manual dice, the next throw is under
                # way): this throw is done, and the same press throws again
                out = self._commit()
                if self.turn is turn:
                    out += self._roll(turn, long)
                return out
            if long and turn.dice is not None and self.game.hints == "on-request":
                turn.hint_shown = True
                return self._hint_effects()
            if self.dice_mode == "manual" and turn.pending:
                turn.note = "not a whole move yet"
            return []
        if self.dice_mode == "manual":
            return self._start_manual_throw(turn)
        open_mask = self.board & ~turn.committed
        counts = allowed_dice_counts(dice_choice(self.rules, open_mask))
        count = 1 if (long and 1 in counts) or counts == (1,) else 2
        return [RollDice(count)]

    def _start_manual_throw(self, turn: Turn) -> list[Effect]:
        turn.throw_started = True
        turn.note = ""
        return [Emit(Rolled(seat=turn.player, player=self.players[turn.player], dice=None,
                            round=self.match.round_number, throw=turn.throws + 1))]

    def _next_pressed(self, turn: Turn) -> list[Effect]:
        """Manual dice: NEXT ends the turn when the player cannot move."""
        if self.dice_mode != "manual" or self._problems():
            return []
        legal, _ = self._closure_state()
        out: list[Effect] = []
        if turn.pending:
            if not legal:
                turn.note = "not a whole move yet"
                return []
            out += self._commit()
            if self.turn is not turn:
                return out
        return out + self._end_turn()

    def _fault(self, fault: InputFault) -> list[Effect]:
        if fault.ok:
            self.faults.pop(fault.source, None)
        else:
            self.faults[fault.source] = fault.message
        return [Emit(Fault(source=fault.source, message=fault.message, ok=fault.ok))]

    # ------------------------------------------------------------------ output

    def _refresh(self) -> list[Effect]:
        """The screen and lights for the current state, when they changed."""
        out: list[Effect] = []
        screen = self.screen()
        if screen != self._last_screen:
            self._last_screen = screen
            out.append(Show(screen))
        leds = self.leds()
        if leds != self._last_leds:
            self._last_leds = leds
            out.append(Lights(leds))
        return out

    def _message(self) -> str | None:
        rejected, reopened = tiles_of(self.rejected()), tiles_of(self.reopened())
        if rejected:
            return self.reasons.get(rejected[0]) or f"lift {flaps_word(rejected)}"
        if reopened:
            return f"{flaps_word(reopened)} was shut earlier: shut it again" \
                if len(reopened) == 1 else f"{flaps_word(reopened)} were shut earlier: shut them again"
        if self.faults:
            source, message = next(iter(self.faults.items()))
            return f"{source}: {message}"
        return None

    def screen(self) -> Screen:
        if self.phase == "idle":
            return AttractScreen(title=self.rules.title, rules_line=self.rules.summary(),
                                 players=self._names(self.player_count))
        if self.phase == "confirm":
            return ConfirmScreen(question="New game?")
        match = self.match
        assert match is not None
        if self.phase == "over":
            return ResultScreen(winners=tuple(self.players[p] for p in match.winners),
                                rows=self._rows(match.rounds[-1] if match.rounds else None))
        turn = self.turn
        if turn is None:
            must_open = tiles_of(self.shut)
            prompt = f"open {flaps_word(must_open)}" if must_open else "lift all flaps"
            if self.between is not None:
                return replace(self.between, prompt=prompt)
            player = self._next_player()
            return PlayScreen(player=self.players[player] if player is not None else "",
                              round=match.round_number, tiles=self.rules.tiles,
                              open_tiles=tuple(range(1, self.rules.tiles + 1)),
                              total=match.totals[player] if player is not None else 0,
                              prompt="lift all flaps",
                              message=prompt if must_open else self._message())
        open_mask = self.board & ~(turn.committed | turn.pending)
        return PlayScreen(player=self.players[turn.player], round=match.round_number,
                          tiles=self.rules.tiles, open_tiles=tuple(tiles_of(open_mask)),
                          total=match.totals[turn.player], dice=turn.dice,
                          prompt=turn.note or self._prompt(turn), message=self._message(),
                          **self._hint_fields(turn))

    def _hint_fields(self, turn: Turn) -> dict:
        if self.advisor is None:
            return {}
        hint = tuple(tiles_of(turn.hint)) if self._hint_visible(turn) and turn.hint else None
        return {"hint": hint, "shut_chance": turn.shut_chance, "move_chance": turn.move_chance}

    def _prompt(self, turn: Turn) -> str:
        open_mask = self.board & ~turn.committed
        choice = dice_choice(self.rules, open_mask)
        if self.dice_mode == "manual":
            if not turn.throw_started:
                return "throw, then ROLL" if choice != "one" else "throw 1 die, then ROLL"
            return "shut; ROLL: next; NEXT: stuck"
        if turn.dice is None:
            if self.dice_mode == "module":
                return "throw the dice"
            return {"two": "ROLL: throw", "one": "ROLL: throw 1 die",
                    "one-or-two": "ROLL: 2 dice, hold: 1"}[choice]
        if turn.settle_at is not None:
            return "more? ROLL: done"
        return f"shut {throw_text(self.rules, turn.dice)}"

    def leds(self) -> LedFrame:
        flaps: list[LedState] = ["off"] * self.rules.tiles
        problem = False
        if self.phase == "play":
            blink = self.shut if self.turn is None else (self.rejected() | self.reopened())
            for tile in tiles_of(blink):
                flaps[tile - 1] = "blink"
            problem = bool(self.turn is not None and blink)
            for tile in tiles_of(self._lit_hint()):
                if flaps[tile - 1] == "off":
                    flaps[tile - 1] = "on"
        problem = problem or bool(self.faults)
        waiting = self.turn is not None and self.turn.dice is None and not problem
        green: LedState = "off" if problem else ("blink" if waiting else "on")
        return LedFrame(flaps=tuple(flaps), green=green, red="on" if problem else "off")

    def _lit_hint(self) -> Mask:
        """Hinted tiles not shut yet: their flap LEDs light."""
        turn = self.turn
        if turn is None or not self._hint_visible(turn):
            return 0
        return (turn.hint or 0) & ~self.shut
