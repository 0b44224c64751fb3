"""The pages as HTML text, built from the same data ``history`` and ``audit`` print.

Every value that comes from the record (player names above all) is escaped;
the pages carry no script except the live page's, served from the box.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from ..store.history import scorecard_cells

NAV = (("/", "Live"), ("/tonight", "Tonight"), ("/history", "History"), ("/audits", "Audits"),
       ("/faults", "Faults"), ("/export", "Export"), ("/backup", "Backup"))


def layout(title: str, body: str, *, live: bool = False) -> str:
    nav = "" if live else "<nav>" + "".join(
        f'<a href="{href}">{name}</a>' for href, name in NAV) + "</nav>"
    script = '<script src="/static/live.js" defer></script>' if live else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title>"
            f'<link rel="stylesheet" href="/static/style.css">{script}</head>'
            f'<body class="{"live" if live else ""}">{nav}<main>{body}</main></body></html>')


def live_page() -> str:
    """The TV page: filled and kept up to date by live.js from the event stream."""
    body = ('<h1 id="title">Shut the Box</h1>'
            '<section id="play" hidden><div class="turn" id="turn"></div>'
            '<div class="row"><div class="dice" id="dice"></div>'
            '<div class="side"><table class="players" id="players"></table>'
            '<div class="pot" id="pot"></div></div></div>'
            '<div class="flaps" id="flaps"></div></section>'
            '<section id="between"><div class="result" id="last"></div>'
            '<div class="result note" id="tonight"></div></section>'
            '<div class="stale" id="stale" hidden>reconnecting…</div>')
    return layout("Shut the Box", body, live=True)


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
        return '<p class="note">No games.</p>'
    rows = []
    for g in games:
        state = ("damaged" if g["damaged"] else "abandoned" if g["abandoned"]
                 else "finished" if g["finished"] else "playing")
        totals = ", ".join(f"{escape(p)} {t}" for p, t in g["totals"].items())
        rows.append([f'<a href="/game/{g["id"]}">#{g["id"]}</a>', when(g["started_at"]),
                     escape(str(g["preset"])), state, str(g["rounds"]), totals,
                     escape(", ".join(g["winners"])) or "-",
                     str(sum(g["boxes_shut"].values()))])
    return table(["game", "started", "rules", "state", "rounds", "totals", "winners",
                  "boxes shut"], rows)


def pager(request: Any, games: list[dict[str, Any]], limit: int, more: bool) -> str:
    """The links to the next (older) page of games and back to the newest."""
    links = []
    if request.query_params.get("before") is not None:
        links.append(f'<a href="?limit={limit}">newest</a>')
    if more and games:
        links.append(f'<a href="?limit={limit}&amp;before={int(games[-1]["id"])}">older</a>')
    return f'<p class="note">{" · ".join(links)}</p>' if links else ""


def scorecard_page(card: dict[str, Any]) -> str:
    cells = scorecard_cells(card)
    head, sub, rounds = cells[0], cells[1], cells[2:]
    rows = [[escape(c) for c in sub], *([escape(c) for c in row] for row in rounds)]
    winners = escape(", ".join(card["winners"])) or "-"
    body = (f"<h1>Game {card['id']} ({escape(str(card['rules'].get('preset')))})</h1>"
            f"<p>started {when(card['started_at'])}, "
            f"{'abandoned' if card['abandoned'] else 'ended ' + when(card['ended_at'])}</p>"
            + table([escape(h) for h in head], rows)
            + f"<p>winners: {winners}</p>"
            f'<p class="note">{len(card["throws"])} throws, {card["rejected_flaps"]} flaps '
            f'refused. <a href="/game/{card["id"]}.json">JSON</a></p>')
    return layout(f"Game {card['id']}", body)


def audits_page(a: dict[str, Any]) -> str:
    figures = [["games", str(a["games"])], ["rounds", str(a["rounds"])],
               ["boxes shut", str(a["boxes_shut"])]]
    figures += [[f"average score, {escape(p)}", str(v)] for p, v in a["average_score"].items()]
    best = [[str(b["score"]), escape(b["name"]), f'<a href="/game/{b["game"]}">#{b["game"]}</a>',
             escape(str(b["rules"])), escape(b["date"] or "-")] for b in a["best"]]
    switches = [[escape(k), str(v)] for k, v in sorted(a["switches"].items())]
    return layout("Audits", "<h1>Audits</h1>" + table(["figure", ""], figures)
                  + "<h2>Best scores</h2>" + table(["score", "player", "game", "rules", "date"],
                                                    best)
                  + "<h2>Switch actuations</h2>" + table(["switch", "count"], switches))


def faults_page(a: dict[str, Any]) -> str:
    faults = [[escape(k), str(v)] for k, v in sorted(a["faults"].items())]
    body = ("<h1>Faults</h1><p class=note>Faults counted per device since the audits were "
            "last reset. <code>journalctl -u shutbox-hw</code> on the box has each one.</p>"
            + (table(["device", "faults"], faults) if faults else "<p>No faults.</p>"))
    return layout("Faults", body)


EXPORT = ('<h1>Export</h1><ul><li><a href="/export/games.csv">games.csv</a>: one line per game'
          '</li><li><a href="/export/turns.csv">turns.csv</a>: one line per turn</li></ul>')

BACKUP_FORM = ('<h1>Backup</h1><p>A consistent copy of the database (SQLite backup), as a '
               'download.</p><form method="post" action="/backup">'
               '<label>Token <input type="password" name="token" autocomplete="off"></label> '
               '<button>Download</button></form>')
BACKUP_OFF = ("<h1>Backup</h1><p>Backup is off: no <code>[web] token_file</code> in the "
              "config.</p>")
