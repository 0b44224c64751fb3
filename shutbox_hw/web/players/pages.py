"""The players' pages as HTML text, in the pages' design (:mod:`..pages`).

Every name from the record is escaped in the text and percent-encoded in a
link (``/players/Zo%C3%AB``); the leaderboard sorts by links (``?sort=``),
no script.
"""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from ...base.i18n import N_, tr
from ...rules.ruleset import PRESET_TITLES
from ...store.read.highscores import Table
from ...store.tables.player_stats import SORTS, PlayerStats
from ...words.record import shown
from ..content import pages
from ..content.numbers import decimal
from .charts import line_chart

# the leaderboard's columns: (sort key or None, heading)
COLUMNS = (("name", N_("Player")), ("games", N_("Games")), ("wins", N_("Wins")),
           ("win_rate", N_("Win rate")), ("average", N_("Average turn")),
           ("best_turn", N_("Best turn")), ("boxes_shut", N_("Boxes shut")),
           ("best_streak", N_("Best run of wins")), (None, N_("Best moves")))
PERIOD_TITLES = {"tonight": N_("Tonight"), "week": N_("This week"), "all_time": N_("All time")}
TABLE_TITLES = {"best_turn": N_("Best turn"), "boxes_shut": N_("Boxes shut"),
                "wins": N_("Most wins"), "accuracy": N_("Best moves")}


def player_url(name: str, tail: str = "") -> str:
    return "/players/" + quote(name, safe="") + tail


def player_link(name: str) -> str:
    return f'<a href="{escape(player_url(name))}">{escape(name)}</a>'


def _figure(value: float | int | None, unit: str = "") -> str:
    return "–" if value is None else f"{decimal(value)}{unit}"


def _value(kind: str, value: float) -> str:
    return f"{decimal(value)} %" if kind == "accuracy" else decimal(value)


def leaderboard_html(players: list[tuple[PlayerStats, float | None]], sort: str, page: int,
                     more: bool) -> str:
    """``/players``: a page of the roster with each player's figures and accuracy."""
    head = [escape(tr(title)) if key is None or key == sort else
            f'<a href="?sort={key}">{escape(tr(title))}</a>' for key, title in COLUMNS]
    rows = [[player_link(p.name), str(p.games), str(p.wins), _figure(p.win_rate, " %"),
             _figure(p.average), _figure(p.best_turn), str(p.boxes_shut), str(p.best_streak),
             _figure(accuracy, " %")] for p, accuracy in players]
    links = []
    if page > 1:
        links.append(f'<a href="?sort={sort}&amp;page={page - 1}">' + tr("newer") + "</a>")
    if more:
        links.append(f'<a href="?sort={sort}&amp;page={page + 1}">' + tr("more") + "</a>")
    body = ("<h1>" + tr("Players") + "</h1>"
            + '<p class="note">' + tr("Everyone who played with a name. Click a heading to "
                                       "sort by it; “best moves” is the share of moves the "
                                       "solver would have made too.") + "</p>"
            + (pages.table(head, rows) if rows else
               '<p class="note">' + tr("No players yet: seats named in a game become "
                                        "players.") + "</p>")
            + (f'<p class="note">{" · ".join(links)}</p>' if links else "")
            + '<p class="note"><a href="/highscores">' + tr("High scores") + "</a></p>")
    return pages.layout(tr("Players"), body)


def player_html(stats: PlayerStats, accuracy: tuple[float | None, float | None],
                games: list[dict[str, Any]], pager: str, scores: list[tuple[int, int]],
                skill: list[tuple[int, float]]) -> str:
    """``/players/<name>``: the figures, the charts, a page of games, the downloads."""
    name = stats.name
    figures = [[tr("Games finished"), str(stats.games)], [tr("Wins"), str(stats.wins)],
               [tr("Win rate"), _figure(stats.win_rate, " %")],
               [tr("Turns"), str(stats.turns)], [tr("Average turn"), _figure(stats.average)],
               [tr("Best turn"), _figure(stats.best_turn)],
               [tr("Boxes shut"), str(stats.boxes_shut)],
               [tr("Run of wins now"), str(stats.streak)],
               [tr("Best run of wins"), str(stats.best_streak)],
               [tr("Best moves, all time"), _figure(accuracy[0], " %")],
               [tr("Best moves, last 20 games"), _figure(accuracy[1], " %")]]
    figures += [[tr("Average turn, {rules}").format(
                     rules=escape(shown(PRESET_TITLES.get(preset, preset)))),
                 _figure(r.average)] for preset, r in stats.rules.items() if r.turns]
    game_word = tr("Game {id}")
    score_chart = line_chart([(game_word.format(id=g) + f": {s}", s) for g, s in scores],
                             tr("Turn scores, the last games"), low=0)
    skill_chart = line_chart([(game_word.format(id=g) + f": {decimal(p)} %", p) for g, p in skill],
                             tr("Best moves per game"), low=0, high=100, unit=" %")
    rows = [[f'<a href="/game/{g["game"]}">' + game_word.format(id=g["game"]) + "</a>",
             pages.when(g["started_at"], None if g["started_at"] else False),
             escape(shown(PRESET_TITLES.get(g["rules"], g["rules"]))),
             escape(shown(g["state"])), tr("yes") if g["won"] else "–", str(g["turns"]),
             str(g["score_sum"]), str(g["boxes_shut"]), _figure(g["accuracy"], " %")]
            for g in games]
    body = ("<h1>" + escape(name) + "</h1>" + pages.table([tr("Figure"), tr("Value")], figures)
            + "<h2>" + tr("Turn scores") + "</h2>"
            + (score_chart or '<p class="note">' + tr("No turn played yet.") + "</p>")
            + "<h2>" + tr("Best moves over time") + "</h2>"
            + (skill_chart or '<p class="note">' + tr("No move rated yet.") + "</p>")
            + "<h2>" + tr("Games") + "</h2>"
            + (pages.table([tr("Game"), tr("Started"), tr("Rules"), tr("State"), tr("Won"),
                            tr("Turns"), tr("Points"), tr("Boxes shut"), tr("Best moves")],
                           rows) if rows else
               '<p class="note">' + tr("No games yet.") + "</p>") + pager
            + '<p class="note">' + tr("Your games to keep:") + " "
            + f'<a href="{escape(player_url(name, "/games.csv"))}">games.csv</a> · '
            + f'<a href="{escape(player_url(name, "/games.json"))}">games.json</a> · '
            + '<a href="/players">' + tr("All players") + "</a></p>")
    return pages.layout(name, body)


def high_scores_body(tables: list[Table]) -> str:
    """The high-score tables under their periods (the web page; the TV has the same)."""
    out = []
    for period, title in PERIOD_TITLES.items():
        cells = []
        for t in (t for t in tables if t.period == period):
            rows = [[str(i), player_link(n), _value(t.kind, v)]
                    for i, (n, v) in enumerate(t.entries, start=1)]
            cells.append('<div class="scores"><h3>' + escape(tr(TABLE_TITLES[t.kind])) + "</h3>"
                         + (pages.table(["#", tr("Player"), ""], rows) if rows
                            else '<p class="note">–</p>') + "</div>")
        out.append("<h2>" + escape(tr(title)) + '</h2><div class="board">'
                   + "".join(cells) + "</div>")
    return "".join(out)


def high_scores_html(tables: list[Table]) -> str:
    body = ("<h1>" + tr("High scores") + "</h1>"
            + '<p class="note">' + tr("Tonight is the last 12 hours, this week the last 7 "
                                       "days, by the box’s clock; best moves count players "
                                       "with at least 10 rated games.") + "</p>"
            + high_scores_body(tables))
    return pages.layout(tr("High scores"), body)


SORT_KEYS = tuple(SORTS)
