"""States of the TV page for the layout tests: summaries shaped as ``/live.json``
gives them (:func:`shutbox_hw.network.live.live`), from one player to eight, 9
and 12 flaps, a pool's pot, long names, a refused flap with its reason, hints'
accuracy, and between games the last result, tonight, the high scores and the
join code. Names are as long as the box takes them (16 characters)."""

from __future__ import annotations

from typing import Any

from shutbox_hw.base.i18n import tr
from shutbox_hw.game.display.text import throw_sum_text
from shutbox_hw.network.live import TV_CLOCK_NOTES
from shutbox_hw.rules import build_rules

LONG = ("Maximilian-Georg", "Anna-Katharina W", "Bartholomew Finn", "Carla Esposito-R",
        "Dorothea Lindqvi", "Emanuele Ferraro", "Friederike Sauer", "Giovanni Battist")
SHORT = ("Anna", "Bob", "Carla", "Dieter", "Emma", "Franz", "Gina", "Hugo")


def reason() -> str:
    """A refused flap's reason as the box words it (in the language in force)."""
    rules = build_rules("crafthouse-12", {"multiplication": True})
    return tr("{tile} doesn't fit with {flaps}: {sum}").format(
        tile=8, flaps="6, 12", sum=throw_sum_text(rules, (3, 4)))


def storage_fault() -> str:
    """The box's fault as the OLED's bar says it (in the language in force)."""
    from shutbox_hw.words import devices as device_words
    return device_words.fault("storage", "cannot save: SD card read-only")


def tonight(clock: str = "set") -> dict[str, Any]:
    note = TV_CLOCK_NOTES[clock]
    return {"games": 12, "boxes_shut": 3, "best": {"player": LONG[0], "score": 0},
            "clock": clock, "note": tr(note) if note else ""}


def playing(players: int, *, tiles: int = 9, pool: bool = False, long: bool = False,
            refused: bool = False, accuracy: bool = False) -> dict[str, Any]:
    names = (LONG if long else SHORT)[:players]
    flaps = ["open"] * tiles
    flaps[2] = "shut"
    flaps[5] = "pending"
    reasons: dict[str, str] = {}
    problem = None
    if refused:
        flaps[7] = "refused"
        reasons = {"8": reason()}
        problem = reasons["8"]
    summary: dict[str, Any] = {
        "playing": True, "game": 7, "preset": "pub" if pool else "klappenspiel",
        "title": "Pub Pool" if pool else ("1-12 Race" if tiles == 12 else "Klappenspiel"),
        "rules_title": "", "tiles": tiles, "flaps": flaps, "reasons": reasons,
        "problem": problem, "match": "pool" if pool else "elimination", "round": 12,
        "player": names[-1], "turn_over": False, "dice": [3, 4],
        "open": [t for t, s in enumerate(flaps, start=1) if s in ("open", "refused")],
        "pot": 24 if pool else None, "turn_over_next": None,
        "players": [{"name": n, "round_score": 45 if i < players - 1 else None,
                     "total": 123 + i, "balance": (-12 + 3 * i) if pool else None}
                    for i, n in enumerate(names)],
        "tonight": tonight(), "last_result": None, "last_score": 12}
    if accuracy:
        summary["accuracy"] = {"player": names[0], "best": 7, "moves": 9}
    return summary


def high_scores(long: bool) -> dict[str, Any]:
    names = LONG if long else SHORT
    table = [{"name": names[i], "value": 100 - i} for i in range(3)]
    kinds = ("best_turn", "boxes_shut", "wins", "accuracy")
    return {period: {kind: table for kind in kinds} for period in ("tonight", "week", "all_time")}


def between(*, players: int = 3, pool: bool = False, long: bool = False, clock: str = "set",
            join: bool = False, result: bool = True, fault: bool = False,
            league: bool = False) -> dict[str, Any]:
    names = list((LONG if long else SHORT)[:players])
    last = None
    if result:
        last = {"id": 6, "title": "Pub Pool" if pool else "Klappenspiel", "players": names,
                "winners": names[:1], "finished": True, "abandoned": False, "rounds": 5,
                "totals": {n: 10 * i for i, n in enumerate(names)},
                **({"balances": {n: 2 - i for i, n in enumerate(names)}} if pool else {}),
                "state": "finished"}
    summary: dict[str, Any] = {
        "playing": False, "game": None, "player": None, "title": "Klappenspiel",
        "tonight": tonight(clock), "last_result": last, "last_score": 3,
        "high_scores": high_scores(long), "problem": storage_fault() if fault else None}
    if join:
        summary["join"] = {"url": "http://shutbox.local:8080/join/K7Q2", "code": "K7Q2"}
    if league:
        summary["league"] = league_table(long)
    return summary


def league_table(long: bool) -> dict[str, Any]:
    """The league's table as the box keeps it (store/tables/league_table.py): its venue's
    first 8 rows and the league's top 5, at its longest (three-digit points)."""
    names = list(LONG if long else SHORT) * 2

    def rows(count: int) -> list[dict[str, Any]]:
        return [{"rank": i + 1, "player": names[i], "games": 120 - i, "wins": 60 - i,
                 "points": 180 - 3 * i} for i in range(count)]
    return {"season": "Winter league 2026/27" if long else "Winter", "venue":
            "The Crown and Anchor" if long else "Crown", "as_of": "2026-12-05T19:30:00Z",
            "table": rows(8), "top": rows(5)}


def night() -> list[tuple[str, dict[str, Any]]]:
    """Every state the fit test draws, named (in the language in force)."""
    states = [(f"{n} players", playing(n)) for n in range(1, 9)]
    states += [
        ("8 long names, 12 flaps, pool, refused, accuracy",
         playing(8, tiles=12, pool=True, long=True, refused=True, accuracy=True)),
        ("5 players, 12 flaps, refused", playing(5, tiles=12, refused=True)),
        ("2 long names, pool", playing(2, pool=True, long=True)),
        ("3 players, refused, accuracy", playing(3, refused=True, accuracy=True)),
        ("1 long name, 12 flaps, refused", playing(1, tiles=12, long=True, refused=True)),
        ("between: pool, 8 long names, join, clock not set",
         between(players=8, pool=True, long=True, join=True, clock="not set")),
        ("between: 3 players, clock unknown", between(clock="unknown")),
        ("between: pool, 8 long names, join, a storage fault",
         between(players=8, pool=True, long=True, join=True, fault=True)),
        ("between: the first game", between(result=False, join=True)),
        ("between: 3 players, the league's table", between(league=True)),
        ("between: pool, 8 long names, join, the league's table",
         between(players=8, pool=True, long=True, join=True, league=True)),
    ]
    return states
