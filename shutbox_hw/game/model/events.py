"""The game's events: the contract of ``sim --script`` output, the journal and the store.

One frozen dataclass per event. Each carries the seats of the players it
names (so the store needs no name lookups) and :meth:`GameEvent.as_json`
gives the JSON object that is printed and logged, exactly as documented in
docs/network/events.md. Fields marked :func:`hidden` are for the store only and never
appear in the JSON. (The events the *hardware* produces are in
:mod:`shutbox_hw.base.events`.)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, get_args

Tiles = tuple[int, ...]


def hidden() -> Any:
    """A field the store uses that is not part of the JSON contract."""
    return field(metadata={"json": False})


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, kw_only=True)
class GameEvent:
    """Base of every game event; ``name`` is its ``"event"`` value."""
    name: ClassVar[str]

    def as_json(self) -> dict[str, Any]:
        """The JSON object of the contract: ``event`` first, then the fields in order."""
        data: dict[str, Any] = {"event": self.name}
        for f in fields(self):
            if f.metadata.get("json", True):
                data[f.name] = _plain(getattr(self, f.name))
        return data


@dataclass(frozen=True, kw_only=True)
class GameStarted(GameEvent):
    name = "game_started"
    players: tuple[str, ...]
    rules: Mapping[str, Any]
    dice: str


@dataclass(frozen=True, kw_only=True)
class SeatClaimed(GameEvent):
    """While a game is set up, a seat got a player's name: ``source`` "box" (the
    roster on the setup screen) or "phone" (the join page). ``players`` is every
    seat's name for the game as it now stands."""
    name = "seat_claimed"
    seat: int                     # shown: the seats are what setting a game up is about
    player: str
    source: str
    players: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class SeatLeft(GameEvent):
    """While a game is set up, a player named for a seat left it (ROLL on their
    name in the setup screen's roster): the seat goes back to its configured
    name or label. ``players`` is every seat's name as it now stands."""
    name = "seat_left"
    seat: int
    player: str
    source: str
    players: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class TurnStarted(GameEvent):
    name = "turn_started"
    seat: int = hidden()
    player: str
    round: int


@dataclass(frozen=True, kw_only=True)
class Rolled(GameEvent):
    """The dice of a throw (None: manual dice, the player marked a throw)."""
    name = "rolled"
    seat: int = hidden()
    player: str
    dice: tuple[int, ...] | None
    round: int
    throw: int
    source: str = "software"    # "module" (the dice module), "manual" (dice the box never sees)


@dataclass(frozen=True, kw_only=True)
class ThrowCommitted(GameEvent):
    name = "throw_committed"
    seat: int = hidden()
    player: str
    dice: tuple[int, ...] | None
    closed: Tiles
    open: Tiles
    round: int
    throw: int


@dataclass(frozen=True, kw_only=True)
class FlapRejected(GameEvent):
    name = "flap_rejected"
    seat: int = hidden()
    round: int = hidden()
    player: str
    flap: int
    reason: str
    conflicts: Tiles = ()         # the flaps shut this throw that it cannot join


@dataclass(frozen=True, kw_only=True)
class FlapReopened(GameEvent):
    name = "flap_reopened"
    seat: int = hidden()
    round: int = hidden()
    player: str
    flap: int


@dataclass(frozen=True, kw_only=True)
class TurnEnded(GameEvent):
    name = "turn_ended"
    seat: int = hidden()
    player: str
    score: int
    open: Tiles
    shut: bool
    round: int


@dataclass(frozen=True, kw_only=True)
class RoundEnded(GameEvent):
    """A finished round; per-seat values (None: did not play), named in the JSON."""
    name = "round_ended"
    players: tuple[str, ...]
    round: int
    final: tuple[int | None, ...]
    raw: tuple[int | None, ...]
    totals: tuple[int, ...]
    out: tuple[int, ...]
    shut: tuple[int, ...]
    winners: tuple[int, ...]
    balances: tuple[int, ...] | None = None   # pool only
    pot: int | None = None                    # pool only

    def as_json(self) -> dict[str, Any]:
        names = self.players
        data: dict[str, Any] = {
            "event": self.name, "round": self.round,
            "scores": {names[p]: s for p, s in enumerate(self.final) if s is not None},
            "raw": {names[p]: s for p, s in enumerate(self.raw) if s is not None},
            "totals": dict(zip(names, self.totals, strict=True)),
            "out": [names[p] for p in self.out],
            "shut": [names[p] for p in self.shut],
            "winners": [names[p] for p in self.winners]}
        if self.balances is not None:
            data["balances"] = dict(zip(names, self.balances, strict=True))
            data["pot"] = self.pot
        return data


