"""A refusal said twice: one English line for a script (``curl``, the tests, the
journal) and, on the page a person's browser gets, the same words in the page's
language (``tr`` of the marked words, then their values)."""

from __future__ import annotations

from starlette.exceptions import HTTPException

from ...base.i18n import tr


class Refused(HTTPException):
    """An HTTP error whose ``words`` (marked with ``N_``, ``{name}`` placeholders)
    are translated where a person reads them."""

    def __init__(self, status: int, words: str, **values: object) -> None:
        super().__init__(status, words.format(**values))
        self.words = words
        self.values = values

    def said(self) -> str:
        """The words in the language in force."""
        return tr(self.words).format(**self.values)
