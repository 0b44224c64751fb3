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

from ...base.i18n import N_, language, ngettext, tr
from ...network.live import TV_CLOCK_NOTES
from ...rules.ruleset import HOUSE_RULES, PRESET_TITLES, preset_title
from ...store.read.history import CardRow, card_layout
from ...words import rules as rule_words
from ...words.devices import device
from ...words.numbers import decimal
from ...words.record import (
    HIGH_SCORE_PERIODS,
    HIGH_SCORE_TABLES,
    count,
    game_state,
    rules_shown,
    shown,
)
from .reader import NO_DATABASE

NAV = (("/", N_("Live")), ("/tonight", N_("Tonight")), ("/history", N_("History")),
       ("/players", N_("Players")),
       ("/audits", N_("Audits")), ("/faults", N_("Faults")), ("/export", N_("Export")),
       ("/backup", N_("Backup")))

CLOCK_HIDDEN = N_("A time shows as “clock not set” where the box’s clock had not "
                "been set by a time server when it was taken (the box has no battery clock): "
                "it would be wrong. The games are still in the order they were played.")


def layout(title: str, body: str, *, live: bool = False) -> str:
    links = "".join(f'<a href="{href}">{tr(name)}</a>' for href, name in NAV)
    nav = f'<nav class="links">{links}</nav>' if live else f"<nav>{links}</nav>"
    script = '<script src="/static/live.js" defer></script>' if live else ""
    return (f'<!doctype html><html lang="{language()}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title>"
            f'<link rel="stylesheet" href="/static/style.css">{script}</head>'
            f'<body class="{"live" if live else ""}">'
            + (f"<main>{body}</main>{nav}" if live else f"{nav}<main>{body}</main>")
            + "</body></html>")


def live_page() -> str:
    """The TV page: filled and kept up to date by live.js from the event stream."""
    body = ('<h1 id="title">' + tr("Shut the Box") + '</h1>'
            '<section id="play" hidden><div class="turn" id="turn"></div>'
            '<div class="accuracy" id="accuracy"></div>'
            '<div class="row"><div class="dice" id="dice"></div>'
            '<div class="side"><table class="players" id="players"></table>'
            '<div class="pot" id="pot"></div></div></div>'
            '<div class="flaps" id="flaps"></div><div class="problem" id="problem"></div>'
            '</section>'
            '<section id="between" class="between"><div class="side">'
            '<div class="problem" id="fault" hidden></div>'
            '<div class="result" id="last"></div>'
            '<div class="result note" id="tonight"></div>'
            '<div class="board tv" id="scores"></div>'
            '<div id="league" hidden><div class="board tv" id="leagueboard"></div>'
            '<div class="result note" id="leagueasof"></div></div></div>'
            '<div class="joinbox" id="join" hidden><img id="joinqr" alt="QR">'
            '<div class="scan">' + tr("Scan to join the next game") + '</div>'
            '<div class="note" id="joinurl"></div></div></section>'
            '<div class="stale" id="stale" hidden>' + tr("reconnecting…") + '</div>'
            '<script type="application/json" id="words">' + live_words() + "</script>")
    return layout(tr("Shut the Box"), body, live=True)


# what live.js writes on the TV page, in the catalogue's words ("{name}" filled there)
LIVE_WORDS = (N_("{rules} · round {round}"), N_("{player}'s turn"),
              N_("pot {pot}"), N_("player"), N_("this round"), N_("balance"), N_("total"),
              N_("Last game, stopped: {title}"), N_("Last game: {title}"), N_("no winner"),
              N_("{names} won"), N_("Shut the Box"), N_("{player} plays next"),
              N_("Tonight: {games}, {shut}"), N_(", best {score} by {player}"),
              N_("{player}: {best} of 1 best move"), N_("{player}: {best} of {moves} best moves"),
              # the high scores between games (store/read/highscores.py's periods and tables)
              *HIGH_SCORE_PERIODS.values(), *HIGH_SCORE_TABLES.values(),
              # the rule sets' titles as the record names them, and why there is no game yet
              *PRESET_TITLES.values(), HOUSE_RULES, NO_DATABASE, N_("unknown rules"),
              # ... and the words of a rules line (live.js builds it from the summary's
              # title_parts: words/rules.py's summary_parts)
              # the league's table between games (store/tables/league_table.py)
              N_("League: {season}"), N_("Top of the league"), N_("League table as of {date}"),
              N_("{n} tiles"), N_("x allowed"), *rule_words.CLOSURE.values(),
              *rule_words.MATCH.values(), *rule_words.UP_TO.values())


