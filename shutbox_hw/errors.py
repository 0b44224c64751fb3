"""The one exception type for a user's mistake.

Anything raised as :class:`UserError` reaches the person as one plain line
(on stderr, or on the OLED), never as a traceback.
"""


class UserError(Exception):
    """Bad input from a person: a config file, a script, an argument."""
