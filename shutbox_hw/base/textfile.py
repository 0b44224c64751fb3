"""Reading a file a person names (a config, a script): refused cleanly, never a hang.

``open()`` on a FIFO waits for a writer, ``read()`` of ``/dev/zero`` never
ends and opening some devices has effects, so the path must be a regular file
before it is opened; it is opened non-blocking, checked again, and read only
up to a size limit.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import UserError, shown_path

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))

_ERRNO_WORDS = {
    errno.ENOENT: "no such {what}",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.ELOOP: "too many levels of symbolic links (a symlink loop?)",
    errno.ENAMETOOLONG: "the path is too long",
    errno.EACCES: "cannot read the {what} (permission denied)",
    errno.EPERM: "cannot read the {what} (permission denied)",
}


def os_problem(error: OSError, what: str) -> str:
    """A plain phrase for why a path could not be used (no path, no traceback)."""
    words = _ERRNO_WORDS.get(error.errno or 0)
    if words:
        return words.format(what=what)
    return f"cannot read the {what}: {error.strerror or error}"


def file_kind(mode: int) -> str | None:
    """'a FIFO (named pipe)' etc. for anything that is not a regular file."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None


def read_text_file(path: str | Path, what: str, limit: int) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes.

    Raises :class:`UserError` "PATH: problem" (the path clipped) otherwise.
    """
    name = shown_path(path)
    try:
        # stat first: merely opening some devices acts (/dev/watchdog arms the watchdog)
        kind = file_kind(os.stat(path).st_mode)
        if kind:
            raise UserError(f"{name}: is {kind}, not a {what}")
        # non-blocking: if it was swapped for a FIFO since, the open does not wait
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as error:
        raise UserError(f"{name}: {os_problem(error, what)}") from None
    kind = file_kind(os.fstat(fd).st_mode)
    if kind:
        os.close(fd)
        raise UserError(f"{name}: is {kind}, not a {what}")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(limit + 1)
        except OSError as error:
            raise UserError(f"{name}: {os_problem(error, what)}") from None
    if len(data) > limit:
        raise UserError(f"{name}: too large for a {what} (over {limit // 1024} KiB)")
    try:
        return data.decode("utf-8-sig")   # a byte-order mark (Windows' Notepad) is no text
    except UnicodeDecodeError:
        raise UserError(f"{name}: not a text file (not UTF-8)") from None
