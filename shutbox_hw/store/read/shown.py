"""What the box shows right now, kept in RAM for the other screens.

The daemon replaces its mirror after every step that changes the picture
(:func:`shutbox_hw.game.display.shown.shown`): a flap shut but not taken yet, or
refused with its reason, is in no game row, yet the TV page and Home Assistant
must show it as the box does. The mirror is not a record: it is a small JSON
file in a folder in RAM (``[storage] runtime``; by default the box unit's
``RuntimeDirectory=``, ``/run/shutbox-hw``), replaced whole by a rename and
never synced, so it costs the SD card nothing (issue 38, item 4: before, the
row ``shown`` of the database cost the card about half of its writes per throw).
A write that fails is simply skipped; a power cut, a reboot or the box stopped
loses it and nothing else: the readers (:mod:`shutbox_hw.network.live`, the join
pages) then show the record alone, and the box writes it again at its first step.

The file is named after the database it mirrors (``shown-<hash of its path>.json``),
so a reader that has only a connection to the record finds it, and two boxes or
simulators in one folder never share one. Away from systemd (the simulator, the
tests, a developer's machine) the folder is ``/run/shutbox-hw`` if there is one,
else a folder in ``/dev/shm`` (RAM on every Linux), else in the temporary directory
(on disk on most machines, where each replacement of the file costs a flush: ext4
writes a file replaced by a rename out at once). The table ``shown`` of schema 6 stays
in the schema, unused.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..tables.capability import Capability, offers
from ..tables.schema import VERSION

DEFAULT_FOLDER = Path("/run/shutbox-hw")   # the box's unit's RuntimeDirectory=
SHARED_RAM = Path("/dev/shm")               # away from systemd: RAM that every user may write

_configured: Path | None = None   # [storage] runtime, set once by the command


def use_folder(folder: Path | None) -> None:
    """This process's mirror folder from ``[storage] runtime`` (None: the default)."""
    global _configured
    _configured = folder


def folder(db_path: str | Path) -> Path:
    """Where the mirror of the record at ``db_path`` is: ``[storage] runtime``, else
    the unit's runtime directory (``$RUNTIME_DIRECTORY``; the web's unit has none and
    finds the box's by its name), else a folder in ``/dev/shm`` (or, without it, the
    temporary directory) named after the record's owner (the box that writes it; the
    web may be another user)."""
    return _located(db_path)[0]


def _located(db_path: str | Path) -> tuple[Path, bool]:
    """:func:`folder`, and whether it came from :func:`_fallback` (one look at the
    system each: the box asks at every step, the readers at every read)."""
    if _configured is not None:
        return _configured, False
    runtime = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if runtime:
        return Path(runtime), False
    if os.path.isdir(DEFAULT_FOLDER):
        return DEFAULT_FOLDER, False
    return _fallback(db_path), True


_FALLBACK_PREFIX = "shutbox-hw-run-"


def _is_fallback(place: Path, db_path: str | Path) -> bool:
    """``place == _fallback(db_path)``; without a look at the system when its name says
    it cannot be."""
    return place.name.startswith(_FALLBACK_PREFIX) and place == _fallback(db_path)


def _fallback(db_path: str | Path) -> Path:
    try:
        owner = os.stat(db_path).st_uid
    except OSError:
        owner = os.getuid()
    shared = SHARED_RAM if _writable_to_all(SHARED_RAM) else Path(tempfile.gettempdir())
    return shared / f"{_FALLBACK_PREFIX}{owner}"


def _writable_to_all(place: Path) -> bool:
    """A folder like /tmp: a directory every user may write, sticky (nobody removes
    another's files)."""
    try:
        st = os.stat(place)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_mode & 0o1777 == 0o1777


def mirror_path(db_path: str | Path, where: Path | None = None) -> Path:
    """The mirror of the record at ``db_path`` (any spelling of the same file)."""
    return (where or folder(db_path)) / _mirror_name(os.fspath(db_path))


@functools.lru_cache(maxsize=16)
def _mirror_name(db_path: str) -> str:
    """(Worked out once per spelling: the box asks at every step, and resolving the
    path walks it a folder at a time.)"""
    key = hashlib.sha256(os.path.realpath(db_path).encode()).hexdigest()[:16]
    return f"shown-{key}.json"


