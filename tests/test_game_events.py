"""The game events: one class per contract event, checked against docs/network/events.md."""

import json
import re
from pathlib import Path

from shutbox_hw.game.model.events import (
    EVENT_TYPES,
    AuditsReset,
    Chances,
    Fault,
    FlapRejected,
    FlapReopened,
    GameEnded,
    GameStarted,
    Hint,
    PlayerRemoved,
    Recovered,
    Resumed,
    Rolled,
    RoundEnded,
    SeatClaimed,
    SeatLeft,
    ServiceEntered,
    ServiceExited,
    SettingChanged,
    ThrowCommitted,
    TurnEnded,
    TurnStarted,
)

README = Path(__file__).parent.parent / "docs" / "network" / "events.md"
NAMES = ("Ann", "Ben", "Cy")

EXAMPLES = [
    GameStarted(players=NAMES, rules={"preset": "pub"}, dice="software"),
    TurnStarted(seat=1, player="Ben", round=2),
    Rolled(seat=1, player="Ben", dice=(3, 4), round=2, throw=1),
    Rolled(seat=1, player="Ben", dice=None, round=2, throw=2),
    ThrowCommitted(seat=1, player="Ben", dice=(3, 4), closed=(7,), open=(1, 2), round=2,
                   throw=1),
    FlapRejected(seat=1, round=2, player="Ben", flap=6, reason="6 doesn't fit with 7: 4+6 is 10",
                 conflicts=(7,)),
    FlapReopened(seat=1, round=2, player="Ben", flap=5),
    TurnEnded(seat=1, player="Ben", score=3, open=(1, 2), shut=False, round=2),
    RoundEnded(players=NAMES, round=2, final=(8, None, 0), raw=(4, None, 0), totals=(8, 30, 0),
               out=(1,), shut=(2,), winners=(2,)),
    RoundEnded(players=NAMES, round=1, final=(3, 5, 3), raw=(3, 5, 3), totals=(3, 5, 3),
               out=(), shut=(), winners=(0, 2), balances=(0, -1, 0), pot=1),
    GameEnded(players=NAMES, winners=(2,), totals=(8, 30, 0), rounds=2),
    GameEnded(players=NAMES, winners=(0,), totals=(1, 2, 3), rounds=4, balances=(2, -1, -1),
              abandoned=True),
    Resumed(seat=None, player=None, round=1),
    Hint(seat=0, player="Ann", dice=(2, 5), closure=(3, 4), shut_probability=0.25,
         move_probability=1.0),
    Chances(seat=0, player="Ann", open=(1, 9), shut_probability=0.1, move_probability=0.5),
    Fault(device="flap 7", detail="switch chattering"),
    Recovered(device="flap 7"),
    ServiceEntered(),
    SettingChanged(key="preset", value="pub"),
    ServiceExited(),
    AuditsReset(),
    SeatClaimed(seat=2, player="Cy", source="phone", players=NAMES),
    SeatLeft(seat=2, player="Cy", source="box", players=("Ann", "Ben", "P3")),
    PlayerRemoved(player="Cy"),
]


def test_a_removal_names_nobody():
    assert PlayerRemoved(player="Cy").as_json() == {"event": "player_removed"}


def readme_events() -> dict[str, list[str]]:
    """The event list (docs/network/events.md): each event and its fields' first words."""
    text = README.read_text()
    section = text[text.index("Events (a contract"):]
    section = section[:section.index("\n\n")]
    section = section[section.index(":") + 1:]
    events = {}
    for name, fields in re.findall(r"`(\w+)`(?: \(([^)]*)\))?", section):
        events[name] = [re.search(r"\w+", part).group() for part in re.split(r"[,;]", fields)
                        if part.strip()]
    return events


def test_readme_lists_exactly_the_event_classes():
    assert set(readme_events()) == {cls.name for cls in EVENT_TYPES}


def test_readme_fields_are_in_the_json():
    keys: dict[str, set[str]] = {}
    for example in EXAMPLES:
        keys.setdefault(example.name, set()).update(example.as_json())
    assert set(keys) == {cls.name for cls in EVENT_TYPES}  # an example of every event
    for name, fields in readme_events().items():
        assert set(fields) <= keys[name], name


def test_json_names_the_players_and_hides_the_seats():
    for example in EXAMPLES:
        data = example.as_json()
        assert next(iter(data)) == "event" and data["event"] == example.name
        # the seats a game is set up with are what seat_claimed and seat_left are about
        assert ("seat" in data) == (example.name in ("seat_claimed", "seat_left"))
        json.dumps(data)  # plain JSON values only
    pool_round = EXAMPLES[9].as_json()
    assert pool_round == {
        "event": "round_ended", "round": 1, "scores": {"Ann": 3, "Ben": 5, "Cy": 3},
        "raw": {"Ann": 3, "Ben": 5, "Cy": 3}, "totals": {"Ann": 3, "Ben": 5, "Cy": 3},
        "out": [], "shut": [], "winners": ["Ann", "Cy"],
        "balances": {"Ann": 0, "Ben": -1, "Cy": 0}, "pot": 1}
    assert EXAMPLES[8].as_json()["scores"] == {"Ann": 8, "Cy": 0}  # Ben did not play
    assert EXAMPLES[11].as_json() == {
        "event": "game_ended", "winners": ["Ann"], "totals": {"Ann": 1, "Ben": 2, "Cy": 3},
        "rounds": 4, "balances": {"Ann": 2, "Ben": -1, "Cy": -1}, "abandoned": True}
    assert "abandoned" not in EXAMPLES[10].as_json()
    assert EXAMPLES[5].as_json() == {"event": "flap_rejected", "player": "Ben", "flap": 6,
                                     "reason": "6 doesn't fit with 7: 4+6 is 10",
                                     "conflicts": [7]}
