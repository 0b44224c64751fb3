"""A league player's secret, and what a box needs to verify it (issue 41, item 1).

The secret is a card code of :data:`CODE_LENGTH` characters from the join codes'
alphabet (no 0/O, 1/I: read out loud, typed on a phone), shown once as
``K7M2Q-DX4PA`` when the player is added (``shutbox-hw league players add``) and
never stored: the league keeps a salted scrypt hash of it, and every box of the
league receives that hash, its salt and its parameters in the roster
(:func:`roster_entry`), so that it verifies a claim itself when the pub's internet
is down (:func:`verify`). 10 characters of 32 are 50 bits: a roster copied off a
pub's broker cannot be searched for the codes (2**50 scrypt hashes; a PIN of 6
digits would fall to 10**6 of them in an hour on one core).

The parameters (n 2**11, r 8, p 1: 2 MiB of memory) are chosen for the box's
slowest computer, a Pi Zero, to verify a code in well under a second
(``benchmarks/league_secret.py`` prints the time on the machine it runs on).
A roster entry whose parameters ask for more than :data:`MAX_N`, :data:`MAX_R`,
:data:`MAX_P` is refused by the box (a hostile roster cannot make it hash for
minutes or take its memory).

This module imports nothing outside the standard library: the box uses it too.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Any

from .names import name_key, name_problem

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"   # the join codes' alphabet (claims/desk.py)
CODE_LENGTH = 10
N, R, P = 2 ** 11, 8, 1          # scrypt's cost: 128 * N * R bytes = 2 MiB
DKLEN = 32
SALT_BYTES = 16
MAX_N, MAX_R, MAX_P = 2 ** 15, 16, 2   # what a box agrees to compute (32 MiB at most)
FORMAT = 1                       # a roster entry's "v"


def new_code() -> str:
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def shown(code: str) -> str:
    """The code as printed on a card: two groups of five."""
    return f"{code[:5]}-{code[5:]}"


def tidy_code(text: str) -> str:
    """A code as typed: in capitals, without spaces or dashes (anything else is
    kept: a wrong letter is a wrong code)."""
    return "".join(ch for ch in text.upper() if ch not in " -\t")


def _hash(code: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(tidy_code(code).encode("utf-8"), salt=salt, n=n, r=r, p=p,
                          dklen=DKLEN, maxmem=256 * n * r * p + 1024 * 1024)


@dataclass(frozen=True)
class Entry:
    """One league player as the boxes know them: no secret, what verifies it."""
    player: int          # the league's id
    name: str
    salt: bytes
    hash: bytes
    n: int = N
    r: int = R
    p: int = P

    @property
    def key(self) -> str:
        return name_key(self.name)

    def as_json(self) -> dict[str, Any]:
        return {"v": FORMAT, "player": self.player, "name": self.name, "kdf": "scrypt",
                "n": self.n, "r": self.r, "p": self.p, "salt": self.salt.hex(),
                "hash": self.hash.hex()}


def make_entry(player: int, name: str, code: str) -> Entry:
    """The roster entry for ``code`` (a fresh salt)."""
    salt = secrets.token_bytes(SALT_BYTES)
    return Entry(player, name, salt, _hash(code, salt, N, R, P))


def verify(entry: Entry, code: str) -> bool:
    """Whether ``code`` is the player's secret (compared in constant time)."""
    if not code or len(code) > 64:
        return False
    return hmac.compare_digest(_hash(code, entry.salt, entry.n, entry.r, entry.p), entry.hash)


class EntryError(ValueError):
    """A roster entry that is not one (message: what is wrong)."""


def parse_entry(payload: bytes | str, player: int | None = None) -> Entry:
    """A roster entry from its message (``player``: the id its topic names, which it
    must carry); EntryError says what is wrong."""
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise EntryError("not JSON") from None
    if not isinstance(data, dict):
        raise EntryError("not a JSON object")
    if data.get("v") != FORMAT or data.get("kdf") != "scrypt":
        raise EntryError(f"not a roster entry of format {FORMAT} with scrypt")
    number = data.get("player")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1 or (
            player is not None and number != player):
        raise EntryError("its player id is not its topic's")
    name = data.get("name")
    problem = name_problem(name)
    if problem is not None or not isinstance(name, str):
        raise EntryError(f"its name: {problem}")
    costs = [data.get(k) for k in ("n", "r", "p")]
    whole = [c for c in costs if isinstance(c, int) and not isinstance(c, bool) and c >= 1]
    if len(whole) != 3:
        raise EntryError("its scrypt parameters are not whole numbers")
    n, r, p = whole
    if n > MAX_N or r > MAX_R or p > MAX_P or n & (n - 1) or n < 2:
        raise EntryError(f"its scrypt parameters (n {n}, r {r}, p {p}) are more than a "
                         f"box computes (n up to {MAX_N}, a power of two; r up to {MAX_R}; "
                         f"p up to {MAX_P})")
    try:
        salt, digest = bytes.fromhex(str(data.get("salt"))), bytes.fromhex(str(data.get("hash")))
    except ValueError:
        raise EntryError("its salt or hash is not hexadecimal") from None
    if not 8 <= len(salt) <= 64 or len(digest) != DKLEN:
        raise EntryError(f"its salt (8 to 64 bytes) or hash ({DKLEN} bytes) has the wrong size")
    return Entry(number, name, salt, digest, n, r, p)
