"""The pages as HTML text, built from the same data ``history`` and ``audit`` print.

Every value that comes from the record (player names above all) is escaped;
the pages carry no script except the live page's, served from the box.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from ..game.device_words import device
from ..i18n import N_, language, tr
from ..store.history import scorecard_cells

NAV = (("/", N_("Live")), ("/tonight", N_("Tonight")), ("/history", N_("History")),
       ("/audits", N_("Audits")), ("/faults", N_("Faults")), ("/export", N_("Export")),
       ("/backup", N_("Backup")))


def layout(title: str, body: str, *, live: bool = False) -> str:
    nav = "" if live else "<nav>" + "".join(
        f'<a href="{href}">{tr(name)}</a>' for href, name in NAV) + "</nav>"
    script = '<script src="/static/live.js" defer></script>' if live else ""
    return (f'<!doctype html><html lang="{language()}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title>"
            f'<link rel="stylesheet" href="/static/style.css">{script}</head>'
            f'<body class="{"live" if live else ""}">{nav}<main>{body}</main></body></html>')


def live_page() -> str:
    """The TV page: filled and kept up to date by live.js from the event stream."""
    body = ('<h1 id="title">' + tr("Shut the Box") + '</h1>'
            '<section id="play" hidden><div class="turn" id="turn"></div>'
            '<div class="row"><div class="dice" id="dice"></div>'
            '<div class="side"><table class="players" id="players"></table>'
            '<div class="pot" id="pot"></div></div></div>'
            '<div class="flaps" id="flaps"></div></section>'
            '<section id="between"><div class="result" id="last"></div>'
            '<div class="result note" id="tonight"></div></section>'
            '<div class="stale" id="stale" hidden>' + tr("reconnecting…") + '</div>'
            '<script type="application/json" id="words">' + live_words() + "</script>")
    return layout(tr("Shut the Box"), body, live=True)


# what live.js writes on the TV page, in the catalogue's words ("{name}" filled there)
LIVE_WORDS = (N_("{rules} · round {round}"), N_("{player} — turn over"), N_("{player}'s turn"),
              N_("pot {pot}"), N_("player"), N_("this round"), N_("balance"), N_("total"),
              N_("Last game stopped"), N_("Last game"), N_("no winner"), N_("ahead: {names}"),
              N_("{names} won"), N_("Shut the Box"),
              N_("Tonight: {games} games, {shut} boxes shut"), N_(", best {score} by {player}"))


def live_words() -> str:
    """The live page's words as JSON, safe inside its <script> element."""
    words = {key: tr(key) for key in LIVE_WORDS}
    return json.dumps(words, ensure_ascii=False).replace("<", "\\u003c")