@dataclass(frozen=True, kw_only=True)
class GameEnded(GameEvent):
    name = "game_ended"
    players: tuple[str, ...]
    winners: tuple[int, ...]
    totals: tuple[int, ...]
    rounds: int
    balances: tuple[int, ...] | None = None   # pool only
    abandoned: bool = False                   # stopped before the match was decided

    def winner_names(self) -> list[str]:
        return [self.players[p] for p in self.winners]

    def as_json(self) -> dict[str, Any]:
        names = self.players
        data: dict[str, Any] = {"event": self.name, "winners": self.winner_names(),
                                "totals": dict(zip(names, self.totals, strict=True)),
                                "rounds": self.rounds}
        if self.balances is not None:
            data["balances"] = dict(zip(names, self.balances, strict=True))
        if self.abandoned:
            data["abandoned"] = True
        return data


@dataclass(frozen=True, kw_only=True)
class Resumed(GameEvent):
    """After a restart: whose turn it is (None when nobody's is due)."""
    name = "resumed"
    seat: int | None = hidden()
    player: str | None
    round: int


@dataclass(frozen=True, kw_only=True)
class Hint(GameEvent):
    name = "hint"
    seat: int = hidden()
    player: str
    dice: tuple[int, ...]
    closure: Tiles
    shut_probability: float | None
    move_probability: float | None


@dataclass(frozen=True, kw_only=True)
class Chances(GameEvent):
    """After a commit: the chance to shut from here, and that the next throw moves."""
    name = "chances"
    seat: int = hidden()
    player: str
    open: Tiles
    shut_probability: float
    move_probability: float


@dataclass(frozen=True, kw_only=True)
class Fault(GameEvent):
    """The box noticed a part it cannot trust: ``device`` names it for a person
    ("flap 7", "ROLL", "MCP23017 0x20", "display", "storage")."""
    name = "fault"
    device: str
    detail: str


@dataclass(frozen=True, kw_only=True)
class Recovered(GameEvent):
    """The fault of ``device`` is gone."""
    name = "recovered"
    device: str


@dataclass(frozen=True, kw_only=True)
class ServiceEntered(GameEvent):
    """The operator opened the service menu (both buttons held on the idle screen)."""
    name = "service_entered"


@dataclass(frozen=True, kw_only=True)
class SettingChanged(GameEvent):
    """An adjustment made on the box (stored; it overrides the config file).
    ``value`` None: the box's adjustments were reset to the config file."""
    name = "setting_changed"
    key: str
    value: str | int | tuple[str, ...] | None    # names: one per seat


@dataclass(frozen=True, kw_only=True)
class AuditsReset(GameEvent):
    """The operator reset the audits (switch and fault counts, the games they
    count from); every game stays in the history."""
    name = "audits_reset"


@dataclass(frozen=True, kw_only=True)
class PlayerRemoved(GameEvent):
    """The operator removed a player from the roster (the menu's "remove a
    player"): the store anonymises their games in the step's transaction
    (:func:`shutbox_hw.store.write.forget.forget_player`). The name is the store's
    only: the JSON (the journal, MQTT) is ``{"event": "player_removed"}``, so
    the removal itself leaves no trace of it."""
    name = "player_removed"
    player: str = hidden()


@dataclass(frozen=True, kw_only=True)
class ServiceExited(GameEvent):
    name = "service_exited"


AnyGameEvent = (GameStarted | SeatClaimed | SeatLeft | TurnStarted | Rolled | ThrowCommitted |
                FlapRejected | FlapReopened | TurnEnded | RoundEnded | GameEnded | Resumed |
                Hint | Chances | Fault | Recovered | ServiceEntered | SettingChanged |
                AuditsReset | PlayerRemoved | ServiceExited)
EVENT_TYPES: tuple[type[GameEvent], ...] = get_args(AnyGameEvent)
