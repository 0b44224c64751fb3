"""The join page's refusals in the page's language.

Why a seat was not given travels as one English sentence: from the daemon over
the claims socket (``{"ok": false, "reason": ...}``: a stale code, a name
already at the table, ...), from :func:`~shutbox_hw.players.names.name_problem`
(a name's problem, said the same in the CLI) and from the web's own checks. A
script and the journal keep that sentence; the page a phone gets says it in the
page's language: :func:`said` finds the catalogue's sentence the English one was
made from (its ``{placeholders}`` read back from it) and speaks it translated. A
sentence of none of these (a newer daemon's) stays as it came, never dropped.
"""

from __future__ import annotations

import re
import string
from functools import cache

from ...base.i18n import N_, tr

SENTENCES = (
    # the join code and the table (game/model/join.py, game/referee/setup.py)
    N_("this code has expired: scan the box again"),
    N_("this is not the box's code: scan the box again"),
    N_("too many claims at once: try again in a few seconds"),
    N_("a game is under way: join the next one"),
    N_("this phone has a seat at this table already: the next player joins from "
       "their own phone, or chooses a name on the box"),
    N_("this phone has a seat at this table already: the box asks its players to "
       "seat {name} too (ROLL on the box: yes, NEXT: no)"),
    N_("the box is asking its players about another seat: try again in a few seconds"),
    N_("the players on the box said no: the next player joins from their own "
       "phone, or chooses a name on the box"),
    N_("nobody answered on the box: the next player joins from their own phone, "
       "or chooses a name on the box"),
    N_("the box no longer knows this question: scan the box again"),
    N_("{name} is a seat's label: choose a name"),
    N_("{name} is already at the table"),
    N_("every seat is taken ({n} players)"),
    # the claims socket and the web's own checks (claims/server.py, routes.py)
    N_("the box is busy: try again in a moment"),
    N_("the box is not answering"),
    N_("the box did not decide"),
    N_("this form was sent from another site: scan the box's code with your phone"),
    N_("too many tries from this phone: wait a minute and scan the box again"),
    # a league player's name and secret (claims/league.py)
    N_("{name} is a league player's name: type their secret (the code on their card) as "
       "well, or choose another name"),
    N_("that is not {name}'s secret: check the code on the card"),
    N_("too many wrong secrets for {name}: wait a minute and try again"),
    N_("{name} is not in the league's roster on this box: leave the secret out to play "
       "as a guest"),
    N_("the box cannot read the league's roster now: try again in a moment"),
    # a phone joining the league (claims/league_join.py, league.py)
    N_("joining the league is not offered on this box"),
    N_("the league has a player called {name} already: choose another name"),
    N_("someone at this box has asked for the name {name} already: choose another name"),
    N_("too many requests to join are waiting to be sent: try again later"),
    N_("too many requests to join from this phone: wait ten minutes"),
    # a name's problems (players/names.py: name_problem)
    N_("a name must be text"),
    N_("a name cannot hold control characters"),
    N_("a name cannot hold invisible characters"),
    N_("a name has at most {n} accents on a letter"),
    N_("a name is written in one alphabet (letters of two look alike)"),
    N_("a name cannot be blank"),
    N_("a name has at most {most} characters, this one has {n}"),
    N_("a name needs a letter or a digit"),
)


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each sentence as a pattern that reads its placeholders' values back."""
    out = []
    for sentence in SENTENCES:
        parts = []
        for text, field, _spec, _conv in string.Formatter().parse(sentence):
            parts.append(re.escape(text))
            if field:
                parts.append(f"(?P<{field}>.+)")
        out.append((re.compile("".join(parts), re.DOTALL), sentence))
    return tuple(out)


def said(reason: str) -> str:
    """``reason`` (an English sentence of :data:`SENTENCES`) in the language in
    force; any other sentence as it is."""
    for pattern, sentence in _patterns():
        match = pattern.fullmatch(reason)
        if match is not None:
            return tr(sentence).format(**match.groupdict())
    return reason
