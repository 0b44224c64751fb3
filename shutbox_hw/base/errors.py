"""The one exception type for a user's mistake.

Anything raised as :class:`UserError` reaches the person as one plain line
(on stderr, or on the OLED), never as a traceback.
"""

import re


class UserError(Exception):
    """Bad input from a person: a config file, a script, an argument."""


EXIT_REFUSED = 2    # a user's mistake: for ``run``, a box that cannot start as configured
EXIT_RETRY = 75     # sysexits' EX_TEMPFAIL: a problem that may pass by itself


class TransientError(UserError):
    """A problem that may pass by itself (a device not there yet at boot, the
    database still held by a daemon on its way out): the command exits
    :data:`EXIT_RETRY`, which the unit restarts, where every other
    :class:`UserError` exits :data:`EXIT_REFUSED`, which the unit does not
    (``RestartPreventExitStatus=2``: no restart loop over a config that
    cannot work)."""


QUOTE_LIMIT = 60   # characters of a bad value quoted back to the person
PATH_LIMIT = 80    # characters of a path named in a message
LINE_LIMIT = 200   # characters of one message line


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis: never echo a whole bad input."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def quoted(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``repr`` of a value from the person, clipped (a 1 MB line is not a message)."""
    return repr(clip(str(value), limit))


def clip_quotes(message: str) -> str:
    """Every '...' in a message clipped: argparse and the rules quote bad values whole."""
    return re.sub(r"'[^'\n]*'", lambda m: clip(m.group(0)[1:-1]).join("''"), message)


def shown_path(path: object, limit: int = PATH_LIMIT) -> str:
    """A path for a message: its start and its end when it is too long to print whole."""
    text = str(path)
    if len(text) <= limit:
        return text
    tail = limit // 2
    return text[:limit - tail - 1] + "…" + text[-tail:]


WORD_BACKTRACK = 30  # a cut line ends at a word's end if one is this near the limit


def one_line(text: str, limit: int = LINE_LIMIT) -> str:
    """One message line of at most ``limit`` characters, quoted values clipped first;
    a line still too long ends at a whole word with ``…``."""
    text = "".join(c if c.isprintable() else "?" for c in clip_quotes(str(text)))
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", limit - WORD_BACKTRACK, limit - 1)
    return text[:cut].rstrip(" ,;:") + " …" if cut > 0 else clip(text, limit)
