"""The referee: a pure state machine from box events to effects.

No I/O, no clock reads, no random numbers. Time arrives in the events'
``at_ms``; dice arrive as :class:`~shutbox_hw.base.events.DiceRolled`; what the
box should do comes back as effects (:mod:`.effects`): game events to store,
dice to throw. It never builds a screen nor writes a sentence: what happens is
told to an observer (:mod:`.observer`: the display, on the box), and why, as
plain values (:mod:`.reasons`). The controller
(:mod:`shutbox_hw.game.machine.controller`) steps it with the display; the
real daemon, the simulator and the tests all drive that one class.

What the referee knows is in :mod:`..model.state`; the box asks for exactly the
difference between the flaps and that state, whatever caused it: a wrong
flap, a flap shut before the roll, a cheeky lift, or a power cut. Who takes a
press is the mode stack's business (:mod:`..model.modes`): each mode's buttons
are a method here. A turn's flow is in :mod:`.turns`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...base.events import (
    ButtonLevel,
    ButtonPressed,
    DiceRolled,
    Event,
    Figures,
    FlapChanged,
    InputFault,
    JoinCode,
    Roster,
    SeatClaim,
    ServiceRequested,
    Tick,
    TurnRated,
)
from ...players.names import same_player
from ...rules import (
    AnyThrow,
    Mask,
    RuleSet,
    Throw,
    allowed_dice_counts,
    dice_choice,
    ends_round_at_once,
    finish_round,
    new_match,
    rules_from_dict,
)
from ..model import join, modes
from ..model.config import MAX_PLAYERS, GameConfig
from ..model.events import (
    Fault,
    GameStarted,
    PlayerRemoved,
    Recovered,
    Resumed,
    SeatClaimed,
    ServiceEntered,
)
from ..model.modes import ModeName
from ..model.saved import SavedGame
from ..model.service import ServiceMenu
from ..model.state import DEFAULT_PLAYERS, GameState, Phase, Turn
from . import advice, phones, setup
from .advice import Advisor
from .effects import Effect, Emit
from .observer import Observer, Unseen
from .reasons import Remark, SeatRefused
from .turns import Turns

QUESTION_MS = 8000
"""A question ("New game?", "Stop and settle?") nobody answers lapses after this
long: the game plays on and the bar says so (a ROLL meant as a throw half a
minute later must not end the game). Time is the ticks' and events' own."""


class Referee:
    """One game box's referee. Feed :meth:`start` once, then :meth:`handle`."""

    def __init__(self, rules: RuleSet, game: GameConfig | None = None,
                 advisor: Advisor | None = None, observer: Observer | None = None) -> None:
        game = game or GameConfig()
        advisor = advisor if game.hints != "off" else None
        self.state = GameState(rules=rules, game=game, hints_on=advisor is not None,
                               player_count=len(game.player_names) or DEFAULT_PLAYERS)
        self.observer: Observer = observer if observer is not None else Unseen()   # the display
        self.turns = Turns(self.state, self.observer, advisor)
        self._box_rules = rules    # the box's own rules: a resumed game's end restores them
        self.last_claim: SeatClaimed | str | None = None   # the answer to the last claim
        self._buttons: dict[ModeName, Callable[[str, bool], list[Effect]]] = {
            "service": self._service_button_pressed, "confirm": self._confirm_button,
            "ends": self._ends_button, "result": self._result_button,
            "play": self._play_button, "roster": self._roster_button,
            "second-seat": self._second_seat_button,
            "attract": self._idle_button}   # each mode's buttons (the stack's order: modes.py)

    def configure(self, rules: RuleSet, game: GameConfig, advisor: Advisor | None,
                  settings: Mapping[str, Any]) -> None:
        """The box's adjustments (the service menu's ``settings``: their values
        now, and the rules, game settings and hints they give). A game in
        progress keeps its own rules; the next one uses these."""
        s = self.state
        self.turns.advisor = advisor if game.hints != "off" else None
        s.game, s.hints_on = game, self.advisor is not None
        s.settings = dict(settings)
        self._box_rules = rules
        if s.match is None or s.phase in ("idle", "service"):
            s.rules = rules
            s.shut &= s.board
            s.player_count = len(game.player_names) or DEFAULT_PLAYERS
        if s.service is not None:
            s.service.values = dict(settings)   # a reset shows the config file's values

    @property
    def advisor(self) -> Advisor | None:
        """The hints' solver, when hints are on."""
        return self.turns.advisor

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
                out += self.turns.end_game(abandoned=True)
            else:
                out += self._finish_restored()
            out += self.turns.maybe_start()
        return out

    def handle(self, event: Event) -> list[Effect]:
        self.state.now = max(self.state.now, event.at_ms)
        out: list[Effect] = self._question_lapsed()   # before anything it was asked for
        phones.lapse(self.state, self.observer)        # a second seat from one phone too
        if isinstance(event, (FlapChanged, ButtonPressed, DiceRolled)):
            self._ends_give_way(event)
        if isinstance(event, FlapChanged):
            self.observer.acted()
            out += self._flap(event.tile, event.shut)
        elif isinstance(event, ButtonPressed):
            self.observer.acted()
            out += self._button(event.button, event.long)
        elif isinstance(event, DiceRolled):
            out += self.turns.dice(tuple(event.faces), event.source)
        elif isinstance(event, InputFault):
            out += self._fault(event)
        elif isinstance(event, Tick):
            out += self._tick()
        elif isinstance(event, ServiceRequested):
            out += self._service_requested()
        elif isinstance(event, Figures):
            self.state.tonight, self.state.audits = event.tonight, event.audits
            self.state.high_scores = event.high_scores
        elif isinstance(event, Roster):
            self._roster(event.names)
        elif isinstance(event, SeatClaim):
            out += self._seat_claim(event)
        elif isinstance(event, TurnRated):
            self.observer.turn_rated(self.state, event)
        elif isinstance(event, JoinCode):
            self.state.join.hand_in(event)
        elif isinstance(event, ButtonLevel) and self.state.service is not None:
            self.state.service.hold(event.button.upper(), event.down)   # the switch test
        # a turn that ended with every flap open hands over at once: never a dead end
        return out + self.turns.maybe_start()

    def next_deadline_ms(self) -> int | None:
        """When the referee next needs a :class:`Tick`: a question's lapse, the
        settle timer, a second seat's question lapsing (the display has deadlines
        of its own)."""
        s = self.state
        asked = s.asked_at + QUESTION_MS if s.phase == "confirm" else None
        times = (asked, s.turn.settle_at if s.turn else None, phones.lapses_at(s))
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

    @property
    def player_count(self) -> int:
        """The players NEXT has chosen for the next game."""
        return self.state.player_count

    # ------------------------------------------------------------------ game setup

    def _roster(self, names: tuple[str, ...]) -> None:
        """The record's players (the daemon read them again): an open roster keeps
        its highlighted name where it can."""
        s = self.state
        if s.picking is not None:
            current = s.roster[s.picking] if s.picking < len(s.roster) else None
            s.picking = names.index(current) if current in names else min(s.picking,
                                                                           len(names))
        s.roster = names
        if s.service is not None:
            s.service.roster = names

    def _seat_claim(self, claim: SeatClaim) -> list[Effect]:
        """A name for the next free seat (game/referee/setup.py); a refusal from the box flashes
        its reason. A phone's claim needs the current join code, within the rate limit,
        one seat a phone (game/model/join.py); a phone's refusal is the phone's business and
        never flashes on the box. :attr:`last_claim` is the answer (the daemon hands
        it back to the phone)."""
        s = self.state
        phone = claim.source == "phone"
        if phone:
            refused = s.join.refusal(claim, s.now, s.phase == "idle",
                                     lambda name: setup.seat_of(s, name) is not None)
            if refused:     # one seat a phone: a second is put to the box (phones.py)
                self.last_claim = phones.ask(s, claim) if refused == join.ONE_SEAT else refused
                return []
        self.last_claim = claimed = setup.claim_seat(s, claim.name, claim.source)
        if isinstance(claimed, setup.Refusal):
            if not phone:
                self.observer.refuse(s, SeatRefused(claimed.box))
            return []
        if phone:
            s.join.seated(claim, claimed.player)
        return [Emit(claimed)]

    def _new_game(self) -> list[Effect]:
        s = self.state
        s.players = s.names(s.player_count)
        setup.clear_claims(s)
        s.picking = None
        s.join.spend()     # the next setup gets a code of its own
        s.match = new_match(len(s.players))
        s.round_played = {}
        s.turn = None
        self.observer.new_turn()
        s.phase = "play"
        out: list[Effect] = [Emit(GameStarted(players=s.players, rules=s.rules.as_dict(),
                                              dice=s.game.dice))]
        return out + self.turns.maybe_start()

    def _restore(self, saved: SavedGame) -> None:
        s = self.state
        s.rules = rules_from_dict(saved.rules)  # the game goes on under its own rules
        s.players = tuple(saved.players)
        s.match = new_match(len(s.players))
        for open_masks in saved.rounds:
            s.match = finish_round(s.rules, s.match, list(open_masks))
        s.round_played = dict(saved.played)
        s.phase = "play"
        self.observer.game_ended()     # nothing of a game before rests on the screen
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
            return self.turns.end_game(abandoned=False)
        turn = s.turn
        if turn is not None:
            open_mask = s.open_mask(turn)
            stuck = (open_mask == 0
                     or (s.unseen_dice and not AnyThrow(s.rules, open_mask).has_move())
                     or (isinstance(turn.throw, Throw) and not turn.throw.has_move()))
            return self.turns.end_turn(turn) if stuck else []
        if s.round_played and (s.next_player() is None or any(
                ends_round_at_once(s.rules, m) for m in s.round_played.values())):
            return self.turns.end_round()
        return []

    # ------------------------------------------------------------------ flaps

    def _flap(self, tile: int, shut: bool) -> list[Effect]:
        s = self.state
        if s.service is not None:
            s.service.switch(f"flap {tile}", shut)
        if not 1 <= tile <= s.rules.tiles:
            return []
        return self.turns.flap(tile, shut)

    def _tick(self) -> list[Effect]:
        self.observer.tick(self.state)     # a step of an end seen long enough gives way
        return self.turns.settle()

    # ------------------------------------------------------------------ the ends on screen

    def _ends_give_way(self, event: FlapChanged | ButtonPressed | DiceRolled) -> None:
        """The next player plays (a throw, a flap, a press) while the last end's
        steps are still queued: they give way, and the screen is the turn being
        played at once, whatever the pace (never the previous player's end, its
        "lift" naming flaps the new player shut). A long NEXT asks a question and
        a press answers one: neither plays, so the steps wait for the answer."""
        s = self.state
        if not self.observer.ends_queued() or s.turn is None:
            return
        if isinstance(event, FlapChanged):
            plays = s.phase in ("play", "confirm")    # a flap moved under the question too
        elif isinstance(event, ButtonPressed):
            plays = s.phase == "play" and not (event.button == "next" and event.long)
        else:
            plays = s.phase == "play"
        if plays:
            self.observer.give_way()

    # ------------------------------------------------------------------ buttons

    def _button(self, button: str, long: bool) -> list[Effect]:
        """ROLL or NEXT, short or long: what it means is the business of the mode
        that owns the buttons now (game/model/modes.py: the one priority chain)."""
        owner = modes.buttons(self.state, self.observer.ends_queued())
        return self._buttons[owner](button, long)

    def _ends_button(self, button: str, long: bool) -> list[Effect]:
        """The steps of an end on the screen: a press only moves on to the next,
        once this one was seen for the least time; else this one is cut short to that."""
        self.observer.step_seen(self.state)
        return []

    def _result_button(self, button: str, long: bool) -> list[Effect]:
        """The result: ROLL goes back to setting up the next game."""
        s = self.state
        if button == "roll" and not long:
            s.phase = "idle"
            s.rules = self._box_rules   # a resumed game's own rules end with it
            s.shut &= s.board
        return []

    def _play_button(self, button: str, long: bool) -> list[Effect]:
        """A match: a long NEXT asks to stop, ROLL throws or takes the closure,
        NEXT (unseen dice) says there is no move."""
        s = self.state
        if button == "next" and long:
            s.phase, s.asked_at = "confirm", s.now
            return []
        if s.turn is None:
            return self.turns.refuse("roll")
        if button == "roll":
            self.turns.disarm(s.turn)
            return self.turns.roll(s.turn, long)
        return self.turns.next_pressed(s.turn)

    def _service_button_pressed(self, button: str, long: bool) -> list[Effect]:
        assert self.state.service is not None
        return self._service_button(self.state.service, button, long)

    def _second_seat_button(self, button: str, long: bool) -> list[Effect]:
        """The box asks about a second seat from one phone: ROLL seats, NEXT refuses."""
        return phones.answer(self.state, self.observer, button, long)

    def _idle_button(self, button: str, long: bool) -> list[Effect]:
        """NEXT chooses how many play (one more), a long NEXT opens the roster;
        ROLL starts the game, a long ROLL makes it one player fewer."""
        s = self.state
        if button == "next" and long:
            if s.roster:
                s.picking = 0
            else:
                self.observer.refuse(s, Remark("no-names"))
        elif button == "next" or long:
            s.player_count = (s.player_count + (-2 if long else 0)) % MAX_PLAYERS + 1
        else:
            return self._new_game()
        return []

    def _roster_button(self, button: str, long: bool) -> list[Effect]:
        """The roster on the setup screen: NEXT moves (past "back": closed), a long
        NEXT closes it; ROLL gives the name the next free seat, or takes a seated
        name off its seat (game/referee/setup.py, one rule with a phone's claims)."""
        s = self.state
        assert s.picking is not None
        at_back = s.picking >= len(s.roster)
        if button == "next" and not long:
            s.picking = None if at_back else s.picking + 1
            return []
        if button == "next" or at_back:
            s.picking = None
            return []
        name = s.roster[s.picking]
        done = (setup.leave_seat(s, name, "box") if setup.seat_of(s, name) is not None
                else setup.claim_seat(s, name, "box"))
        if isinstance(done, str):
            self.observer.refuse(s, SeatRefused(done.box))
            return []
        return [Emit(done)]

    def _question_lapsed(self) -> list[Effect]:
        """A question unanswered for :data:`QUESTION_MS`: the game plays on, and
        the bar says the question lapsed."""
        s = self.state
        if s.phase != "confirm" or s.now < s.asked_at + QUESTION_MS:
            return []
        s.phase = "play"
        self.observer.question_gone(s.now)   # a step the question covered is shown in full
        self.observer.refuse(s, Remark("question-lapsed"))
        return self.turns.maybe_start()

    def _confirm_button(self, button: str, long: bool) -> list[Effect]:
        """"New game?" (or "Stop and settle?"): ROLL ends the game, NEXT plays on."""
        s = self.state
        if long:
            return []
        self.observer.question_gone(s.now)   # a step the question covered is shown in full
        if button == "roll":
            return self.turns.end_game(abandoned=s.rules.match != "pool")
        s.phase = "play"
        return self.turns.maybe_start()  # flaps lifted while it asked

    # ------------------------------------------------------------------ the operator menu

    def _service_requested(self) -> list[Effect]:
        """Both buttons held (or the service button): the menu opens on the idle screen."""
        s = self.state
        if s.phase != "idle":
            return []     # never in the middle of a game
        s.phase = "service"
        s.service = ServiceMenu.open(s.settings, s.game.name_list, s.roster)
        return [Emit(ServiceEntered())]

    def _service_button(self, menu: ServiceMenu, button: str, long: bool) -> list[Effect]:
        """NEXT moves, ROLL chooses, a long NEXT goes back; the changes are events
        (the daemon stores them and hands the new settings back in :meth:`configure`)."""
        s = self.state
        menu.audit_lines = len(s.audits)   # the daemon reads them as the menu opens
        events = menu.button(button.upper(), long)
        for event in events:
            if isinstance(event, PlayerRemoved):    # gone from the roster and any seat now
                s.roster = tuple(n for n in s.roster if not same_player(n, event.player))
                for seat, name in list(s.claimed.items()):
                    if same_player(name, event.player):
                        del s.claimed[seat]
        out: list[Effect] = [Emit(e) for e in events]
        if menu.done:
            s.service, s.phase = None, "idle"
        return out

    def _fault(self, fault: InputFault) -> list[Effect]:
        if fault.ok:
            self.state.faults.pop(fault.source, None)
            return [Emit(Recovered(device=fault.source))]
        self.state.faults[fault.source] = fault.message
        return [Emit(Fault(device=fault.source, detail=fault.message))]

    # ------------------------------------------------------------------ output

    def hints_ready(self) -> None:
        """The advisor's tables, solved off the loop, are ready: the turn's hint
        and chances now."""
        s = self.state
        s.hints_ready = True
        if s.turn is not None:
            advice.prepare_hint(s, self.advisor, s.turn)
