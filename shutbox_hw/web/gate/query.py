"""A page's query parameters: a whole number within bounds, or 400 saying which
parameter and what it must be. Shared by the app's pages and the players' routes."""

from __future__ import annotations

from starlette.requests import Request

from ...base.i18n import N_
from .refusals import Refused


def whole(request: Request, name: str, default: int | None, top: int) -> int | None:
    """A query parameter that must be a whole number 1..top (ASCII digits only:
    ``str.isdigit`` takes a superscript two)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 20 and 1 <= int(raw) <= top):
        raise Refused(400, N_("{name}: expected a whole number 1..{top}"), name=name, top=top)
    return int(raw)
