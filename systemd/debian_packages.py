"""Which of the box's dependencies Debian's packages give in a version the project accepts.

Run by systemd/install.sh with the system's python3 (standard library only), before the
venv exists:

    python3 systemd/debian_packages.py PYPROJECT EXTRAS

EXTRAS is a comma-separated list of the extras being installed (pi,web,mqtt). For each
requirement of the project's dependencies and those extras it asks apt which version of
the matching Debian package it would install (`apt-cache policy`, the command named by
$SHUTBOX_APT_CACHE if set) and prints one tab-separated line:

    debian  python3-pil        Pillow     9.4.0   Pillow<14
    pypi    python3-luma.oled  luma.oled  3.10.0  luma.oled>=3.13
    pypi    python3-lgpio      lgpio      -       lgpio>=0.2

"debian": the package's upstream version meets every clause of the pin, so the installer
installs it with apt and the venv (--system-site-packages) sees it with its metadata;
"pypi": apt has none ("-") or one the pin refuses, so pip takes PyPI's wheel. Markers
(``; sys_platform == 'linux'``) are not evaluated: the box is Linux.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

# Debian's name where it is not python3-<the distribution's name, lower case>
DEBIAN_NAMES = {"pillow": "python3-pil", "babel": "python3-babel"}
CLAUSE = re.compile(r"\s*(~=|==|!=|<=|>=|<|>)\s*([0-9][0-9A-Za-z.]*)\s*$")


def debian_name(dist: str) -> str:
    key = dist.lower().replace("_", "-")
    return DEBIAN_NAMES.get(key, "python3-" + key)


def requirements(pyproject: Path, extras: list[str]) -> list[tuple[str, str]]:
    """(distribution, specifier) of the dependencies and the named extras, in order."""
    project = tomllib.loads(pyproject.read_text())["project"]
    lines = list(project.get("dependencies", []))
    optional = project.get("optional-dependencies", {})
    for extra in extras:
        lines += optional.get(extra, [])
    found = []
    for line in lines:
        spec = line.split(";", 1)[0].strip()
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$", spec)
        if m and m.group(2) is None:            # a self-reference (shutbox-hw[web]) has extras
            found.append((m.group(1), m.group(3).strip()))
    return found


def upstream(debian_version: str) -> str:
    """The upstream part of a Debian version: no epoch, revision or +dfsg/~rpt suffix."""
    version = debian_version.split(":", 1)[-1]
    if "-" in version:
        version = version.rsplit("-", 1)[0]
    return re.split(r"[+~]", version, maxsplit=1)[0]


def _numbers(version: str) -> tuple[int, ...]:
    parts = []
    for piece in version.split("."):
        m = re.match(r"\d+", piece)
        if not m:
            break
        parts.append(int(m.group()))
    return tuple(parts)


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    width = max(len(a), len(b))
    a, b = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (a > b) - (a < b)


def accepts(specifier: str, version: str) -> bool:
    """Whether a release version (numbers and dots) meets every clause of a PEP 440
    specifier such as ``>=3.13`` or ``>=0.4,<14``; a clause it cannot read refuses."""
    have = _numbers(version)
    if not have:
        return False
    for clause in filter(None, (c.strip() for c in specifier.split(","))):
        m = CLAUSE.match(clause)
        if not m:
            return False
        op, want = m.group(1), _numbers(m.group(2))
        c = _cmp(have, want)
        if op == "~=":
            ok = c >= 0 and have[:len(want) - 1] == want[:-1] and len(want) >= 2
        else:
            ok = {"==": c == 0, "!=": c != 0, "<=": c <= 0, ">=": c >= 0,
                  "<": c < 0, ">": c > 0}[op]
        if not ok:
            return False
    return True


def candidate(package: str) -> str | None:
    """The version apt would install, or None where apt has no such package."""
    command = os.environ.get("SHUTBOX_APT_CACHE") or "apt-cache"
    try:
        out = subprocess.run([command, "policy", package], capture_output=True, text=True,
                             timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"^\s*Candidate:\s*(\S+)", out, re.M)
    return m.group(1) if m and m.group(1) != "(none)" else None


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: debian_packages.py PYPROJECT EXTRAS", file=sys.stderr)
        return 2
    extras = [e for e in argv[1].split(",") if e]
    for dist, spec in requirements(Path(argv[0]), extras):
        package = debian_name(dist)
        found = candidate(package)
        version = upstream(found) if found else "-"
        where = "debian" if found and accepts(spec, version) else "pypi"
        print("\t".join((where, package, dist, version, dist + spec)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
