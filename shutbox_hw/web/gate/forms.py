"""A small form posted to a page: its body read within a size and a time, its fields.

Shared by the backup's token and the join page's name: a body past ``max_bytes``
is 413, one that does not arrive in time 408, both said in one line. And whether a
form came from the site's own pages (:func:`same_site`), for the box's join pages and
the league's.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import anyio
from starlette.requests import Request

from ...base.i18n import N_
from .refusals import Refused

BODY_TIMEOUT_S = 10.0    # a form's body, in full


async def form_fields(request: Request, max_bytes: int, max_fields: int = 4
                      ) -> dict[str, list[str]]:
    """The posted form's fields (each with its values in order)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > max_bytes):
        raise Refused(413, N_("the form is larger than {n} bytes"), n=max_bytes)
    body = b""
    try:
        with anyio.fail_after(BODY_TIMEOUT_S):
            async for chunk in request.stream():
                body += chunk
                if len(body) > max_bytes:
                    raise Refused(413, N_("the form is larger than {n} bytes"), n=max_bytes)
    except TimeoutError:
        raise Refused(408, N_("the form did not arrive within {s} s"),
                      s=f"{BODY_TIMEOUT_S:g}") from None
    try:
        return parse_qs(body.decode("utf-8", "replace"), max_num_fields=max_fields)
    except ValueError:
        raise Refused(400, N_("a form of at most {n} fields"), n=max_fields) from None


def same_site(request: Request, also: str | None = None) -> bool:
    """The form was sent from the site's own page: a browser says where from
    (``Sec-Fetch-Site``, and ``Origin``: "null" under the pages' no-referrer policy, so
    then only with the former), its ``Origin`` compared with the ``Host`` the guard
    accepted or the address ``also`` (the one phones are given); a page of another site
    must not use its visitors' browsers. A client that says neither is no browser (no
    visitor to abuse) and goes on to the same checks as everyone."""
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site != "same-origin":
        return False
    origin = request.headers.get("origin")
    if origin is None or (origin == "null" and fetch_site is not None):
        return True
    ours = {request.headers.get("host", "").lower()}
    if also is not None:
        ours.add(urlsplit(also).netloc.lower())
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and parts.netloc.lower() in ours
