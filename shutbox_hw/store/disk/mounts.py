"""A file system that forgets: the record's folder on RAM (issue 38).

Raspberry Pi OS's overlay file system (raspi-config's read-only root, turned on
to protect the card) keeps every write in RAM: each game of a night is gone at
the next power-off, and the box would not know. At start the box reads its own
``/proc/self/mountinfo``, finds the mount its record's folder is on, and says
so when that is a tmpfs, a ramfs, or an overlay whose changes live on one
(Raspberry Pi OS's ``overlayroot`` keeps them on the tmpfs at
``/media/root-rw``; an overlay whose upper folder is not in sight is taken as
forgetful too): on the OLED, in ``check-config`` and in ``selftest``, with the
way out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")
RAM = frozenset(("tmpfs", "ramfs"))
OVERLAYS = frozenset(("overlay", "overlayfs", "aufs"))
# the box's words (the OLED's problem bar: "record: kept in RAM, lost at power-off")
PART = "record"
WORDS = "kept in RAM, lost at power-off"
WAY_OUT = ("put the record on a writable partition or a USB stick ([storage] db), or turn "
           "the overlay off (sudo raspi-config: Performance Options, Overlay File System)")


@dataclass(frozen=True)
class Mount:
    point: str
    fstype: str
    source: str
    options: str    # the super block's options (an overlay's upperdir is among them)


def _unescape(text: str) -> str:
    """mountinfo writes space, tab, newline and backslash as octal escapes."""
    for code in ("040", "011", "012", "134"):
        text = text.replace(f"\\{code}", chr(int(code, 8)))
    return text


def parse(text: str) -> list[Mount]:
    """The mounts of a mountinfo text, in its order (a later mount on the same point
    hides an earlier one). Lines that do not parse are left out."""
    mounts = []
    for line in text.splitlines():
        fields = line.split(" ")
        try:
            dash = fields.index("-", 6)
            mounts.append(Mount(_unescape(fields[4]), fields[dash + 1],
                                _unescape(fields[dash + 2]), fields[dash + 3]))
        except (ValueError, IndexError):
            continue
    return mounts


def _inside(path: str, point: str) -> bool:
    return point == "/" or path == point or path.startswith(point.rstrip("/") + "/")


def _same(a: Mount, b: Mount) -> bool:
    """Whether two mounts show one file system: the same mount, or a bind mount of it
    (systemd binds the unit's StateDirectory= over itself under ProtectSystem=strict:
    the record's folder is then an overlay's bind, and an upper folder out of sight
    resolves to the overlay itself at ``/``)."""
    return a.point == b.point or (a.fstype, a.source, a.options) == (b.fstype, b.source, b.options)


def mount_of(path: str, mounts: list[Mount]) -> Mount | None:
    """The mount ``path`` (absolute, symlinks resolved) is on: the longest mount point
    above it, the last mounted where two share one."""
    best: Mount | None = None
    for mount in mounts:
        if _inside(path, mount.point) and (best is None or len(mount.point) >= len(best.point)):
            best = mount
    return best


def existing_folder(path: Path) -> str:
    """The record's folder as this machine's kernel sees it (its nearest existing
    ancestor, symlinks resolved: a record not made yet goes where its folder will be)."""
    folder = Path(os.path.abspath(path)).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return str(folder.resolve())


def forgets(path: Path, mountinfo: str | None = None, *, here: bool | None = None
            ) -> str | None:
    """Why the record at ``path`` would not survive a power-off (None: it would, or
    the mounts cannot be read). ``mountinfo``: the text (else this process's own);
    ``here``: it is this machine's (the path is then looked up on it; by default
    only when the text is read here)."""
    if mountinfo is None:
        try:
            mountinfo = MOUNTINFO.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        here = True if here is None else here
    if here:
        folder = existing_folder(path)
    else:   # another machine's mounts: the path as it is written
        folder = os.path.normpath(Path("/", path).parent)
    mounts = parse(mountinfo)
    mount = mount_of(folder, mounts)
    if mount is None:
        return None
    if mount.fstype in RAM:
        return f"{folder} is on a {mount.fstype} (RAM, mounted at {mount.point})"
    if mount.fstype in OVERLAYS:
        upper = next((_unescape(o.removeprefix("upperdir=")) for o in mount.options.split(",")
                      if o.startswith("upperdir=")), None)
        under = mount_of(upper, mounts) if upper else None
        if under is not None and not _same(under, mount) and under.fstype not in RAM:
            return None   # its changes are kept on a real disk
        return (f"{folder} is on an overlay file system (mounted at {mount.point}) whose "
                f"changes are kept in RAM")
    return None


def explain(path: Path, why: str) -> str:
    """What is wrong and the way out, in one line."""
    return f"the record {path} would be lost at every power-off: {why}; {WAY_OUT}"


def advice(path: Path, mountinfo: str | None = None) -> str | None:
    """``check-config``'s and ``selftest``'s line (None: nothing to say)."""
    why = forgets(path, mountinfo)
    return None if why is None else explain(path, why)