# a flap's hover text on the TV (live.js: "flap:" and its state), its reason after it
FLAP_STATES = {"open": N_("flap {n}: open"), "shut": N_("flap {n}: shut"),
               "pending": N_("flap {n}: pending"), "refused": N_("flap {n}: refused"),
               "lifted": N_("flap {n}: lifted")}


# the TV's line when the feed says why it is not live in a sentence the catalogue lacks
STALE_WHY = {"unavailable": N_("The box's record cannot be read now"),
             "damaged": N_("The box's record has a damaged row: the TV waits for the next game")}


# ... and the counts, each in both forms (the page picks by its number: 1 or more)
LIVE_PLURALS = (("{n} game", "{n} games"), ("{n} box shut", "{n} boxes shut"))


def live_words() -> str:
    """The live page's words as JSON, safe inside its <script> element."""
    words = {key: tr(key) for key in LIVE_WORDS}
    for one, many in LIVE_PLURALS:
        words[one], words[many] = ngettext(one, many, 1), ngettext(one, many, 2)
    # the league table's points (spelled out here: no other page counts points)
    words["{n} point"] = ngettext("{n} point", "{n} points", 1)
    words["{n} points"] = ngettext("{n} point", "{n} points", 2)
    # tonight's clock line by its state: the summary's own note is in the language
    # it was computed in (one summary for TVs of every language)
    for state, note in TV_CLOCK_NOTES.items():
        words["clock:" + state] = tr(note) if note else ""
    # why the TV is not live, where the feed's reason is an English sentence of the
    # web's (a database's fault, a damaged row): in English that sentence, else this
    for state, said in FLAP_STATES.items():
        words["flap:" + state] = tr(said)
    for kind, why in STALE_WHY.items():
        words["stale:" + kind] = "" if language() == "en" else tr(why)
    return json.dumps(words, ensure_ascii=False).replace("<", "\\u003c")


def error_page(status: int, detail: str, quoted: str = "") -> str:
    """A page that is not there (or cannot be shown), in the pages' own design;
    ``quoted``: the box's own line for whoever mends it, as code (not translated)."""
    heading = tr({404: N_("Not found"), 409: N_("Cannot be shown"), 400: N_("Not understood"),
                  503: N_("Not available now")}.get(status, N_("Something went wrong")))
    body = (f"<h1>{heading}</h1><p>{escape(detail[:1].upper() + detail[1:])}.</p>"
            + (f'<p class="note"><code>{escape(quoted)}</code></p>' if quoted else "")
            + '<p class="note"><a href="/history">' + tr("All games") + "</a> · "
            '<a href="/">' + tr("Live") + "</a></p>")
    return layout(heading, body)


def unavailable_page(detail: str) -> str:
    """Why the record cannot be read now (a 503), for a person, in the page's language: a
    sentence the catalogue has no words for (a database's fault with its figures) is
    said as the record's state, the box's own line quoted under it (it was an English
    sentence under "Gerade nicht verfügbar")."""
    said = tr(detail)
    if said != detail or language() == "en":
        return error_page(503, said)
    return error_page(503, tr(STALE_WHY["unavailable"]), quoted=detail)


def when(stamp: float | None, synced: bool | None = True) -> str:
    """A time the box recorded; "clock not set" where it was not (the Pi has no RTC)."""
    if stamp is None:
        return tr("clock not set") if synced is False else "–"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _in_text(shown: str) -> str:
    """A time inside a sentence: "clock not set" in brackets."""
    return shown if shown[:1].isdigit() else f"({shown})"


def table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Cells already escaped (they may hold links)."""
    return ("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
            + "</table>")


def _scores(g: dict[str, Any]) -> str:
    """A pool's balances (what they play for), else the totals."""
    if "balances" in g:
        return ", ".join(f"{escape(p)} {b:+d}" for p, b in g["balances"].items())
    return ", ".join(f"{escape(p)} {t}" for p, t in g["totals"].items())


def games_table(games: list[dict[str, Any]], empty: str = N_("No games yet.")) -> str:
    if not games:
        return f'<p class="note">{escape(tr(empty))}</p>'
    rows = []
    for g in games:
        rows.append([f'<a href="/game/{g["id"]}">' + tr("Game {id}").format(id=g["id"]) + "</a>",
                     when(g["started_at"], g["clock_synced"]["started"]),
                     escape(rules_shown(g["rules_table"]) if "rules_table" in g
                            else shown(str(g["title"]))), escape(tr(g["state"])), str(g["rounds"]),
                     _scores(g),
                     escape(", ".join(g["winners"])) or "–",
                     str(sum(g["boxes_shut"].values()))])
    hidden = any(g["started_at"] is None for g in games)
    return (table([tr("Game"), tr("Started"), tr("Rules"), tr("State"), tr("Rounds played"),
                   tr("Scores"), tr("Winner"), tr("Boxes shut")], rows)
            + (f'<p class="note">{tr(CLOCK_HIDDEN)}</p>' if hidden else ""))


