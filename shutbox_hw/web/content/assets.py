"""The pages' style sheet and the live page's script, served by the box itself (no CDN:
the pages work on a LAN without internet). Kept as text here so that they
install with the package like any module."""

import json

from ...words.record import HIGH_SCORE_PERIODS, HIGH_SCORE_TABLES


def _pairs(titles: dict[str, str]) -> str:
    """A table of titles as the script's list of [key, title] pairs."""
    return json.dumps([[key, title] for key, title in titles.items()])


STYLE = """
:root { color-scheme: dark; --bg: #0b0d10; --fg: #f2f2f2; --dim: #6b7380; --hi: #ffd23f;
  --ok: #3ddc84; --bad: #ff5a5f; --card: #171b21; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 18px/1.4 system-ui, "DejaVu Sans", sans-serif; }
nav { display: flex; gap: 1.2em; padding: .6em 1em; background: var(--card); flex-wrap: wrap; }
nav a { color: var(--fg); text-decoration: none; }
nav a:hover { color: var(--hi); }
main { padding: 1em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { padding: .3em .8em; border-bottom: 1px solid #2a3039; text-align: right; }
th:first-child, td:first-child { text-align: left; }
a { color: var(--hi); }
.note { color: var(--dim); }
/* the live page: read from five metres. One screen, no scrolling: a column of rows
   (the title, whose turn, the dice and scores, the flaps, the reason, the links), each
   box that holds text of any length shrunk by live.js (fit) until it fits its room */
[hidden] { display: none !important; }
body.live { font-size: 4vmin; overflow: hidden; height: 100vh; display: flex;
  flex-direction: column; }
.live main { flex: 1; min-height: 0; padding: 2.5vmin 4vmin 1vmin; display: flex;
  flex-direction: column; }
.live h1 { margin: 0; font-size: 4.5vmin; color: var(--dim); font-weight: 600; flex: none;
  white-space: nowrap; overflow: hidden; line-height: 1.25; }
#play { flex: 1; min-height: 0; display: flex; flex-direction: column; }
.turn { font-size: 9vmin; font-weight: 800; color: var(--hi); margin: .5vmin 0 1.5vmin;
  white-space: nowrap; overflow: hidden; line-height: 1.15; flex: none; }
.row { display: flex; gap: 5vmin; align-items: stretch; flex: 1; min-height: 0; }
.dice { display: flex; gap: 3vmin; flex: none; align-items: flex-start; }
.die { width: 22vmin; height: 22vmin; border-radius: 3vmin; background: var(--fg);
  color: var(--bg); font-size: 16vmin; font-weight: 900; display: flex; align-items: center;
  justify-content: center; }
.die.none { background: transparent; border: .8vmin dashed var(--dim); color: var(--dim); }
.side { flex: 1; min-width: 0; min-height: 0; overflow: hidden; }
#play .side { font-size: 6vmin; }
.players { font-size: 1em; width: 100%; margin: 0; line-height: 1.2; }
.players td, .players th { border-color: #232a33; padding: .1em .4em; white-space: nowrap; }
.players th { font-size: max(.55em, 1.6vmin); color: var(--dim); font-weight: 600; }
.players tr.now td { color: var(--hi); font-weight: 800; }
.pot { font-size: 1.1em; color: var(--ok); font-weight: 800; }
.pot:empty, .accuracy:empty { display: none; }
.flaps { display: flex; gap: 1.5vmin; margin-top: 2.5vmin; flex: none; }
.flap { flex: 1; height: 16vmin; border-radius: 1.5vmin; display: flex; align-items: center;
  justify-content: center; font-size: 9vmin; font-weight: 800; background: #e8d9b5;
  color: #2a1a08; min-width: 0; }
.flaps.many .flap { font-size: 7vmin; }
.standings span { white-space: nowrap; }
.flap.shut { background: #1d2127; color: #3a414b; }
.flap.pending { background: #1d2127; color: var(--hi); outline: .6vmin solid var(--hi);
  outline-offset: -.6vmin; }
.flap.refused { background: var(--bad); color: var(--fg); }
.flap.lifted { background: #e8d9b5; color: var(--bad); outline: .6vmin dashed var(--bad);
  outline-offset: -.6vmin; }
.accuracy { font-size: 4.5vmin; color: var(--ok); font-weight: 700; margin: -1vmin 0 1vmin;
  white-space: nowrap; overflow: hidden; flex: none; }
.problem { font-size: 5vmin; color: var(--bad); font-weight: 700; margin-top: 1vmin;
  height: 6.5vmin; line-height: 6.5vmin; white-space: nowrap; overflow: hidden; flex: none; }
.live nav.links { flex: none; padding: .4vmin 4vmin 1vmin; font-size: 2.2vmin; gap: 0 1.5em;
  background: transparent; }
.live .links a { color: var(--dim); text-decoration: none; }
#between { flex: 1; min-height: 0; }
#between .side { font-size: 7vmin; }
.result { margin-top: .3em; line-height: 1.2; }
.result .win { color: var(--hi); font-weight: 800; font-size: 1.6em; }
.result.note { font-size: .55em; margin-top: .5em; }
/* between games: the last result on the left, the join page's QR code on the right */
.between { display: flex; gap: 5vmin; align-items: stretch; }
.joinbox { width: 42vmin; flex: none; text-align: center; margin-top: 2vmin; }
.joinbox img { width: 42vmin; height: 42vmin; background: #fff; image-rendering: pixelated;
  display: block; }
.joinbox .scan { font-size: 4.5vmin; font-weight: 800; color: var(--hi); margin-top: 1vmin; }
.joinbox .note { font-size: 2.6vmin; overflow-wrap: anywhere; }   /* past a slash only if a part is too long */
/* the join page, on a phone */
.join h1 { font-size: 1.6em; margin: .2em 0 .6em; }
.join form { display: flex; flex-wrap: wrap; gap: .6em; margin: 1em 0; }
.join button, .join input { font: inherit; font-size: 1.2em; padding: .6em 1em; border-radius: .4em;
  border: 1px solid #2a3039; }
.join button.name, .join button.take { background: var(--hi); color: var(--bg); font-weight: 700; }
.join input { flex: 1 1 10em; background: var(--card); color: var(--fg); }
.join label { width: 100%; color: var(--dim); }
.join .seated { color: var(--ok); }
.join li.me { color: var(--hi); font-weight: 700; }
.join .secret { font-family: monospace; font-size: 2em; letter-spacing: .1em; margin: .4em 0; }
.join .qr svg { width: 14em; max-width: 100%; height: auto; }
.join .reason { font-size: 1.3em; color: var(--bad); }
.stale { flex: none; color: var(--bad); font-size: 3vmin; margin-top: 1vmin; }
/* the players' pages: charts drawn on the server, the high-score tables side by side */
svg.chart { width: 100%; max-width: 40em; height: auto; display: block; margin: .5em 0 1.5em; }
svg.chart polyline { stroke: var(--hi); stroke-width: 2; }
svg.chart circle { fill: var(--hi); }
svg.chart text { fill: var(--dim); font-size: 13px; }
svg.chart .grid { stroke: #2a3039; }
.board { display: flex; flex-wrap: wrap; gap: 0 2em; }
.board h3 { margin: .3em 0 0; color: var(--dim); font-weight: 600; }
.live .board.tv { margin-top: .4em; gap: 0 1.6em; font-size: .5em; flex-wrap: nowrap; }
.live .board.tv h2 { margin: 0; font-size: 1.15em; color: var(--hi); }
.live .board.tv h3 { font-size: .85em; }
.live .board.tv .place { white-space: nowrap; }
"""

