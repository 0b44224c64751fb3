"""Running the box's code as another user (``nobody``) from wherever the checkout is.

Root ignores permission bits, so the tests of read-only folders and unreadable files run
``shutbox-hw`` as ``nobody`` through ``setpriv``. ``nobody`` cannot enter a checkout in a
private folder (root's home, a ``mktemp -d``: mode 0700), so the venv's ``shutbox-hw`` and
its site-packages are out of its reach there. ``public_copy`` copies the package, its
runtime dependencies and any extra folders into a world-readable temporary folder once per
session; ``nobody`` runs the interpreter itself (outside the checkout) on that copy with
``-S``, so it sees nothing but the standard library and the copy.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

NOBODY = 65534
CHECKOUT = Path(__file__).resolve().parent.parent
# the interpreter the venv was made from: a venv's bin/ lies inside the checkout
INTERPRETER = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
_MAIN = "import sys; from shutbox_hw.commands.cli import main; sys.exit(main())"


def setpriv(groups: tuple[int, ...] = ()) -> list[str]:
    """The prefix that drops root to ``nobody`` (in ``groups`` only); empty when not root
    (the user is ordinary)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root without setpriv cannot act as an ordinary user")
    joined = ["--groups=" + ",".join(map(str, groups))] if groups else ["--clear-groups"]
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", *joined]


def _distributions(name: str) -> list[metadata.Distribution]:
    """``name`` and every distribution it needs at run time (extras left out)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [name]
    while todo:
        wanted = re.split(r"[ ;<>=!~\[(]", todo.pop(), maxsplit=1)[0]
        key = re.sub(r"[-_.]+", "-", wanted).lower()
        if key in seen:
            continue
        try:
            dist = metadata.distribution(wanted)
        except metadata.PackageNotFoundError:
            continue                    # an optional platform dependency not installed here
        seen[key] = dist
        todo += [r for r in dist.requires or [] if "extra ==" not in r]
    return list(seen.values())


def _copy_distribution(dist: metadata.Distribution, site: Path) -> None:
    for file in dist.files or []:
        if file.parts[0] in ("..", "__pycache__") or "__pycache__" in file.parts:
            continue                    # console scripts, compiled caches
        source = Path(str(dist.locate_file(file)))
        if source.is_file():
            target = site / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


class PublicCopy:
    """A world-readable folder with ``site/`` (the package and its dependencies)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.site = root / "site"

    def add(self, source: Path, name: str | None = None) -> Path:
        """Copy a file or folder of the checkout (a fake module, a script) next to ``site/``,
        as ``name`` (a relative path) if given; once per session."""
        target = self.root / (name or source.name)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, target)
            _open_up(self.root)
        return target

    def include(self, *names: str) -> None:
        """Copy these distributions (an extra's: ``uvicorn``, ``starlette``) and what they
        need at run time into ``site/`` as well; once per session."""
        for dist in (d for name in names for d in _distributions(name)):
            if not (self.site / f"{dist.metadata['Name']}.copied").exists():
                _copy_distribution(dist, self.site)
                (self.site / f"{dist.metadata['Name']}.copied").touch()
        _open_up(self.root)

    def command(self, *args: str, code: str = _MAIN, groups: tuple[int, ...] = ()) -> list[str]:
        """``shutbox-hw ARGS`` (or ``python -c CODE ARGS``) as ``nobody`` on this copy
        (a member of ``groups`` only)."""
        return [*setpriv(groups), str(INTERPRETER), "-S", "-c", code, *args]

    def env(self, *before: Path, **extra: str) -> dict[str, str]:
        """The environment for ``command``: ``before`` folders ahead of the copy on the path."""
        env = {**os.environ, **extra}
        for name in ("PYTHONHOME", "VIRTUAL_ENV"):
            env.pop(name, None)
        env["PYTHONPATH"] = os.pathsep.join([*map(str, before), str(self.site)])
        return env


def _open_up(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)


def make_public_copy() -> Iterator[PublicCopy]:
    """The session's copy; skips (one line, with the reason) where ``nobody`` cannot run it."""
    root = Path(tempfile.mkdtemp(prefix="shutbox-public-"))
    try:
        copy = PublicCopy(root)
        for source, target in ((CHECKOUT / "shutbox_hw", "shutbox_hw"),
                               # setup.py maps the package shutbox_hw.dice_firmware here
                               (CHECKOUT / "firmware" / "dice", "shutbox_hw/dice_firmware")):
            shutil.copytree(source, copy.site / target,
                            ignore=shutil.ignore_patterns("__pycache__"))
        for dist in _distributions("shutbox-hw"):
            if dist.metadata["Name"].lower() != "shutbox-hw":
                _copy_distribution(dist, copy.site)
        _open_up(root)
        probe = subprocess.run(copy.command(code="import shutbox_hw.commands.cli, gpiozero"),
                               env=copy.env(), capture_output=True, text=True, timeout=60,
                               cwd="/")
        if probe.returncode != 0:
            last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
            pytest.skip(f"another user cannot run {INTERPRETER} on a public copy: {last}")
        yield copy
    finally:
        shutil.rmtree(root, ignore_errors=True)