def tonight_body(figures: Any, games_list: list[dict[str, Any]], note: str) -> str:
    """Tonight's figures (the idle screen's and the TV's, the same function) and its games."""
    best = ("" if figures.best is None else
            tr(", best turn {score} by {player}").format(score=figures.best[1],
                                                          player=escape(figures.best[0])))
    return ("<h1>" + tr("Tonight") + "</h1>"
            '<p class="figures">'
            + count(figures.games, "{n} game finished", "{n} games finished") + ", "
            + count(figures.boxes_shut, "{n} box shut", "{n} boxes shut") + f"{best}.</p>"
            '<p class="note">' + tr("Tonight is every game started in the last 12 hours by "
                                    "the box’s clock; the figures count the finished ones, "
                                    "as the box and the TV do.") + "</p>"
            + (f'<p class="note">{escape(tr(note))}</p>' if note else "")
            + games_table(games_list, N_("No games tonight yet.")))


def pager(request: Any, games: list[dict[str, Any]], limit: int, more: bool) -> str:
    """The links to the next (older) page of games and back to the newest."""
    links = []
    if request.query_params.get("before") is not None:
        links.append(f'<a href="?limit={limit}">' + tr("newest") + "</a>")
    if more and games:
        links.append(f'<a href="?limit={limit}&amp;before={int(games[-1]["id"])}">'
                     + tr("older") + "</a>")
    return f'<p class="note">{" · ".join(links)}</p>' if links else ""


def _scorecard_row(row: CardRow, pool: bool, doubled: bool) -> str:
    """One finished round of the scorecard: each player's score (and after doubling),
    their total or balance, the pot in a pool, who shut the box."""
    cells = [str(row.round)]
    for cell in row.cells:
        cells.append("–" if cell.raw is None else str(cell.raw))
        if doubled:
            cells.append("–" if cell.final is None else str(cell.final))
        value = cell.balance if pool else cell.total
        cells.append("–" if value is None else str(value))
    if pool:
        cells.append("–" if row.pot is None else row.pot)
    cells.append(escape(", ".join(row.shut)) or "–")
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _unfinished_row(left: dict[str, Any], abandoned: bool, players: list[str], pool: bool,
                    columns: int) -> str:
    """The round a stop cut short (or still being played): its scores, no totals."""
    word = tr("stopped") if abandoned else tr("being played")
    cells = [f"{left['round']} ({word})"]
    for p in players:
        score = left["scores"].get(p)
        cells += ["–" if score is None else str(score)] + [""] * (columns - 1)
    cells += ([""] if pool else []) + [""]
    return '<tr class="unfinished">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def scorecard_page(card: dict[str, Any]) -> str:
    """One game: each round's scores under words (the score a player made, what it
    became after doubling where anything was doubled, the running total or a
    pool's balance), the round a stop cut short, who won."""
    cells = card_layout(card)        # the one layout, history --game's too
    players, pool, doubled = list(cells.players), cells.pool, cells.doubled
    columns = [tr("score"), *([tr("after doubling")] if doubled else []),
               tr("balance") if pool else tr("total")]
    head = ("<tr><th rowspan=2>" + tr("Round") + "</th>"
            + "".join(f'<th colspan={len(columns)}>{escape(p)}</th>' for p in players)
            + ("<th rowspan=2>" + tr("Pot") + "</th>" if pool else "")
            + "<th rowspan=2>" + tr("Shut the box") + "</th></tr>"
            + "<tr>" + "".join(f"<th>{c}</th>" for _ in players for c in columns) + "</tr>")
    rows = [_scorecard_row(row, pool, doubled) for row in cells.rows]
    left = card.get("unfinished_round")
    if left is not None:
        rows.append(_unfinished_row(left, card["abandoned"], players, pool, len(columns)))
    state = game_state(card)
    ended = (tr("stopped before its end: nobody won") if state == "stopped" else
             tr("still being played") if state == "playing" else
             tr("ended {when}").format(
                 when=_in_text(when(card["ended_at"], card["clock_synced"]["ended"]))))
    winners = escape(", ".join(card["winners"])) or "–"
    hidden = card["started_at"] is None or (card["ended_at"] is None and state != "playing")
    started = _in_text(when(card['started_at'], card['clock_synced']['started']))
    unfinished = ("" if left is None else
                  tr("Round {round} was stopped before its end: its scores are shown, and "
                     "counted in no total.") if card["abandoned"] else
                  tr("Round {round} was not finished before its end: its scores are shown, "
                     "and counted in no total."))
    body = ("<h1>" + tr("Game {id}: {rules}").format(
                id=card["id"], rules=escape(rules_shown(card["rules"]))) + "</h1>"
            + "<p>" + tr("Started {when}, {ended}.").format(when=started, ended=ended) + "</p>"
            + (f"<table>{head}{''.join(rows)}</table>" if rows else
               '<p class="note">' + tr("No turn was finished.") + "</p>")
            + ("" if left is None else
               '<p class="note">' + unfinished.format(round=left["round"]) + "</p>")
            + "<p>" + tr("Winner: {names}").format(names=winners) + "</p>"
            + '<p class="note">' + count(len(card["throws"]), "{n} throw", "{n} throws") + ", "
            + count(card["rejected_flaps"], "{n} flap refused", "{n} flaps refused") + ". "
            f'<a href="/game/{card["id"]}.json">' + tr("The record as JSON") + "</a></p>"
            + (f'<p class="note">{tr(CLOCK_HIDDEN)}</p>' if hidden else ""))
    return layout(tr("Game {id}").format(id=card["id"]), body)