LIVE_JS = """
"use strict";
const $ = (id) => document.getElementById(id);
// the page's words in its language (pages.live_words), "{name}" filled from o
const WORDS = JSON.parse($("words").textContent);
const fill = (text, o) => text.replace(/\\{(\\w+)\\}/g, (_, n) => String(o[n]));
const w = (key, o) => fill(WORDS[key] || key, o);
// ... a line of its own: its words start with a capital (a name it starts with is left as it is)
const wc = (key, o) => fill(cap(WORDS[key] || key), o);
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
// a count in the language's own form for it ("{n} game", "{n} games": live_words)
function plural(n, one, many) { return w(n === 1 ? one : many, {n: n}); }
// a number as the page's language writes it (19,8 in German and Italian)
const NUMBER = new Intl.NumberFormat(document.documentElement.lang || "en", {maximumFractionDigits: 1});
function num(v) { return typeof v === "number" ? NUMBER.format(v) : String(v); }
// a sentence starts with a capital, in every language ("tocca a ...": "Tocca a ...")
function cap(text) { return text.charAt(0).toUpperCase() + text.slice(1); }
// a rule set's title in the page's language ("Pub Pool", "House rules (...)"): from its
// words as data where the summary has them (its rules line: "Hausregeln (12 Klappen, ...)")
function titled(t, parts) {
  if (parts && parts.title && Array.isArray(parts.line)) {
    return w(parts.title) + " (" + parts.line.map((p) => w(p.text, p)).join(", ") + ")";
  }
  if (!t) return "";
  if (WORDS[t]) return WORDS[t];
  const house = "House rules";
  return t.startsWith(house + " ") ? w(house) + t.slice(house.length) : t;
}
// tonight's clock line in the page's language (live_words "clock:STATE"; else the summary's)
function clockNote(t) {
  const key = "clock:" + t.clock;
  return key in WORDS ? WORDS[key] : (t.note || "");
}
// a pool's balance as the OLED writes it: +2, 0, -3
function signed(n) { return n > 0 ? "+" + n : String(n); }
// "name value" pairs on a line, kept apart (spaces would collapse in HTML), never split;
// where the line wraps, the dot ends a line (a no-break space before it), never starts one
function standings(values, fmt) {
  const line = el("div", "standings");
  Object.entries(values).forEach(([n, v], i) => {
    if (i) line.appendChild(document.createTextNode("\u00a0\u00b7 "));
    line.appendChild(el("span", "", n + " " + fmt(v)));
  });
  return line;
}
// the TV cannot scroll: a box's text at the largest size that fits its room, at most
// max vmin (a long name, eight players, a long reason shrink their own box, nothing else)
function fits(box) { return box.scrollHeight <= box.clientHeight + 1 && box.scrollWidth <= box.clientWidth + 1; }
function fit(box, max) {
  const vmin = Math.min(window.innerWidth, window.innerHeight) / 100;
  let lo = 1.5 * vmin, hi = max * vmin;
  box.style.fontSize = hi + "px";
  if (fits(box)) return;
  for (let i = 0; i < 10; i++) {
    const mid = (lo + hi) / 2;
    box.style.fontSize = mid + "px";
    if (fits(box)) lo = mid; else hi = mid;
  }
  box.style.fontSize = lo + "px";
}
function fitAll(playing) {
  fit($("title"), 4.5);
  if (playing) {
    fit($("turn"), 9); fit($("accuracy"), 4.5); fit($("problem"), 5);
    fit(document.querySelector("#play .side"), 6);
  } else {
    if (!$("fault").hidden) fit($("fault"), 5);   // the box's fault: one line, whole
    fit(document.querySelector("#between .side"), 7);
  }
}
let lastShown = null;
window.addEventListener("resize", () => { if (lastShown) show(lastShown); });
function show(s) {
  lastShown = s;
  const playing = s.playing;
  $("play").hidden = !playing;
  $("between").hidden = playing;
  $("title").textContent = playing ? w("{rules} \\u00b7 round {round}", {rules: titled(s.title, s.title_parts), round: s.round}) : titled(s.title);
  if (playing) {
    $("turn").textContent = !s.player ? "" : wc(s.turn_over ? "{player} plays next" : "{player}'s turn",
                                               {player: s.player});
    const a = s.accuracy;
    $("accuracy").textContent = !a ? "" : wc(a.moves === 1 ? "{player}: {best} of 1 best move"
                                              : "{player}: {best} of {moves} best moves", a);
    const dice = $("dice"); dice.replaceChildren();
    (s.dice && s.dice.length ? s.dice : [null, null]).forEach((d) =>
      dice.appendChild(el("div", d === null ? "die none" : "die", d === null ? "?" : d)));
    const flaps = $("flaps"); flaps.replaceChildren();
    flaps.className = (s.flaps || []).length > 9 ? "flaps many" : "flaps";
    (s.flaps || []).forEach((state, i) => {
      const f = el("div", "flap " + state, i + 1);
      f.title = fill(WORDS["flap:" + state] || state, {n: i + 1}) +
        (s.reasons[i + 1] ? ": " + s.reasons[i + 1] : "");
      flaps.appendChild(f);
    });
    $("problem").textContent = cap(s.problem || "");
    const pool = s.players.some((p) => p.balance !== null);
    $("pot").textContent = s.pot !== null && s.pot !== undefined ? wc("pot {pot}", {pot: s.pot}) : "";
    const body = $("players"); body.replaceChildren();
    const head = el("tr");
    // column heads start with a capital like every line ("Diese Runde" beside "Spieler")
    ["player", "this round", pool ? "balance" : "total"].forEach((h) => head.appendChild(el("th", "", wc(h))));
    body.appendChild(head);
    s.players.forEach((p) => {
      const tr = el("tr", p.name === s.player ? "now" : "");
      tr.appendChild(el("td", "", p.name));
      tr.appendChild(el("td", "", p.round_score === null ? "\u2013" : p.round_score));
      tr.appendChild(el("td", "", pool ? signed(p.balance) : p.total));
      body.appendChild(tr);
    });
  } else {
    // the box's fault between games (a card gone read-only ...), as the OLED says it
    $("fault").textContent = cap(s.problem || "");   // a line starts with a capital
    $("fault").hidden = !s.problem;
    const r = s.last_result;
    $("last").replaceChildren();
    if (r) {
      $("last").appendChild(el("div", "", wc(r.abandoned ? "Last game, stopped: {title}" : "Last game: {title}",
                                            {title: titled(r.title, r.title_parts)})));
      const names = r.winners.join(", ");
      $("last").appendChild(el("div", "win", !r.winners.length ? wc("no winner") : wc("{names} won", {names: names})));
      // a pool is played for money: its balances (settled), not the scores' totals
      $("last").appendChild(r.balances ? standings(r.balances, signed) : standings(r.totals, String));
    } else {
      $("last").appendChild(el("div", "win", w("Shut the Box")));
    }
    const t = s.tonight;
    $("tonight").textContent = wc("Tonight: {games}, {shut}", {
        games: plural(t.games, "{n} game", "{n} games"),
        shut: plural(t.boxes_shut, "{n} box shut", "{n} boxes shut")}) +
      (t.best ? w(", best {score} by {player}", {score: t.best.score, player: t.best.player}) : "") +
      (clockNote(t) ? ". " + clockNote(t) : "");
    // the league's table, where the box has one, in the high scores' place (the TV
    // cannot scroll, and both did not fit: the box's own are on /highscores)
    scores(s.league ? {} : s.high_scores || {});
    league(s.league);
  }
  showJoin(playing ? null : s.join);
  $("stale").hidden = true;
  fitAll(playing);
}
// while the box is set up: the QR code of its join page (drawn by the box: /join/CODE/qr.svg)
function showJoin(j) {
  $("join").hidden = !j;
  if (!j) return;
  const img = $("joinqr");
  if (img.dataset.code !== j.code) { img.src = "/join/" + encodeURIComponent(j.code) + "/qr.svg"; img.dataset.code = j.code; }
  // the address may wrap after a slash, never inside a part of it (the code stays whole)
  const url = $("joinurl"); url.replaceChildren();
  j.url.split("/").forEach((part, i, all) => {
    url.appendChild(document.createTextNode(part + (i < all.length - 1 ? "/" : "")));
    if (i < all.length - 1) url.appendChild(document.createElement("wbr"));
  });
}

// the high scores between games: a column a period, the first three of each table
const PERIODS = """ + _pairs(HIGH_SCORE_PERIODS) + """;
const TABLES = """ + _pairs(HIGH_SCORE_TABLES) + """;
function scores(h) {
  const board = $("scores"); board.replaceChildren();
  PERIODS.forEach(([period, title]) => {
    const tables = h[period] || {};
    const column = el("div", "scores");
    TABLES.forEach(([kind, name]) => {
      const rows = (tables[kind] || []).slice(0, 3);
      if (!rows.length) return;
      column.appendChild(el("h3", "", w(name)));
      rows.forEach((r, i) => column.appendChild(el("div", "place", (i + 1) + ". " + r.name + "  " +
                                                   num(r.value) + (kind === "accuracy" ? " %" : ""))));
    });
    if (column.children.length) { column.prepend(el("h2", "", w(title))); board.appendChild(column); }
  });
}
// the league's last table between games (the box keeps it: shown offline too), its
// venue's first rows and the league's top players, with the date the league made it
const WHEN = new Intl.DateTimeFormat(document.documentElement.lang || "en",
  {day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
function league(t) {
  $("league").hidden = !t;
  const board = $("leagueboard"); board.replaceChildren();
  if (!t) return;
  const column = (head, sub, rows) => {
    const c = el("div", "scores");
    c.appendChild(el("h2", "", head));
    if (sub) c.appendChild(el("h3", "", sub));
    rows.forEach((r) => c.appendChild(el("div", "place", r.rank + ". " + r.player + "  " +
                                          plural(r.points, "{n} point", "{n} points"))));
    return c;
  };
  if (t.table.length) board.appendChild(column(wc("League: {season}", {season: t.season}), t.venue, t.table));
  if (t.top.length) board.appendChild(column(wc("Top of the league"), null, t.top));
  const at = new Date(t.as_of);
  $("leagueasof").textContent = wc("League table as of {date}",
                                   {date: isNaN(at) ? t.as_of : WHEN.format(at)});
}
// The stream, kept for ever: the browser reconnects by itself after the stream ends or the
// network fails, but gives up for good after an answer that is not the stream (a 503, the
// server restarting); then a new one is made, with back-off (1 s doubling to 5 s). A stream
// that has said nothing, not even its ping, for 45 s is replaced as well.
const STALE = $("stale").textContent;
const BACKOFF_MS = [1000, 5000], SILENT_MS = 45000;
let source = null, backoff = BACKOFF_MS[0], heard = Date.now(), pending = false, made = 0;
function stale(text, kind) {
  // the box's reason in the page's words; a sentence the page has no words for: its kind's
  $("stale").textContent = !text ? STALE : WORDS[text] || WORDS["stale:" + kind] || text;
  $("stale").hidden = false;
  fitAll(lastShown ? lastShown.playing : false);   // the notice takes a line: the rest refits
}
function heardFrom() { heard = Date.now(); }
function connect() {
  pending = false;
  document.body.dataset.streams = String(++made);
  heardFrom();
  source = new EventSource("live/stream");
  source.onopen = () => { backoff = BACKOFF_MS[0]; heardFrom(); document.body.dataset.stream = "open"; };
  source.onmessage = (m) => { heardFrom(); show(JSON.parse(m.data)); $("stale").textContent = STALE; };
  source.addEventListener("ping", heardFrom);
  ["unavailable", "damaged"].forEach((kind) => source.addEventListener(kind, (m) => {
    heardFrom(); stale(JSON.parse(m.data), kind);
  }));
  source.onerror = () => {
    stale();
    document.body.dataset.stream = source.readyState === EventSource.CLOSED ? "closed" : "connecting";
    if (source.readyState === EventSource.CLOSED) again();
  };
}
function again() {
  if (pending) return;
  pending = true;
  if (source) source.close();
  const wait = backoff;
  backoff = Math.min(backoff * 2, BACKOFF_MS[1]);
  setTimeout(connect, wait + Math.random() * 250);
}
setInterval(() => { if (Date.now() - heard > SILENT_MS) { stale(); again(); } }, 5000);
connect();
"""