def publish(store: Any, data: dict[str, Any]) -> bool:
    """Replace the mirror of ``store``'s record (True if written; never synced).

    It is written while the store is degraded too (a card gone read-only, a record
    damaged): the mirror is in RAM, and the TV shows the fault as the box does (the
    picture's ``problem``, the OLED's words) while the box plays on with the events
    held. The mirror may be read by whoever may read the record: its mode and group
    follow the record's (a record that cannot be stat'ed: no mirror)."""
    path_of: Path | None = getattr(store, "path", None)
    if path_of is None:
        return False
    where, fallback = _located(path_of)
    fallback = fallback or _is_fallback(where, path_of)
    name = _mirror_name(os.fspath(path_of))
    target = os.path.join(where, name)
    body = json.dumps({"game": store.game_id, "at": store._clock(), "data": data}).encode()
    building = os.path.join(where, f".{name}.{os.getpid()}")
    try:
        if fallback:
            if not _ours(where):
                return False     # (_ours saw a directory: no second look below)
        elif not os.path.isdir(where):   # a runtime directory is systemd's to make
            return False
        record = os.stat(path_of)
        fd = os.open(building, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        try:
            written = 0
            while written < len(body):
                written += os.write(fd, body[written:])
            os.fchmod(fd, record.st_mode & 0o640)
            if os.fstat(fd).st_gid != record.st_gid:
                # only where it changes something: the box's unit filters chown out
                # (~@privileged), and a call it filters kills the process
                try:
                    os.fchown(fd, -1, record.st_gid)
                except OSError:
                    pass   # not a member of the record's group: its own group, as before
        finally:
            os.close(fd)
        os.replace(building, target)
    except OSError:
        try:
            os.unlink(building)
        except OSError:
            pass   # (not made, or not ours to remove)
        return False
    return True


def _ours(place: Path) -> bool:
    """The temporary fallback made (mode 0755) if it is not there; written to only
    if this process's user owns it (another user cannot plant it in /tmp)."""
    try:
        st = os.lstat(place)     # there at every step but the first: looked at first
    except OSError:
        try:
            place.mkdir(mode=0o755)
        except FileExistsError:
            pass
        try:
            st = os.lstat(place)
        except OSError:
            return False
    if st.st_uid != os.getuid() or not stat.S_ISDIR(st.st_mode):
        return False
    if stat.S_IMODE(st.st_mode) != 0o755:   # the files' own modes say who reads them
        os.chmod(place, 0o755)
    return True


def rewrite_mirror(db: sqlite3.Connection,
                   change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """The mirror of the record ``db`` is connected to (``{"game", "at", "data"}``)
    passed through ``change`` (a player removed: her name gives way to her seat's
    label on the TV too), replaced whole with the same mode; no mirror, nothing to do."""
    path = main_file(db)
    if path is None:
        return
    target = mirror_path(path)
    try:
        found = json.loads(target.read_text())
        mode = os.stat(target).st_mode
    except (OSError, ValueError):
        return
    if not isinstance(found, dict):
        return
    found = change(found)
    building = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        building.write_text(json.dumps(found))
        os.chmod(building, stat.S_IMODE(mode))
        os.replace(building, target)
    except OSError:
        building.unlink(missing_ok=True)


def withdraw(db_path: str | Path) -> None:
    """The box stops: its mirror goes, so the pages show the record alone; the
    temporary fallback folder goes too once no other record's mirror is in it (a
    simulated box leaves nothing in the temporary directory)."""
    path = mirror_path(db_path)
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass
    if path.parent == _fallback(db_path):
        try:
            path.parent.rmdir()
        except OSError:
            pass   # another box's mirror is in it, or it is not ours


def read_shown(db: sqlite3.Connection, version: int = VERSION) -> dict[str, Any] | None:
    """The picture the box last drew for the record ``db`` is connected to, with its
    ``game`` (None: no mirror - the box stopped, a reboot, nothing drawn yet - or a
    database from before schema 6)."""
    if not offers(version, Capability.SHOWN):
        return None
    path = main_file(db)
    if path is None:
        return None
    return read_mirror(_mirror_at(path))


def main_file(db: sqlite3.Connection) -> str | None:
    """The file of the connection's main database (None: in memory)."""
    for _, name, file in db.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return str(file) or None
    return None


def _mirror_at(db_path: str) -> str:
    """:func:`mirror_path` as a string, joined as :func:`publish` joins it (the readers
    ask at every read; a path object costs a parse of the folder's at each)."""
    return os.path.join(folder(db_path), _mirror_name(db_path))


def read_mirror(path: str | Path) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as file:      # (JSON's own UTF-8, as json.dumps wrote it)
            found = json.loads(file.read())
    except (OSError, ValueError):
        return None
    data = found.get("data") if isinstance(found, dict) else None
    if not isinstance(data, dict):
        return None
    data["game"] = found.get("game")
    return data


def mirror_bytes(db: sqlite3.Connection) -> bytes | None:
    """The mirror of the record ``db`` is connected to, as its file holds it (None: no
    mirror): a reader that keeps what it computed from the picture compares these, since
    the record's change counters do not see the mirror, which lives outside it."""
    path = main_file(db)
    if path is None:
        return None
    try:
        with open(_mirror_at(path), "rb") as file:
            return file.read()
    except OSError:
        return None


def stamp(db_path: str | Path) -> tuple[int, int] | None:
    """Changes whenever the mirror is replaced (the web's feed looks at it beside
    the record's ``data_version``)."""
    try:
        st = os.stat(mirror_path(db_path))
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns
