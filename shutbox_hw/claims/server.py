"""The daemon's end of the claims socket: a listener thread, never the loop.

The socket (``[network] claims_socket``, ``/run/shutbox-hw/claims.sock`` under
systemd) is made mode 0660 in the daemon's group, which only the web unit's user
shares (docs/build/install.md, "Seats from a phone"). One peer sends one line
(:mod:`.wire`); the peer's thread puts a claim in :class:`ClaimServer`'s inbox
and wakes the loop (:class:`~shutbox_hw.hal.contracts.poll.Waker`), whose next step hands
it to the controller through the one work queue and answers with what the
controller decided; the peer's thread waits for that at most
:data:`ANSWER_TIMEOUT_S` (then "the box is not answering", and the claim is
dropped unless the loop already took it).

What keeps it up for months: a socket file left by a crash is found dead and
replaced (one a live process answers on is left alone and said); a peer that
never sends its line is dropped after :data:`~.wire.READ_TIMEOUT_S`; at most
:data:`MAX_PEERS` peers are served at once, the rest are told at once that the
box is busy; nothing a peer sends reaches the loop but a name, a code and the phone's
address (a league player's secret is checked on the peer's thread by ``vet``,
claims/league.py, and goes no further); where ``[network] web_url`` is
set, the address the web says is not taken (the QR codes point at the configured
one); a line is parsed only when it is short and shallow (:mod:`.wire`).
"""

from __future__ import annotations

import logging
import os
import select
import selectors
import socket
import stat
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..base.lifecycle import Closable
from .wire import WireError, encode, read_line, refused

log = logging.getLogger("shutbox_hw")

MAX_PEERS = 16            # peers served at once (each a thread, waiting for the loop)
BACKLOG = 64              # connections the kernel holds until the listener takes them
ANSWER_TIMEOUT_S = 3.0    # how long a peer's thread waits for the loop's answer
ACCEPT_PAUSE_S = 0.5      # after a failed accept (no descriptors left), before the next
TAKEN_WAIT_S = 1.0        # ... and once more when the loop took it just then
MAX_URL = 200
MAX_PHONE = 64           # an IPv6 address and its zone at most
MAX_SECRET = 64          # a league player's secret (a card code of 10 characters)
MAX_TICKET = 64
KEPT_ANSWERS = 32        # the outcomes of the last questions put to the box, by ticket
SOCKET_MODE = 0o660
BUSY = "the box is busy: try again in a moment"
NOT_ANSWERING = "the box is not answering"
UNKNOWN_TICKET = "the box no longer knows this question: scan the box again"


class ClaimsUnavailable(Exception):
    """The socket cannot be listened on (message: why, one line)."""


@dataclass
class Pending:
    """A claim waiting for the loop: ``answer`` is set once, by the loop."""
    name: str
    code: str
    phone: str | None = None      # the address the web heard the claim from
    done: threading.Event = field(default_factory=threading.Event)
    answer: dict[str, Any] | None = None
    state: str = "waiting"       # waiting, taken (by the loop), dropped (the peer gave up)

    def reply(self, answer: dict[str, Any]) -> None:
        self.answer = answer
        self.done.set()


