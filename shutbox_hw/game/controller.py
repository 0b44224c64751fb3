"""The referee: a pure state machine from box events to effects.

No I/O, no clock reads, no random numbers. Time arrives in the events'
``at_ms``; dice arrive as :class:`~shutbox_hw.events.DiceRolled`; what the
box should do comes back as effects (:mod:`.effects`): game events to
store, a screen and lights to show (from :mod:`.view`), dice to throw. The
real daemon, the simulator and the tests all drive this one class.

What the referee knows is in :mod:`.state`; the box asks for exactly the
difference between the flaps and that state, whatever caused it: a wrong
flap, a flap shut before the roll, a cheeky lift, or a power cut.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..events import (ButtonLevel, ButtonPressed, DiceRolled, Event, Figures, FlapChanged,
                      InputFault, ServiceRequested, Tick)
from ..leds import LedFrame
from ..rules import (AnyThrow, Dice, Mask, RuleSet, Throw, allowed_dice_counts, dice_choice,
                     ends_round_at_once, finish_round, new_match, rules_from_dict, tile_bit,
                     tiles_of)
from . import advice, endings, service_view, view
from .advice import Advisor
from .config import MAX_PLAYERS, GameConfig
from .effects import Effect, Emit, Lights, RollDice, Show
from .events import FlapRejected, FlapReopened, Fault, GameStarted, Recovered, Resumed, \
    Rolled, ServiceEntered, ThrowCommitted, TurnStarted
from .saved import SavedGame
from .screens import Screen
from .service import ServiceMenu
from .state import DEFAULT_PLAYERS, GameState, Phase, Turn
from .text import wrong_dice_text


class Controller:
    """One game box's referee. Feed :meth:`start` once, then :meth:`handle`."""

    def __init__(self, rules: RuleSet, game: GameConfig | None = None,
                 advisor: Advisor | None = None) -> None:
        game = game or GameConfig()
        self.advisor = advisor if game.hints != "off" else None
        self.state = GameState(rules=rules, game=game, hints_on=self.advisor is not None,
                               player_count=len(game.player_names) or DEFAULT_PLAYERS)
        self._box_rules = rules    # the box's own rules: a resumed game's end restores them
        self._last_screen: Screen | None = None
        self._last_leds: LedFrame | None = None

    def configure(self, rules: RuleSet, game: GameConfig, advisor: Advisor | None,
                  settings: Mapping[str, Any]) -> None:
        """The box's adjustments (the service menu's ``settings``: their values
        now, and the rules, game settings and hints they give). A game in
        progress keeps its own rules; the next one uses these."""
        s = self.state
        self.advisor = advisor if game.hints != "off" else None
        s.game, s.hints_on = game, self.advisor is not None
        s.settings = dict(settings)
        self._box_rules = rules
        if s.match is None or s.phase in ("idle", "service"):
            s.rules = rules
            s.shut &= s.board
            s.player_count = len(game.player_names) or DEFAULT_PLAYERS
        if s.service is not None:
            s.service.values = dict(settings)   # a reset shows the config file's values

    # ------------------------------------------------------------------ entry points

    def start(self, now_ms: int, shut_mask: Mask, saved: SavedGame | None = None) -> list[Effect]:
        """Power on: the flaps as read now, and the unfinished game if there is one."""
        s = self.state
        s.now = now_ms
        out: list[Effect] = []
        if saved is not None:
            self._restore(saved)   # the saved game's rules, and so its board size
        s.shut = shut_mask & s.board
        if saved is not None:
            seat = s.turn.player if s.turn else s.next_player()
            out.append(Emit(Resumed(seat=seat,
                                    player=s.players[seat] if seat is not None else None,
                                    round=s.round_number())))
            if s.rules.tiles > self._box_rules.tiles:
                # its flaps beyond the box's could never be shut: it cannot go on here
                out += endings.end_game(s, abandoned=True)
            else:
                out += self._finish_restored()
            out += self._maybe_start_turn()
        return out + self.refresh()

    def handle(self, event: Event) -> list[Effect]:
        self.state.now = max(self.state.now, event.at_ms)
        if isinstance(event, (FlapChanged, ButtonPressed, DiceRolled)):
            self._hurry()
        out: list[Effect] = []
        if isinstance(event, FlapChanged):
            self.state.flash = ""
            out += self._flap(event.tile, event.shut)
        elif isinstance(event, ButtonPressed):
            self.state.flash = ""
            out += self._button(event.button, event.long)
        elif isinstance(event, DiceRolled):
            out += self._dice(tuple(event.faces), event.source)
        elif isinstance(event, InputFault):
            out += self._fault(event)
        elif isinstance(event, Tick):
            out += self._tick()
        elif isinstance(event, ServiceRequested):
            out += self._service_requested()
        elif isinstance(event, Figures):
            self.state.tonight, self.state.audits = event.tonight, event.audits
        elif isinstance(event, ButtonLevel) and self.state.service is not None:
            self.state.service.hold(event.button.upper(), event.down)   # the switch test
        # a turn that ended with every flap open hands over at once: never a dead end
        return out + self._maybe_start_turn() + self.refresh()

    def next_deadline_ms(self) -> int | None:
        """When the controller next needs a :class:`Tick`: the settle timer, the
        end of a shown step, the next step of the shut-box chase."""
        s = self.state
        times = (s.turn.settle_at if s.turn else None, s.show_until(), view.chase_next_ms(s),
                 view.flash_next_ms(s), view.attract_next_ms(s))
        return min((t for t in times if t is not None), default=None)

    def dice_wanted(self) -> int | None:
        """How many dice the next throw takes when one is due (the dice module's
        own button throws that many), else None."""
        s = self.state
        turn = s.turn
        if s.phase != "play" or turn is None or turn.throw is not None or s.unseen_dice:
            return None
        counts = allowed_dice_counts(dice_choice(s.rules, s.open_mask(turn)))
        return 2 if 2 in counts else 1

    @property
    def phase(self) -> Phase:
        return self.state.phase

    def screen(self) -> Screen:
        """What the OLED shows now."""
        return view.screen(self.state)

    @property
    def showing(self) -> bool:
        """A step of a turn's end is on the screen for its pause."""
        return bool(self.state.shows)

    @property
    def player_count(self) -> int:
        """The players NEXT has chosen for the next game."""
        return self.state.player_count

    # ------------------------------------------------------------------ game setup

    def _new_game(self) -> list[Effect]:
        s = self.state
        s.players = s.names(s.player_count)
        s.match = new_match(len(s.players))
        s.round_played = {}
        s.turn = None
        s.between = None
        s.reasons = {}
        s.phase = "play"
        out: list[Effect] = [Emit(GameStarted(players=s.players, rules=s.rules.as_dict(),
                                              dice=s.game.dice))]
        return out + self._maybe_start_turn()

    def _restore(self, saved: SavedGame) -> None:
        s = self.state
        s.rules = rules_from_dict(saved.rules)  # the game goes on under its own rules
        s.players = tuple(saved.players)
        s.match = new_match(len(s.players))
        for open_masks in saved.rounds:
            s.match = finish_round(s.rules, s.match, list(open_masks))
        s.round_played = dict(saved.played)
        s.phase = "play"
        s.between = None
        if saved.turn is not None:
            committed = 0
            for closed in saved.turn.closed:
                committed |= closed
            turn = s.turn = Turn(player=saved.turn.player, committed=committed,
                                 throws=len(saved.turn.closed))
            if saved.turn.dice is not None:
                turn.throw = Throw(s.rules, s.open_mask(turn), saved.turn.dice)
            elif saved.turn.throw_started:
                turn.throw = AnyThrow(s.rules, s.open_mask(turn))
            advice.prepare_hint(self.state, self.advisor, turn)

    def _finish_restored(self) -> list[Effect]:
        """What the record implies but does not say: finish it.

        A box that wrote each event in a transaction of its own could lose
        power between two writes of one step (this one writes a step at once,
        but its databases live on): a throw recorded with no move left, a
        round whose last turn is recorded, a match decided by its last round.
        Each is finished as the uninterrupted step would have, so the game
        can go on (or is recorded as won).
        """
        s = self.state
        if s.match is None:
            return []
        if s.match.over:
            return endings.end_game(s, abandoned=False)
        turn = s.turn
        if turn is not None:
            open_mask = s.open_mask(turn)
            stuck = (open_mask == 0
                     or (s.unseen_dice and not AnyThrow(s.rules, open_mask).has_move())
                     or (isinstance(turn.throw, Throw) and not turn.throw.has_move()))
            return endings.end_turn(s, turn) if stuck else []
        if s.round_played and (s.next_player() is None or any(
                ends_round_at_once(s.rules, m) for m in s.round_played.values())):
            return endings.end_round(s)
        return []

    # ------------------------------------------------------------------ turn flow

    def _maybe_start_turn(self) -> list[Effect]:
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
        s.between = None
        s.reasons = {}
        out: list[Effect] = [Emit(TurnStarted(seat=player, player=s.players[player],
                                              round=s.round_number()))]
        return out + self._after_board_change(s.turn)

    def _after_board_change(self, turn: Turn) -> list[Effect]:
        """At a turn's start and after each commit: end the turn if nothing can
        follow (the box is shut; with unseen dice, no throw could move)."""
        s = self.state
        open_mask = s.open_mask(turn)
        if open_mask == 0:
            return endings.end_turn(self.state, turn)
        if s.unseen_dice and not AnyThrow(s.rules, open_mask).has_move():
            return endings.end_turn(self.state, turn)
        return advice.chances(self.state, self.advisor, turn)

    def _rolled(self, turn: Turn, dice: Dice | None, source: str) -> Rolled:
        return Rolled(seat=turn.player, player=self.state.players[turn.player], dice=dice,
                      round=self.state.round_number(), throw=turn.throws + 1, source=source)

    def _dice(self, faces: Dice, source: str = "software") -> list[Effect]:
        s = self.state
        turn = s.turn
        if s.phase != "play" or turn is None or s.unseen_dice:
            return []  # nobody asked: a stray throw of the dice module, no turn to tell
        counts = allowed_dice_counts(dice_choice(s.rules, s.open_mask(turn)))
        if turn.throw is not None or s.problems():
            # thrown on the dice module at the wrong moment: refused, and said so
            turn.note = "dice ignored: " + ("fix the flaps first" if s.problems()
                                            else "finish this throw first")
            return []
        if len(faces) not in counts or not all(1 <= f <= 6 for f in faces):
            turn.note = wrong_dice_text(s.rules, len(faces), counts) \
                if all(1 <= f <= 6 for f in faces) else "bad throw: roll again"
            return []
        turn.throw = throw = Throw(s.rules, s.open_mask(turn), faces)
        turn.note = ""
        out: list[Effect] = [Emit(self._rolled(turn, faces, source))]
        if not throw.has_move():
            return out + endings.end_turn(self.state, turn)
        advice.prepare_hint(self.state, self.advisor, turn)
        return out + advice.hint_effects(self.state, turn)

    def _commit(self, turn: Turn) -> list[Effect]:
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
        turn.note = ""
        turn.hint = None
        turn.hint_shown = False
        return out + self._after_board_change(turn)

    # ------------------------------------------------------------------ flaps

    def _flap(self, tile: int, shut: bool) -> list[Effect]:
        s = self.state
        if s.service is not None:
            s.service.switch(f"flap {tile}", shut)
        if not 1 <= tile <= s.rules.tiles:
            return []
        bit = tile_bit(tile)
        was = s.shut
        s.shut = (s.shut | bit) if shut else (s.shut & ~bit)
        if s.shut == was:
            return []
        turn = s.turn
        if s.phase != "play" or turn is None:
            return self._maybe_start_turn()
        self._disarm(turn)
        if not shut:
            s.reasons.pop(tile, None)
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
        reason, conflicts = view.misfit(s, tile, turn.throw, turn.pending)
        s.reasons[tile] = reason
        return [Emit(FlapRejected(seat=turn.player, round=s.round_number(),
                                  player=s.players[turn.player], flap=tile, reason=reason,
                                  conflicts=conflicts))]

    def _closure_state(self, turn: Turn) -> tuple[bool, bool]:
        """(legal, extendable) for the flaps pending in this throw."""
        if not turn.pending or turn.throw is None:
            return False, False
        return turn.throw.is_legal(turn.pending), turn.throw.can_extend(turn.pending)

    def _settle_check(self, turn: Turn, changed: bool) -> list[Effect]:
        """Commit a closure no flap could extend; time one that could still grow
        (with unseen dice, the player says when: ROLL or NEXT)."""
        legal, extendable = self._closure_state(turn)
        if changed:
            turn.settle_at = None
        if not legal or self.state.problems():
            return []
        if not extendable:
            return self._commit(turn)
        if isinstance(turn.throw, Throw) and (changed or turn.settle_at is None):
            turn.settle_at = self.state.now + self.state.game.settle_ms
        return []

    def _tick(self) -> list[Effect]:
        s = self.state
        until = s.show_until()
        if until is not None and s.now >= until:
            self._shown()
        turn = s.turn
        if s.phase != "play" or turn is None or turn.settle_at is None:
            return []
        if s.now >= turn.settle_at:
            legal, _ = self._closure_state(turn)
            if legal and not s.problems():
                return self._commit(turn)
            turn.settle_at = None
        return []

    # ------------------------------------------------------------------ buttons

    def _shown(self) -> None:
        """The step at the head of the queue has been seen: the next one starts."""
        s = self.state
        s.shows.pop(0)
        s.hurried = max(0, s.hurried - 1)
        s.show_since = s.now

    def _hurry(self) -> None:
        """The next player is at it while the last turn's end is still shown: each
        step still queued is shown briefly (never dropped), and the press plays."""
        s = self.state
        if s.shows and s.phase == "play" and s.turn is not None:
            s.hurried = len(s.shows)

    def _button(self, button: str, long: bool) -> list[Effect]:
        s = self.state
        if s.shows and (s.phase == "over" or (s.phase == "play" and s.turn is None)):
            # the press only moves on to the next step, once this one was seen
            if s.now - s.show_since >= s.quick_show_ms():
                self._shown()
            else:
                s.hurried = max(s.hurried, 1)
            return []
        short_roll = button == "roll" and not long
        short_next = button == "next" and not long
        if s.service is not None:
            return self._service_button(s.service, button, long)
        if s.phase == "idle":
            if short_next:
                s.player_count = s.player_count % MAX_PLAYERS + 1
            elif short_roll:
                return self._new_game()
            return []
        if s.phase == "over":
            if short_roll:
                s.phase = "idle"
                s.rules = self._box_rules   # a resumed game's own rules end with it
                s.shut &= s.board
            return []
        if s.phase == "confirm":
            if short_roll or short_next:
                s.show_since = s.now     # a step the question covered is shown in full
            if short_roll:
                return endings.end_game(s, abandoned=s.rules.match != "pool")
            if short_next:
                s.phase = "play"
                return self._maybe_start_turn()  # flaps lifted while it asked
            return []
        if button == "next" and long:
            s.phase = "confirm"
            return []
        if s.turn is None:
            return self._refuse("roll")
        if button == "roll":
            self._disarm(s.turn)
            return self._roll(s.turn, long)
        return self._next_pressed(s.turn)

    # ------------------------------------------------------------------ the operator menu

    def _service_requested(self) -> list[Effect]:
        """Both buttons held (or the service button): the menu opens on the idle screen."""
        s = self.state
        if s.phase != "idle":
            return []     # never in the middle of a game
        s.phase = "service"
        s.service = ServiceMenu.open(s.settings, s.game.name_list)
        return [Emit(ServiceEntered())]

    def _service_button(self, menu: ServiceMenu, button: str, long: bool) -> list[Effect]:
        """NEXT moves, ROLL chooses, a long NEXT goes back; the changes are events
        (the daemon stores them and hands the new settings back in :meth:`configure`)."""
        s = self.state
        menu.audit_lines = len(s.audits)   # the daemon reads them as the menu opens
        out: list[Effect] = [Emit(e) for e in menu.button(button.upper(), long)]
        if menu.done:
            s.service, s.phase = None, "idle"
        return out

    def _refuse(self, button: str) -> list[Effect]:
        """A press that cannot act now: the problem bar flashes why."""
        s = self.state
        s.flash, s.flash_since = view.why_not(s, button), s.now
        return []

    def _disarm(self, turn: Turn) -> None:
        """Anything but a second NEXT takes back the "No move?" question."""
        if turn.next_armed:
            turn.next_armed = False
            turn.note = ""

    def _roll(self, turn: Turn, long: bool) -> list[Effect]:
        s = self.state
        if s.problems():
            return self._refuse("roll")
        if turn.throw is not None:
            legal, _ = self._closure_state(turn)
            if legal:
                # settle early (or, with unseen dice, the next throw is under
                # way): this throw is done, and the same press throws again
                out = self._commit(turn)
                if s.turn is turn:
                    out += self._roll(turn, long)
                return out
            if long and turn.dice is not None and s.game.hints == "on-request":
                turn.hint_shown = True
                return advice.hint_effects(self.state, turn)
            if isinstance(turn.throw, AnyThrow) and turn.pending:
                turn.note = "not a whole move yet"
            return self._refuse("roll")
        open_mask = s.open_mask(turn)
        if s.unseen_dice:      # the players throw now: the box only marks it
            turn.throw = AnyThrow(s.rules, open_mask)
            turn.note = ""
            return [Emit(self._rolled(turn, None, "manual"))]
        counts = allowed_dice_counts(dice_choice(s.rules, open_mask))
        count = 1 if (long and 1 in counts) or counts == (1,) else 2
        return [RollDice(count)]

    def _next_pressed(self, turn: Turn) -> list[Effect]:
        """Unseen dice: NEXT, asked twice, ends the turn when the player cannot move."""
        s = self.state
        if not s.unseen_dice or s.problems():
            return self._refuse("next")
        legal, _ = self._closure_state(turn)
        out: list[Effect] = []
        if turn.pending and not legal:
            turn.note = "not a whole move yet"
            return self._refuse("next")
        if not turn.next_armed:
            turn.next_armed = True
            turn.note = s.flash = "No move? NEXT again"
            s.flash_since = s.now
            return []
        turn.next_armed = False
        turn.note = ""
        if turn.pending:
            out += self._commit(turn)
            if s.turn is not turn:
                return out
        return out + endings.end_turn(self.state, turn)

    def _fault(self, fault: InputFault) -> list[Effect]:
        if fault.ok:
            self.state.faults.pop(fault.source, None)
            return [Emit(Recovered(device=fault.source))]
        self.state.faults[fault.source] = fault.message
        return [Emit(Fault(device=fault.source, detail=fault.message))]

    # ------------------------------------------------------------------ output

    def hints_ready(self) -> list[Effect]:
        """The advisor's tables, solved off the loop, are ready: the turn's hint
        and chances now, and the screen that shows them."""
        s = self.state
        s.hints_ready = True
        if s.turn is not None:
            advice.prepare_hint(s, self.advisor, s.turn)
        return self.refresh()

    def refresh(self) -> list[Effect]:
        """The screen and lights for the current state, when they changed
        (after :meth:`configure`; every entry point ends with it)."""
        out: list[Effect] = []
        screen = self.screen()
        if screen != self._last_screen:
            self._last_screen = screen
            out.append(Show(screen))
        s = self.state
        leds = view.leds(s) if s.service is None else service_view.leds(s.service, s.rules.tiles)
        if leds != self._last_leds:
            self._last_leds = leds
            out.append(Lights(leds))
        return out
