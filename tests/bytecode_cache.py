"""Compiled tests kept between the suite's processes, outside the checkout.

Imported first by ``conftest.py``, for what it does on import: where
``PYTHONDONTWRITEBYTECODE`` is set (it is, in the sessions on the machine the project
is built on), nothing is cached between processes, so each xdist worker rewrote the
asserts of every test module again (pytest's assertion rewriting: about 7 s of CPU
of a worker's 10 s collection) and compiled the package from source. Here the test
process writes its bytecode (pytest's rewritten tests and the modules it imports)
under ``$XDG_CACHE_HOME/shutbox-hw/pytest-pyc`` (``~/.cache`` without it) by
Python's own ``sys.pycache_prefix``: nothing is written into the checkout (which is
what the variable keeps clean), the processes the tests start still inherit the
variable and write nothing, and a source that changes is compiled again (each
``.pyc`` records its source's size and time, as in ``__pycache__``).

Left as it is when the variable is not set (``__pycache__`` then caches as usual),
when a prefix is set already (``PYTHONPYCACHEPREFIX``), with
``SHUTBOX_TEST_PYC_CACHE=0``, or when the folder is not a private one of this user's
(another user's test run, a home that cannot be written). The test process that
starts a run (not an xdist worker) drops the cached files whose source is gone (the
private checkout's copies, a removed module), so the folder holds no more than the
sources there are.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

ENABLE = "SHUTBOX_TEST_PYC_CACHE"


def folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "shutbox-hw" / "pytest-pyc"


def _private(place: Path) -> bool:
    """A directory of this user's that nobody else may write (not a link)."""
    try:
        place.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = place.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o022


def source_of(pyc: str) -> str:
    """The source a cached ``.pyc`` under the prefix was compiled from (the prefix's
    tree mirrors the absolute paths): ``<prefix>/a/b/m.cpython-311-pytest-9.2.0.pyc``
    is ``/a/b/m.py``."""
    head, name = os.path.split(pyc)
    return os.path.join(head, name.split(".", 1)[0] + ".py")


def prune(prefix: Path) -> int:
    """Remove the cached files whose source is gone, and the folders left empty;
    returns how many files went."""
    gone = 0
    for here, _dirs, files in os.walk(prefix, topdown=False):
        rel = os.path.relpath(here, prefix)
        for name in files:
            source = source_of(os.path.join(os.sep, rel, name))
            if not os.path.exists(source):
                try:
                    os.unlink(os.path.join(here, name))
                    gone += 1
                except OSError:
                    pass
        if here != str(prefix) and not os.listdir(here):
            try:
                os.rmdir(here)
            except OSError:
                pass
    return gone


def enable() -> Path | None:
    """Turn the cache on for this process (see the module); the folder, or None."""
    if not sys.dont_write_bytecode or sys.pycache_prefix or os.environ.get(ENABLE) == "0":
        return None
    place = folder()
    if not _private(place):
        return None
    if "PYTEST_XDIST_WORKER" not in os.environ:
        prune(place)
    sys.pycache_prefix = str(place)
    sys.dont_write_bytecode = False
    return place


enable()