class ClaimServer(Closable):
    """Listens on ``path`` from :meth:`start` until :meth:`close`; the loop calls
    :meth:`take` at each step and :meth:`web_url` when it makes a join code."""

    def __init__(self, path: str, wake: Callable[[], None],
                 clock_ms: Callable[[], int], web_url: str | None = None,
                 vet: Callable[[str, str, bool], tuple[str | None, str]] | None = None,
                 join: Callable[[Any], dict[str, Any]] | None = None) -> None:
        """``vet(name, secret, code_ok)``: (None, the name to seat: a league player's as
        the league spells it) lets a claim go on to the loop, else (its refusal, name)
        (the league's names and their secrets, claims/league.py; None: no check).
        ``code_ok``: the claim bears the code the loop last said is current
        (:meth:`say_code`), or the loop has said none yet."""
        self.path = path
        self.vet = vet
        self.join = join     # a phone asking to join the league (claims/league_join.py)
        self._code: tuple[str | None] | None = None   # (the current code,) once said
        self.fixed_url = web_url or None   # [network] web_url: the address, whatever is said
        self._wake = wake
        self._clock_ms = clock_ms
        self._lock = threading.Lock()
        self._inbox: deque[Pending] = deque()
        self._peers = threading.BoundedSemaphore(MAX_PEERS)
        self._web: tuple[str, int] | None = None     # the web's address, and when it said so
        self._asked: OrderedDict[str, dict[str, Any]] = OrderedDict()   # by ticket
        self._listener: socket.socket | None = None
        self._stop_r, self._stop_w = socket.socketpair()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the loop's side

    def start(self) -> None:
        """Bind (replacing a dead socket file) and start listening; ClaimsUnavailable."""
        self._listener = listen(self.path)
        self._thread = threading.Thread(target=self._accept, name="shutbox-claims", daemon=True)
        self._thread.start()

    def take(self) -> list[Pending]:
        """The claims waiting, in the order they came (each now the loop's to answer)."""
        with self._lock:
            taken = [p for p in self._inbox if p.state == "waiting"]
            self._inbox.clear()
            for pending in taken:
                pending.state = "taken"
        return taken

    def remember(self, ticket: str, answer: dict[str, Any]) -> None:
        """What a phone that asks with ``ticket`` is told (a question on the box:
        waiting, then its outcome); the last :data:`KEPT_ANSWERS` are kept."""
        with self._lock:
            self._asked[ticket] = answer
            self._asked.move_to_end(ticket)
            while len(self._asked) > KEPT_ANSWERS:
                self._asked.popitem(last=False)

    def say_code(self, code: str | None) -> None:
        """The join code a claim must bear now (None: none, a game is under way)."""
        with self._lock:
            self._code = (code,)

    def _bears_code(self, code: str) -> bool:
        with self._lock:
            said = self._code
        return said is None or said[0] == code.upper()

    def web_url(self, now_ms: int, fresh_ms: int) -> str | None:
        """The web pages' address, if they said they run within the last ``fresh_ms``:
        ``[network] web_url`` where it is set (what came over the socket only says that
        the web runs), else the address they said."""
        with self._lock:
            web = self._web
        if web is None or now_ms - web[1] >= fresh_ms:
            return None
        return self.fixed_url or web[0]

    def _close(self) -> None:
        self._stop_w.send(b"x")
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._listener is not None:
            self._listener.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass
        self._stop_r.close()
        self._stop_w.close()
        with self._lock:
            for pending in self._inbox:
                pending.reply(refused(NOT_ANSWERING))
            self._inbox.clear()

    # ------------------------------------------------------------------ the listener thread

    def _accept(self) -> None:
        assert self._listener is not None
        with selectors.DefaultSelector() as sel:
            sel.register(self._listener, selectors.EVENT_READ)
            sel.register(self._stop_r, selectors.EVENT_READ)
            while True:
                ready = [key.fileobj for key, _ in sel.select()]
                if self._stop_r in ready:
                    return
                try:
                    peer, _ = self._listener.accept()
                except OSError as error:   # out of descriptors, say: the next one may pass
                    log.warning("claims socket: %s", error)
                    if select.select([self._stop_r], [], [], ACCEPT_PAUSE_S)[0]:
                        return             # (a pause, not a spin, while it lasts)
                    continue
                if not self._peers.acquire(blocking=False):
                    _answer(peer, refused(BUSY))
                    continue
                threading.Thread(target=self._serve, args=(peer,), daemon=True,
                                 name="shutbox-claim").start()

    def _serve(self, peer: socket.socket) -> None:
        try:
            try:
                message = read_line(peer)
            except WireError as error:
                _answer(peer, refused(f"not understood: {error}"))
                return
            _answer(peer, self._handle(message))
        except Exception:  # a bug: this peer's answer is lost, the listener goes on
            log.exception("claims socket: a peer failed")
            peer.close()
        finally:
            self._peers.release()

    def _handle(self, message: dict[str, Any]) -> dict[str, Any]:
        claim, web, asked = message.get("claim"), message.get("web"), message.get("asked")
        if "league_join" in message:      # answered on this thread: the loop is not asked
            if self.join is None:
                return refused("joining the league is not offered on this box")
            return self.join(message["league_join"])
        if isinstance(asked, dict):
            ticket = asked.get("ticket")
            if not (isinstance(ticket, str) and 0 < len(ticket) <= MAX_TICKET):
                return refused("not understood: the question's ticket")
            with self._lock:
                return dict(self._asked.get(ticket) or refused(UNKNOWN_TICKET))
        if isinstance(web, dict):
            url = web.get("url")
            if not (isinstance(url, str) and url.startswith(("http://", "https://"))
                    and len(url) <= MAX_URL and url.isprintable()):
                return refused("not understood: the web's url")
            with self._lock:
                new = self._web is None or self._web[0] != url
                self._web = (url, self._clock_ms())
            if new:
                self._wake()     # the QR codes at once, not at the loop's next look
            return {"ok": True}
        if not isinstance(claim, dict):
            return refused('not understood: expected {"claim": ...}, {"asked": ...} '
                           'or {"web": ...}')
        name, code, phone = claim.get("name"), claim.get("code"), claim.get("phone")
        if not isinstance(name, str) or not isinstance(code, str):
            return refused("not understood: a claim has a name and a code, both text")
        if phone is not None and not (isinstance(phone, str) and len(phone) <= MAX_PHONE
                                      and phone.isprintable()):
            return refused("not understood: the phone's address")
        secret = claim.get("secret", "")
        if not (isinstance(secret, str) and len(secret) <= MAX_SECRET):
            return refused("not understood: the secret")
        if self.vet is not None:
            refusal, name = self.vet(name, secret, self._bears_code(code))
            if refusal is not None:
                return refused(refusal)
        pending = Pending(name, code, phone)
        with self._lock:
            self._inbox.append(pending)
        self._wake()
        if pending.done.wait(ANSWER_TIMEOUT_S):
            assert pending.answer is not None
            return pending.answer
        with self._lock:
            if pending.state == "waiting":
                pending.state = "dropped"     # the loop will not hand it on any more
                return refused(NOT_ANSWERING)
        # the loop took it and is deciding: its answer comes within the step
        if pending.done.wait(TAKEN_WAIT_S) and pending.answer is not None:
            return pending.answer
        return refused(NOT_ANSWERING)


def _answer(peer: socket.socket, answer: dict[str, Any]) -> None:
    """Send the one line back (a peer gone already is no matter) and close."""
    try:
        peer.settimeout(1.0)
        peer.sendall(encode(answer))
    except OSError:
        pass
    finally:
        peer.close()


def listen(path: str) -> socket.socket:
    """A listening Unix socket at ``path``, mode 0660: a socket file left by a
    crash is replaced; anything else there is refused in words."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as error:
        raise ClaimsUnavailable(f"{path}: {error.strerror}") from None
    if st is not None:
        if not stat.S_ISSOCK(st.st_mode):
            raise ClaimsUnavailable(f"{path} is there and is not a socket: remove it")
        if _answers(path):
            raise ClaimsUnavailable(f"another process listens on {path}")
        os.unlink(path)   # left by a crash: nobody answers on it
        log.info("claims socket: replaced %s, left from before", path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(path)
        os.chmod(path, SOCKET_MODE)   # the unit's umask made it 0600 or tighter until now
        sock.listen(BACKLOG)
    except OSError as error:
        sock.close()
        raise ClaimsUnavailable(f"cannot listen on {path}: {error.strerror}") from None
    return sock


def _answers(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True
