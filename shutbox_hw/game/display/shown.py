"""What the box shows of the game right now, as plain data: the one source the
OLED, the TV page, ``/live.json`` and Home Assistant's state take it from.

Pure, like the rest of the game: :func:`.flaps.flap_states` says what each flap
is (the OLED's play screen draws its open flaps from it), :func:`shown` the whole
picture (the phase, the rule set's title, whose turn, the dice or none, every
flap's state with the reason a refused one does not fit). The daemon writes
:func:`shown` into the record after every step (:mod:`shutbox_hw.store.read.shown`),
where the web pages and the MQTT publisher read it back.
"""

from __future__ import annotations

from typing import Any

from ..model.flaps import flap_states
from ..model.state import GameState
from .presentation import Presentation
from .view import fault_line, message, title


def shown(state: GameState, presentation: Presentation | None = None) -> dict[str, Any]:
    """The picture as JSON data: what the TV draws and Home Assistant states.

    ``player`` is the player whose turn it is, or between two turns the one
    who plays next (``turn_over`` then True); ``dice`` None until the throw is
    known and again once it is taken (the OLED's "? ?"); ``reasons`` why each
    refused flap does not fit, as the OLED's bar says it; ``problem`` the bar's
    line while a turn is played, and otherwise the box's fault (the idle screen's
    fault page in one line: the TV says it between games too).
    """
    rules = state.rules
    data: dict[str, Any] = {"phase": state.phase, "title": title(rules),
                            "rules_line": rules.summary(), "round": None, "player": None,
                            "turn_over": False, "dice": None, "flaps": [], "reasons": {},
                            "problem": fault_line(state)}
    join = state.join.url(state.now) if state.phase == "idle" else None
    if join is not None and state.join.code is not None:
        # the TV's QR code (web/content/feed.py hands it on; the MQTT state leaves it out)
        data["join"] = {"url": join, "code": state.join.code.code}
    if state.phase in ("play", "confirm", "over") and state.match is not None:
        turn = state.turn
        seat = turn.player if turn is not None else state.next_player()
        states = flap_states(state) if state.phase != "over" else ()
        reasons = presentation.reasons if presentation is not None else {}
        data.update(
            round=state.match.round_number,
            player=state.players[seat] if seat is not None else None,
            turn_over=turn is None, dice=list(turn.dice) if turn and turn.dice else None,
            flaps=list(states),
            reasons={str(t): reasons.get(t) or "doesn't fit: lift it"
                     for t, s in enumerate(states, start=1) if s == "refused"},
            problem=message(state, presentation) if state.phase == "play"
            else fault_line(state))
    return data
