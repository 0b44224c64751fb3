"""uvicorn's HTTP/1.1 protocol (h11) with what it lacks to face a pub's Wi-Fi for a month.

uvicorn 0.54's ``H11Protocol`` times nothing out before a request's head is
complete: its keep-alive timer starts only after a response and any byte
received cancels it, and ``limit_concurrency`` counts open sockets. So 64
sockets that send half a request line (or nothing) and wait would make every
other client a 503 for good. Here:

- the head of every request (the first one and each next one on a kept-alive
  connection) must arrive in full within :data:`HEADER_TIMEOUT_S`, else the
  connection gets a 408 and is closed (a byte at a time does not help);
- one address holds at most :data:`PER_CLIENT` connections at once (well under
  the total: a guest with a dozen addresses cannot fill the process); past that
  the new one gets a 503 and is closed at once;
- the process holds at most :data:`MAX_CONNECTIONS` (uvicorn's own
  ``limit_concurrency`` is off: its 503 carries none of the pages' headers); when
  it is full, the connection that has been sending its head the longest is
  dropped for the new one (a 503, "the box is busy"): a flood of half-sent heads
  from many addresses makes room for every new TV and phone, and a TV following
  the event stream (its head long sent) is never the one dropped. Only when every
  connection is an answer under way is the new one refused;
- every answer is sent within :data:`SEND_TIMEOUT_S` of the client last taking
  some of it: a client that stops reading (an export started and left, a TV
  gone to sleep) has its connection aborted then, so an export's read
  transaction ends (the record's WAL can be checkpointed again) and its slot
  is free;
- the peers of ``[web] proxies`` are not limited per address (every client
  behind the proxy comes from its address: the pages' own limits count the
  forwarded one).

The raw refusals carry the pages' security headers like every other answer.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from .guard import SECURITY_HEADERS

log = logging.getLogger("shutbox_hw.web")

HEADER_TIMEOUT_S = 10.0   # a request's head, in full
PER_CLIENT = 12           # connections one address may hold (a browser opens 6 at most)
MAX_CONNECTIONS = 256     # open sockets of all clients
LINGER_S = 1.0            # a refused connection is closed this long after its answer
SEND_TIMEOUT_S = 30.0     # an answer the client takes nothing of for this long is dropped


def raw_answer(status: int, reason: str, text: str) -> bytes:
    body = f"{status} {text}\n".encode()
    head = [f"HTTP/1.1 {status} {reason}".encode(), b"content-type: text/plain; charset=utf-8",
            b"content-length: %d" % len(body), b"connection: close",
            *(k + b": " + v for k, v in SECURITY_HEADERS)]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


TOO_SLOW = raw_answer(408, "Request Timeout",
                      f"the request's head did not arrive within {HEADER_TIMEOUT_S:g} s")
TOO_MANY = raw_answer(503, "Service Unavailable",
                      f"this address has {PER_CLIENT} connections open already")
BUSY = raw_answer(503, "Service Unavailable",
                  "the box is busy: too many connections at once, try again in a moment")


class GuardedH11(H11Protocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timers: dict[str, asyncio.TimerHandle] = {}

    _refused = False
    _since = 0.0          # waiting for a request's head since (the loop's time)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        peer = self.client[0] if self.client else None
        if peer is not None and not _is_proxy(peer, self.config) and \
                sum(_peer(c) == peer for c in self.connections) > PER_CLIENT:
            self._refuse(TOO_MANY)
        elif len(self.connections) > MAX_CONNECTIONS:
            victim = min((c for c in self.connections if isinstance(c, GuardedH11)
                          and c is not self and not c._refused and c._waiting_for_head()),
                         key=lambda c: c._since, default=None)
            (victim or self)._refuse(BUSY)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return          # read and dropped, so that closing sends no reset over the answer
        super().data_received(data)
        if self._waiting_for_head():
            return
        self._timer("head", None)      # the head is in: the page answers it (or a body arrives)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._waiting_for_head():
            self._arm()     # the next request on this connection has the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._timer("head", None)
        self._timer("send", None)
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        """The client takes nothing more for now: it has :data:`SEND_TIMEOUT_S` to."""
        super().pause_writing()
        self._timer("send", SEND_TIMEOUT_S, self._stalled_out)

    def resume_writing(self) -> None:
        self._timer("send", None)
        super().resume_writing()

    def _timer(self, kind: str, delay: float | None,
               callback: Callable[[], None] | None = None) -> None:
        """The connection's timer of ``kind`` ("head": its request's head must arrive;
        "send": its client must take some of the answer) started anew, or with
        ``delay`` None stopped."""
        old = self._timers.pop(kind, None)
        if old is not None:
            old.cancel()
        if delay is not None and callback is not None:
            self._timers[kind] = self.loop.call_later(delay, callback)

    def _stalled_out(self) -> None:
        log.info("a client (%s) took nothing of its answer for %g s: dropped",
                 _peer(self) or "?", SEND_TIMEOUT_S)
        self.transport.abort()      # connection_lost: the answer's task sees the disconnect

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request h11 cannot parse, with the security headers."""
        self._refuse(raw_answer(400, "Bad Request", "the request is not valid HTTP/1.1"))

    def _waiting_for_head(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)

    def _arm(self) -> None:
        self._since = self.loop.time()
        self._timer("head", HEADER_TIMEOUT_S, self._too_slow)

    def _too_slow(self) -> None:
        if self._waiting_for_head():
            self._refuse(TOO_SLOW)

    def _refuse(self, answer: bytes) -> None:
        """The answer, then the end of our side; closed a moment later (a client still
        sending would otherwise get a reset that may wipe the answer before it is read)."""
        if self.transport.is_closing() or self._refused:
            return
        self._refused = True
        self._timer("head", None)
        self.connections.discard(self)    # no longer counted: its slot is free at once
        self.transport.write(answer)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_S, self.transport.close)


def _is_proxy(peer: str, config: Any) -> bool:
    """``peer`` is one of ``[web] proxies`` (uvicorn believes its forwarded headers)."""
    if not getattr(config, "proxy_headers", False):
        return False
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    allowed = config.forwarded_allow_ips
    for item in allowed.split(",") if isinstance(allowed, str) else allowed:
        try:
            if address in ipaddress.ip_network(item.strip(), strict=False):
                return True
        except ValueError:
            continue
    return False


def _peer(connection: object) -> str | None:
    client = getattr(connection, "client", None)
    return str(client[0]) if client else None