def when(stamp: float | None) -> str:
    """A time the box recorded ("-" where the clock was not set: the Pi has no RTC)."""
    return "-" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Cells already escaped (they may hold links)."""
    return ("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
            + "</table>")


def games_table(games: list[dict[str, Any]]) -> str:
    if not games:
        return '<p class="note">' + tr("No games.") + "</p>"
    rows = []
    for g in games:
        state = (tr("damaged") if g["damaged"] else tr("abandoned") if g["abandoned"]
                 else tr("finished") if g["finished"] else tr("playing"))
        totals = ", ".join(f"{escape(p)} {t}" for p, t in g["totals"].items())
        rows.append([f'<a href="/game/{g["id"]}">#{g["id"]}</a>', when(g["started_at"]),
                     escape(str(g["preset"])), state, str(g["rounds"]), totals,
                     escape(", ".join(g["winners"])) or "-",
                     str(sum(g["boxes_shut"].values()))])
    return table([tr("game"), tr("started"), tr("rules"), tr("state"), tr("rounds"),
                  tr("totals"), tr("winners"), tr("boxes shut")], rows)


def pager(request: Any, games: list[dict[str, Any]], limit: int, more: bool) -> str:
    """The links to the next (older) page of games and back to the newest."""
    links = []
    if request.query_params.get("before") is not None:
        links.append(f'<a href="?limit={limit}">' + tr("newest") + "</a>")
    if more and games:
        links.append(f'<a href="?limit={limit}&amp;before={int(games[-1]["id"])}">'
                     + tr("older") + "</a>")
    return f'<p class="note">{" · ".join(links)}</p>' if links else ""


def scorecard_page(card: dict[str, Any]) -> str:
    cells = scorecard_cells(card)
    head, sub, rounds = cells[0], cells[1], cells[2:]
    rows = [[escape(c) for c in sub], *([escape(c) for c in row] for row in rounds)]
    winners = escape(", ".join(card["winners"])) or "-"
    ended = (tr("abandoned") if card["abandoned"]
             else tr("ended {when}").format(when=when(card["ended_at"])))
    body = ("<h1>" + tr("Game {id} ({rules})").format(
                id=card["id"], rules=escape(str(card["rules"].get("preset")))) + "</h1>"
            + "<p>" + tr("started {when}, {ended}").format(when=when(card["started_at"]),
                                                           ended=ended) + "</p>"
            + table([escape(h) for h in head], rows)
            + "<p>" + tr("winners: {names}").format(names=winners) + "</p>"
            + '<p class="note">' + tr("{throws} throws, {refused} flaps refused.").format(
                throws=len(card["throws"]), refused=card["rejected_flaps"])
            + f' <a href="/game/{card["id"]}.json">JSON</a></p>')
    return layout(tr("Game {id}").format(id=card["id"]), body)


def audits_page(a: dict[str, Any]) -> str:
    figures = [[tr("games"), str(a["games"])], [tr("rounds"), str(a["rounds"])],
               [tr("boxes shut"), str(a["boxes_shut"])]]
    figures += [[tr("average score, {rules}").format(rules=escape(p)), str(v)]
                for p, v in a["average_score"].items()]
    best = [[str(b["score"]), escape(b["name"]), f'<a href="/game/{b["game"]}">#{b["game"]}</a>',
             escape(str(b["rules"])), escape(b["date"] or "-")] for b in a["best"]]
    switches = [[escape(device(k)), str(v)] for k, v in sorted(a["switches"].items())]
    return layout(tr("Audits"), "<h1>" + tr("Audits") + "</h1>"
                  + table([tr("figure"), ""], figures)
                  + "<h2>" + tr("Best scores") + "</h2>"
                  + table([tr("score"), tr("player"), tr("game"), tr("rules"), tr("date")], best)
                  + "<h2>" + tr("Switch actuations") + "</h2>"
                  + table([tr("switch"), tr("count")], switches))


def faults_page(a: dict[str, Any]) -> str:
    faults = [[escape(device(k)), str(v)] for k, v in sorted(a["faults"].items())]
    body = ("<h1>" + tr("Faults") + "</h1><p class=note>"
            + tr("Faults counted per device since the audits were last reset. {command} on "
                 "the box has each one.").format(command="<code>journalctl -u shutbox-hw</code>")
            + "</p>" + (table([tr("device"), tr("faults")], faults) if faults
                        else "<p>" + tr("No faults.") + "</p>"))
    return layout(tr("Faults"), body)


def export_body() -> str:
    return ("<h1>" + tr("Export") + '</h1><ul><li><a href="/export/games.csv">games.csv</a>: '
            + tr("one line per game") + '</li><li><a href="/export/turns.csv">turns.csv</a>: '
            + tr("one line per turn") + "</li></ul>")


def backup_body(on: bool) -> str:
    if not on:
        return ("<h1>" + tr("Backup") + "</h1><p>"
                + tr("Backup is off: no {key} in the config.").format(
                    key="<code>[web] token_file</code>") + "</p>")
    return ("<h1>" + tr("Backup") + "</h1><p>"
            + tr("A consistent copy of the database (SQLite backup), as a download.") + "</p>"
            '<form method="post" action="/backup"><label>' + tr("Token")
            + ' <input type="password" name="token" autocomplete="off"></label> <button>'
            + tr("Download") + "</button></form>")
