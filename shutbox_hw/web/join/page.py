"""The join page and its answers as HTML: big buttons for a phone, no script.

Every name is escaped; the reasons are the box's own sentences, in the page's
language (:mod:`.words`).
"""

from __future__ import annotations

from html import escape

from ...base.i18n import tr
from ..content.pages import layout
from .words import said


def _page(body: str) -> str:
    return layout(tr("Join the game"), f'<div class="join">{body}</div>')


MAX_SECRET_CHARS = 20      # a league player's card code, K7M2Q-DX4PA, with room to spare


def join_page(code: str, names: list[str], max_chars: int, league: bool = False) -> str:
    """Recent names as buttons, and a field for a new one (with a league player's
    secret, left empty by a guest); both claim the next seat. ``league``: the box is a
    league's, and the page links joining it (league.py)."""
    action = f"/join/{escape(code)}"
    buttons = "".join(f'<button class="name" name="pick" value="{escape(n)}">{escape(n)}'
                      "</button>" for n in names)
    picks = (f'<form method="post" action="{action}" class="names">{buttons}</form>'
             if names else "")
    heading = tr("Join the game")
    how = tr("Choose your name, or type a new one: you get the next free seat.")
    label, take = tr("New name"), tr("Take a seat")
    secret = tr("League players: your secret (the code on your card)")
    join_league = tr("Not in the league yet? Join it")
    return _page(f"<h1>{heading}</h1><p>{how}</p>{picks}"
                 f'<form method="post" action="{action}" class="new">'
                 f'<label for="name">{label}</label>'
                 f'<input id="name" name="name" maxlength="{max_chars}" required '
                 f'autocomplete="nickname" autocapitalize="words">'
                 f'<label for="secret">{secret}</label>'
                 f'<input id="secret" name="secret" maxlength="{MAX_SECRET_CHARS}" '
                 f'autocomplete="off" autocapitalize="characters" spellcheck="false">'
                 f'<button class="take">{take}</button></form>'
                 + (f'<p class="league"><a href="/join/{escape(code)}/league">'
                    f"{join_league}</a></p>" if league else ""))


def answer_page(seat: int, player: str, players: list[str]) -> str:
    """The seat is taken: which, and who else is at the table."""
    table = "".join(f'<li{" class=me" if p == player else ""}>{escape(p)}</li>'
                    for p in players)
    seated = tr("{player}: seat {seat}").format(player=player, seat=seat + 1)
    next_step = tr("The box shows your name: ROLL on the box starts the game.")
    return _page(f'<h1 class="seated">{escape(seated)}</h1><ol>{table}</ol>'
                 f'<p class="note">{next_step}</p>')


def refusal_page(code: str, reason: str, again: bool = True, heading: str | None = None,
                 back: str | None = None) -> str:
    """No seat (or ``heading``): the reason (an English sentence, said in the page's
    language: :func:`.words.said`), and (when trying again can help) the way back
    (``back``: the join page, else)."""
    again_text, heading = tr("Try again"), heading or tr("No seat")
    reason = said(reason)
    back = (f'<p><a href="{escape(back or f"/join/{code}")}">{again_text}</a></p>'
            if again else "")
    return _page(f"<h1>{heading}</h1>"
                 f'<p class="reason">{escape(reason[:1].upper() + reason[1:])}.</p>{back}')


def waiting_page(code: str, ticket: str, reason: str) -> str:
    """The box asks its players about this seat: what the phone waits for (the
    reason, said in the page's language), and a link to look again (the answer's
    ``Refresh`` header follows it by itself)."""
    heading, again = tr("Waiting for the box"), tr("Look again")
    reason = said(reason)
    return _page(f'<h1 class="waiting">{heading}</h1>'
                 f'<p class="reason">{escape(reason[:1].upper() + reason[1:])}.</p>'
                 f'<p><a href="{escape(asked_path(code, ticket))}">{again}</a></p>')


def asked_path(code: str, ticket: str) -> str:
    """Where the phone asks what became of its claim the box is asking about."""
    return f"/join/{code}/asked/{ticket}"