def audits_page(a: dict[str, Any]) -> str:
    figures = [[tr("Games finished"), str(a["games"])], [tr("Rounds played"), str(a["rounds"])],
               [tr("Boxes shut"), str(a["boxes_shut"])]]
    figures += [[tr("Average score a turn, {rules} and its house rules").format(
                     rules=escape(shown(preset_title(p)))), decimal(v)]
                for p, v in a["average_score"].items()]
    best = [[str(b["score"]), escape(b["name"]),
             f'<a href="/game/{b["game"]}">' + tr("Game {id}").format(id=b["game"]) + "</a>",
             escape(shown(preset_title(b["rules"]))),
             escape(b["date"] or tr("clock not set"))] for b in a["best"]]
    switches = [[escape(device(k)), str(v)] for k, v in sorted(a["switches"].items())]
    since = (tr("Since the audits were reset after game {id}.").format(id=a["since_game"])
             if a["since_game"] else tr("Since the box's first game."))
    return layout(tr("Audits"), "<h1>" + tr("Audits") + f'</h1><p class="note">{since}</p>'
                  + table([tr("Figure"), tr("Count")], figures)
                  + "<h2>" + tr("Best turns (lowest scores)") + "</h2>"
                  + (table([tr("Score"), tr("Player"), tr("Game"), tr("Preset"), tr("Date")],
                           best) if best
                     else '<p class="note">' + tr("No turn played yet.") + "</p>")
                  + "<h2>" + tr("Switch actuations (wear)") + "</h2>"
                  + (table([tr("Switch"), tr("Times closed or pressed")], switches) if switches
                     else '<p class="note">' + tr("None counted yet.") + "</p>"))


def faults_page(a: dict[str, Any], faults: list[dict[str, Any]]) -> str:
    """Each fault with its time, what was wrong and whether it recovered; the
    counts per part since the audits were reset."""
    rows = [[when(f["at"], f["clock_synced"]), escape(device(f["device"])), escape(f["detail"]),
             tr("yes, {when}").format(when=when(f["recovered_at"], f["clock_synced"]))
             if f["recovered"] else '<strong class="bad">' + tr("not yet") + "</strong>"]
            for f in faults]
    counts = [[escape(device(k)), str(v)] for k, v in sorted(a["faults"].items())]
    hidden = any(f["at"] is None for f in faults)
    body = ("<h1>" + tr("Faults") + "</h1><p class=note>"
            + tr("Each time the box could not trust a part (a flap switch that chatters, an "
                 "I2C device lost, the display, the dice module), the newest first. The box "
                 "plays on meanwhile; {command} on the box has every one.").format(
                     command="<code>journalctl -u shutbox-hw</code>") + "</p>"
            + (table([tr("When"), tr("Part"), tr("What was wrong"), tr("Recovered")], rows)
               if rows else "<p>" + tr("No faults recorded.") + "</p>")
            + (f'<p class="note">{tr(CLOCK_HIDDEN)}</p>' if hidden else "")
            + "<h2>" + tr("Faults per part since the audits were reset") + "</h2>"
            + (table([tr("Part"), tr("Faults")], counts) if counts
               else "<p>" + tr("None.") + "</p>"))
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
